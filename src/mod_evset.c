/* mod_evset.c - associativity, way size and capacity of a physically
 * indexed level by eviction sets (X-Ray 4.5.2's problem, solved by group
 * testing as in the eviction-set literature).  The timing path uses it
 * below L1 always; the counter path where virtual strides failed to
 * predict the sets (mod_assoc.c's mapping check: scattered frames).
 *
 * Virtual strides say nothing about sets once page frames are scattered
 * (a guest's "physical" pages are scattered again by the host).  So:
 *  - a pool of lines, one per page at the same page offset, pages W_1
 *    apart (W_1: the way size of L1, at least a page), so every pool
 *    line falls in one L1 set and misses there;
 *  - the pool grows until walking it thrashes this level: some set of
 *    it holds more lines than it has ways;
 *  - group testing shrinks it: split into groups, drop any group whose
 *    removal still thrashes; with groups of one line and none droppable
 *    the set is minimal: ways + 1 lines of one set;
 *  - every other pool line is then tested against ways lines of that
 *    set: the share that joins it is 1 / (page colours), so the way size
 *    is the page times the nearest power of two of 1 / share (or, when
 *    every page joins it, a stride within the page).  With counters the
 *    candidates are tested in groups of up to `ways` lines (so no other
 *    set can overflow), a group that thrashes is split to count its
 *    joiners, and sampling goes on until enough have joined for the
 *    power of two to be clear;
 *  - capacity = ways x way size.
 * The class found (the set and the pool lines that joined it) is kept
 * for the block-size test (mod_block.c). */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure.h"
#include "timing.h"
#include "util.h"

#define POOL_MIN 16
/* Misses per walk that mark a walk as thrashing: an over-full LRU set
 * misses all its lines, at least ways + 1 of them. */
#define MIN_MISSES_PER_WALK 2.5
/* Pool lines tested for the way size (more: a finer share). */
#define CLASS_SAMPLE 1024
/* Counters: the pool may grow this far (no L1 reference to fit). */
#define POOL_MAX_COUNTERS 16384
/* Counters: joiners that make the share's power of two clear (the
 * relative error of the share is about 1/sqrt of this), and the most
 * candidates tested for them. */
#define JOINERS_WANTED 64
#define CANDIDATES_MAX 65536
/* Counters: misses per walk that mark a walk as thrashing.  A walk that
 * fits misses nothing once primed (the minimum over repetitions drops
 * interference); a random-replacement set overflowed by one line misses
 * about twice a walk, but with some walks' worth of spread. */
#define MIN_MISSES_PER_WALK_COUNTED 0.25

/* One vote's eviction set, kept from the ways vote for the way vote. */
struct evset {
	uint64_t *pool, npool; /* pool line offsets */
	uint64_t set[AMP_MAX_CONG + 1];
	uint64_t nset;
	uint64_t cls[AMP_MAX_CONG];  /* the set's lines, then pool lines that joined it */
	uint64_t ncls;
	uint64_t spacing;      /* between pool pages */
	uint64_t region;
	int above_adds;        /* every page joined, yet other pages fit */
};
static _Thread_local struct evset found[AMP_MAX_VOTES];

static uint64_t pool_spacing(const struct amp_ctx *c, const struct amp_level *lv)
{
	uint64_t s = c->page;

	for (const struct amp_level *a = lv->above; a; a = a->above)
		if (a->level == 1 && a->way.known && (uint64_t)a->way.value > s)
			s = (uint64_t)a->way.value;
	return s;
}

/* Largest pool whose reference walk still fits L1 (timing.c's reference
 * keeps every line in L1 to cancel translation costs). */
static uint64_t pool_max(const struct amp_ctx *c, const struct amp_level *lv)
{
	const struct amp_level *top = amp_level_top(lv);
	uint64_t unit = top->line.known ? (uint64_t)top->line.value : 64, lines;

	if (lv->method == AMP_METHOD_COUNTERS)
		return POOL_MAX_COUNTERS;
	if (!top->size.known || !top->assoc.known)
		return 256;
	lines = (uint64_t)top->size.value / unit;
	/* The reference keeps each line in its page: page/line sets. */
	if (lines > c->page / unit * (uint64_t)top->assoc.value)
		lines = c->page / unit * (uint64_t)top->assoc.value;
	return lines < 16384 ? lines : 16384;
}

static double thrash_threshold(const struct amp_level *lv)
{
	double t = MIN_MISSES_PER_WALK;

	if (lv->method == AMP_METHOD_COUNTERS)
		return MIN_MISSES_PER_WALK_COUNTED;
	if (lv->above && lv->above->assoc.known && (lv->above->assoc.value + 1) / 2.0 > t)
		t = (double)(lv->above->assoc.value + 1) / 2.0;
	return t;
}

/* The lines of the last counted walk.  Each walk first flushes them:
 * under random replacement a set left holding a line the walk dropped
 * keeps missing for about `ways` more misses, which would read as a
 * thrash of a set that fits (group testing then keeps a set too big). */
static _Thread_local uint64_t *walked;
static _Thread_local uint64_t nwalked;

static int thrashes(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off, uint64_t n,
		    uint64_t region, int *yes, char *err, size_t len)
{
	double rate;
	uint64_t *keep;

	if (amp_offsets_rate_flushed(c, lv, off, n, walked, nwalked, region, &rate, err, len) < 0)
		return -1;
	*yes = rate * (double)n >= thrash_threshold(lv);
	if (lv->method == AMP_METHOD_COUNTERS && (keep = realloc(walked, n * sizeof *keep))) {
		memcpy(keep, off, n * sizeof *keep);
		walked = keep;
		nwalked = n;
	}
	return 0;
}

/* Group testing: s[0..*n-1] thrashes; drop every group it can spare. */
static int reduce(struct amp_ctx *c, const struct amp_level *lv, uint64_t *s, uint64_t *n,
		  uint64_t region, char *err, size_t len)
{
	uint64_t groups = lv->above && lv->above->assoc.known ? (uint64_t)lv->above->assoc.value + 2 : 4;
	uint64_t *rest = malloc(*n * sizeof *rest);

	if (!rest) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	while (*n > 1) {
		uint64_t g = groups < *n ? groups : *n, dropped = 0;

		for (uint64_t k = g; k-- > 0;) {
			uint64_t lo = *n * k / g, hi = *n * (k + 1) / g, m = 0;
			int yes;

			for (uint64_t i = 0; i < *n; i++)
				if (i < lo || i >= hi)
					rest[m++] = s[i];
			if (thrashes(c, lv, rest, m, region, &yes, err, len) < 0) {
				free(rest);
				return -1;
			}
			if (yes) {
				memcpy(s, rest, m * sizeof *s);
				*n = m;
				dropped = 1;
				break;
			}
		}
		if (!dropped) {
			if (g >= *n)
				break; /* no single line can go: minimal */
			groups = 2 * g;
		}
	}
	free(rest);
	return 0;
}

/* Whether the set thrashes in shuffled orders too.  Ways + 1 lines of
 * one set overflow it in any order; a set that the level above helps
 * hold (its victims come here) can need lines of other sets walked in a
 * row, and then a shuffle fits. */
static int any_order_thrashes(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e,
			      unsigned v, int *yes, char *err, size_t len)
{
	uint64_t t[AMP_MAX_CONG + 1];
	struct amp_rng r;

	amp_rng_seed(&r, c->seed ^ 0x6f72646572ULL ^ v);
	*yes = 1;
	for (int k = 0; k < 2 && *yes; k++) {
		memcpy(t, e->set, e->nset * sizeof *t);
		amp_shuffle(t, (size_t)e->nset, &r);
		if (thrashes(c, lv, t, e->nset, e->region, yes, err, len) < 0)
			return -1;
	}
	return 0;
}

static int ways_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		     char *err, size_t len)
{
	struct evset *e = &found[v % AMP_MAX_VOTES];
	uint64_t spacing = pool_spacing(c, lv), max = pool_max(c, lv);
	/* Each vote a different offset in the page: a different set. */
	uint64_t off = (uint64_t)(v * 5 % (c->page / 64 > 8 ? c->page / 64 - 8 : 1)) * 64;
	uint64_t n = POOL_MIN, *s;
	int yes = 0;

	free(e->pool);
	memset(e, 0, sizeof *e);
	e->spacing = spacing;
	e->npool = max > CLASS_SAMPLE ? max : CLASS_SAMPLE;
	e->region = e->npool * spacing;
	e->pool = malloc(e->npool * sizeof *e->pool);
	s = malloc(e->npool * sizeof *s);
	if (!e->pool || !s) {
		free(s);
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (uint64_t i = 0; i < e->npool; i++)
		e->pool[i] = i * spacing + off;
	/* Doubling, and the largest pool last (a level may need more lines
	 * than the power of two below it, yet fewer than the one above). */
	for (;; n = n < max && 2 * n > max ? max : 2 * n) {
		if (n > max) {
			free(s);
			snprintf(err, len,
				 "%s: no pool of up to %llu lines, one per page at one page offset, thrashes it (its sets may hash more address bits than the page colour%s)",
				 lv->name, (unsigned long long)max,
				 lv->method == AMP_METHOD_TIMING ? "; a bigger pool would not fit L1, which the timing reference needs" : "");
			return -1;
		}
		if (thrashes(c, lv, e->pool, n, e->region, &yes, err, len) < 0) {
			free(s);
			return -1;
		}
		if (yes)
			break;
	}
	memcpy(s, e->pool, n * sizeof *s);
	if (reduce(c, lv, s, &n, e->region, err, len) < 0) {
		free(s);
		return -1;
	}
	if (n < 2 || n > AMP_MAX_CONG) {
		free(s);
		snprintf(err, len, "%s: group testing ended with %llu lines", lv->name, (unsigned long long)n);
		return -1;
	}
	memcpy(e->set, s, n * sizeof *s);
	e->nset = n;
	free(s);
	if (any_order_thrashes(c, lv, e, v, &yes, err, len) < 0)
		return -1;
	if (!yes) {
		e->above_adds = 1;
		snprintf(err, len, "%s: its %llu-line set thrashes in one order and fits in another: lines of other sets take part through the level above, which passes its victims here (exclusive?)",
			 lv->name, (unsigned long long)n);
		return -1;
	}
	*value = (int64_t)n - 1;
	return 0;
}

/* Whether line x joins the set: ways lines of it plus x thrash. */
static int joins(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, uint64_t x,
		 int *yes, char *err, size_t len)
{
	uint64_t t[AMP_MAX_CONG + 1];

	memcpy(t, e->set + 1, (e->nset - 1) * sizeof *t);
	t[e->nset - 1] = x;
	return thrashes(c, lv, t, e->nset, e->region, yes, err, len);
}

static int in_set(const struct evset *e, uint64_t x)
{
	for (uint64_t i = 0; i < e->nset; i++)
		if (e->set[i] == x)
			return 1;
	return 0;
}

/* Counters: how many of g[0..k-1] (k <= ways) join the set, added to
 * *joined (joiners into the class): ways lines of the set plus the group
 * thrash iff one of them joins (the group alone, at most `ways` lines,
 * cannot overflow any other set); a group that does is halved. */
static int count_joiners(struct amp_ctx *c, const struct amp_level *lv, struct evset *e,
			 const uint64_t *g, uint64_t k, uint64_t *joined, char *err, size_t len)
{
	uint64_t t[2 * AMP_MAX_CONG], region = 0;
	int yes;

	memcpy(t, e->set + 1, (e->nset - 1) * sizeof *t);
	memcpy(t + e->nset - 1, g, k * sizeof *g);
	for (uint64_t i = 0; i < e->nset - 1 + k; i++)
		if (t[i] + 64 > region)
			region = t[i] + 64;
	if (thrashes(c, lv, t, e->nset - 1 + k, region, &yes, err, len) < 0)
		return -1;
	if (!yes)
		return 0;
	if (k == 1) {
		++*joined;
		if (e->ncls < AMP_MAX_CONG)
			e->cls[e->ncls++] = g[0];
		return 0;
	}
	if (count_joiners(c, lv, e, g, k / 2, joined, err, len) < 0)
		return -1;
	return count_joiners(c, lv, e, g + k / 2, k - k / 2, joined, err, len);
}

/* Counters: candidates are pages past the pool (each vote its own,
 * interleaved), tested a group at a time until JOINERS_WANTED joined. */
static int counted_share(struct amp_ctx *c, const struct amp_level *lv, struct evset *e, unsigned v,
			 uint64_t *tested, uint64_t *joined, char *err, size_t len)
{
	uint64_t k = e->nset - 1, g[AMP_MAX_CONG], off = e->set[0] % e->spacing;
	uint64_t first = e->npool, nv = c->votes ? c->votes : 1;

	while (*joined < JOINERS_WANTED && *tested < CANDIDATES_MAX) {
		for (uint64_t i = 0; i < k; i++)
			g[i] = (first + (*tested + i) * nv + v % nv) * e->spacing + off;
		if (count_joiners(c, lv, e, g, k, joined, err, len) < 0)
			return -1;
		*tested += k;
	}
	return 0;
}

/* Whether nset pool lines none of which is in the set, from the far
 * end of the pool, fit (walked without thrashing). */
static int sample_fits(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e,
		       int *fits, char *err, size_t len)
{
	uint64_t t[AMP_MAX_CONG + 1], k = 0;
	int yes;

	for (uint64_t i = e->npool; i-- > 0 && k < e->nset;)
		if (!in_set(e, e->pool[i]))
			t[k++] = e->pool[i];
	*fits = 0;
	if (k < e->nset)
		return 0; /* the pool is the set: nothing else to try */
	if (thrashes(c, lv, t, k, e->region, &yes, err, len) < 0)
		return -1;
	*fits = !yes;
	return 0;
}

static int way_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		    char *err, size_t len)
{
	struct evset *e = &found[v % AMP_MAX_VOTES];
	uint64_t tested = 0, joined = 0, sample = e->npool < CLASS_SAMPLE ? e->npool : CLASS_SAMPLE;
	double share, colours;
	int yes;

	if (!e->nset) {
		snprintf(err, len, "%s: no eviction set from the associativity vote", lv->name);
		return -1;
	}
	memcpy(e->cls, e->set, e->nset * sizeof *e->set);
	e->ncls = e->nset;
	if (lv->method == AMP_METHOD_COUNTERS) {
		if (counted_share(c, lv, e, v, &tested, &joined, err, len) < 0)
			return -1;
		sample = 0;
	}
	for (uint64_t i = 0; i < sample; i++) {
		/* The set's own lines are of its colour too: leaving them out
		 * of both counts would bias the share low (a 20-way set in a
		 * pool with 64 joiners read 43 of 1003, one colour in 32). */
		if (in_set(e, e->pool[i])) {
			tested++;
			joined++;
			continue;
		}
		if (joins(c, lv, e, e->pool[i], &yes, err, len) < 0)
			return -1;
		tested++;
		joined += yes;
		if (yes && e->ncls < AMP_MAX_CONG)
			e->cls[e->ncls++] = e->pool[i];
	}
	share = (double)(joined + 1) / (double)(tested + 1);
	colours = pow(2.0, round(log2(1.0 / share)));
	if (colours >= 2) {
		/* Frames are pages: a colour is a page, whatever the spacing. */
		*value = (int64_t)(colours * (double)c->page);
		return 0;
	}
	/* Every page joins: then any ways + 1 pool lines share one set and
	 * thrash.  Where they fit, the joiners only pushed the set's lines
	 * out of the level above, which passes its victims here (an
	 * exclusive pair, seen as one: its ways are the sum). */
	if (sample_fits(c, lv, e, &yes, err, len) < 0)
		return -1;
	if (yes) {
		e->above_adds = 1;
		snprintf(err, len, "%s: every page joined its set, yet %llu lines of other pages fit: the level above passes its victims here (exclusive?), so the set's %llu lines are both levels' ways",
			 lv->name, (unsigned long long)e->nset, (unsigned long long)e->nset - 1);
		return -1;
	}
	/* Every page joins: the way is at most the spacing; the smallest
	 * power-of-two step within it that still joins is the way. */
	for (uint64_t step = 64; step < e->spacing; step *= 2) {
		uint64_t x = e->set[0] + step;

		if (x / e->spacing != e->set[0] / e->spacing)
			break;
		if (joins(c, lv, e, x, &yes, err, len) < 0)
			return -1;
		if (yes) {
			*value = (int64_t)step;
			return 0;
		}
	}
	*value = (int64_t)e->spacing;
	return 0;
}

/* Below L1: physically indexed levels; by timing always, with counters
 * where strides failed (mod_assoc.c). */
static int evset_applies(const struct amp_ctx *c, const struct amp_level *lv)
{
	return lv->level >= 2 && (lv->method == AMP_METHOD_TIMING || lv->sets_by_experiment);
}

static void forget_sets(void)
{
	free(walked);
	walked = NULL;
	nwalked = 0;
	for (int v = 0; v < AMP_MAX_VOTES; v++) {
		free(found[v].pool);
		memset(&found[v], 0, sizeof found[v]);
	}
}

static int evset_supported(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len)
{
	const struct amp_level *up = lv->above;

	if (lv->level > 2 && lv->method == AMP_METHOD_TIMING) {
		snprintf(why, len, "eviction sets below L2 are not built in this version (the pool would first have to miss L2, from its own classes)");
		return 0;
	}
	if (lv->method == AMP_METHOD_TIMING && up && up->way.known && (uint64_t)up->way.value > c->page) {
		snprintf(why, len, "the way of %s above it spans more than a page, which this version's eviction-set pool does not handle",
			 up->name);
		return 0;
	}
	if (!up || !up->way.known || !up->assoc.known || !up->size.known) {
		snprintf(why, len, "needs the geometry of %s above it first", up ? up->name : "the level");
		return 0;
	}
	return 1;
}

/* This level's hit latency as the pools see it: a few pool lines more
 * than L1 has ways miss L1 and fit here (the sweep's plateau averages
 * in L1 hits when lines are longer than its 64 B step). */
static int calibrate_hit(struct amp_ctx *c, struct amp_level *lv)
{
	const struct amp_level *up = lv->above;
	uint64_t n = (uint64_t)up->assoc.value + 2, spacing = pool_spacing(c, lv), off[AMP_MAX_CONG];
	char err[AMP_REASON_LEN];
	double excess;

	if (n > AMP_MAX_CONG)
		return 0;
	for (uint64_t i = 0; i < n; i++)
		off[i] = i * spacing + 64;
	if (amp_timing_excess(c, lv, off, n, n * spacing, &excess, err, sizeof err) < 0)
		return -1;
	if (up->hit_ticks + excess < lv->next_ticks)
		lv->hit_ticks = up->hit_ticks + excess;
	return 0;
}

/* Whether `ways` found for lv may be a level above's: a set of ways + 1
 * lines that a level above could hold never reaches lv.  Counted misses
 * are lv's own, so only a level above with as many ways hides it; by
 * timing one way more may too (that level's own thrash looks alike). */
static int hidden_above(const struct amp_level *lv, int64_t ways)
{
	int64_t slack = lv->method == AMP_METHOD_TIMING ? 1 : 0;

	for (const struct amp_level *a = lv->above; a; a = a->above)
		if (a->assoc.known && ways <= a->assoc.value + slack)
			return 1;
	return 0;
}

/* Whether some vote's set held lines of other sets (the level above
 * passes its victims here). */
static int above_adds(const struct amp_ctx *c)
{
	for (unsigned v = 0; v < c->votes && v < AMP_MAX_VOTES; v++)
		if (found[v].above_adds)
			return 1;
	return 0;
}

/* No associativity (lv->assoc says why): way and size wait on it. */
static int without_ways(struct amp_level *lv)
{
	forget_sets();
	amp_param_unknown(&lv->way, "needs the associativity first");
	amp_param_unknown(&lv->size, "needs the associativity first");
	return 0;
}

static int evset_search(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	struct amp_param ways, way;
	const struct amp_level *up = lv->above;

	if (lv->method == AMP_METHOD_TIMING)
		calibrate_hit(c, lv);
	amp_vote(c, lv, ways_vote, &ways);
	if (above_adds(c)) {
		/* The level above adds its ways: no vote can be trusted. */
		lv->assoc = ways;
		amp_param_unknown(&lv->assoc, "%s", ways.reason[0] ? ways.reason : "the level above passes its victims here");
		return without_ways(lv);
	}
	if (!amp_param_conclusive(&ways)) {
		lv->assoc = ways;
		return without_ways(lv);
	}
	if (hidden_above(lv, ways.value)) {
		/* Its eviction sets fit a level above: what was found is
		 * that level's set, not this one's. */
		amp_param_unknown(&lv->assoc, "%s shows %s ways than %s above it (%lld): the level above may be what thrashed, so its sets are hidden from eviction sets",
				  lv->name, lv->method == AMP_METHOD_TIMING ? "at most one way more" : "no more",
				  up->name, (long long)ways.value);
		return without_ways(lv);
	}
	lv->assoc = ways;
	lv->thrash_ways = (int)ways.value;
	amp_vote(c, lv, way_vote, &way);
	lv->way = way;
	if (above_adds(c) && !amp_param_conclusive(&way)) {
		/* The set found is this level's and the one above's. */
		forget_sets();
		lv->thrash_ways = 0;
		amp_param_unknown(&lv->assoc, "%s", way.reason);
		amp_param_unknown(&lv->size, "needs the associativity first");
		return 0;
	}
	/* The class of the winning vote, for the block-size test. */
	lv->ncong = 0;
	for (unsigned v = 0; v < c->votes && v < AMP_MAX_VOTES; v++) {
		const struct evset *e = &found[v];

		if (e->nset == (uint64_t)ways.value + 1 && e->ncls > (uint64_t)lv->ncong) {
			memcpy(lv->cong, e->cls, e->ncls * sizeof *e->cls);
			lv->ncong = (int)e->ncls;
			lv->cong_region = e->region;
		}
	}
	forget_sets();
	if (!amp_param_conclusive(&way)) {
		amp_param_unknown(&lv->size, "needs the way size (%s)", way.reason);
		return 0;
	}
	amp_size_derived(lv, ways.value * way.value, &ways, &way);
	return 0;
}

/* Timed walks over the pool run on huge pages where the system grants
 * them: a pool line per 4 KiB page costs a walk of hundreds of pages
 * STLB lookups (5 ticks an access on this project's Zen 5 guest, a
 * fifth of the gap to L3) that a timed walk cannot tell from misses.
 * The sets still come from experiment: group testing needs no address
 * arithmetic, and a colour is a 4 KiB frame either way (see way_vote). */
static int evset_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	int rc;

	c->huge_walks = lv->method == AMP_METHOD_TIMING;
	rc = evset_search(c, lv, err, len);
	c->huge_walks = 0;
	return rc;
}

const struct amp_module amp_module_evset = {
	.name = "evset",
	.summary = "timing: associativity, way size and capacity of physically indexed levels by eviction sets",
	.kinds = 1u << AMP_KIND_CACHE,
	.fills = { AMP_FILLS(assoc), AMP_FILLS(way), AMP_FILLS(size) },
	.applies = evset_applies,
	.supported = evset_supported,
	.run = evset_run,
};
