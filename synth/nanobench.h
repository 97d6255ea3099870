/* nanobench.h - the nano-benchmarks synth/nbgen generates at build time
 * from synth/nanobench.def (X-Ray sections 2.3-2.4): C timing functions
 * in the volatile-switch template, listed in one table. */
#ifndef AMP_NANOBENCH_H
#define AMP_NANOBENCH_H

#include <stdint.h>

/* What nbgen emits for every configuration line. */
#define NB_MAX_STREAMS 12 /* ops: 1..12 independent streams */
#define NB_STMTS_SHORT 12 /* ops: at least this many statements an iteration */
#define NB_MAX_VARS 40    /* regs: 2..40 live variables */
#define NB_REGS_STMTS 32  /* regs: at least this many statements an iteration */

/* ops: steps per stream per iteration of the short function; the long
 * one has twice as many, and the difference of their times cancels the
 * loop's overhead (BlackjackBench 3.3.1).  Few statements per function
 * keep compile time down: the compiler's time grows faster than the
 * number of case labels. */
static inline int nb_len_short(int streams, int nstmts)
{
	int per_step = streams * nstmts;

	return (NB_STMTS_SHORT + per_step - 1) / per_step;
}

enum amp_nb_kind { AMP_NB_OPS, AMP_NB_REGS };

struct amp_nb {
	enum amp_nb_kind kind;
	const char *name;   /* "add", "div", "fma", ..., or "int", "vector" */
	const char *type;   /* "int32", ..., or the regs line's C type */
	const char *aux;    /* ops: the line taken off the last statement, or NULL */
	const char *source; /* the configuration line's statements */
	int fma_target;     /* compiled with fused multiply-add allowed */
	int nstmts;         /* ops: statements per step */
	int streams;        /* ops: independent streams; regs: live variables */
	int length;         /* ops: steps per stream per iteration;
			       regs: statements per iteration */
	/* Runs `iters` loop iterations (iters >= 1); returns timer ticks. */
	uint64_t (*run)(uint64_t iters);
};

extern const struct amp_nb amp_nb_table[];
extern const int amp_nb_count;

/* The table entry for one function, or NULL. */
const struct amp_nb *amp_nb_find(enum amp_nb_kind kind, const char *name, const char *type,
				 int streams, int length);

#endif
