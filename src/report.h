/* report.h - the one result structure every output format is written
 * from (fio stat.c style: emitters over one structure).  A value amp
 * could not get is unknown with a reason, never made up. */
#ifndef AMP_REPORT_H
#define AMP_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "counters.h"
#include "load.h"
#include "measure.h"

#define AMP_FORMAT_VERSION 1
#define AMP_MAX_LEVELS 16
#define AMP_MAX_POINTS 96
#define AMP_MAX_BACKENDS 8

/* A number that may be unknown; then reason says why. */
struct amp_num {
	int known;
	double value;
	char reason[AMP_REASON_LEN];
};
void amp_num_set(struct amp_num *n, double v);
void amp_num_unknown(struct amp_num *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct amp_cpu;
struct amp_cpusys;

struct amp_backend_status {
	const char *name;
	int priority, usable;
	char reason[AMP_REASON_LEN];
};

/* A cache as the system reports it (sysfs), or as the simulated
 * machine's spec defines it: the "reported" column. */
struct amp_reported_cache {
	int level;
	char type[16];          /* data, instruction, unified */
	uint64_t size, line;
	unsigned ways;          /* 0 = fully associative, unless ways_unknown */
	unsigned sets;
	int ways_unknown;       /* the source does not say (AMD's code 9, no sysfs file) */
	char shared_with[64];   /* CPUs sharing it */
};

struct amp_latency_point {
	uint64_t size;          /* working set, bytes */
	double ticks;           /* per load, timer ticks or simulated cycles */
	struct amp_num ns;      /* per load, nanoseconds */
};

struct amp_report {
	char amp_version[32];
	/* Host */
	char cpu[128], arch[16], kernel[64];
	char uarch[32];                 /* amp's event table, "" when none */
	char sim_spec[2048];            /* canonical spec when simulating */
	/* Backend and calibration */
	char backend[16];
	char backend_why[4 * AMP_REASON_LEN];
	struct amp_backend_status backends[AMP_MAX_BACKENDS];
	int nbackends;
	char tick_unit[96];             /* what one tick is */
	struct amp_num tick_mhz, timer_resolution_ns, timer_overhead_ticks;
	struct amp_num counter_overhead_ticks;
	struct amp_num pinned_cpu;
	char pinned_how[192];   /* how amp chose it (pin.c) */
	struct amp_others others;       /* the other CPUs while amp measured (load.c) */
	char others_reason[AMP_REASON_LEN]; /* why not known */
	struct amp_num core_mhz;        /* measured: dependent integer adds */
	double cycles_per_tick;         /* core cycles per tick; 0 unknown */
	/* What the system (or the spec) says */
	char reported_source[64];
	struct amp_reported_cache reported[AMP_MAX_LEVELS];
	int nreported;
	char reported_missing[AMP_REASON_LEN];  /* why there is none */
	/* Measured: load latency against working-set size */
	uint64_t latency_stride;
	char latency_method[160];
	struct amp_latency_point latency[AMP_MAX_POINTS];
	int nlatency;
	/* The sweep's levels: latency per cluster, the last main memory */
	const struct amp_sweep *sweep;
	struct amp_num memory_ticks;    /* main memory's latency */
	/* Measured: caches and TLBs, parameter by parameter */
	const struct amp_ctx *hier;     /* NULL when not characterised */
	/* --cross-check: the timing path's result beside the counters' */
	const struct amp_ctx *cross;
	/* --cpu: the CPU characterisation (NULL when not asked for) */
	const struct amp_cpu *cpu_part;
	/* --cpu: contexts, time slot, locality, bandwidth (cpu_sys.h) */
	const struct amp_cpusys *cpusys;
	/* Wall time per phase (-v, and the JSON) */
	int nphases;
	struct { const char *name; double seconds; } phase[32];
	char hier_missing[2 * AMP_REASON_LEN]; /* why not */
	/* The memory bound (--max-memory) and why it is what it is */
	uint64_t memory_bound;
	char memory_bound_why[128];
	char sweep_note[128];           /* why the sweep stopped early, "" */
	double wall_seconds;
	/* Measured against reported (vendor.h): CPUID's view (NULL on a
	 * simulated machine without AMP_CPUID_DUMP) and the table. */
	const struct amp_vendor *vendor;
	const struct amp_compare *compare;
	/* The libraries' views (vendor.h: papi, hwloc); NULL: not read. */
	const struct amp_libview *libviews;
};

struct amp_vendor;
struct amp_compare;

void amp_report_init(struct amp_report *r);
void amp_emit_text(const struct amp_report *r, FILE *out);
void amp_emit_json(const struct amp_report *r, FILE *out);
void amp_emit_csv(const struct amp_report *r, FILE *out);    /* emit_csv.c */
void amp_emit_header(const struct amp_report *r, FILE *out); /* emit_header.c */

/* JSON string with escaping (shared by the emitters and listings). */
void amp_json_string(FILE *out, const char *s);

#endif
