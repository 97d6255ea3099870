/* sysfs.c - the caches Linux reports: the "reported" column beside what
 * amp measures, never a substitute for it. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "amp.h"
#include "util.h"

static int read_u64(const char *dir, const char *file, uint64_t *v)
{
	char path[512], buf[64];

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (amp_read_line(path, buf, sizeof buf) < 0)
		return -1;
	/* "48K" in size, plain numbers elsewhere. */
	return amp_parse_size(buf, v);
}

int amp_reported_from_sysfs(struct amp_report *r)
{
	const char *root = getenv("AMP_SYSFS_ROOT");
	char dir[512], path[600], buf[64];

	if (!root || !*root)
		root = "/sys/devices/system/cpu/cpu0/cache";
	r->nreported = 0;
	snprintf(r->reported_source, sizeof r->reported_source, "sysfs");
	for (int i = 0; i < 32 && r->nreported < AMP_MAX_LEVELS; i++) {
		struct amp_reported_cache *c = &r->reported[r->nreported];
		uint64_t level, size, line, ways = 0, sets = 0;

		snprintf(dir, sizeof dir, "%s/index%d", root, i);
		if (read_u64(dir, "level", &level) < 0)
			break;
		if (read_u64(dir, "size", &size) < 0 || read_u64(dir, "coherency_line_size", &line) < 0)
			continue;
		int no_ways = read_u64(dir, "ways_of_associativity", &ways) < 0;

		read_u64(dir, "number_of_sets", &sets);
		memset(c, 0, sizeof *c);
		c->ways_unknown = no_ways;
		c->level = (int)level;
		c->size = size;
		c->line = line;
		c->ways = (unsigned)ways;
		c->sets = (unsigned)sets;
		snprintf(path, sizeof path, "%s/type", dir);
		if (amp_read_line(path, buf, sizeof buf) == 0) {
			for (char *p = buf; *p; p++)
				*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
			snprintf(c->type, sizeof c->type, "%s", buf);
		}
		snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
		amp_read_line(path, c->shared_with, sizeof c->shared_with);
		r->nreported++;
	}
	if (r->nreported == 0) {
		snprintf(r->reported_missing, sizeof r->reported_missing,
			 "%s has no readable cache descriptions", root);
		return -1;
	}
	return 0;
}
