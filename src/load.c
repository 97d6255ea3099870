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

int amp_load_others(const struct amp_load *a, const struct amp_load *b, int self, struct amp_others *o)
{
	uint64_t busy = 0, all = 0;

	memset(o, 0, sizeof *o);
	o->busiest = -1;
	for (int i = 0; i < b->n; i++) {
		uint64_t db, da;
		int j;

		if (b->cpu[i] == self)
			continue;
		for (j = 0; j < a->n && a->cpu[j] != b->cpu[i]; j++)
			;
		/* A CPU that came online during the run, or a counter that
		 * went back (hotplug), says nothing. */
		if (j == a->n || b->all[i] < a->all[j] || b->busy[i] < a->busy[j])
			continue;
		da = b->all[i] - a->all[j];
		db = b->busy[i] - a->busy[j];
		if (!da)
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
