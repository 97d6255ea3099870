/* cpu.h - the CPU characterisation's core micro-benchmarks (X-Ray
 * section 3, BlackjackBench 3.3 and 3.5): core frequency, latency,
 * initiation interval and operations in flight of add, sub, mul and div
 * on four types, fused multiply-add, and the registers a compiler can
 * give to variables.  Timed with the nano-benchmarks of synth/. */
#ifndef AMP_CPU_H
#define AMP_CPU_H

#include <stdio.h>
#include "report.h"

#define AMP_CPU_MAX_INSNS 16
#define AMP_CPU_MAX_BENCH 8
#define AMP_CPU_NREG 3   /* int, double, vector */

struct amp_cpu_insn {
	const char *op, *type;            /* "add".."div", "int32".."double" */
	struct amp_num latency_cycles;    /* dependent chain, per operation */
	struct amp_num throughput;        /* initiation interval: cycles between
					     independent operations (uops.info's
					     "TP", Agner's reciprocal throughput) */
	struct amp_num in_flight;         /* streams before the cost of an
					     iteration starts to grow */
};

struct amp_cpu_regs {
	const char *name;                 /* "int", "double", "vector" */
	const char *ctype;                /* the variables' C type */
	struct amp_num count;             /* registers available to variables */
	double before, after;             /* cycles per add around the step */
	int npoints;                      /* cycles per add for 2, 3, ... variables */
	double cycles[64];
};

struct amp_cpu {
	int measured;                     /* 0: see reason */
	char reason[AMP_REASON_LEN];
	struct amp_num frequency_mhz;     /* dependent integer adds (X-Ray 3.1) */
	double cycles_per_tick;
	struct amp_num add_latency_check; /* the generated int32 add chain, cycles */
	struct amp_cpu_insn insn[AMP_CPU_MAX_INSNS];
	int ninsns;
	struct amp_num fma;               /* 1 present, 0 absent */
	char fma_why[AMP_REASON_LEN];
	double fma_fused_latency, fma_separate_latency; /* cycles per a*x+y */
	double fma_fused_ii, fma_separate_ii;
	struct amp_cpu_regs regs[AMP_CPU_NREG];
	int nbench;                       /* wall time per benchmark */
	struct { const char *name; double seconds; } bench[AMP_CPU_MAX_BENCH];
	double seconds;
};

/* Runs every benchmark on the calling thread (pinned by the caller);
 * t_min_ns is X-Ray's t_min per timing, reps the repetitions whose
 * minimum is kept.  Fills cpu; 0, or -1 with cpu->reason. */
int amp_cpu_measure(struct amp_cpu *cpu, double t_min_ns, unsigned reps);
/* cpu's values unknown, with the reason (a simulated machine). */
void amp_cpu_unknown(struct amp_cpu *cpu, const char *reason);

/* The report's "CPU" section, and the members of the JSON "cpu" object
 * (no braces: other parts of the CPU characterisation add theirs). */
void amp_cpu_emit_text(const struct amp_cpu *cpu, FILE *out);
void amp_cpu_json_members(const struct amp_cpu *cpu, FILE *out);

#endif
