/* cpu_sys.h - the cores as a system: execution contexts and SMT pairs
 * (BlackjackBench 3.4, X-Ray 3.6), the OS scheduler's time slot
 * (BlackjackBench 3.6), memory asymmetries between cores as a locality
 * tree (BlackjackBench 3.1.4) and read/write/copy bandwidth per memory
 * level for one core and for all of them.  Everything is measured with
 * threads and the timer; the analyses are pure functions (tested on
 * synthetic data in tests/test_cpu_sys.c). */
#ifndef AMP_CPU_SYS_H
#define AMP_CPU_SYS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report.h"

#define AMP_CPUSYS_MAX_CPUS 64     /* CPUs measured (a node's set is a 64-bit mask) */
#define AMP_CPUSYS_MAX_THREADS 32  /* most threads an execution-context curve runs */
#define AMP_CPUSYS_MAX_BLOCKS 8    /* producer-consumer block sizes */
#define AMP_CPUSYS_MAX_NODES (2 * AMP_CPUSYS_MAX_CPUS)
#define AMP_CPUSYS_MAX_WS 12       /* bandwidth working sets */
#define AMP_CPUSYS_MAX_LEVELS 8

struct amp_cpusys_opts {
	int ncpus;                 /* 0: every CPU this process may run on */
	int cpus[AMP_CPUSYS_MAX_CPUS];
	double budget_s;           /* the whole part's time; 0: 15 s */
	/* Measured cache capacities (effective), smallest first: the
	 * bandwidth and producer-consumer sizes are chosen from them.
	 * None: a fixed set of sizes, 16 KiB to 256 MiB. */
	int nlevels;
	uint64_t level_bytes[AMP_CPUSYS_MAX_LEVELS];
	uint64_t seed;
	/* Called as each phase ends (for -v and the report's phases). */
	void (*phase_done)(void *arg, const char *name);
	void *phase_arg;
};

enum amp_work { AMP_WORK_INT, AMP_WORK_FLOAT, AMP_WORK_MEMORY, AMP_WORK_KINDS };
extern const char *const amp_work_names[AMP_WORK_KINDS]; /* "integer", "float", "memory" */

/* One execution-context curve: total time of M threads, each doing the
 * same fixed work, over the time of one (M = 1..n). */
struct amp_contexts {
	struct amp_num count;
	int n;
	double norm[AMP_CPUSYS_MAX_THREADS];
};

struct amp_smt_pair {
	int a, b;                  /* CPU numbers */
	double slowdown[2];        /* integer, float: pair time over alone */
	int shared;                /* slowed down: one physical core */
};

/* A clique of the locality tree: CPUs (bit i = cpu[i]) that exchange
 * data faster among themselves than with the rest of their parent. */
struct amp_locality_node {
	uint64_t cpus;
	int parent;                /* -1 for the root (every CPU) */
	int depth;
	uint64_t block;            /* the block size that told it apart; 0 root */
	double gbs;                /* median pair bandwidth inside it there; 0 if one CPU */
};

struct amp_bw_point {
	char level[16];            /* "L1".."Ln", "memory", or "" (fixed size) */
	uint64_t bytes;            /* working set (all threads together) */
	struct amp_num one[3], all[3]; /* read, write, copy GB/s */
};

struct amp_cpusys {
	int ncpus;
	int cpu[AMP_CPUSYS_MAX_CPUS];
	int pinned;                /* threads could be pinned to CPUs */
	char pin_reason[AMP_REASON_LEN];
	/* Execution contexts (BlackjackBench 3.4, first step 4.2.1). */
	struct amp_contexts ctx[AMP_WORK_KINDS];
	/* SMT pairs (X-Ray 3.6). */
	int smt_known;
	char smt_reason[AMP_REASON_LEN];
	int npairs_smt;
	struct amp_smt_pair smt[2 * AMP_CPUSYS_MAX_CPUS]; /* the pairs tested */
	int smt_total;             /* pairs there are */
	/* Scheduler time slot (BlackjackBench 3.6). */
	struct amp_num slot_ms;    /* mode of the gaps (BlackjackBench) */
	int slot_gaps;
	/* Mode of a thread's uninterrupted runs between gaps: the slot
	 * itself; the gaps are longer when other programs share the CPU. */
	struct amp_num slot_run_ms;
	int slot_runs;
	int slot_cpu;              /* -1: unpinned threads */
	/* Producer-consumer pair bandwidth and the locality tree. */
	int loc_known;
	char loc_reason[AMP_REASON_LEN];
	int nblocks;
	uint64_t block[AMP_CPUSYS_MAX_BLOCKS];      /* increasing */
	double pair_gbs[AMP_CPUSYS_MAX_BLOCKS][AMP_CPUSYS_MAX_CPUS][AMP_CPUSYS_MAX_CPUS];
	int nnodes;
	struct amp_locality_node node[AMP_CPUSYS_MAX_NODES];
	/* Bandwidth per working set. */
	int nbw;
	struct amp_bw_point bw[AMP_CPUSYS_MAX_WS];
	char bw_reason[AMP_REASON_LEN]; /* when nbw is 0 */
	/* Wall time per benchmark. */
	int nphases;
	struct { const char *name; double seconds; } phase[8];
};

/* Runs every benchmark (within o->budget_s); 0, or -1 with err when
 * nothing could be measured (no threads).  A benchmark that fails
 * leaves its values unknown with the reason. */
int amp_cpusys_measure(struct amp_cpusys *s, const struct amp_cpusys_opts *o, char *err, size_t len);
/* Every value unknown with why (a simulated machine, no --cpu). */
void amp_cpusys_unknown(struct amp_cpusys *s, const char *why);

/* The "CPU" section of the text report. */
void amp_cpusys_emit_text(const struct amp_cpusys *s, FILE *out);
/* JSON members, each preceded by ",\n": execution_contexts,
 * smt_pairs, scheduler_slot_ms, locality, bandwidth (and the CPUs). */
void amp_cpusys_json_members(const struct amp_cpusys *s, FILE *out);

/* ---- the analyses (pure) ---- */

/* Execution contexts without the other programs' load: M threads do
 * their work in nchunks chunks each, chunk k of thread t from start[t *
 * nchunks + k] to end[...] (ns, in time order per thread).  At every
 * instant some chunk starts, the chunk of each thread that covers it, if
 * every thread has one: the longest of those M chunks over solo (one
 * uninterrupted chunk of a thread alone).  Returns the least of these
 * over the instants: about 1 when M threads ran at once at full speed
 * at some moment (M contexts), about 2 when they shared hardware while
 * running, and far more (a time slot over a chunk) when only preempted
 * chunks ever overlapped; M when no instant had all M running. */
double amp_ctx_together(const uint64_t *start, const uint64_t *end, int nth, int nchunks, double solo);

/* Execution contexts from the curve of amp_ctx_together for M = 1..n
 * (y[M-1]): the number of leading points at or below limit (M threads
 * ran together at full speed).  Not a relative step: every step past
 * the count is large, so the mean of the steps (4.2.1) falls between
 * two real ones.  0 when the first point is above limit, n when none. */
int amp_ctx_count(const double *y, int n, double limit);

/* The mode of the gaps not below floor: the value around which they are
 * densest, the median of the largest set of them within a factor
 * (1 + rel_width) of each other.  Sorts gaps in place; 0 when none is
 * at least floor. */
double amp_gap_mode(double *gaps, int n, double rel_width, double floor);

/* The locality tree (BlackjackBench 3.1.4) from producer-consumer
 * bandwidth between n CPUs: bw[b * n * n + i * n + j] for block size
 * block[b], blocks increasing.  Starting from one clique of every CPU
 * and going from the largest block to the smallest, a clique's pair
 * values are split by QT clustering; pairs faster than its slowest
 * cluster link CPUs, and the linked groups become sub-cliques (which are
 * split further at the same block and below).  Fills node[0..] (root
 * first, parents before children); returns the node count. */
int amp_clique_tree(int n, int nblocks, const uint64_t *block, const double *bw,
		    struct amp_locality_node *node, int max);

/* ---- the benchmarks of cpu_bw.c ---- */

/* Producer-consumer bandwidth between every pair of s->cpu over
 * s->block[], into s->pair_gbs; stops at deadline_ns (pairs not reached
 * stay 0).  Returns the number of pairs measured, -1 with err. */
int amp_cpusys_pairs(struct amp_cpusys *s, uint64_t deadline_ns, char *err, size_t len);
/* Read, write and copy bandwidth for working set p->bytes, one thread on
 * s->cpu[0] (one) and one per CPU (all); unknown with the reason on
 * failure. */
void amp_cpusys_bandwidth(const struct amp_cpusys *s, struct amp_bw_point *p);

/* Threads shared by cpu_sys.c and cpu_bw.c: fn runs in n threads after
 * a common start, thread i pinned to cpu[i] (cpu[i] < 0: not pinned).
 * Returns the wall ns from the first start to the last end, 0 when the
 * threads could not be started (err says why). */
struct amp_team_member {
	int index, cpu;
	int pin_errno;             /* pinning refused: why */
	void *arg;
	uint64_t start_ns, end_ns;
	double result;
	void *team;
};
/* Waits until every member of m's team is here. */
void amp_team_sync(struct amp_team_member *m);
uint64_t amp_team_run(int n, const int *cpu, void (*fn)(struct amp_team_member *), void *arg,
		      struct amp_team_member *m, char *err, size_t len);

#endif
