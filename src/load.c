/* load.c - how busy the other CPUs were while amp measured.
 *
 * Read from /proc/stat at the start and the end of the measurements
 * (before --cpu's own threads).  A CPU that shares amp's core (SMT) or
 * its caches takes ways from them while it works: on this project's Zen 5
 * guest, under a test suite's load, `--level=L1d` saw only 10 of L1d's
 * 12 ways hold its lines (11 lines of one set missed half the time) in
 * 34 of 183 runs (loops of ours on either vCPU did not reproduce it:
 * the cause there is not known).  amp cannot tell which CPUs share its
 * core in a guest; it reports how busy the others were, so a reader
 * knows when to measure again on an idle machine. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "load.h"

int amp_load_read(const char *path, struct amp_load *s)
{
	char line[512];
	FILE *f = fopen(path, "r");

	s->n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f) && s->n < AMP_LOAD_CPUS) {
		unsigned long long v[8] = { 0 };
		int cpu;

		/* cpuN user nice system idle iowait irq softirq steal ... */
		if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) < 5)
			continue;
		s->cpu[s->n] = cpu;
		s->busy[s->n] = v[0] + v[1] + v[2] + v[5] + v[6];
		s->all[s->n] = s->busy[s->n] + v[3] + v[4] + v[7];
		s->n++;
	}
	fclose(f);
	return s->n ? 0 : -1;
}

/* b's i-th CPU's jiffies working (*db) and in all (*da) since a; 0, or
 * -1 where they say nothing: a CPU that came online in between, or a
 * counter that went back (hotplug), or no time passed. */
static int since(const struct amp_load *a, const struct amp_load *b, int i, uint64_t *db, uint64_t *da)
{
	int j;

	for (j = 0; j < a->n && a->cpu[j] != b->cpu[i]; j++)
		;
	if (j == a->n || b->all[i] < a->all[j] || b->busy[i] < a->busy[j] || b->all[i] == a->all[j])
		return -1;
	*da = b->all[i] - a->all[j];
	*db = b->busy[i] - a->busy[j];
	return 0;
}

double amp_load_share(const struct amp_load *a, const struct amp_load *b, int cpu)
{
	uint64_t db, da;

	for (int i = 0; i < b->n; i++)
		if (b->cpu[i] == cpu)
			return since(a, b, i, &db, &da) < 0 ? -1 : (double)db / (double)da;
	return -1;
}

int amp_load_others(const struct amp_load *a, const struct amp_load *b, int self, struct amp_others *o)
{
	uint64_t busy = 0, all = 0;

	memset(o, 0, sizeof *o);
	o->busiest = -1;
	for (int i = 0; i < b->n; i++) {
		uint64_t db, da;

		if (b->cpu[i] == self || since(a, b, i, &db, &da) < 0)
			continue;
		busy += db;
		all += da;
		o->ncpus++;
		if (o->busiest < 0 || (double)db / (double)da > o->busiest_share) {
			o->busiest = b->cpu[i];
			o->busiest_share = (double)db / (double)da;
		}
	}
	if (!o->ncpus)
		return -1;
	o->share = (double)busy / (double)all;
	o->known = 1;
	return 0;
}
