/* fuzz_options.c - libFuzzer target for the command line: the input is
 * split at newlines into argv; the parser must accept it or refuse it
 * with one line, never crash or read past argv. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2], err[512];
	struct amp_config cfg;
	int argc = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = "amp";
	for (char *p = buf, *nl; p && argc <= MAX_ARGS; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	err[0] = '\0';
	if (amp_parse_args(argc, argv, &cfg, err, sizeof err) < 0 && (!err[0] || strchr(err, '\n')))
		abort(); /* a refusal is one line with a reason */
	free(buf);
	return 0;
}
