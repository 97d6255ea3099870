/* output.h - the end of a run: measured against reported, the formats
 * asked for (stdout or one file each), the curves, the result cache. */
#ifndef AMP_OUTPUT_H
#define AMP_OUTPUT_H

#include <stddef.h>
#include "options.h"
#include "report.h"

/* Builds the comparison into r and writes every output cfg asks for;
 * returns the exit status (status, or worse when writing failed). */
int amp_output(const struct amp_config *cfg, struct amp_report *r, int status);

/* --cache (cache.c): the file for this CPU, kernel and options in
 * $XDG_CACHE_HOME/amp (default ~/.cache/amp); 0, or -1 with err. */
int amp_cache_path(const struct amp_config *cfg, const struct amp_report *r, char *path, size_t plen,
		   char *err, size_t len);
/* Copies a kept report to stdout; 1 when there was one, 0 when not. */
int amp_cache_print(const char *path);
/* Checks that the cache directory can take a file (before measuring);
 * 0, or -1 with err. */
int amp_cache_writable(const char *path, char *err, size_t len);
/* Stores r's JSON at path atomically (a temporary file renamed over
 * it): a reader sees the old report or the new one, never a part. */
int amp_cache_store(const char *path, const struct amp_report *r, char *err, size_t len);

#endif
