/* replay.c - runs a fuzz target over its saved corpus (every file of the
 * directories named, or of $AMP_TEST_SRCDIR/fuzz/CORPUS), so `make check`
 * keeps each input that ever mattered as a regression test without
 * libFuzzer.  TAP: one line per directory. */
#include "config.h"
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int failed = 0;
	char dflt[4096];
	char *dflt_argv[] = { argv[0], dflt, NULL };

	if (argc < 2) {
		const char *src = getenv("AMP_TEST_SRCDIR");

		snprintf(dflt, sizeof dflt, "%s/fuzz/%s", src ? src : "tests", CORPUS);
		argv = dflt_argv;
		argc = 2;
	}

	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		int n = 0;

		if (!d) {
			printf("not ok %d - corpus %s cannot be read\n", i, argv[i]);
			failed = 1;
			continue;
		}
		while ((e = readdir(d))) {
			char path[4096];
			static uint8_t buf[1 << 16];
			FILE *f;
			size_t got;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
			f = fopen(path, "rb");
			if (!f)
				continue;
			got = fread(buf, 1, sizeof buf, f);
			fclose(f);
			LLVMFuzzerTestOneInput(buf, got); /* aborts on a broken property */
			n++;
		}
		closedir(d);
		printf("%s %d - %d inputs of %s replayed\n", n ? "ok" : "not ok", i, n, argv[i]);
		failed |= !n;
	}
	printf("1..%d\n", argc - 1);
	return failed;
}
