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

struct amp_ctx;
struct amp_sweep;
/* Load latency against working-set size: the timing path's sweep (4 KiB
 * up to max_size, four sizes an octave) on c's host, into r's latency
 * table (r->sweep points at sw).  0, or -1 with err. */
int amp_measure_latency(struct amp_ctx *c, uint64_t max_size, struct amp_sweep *sw,
			struct amp_report *r, char *err, size_t len);

#endif
