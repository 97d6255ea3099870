/* mod_unified.c - split or unified caches (AMP 3.6).
 *
 * Load a region of data that fits the level, run synthesized code (a
 * chain of jumps) twice the level's size, then load the data again.  The
 * code is contiguous and twice the level, so it brings every set twice
 * its ways of code lines whatever its alignment: in a unified level it
 * pushes the data out and the second load misses about once per line
 * (a quarter of a miss per line or more counts: random replacement keeps
 * some data, an adjacent-line prefetcher hides up to half the misses);
 * in a level that serves data alone the data stays.  Data and code are
 * visited page by page in random orders (no stride for a prefetcher).
 *
 * Level 1: the L1d level runs this test through its counter, which says
 * whether L1 is one cache for both sides; the L1i level runs the mirror
 * test (data pushing out code, counted by L1i misses), an independent
 * check (by timing it takes the L1d's answer: see derived_from()).  Below level 1 the second load must reach the level: the data
 * region is several times what the levels above hold (each line has
 * left them when it is loaded again) and at most half the level.  The
 * measured pass only loads, so a counter of both sides (L2_MISS) counts
 * data misses alone.  An exclusive level works the same way: the code's
 * victims from L1i land in it when it is unified.  A level below a
 * unified one receives the misses of both sides: it is unified too,
 * derived without a measurement (for an L3 that saves twice its size
 * of fetches per run).
 *
 * By timing (no miss counters) the measured pass is timed alone, once
 * per run (no doubling: a second walk would hit), and again in a
 * control run without the other side's pass; the difference per access,
 * over the gap between the level's hit time and the next level's, is the
 * share that missed.  Where the level's size is out of reach by timing
 * (its ways unknown), the sweep's effective size stands in for it.
 *
 * Where half an L2 found by eviction sets is under twice what the levels
 * above hold, one line of its set is fetched, then loaded instead
 * (set_line_vote).
 *
 * Limits: data and code (2.5 times the level) pass through the level
 * below; an inclusive level below smaller than that back-invalidates
 * data from this one and makes a split level look unified. */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <time.h>
#include "measure.h"
#include "timing.h"
#include "insn_timing.h"
#include "trace.h"
#include "util.h"

#define BLOCK 4096      /* visited together: a page of lines */
#define REACH 4         /* data: up to this many times the levels above */
#define REACH_MIN 2     /* below it, random replacement keeps too many lines */
#define CODE_TIMES 2    /* code: this many times the level */
#define CODE_TIMES_EFFECTIVE 4 /* ... its effective size (the level may hold twice that) */
#define MISS_SHARE 0.25 /* misses per line on the second load: unified */
#define UNSTEADY 0.1    /* by timing: controls this far apart void a vote's try */
#define STEADY_TRIES 8


/* What one vote loads and runs: the region loaded twice (fetched twice
 * for L1i), the other side's region run between, and the spacing. */
struct probe {
	uint64_t unit, bytes, other;
};

/* By timing where only the sweep's effective size is known (the level's
 * ways, so its size, out of reach): 1 with that size; 0 with the level's
 * size; -1 with why. */
static int level_bytes(const struct amp_level *lv, uint64_t *bytes, char *why, size_t len)
{
	if (amp_param_conclusive(&lv->size)) {
		*bytes = (uint64_t)lv->size.value;
		return 0;
	}
	if (lv->method == AMP_METHOD_TIMING && amp_param_conclusive(&lv->effective_size)) {
		*bytes = (uint64_t)lv->effective_size.value;
		return 1;
	}
	snprintf(why, len, "needs the size first (%s)", lv->size.reason);
	return -1;
}

/* The spacing of the accesses: the level's line, else the nearest known
 * line above it, else any level's (by timing on real hardware L2's and
 * L1i's lines may stay unknown).  A line longer than the spacing is then
 * visited more than once a pass, and half or more of its visits still
 * miss when the other side pushed it out (MISS_SHARE). */
static uint64_t probe_unit(const struct amp_ctx *c, const struct amp_level *lv)
{
	uint64_t line = amp_nearest_line(lv);

	for (int i = 0; i < c->nlv && !line; i++)
		if (c->lv[i].kind == AMP_KIND_CACHE && amp_param_conclusive(&c->lv[i].line))
			line = (uint64_t)c->lv[i].line.value;
	return line;
}

/* The regions of one vote; 0, or -1 with why. */
static int probe_region(const struct amp_ctx *c, const struct amp_level *lv, struct probe *pr, char *why,
			size_t len)
{
	uint64_t cap, above = 0, bytes;
	int effective = level_bytes(lv, &cap, why, len);
	char sz[2][32];

	if (effective < 0)
		return -1;
	pr->unit = probe_unit(c, lv);
	if (!pr->unit) {
		snprintf(why, len, "needs a line size first (%s)", lv->line.reason);
		return -1;
	}
	for (const struct amp_level *a = lv->above; a; a = a->above) {
		if (!a->measurable || level_bytes(a, &bytes, why, len) < 0) {
			snprintf(why, len, "needs the size of %s above it first (%s)", a->name,
				 a->measurable ? a->size.reason : a->nc_reason);
			return -1;
		}
		above += bytes;
	}
	/* Half the level fits whatever its policy; the effective size
	 * was measured to fit, and the level holds at least that. */
	pr->bytes = (effective ? cap / 4 * 3 : cap / 2) / pr->unit * pr->unit;
	if (pr->bytes < pr->unit) {
		snprintf(why, len, "a region of half the level holds no whole line");
		return -1;
	}
	pr->other = (effective ? CODE_TIMES_EFFECTIVE : CODE_TIMES) * (cap / pr->unit * pr->unit);
	if (!above)
		return 0;
	if (pr->bytes < REACH_MIN * above) {
		snprintf(why, len, "%s of it (%s) is less than %d times what the levels above hold (%s): "
			 "data cannot be pushed out of them while staying here",
			 effective ? "three quarters of its effective size" : "half",
			 amp_fmt_size(pr->bytes, sz[0], sizeof sz[0]), REACH_MIN,
			 amp_fmt_size(above, sz[1], sizeof sz[1]));
		return -1;
	}
	if (pr->bytes > REACH * above)
		pr->bytes = REACH * above / pr->unit * pr->unit;
	return 0;
}

/* One vote's plan: flush the region, load it, run the other side's
 * region (not in the control), load the region again (measured).  The
 * flush makes the data as new to the level as the code: data left from
 * the run before would hit on the first load, and a scan-resistant
 * policy (this project's Zen 5 L2) then keeps it against code run once.
 * Code twice the level misses at least `ways` times in every set however
 * much of it the run before left cached.  0, or -1 with err. */
static int vote_plan(const struct amp_ctx *c, const struct amp_level *lv, const struct probe *pr,
		     unsigned v, int control, struct amp_plan *p, char *err, size_t len)
{
	enum amp_op probe = amp_level_op(lv);
	enum amp_op other = probe == AMP_OP_LOAD ? AMP_OP_IFETCH : AMP_OP_LOAD;
	uint64_t n = pr->bytes / pr->unit;
	int ds, cs = 0;

	amp_plan_init(p, control ? "unified control" : "unified", pr->other);
	p->huge = 1; /* lower caches are physically indexed */
	/* Fetches probing an L1i behind an op cache run as many jumps a
	 * line as the code sweep that gave its hit time (insn_timing.c). */
	if (probe == AMP_OP_IFETCH && lv->method == AMP_METHOD_TIMING)
		p->fetch_jumps = c->fetch_jumps;
	ds = amp_plan_add_block_cycle(p, pr->unit, (size_t)n, BLOCK / pr->unit, c->seed + 2 * (uint64_t)v);
	if (!control)
		cs = amp_plan_add_block_cycle(p, pr->unit, (size_t)(pr->other / pr->unit), BLOCK / pr->unit,
					   c->seed + 2 * (uint64_t)v + 1);
	if (ds < 0 || cs < 0) {
		snprintf(err, len, "%s: out of memory for %llu lines", lv->name,
			 (unsigned long long)(n + pr->other / pr->unit));
		amp_plan_free(p);
		return -1;
	}
	amp_plan_add_pass(p, ds, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(p, ds, probe, 1, 0);
	if (!control)
		amp_plan_add_pass(p, cs, other, 1, 0);
	amp_plan_add_pass(p, ds, probe, 1, 1);
	return 0;
}

/* By timing: the second load with the other side's pass, less the same
 * without it (timed just before and just after), over the latency gap,
 * is the share that missed; each run as given (a second walk would
 * hit).  Something on this project's guests' hosts (see mod_icache.c)
 * slows or crowds the caches for seconds at a time; a try whose two
 * controls disagree by more than UNSTEADY ran across a change and is
 * taken again after a nap, up to STEADY_TRIES times.  0, or -1 with err. */
static int timed_misses(struct amp_ctx *c, const struct amp_level *lv, const struct probe *pr, unsigned v,
			double *misses, char *err, size_t len)
{
	const struct timespec nap = { 0, 2000000 };
	struct amp_plan test, control;
	double before = 0, t, after = 0;
	int rc = -1;

	if (vote_plan(c, lv, pr, v, 0, &test, err, len) < 0)
		return -1;
	if (vote_plan(c, lv, pr, v, 1, &control, err, len) < 0) {
		amp_plan_free(&test);
		return -1;
	}
	for (int k = 0; k < STEADY_TRIES && rc < 0; k++) {
		if (amp_timing_ticks_once(c, &control, &before, err, len) < 0 ||
		    amp_timing_ticks_once(c, &test, &t, err, len) < 0 ||
		    amp_timing_ticks_once(c, &control, &after, err, len) < 0)
			break;
		if (fabs(after - before) <= UNSTEADY * fmin(before, after)) {
			*misses = (t - fmax(before, after)) / (lv->next_ticks - lv->hit_ticks) *
				  (double)(pr->bytes / pr->unit);
			amp_trace_count(&test, "timing", *misses);
			rc = 0;
		} else if (k + 1 < STEADY_TRIES) {
			nanosleep(&nap, NULL); /* let the spell pass */
		} else {
			snprintf(err, len, "%s: the machine's speed changed during every one of %d tries (controls %.1f and %.1f ticks)",
				 lv->name, STEADY_TRIES, before, after);
		}
	}
	amp_plan_free(&test);
	amp_plan_free(&control);
	return rc;
}

/* Counters, an L2 whose sets came from eviction sets where no region
 * fits it yet leaves the levels above (half of it under twice what they
 * hold): a line of its kept set fetched as code on its own frame
 * (code_in_region), then loaded.  A unified level took the fetched line
 * and the load, which misses L1d, hits here; a level of data alone (an
 * L2d beside an L2i) never saw it.  Only for a level known not to be
 * exclusive: an exclusive one takes no fetched line on the way up and
 * would read split (the region test, where it runs, sees the L1i's
 * victims land there). */
static int set_line_usable(const struct amp_ctx *c, const struct amp_level *lv)
{
	return c->method == AMP_METHOD_COUNTERS && lv->side == AMP_SIDE_DATA && lv->sets_by_experiment &&
	       lv->nset_lines > 0 && lv->above && lv->above->level == 1 && amp_param_conclusive(&lv->line) &&
	       ((amp_param_conclusive(&lv->inclusion) && lv->inclusion.value != AMP_INCL_EXCLUSIVE) ||
		lv->not_exclusive);
}

static int set_line_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value, char *err,
			 size_t len)
{
	uint64_t line = lv->set_lines[v % (unsigned)lv->nset_lines];
	struct amp_plan p;
	double misses;
	int rc;

	amp_plan_init(&p, "unified, one line", amp_set_lines_region(lv, (uint64_t)lv->line.value, 0));
	p.arena = amp_set_frames(lv);
	p.code_in_region = 1;
	if (amp_plan_add_seq(&p, &line, 1) < 0) {
		amp_plan_free(&p);
		snprintf(err, len, "%s: out of memory for a plan", lv->name);
		return -1;
	}
	amp_plan_add_pass(&p, 0, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(&p, 0, AMP_OP_IFETCH, 1, 0);
	amp_plan_add_pass(&p, 0, AMP_OP_TOUCH, 1, 1);
	rc = amp_count_mean(c, &p, lv->ev, &misses, err, len);
	amp_plan_free(&p);
	if (rc == 0)
		*value = misses < 0.5; /* 1: the fetch left the line here */
	return rc;
}

static int unified_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
			char *err, size_t len)
{
	struct probe pr;
	struct amp_plan p;
	double misses;
	int rc;

	if (probe_region(c, lv, &pr, err, len) < 0)
		return set_line_usable(c, lv) ? set_line_vote(c, lv, v, value, err, len) : -1;
	if (lv->method == AMP_METHOD_TIMING) {
		rc = timed_misses(c, lv, &pr, v, &misses, err, len);
	} else {
		if (vote_plan(c, lv, &pr, v, 0, &p, err, len) < 0)
			return -1;
		rc = amp_count(c, &p, lv->ev, &misses, err, len);
		amp_plan_free(&p);
	}
	if (rc < 0)
		return -1;
	*value = misses / (double)(pr.bytes / pr.unit) >= MISS_SHARE; /* 1: the other side evicted it */
	return 0;
}

/* Where the answer follows from another level's, that level's answer:
 * below a unified level both sides' misses arrive, so it is unified
 * too; by timing the L1i takes the L1d's answer (whether code evicts L1
 * data is whether L1 is one cache), since its mirror test's gap is small
 * (2.5 ticks a line on this project's Zen 5 guests) and a hyperthread
 * beside ours crowding the L1i while the data ran read as unified in
 * two of three runs there. */
static const struct amp_param *derived_from(const struct amp_ctx *c, const struct amp_level *lv)
{
	if (lv->above && amp_param_conclusive(&lv->above->unified) && lv->above->unified.value == 1)
		return &lv->above->unified;
	if (lv->method != AMP_METHOD_TIMING || lv->side != AMP_SIDE_INSN || lv->level != 1)
		return NULL;
	for (int i = 0; i < c->nlv; i++)
		if (c->lv[i].kind == AMP_KIND_CACHE && c->lv[i].side == AMP_SIDE_DATA && c->lv[i].level == 1 &&
		    amp_param_conclusive(&c->lv[i].unified))
			return &c->lv[i].unified;
	return NULL;
}

static int unified_supported(const struct amp_ctx *c, const struct amp_level *lv, char *why,
			     size_t len)
{
	struct probe pr;

	if (amp_insn_blocks_refusal(c, lv, why, len))
		return 0;
	if (derived_from(c, lv))
		return 1;
	if (lv->method == AMP_METHOD_TIMING && !(lv->next_ticks > lv->hit_ticks)) {
		snprintf(why, len, "no latency gap to the level below it");
		return 0;
	}
	return probe_region(c, lv, &pr, why, len) == 0 || set_line_usable(c, lv);
}

static int unified_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	const struct amp_param *from = derived_from(c, lv);

	if (from)
		amp_param_derived(&lv->unified, from->value, from);
	else
		amp_vote(c, lv, unified_vote, &lv->unified);
	return 0;
}

const struct amp_module amp_module_unified = {
	.name = "unified",
	.summary = "split or unified: whether code evicts data from the level (L1i: data evicts code)",
	.kinds = 1u << AMP_KIND_CACHE,
	.fills = { AMP_FILLS(unified) },
	.supported = unified_supported,
	.run = unified_run,
};
