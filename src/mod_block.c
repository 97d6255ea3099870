/* mod_block.c - line size by timing.
 *
 * Where the level's sets are known (2 x ways lines that share one set:
 * a power-of-two stride of its way size at L1, the eviction class of
 * mod_evset.c below), X-Ray's block size (4.4.1): move half of those
 * lines by b bytes; while b is inside their lines the walk thrashes,
 * once b reaches the next line each half fills a set of its own and the
 * walk fits.  The smallest such b is the line.  (Half, not one line: a
 * single moved line would sit alone in an L1 set and never reach the
 * level measured.)
 *
 * Elsewhere (a level whose sets could not be found), BlackjackBench's
 * access pairs (3.1.1): in a buffer that lives in this level, a random
 * line then one D - 8 bytes further; the second access hits above while
 * D is within one line and costs this level's latency beyond it. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include "measure.h"
#include "plan.h"
#include "timing.h"
#include "insn_timing.h"
#include "trace.h"

#define PAIR_SPAN 512          /* the pair's block: no line is bigger */
/* A step is this share of the latency gap between L1 and this level
 * (small: an adjacent-line prefetch turns the step into an L2 hit). */
#define PAIR_STEP 0.1

/* 2 x ways lines of one set, sorted so the moved half stays in its page. */
static int class_of(const struct amp_level *lv, unsigned v, uint64_t *set, uint64_t *region)
{
	uint64_t a = (uint64_t)lv->assoc.value;

	if (2 * a > AMP_MAX_CONG)
		return 0;
	if (lv->level > 1 && (uint64_t)lv->ncong >= 2 * a) {
		for (uint64_t i = 0; i < 2 * a; i++)
			set[i] = lv->cong[i];
		*region = lv->cong_region;
		return 1;
	}
	if (lv->level == 1) {
		uint64_t w = (uint64_t)lv->way.value, base = 64 * (v % 16);

		for (uint64_t i = 0; i < 2 * a; i++)
			set[i] = base + i * w;
		*region = base + 2 * a * w;
		return 1;
	}
	return 0;
}

static int block_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		      char *err, size_t len)
{
	uint64_t set[AMP_MAX_CONG], moved[AMP_MAX_CONG], region, a = (uint64_t)lv->assoc.value;
	uint64_t limit = c->page;
	double rate;

	if (!class_of(lv, v, set, &region)) {
		snprintf(err, len, "%s: no lines known to share a set", lv->name);
		return -1;
	}
	if (lv->way.known && (uint64_t)lv->way.value < limit)
		limit = (uint64_t)lv->way.value;
	for (uint64_t b = 8; b < limit; b *= 2) {
		/* Stay inside the lines' page: its frame keeps the set bits. */
		if ((set[0] % c->page) + b >= c->page)
			break;
		for (uint64_t i = 0; i < 2 * a; i++)
			moved[i] = set[i] + (i >= a ? b : 0);
		if (amp_timing_rate(c, lv, moved, 2 * a, region + limit, &rate, err, len) < 0)
			return -1;
		amp_trace_point(lv, "timing", "offset_bytes", "offset of the moved half of the set (bytes)",
				(double)b, "share_missing", "share of accesses missing (from time; 1 = all)", rate, 0);
		if (!amp_thrashes(lv, rate)) {
			*value = (int64_t)b;
			return 0;
		}
	}
	snprintf(err, len, "%s: the walk thrashes at every offset below %llu B", lv->name,
		 (unsigned long long)limit);
	return -1;
}

/* Ticks per access of pairs D bytes apart in a buffer of `size`. */
static int pair_ticks(struct amp_ctx *c, uint64_t size, uint64_t d, unsigned v, double *t, char *err,
		      size_t len)
{
	uint64_t blocks = size / PAIR_SPAN, *off = malloc(2 * blocks * sizeof *off);
	struct amp_plan p;
	struct amp_rng rng;
	int seq, rc;

	if (!off) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	/* A random order of blocks, from the same seed at every D. */
	for (uint64_t i = 0; i < blocks; i++)
		off[i] = i * PAIR_SPAN;
	amp_rng_seed(&rng, c->seed + v);
	amp_shuffle(off, (size_t)blocks, &rng);
	for (uint64_t i = blocks; i-- > 0;) {
		off[2 * i + 1] = off[i] + d - 8;
		off[2 * i] = off[i];
	}
	amp_plan_init(&p, "pairs", size);
	p.huge = 1;
	seq = amp_plan_add_seq(&p, off, (size_t)(2 * blocks));
	free(off);
	if (seq < 0) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	amp_plan_add_pass(&p, seq, AMP_OP_LOAD, 1, 0);
	amp_plan_add_pass(&p, seq, AMP_OP_LOAD, 1, 1);
	rc = amp_timing_ticks(c, &p, t, err, len);
	amp_plan_free(&p);
	return rc;
}

static int pairs_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		      char *err, size_t len)
{
	/* The level's effective size: most first accesses are served here. */
	uint64_t size = (uint64_t)lv->effective_size.value / PAIR_SPAN * PAIR_SPAN;
	double base, t, step = PAIR_STEP * (lv->hit_ticks - amp_level_top(lv)->hit_ticks) / 2;

	if (pair_ticks(c, size, 16, v, &base, err, len) < 0)
		return -1;
	amp_trace_point(lv, "timing", "pair_distance_bytes", "distance between the two accesses of a pair (bytes)",
			16, "extra_ticks", "ticks per access over pairs 16 B apart", 0, 0);
	for (uint64_t d = 32; d <= PAIR_SPAN; d *= 2) {
		if (pair_ticks(c, size, d, v, &t, err, len) < 0)
			return -1;
		amp_trace_point(lv, "timing", "pair_distance_bytes", "distance between the two accesses of a pair (bytes)",
				(double)d, "extra_ticks", "ticks per access over pairs 16 B apart", t - base, 0);
		if (t - base >= step) {
			*value = (int64_t)(d / 2);
			return 0;
		}
	}
	snprintf(err, len, "%s: pairs up to %d B apart cost no more than one access", lv->name, PAIR_SPAN);
	return -1;
}

/* L1 runs first (the eviction sets below size their pools by its
 * line), the levels below after their eviction sets. */
static int block_applies_l1(const struct amp_ctx *c, const struct amp_level *lv)
{
	return lv->method == AMP_METHOD_TIMING && lv->level == 1;
}

static int block_applies_below(const struct amp_ctx *c, const struct amp_level *lv)
{
	return lv->method == AMP_METHOD_TIMING && lv->level > 1;
}

static int block_supported(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len)
{
	if (amp_insn_blocks_refusal(c, lv, why, len))
		return 0;
	if (!lv->effective_size.known && !amp_param_conclusive(&lv->assoc)) {
		snprintf(why, len, "needs its associativity or its place in the latency sweep first");
		return 0;
	}
	return 1;
}

static int block_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	uint64_t set[AMP_MAX_CONG], region;

	if (amp_param_conclusive(&lv->assoc) && lv->way.known && class_of(lv, 0, set, &region))
		amp_vote(c, lv, block_vote, &lv->line);
	else if (lv->side == AMP_SIDE_INSN)
		amp_param_unknown(&lv->line, "needs the associativity and way size first (access pairs are loads)");
	else
		amp_vote(c, lv, pairs_vote, &lv->line);
	/* One set of single lines: fully associative. */
	lv->fully_associative = lv->line.known && lv->way.known && lv->way.value == lv->line.value;
	return 0;
}

const struct amp_module amp_module_block_l1 = {
	.name = "block-l1",
	.summary = "timing: L1 line size by moving half of a full set (X-Ray)",
	.kinds = 1u << AMP_KIND_CACHE,
	.fills = { AMP_FILLS(line) },
	.applies = block_applies_l1,
	.supported = block_supported,
	.run = block_run,
};

const struct amp_module amp_module_block = {
	.name = "block",
	.summary = "timing: line size below L1 by moving half of an eviction class (X-Ray) or by access pairs (BlackjackBench)",
	.kinds = 1u << AMP_KIND_CACHE,
	.fills = { AMP_FILLS(line) },
	.applies = block_applies_below,
	.supported = block_supported,
	.run = block_run,
};
