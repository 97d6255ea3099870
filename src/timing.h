/* timing.h - the timing path (X-Ray, BlackjackBench): where no miss
 * counter is usable, time per access stands in for misses.  A walk's
 * time is compared with the time of the same pages walked so that every
 * line stays in L1 (so TLB costs cancel), and the difference, scaled by
 * the latency gap between a level and the one below it, is the share of
 * accesses that missed that level.  The levels and their latencies come
 * from a size/latency sweep clustered by quality threshold. */
#ifndef AMP_TIMING_H
#define AMP_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include "measure.h"
#include "plan.h"

#define AMP_SWEEP_MAX_POINTS 96
#define AMP_SWEEP_MAX_CLUSTERS 8

/* The size/latency sweep (BlackjackBench 3.1.2, 4.2.3). */
struct amp_sweep {
	char method[200];
	int n;
	uint64_t size[AMP_SWEEP_MAX_POINTS];  /* working set, bytes */
	double raw[AMP_SWEEP_MAX_POINTS];     /* ticks per load as measured */
	double ticks[AMP_SWEEP_MAX_POINTS];   /* monotone (data: the fastest at this size or beyond;
						 code: see amp_insn_sweep_analyse) */
	/* Clusters of points at one latency, fastest first; the last is
	 * main memory when the sweep reached it. */
	int nclusters;
	struct {
		int first, last;   /* point indices */
		double ticks;      /* its latency: the cluster's median time */
		int fits;          /* last point within QT_DIAMETER of it: the
				      level's effective size */
	} cl[AMP_SWEEP_MAX_CLUSTERS];
	int reached_memory; /* the last cluster is a plateau far above L1 */
	int busy;           /* points timed busy past the quiet gate's wait (data sweep) */
};

/* Runs the sweep from 4 KiB up to max_size (stopping early once main
 * memory's plateau is clear); 0, or -1 with err. */
int amp_sweep_run(struct amp_ctx *c, uint64_t max_size, struct amp_sweep *sw, char *err, size_t len);
/* Monotonicity and clustering of sw's points (exposed for the tests). */
void amp_sweep_analyse(struct amp_sweep *sw);

/* Quality threshold clustering (BlackjackBench 4.2.3) of the
 * non-decreasing y[0..n-1] into runs of neighbours whose spread stays
 * within a quarter of their mean: run i is y[first[i]..last[i]], in
 * order; returns how many (at most max). */
int amp_qt_runs(const double *y, int n, int *first, int *last, int max);

/* Ticks per measured access of plan p: the measured passes' walks are
 * doubled until a run lasts c->t_min_ticks (X-Ray section 2), then the
 * minimum over c->reps runs is kept, timer overhead removed.  The plan's
 * pass counts may be changed.  0, or -1 with err. */
int amp_timing_ticks(struct amp_ctx *c, struct amp_plan *p, double *ticks, char *err, size_t len);

/* The same over at most `reps` runs (fewer than c->reps where each run
 * is long enough to average its interrupts away). */
int amp_timing_ticks_reps(struct amp_ctx *c, struct amp_plan *p, unsigned reps, double *ticks, char *err,
			  size_t len);

/* The same with each run as given (no doubling: the passes before the
 * measured ones set up a state that one walk uses up). */
int amp_timing_ticks_once(struct amp_ctx *c, struct amp_plan *p, double *ticks, char *err, size_t len);

/* Misses of lv over plan p's measured passes, from time: each run as
 * given (no doubling: the passes before the measured ones set up a state
 * that one walk uses up), the minimum over c->reps runs; every measured
 * access costs lv's hit latency, and each miss the gap to the level
 * below.  For plans whose measured passes are loads (a pointer chain).
 * 0, or -1 with err. */
int amp_timing_misses(struct amp_ctx *c, const struct amp_level *lv, struct amp_plan *p,
		      double *misses, char *err, size_t len);

/* Share of the accesses to lv that miss it, from time, for a cyclic
 * walk over off[0..n-1] (in a region of `region` bytes).  Ideally 0
 * (every access served by lv or above) or 1 (every one by the level
 * below).  0, or -1 with err. */
int amp_timing_rate(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off, uint64_t n,
		    uint64_t region, double *rate, char *err, size_t len);

/* Quiet gates (real machine): something on this project's guests' hosts
 * (a busy hyperthread beside ours, most likely) slows code, and to a
 * lesser degree loads, by half or more for seconds at a time.  A timing
 * counts when a reference timed just before it runs within AMP_QUIET of
 * the fastest reference so far; while the gate's waiting budget lasts amp
 * naps and looks again, then takes times as they come.  A budget, not a
 * deadline: busy spells there last up to half a second and come back all
 * through a run, and a deadline counted from the start would be spent on
 * measuring before the later spells came.  The code walks here,
 * mod_icache.c's searches and tlb_timing.c's sweeps each time their own
 * kind of reference. */
#define AMP_QUIET 0.1
enum amp_quiet_state { AMP_QUIET_WAIT, AMP_QUIET_YES, AMP_QUIET_BUSY };
/* Takes reference time r: YES when within AMP_QUIET of the fastest, BUSY
 * when not and the budget is spent, else WAIT after a 2 ms nap (time the
 * reference again).  The time from a nap to the next look is charged to
 * q->wait_left. */
enum amp_quiet_state amp_quiet_look(struct amp_quiet *q, double r);

/* Code walks (instruction side by timing): the share of a miss by which
 * a cyclic walk over off[0..n-1] is slower than *fastest, the fastest
 * base walk of the caller's search so far (0 at its start: rate 0; with
 * `update`, this walk is a base walk and may lower it).  A rate of
 * THRASH_RATE_TIMING is a walk a quarter slower.  0, or -1 with err. */
int amp_timing_code_rate(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off,
			 uint64_t n, uint64_t region, double *fastest, int update, double *rate,
			 char *err, size_t len);
/* Whether a code walk of n lines `stride` apart may be a base walk: one
 * that no op cache in front of the L1i can serve (any, with one jump a
 * line: the simulated machine). */
int amp_code_base_walk(const struct amp_ctx *c, uint64_t n, uint64_t stride);

/* The walk's ticks per access minus those of its reference (the same
 * pages, every line an L1 hit): what the caches below L1 cost it. */
int amp_timing_excess(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off, uint64_t n,
		      uint64_t region, double *excess, char *err, size_t len);

/* Walks of a candidate set before the reload: a line just reloaded
 * outlives one or two walks of ways lines of its set under the policies
 * of recent cores (seen on this project's Zen 5 guest); and the runs an
 * eviction test takes the mean of the middle half of. */
#define AMP_RELOAD_PASSES 4
#define AMP_RELOAD_REPS 15
/* The eviction test (target reload): ticks of one load of `target` after
 * it was loaded, the walk off[0..n-1] (in this order) ran `passes` times
 * and a line of the target's page at `warm` was loaded (so its
 * translation is cached and the load times the caches only).  The mean
 * of the middle half of `reps` runs: single loads are near a coarse
 * timer's resolution, and the minimum of a jittery count reads below
 * the truth.  On arena `a` (real machine): the same frames from test to
 * test.  0, or -1 with err. */
int amp_timing_reload(struct amp_ctx *c, const struct amp_arena *a, uint64_t region, uint64_t target,
		      uint64_t warm, const uint64_t *off, uint64_t n, unsigned passes, unsigned reps,
		      double *ticks, char *err, size_t len);

/* Whether the walk off[0..n-1] evicts the target: the same test after
 * walks of base[0..nbase-1] (which leave the target in place) and after
 * walks of off[0..n-1], run by turns in one loop (amp_run_pair_each), so
 * what shifts whole runs shifts both.  *ticks: what the walk costs the
 * reload, the difference of the means of each side's fastest three
 * quarters of runs; it evicts where that passes half of `gap` (a hit's
 * cost to a miss).  A difference near the middle runs reps more, up to
 * AMP_EVICT_ROUNDS times.  Each run flushes the target before it loads
 * it (a FIFO level would keep an old copy's place).  0, or -1 with err. */
#define AMP_EVICT_ROUNDS 4
int amp_timing_evicted(struct amp_ctx *c, const struct amp_arena *a, uint64_t region, uint64_t target,
		       uint64_t warm, const uint64_t *base, uint64_t nbase, const uint64_t *off, uint64_t n,
		       unsigned passes, unsigned reps, double gap, double *ticks, int *yes, char *err,
		       size_t len);

/* Core cycles per timer tick from a chain of dependent integer adds
 * (one cycle each: X-Ray 3.1); 0 when it cannot be measured. */
double amp_core_cycles_per_tick(void);

#endif
