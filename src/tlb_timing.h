/* tlb_timing.h - the data-TLB hierarchy from timing alone (no miss
 * counters): the page size the TLB translates, and per TLB level its
 * entries, the time of an access it translates and the penalty of
 * missing it (BlackjackBench 3.2, with X-Ray 4.6's care about caches). */
#ifndef AMP_TLB_TIMING_H
#define AMP_TLB_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include "counters.h"
#include "plan.h"

#define AMP_TLB_MAX_LEVELS 4
#define AMP_TLB_MAX_POINTS 64
#define AMP_TLB_MAX_STRIDES 16

struct amp_tlb_timing {
	uint64_t page;                 /* measured page size in bytes; 0 = unknown */
	char page_reason[256];         /* why unknown, or how decided */
	char page_doubt[200];          /* why a measured page size is inconclusive */
	int nlevels;                   /* TLB levels found (data side) */
	struct {
		uint64_t entries;
		double hit_ticks;          /* time per access this level translates */
		double miss_penalty_ticks; /* what missing it adds */
		uint64_t assoc;            /* ways (entries: fully associative); 0 = unknown */
		char assoc_reason[200];    /* why unknown */
		char step_reason[200];     /* why the entries are inconclusive (amp_tlb_step_clear) */
		double step_clarity;       /* amp_tlb_step_clear's answer */
	} lv[AMP_TLB_MAX_LEVELS];
	/* The first level's ways (data side): pages at each stride, the
	 * fewest that miss it (0: not reached). */
	int nassoc;
	uint64_t assoc_strides[AMP_TLB_MAX_STRIDES];
	uint64_t assoc_fewest[AMP_TLB_MAX_STRIDES];
	char reason[256];              /* when nlevels == 0: why */
	int npoints;                   /* the entries sweep, for reports/curves */
	uint64_t pages[AMP_TLB_MAX_POINTS];
	double ticks[AMP_TLB_MAX_POINTS]; /* time per access */
	/* The control: as many lines packed into few pages, the caches'
	 * part of ticks[], which the analysis takes out. */
	double ctl_ticks[AMP_TLB_MAX_POINTS];
	/* The page-size sweep: time per access against stride. */
	int nstrides;
	uint64_t strides[AMP_TLB_MAX_STRIDES];
	double stride_ticks[AMP_TLB_MAX_STRIDES];
	/* Real machine: timings taken while still busy after waiting the
	 * most for quiet (tlb_timing.c's gate), of all timings; and the
	 * entries sweep's points and bisection steps none of whose timings
	 * was quiet, of all of them (the confidence is the share of the
	 * others): over a tenth, the results are marked inconclusive. */
	int busy, timings;
	int busy_points, points;
	/* The levels past the first, by random draws (amp_tlb_draws_reach):
	 * pages, time per draw (a jump, or a load) and the control's;
	 * ref_excess, the draws' excess over the control with every page
	 * held (the median at 3/7, 4/7 and 5/7 of the first level's
	 * entries); l1_penalty, what a first-level miss the second level
	 * holds adds; draws_reason, why no second level was found (empty
	 * when one was, or no sweep ran).  The data side: draws_entries,
	 * the draws' second level (0: none found), draws_walk what a walk
	 * past it costs by the draws (0: none found); draws_replaced, the
	 * cyclic sweep's second-level entries it replaced (0: none, or the
	 * sweep found no second level). */
	int ndraws;
	uint64_t draw_pages[AMP_TLB_MAX_POINTS];
	double draw_ticks[AMP_TLB_MAX_POINTS];
	double draw_ctl_ticks[AMP_TLB_MAX_POINTS];
	double ref_excess, l1_penalty;
	char draws_reason[256];
	uint64_t draws_entries, draws_replaced;
	double draws_walk;
	/* The draws' first look (each point timed once more later, the
	 * faster kept): its second level (0: none) and what it found (1 a
	 * second level, 0 none, -1 a first level its points refused). */
	uint64_t draws_first;
	int draws_first_found;
	/* The first level's entries by the sweep where the draws' replaced
	 * them (amp_tlb_draws_anchor; 0: the sweep's stand). */
	uint64_t first_replaced;
	/* Real machine: whether the draws' pages aliased one shared page
	 * (amp_jumpchain_build_aliased, or the runner's for loads); if not,
	 * why. */
	int draws_aliased;
	char alias_reason[200];
};

/* What the second look changed (buf "" where the looks agree within a
 * tenth): " (the first look read N)" or " (the first look found none)". */
void amp_tlb_draws_looks(const struct amp_tlb_timing *o, uint64_t entries, char *buf, size_t len);

/* X-Ray's rule on the first level's ways, after the fewest pages that
 * miss it at strides[0..n-1] (2, 3, 4, 6, 8, ... pages): settled when the
 * count at the last stride agrees with the one at half of it (within a
 * sixteenth) and with the least so far, leaving out any count the
 * double stride contradicts.  1 with *ways (entries where it agrees with
 * them: fully associative; 0 with why when the ways do not divide
 * them), or 0: not settled yet. */
int amp_tlb_ways_settled(const uint64_t *strides, const uint64_t *fewest, int n, uint64_t entries,
			 uint64_t *ways, char *why, size_t len);

/* The biggest rise of the page-size sweep's monotone time per access
 * m[0..n-1] between neighbours (the last stride left out: it has no
 * successor to show a knee). */
double amp_tlb_biggest_rise(const double *m, int n);
/* The page-size sweep's knee (the rule in page_size): the first j at
 * `from` or past it where m rises by at least 0.4 of `biggest` at a
 * stride (strides[0..n-1]) of 1 KiB or more, and the next stride adds
 * at most half as much; -1 where none. */
int amp_tlb_next_knee(const double *m, const uint64_t *strides, int n, int from, double biggest);

/* Whether a TLB level's step is clear: the level rests on at least 3
 * points of the entries sweep (lv[0..n-1], the TLBs' part of the time
 * per access, `from` to `to` pages) and its step, the time from its end
 * to the next level's, is at least 3 times the spread (scaled MAD) of
 * those points and of the next level's head (next[0..nnext-1]; none past
 * the last level, where the curve climbs).  On an AMD Zen 3 guest, whose
 * ITLB misses cost about a tick and whose jump chains ran at one or two
 * ticks a jump by turns, first levels of 5 to 10 entries rested on one
 * or two points or had a step of 0.39 ticks among points spread by 0.37;
 * those of 62 to 78 entries had steps of 0.5 to 0.9 ticks at 3 to 10
 * times their spread.  1, or with why its clarity: the step over 3
 * times the spread (0 for too few points), below 1. */
double amp_tlb_step_clear(const double *lv, int n, const double *next, int nnext, double step, uint64_t from,
			  uint64_t to, char *why, size_t len);

/* The data side's second-level entries: the cyclic sweep's (exact by
 * bisection where the level holds every page it has room for), unless
 * the random draws' (whatever its replacement) differ from them by over
 * a tenth, or the sweep found none; 0 when neither found one. */
uint64_t amp_tlb_second_entries(uint64_t sweep, uint64_t drawn);

/* The level below a first level of c1 entries, from jumps to n[j]
 * pages (ascending, each over c1) drawn uniformly at random: whatever
 * the replacement, a draw finds its page in a full level of C entries
 * with odds C/N, so the excess per jump e[j] (over the same jumps with
 * every page held) times N is p1 (N - c1) + p2 (N - c2) past c2, with
 * p1 what a first-level miss costs where the second level holds it and
 * p2 what a walk adds.  p1 is the median of e N / (N - c1) at the
 * third to fifth points (the first two, near c1, magnify the noise).
 * The control packs per_page lines a page: past c1 of its pages, its
 * own first-level misses, p1 (1 - c1 / pages), are added back.  The
 * second level ends where N e departs from p1 (N - c1) by over half of
 * it and over tau per jump (the noise), confirmed by the next two
 * points departing further: c2 is where the line through the first
 * two departures meets zero, kept between the last point within tau of
 * p1's line and the first departing one.  1 with *c2 and *p2 (the
 * median walk cost over points from 2 c2 on), 0 with why (no
 * departure, or too few points), -1 with why where the first level's
 * end is not c1; *p1 always; *end, the first level's end by the draws:
 * where the line of the points on p1's meets zero, of the two lines
 * judged (points 2 to 4, and to DRAW_FIT_LAST) the one nearer c1 (0
 * where no first level ended), and *end_se its standard error. */
int amp_tlb_draws_reach(uint64_t c1, uint64_t per_page, const uint64_t *n, const double *e, int m, double tau,
			double *p1, uint64_t *c2, double *p2, double *end, double *end_se, char *why, size_t len);

/* Where the draws run from next, after a run from a first level of c1
 * entries that found `found` (amp_tlb_draws_reach), its points' line
 * ending at `end` (0: none) with standard error `se`, its last point
 * at `last` pages: 0 where the run stands (the end within a twentieth
 * of c1, +1, and 3 se; or up to 4 entries, or 15% of c1, more under
 * it: the draws' own accesses take some), the end
 * where it lies elsewhere, the last point where no first level ended
 * among them (found -1 with no end: every point cost as little as those
 * under c1). */
uint64_t amp_tlb_draws_anchor(uint64_t c1, int found, double end, double se, uint64_t last);
/* The line of its slot (`lines` long) the draws' j-th page takes: the
 * sum of j's digits in base lines, modulo lines (0 for fewer than 2
 * lines), so the slots of any stride spread evenly over every cache
 * level's sets. */
uint64_t amp_tlb_draw_line(uint64_t j, uint64_t lines);
/* After run k (from 0) of the draws from c1 entries, the sweep's count
 * being `sweep`: where the next run starts (amp_tlb_draws_anchor, or
 * the sweep's count where the end agrees with it; 0: no more runs, at
 * most four) and *settled, whether this run's end agreed with c1 (a
 * count of the draws stands only then; from a count of theirs, their
 * end must lie within a twentieth of it, +1, with no allowance). */
uint64_t amp_tlb_draws_next(uint64_t sweep, uint64_t c1, int found, double end, double se, uint64_t last, int k,
			    int *settled);

/* Measures the data TLBs of host (real when host->sim is NULL) with the
 * minimum of reps runs per point (one on an exact simulated machine) and
 * access orders from seed.  Results that cannot be decided are reported
 * in *out with their reasons (page 0, nlevels 0) and still return 0.
 * 0, or -1 with err (only for hard failures like out of memory). */
int amp_tlb_timing_measure(const struct amp_host *host, unsigned reps, uint64_t seed,
			   struct amp_tlb_timing *out, char *err, size_t len);

/* The same with instruction fetches (op AMP_OP_IFETCH: a jump per
 * page, each on another line) for the ITLB, or loads. */
int amp_tlb_timing_measure_op(const struct amp_host *host, enum amp_op op, unsigned reps,
			      uint64_t seed, struct amp_tlb_timing *out, char *err, size_t len);

struct amp_ctx;
/* Fills the timing path's DTLB and STLB (levels 1 and 2 of the data
 * side) from t: page size, entries, hit time and miss penalty; a level
 * t did not find is left out (reason given). */
void amp_tlb_timing_fill(struct amp_ctx *c, const struct amp_tlb_timing *t);
/* The same for one side's TLBs (AMP_SIDE_DATA or AMP_SIDE_INSN: the
 * ITLB, from a sweep of jumps). */
enum amp_level_side;
void amp_tlb_timing_fill_side(struct amp_ctx *c, const struct amp_tlb_timing *t, enum amp_level_side side);

#endif
