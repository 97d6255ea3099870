/* mod_isets.c - the L1i's ways, way size and line by timing, where the
 * cyclic code walks of mod_assoc.c read nothing.
 *
 * Why: a front end that runs its branch predictor ahead of fetch
 * prefetches the next lines of a predictable chain of jumps from L2, so
 * code lines of one set that miss the L1i cost no more than lines that
 * hit (on the Zen 3 guest, 128 lines 8 KiB apart ran as fast as 4).
 * Here each line is reached by an indirect jump through a table of
 * targets drawn at random (plan op AMP_OP_IJUMP): no predictor foresees
 * them, every fetch waits for its jump, and a miss costs its fetch in
 * full.
 *
 * What a walk reads: N lines visited in random draws, C of which fit
 * where they map, hit a share C/N of the time under any replacement
 * (the draws are independent and uniform), so the time per visit over
 * the same N lines in N different sets (stride 64 B, the control: same
 * mispredictions, no conflict) is zero up to N = C and grows from
 * C + 1 on (by P (N - C) / N, P a miss's cost).  C, the capacity at
 * a stride, is where that excess starts: the cut between the counts
 * below TAU x the control's time and those above it that the fewest
 * counts contradict (a lone slow or fast count does not move it).
 *
 * X-Ray's doubling of the stride, with these walks: below the way size W
 * lines s apart spread over W/s sets (C doubles as s halves), from W on
 * they share one set (C is the ways).  So W is the smallest stride whose
 * C its double repeats, the ways C there, and the size their product.
 * The line: 2 x ways lines W apart, half of them moved by b: while b is
 * inside the line they stay in the set and miss; from the line on they
 * fill a set of their own and fit (X-Ray's moved half set). */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "insn_timing.h"
#include "measure.h"
#include "plan.h"
#include "timing.h"
#include "trace.h"
#include "util.h"

#define TAU 0.02             /* an excess counts from this share of the control's time */
#define CONTROL_STRIDE 64    /* lines in different sets: the walk that fits */
#define PAST_CUT 4           /* counts in a row over TAU that end a scan */
#define MAX_LINES 80         /* longest walk of a scan */
#define LAYOUTS 3            /* each time the fastest of this many draws and mappings */
#define RUN_REPS 3
#define VISITS_REAL 16384    /* visits a walk on the real machine */
#define VISITS_SIM 2048      /* on the simulated machine (exact, and slower to run) */
#define WAY_LEAST 512        /* the smallest way size tried */
#define WAY_PAGES_MOST 64    /* the largest, in pages */
#define MOVE_LEAST 16        /* the smallest move of the half set (an indirect block is 9 B) */
#define MOVE_MOST 512

/* Controls of this vote by walk length (0: not yet timed). */
static double control_ticks[MAX_LINES + 1];
/* This vote's first line: another set each vote, never set 0, where
 * page-aligned code of anything else running (a neighbour on the core
 * shares the L1i) lands; a multiple of the largest move, so that moves
 * under the line stay in the first line's line (a simulated 128 B line
 * read 64 in 2 of 3 votes from 64 B past a line's start). */
static uint64_t vote_base;

static void vote_start(unsigned v)
{
	memset(control_ticks, 0, sizeof control_ticks);
	vote_base = MOVE_MOST * (1 + v % 7);
}

static int walk_time(struct amp_ctx *c, const uint64_t *off, size_t n, double *ticks, char *err, size_t len)
{
	uint64_t visits = c->host->sim ? VISITS_SIM : VISITS_REAL, region = 0;
	struct amp_plan p;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		region = off[i] + 64 > region ? off[i] + 64 : region;
	amp_plan_init(&p, "random jumps", region);
	if (amp_plan_add_seq(&p, off, n) < 0) {
		amp_plan_free(&p);
		snprintf(err, len, "random jumps: out of memory");
		return -1;
	}
	amp_plan_add_pass(&p, 0, AMP_OP_IJUMP, 1, 0);
	amp_plan_add_pass(&p, 0, AMP_OP_IJUMP, (unsigned)((visits + n - 1) / n), 1);
	/* Each layout: other draws, and (amp_run) a fresh mapping. */
	*ticks = INFINITY;
	for (unsigned k = 0; k < LAYOUTS && rc == 0; k++) {
		double t;

		p.visit_seed = amp_rng_next(&c->rng);
		rc = amp_timing_ticks_reps(c, &p, RUN_REPS, &t, err, len);
		if (rc == 0)
			*ticks = fmin(*ticks, t);
	}
	amp_plan_free(&p);
	return rc;
}

/* n lines `stride` apart, every `moved`-th of them (0: none) moved by
 * `shift` bytes: their time over the control's. */
static int excess(struct amp_ctx *c, struct amp_level *lv, uint64_t stride, size_t n, size_t moved,
		  uint64_t shift, double *e, double *control, char *err, size_t len)
{
	uint64_t off[MAX_LINES] = { 0 };
	double t;

	if (n < 1 || n > MAX_LINES) {
		snprintf(err, len, "%s: a walk of %zu lines is longer than %d", lv->name, n, MAX_LINES);
		return -1;
	}
	if (!(control_ticks[n] > 0)) {
		for (size_t i = 0; i < n; i++)
			off[i] = vote_base + i * CONTROL_STRIDE;
		if (walk_time(c, off, n, &control_ticks[n], err, len) < 0)
			return -1;
	}
	for (size_t i = 0; i < n; i++)
		off[i] = vote_base + i * stride + (moved && i % moved == moved - 1 ? shift : 0);
	if (walk_time(c, off, n, &t, err, len) < 0)
		return -1;
	*e = t - control_ticks[n];
	*control = control_ticks[n];
	return 0;
}

/* The cut: of the counts 2..last, those up to k read under the
 * threshold and those past it over; the k the fewest contradict (the
 * largest of those). */
static int capacity_cut(const int *over, int last)
{
	int best = 1, best_cost = last + 1;

	for (int k = 1; k < last; k++) {
		int cost = 0;

		for (int n = 2; n <= last; n++)
			cost += (n <= k) == over[n];
		if (cost <= best_cost) {
			best = k;
			best_cost = cost;
		}
	}
	return best;
}

/* C: how many lines `stride` apart fit the L1i (see the top). */
static int capacity(struct amp_ctx *c, struct amp_level *lv, uint64_t stride, int most, int again, int *cap,
		    char *err, size_t len)
{
	int over[MAX_LINES + 1] = { 0 }, run = 0, n;

	if (most > MAX_LINES)
		most = MAX_LINES;
	for (n = 2; n <= most && run < PAST_CUT; n++) {
		double e, control;

		if (excess(c, lv, stride, (size_t)n, 0, 0, &e, &control, err, len) < 0)
			return -1;
		over[n] = e >= TAU * control;
		run = over[n] ? run + 1 : 0;
		amp_trace_point(lv, "timing", "lines", "lines drawn at random", n, "excess_ticks",
				"ticks a visit over the same lines in different sets", e, 0);
	}
	if (run < PAST_CUT) {
		snprintf(err, len, "%s: up to %d lines %llu bytes apart, drawn at random, do not clearly slow", lv->name,
			 n - 1, (unsigned long long)stride);
		return -1;
	}
	*cap = capacity_cut(over, n - 1);
	/* `again`: the cut timed again, on fresh draws and mappings: a busy
	 * spell over a few counts in a row (which end the scan early, or
	 * move the cut) fails the vote rather than casting a wrong one.
	 * (The way search needs no more than a factor of two, and past 16
	 * lines one line over costs under TAU at times.) */
	for (int k = *cap > 1 ? *cap : 2; again && k <= *cap + 1; k++) {
		double e, control;

		if (excess(c, lv, stride, (size_t)k, 0, 0, &e, &control, err, len) < 0)
			return -1;
		if ((e >= TAU * control) != (k > *cap)) {
			snprintf(err, len, "%s: %d lines %llu bytes apart, drawn at random, fit; timed again, %d %s (%.2f ticks a visit over the control)",
				 lv->name, *cap, (unsigned long long)stride, k, k > *cap ? "fit" : "do not", e);
			return -1;
		}
	}
	return 0;
}

/* Whether the capacities at two strides, one twice the other, are the
 * same (one set at both), not one twice the other. */
static int repeats(int a, int b)
{
	return 2 * (a > b ? a : b) < 3 * (a < b ? a : b);
}

static int way_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value, char *err, size_t len)
{
	uint64_t s = c->page;
	int c1, c2;

	vote_start(v);
	if (capacity(c, lv, s, MAX_LINES, 0, &c1, err, len) < 0 || capacity(c, lv, 2 * s, 2 * c1 + 8, 0, &c2, err, len) < 0)
		return -1;
	if (repeats(c1, c2)) {
		/* At most a page: down until halving the stride doubles C. */
		for (;; s /= 2) {
			int half;

			if (s / 2 < WAY_LEAST) {
				snprintf(err, len, "%s: lines drawn at random fit alike at every stride down to %llu bytes",
					 lv->name, (unsigned long long)s);
				return -1;
			}
			if (capacity(c, lv, s / 2, 2 * c1 + 8, 0, &half, err, len) < 0)
				return -1;
			if (!repeats(c1, half))
				break;
			c1 = half;
		}
	} else {
		/* More than a page: up until doubling the stride repeats C. */
		for (s *= 2, c1 = c2;; s *= 2, c1 = c2) {
			if (2 * s > WAY_PAGES_MOST * c->page) {
				snprintf(err, len, "%s: lines drawn at random still fit more at every stride up to %llu bytes",
					 lv->name, (unsigned long long)s);
				return -1;
			}
			if (capacity(c, lv, 2 * s, 2 * c1 + 8, 0, &c2, err, len) < 0)
				return -1;
			if (repeats(c1, c2))
				break;
		}
	}
	*value = (int64_t)s;
	return 0;
}

static int ways_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value, char *err,
		     size_t len)
{
	int cap;

	vote_start(v);
	if (capacity(c, lv, (uint64_t)lv->way.value, MAX_LINES, 1, &cap, err, len) < 0)
		return -1;
	*value = cap;
	return 0;
}

static int line_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value, char *err,
		     size_t len)
{
	size_t n = 2 * (size_t)lv->assoc.value;
	double e0, e, control;

	vote_start(v);
	if (excess(c, lv, (uint64_t)lv->way.value, n, 0, 0, &e0, &control, err, len) < 0)
		return -1;
	if (e0 < 2 * TAU * control) {
		snprintf(err, len, "%s: %zu lines of one set, drawn at random, ran %.2f ticks a visit over the control: too little to move half of them",
			 lv->name, n, e0);
		return -1;
	}
	for (uint64_t b = MOVE_LEAST; b <= MOVE_MOST; b *= 2) {
		if (excess(c, lv, (uint64_t)lv->way.value, n, 2, b, &e, &control, err, len) < 0)
			return -1;
		amp_trace_point(lv, "timing", "offset_bytes", "offset of the moved half (bytes)", (double)b,
				"excess_ticks", "ticks a visit over the control", e, 0);
		if (e < e0 / 2) {
			*value = (int64_t)b;
			return 0;
		}
	}
	snprintf(err, len, "%s: half of %zu lines of one set moved by up to %d B still miss", lv->name, n, MOVE_MOST);
	return -1;
}

/* Where the cyclic walks left the ways unknown (or undecided). */
static int isets_applies(const struct amp_ctx *c, const struct amp_level *lv)
{
	return lv->side == AMP_SIDE_INSN && lv->level == 1 && lv->method == AMP_METHOD_TIMING &&
	       !amp_param_conclusive(&lv->assoc);
}

static int isets_supported(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len)
{
	return !amp_insn_blocks_refusal(c, lv, why, len);
}

/* lv's parameter p voted by fn; one left undecided keeps the reason it
 * had (the cyclic walks'), with this module's after it.  1: decided. */
static int vote_into(struct amp_ctx *c, struct amp_level *lv, amp_vote_fn fn, struct amp_param *p)
{
	char was[AMP_REASON_LEN], now[AMP_REASON_LEN];

	snprintf(was, sizeof was, "%s", p->reason);
	amp_vote(c, lv, fn, p);
	if (amp_param_conclusive(p))
		return 1;
	snprintf(now, sizeof now, "%s", p->reason);
	if (was[0])
		amp_param_unknown(p, "%s; by lines drawn at random: %s", was, now);
	return 0;
}

static int isets_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	if (!vote_into(c, lv, way_vote, &lv->way) || !vote_into(c, lv, ways_vote, &lv->assoc))
		return 0;
	lv->thrash_ways = (int)lv->assoc.value;
	lv->fully_associative = 0;
	amp_size_derived(lv, lv->assoc.value * lv->way.value, &lv->assoc, &lv->way);
	vote_into(c, lv, line_vote, &lv->line);
	return 0;
}

const struct amp_module amp_module_isets = {
	.name = "isets",
	.summary = "timing: L1i ways, way size and line by lines reached by indirect jumps drawn at random (no fetch runs ahead)",
	.kinds = 1u << AMP_KIND_CACHE,
	.fills = { AMP_FILLS(assoc), AMP_FILLS(way), AMP_FILLS(size), AMP_FILLS(line) },
	.applies = isets_applies,
	.supported = isets_supported,
	.run = isets_run,
};
