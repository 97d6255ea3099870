/* plan.h - an experiment is data: sequences of offsets into a region and
 * passes over them (load, store, instruction fetch, flush), some of them
 * measured.  A runner executes a plan on the real machine (pointer chains,
 * jump chains, counters or timer) or on the simulated machine, so the
 * measurement modules never care which. */
#ifndef AMP_PLAN_H
#define AMP_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include "counters.h"

/* TOUCH: loads in sequence order that do not wait for each other (no
 * chain is written), for passes that only set up the caches' state (an
 * eviction test's walks: chained, and with its chain stored into the
 * lines before each test, group testing on this project's Zen 5 guest
 * ended with 16 to 35 lines where 16 do). */
/* IJUMP: instruction fetches of the sequence's offsets drawn at random
 * (each visit one of the n, uniformly, from visit_seed; `times` walks
 * are times x n visits), each reached by an indirect jump through a
 * table of targets: no predictor foresees them, so no fetch runs ahead
 * of the jump (mod_isets.c).  The simulated machine fetches the same
 * draws. */
/* DRAW: loads of the sequence's offsets drawn at random likewise, from
 * a table of addresses, each load's address waiting on the value the
 * one before it read (masked to nothing: any data will do, chains
 * included).  The simulated machine loads the same draws. */
enum amp_op { AMP_OP_LOAD, AMP_OP_STORE, AMP_OP_IFETCH, AMP_OP_FLUSH, AMP_OP_TOUCH, AMP_OP_IJUMP, AMP_OP_DRAW };

#define AMP_PLAN_MAX_SEQ 16
#define AMP_PLAN_MAX_PASS 32
#define AMP_PLAN_WHOLE_REGION (-1)

/* Distinct offsets, visited in this order; a load pass follows them as a
 * cyclic pointer chain, an ifetch pass as a chain of jumps. */
struct amp_seq {
	uint64_t *off;
	size_t n;
};

struct amp_pass {
	int seq;          /* index into seq[], or AMP_PLAN_WHOLE_REGION (flush) */
	enum amp_op op;
	unsigned times;   /* walks over the sequence */
	int measured;     /* inside the counter/timer bracket */
};

/* A region kept mapped across runs (real machine): physically indexed
 * caches see a page's frame, so experiments that learn which lines share
 * a set (eviction sets) must run every plan on the same frames. */
struct amp_arena {
	uint8_t *base;
	size_t size;
	uint64_t reserved;  /* bytes held under the memory bound */
};

struct amp_plan {
	char name[64];
	uint64_t region;  /* bytes; offsets are below this */
	/* Real machine: run on this arena (at least region bytes) instead
	 * of a fresh mapping; NULL: a fresh one per run. */
	const struct amp_arena *arena;
	int huge;         /* back the data region with huge pages if possible */
	/* Real machine: the measured passes' walks are doubled until one
	 * run lasts this many ticks (X-Ray's t_min), on the region prepared
	 * once; 0: as given.  The simulated machine needs none. */
	double min_ticks;
	/* Real machine: jumps per fetched offset, packed (1 when 0).
	 * Each taken jump ends an op-cache entry, so k of them make a line
	 * take k entries of an op cache but one line of the L1i: an op cache
	 * in front of the L1i then covers k times less code than it, and
	 * the L1i's edge shows (insn_timing.c).  The simulated machine has
	 * no op cache: one fetch per offset there. */
	unsigned fetch_jumps;
	/* Fetch passes run code written at the region's own offsets (on
	 * the arena's frames), not in a mapping of their own: a line is then
	 * fetched and loaded as one physical line (a test that keeps a line
	 * in the L1i while loads walk its set below; mod_evset.c).  Stores
	 * and chained loads must stay off the pages that hold code. */
	int code_in_region;
	/* IJUMP and DRAW passes: the seed of their draws (each pass draws
	 * the same visits every repetition). */
	uint64_t visit_seed;
	/* Real machine, IJUMP and DRAW sequences: every `alias` bytes of
	 * the region map a shared page (synth/alias.h; for IJUMP of code,
	 * amp_jumpchain_build_aliased; for DRAW of data, read-only, apart
	 * from the region), so the caches see one page however many pages
	 * the TLBs see; 0: pages of their own.  The simulated machine keeps
	 * pages of their own (its costs add up, so a control takes the
	 * caches out). */
	uint64_t alias;
	int nseq, npass;
	struct amp_seq seq[AMP_PLAN_MAX_SEQ];
	struct amp_pass pass[AMP_PLAN_MAX_PASS];
};

void amp_plan_init(struct amp_plan *p, const char *name, uint64_t region);
/* Adds a sequence of n offsets (copied); returns its index or -1. */
int amp_plan_add_seq(struct amp_plan *p, const uint64_t *off, size_t n);
/* Sequence of n offsets start, start+stride, ...; returns index or -1. */
int amp_plan_add_strided(struct amp_plan *p, uint64_t start, uint64_t stride, size_t n);
/* Sequence over n slots of `stride` bytes visited in a random cyclic
 * order from a seeded generator (defeats stride prefetchers). */
int amp_plan_add_random_cycle(struct amp_plan *p, uint64_t stride, size_t n, uint64_t seed);
/* The same n slots visited block by block: blocks of `block` slots in
 * a random order, the slots of each in a random order (no stride for a
 * prefetcher, yet each page is done with before the next: few TLB
 * misses, and locality for the simulator). */
int amp_plan_add_block_cycle(struct amp_plan *p, uint64_t stride, size_t n, size_t block,
			     uint64_t seed);
int amp_plan_add_pass(struct amp_plan *p, int seq, enum amp_op op, unsigned times, int measured);
/* Checks the plan is runnable; 0, or -1 with the reason. */
int amp_plan_check(const struct amp_plan *p, char *err, size_t len);
/* Accesses one repetition performs (flushes not counted). */
uint64_t amp_plan_accesses(const struct amp_plan *p, int measured_only);
void amp_plan_free(struct amp_plan *p);

/* What a run of a plan yields: per event of the counter set the minimum
 * and maximum over repetitions (AMP: the minimum is the truest count, no
 * interference lowers it), and the timer's ticks likewise (simulated
 * cycles on the simulated machine). */
struct amp_run_result {
	unsigned reps;
	uint64_t min[AMP_MAX_SET], max[AMP_MAX_SET];
	uint64_t ticks_min, ticks_max;
	/* The mean of the middle half of the first AMP_RUN_MIDMEAN_REPS
	 * repetitions' ticks. */
	double ticks_midmean;
	uint64_t accesses;   /* measured accesses per repetition */
	unsigned scale;      /* the measured passes ran this many times their walks */
};

#define AMP_RUN_MIDMEAN_REPS 64

/* Maps an arena of `region` bytes (huge pages where `huge` asks and the
 * system grants them), its pages touched as plans use them; 0, or -1
 * with err (the memory bound, or mmap). */
int amp_arena_open(struct amp_arena *a, uint64_t region, int huge, char *err, size_t len);
/* The same for a sparse region of which at most `touched` bytes are
 * ever used: only those are held under the memory bound. */
int amp_arena_open_sparse(struct amp_arena *a, uint64_t region, uint64_t touched, char *err, size_t len);
void amp_arena_close(struct amp_arena *a);
/* Whether this system lets one shared page (a memfd) be mapped at many
 * addresses, as plans with `alias` need; 0, or -1 with the reason. */
int amp_alias_check(char *why, size_t len);

/* Runs plan reps times on host (real when host->sim is NULL), reading
 * the counters of set around the measured passes (set may be NULL: time
 * only).  0, or -1 with the reason. */
int amp_run(const struct amp_plan *plan, const struct amp_host *host, struct amp_cset *set,
	    unsigned reps, struct amp_run_result *res, char *err, size_t len);

/* Runs plans a and b alternately, reps times each (at most
 * AMP_RUN_MIDMEAN_REPS), on one host, without counters: the mean of the
 * middle half of each plan's ticks.  What slows a whole run (a busy
 * neighbour, the timer's phase) slows both alike, so their difference
 * holds where either alone wanders.  Both plans must agree on any line
 * they chase.  0, or -1 with err. */
int amp_run_pair(const struct amp_plan *a, const struct amp_plan *b, const struct amp_host *host,
		 unsigned reps, double *ticks_a, double *ticks_b, char *err, size_t len);
/* The same, each run's ticks in each_a[0..reps-1] and each_b[0..reps-1]
 * (any number of reps). */
int amp_run_pair_each(const struct amp_plan *a, const struct amp_plan *b, const struct amp_host *host,
		      unsigned reps, double *each_a, double *each_b, char *err, size_t len);

/* Whether plans may flush lines on host (the simulated machine, or a
 * cache-flush instruction here). */
int amp_run_can_flush(const struct amp_host *host);

/* Counter-API overhead: counts and ticks of an empty measured bracket,
 * minimum over reps; subtract it from small measurements (AMP 2.2). */
int amp_run_overhead(const struct amp_host *host, struct amp_cset *set, unsigned reps,
		     struct amp_run_result *res, char *err, size_t len);
/* The same for one event of a backend (opens and closes its set). */
int amp_event_overhead(const struct amp_backend_ops *b, const struct amp_host *host, enum amp_event ev,
		       unsigned reps, struct amp_run_result *res, char *err, size_t len);

#endif
