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
 * check.  Below level 1 the second load must reach the level: the data
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
 * per run (no doubling: a second walk would hit), and its time per
 * access, placed between the level's hit time and the next level's,
 * is the share that missed.
 *
 * Limits: data and code (2.5 times the level) pass through the level
 * below; an inclusive level below smaller than that back-invalidates
 * data from this one and makes a split level look unified. */
#include "config.h"
#include <stdio.h>
#include "measure.h"
#include "timing.h"
#include "insn_timing.h"
#include "util.h"

#define BLOCK 4096      /* visited together: a page of lines */
#define REACH 4         /* data: up to this many times the levels above */
#define REACH_MIN 2     /* below it, random replacement keeps too many lines */
#define CODE_TIMES 2    /* code: this many times the level */
#define MISS_SHARE 0.25 /* misses per line on the second load: unified */


/* Bytes of the region loaded twice (fetched twice for L1i); 0, or -1 with why. */
static int probe_region(const struct amp_level *lv, uint64_t *bytes, char *why, size_t len)
{
	uint64_t unit = (uint64_t)lv->line.value, half, above;
	char sz[2][32];

	if (amp_region_half(lv, &half, &above, why, len) < 0)
		return -1;
	*bytes = half;
	if (!above)
		return 0;
	if (half < REACH_MIN * above) {
		snprintf(why, len, "half of it (%s) is less than %d times what the levels above hold (%s): "
			 "data cannot be pushed out of them while staying here",
			 amp_fmt_size(half, sz[0], sizeof sz[0]), REACH_MIN,
			 amp_fmt_size(above, sz[1], sizeof sz[1]));
		return -1;
	}
	if (half > REACH * above)
		*bytes = REACH * above / unit * unit;
	return 0;
}

static int unified_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
			char *err, size_t len)
{
	enum amp_op probe = amp_level_op(lv);
	enum amp_op other = probe == AMP_OP_LOAD ? AMP_OP_IFETCH : AMP_OP_LOAD;
	uint64_t unit = (uint64_t)lv->line.value, bytes, code, n;
	struct amp_plan p;
	double misses;
	int rc, ds, cs;

	if (probe_region(lv, &bytes, err, len) < 0)
		return -1;
	n = bytes / unit;
	code = CODE_TIMES * ((uint64_t)lv->size.value / unit * unit);
	amp_plan_init(&p, "unified", code);
	p.huge = 1; /* lower caches are physically indexed */
	ds = amp_plan_add_block_cycle(&p, unit, (size_t)n, BLOCK / unit, c->seed + 2 * (uint64_t)v);
	cs = amp_plan_add_block_cycle(&p, unit, (size_t)(code / unit), BLOCK / unit,
				   c->seed + 2 * (uint64_t)v + 1);
	if (ds < 0 || cs < 0) {
		snprintf(err, len, "%s: out of memory for %llu lines", lv->name,
			 (unsigned long long)(n + code / unit));
		amp_plan_free(&p);
		return -1;
	}
	/* No flush: the data is loaded whatever was cached, and code
	 * twice the level misses at least `ways` times in every set
	 * however much of it the run before left cached. */
	amp_plan_add_pass(&p, ds, probe, 1, 0);
	amp_plan_add_pass(&p, cs, other, 1, 0);
	amp_plan_add_pass(&p, ds, probe, 1, 1);
	if (lv->method == AMP_METHOD_TIMING) {
		double save = c->t_min_ticks, t;

		c->t_min_ticks = 0; /* one pass: a second one would hit */
		rc = amp_timing_ticks(c, &p, &t, err, len);
		c->t_min_ticks = save;
		misses = (t - lv->hit_ticks) / (lv->next_ticks - lv->hit_ticks) * (double)n;
	} else {
		rc = amp_count(c, &p, lv->ev, &misses, err, len);
	}
	amp_plan_free(&p);
	if (rc < 0)
		return -1;
	*value = misses / (double)n >= MISS_SHARE; /* 1: the other side evicted it */
	return 0;
}

/* Below a unified level both sides' misses arrive: unified too. */
static int below_unified(const struct amp_level *lv)
{
	return lv->above && amp_param_conclusive(&lv->above->unified) && lv->above->unified.value == 1;
}

static int unified_supported(const struct amp_ctx *c, const struct amp_level *lv, char *why,
			     size_t len)
{
	uint64_t bytes;

	if (amp_insn_blocks_refusal(c, lv, why, len))
		return 0;
	if (lv->method == AMP_METHOD_TIMING && !(lv->next_ticks > lv->hit_ticks) && !below_unified(lv)) {
		snprintf(why, len, "no latency gap to the level below it");
		return 0;
	}
	return below_unified(lv) || probe_region(lv, &bytes, why, len) == 0;
}

static int unified_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	if (below_unified(lv))
		amp_param_derived(&lv->unified, 1, &lv->above->unified);
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
