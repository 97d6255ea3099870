/* amp.h - the program's pieces that main() and the tests call. */
#ifndef AMP_AMP_H
#define AMP_AMP_H

#include "counters.h"
#include "report.h"

/* The whole program; returns the exit status (see util.h). */
int amp_main(int argc, char **argv);

/* Fills r->reported from sysfs (root: AMP_SYSFS_ROOT or the real
 * /sys/devices/system/cpu/cpu0/cache); 0, or -1 with
 * r->reported_missing set. */
int amp_reported_from_sysfs(struct amp_report *r);

/* Load latency against working-set size (random cyclic pointer chase,
 * one load per `stride` bytes, sizes doubling from 4 KiB to max_size),
 * minimum of reps runs; fills r->latency.  0, or -1 with err. */
int amp_measure_latency(const struct amp_host *host, uint64_t max_size, unsigned reps,
			uint64_t seed, struct amp_report *r, char *err, size_t len);

#endif
