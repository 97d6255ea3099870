/* eventmap.h - which native event counts each uniform event, per
 * microarchitecture, kept as a data table (libpfm4 style), and amp's own
 * CPU model -> table mapping (Debian's libpfm4 4.13 does not know every
 * model amp meets, e.g. Emerald Rapids). */
#ifndef AMP_EVENTMAP_H
#define AMP_EVENTMAP_H

#include <stddef.h>
#include "counters.h"

/* The host CPU as the kernel / CPUID describe it. */
struct amp_cpu_id {
	char arch[16];        /* "x86_64", "aarch64", ... (uname -m) */
	char vendor[16];      /* "GenuineIntel", "AuthenticAMD", "ARM", ... */
	unsigned family, model, stepping;     /* x86 */
	unsigned implementer, part;           /* arm: MIDR fields */
	char model_name[128]; /* /proc/cpuinfo "model name" */
};
/* Fill id for this host; returns 0, or -1 when nothing could be read. */
int amp_cpu_identify(struct amp_cpu_id *id);

/* One microarchitecture amp has an event table for. */
struct amp_uarch {
	const char *name;     /* "spr", "zen4", ... (amp's name) */
	const char *title;    /* "Intel Sapphire/Emerald Rapids" */
	const char *pfm_pmu;  /* libpfm4 PMU name, e.g. "spr", "amd64_fam19h_zen4" */
};

/* Map a CPU to its microarchitecture; NULL when amp has no table. */
const struct amp_uarch *amp_uarch_for_cpu(const struct amp_cpu_id *id);
const struct amp_uarch *amp_uarch_find(const char *name);
extern const struct amp_uarch amp_uarchs[];   /* terminated by {NULL} */

/* One row: on uarch, uniform event ev is counted by native event
 * (libpfm4 syntax without the PMU prefix, e.g. "L1D:REPLACEMENT"). */
struct amp_eventmap_row {
	const char *uarch;
	enum amp_event ev;
	const char *native;
	int line;             /* __LINE__, for the self-check's messages */
};
extern const struct amp_eventmap_row amp_eventmap[]; /* terminated by {NULL} */

/* Native event for (uarch, ev), or NULL when the table has none. */
const char *amp_eventmap_native(const struct amp_uarch *u, enum amp_event ev);
/* Table self-check (known uarch names, no duplicate rows, every uarch
 * has the core events); 0, or -1 with the first problem in err. */
int amp_eventmap_selfcheck(char *err, size_t len);
/* The same checks on any pair of tables (the tests feed it broken ones). */
int amp_eventmap_check(const struct amp_uarch *uarchs, const struct amp_eventmap_row *rows,
		       char *err, size_t len);

#endif
