/* fuzz_spec.c - libFuzzer target for the --sim grammar: any bytes must
 * parse or be refused with a reason, never crash; a spec that parses
 * must format to text that parses back to the same canonical text. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[4096], canon[SIM_SPEC_TEXT_LEN], again[SIM_SPEC_TEXT_LEN];
	static struct sim_spec spec, spec2;
	char err[SIM_ERR_LEN];

	if (size >= sizeof text)
		size = sizeof text - 1;
	memcpy(text, data, size);
	text[size] = '\0';
	if (sim_spec_parse(text, &spec, err, sizeof err) < 0) {
		if (!err[0] || strchr(err, '\n'))
			abort(); /* a refusal is one line with a reason */
		return 0;
	}
	sim_spec_format(&spec, canon, sizeof canon);
	if (sim_spec_parse(canon, &spec2, err, sizeof err) < 0)
		abort(); /* the canonical text must parse */
	sim_spec_format(&spec2, again, sizeof again);
	if (strcmp(canon, again) != 0)
		abort(); /* and come back the same */
	return 0;
}
