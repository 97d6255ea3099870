/* load.h - how busy the other CPUs were while amp measured (load.c). */
#ifndef AMP_LOAD_H
#define AMP_LOAD_H

#include <stdint.h>

#define AMP_LOAD_CPUS 1024

/* One reading of /proc/stat: per CPU, jiffies spent working (user,
 * nice, system, irq, softirq) and in all (those, idle, iowait, steal). */
struct amp_load {
	int n;
	int cpu[AMP_LOAD_CPUS];
	uint64_t busy[AMP_LOAD_CPUS], all[AMP_LOAD_CPUS];
};

/* From this share of the run on, a busy CPU is worth a warning. */
#define AMP_OTHERS_BUSY 0.5

/* The CPUs other than amp's between two readings. */
struct amp_others {
	int known;
	int ncpus;              /* CPUs compared */
	double share;           /* their busy time over their time, all together */
	int busiest;            /* the busiest of them, and its share */
	double busiest_share;
};

/* Reads path (/proc/stat); 0, or -1 when it holds no per-CPU line. */
int amp_load_read(const char *path, struct amp_load *s);
/* cpu's busy share of its time from a to b, or -1 where unknown. */
double amp_load_share(const struct amp_load *a, const struct amp_load *b, int cpu);
/* The others of self from a to b; 0, or -1 when none can be compared. */
int amp_load_others(const struct amp_load *a, const struct amp_load *b, int self, struct amp_others *o);

#endif
