/* mod_block.c - line size by timing.
 *
 * At L1, whose sets are known (2 x ways lines a power-of-two stride of
 * its way size apart share one set), X-Ray's block size (4.4.1): move
 * half of those
 * lines by b bytes; while b is inside their lines the walk thrashes,
 * once b reaches the next line each half fills a set of its own and the
 * walk fits.  The smallest such b is the line.  (Half, not one line: a
 * single moved line would sit alone in an L1 set and never reach the
 * level measured.)  The class unmoved must thrash first: a wrong way
 * size spreads it over sets, and every offset would fit.
 *
 * Below L1 the eviction tests of mod_evset.c give the line where they
 * find a set; below L2, page-offset classes (below) do; elsewhere (a
 * level whose sets could not be found), and to confirm a class's edge
 * past the line above, BlackjackBench's
 * access pairs (3.1.1): in a buffer that lives below this level, the
 * last word of a random 512-byte block, then the word D bytes further
 * down it (downwards: next-line prefetchers run upwards); in half the
 * blocks, at random, a decoy second access elsewhere keeps a region
 * prefetcher from learning the pattern (pair_plan).  The first access
 * brings the line into this level (and the lines of the levels above);
 * the second hits this level or above while D is within this level's
 * line, and pays the level below, if only in part, beyond it.  (A
 * buffer that lived in this level would show only the edges of the
 * lines above it.)  A prefetcher
 * that fills neighbouring lines into this level moves that edge out, so
 * an edge past the lines above is checked across a boundary: a pair only
 * one line above apart that straddles a multiple of the edge cannot share
 * a line, and pays the level below unless something prefetched it. */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure.h"
#include "memlimit.h"
#include "plan.h"
#include "timing.h"
#include "insn_timing.h"
#include "trace.h"

#define PAIR_SPAN 512          /* the pair's block: no line is bigger */
/* Last cache level, where no cache-flush instruction is at hand: its
 * pairs' first lines fill this many times its effective size (main
 * memory serves the first accesses; see pair_buffer). */
#define PAIR_BELOW_FACTOR 2
/* Last cache level where lines can be flushed: pairs a walk, their lines
 * flushed before each (see pair_buffer). */
#define PAIR_FLUSHED 16384
/* A second access this share of the gap to L1 below this level's hit
 * was prefetched (a hit here would cost the hit). */
#define PAIR_PREFETCHED 0.1
/* Runs of each pattern and of the base, by turns (see second_ticks). */
#define PAIR_ROUNDS 3
/* A second access dearer than this level's hit by this share of the gap
 * to the level below missed it (see pairs_walk). */
#define PAIR_BEYOND 0.25

/* Lines in each half of the class.  Data: a quarter of the ways short
 * of them, so a moved half leaves spare ways in each set.  With halves
 * of exactly the ways, a neighbour's line in the set (the host's SMT
 * sibling on this project's Zen 5 guest) evicted the next line the walk
 * needed, and so on round the set: 2 default runs of 6 thrashed at every
 * offset up to the page in all 6 votes taken.  Unmoved, 1.5 x the ways
 * still thrash (under random replacement more than half the walk
 * misses, over the 0.3 of the gap that data walks need).  Code: the
 * ways, as code walks must lose 0.8 of the gap to thrash, and 12 jumps
 * in the guest's 8-way L1i set lost less (4 votes of 6 read 8 B). */
static uint64_t half_of(const struct amp_level *lv)
{
	uint64_t a = (uint64_t)lv->assoc.value;

	return lv->side == AMP_SIDE_INSN ? a : a - a / 4;
}

/* 2 x half_of lines of one set, sorted so the moved half stays in its page. */
static int class_of(const struct amp_level *lv, unsigned v, uint64_t *set, uint64_t *region)
{
	uint64_t a = half_of(lv);

	if (2 * a > AMP_MAX_CONG)
		return 0;
	if (lv->level == 1 && amp_param_conclusive(&lv->way)) {
		uint64_t w = (uint64_t)lv->way.value, base = 64 * (v % 16);

		for (uint64_t i = 0; i < 2 * a; i++)
			set[i] = base + i * w;
		*region = base + 2 * a * w;
		return 1;
	}
	return 0;
}

/* Share missing of the class with its upper half moved by b bytes.
 * Code: against `far` (set by the walk with `is_far`). */
static int moved_rate(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *set, uint64_t a,
		      uint64_t b, uint64_t region, double *far, int is_far, double *rate, char *err, size_t len)
{
	uint64_t moved[AMP_MAX_CONG];

	for (uint64_t i = 0; i < 2 * a; i++)
		moved[i] = set[i] + (i >= a ? b : 0);
	if (lv->side == AMP_SIDE_INSN)
		return amp_timing_code_rate(c, lv, moved, 2 * a, region, far, is_far, rate, err, len);
	return amp_timing_rate(c, lv, moved, 2 * a, region, rate, err, len);
}

/* The line: the offset that best splits the walks into thrashing below
 * it and fitting from it.  Data walks stop at the first that fits (the
 * split is exact); code walks every offset, so that one walk a busy host
 * slowed or an op cache sped up is one error, not the answer (on this
 * project's Zen 5 guests the first walk that fit gave 8 to 512 B in 3 of
 * 8 votes).  More than one error: the walks make no single step. */
#define MAX_OFFSETS 32

static int line_step(const struct amp_level *lv, const uint64_t *offset, const int *thrashed, int n,
		     uint64_t limit, int64_t *value, char *err, size_t len)
{
	int best = -1, best_errors = n + 1;

	for (int k = 0; k <= n; k++) {
		int errors = 0;

		for (int i = 0; i < n; i++)
			errors += i < k ? !thrashed[i] : thrashed[i];
		if (errors < best_errors) {
			best_errors = errors;
			best = k;
		}
	}
	if (best == n) {
		snprintf(err, len, "%s: the walk thrashes at every offset below %llu B", lv->name,
			 (unsigned long long)limit);
		return -1;
	}
	if (best_errors > 1) {
		snprintf(err, len, "%s: the offsets make no single step from thrashing to fitting (%d walks off the best)",
			 lv->name, best_errors);
		return -1;
	}
	*value = (int64_t)offset[best];
	return 0;
}

static _Thread_local unsigned spell_votes; /* data votes of this round that may have seen one */

/* Data: a neighbour's busy spell (a host's SMT sibling that keeps its
 * lines in every set of L1d) makes each half of the class thrash at
 * every offset until it ends, and the first offset that fits after it
 * reads as the line (512 B on this project's Zen 5 guest, whose line is
 * 64 B).  The offset before the fit must still thrash when walked
 * again; 1 (err set) where it fits now, or the walk failed. */
static int spell_before_fit(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *set, uint64_t a,
			    uint64_t before, uint64_t region, char *err, size_t len)
{
	double rate, far = 0;

	if (moved_rate(c, lv, set, a, before, region, &far, 0, &rate, err, len) < 0)
		return 1;
	if (amp_thrashes(lv, rate))
		return 0;
	snprintf(err, len, "%s: the half moved %llu B thrashed, then fitted when walked again once %llu B fitted (a busy spell?)",
		 lv->name, (unsigned long long)before, (unsigned long long)(2 * before));
	spell_votes++;
	return 1;
}

static int block_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		      char *err, size_t len)
{
	uint64_t set[AMP_MAX_CONG], region, a = half_of(lv);
	uint64_t limit = c->page;
	uint64_t offset[MAX_OFFSETS];
	double rate, unmoved, far = 0;
	int code = lv->side == AMP_SIDE_INSN, thrashed[MAX_OFFSETS], n = 0;

	if (!class_of(lv, v, set, &region)) {
		snprintf(err, len, "%s: no lines known to share a set", lv->name);
		return -1;
	}
	if (lv->way.known && (uint64_t)lv->way.value < limit)
		limit = (uint64_t)lv->way.value;
	region += limit;
	/* Code is judged against the same lines with their half moved half a
	 * way (other sets, whatever the line), which fit: how fast fitting
	 * code runs depends on its layout (an op cache serves some). */
	if (code && moved_rate(c, lv, set, a, limit / 2, region, &far, 1, &rate, err, len) < 0)
		return -1;
	/* Control: the class unmoved must thrash (a way size too small
	 * spreads it over sets that hold it, and every offset fits). */
	if (moved_rate(c, lv, set, a, 0, region, &far, 0, &unmoved, err, len) < 0)
		return -1;
	if (!amp_thrashes(lv, unmoved)) {
		snprintf(err, len, "%s: %llu lines %llu B apart fit unmoved, so they share no set", lv->name,
			 (unsigned long long)(2 * a), (unsigned long long)(set[1] - set[0]));
		return -1;
	}
	for (uint64_t b = 8; b < limit && n < MAX_OFFSETS; b *= 2) {
		/* Stay inside the lines' page: its frame keeps the set bits. */
		if ((set[0] % c->page) + b >= c->page)
			break;
		if (moved_rate(c, lv, set, a, b, region, &far, 0, &rate, err, len) < 0)
			return -1;
		amp_trace_point(lv, "timing", "offset_bytes", "offset of the moved half of the set (bytes)",
				(double)b, "share_missing", "share of accesses missing (from time; 1 = all)", rate, 0);
		offset[n] = b;
		thrashed[n] = amp_thrashes(lv, rate);
		/* Data stops at the first offset that fits; code walks them
		 * all (see line_step). */
		if (!thrashed[n++] && !code)
			break;
	}
	/* Data: a walk that thrashed at every offset saw a spell too (or
	 * ways or a way size that are wrong). */
	if (!code && thrashed[n - 1])
		spell_votes++;
	else if (!code && n >= 2 && spell_before_fit(c, lv, set, a, offset[n - 2], region, err, len))
		return -1;
	return line_step(lv, offset, thrashed, n, limit, value, err, len);
}

/* The walk of pairs in a buffer of `size`: in each pair block the word
 * at `first`, then the word at `second`; `*own` gets the share of pair
 * blocks whose second access is their own.  The others, a random half,
 * are decoys: their second access goes to a random word of a block kept
 * for decoys (a third of the buffer).  A prefetcher that learns which
 * line follows a miss in its region then guesses wrong about half the
 * time, and the pairs' own seconds show their cost.  On this project's
 * Zen 3 guest, without decoys, second accesses 128 and 256 B away cost 3
 * to 26 ticks, an L1 or L2 hit, against an L3 hit of 31 and memory's
 * 236; in a test program, 128 B away, 178 to 253 with decoys in blocks
 * of their own, 86 to 127 with decoys in other pairs' blocks. */
static int pair_plan(struct amp_ctx *c, uint64_t size, int flushed, uint64_t first, uint64_t second,
		     unsigned v, struct amp_plan *p, double *own, char *err, size_t len)
{
	uint64_t blocks = size / PAIR_SPAN, *block = malloc(blocks * sizeof *block);
	uint64_t npair = blocks - blocks / 3, decoy = npair, n = 0, pairs = 0;
	uint64_t *off = malloc(2 * npair * sizeof *off);
	struct amp_rng rng;
	int seq;

	if (!block || !off) {
		free(block);
		free(off);
		snprintf(err, len, "out of memory");
		return -1;
	}
	/* A random order of blocks and of decoys, from the same seed at
	 * every D, so that patterns differ only in their own seconds. */
	for (uint64_t i = 0; i < blocks; i++)
		block[i] = i * PAIR_SPAN;
	amp_rng_seed(&rng, c->seed + v);
	amp_shuffle(block, (size_t)blocks, &rng);
	for (uint64_t i = 0; i < npair; i++) {
		uint64_t word = amp_rng_below(&rng, PAIR_SPAN / 8) * 8;

		off[n++] = block[i] + first;
		if (amp_rng_below(&rng, 2) && decoy < blocks)
			off[n++] = block[decoy++] + word;
		else {
			off[n++] = block[i] + second;
			pairs++;
		}
	}
	free(block);
	*own = (double)pairs / (double)(npair ? npair : 1);
	amp_plan_init(p, "pairs", size);
	p->huge = 1;
	seq = amp_plan_add_seq(p, off, (size_t)n);
	free(off);
	if (seq < 0 || !pairs) {
		amp_plan_free(p);
		snprintf(err, len, seq < 0 ? "out of memory" : "a pair buffer of %llu B holds no pair",
			 (unsigned long long)size);
		return -1;
	}
	/* No warm-up walk: the buffer is larger than the level, so a
	 * cyclic walk finds nothing of itself there from the walk before;
	 * or its lines are flushed first. */
	if (flushed)
		amp_plan_add_pass(p, seq, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(p, seq, AMP_OP_LOAD, 1, 1);
	return 0;
}

/* A pair buffer that lives below lv, so a pair's first access misses
 * it: the next cache's effective size where that is at least twice
 * lv's.  Main memory below: where lines can be flushed, PAIR_FLUSHED
 * pairs whose lines are flushed before each walk (*flushed set) unless
 * the buffer below is smaller; on the PVM Zen 5 guest the walks of a
 * buffer that overflowed L3 took 2 to 19 s of a default run's 35 to 60
 * (the flushed pairs: 0.7 to 1.5 s).  Else one whose first accesses'
 * lines alone (one in each pair block, two thirds of the PAIR_SPAN-byte
 * blocks) fill PAIR_BELOW_FACTOR times lv's.  At D = 16 a pair is one
 * line, and
 * its first access must miss as it does where the pair is two: on the
 * simulated machine, where the pairs' two lines filled twice a 4 MiB
 * L3, the first accesses at D = 16 hit it almost half the time.  Counting
 * only those lines keeps every set overflowing where the index hashes
 * them over all sets, not over the quarter their offsets select. */
static uint64_t pair_buffer(const struct amp_ctx *c, const struct amp_level *lv, int *flushed)
{
	uint64_t own = (uint64_t)lv->effective_size.value;
	uint64_t size = PAIR_BELOW_FACTOR * own * (PAIR_SPAN / amp_nearest_line_or_64(lv->above)) * 3 / 2;
	uint64_t flushed_size = (uint64_t)PAIR_FLUSHED * PAIR_SPAN * 3 / 2; /* pairs in 2/3 of the blocks */
	const struct amp_level *b = amp_level_below(c, lv);

	*flushed = 0;
	if (b && b->effective_size.known && (uint64_t)b->effective_size.value >= 2 * own)
		size = (uint64_t)b->effective_size.value;
	else if (!c->host->pairs_unflushed && amp_run_can_flush(c->host) && flushed_size < size) {
		size = flushed_size;
		*flushed = 1;
	}
	/* Two patterns are mapped at a time (second_ticks): each at most a
	 * quarter of --max-memory (a big last cache's pairs then overflow
	 * fewer sets, or none, and say so). */
	if (size > amp_memory_limit() / 4)
		size = amp_memory_limit() / 4;
	return size / PAIR_SPAN * PAIR_SPAN;
}

/* One vote's pairs: the buffer, and the pattern every other is timed
 * against. */
struct pairs {
	struct amp_ctx *c;
	uint64_t size;
	int flushed;           /* its lines flushed before each walk */
	unsigned v;
	double h1;             /* the L1 hit */
	struct amp_plan base;  /* the pairs at D = 16 (second hits L1) */
	/* Real machine: the base's region and the patterns', mapped once a
	 * vote (each run writes its own chain there). */
	struct amp_arena arena[2];
};

/* The cost of the second access of pairs `first`, then `second`: the
 * first and the decoys' seconds cost the same in every pattern, and at
 * D = 16 the second hits L1, so it is the L1 hit plus the change per
 * access times the accesses per pair of its own (two per pair block,
 * over the share of them that are not decoys).  The pattern and the
 * base run by turns, the fastest run of each kept: main memory, which
 * serves most of their accesses, is slower in some spells than in
 * others, and four times that change would read as the second's cost. */
static int second_ticks(struct pairs *pr, uint64_t first, uint64_t second, double *cost, char *err,
			size_t len)
{
	struct amp_ctx *c = pr->c;
	struct amp_plan p;
	double own, base[PAIR_ROUNDS], t[PAIR_ROUNDS];
	double n = (double)amp_plan_accesses(&pr->base, 1);
	int rc;

	if (pair_plan(c, pr->size, pr->flushed, first, second, pr->v, &p, &own, err, len) < 0)
		return -1;
	if (pr->arena[1].base)
		p.arena = &pr->arena[1];
	rc = amp_run_pair_each(&pr->base, &p, c->host, PAIR_ROUNDS, base, t, err, len);
	c->accesses += (amp_plan_accesses(&pr->base, 0) + amp_plan_accesses(&p, 0)) * PAIR_ROUNDS;
	amp_plan_free(&p);
	if (rc < 0)
		return -1;
	for (unsigned r = 1; r < PAIR_ROUNDS; r++) {
		if (base[r] < base[0])
			base[0] = base[r];
		if (t[r] < t[0])
			t[0] = t[r];
	}
	/* The timer's overhead cancels in the difference; the base has the
	 * same decoys (the same seed). */
	*cost = pr->h1 + 2 / own * (t[0] - base[0]) / n;
	return 0;
}

/* An edge L past the lines above (line_above): the pair L + 8, then
 * L - line_above, is one line above apart yet straddles a multiple of L,
 * so it shares no line of L bytes.  Its second access should cost what
 * one beyond the edge did; nearer to what one inside it did, a
 * prefetcher brought it, and the edge is that prefetcher's reach. */
static int straddle_check(struct pairs *pr, struct amp_level *lv, uint64_t edge_bytes,
			  uint64_t line_above, double inside, double beyond, char *err, size_t len)
{
	double second;

	if (second_ticks(pr, edge_bytes + 8, edge_bytes - line_above, &second, err, len) < 0)
		return -1;
	amp_trace_point(lv, "timing", "straddle_bytes", "boundary the straddling pair crosses (bytes)",
			(double)edge_bytes, "second_ticks", "ticks of the pair's second access", second, 0);
	if (second <= (inside + beyond) / 2) {
		snprintf(err, len, "%s: prefetchers fill neighbouring lines: pairs reach %llu B, but a pair %llu B apart across a multiple of %llu B costs %.1f ticks, nearer a hit inside (%.1f) than a miss beyond (%.1f), so pairs cannot tell its line",
			 lv->name, (unsigned long long)edge_bytes, (unsigned long long)line_above + 8,
			 (unsigned long long)edge_bytes, second, inside, beyond);
		return -1;
	}
	return 0;
}

static int pairs_walk(struct pairs *pr, struct amp_level *lv, int64_t *value, char *err, size_t len)
{
	uint64_t above_line = amp_nearest_line(lv->above); /* an above level may have none */
	/* A second access sharing the first's line here costs this level's
	 * hit at most; one clearly dearer missed it, if only in part (a
	 * neighbour-line prefetch still on its way: on this project's Zen 3
	 * guest, in 8 runs, a second access 128 B away cost 83 to 166 ticks,
	 * between the L3 hit of 31 and memory's 236). */
	double beyond = lv->hit_ticks + PAIR_BEYOND * (lv->next_ticks - lv->hit_ticks);
	double cheapest = -1;   /* the cheapest second access past the lines above */
	double inside = pr->h1; /* the second access at the distance before */

	amp_trace_point(lv, "timing", "pair_distance_bytes", "distance between the two accesses of a pair (bytes)",
			16, "second_ticks", "ticks of the pair's second access", pr->h1, 0);
	/* Pairs within one line of the level above share it, whatever this
	 * level's line: of those only the farthest is walked, a check on the
	 * base (each distance costs two walks of a buffer twice this level's
	 * size, three times). */
	for (uint64_t d = above_line > 32 ? above_line : 32; d <= PAIR_SPAN; d *= 2) {
		double second = INFINITY;
		int missed = -1;

		/* A check that read disturbed is walked once more, the
		 * cheaper look kept (the difference of two walks of a
		 * buffer past a shared L3 scatters either way: on the PVM
		 * Zen 5 guest pairs 64 B apart, an L1 hit, read -93 to 63
		 * ticks in the votes of two runs, and 190 in the first of
		 * 6 failed votes of 8 in a third). */
		for (int look = 0; look < 2 && missed < 0; look++) {
			double t;

			if (second_ticks(pr, PAIR_SPAN - 8, PAIR_SPAN - d, &t, err, len) < 0)
				return -1;
			if (!look)
				amp_trace_point(lv, "timing", "pair_distance_bytes",
						"distance between the two accesses of a pair (bytes)", (double)d,
						"second_ticks", "ticks of the pair's second access", t, 0);
			second = fmin(second, t);
			missed = amp_pair_missed(d, above_line, second, beyond);
		}
		if (missed < 0) {
			snprintf(err, len, "%s: a pair %llu B apart, within one %llu-byte line of %s, cost %.1f ticks, a miss here: the walks were disturbed",
				 lv->name, (unsigned long long)d, (unsigned long long)above_line, lv->above->name,
				 second);
			return -1;
		}
		if (missed) {
			/* Past the lines above but inside this level's line, the
			 * second access hits this level; one clearly cheaper than
			 * that hit was prefetched into a level above, and the edge
			 * found is the prefetcher's reach, not the line. */
			if (cheapest >= 0 && cheapest < lv->hit_ticks - PAIR_PREFETCHED * (lv->hit_ticks - pr->h1)) {
				snprintf(err, len, "%s: prefetchers bring the neighbouring lines: a second access up to %llu B away costs %.1f ticks, below this level's hit (%.1f), so pairs cannot tell its line",
					 lv->name, (unsigned long long)(d / 2), cheapest, lv->hit_ticks);
				return -1;
			}
			*value = (int64_t)(d / 2);
			if (above_line && d / 2 > above_line)
				return straddle_check(pr, lv, d / 2, above_line, inside, second, err, len);
			return 0;
		}
		if (above_line && d / 2 >= above_line && (cheapest < 0 || second < cheapest))
			cheapest = second;
		inside = second;
	}
	snprintf(err, len, "%s: pairs up to %d B apart still find their second line in %s", lv->name, PAIR_SPAN,
		 lv->name);
	return -1;
}

/* Any cost past `beyond` of a pair within one line above is a
 * disturbance, not only one past the midpoint to the level below: on
 * this project's PVM Zen 5 guest votes of 32 B for a 64 B L3 line under
 * a 64 B L2 line came from pairs 64 B apart that cost more than the L3
 * hit plus a quarter of the gap (2 of 5 votes cast in one default run
 * of ten; on a Zen 4 guest, under load, 3 of 8 votes read 16 B). */
int amp_pair_missed(uint64_t d, uint64_t above_line, double second, double beyond)
{
	if (second <= beyond)
		return 0;
	return above_line && d <= above_line ? -1 : 1;
}

static int pairs_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		      char *err, size_t len)
{
	struct pairs pr = { .c = c, .v = v, .h1 = amp_level_top(lv)->hit_ticks };
	double own;
	int rc = -1;

	pr.size = pair_buffer(c, lv, &pr.flushed);
	if (pair_plan(c, pr.size, pr.flushed, PAIR_SPAN - 8, PAIR_SPAN - 16, v, &pr.base, &own, err, len) < 0)
		return -1;
	if (c->host->sim || (amp_arena_open(&pr.arena[0], pr.size, 1, err, len) == 0 &&
			     amp_arena_open(&pr.arena[1], pr.size, 1, err, len) == 0)) {
		if (pr.arena[0].base)
			pr.base.arena = &pr.arena[0];
		rc = pairs_walk(&pr, lv, value, err, len);
	}
	amp_arena_close(&pr.arena[0]);
	amp_arena_close(&pr.arena[1]);
	amp_plan_free(&pr.base);
	return rc;
}

/* ---- below L2: page-offset classes ----
 *
 * Where the set number's low bits are the page offset's (whatever bits
 * pick the slice), the lines at one page offset o of many pages (a
 * class) are all that can share a set with a target at o: enough of
 * them overflow the target's set here (an index that hashes the bits
 * above the page into those bits defeats this: CLASS_SIZE_SHARE).  A test loads the
 * target, walks flush lines (o in other pages: enough to push it out of
 * the levels above, too few to fill its set here), then the class moved
 * by b, and times one reload of the target: this level's hit, or the
 * level below's when the class evicted it.  While b is inside this
 * level's line the class keeps its sets; from the next line on it
 * spares the target, so the smallest such b is the line.  Prefetchers
 * that fill levels above do not move this edge (they defeat access
 * pairs on this project's Zen 5 guest: second accesses 128 and 256 B
 * away cost an L3 hit there).  One that fills neighbouring lines into
 * this level does: its fills join the class unmoved, so the edge can
 * only grow.  An edge at the line above is therefore the line; a
 * larger one must be confirmed by access pairs, which prefetchers can
 * only push up too: pairs that read the line above outweigh it. */
#define CLASS_PASSES 2
#define CLASS_REPS 5            /* the hit and the miss below differ by far more than its noise */
#define CLASS_TARGETS 8         /* pages: one target a vote */
#define CLASS_POOL_FACTOR 4     /* first class: this many times the level's (effective) size */
#define CLASS_POOL_MAX 131072   /* pages (512 MiB of 4 KiB pages; within --max-memory) */
#define FLUSH_MAX 16384         /* pages */
#define CLASS_GROWTHS 6
/* A class whose lines would fill this share of the level's effective
 * size no longer tests sets: it evicts by size, as any class does where
 * the index hashes the bits above the page into the set number (the Zen
 * 4 guest's L3: the class half a page away evicted alike from 65536
 * pages on, 4 of its 5 MiB).  A class that shares the target's sets
 * needs about twice the level's size / page lines, 1/32 of it in bytes. */
#define CLASS_SIZE_SHARE 2      /* at most 1/2 */
#define NOT_BY_SET (-2)         /* class_calibrate: classes do not isolate sets here */

/* One level's classes: target pages, then flush pages, then the pool's,
 * `spacing` apart, in random orders (address order trains prefetchers). */
struct classes {
	struct amp_arena arena;
	uint64_t spacing, region;
	uint64_t nflush, npool, maxflush, maxpool; /* pages */
	uint64_t maxclass; /* pages: maxpool, or fewer by CLASS_SIZE_SHARE */
	uint64_t *flush, *pool, *list;             /* page numbers; a test's lines */
};
static _Thread_local struct classes cls;

static void classes_close(void)
{
	amp_arena_close(&cls.arena);
	free(cls.flush);
	free(cls.pool);
	free(cls.list);
	memset(&cls, 0, sizeof cls);
}

/* bytes in pages, at least lo, at most hi (which wins). */
static uint64_t pages_of(uint64_t bytes, uint64_t page, uint64_t lo, uint64_t hi)
{
	uint64_t n = bytes / page;

	if (n < lo)
		n = lo;
	return n > hi ? hi : n;
}

static int classes_open(struct amp_ctx *c, const struct amp_level *lv, char *err, size_t len)
{
	const struct amp_level *up = lv->above, *top = amp_level_top(lv);
	uint64_t above = up->size.known ? (uint64_t)up->size.value : (uint64_t)up->effective_size.value;
	uint64_t own = lv->effective_size.known ? (uint64_t)lv->effective_size.value : 16 * above;
	uint64_t l1ways = top->assoc.known ? (uint64_t)top->assoc.value : 16, budget;
	struct amp_rng r;

	classes_close();
	cls.spacing = c->page;
	if (top->way.known && (uint64_t)top->way.value > cls.spacing)
		cls.spacing = (uint64_t)top->way.value;
	cls.maxflush = FLUSH_MAX;
	cls.maxpool = CLASS_POOL_MAX;
	/* At most half of --max-memory. */
	budget = amp_memory_limit() / 2 / cls.spacing;
	if (budget < CLASS_TARGETS + 2 * (l1ways + 2)) {
		snprintf(err, len, "%s: --max-memory leaves too little for its page-offset classes", lv->name);
		return -1;
	}
	if (cls.maxflush + cls.maxpool + CLASS_TARGETS > budget) {
		cls.maxflush = (budget - CLASS_TARGETS) / 5;
		cls.maxpool = budget - CLASS_TARGETS - cls.maxflush;
	}
	cls.maxclass = own / CLASS_SIZE_SHARE / amp_nearest_line_or_64(up);
	if (cls.maxclass > cls.maxpool)
		cls.maxclass = cls.maxpool;
	cls.npool = pages_of(CLASS_POOL_FACTOR * own, c->page, 4 * above / c->page, cls.maxclass);
	cls.region = (CLASS_TARGETS + cls.maxflush + cls.maxpool) * cls.spacing;
	cls.flush = malloc(cls.maxflush * sizeof *cls.flush);
	cls.pool = malloc(cls.maxpool * sizeof *cls.pool);
	cls.list = malloc((cls.maxflush + cls.maxpool) * sizeof *cls.list);
	if (!cls.flush || !cls.pool || !cls.list) {
		classes_close();
		snprintf(err, len, "out of memory");
		return -1;
	}
	if (amp_arena_open(&cls.arena, cls.region, 0, err, len) < 0) {
		classes_close();
		return -1;
	}
	for (uint64_t i = 0; i < cls.maxflush; i++)
		cls.flush[i] = CLASS_TARGETS + i;
	for (uint64_t i = 0; i < cls.maxpool; i++)
		cls.pool[i] = CLASS_TARGETS + cls.maxflush + i;
	amp_rng_seed(&r, c->seed ^ 0x636c617373657300ULL);
	amp_shuffle(cls.flush, (size_t)cls.maxflush, &r);
	amp_shuffle(cls.pool, (size_t)cls.maxpool, &r);
	return 0;
}

/* The target's reload after `nflush` flush lines at o and, where
 * b >= 0, the pool's class moved by b. */
static int class_reload(struct amp_ctx *c, uint64_t target, uint64_t o, uint64_t nflush, int64_t b,
			double *ticks, char *err, size_t len)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < nflush; i++)
		cls.list[n++] = cls.flush[i] * cls.spacing + o;
	for (uint64_t i = 0; b >= 0 && i < cls.npool; i++)
		cls.list[n++] = cls.pool[i] * cls.spacing + (o + (uint64_t)b) % cls.spacing;
	return amp_timing_reload(c, &cls.arena, cls.region, target, target ^ (c->page / 2), cls.list, n,
				 CLASS_PASSES, CLASS_REPS, ticks, err, len);
}

/* A second look at the calibration's class and the class half a page
 * away: a walk of a few milliseconds over a level shared with other
 * tenants loses the target now and then (the Zen 4 guest's L3: 1 reload
 * in 7 after 8192 pages that spare it otherwise), which once passes
 * for the class's own eviction. */
static int class_repeats(struct amp_ctx *c, const struct amp_level *lv, uint64_t target, uint64_t o, double miss,
			 double far, double threshold, char *err, size_t len)
{
	double miss2, far2;

	if (class_reload(c, target, o, cls.nflush, 0, &miss2, err, len) < 0 ||
	    class_reload(c, target, o, cls.nflush, (int64_t)(cls.spacing / 2), &far2, err, len) < 0)
		return -1;
	if (miss2 > threshold && far2 <= threshold)
		return 0;
	snprintf(err, len, "%s: its page-offset class of %llu pages and the class half a page away cost its target %.1f and %.1f ticks, then %.1f and %.1f (threshold %.1f): the eviction is not by set",
		 lv->name, (unsigned long long)cls.npool, miss, far, miss2, far2, threshold);
	return NOT_BY_SET;
}

/* Flush and class sizes at which the target, flushed, still hits here
 * (its reload above the one after L1's ways alone, which leave it in
 * the level above) and the class evicts it: the threshold between.
 * NOT_BY_SET where the class evicts the target only as any walk of its
 * size would (see CLASS_SIZE_SHARE), or not twice in a row. */
static int class_calibrate(struct amp_ctx *c, const struct amp_level *lv, uint64_t target, uint64_t o,
			   double *threshold, char *err, size_t len)
{
	const struct amp_level *top = amp_level_top(lv);
	uint64_t few = (top->assoc.known ? (uint64_t)top->assoc.value : 16) + 2;
	double step = lv->hit_ticks - lv->above->hit_ticks, gap = lv->next_ticks - lv->hit_ticks;
	double above, hit = 0, miss = 0;
	int fresh = 0; /* hit was just timed by the flush search */

	if (class_reload(c, target, o, few, -1, &above, err, len) < 0)
		return -1;
	/* The fewest flush lines that push the target out of the level
	 * above: more would fill its set here too (an L3 only a few times
	 * L2's size).  Kept for the votes after. */
	if (!cls.nflush)
		for (cls.nflush = 2 * few;; cls.nflush *= 2) {
			if (class_reload(c, target, o, cls.nflush, -1, &hit, err, len) < 0)
				return -1;
			if ((fresh = hit - above >= step / 2))
				break;
			if (2 * cls.nflush > cls.maxflush) {
				snprintf(err, len, "%s: %llu flush lines at its page offset leave the target in %s (reload %.1f ticks, %.1f after L1's ways)",
					 lv->name, (unsigned long long)cls.nflush, lv->above->name, hit, above);
				return -1;
			}
		}
	for (int k = 0; k < CLASS_GROWTHS; k++, fresh = 0) {
		if (!fresh && class_reload(c, target, o, cls.nflush, -1, &hit, err, len) < 0)
			return -1;
		if (hit - above < step / 2) {
			/* Still in the level above: more flush lines. */
			if (2 * cls.nflush > cls.maxflush)
				break;
			cls.nflush *= 2;
			continue;
		}
		if (class_reload(c, target, o, cls.nflush, 0, &miss, err, len) < 0)
			return -1;
		amp_trace_point(lv, "timing", "class_pages", "pages of the class walked (0: flush lines only)", 0,
				"reload_ticks", "ticks of the target's reload", hit, 0);
		amp_trace_point(lv, "timing", "class_pages", "pages of the class walked (0: flush lines only)",
				(double)cls.npool, "reload_ticks", "ticks of the target's reload", miss, 0);
		if (miss - hit >= gap / 2) {
			double far;

			/* The class half a page away: what the walk costs the
			 * target without sharing its sets (lines prefetched
			 * with the class's, other tenants of a shared level
			 * while it runs). */
			if (class_reload(c, target, o, cls.nflush, (int64_t)(cls.spacing / 2), &far, err, len) < 0)
				return -1;
			amp_trace_point(lv, "timing", "offset_bytes", "offset of the moved class (bytes)",
					(double)(cls.spacing / 2), "reload_ticks", "ticks of the target's reload", far, 0);
			if (amp_class_threshold(hit, miss, far, gap, threshold) < 0) {
				snprintf(err, len, "%s: its page-offset class half a page away costs its target %.1f ticks, near its own class's %.1f (bare hit %.1f): it evicts by size, not by set",
					 lv->name, far, miss, hit);
				return NOT_BY_SET;
			}
			return class_repeats(c, lv, target, o, miss, far, *threshold, err, len);
		}
		/* The class does not overflow the target's set: a bigger one. */
		if (2 * cls.npool > cls.maxclass)
			break;
		cls.npool *= 2;
	}
	snprintf(err, len, "%s: no page-offset class up to %llu pages evicts a target flushed by %llu lines (reloads: %.1f ticks after L1's ways, %.1f flushed, %.1f after the class; hit and miss differ by %.1f)",
		 lv->name, (unsigned long long)cls.npool, (unsigned long long)cls.nflush, above, hit, miss, gap);
	/* Unless --max-memory stopped it, a class this big that spares the
	 * target is not sharing its sets (CLASS_SIZE_SHARE). */
	return 2 * cls.npool > cls.maxpool ? -1 : NOT_BY_SET;
}

/* Access pairs where the classes evict by size; a vote that fails too
 * gives the pairs' reason (the classes' is one of class_calibrate's
 * NOT_BY_SET cases). */
static int class_fallback(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value, char *err,
			  size_t len)
{
	char pairs[AMP_REASON_LEN];

	if (pairs_vote(c, lv, v, value, pairs, sizeof pairs) == 0)
		return 0;
	snprintf(err, len, "%s (page-offset classes evict by size)", pairs);
	return -1;
}

static int class_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value, char *err,
		      size_t len)
{
	/* A multiple of 512 B, so b up to 256 stays inside any line up to 512. */
	uint64_t slots = c->page / 512 > 1 ? c->page / 512 - 1 : 1;
	uint64_t o = 512 * (1 + v % slots), target = (v % CLASS_TARGETS) * cls.spacing + o;
	uint64_t above_line = amp_nearest_line(lv->above);
	double threshold, t;

	if (o + 256 >= c->page) {
		snprintf(err, len, "%s: pages of %llu B are too small for page-offset classes", lv->name,
			 (unsigned long long)c->page);
		return -1;
	}
	switch (class_calibrate(c, lv, target, o, &threshold, err, len)) {
	case 0:
		break;
	case NOT_BY_SET:
		/* Its sets are not split by page offset: access pairs, the
		 * method of levels without classes, say what they can. */
		return class_fallback(c, lv, v, value, err, len);
	default:
		return -1;
	}
	for (uint64_t b = above_line ? above_line : 8; b <= 256; b *= 2) {
		if (class_reload(c, target, o, cls.nflush, (int64_t)b, &t, err, len) < 0)
			return -1;
		amp_trace_point(lv, "timing", "offset_bytes", "offset of the moved class (bytes)", (double)b,
				"reload_ticks", "ticks of the target's reload", t, 0);
		if (t > threshold)
			continue;
		*value = (int64_t)b;
		if (b > above_line && above_line) {
			/* A prefetcher filling neighbours here reads alike:
			 * access pairs decide (amp_class_line). */
			int64_t pairs;

			if (pairs_vote(c, lv, v, &pairs, err, len) < 0)
				return -1;
			if (amp_class_line((int64_t)b, pairs, (int64_t)above_line, value) < 0) {
				snprintf(err, len, "%s: page-offset classes read a line of %lld B, access pairs %lld B: a prefetcher that fills neighbouring lines here reads alike",
					 lv->name, (long long)b, (long long)pairs);
				return -1;
			}
		}
		return 0;
	}
	snprintf(err, len, "%s: its page-offset class moved by up to 256 B still evicts its target", lv->name);
	return -1;
}

/* Moved classes are judged against the class half a page away, not
 * the bare hit: a walk that evicts the target whatever its sets (on this
 * project's Zen 5 guest, some runs: classes of 8192 pages half a page
 * away cost a reload 182 to 224 ticks, their own class's 189 to 217,
 * the hit 63 to 84) would pass any moved class off as inside the line.
 * Where the two are less than a quarter of the gap apart, none. */
int amp_class_threshold(double hit, double miss, double far, double gap, double *threshold)
{
	if (far < hit)
		far = hit;
	if (miss - far < gap / 4)
		return -1;
	*threshold = (far + miss) / 2;
	return 0;
}

int amp_class_line(int64_t classes, int64_t pairs, int64_t above_line, int64_t *line)
{
	if (pairs != classes && pairs != above_line)
		return -1;
	*line = pairs;
	return 0;
}

/* L1 runs first (the eviction sets below size their pools by its
 * line), the levels below after their eviction sets. */
static int block_applies_l1(const struct amp_ctx *c, const struct amp_level *lv)
{
	return lv->method == AMP_METHOD_TIMING && lv->level == 1;
}

static int block_applies_below(const struct amp_ctx *c, const struct amp_level *lv)
{
	/* By timing, eviction tests may have found it (mod_evset.c). */
	return lv->method == AMP_METHOD_TIMING && lv->level > 1 && !amp_param_conclusive(&lv->line);
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

/* Classes: below L2 (whose eviction sets give its line), under a level
 * whose size is known (its effective size will do), with the sweep's
 * latencies to judge by.  The moves start at the nearest line known
 * above (L1's where L2's eviction sets failed). */
static int class_applies(const struct amp_ctx *c, const struct amp_level *lv)
{
	const struct amp_level *up = lv->above;

	return lv->level > 2 && up && (up->size.known || up->effective_size.known) &&
	       lv->hit_ticks > up->hit_ticks && lv->next_ticks > lv->hit_ticks && c->page >= 1024;
}

/* L1's line by moving half a set; on the data side a round whose votes
 * were too few once those that saw a busy spell failed is measured
 * again after a pause (as mod_assoc.c's rounds of the ways are), and
 * those set aside count as failed. */
static void l1_line_run(struct amp_ctx *c, struct amp_level *lv)
{
	char first[AMP_REASON_LEN] = "";
	unsigned discarded = 0;
	uint64_t spent = 0;

	spell_votes = 0;
	amp_vote(c, lv, block_vote, &lv->line);
	for (unsigned tries = 0; spell_votes && !amp_param_conclusive(&lv->line) && tries < AMP_SPELL_TRIES;
	     tries++) {
		if (!first[0])
			snprintf(first, sizeof first, "%s", lv->line.reason);
		discarded += (unsigned)lv->line.nvotes + lv->line.failed;
		spent += lv->line.accesses;
		amp_spell_pause(c);
		spell_votes = 0;
		amp_vote(c, lv, block_vote, &lv->line);
	}
	if (discarded && amp_param_conclusive(&lv->line))
		amp_param_set_aside(&lv->line, discarded, spent, first);
}

static int block_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	uint64_t set[AMP_MAX_CONG], region;

	if (amp_param_conclusive(&lv->assoc) && lv->way.known && class_of(lv, 0, set, &region))
		l1_line_run(c, lv);
	else if (lv->side == AMP_SIDE_INSN)
		amp_param_unknown(&lv->line, "needs the associativity and way size first (access pairs are loads)");
	else if (class_applies(c, lv)) {
		char why[AMP_REASON_LEN];

		if (classes_open(c, lv, why, sizeof why) < 0)
			amp_param_unknown(&lv->line, "%s", why);
		else
			amp_vote(c, lv, class_vote, &lv->line);
		classes_close();
	} else
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
	.summary = "timing: line size below L2 by page-offset classes, elsewhere by access pairs (BlackjackBench) where eviction tests gave none",
	.kinds = 1u << AMP_KIND_CACHE,
	.fills = { AMP_FILLS(line) },
	.applies = block_applies_below,
	.supported = block_supported,
	.run = block_run,
};
