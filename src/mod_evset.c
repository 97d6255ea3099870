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
 *  - capacity = ways x way size;
 *  - with counters, an L2 with no more ways than L1 (its minimal set
 *    is L1's: a walk that fits L1 never reaches L2) or an exclusive
 *    one (its sets hold L1's victims) is searched again with pushers,
 *    lines of L1's set out of the set, walked after it so its lines
 *    leave L1 (with_pushers); so is an L3 with no more ways than L2,
 *    with lines of its L2 set (found by L2's misses) as pushers.
 * By timing the tests are eviction tests of a target line instead of
 * walk times (target_ways_vote below): the minimal set is then `ways`
 * lines; the line (target_line_vote) and the way size (target_way_vote)
 * come from the same tests. */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure.h"
#include "timer.h"
#include "timing.h"
#include "trace.h"
#include "util.h"

extern const struct amp_module amp_module_replacement;
extern const struct amp_module amp_module_inclusion;

#define POOL_MIN 16
/* Misses per walk that mark a walk as thrashing: an over-full LRU set
 * misses all its lines, at least ways + 1 of them. */
#define MIN_MISSES_PER_WALK 2.5
/* Pool lines tested for the way size (more: a finer share). */
#define CLASS_SAMPLE 1024
/* Counters: the pool may grow this far (no L1 reference to fit), and
 * as many pages again past what the search walked hold the candidates
 * for the way size. */
#define POOL_MAX_COUNTERS 16384
/* Counters: joiners that make the share's power of two clear (the
 * relative error of the share is about 1/sqrt of this; the nearest
 * power of two is off at 41%).  With 64, a random 3 MiB L2's share read
 * 1/43 for 1/64 once in 6 votes on the simulated machine, whose frames
 * give that colour 1 page in 59. */
#define JOINERS_WANTED 128
/* Counters: misses per walk that mark a walk as thrashing.  A walk that
 * fits misses nothing once primed (the minimum over repetitions drops
 * interference); a random-replacement set overflowed by one line misses
 * about twice a walk, but with some walks' worth of spread. */
#define MIN_MISSES_PER_WALK_COUNTED 0.25

/* Timing: eviction tests (target reload).  A walk of many lines shows a
 * few misses among hundreds of hits only as a small share of its time
 * (on this project's Zen 5 guest, group testing by walk time stalled at
 * 150-470 lines); one reload of a target is a hit or a miss whatever the
 * set's size.  The pool is big enough to hold ways + 1 lines of the
 * target's set where the set index hashes bits above the page (1 line
 * in ~64 at one page offset joined on that guest's L2). */
#define TARGET_POOL 4096
#define VERIFY_REPS (3 * AMP_RELOAD_REPS)
/* Timing: group testing starts from the shortest prefix of a shuffled
 * pool, from this many lines doubling, that evicts the target. */
#define PREFIX_LINES 64
/* A false "evicts" drops a needed line; the search then steps back. */
#define MAX_BACKTRACKS 8
#define SEARCH_TRIES 4
/* Timing: random lines are sampled until this many joined a set (the
 * share's relative error is about 1/sqrt of it), or this many tested. */
#define JOINERS_TIMED 128
/* Timing: lone lines that evicted a target, tested again together
 * (confirm_joiners), each JOIN_RETESTS times. */
#define JOIN_BATCH 16
#define JOIN_RETESTS 3
#define CANDIDATES_TIMED (1u << 18)
/* Timing: an associativity with a smaller share of the votes gets as
 * many votes again, up to TIMED_VOTES_MAX in all. */
#define TIMED_SURE 0.75
#define TIMED_VOTES_MAX 32
/* Real machine: as many votes again start only where, as long again as
 * the votes so far, they would end within this long of the first.  In
 * noisy hours on this project's Zen 5 guest half the searches failed
 * and one `--level=L2` took 65 s (7 to 65 s in 12 runs; failed searches
 * took 50 of its seconds), past the 60 s the whole default run should
 * take. */
#define TIMED_MORE_VOTES_NS 15000000000ULL
#define FILL_TRIES 64
/* Counters: searches from the pool that thrashed again, where group
 * testing could drop nothing (that thrash was other data's). */
#define SEARCH_RETRIES 2
/* Counters, drop_pushers_in_set: a pusher whose leaving saves this many
 * misses a walk or more is in the set; one count that saves more than
 * none but under MISS_DROP_CLEAR is taken again, the mean of
 * MISS_DROP_MEASURES. */
#define MISS_DROP_IN_SET 0.5
#define MISS_DROP_CLEAR 1.5
#define MISS_DROP_MEASURES 8
/* Timing, real machine: the time eviction tests of one level's search
 * may wait for quiet (timing.c amp_timing_evicted).  In busy spells
 * (the quiet reference 10% over its fastest) the tests misread: on this
 * project's Zen 4 guest, on a busy day, "group testing lost the
 * target's set" in 22 of 32 votes of one run, and L2's ways were
 * inconclusive in 4 of 20 `--level=L2` runs; waiting, in 1 of 20. */
#define EVICT_QUIET_WAIT_NS 4000000000ULL
/* Timing: pool lines tested per pusher wanted (a level of two page
 * colours spares half of them). */
#define PUSHER_TRIES 8
/* Counters: lines tried per pusher still wanted where no window of
 * pages fits (fitting_pushers). */
#define GROW_TRIES 4
/* Counters: rounds of searching again once pushers turned out to lie
 * in the set (with_pushers). */
#define SORT_ROUNDS 3
/* Counters: lines tried for one out of the set the pushers left. */
#define OUTSIDER_TRIES 16

/* One vote's eviction set, kept from the ways vote for the way vote. */
struct evset {
	uint64_t *pool, npool; /* pool line offsets */
	uint64_t set[AMP_MAX_CONG + 1];
	uint64_t nset;
	uint64_t spacing;      /* between pool pages */
	uint64_t region;
	int above_adds;        /* every page joined, yet other pages fit */
	/* Timing: eviction tests of a target on one arena's frames (the
	 * target is set[0]); a reload slower than after the base walk by
	 * more than half of `gap` (this level's hit to the next level's)
	 * was evicted. */
	struct amp_arena arena;
	double gap;
	uint64_t base[AMP_MAX_CONG]; /* the paired base walk */
	uint64_t nbase;
	uint64_t warm;             /* the warm-up line: the target xor this */
	uint64_t l1[AMP_MAX_CONG]; /* lines of the target's L1 set that do not evict it */
	uint64_t nl1;
	uint64_t plain;            /* the set's lines found before pushers (0: none) */
	/* Counters: the pool lines the search walked (the set among them),
	 * and sampled lines past them that joined the set. */
	uint64_t searched;
	uint64_t join[AMP_SET_LINES_MAX];
	uint64_t njoin;
	/* Counters, a level with no more ways than L1 above it: lines of
	 * the pool's L1 set outside this set, walked after every walk of
	 * it so that its lines leave L1 and reach this level (none where
	 * the set alone overflows L1). */
	uint64_t push[AMP_MAX_CONG];
	uint64_t npush;
	uint64_t push_from;    /* the first pool page the pushers took */
	int pushers_apart;     /* at other page offsets: none in the set */
	uint64_t outsider;     /* below L2: a line out of the pushers' L2 set */
	int has_outsider;
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

/* The pool's lines (pages): with counters, also the candidates whose
 * share of joiners gives the way size. */
static uint64_t pool_lines(const struct amp_ctx *c, const struct amp_level *lv)
{
	uint64_t max = pool_max(c, lv);

	if (lv->method == AMP_METHOD_COUNTERS)
		return 2 * max;
	return max > CLASS_SAMPLE ? max : CLASS_SAMPLE;
}

/* Share of a walk's accesses that miss L2 when all its lines lie in
 * one set of an exclusive pair that they overflow (set_above_members). */
#define PAIR_FULL_MISSES 0.85

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

/* off[0..n-1], then e's pushers (none where e is NULL), in a fresh
 * array (the caller frees it), or NULL with err.  The pushers come
 * after the walk's lines: every line leaves L1 before its next turn,
 * and only this level can hold it. */
static uint64_t *with_pushers_after(const struct evset *e, const uint64_t *off, uint64_t n, char *err, size_t len)
{
	uint64_t npush = e ? e->npush : 0, *t = malloc((n + npush) * sizeof *t);

	if (!t) {
		snprintf(err, len, "out of memory for a walk of %llu lines", (unsigned long long)(n + npush));
		return NULL;
	}
	if (n)
		memcpy(t, off, n * sizeof *t);
	if (npush)
		memcpy(t + n, e->push, npush * sizeof *t);
	return t;
}

/* The miss rate at `at` (lv or a level above it: set_above_members)
 * of a walk of off[0..n-1] and e's pushers, counted on lv's frames. */
static int walk_rate_at(struct amp_ctx *c, const struct amp_level *at, const struct amp_level *lv,
			const struct evset *e, const uint64_t *off, uint64_t n, uint64_t region, double *rate,
			char *err, size_t len)
{
	uint64_t npush = e ? e->npush : 0, *t = with_pushers_after(e, off, n, err, len);

	if (!t)
		return -1;
	for (uint64_t i = 0; i < npush; i++)
		region = e->push[i] + 64 > region ? e->push[i] + 64 : region;
	if (amp_offsets_rate_flushed(c, at, t, n + npush, walked, nwalked, region, amp_set_frames(lv), rate, err,
				     len) < 0) {
		free(t);
		return -1;
	}
	if (lv->method == AMP_METHOD_COUNTERS) {
		free(walked);
		walked = t;
		nwalked = n + npush;
	} else {
		free(t);
	}
	return 0;
}

/* Whether that walk thrashes `at`: misses per walk over
 * thrash_threshold, or with min_rate > 0 at least that share of the
 * accesses. */
static int overflows_at(struct amp_ctx *c, const struct amp_level *at, const struct amp_level *lv,
			const struct evset *e, const uint64_t *off, uint64_t n, uint64_t region, double min_rate,
			int *yes, char *err, size_t len)
{
	uint64_t walk = n + (e ? e->npush : 0);
	double rate;

	if (walk_rate_at(c, at, lv, e, off, n, region, &rate, err, len) < 0)
		return -1;
	*yes = min_rate > 0 ? rate >= min_rate : rate * (double)walk >= thrash_threshold(at);
	return 0;
}

/* Misses of this level per walk of off[0..n-1]. */
static int walk_misses(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off, uint64_t n,
		       uint64_t region, double *misses, char *err, size_t len)
{
	double rate;

	if (walk_rate_at(c, lv, lv, NULL, off, n, region, &rate, err, len) < 0)
		return -1;
	*misses = rate * (double)n;
	return 0;
}

/* Whether the walk overflows `at` (misses enough per walk; see
 * thrash_threshold). */
static int thrashes_at(struct amp_ctx *c, const struct amp_level *at, const struct amp_level *lv,
		       const struct evset *e, const uint64_t *off, uint64_t n, uint64_t region, int *yes, char *err,
		       size_t len)
{
	return overflows_at(c, at, lv, e, off, n, region, 0, yes, err, len);
}

static int thrashes(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, const uint64_t *off,
		    uint64_t n, uint64_t region, int *yes, char *err, size_t len)
{
	return thrashes_at(c, lv, lv, e, off, n, region, yes, err, len);
}

/* Group testing: s[0..*n-1] thrashes; drop every group it can spare. */
static int reduce(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, uint64_t *s,
		  uint64_t *n, uint64_t region, char *err, size_t len)
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
			if (thrashes(c, lv, e, rest, m, region, &yes, err, len) < 0) {
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
		if (thrashes(c, lv, e, t, e->nset, e->region, yes, err, len) < 0)
			return -1;
	}
	return 0;
}

static int in_set(const struct evset *e, uint64_t x)
{
	return amp_contains(e->set, e->nset, x);
}

/* e's pool: a line at page offset `off` of each of e->npool pages from
 * page `first` on, e->spacing apart; returns a scratch array as long
 * (the caller frees it), or NULL with err. */
static uint64_t *pool_alloc(struct evset *e, uint64_t first, uint64_t off, char *err, size_t len)
{
	uint64_t *s;

	e->pool = malloc(e->npool * sizeof *e->pool);
	s = malloc(e->npool * sizeof *s);
	if (!e->pool || !s) {
		free(s);
		snprintf(err, len, "out of memory");
		return NULL;
	}
	for (uint64_t i = 0; i < e->npool; i++)
		e->pool[i] = (i + first) * e->spacing + off;
	return s;
}

/* Each vote a different offset in the page: a different set. */
static uint64_t vote_offset(const struct amp_ctx *c, unsigned v)
{
	return (uint64_t)(v * 5 % (c->page / 64 > 8 ? c->page / 64 - 8 : 1)) * 64;
}

static void evset_free(struct evset *e)
{
	free(e->pool);
	amp_arena_close(&e->arena);
	memset(e, 0, sizeof *e);
}

/* One eviction test on e's arena, paired with the base walk (lines of
 * the target's L1 set that leave it in this level): whether the
 * reload of `target` after walks of s[0..n-1] and the warm-up line in
 * the target's page (another L1 set: base_lines), is slower than
 * after the base walk by more than half of e->gap; *ticks: by how much. */
static int evicts_after(struct amp_ctx *c, const struct evset *e, uint64_t target, const uint64_t *s,
			uint64_t n, unsigned reps, double *ticks, int *yes, char *err, size_t len)
{
	double t;

	if (amp_timing_evicted(c, &e->arena, e->region, target, target ^ e->warm, e->base, e->nbase, s, n,
			       AMP_RELOAD_PASSES, reps, e->gap, &t, yes, err, len) < 0)
		return -1;
	if (ticks)
		*ticks = t;
	return 0;
}

/* The same with e's pushers (timed_pushers) walked after s. */
static int evicts(struct amp_ctx *c, const struct evset *e, uint64_t target, const uint64_t *s,
		  uint64_t n, unsigned reps, double *ticks, int *yes, char *err, size_t len)
{
	uint64_t *walk;
	int rc;

	if (!e->npush)
		return evicts_after(c, e, target, s, n, reps, ticks, yes, err, len);
	if (!(walk = with_pushers_after(e, s, n, err, len)))
		return -1;
	rc = evicts_after(c, e, target, walk, n + e->npush, reps, ticks, yes, err, len);
	free(walk);
	return rc;
}

/* Evicts in two tests running: what group testing drops a line on (a
 * false "evicts" costs a line the set needs and a step back; with one
 * test, one in ten drops was false in busy spells on the Zen 5 guest). */
static int evicts_twice(struct amp_ctx *c, const struct evset *e, uint64_t target, const uint64_t *s,
			uint64_t n, unsigned reps, int *yes, char *err, size_t len)
{
	if (evicts(c, e, target, s, n, reps, NULL, yes, err, len) < 0)
		return -1;
	if (*yes && evicts(c, e, target, s, n, reps, NULL, yes, err, len) < 0)
		return -1;
	return 0;
}

/* Evicts in two of three tests (the third runs where the first two
 * disagree); *ticks: the last test's.  Single tests voted L2's line 128
 * in 3 of 4 votes of one default run on the Zen 3 guest, and once in 7
 * in another of five; --level=L2 runs there put an evicting set's reload
 * 13 to 45 ticks above the base, a sparing one's -10 to 7, with half
 * the L2-L3 gap (11) between them. */
static int evicts_best_of_three(struct amp_ctx *c, const struct evset *e, uint64_t target, const uint64_t *s,
				uint64_t n, double *ticks, int *yes, char *err, size_t len)
{
	int votes = 0;

	for (int i = 0; i < 2 || (i == 2 && votes == 1); i++) {
		if (evicts_after(c, e, target, s, n, AMP_RELOAD_REPS, ticks, yes, err, len) < 0)
			return -1;
		votes += *yes;
	}
	*yes = votes >= 2;
	return 0;
}

/* Group testing on eviction: s[0..*n-1] evicts the target; drop every
 * group it can spare.  A dropped group stays right after the set, so a
 * set that stopped evicting (a false "evicts" dropped a line it needed)
 * steps back to the one before. */
static int reduce_target(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e,
			 uint64_t target, uint64_t *s, uint64_t *n, char *err, size_t len)
{
	uint64_t start_groups = (uint64_t)lv->above->assoc.value + 2, groups = start_groups;
	uint64_t *rest = malloc(*n * sizeof *rest), *before = malloc(*n * sizeof *before), depth = 0;
	int backtracks = 0, rc = -1, yes, stalled;

	if (!rest || !before) {
		snprintf(err, len, "out of memory");
		goto out;
	}
	while (*n > 1) {
		uint64_t g = groups < *n ? groups : *n;
		int dropped = 0;

		for (uint64_t k = 0; k < g && !dropped; k++) {
			uint64_t lo = *n * k / g, hi = *n * (k + 1) / g, m = 0;

			for (uint64_t i = 0; i < *n; i++)
				if (i < lo || i >= hi)
					rest[m++] = s[i];
			if (evicts_twice(c, e, target, rest, m, AMP_RELOAD_REPS, &yes, err, len) < 0)
				goto out;
			if (yes) {
				/* s = rest, then the group dropped. */
				memmove(rest + m, s + lo, (hi - lo) * sizeof *s);
				memcpy(s, rest, *n * sizeof *s);
				before[depth++] = *n;
				*n = m;
				dropped = 1;
			}
		}
		if (dropped)
			continue;
		if (evicts(c, e, target, s, *n, VERIFY_REPS, NULL, &yes, err, len) < 0)
			goto out;
		/* Hundreds of lines none of which can go: the set was lost
		 * and the verification was wrong (noise), not the set. */
		stalled = yes && g < *n && *n > AMP_MAX_CONG && g >= 8 * start_groups;
		if (!yes || stalled) {
			if (!depth || ++backtracks > MAX_BACKTRACKS) {
				snprintf(err, len, "%s: group testing %s at %llu lines (the reloads are too noisy)",
					 lv->name, stalled ? "stalled" : "lost the target's set", (unsigned long long)*n);
				goto out;
			}
			*n = before[--depth];
			groups = start_groups;
			continue;
		}
		if (g >= *n)
			break; /* no single line can go: minimal */
		groups = 2 * g;
	}
	rc = 0;
out:
	free(rest);
	free(before);
	return rc;
}

/* The control: as many other pool lines must spare the target.  Where
 * they evict it too, the walk's length did (a busy neighbour on a
 * shared level evicts the target during a long walk), not one set: on
 * the Zen 5 guest some searches ended on sets of 18 to 118 lines none of
 * which could go. */
static int control_spares(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e,
			  uint64_t target, const uint64_t *s, uint64_t n, char *err, size_t len)
{
	uint64_t other[AMP_MAX_CONG], k = 0;
	int yes;

	for (uint64_t i = 0; i < e->npool && k < n; i++)
		if (!amp_contains(s, n, e->pool[i]) && !amp_contains(e->push, e->npush, e->pool[i]))
			other[k++] = e->pool[i];
	if (evicts(c, e, target, other, k, VERIFY_REPS, NULL, &yes, err, len) < 0)
		return -1;
	if (yes) {
		snprintf(err, len, "%s: %llu other pool lines evict its target as its %llu-line set does", lv->name,
			 (unsigned long long)k, (unsigned long long)n);
		return -1;
	}
	return 0;
}

/* After group testing: every line the set can spare goes (a noisy test
 * may have kept one), then the set must still evict.  0, or -1 with
 * err: a set too big to be one set's lines, or one that lost a line it
 * needed.
 *
 * A random level's sets come out too long (16 ways: votes of 16 to 19,
 * 17 most often; amp(1), TIMING): with `ways` lines of its set walked
 * AMP_RELOAD_PASSES times a random set keeps the target in about 4 runs
 * of 5 ((15/16)^4), and the fastest three quarters of runs read that as
 * spared.  Tried on the simulated machine on 2026-12-05 and not kept
 * (16-way L2 under an 8-way L1d, scattered frames, noise 0.01):
 *  - 4 x n passes for walks of n lines from this prune on: votes of 15
 *    and 16 (7 and 8 of 15 with seed 1), and 6 to 14 minutes a run
 *    instead of one.  Lines of the paired base walk that share the
 *    target's set (0 to 2 of them) are still there when a long walk
 *    starts, and its misses take the target with them, so ways - 1
 *    lines "evicted" it;
 *  - long walks with each side of the pair flushing the other's lines
 *    first, kept past the prune only where short walks spared the
 *    target: 16 in every vote that ended (3 to 5 of 8 a run, two
 *    seeds; 3 to 4 minutes a run: the way size's samples walk ways - 1
 *    lines of the set and a joiner, long too), but a tree-PLRU L2 then
 *    dropped 1 to 3 needed lines on long walks and no vote ended
 *    (presumably: each run refills the flushed lines, a line left from
 *    earlier walks stays, and PLRU's victim is then sometimes the
 *    target).
 * A fix needs a base walk known to stay out of the target's set. */
static int prune_target(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e,
			uint64_t target, uint64_t *s, uint64_t *n, char *err, size_t len)
{
	/* Without pushers L1's ways take part: at least two lines. */
	uint64_t least = e->npush ? 1 : 2;
	int yes;

	if (*n < least || *n + 1 > AMP_MAX_CONG) {
		snprintf(err, len, "%s: group testing ended with %llu lines", lv->name, (unsigned long long)*n);
		return -1;
	}
	for (uint64_t i = *n; i-- > 0;) {
		uint64_t x = s[i];

		s[i] = s[*n - 1];
		if (evicts_twice(c, e, target, s, *n - 1, VERIFY_REPS, &yes, err, len) < 0)
			return -1;
		if (yes) {
			--*n;
			continue;
		}
		s[*n - 1] = s[i];
		s[i] = x;
	}
	if (evicts(c, e, target, s, *n, VERIFY_REPS, NULL, &yes, err, len) < 0)
		return -1;
	if (!yes || *n < least) {
		snprintf(err, len, "%s: its %llu-line eviction set stopped evicting its target", lv->name,
			 (unsigned long long)*n);
		return -1;
	}
	return control_spares(c, lv, e, target, s, *n, err, len);
}

/* Timing: the shortest prefix of s (64 lines, doubling up to the whole
 * pool) that evicts the target in two tests running, where group
 * testing starts.  Long walks made it stall here: on the Zen 4 guest
 * searches from all 4096 lines lost the set at 200 to 900 lines in
 * about half the votes (a level that protects a line it hit from a
 * long run of misses, as thrash-resistant insertion does, spares the
 * target there), and they cost the most.  Eviction is not monotone in
 * the lines of the target's set there (2026-12-04, 16 `--level=L2`
 * runs): prefixes of 512 lines (about 16 of its set) evicted in 5 to
 * 14% of tests, 1024 in 14 to 28%, 2048 in 57 to 72%, yet the minimal
 * sets of 8 did; 2, 8 or 16 passes over the walk instead of 4 changed
 * none of it. */
static int evicting_prefix(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e,
			   uint64_t target, const uint64_t *s, uint64_t *m, char *err, size_t len)
{
	for (uint64_t n = PREFIX_LINES;; n = 2 * n < e->npool ? 2 * n : e->npool) {
		int yes;

		if (evicts_twice(c, e, target, s, n, AMP_RELOAD_REPS, &yes, err, len) < 0)
			return -1;
		if (yes) {
			*m = n;
			return 0;
		}
		if (n == e->npool) {
			snprintf(err, len, "%s: no prefix of %llu pool lines evicts its target", lv->name,
				 (unsigned long long)n);
			return -1;
		}
	}
}

/* Timing: every pusher must be one the set spares.  One it needs is a
 * line of its set here that L1 kept through the walk that tested it,
 * so it read as spared (an Intel family 6 model 207 guest's L1d keeps
 * some lines of a walk of its set), and the set came out a line short:
 * 15 lines for 16 in about 1 vote of 8 there.  Such a line joins the
 * set; the pushers go on without it.  0, or -1 with err. */
static int pushers_spared(struct amp_ctx *c, const struct amp_level *lv, struct evset *e, uint64_t target,
			  uint64_t *set, uint64_t *n, char *err, size_t len)
{
	for (uint64_t i = 0; i < e->npush;) {
		uint64_t x = e->push[i];
		int yes = 0;

		e->push[i] = e->push[--e->npush];
		for (int k = 0; k < 2 && !yes; k++)
			if (evicts(c, e, target, set, *n, VERIFY_REPS, NULL, &yes, err, len) < 0)
				return -1;
		if (yes) { /* spared: x goes back */
			e->push[e->npush++] = e->push[i];
			e->push[i++] = x;
			continue;
		}
		if (*n + 1 >= AMP_MAX_CONG) {
			snprintf(err, len, "%s: its eviction set grew past %d lines", lv->name, AMP_MAX_CONG);
			return -1;
		}
		set[(*n)++] = x;
	}
	if (e->npush < (uint64_t)lv->above->assoc.value) {
		snprintf(err, len, "%s: %llu of its pushers (lines of %s's set out of its set here) are in its set",
			 lv->name, (unsigned long long)((uint64_t)lv->above->assoc.value + 2 - e->npush),
			 lv->above->name);
		return -1;
	}
	return 0;
}

/* Timing, a level below L1: a minimal set that evicts the target
 * overflows L1's set too.  Where this level has at most one way more
 * than L1, the set may hold only some of this level's ways and lines of
 * other sets (it is then L1's ways long, whatever this level's); where
 * it has more, L1 keeps some of the walk's lines, this level never sees
 * them, and the set holds more lines than its ways (an Intel family 6
 * model 207 guest: 17 to 19 for 16).  Pushers settle it: lines of
 * the target's L1 set out of its set here, walked after every walk
 * (evicts appends them), so each line leaves L1 and only this level can
 * keep it.  The set found holds at least this level's ways of the
 * target's set and overflows L1: it evicts a pool line of that set and
 * spares any other (L1 lets it go; here it stays).  A pusher is a line
 * it spares in two tests (a false "spares" would put a pusher in the
 * set and the ways one short).  The set is then searched down again
 * with them.  0, or -1 with err. */
static int timed_pushers(struct amp_ctx *c, const struct amp_level *lv, struct evset *e, uint64_t target,
			 uint64_t *set, uint64_t *n, char *err, size_t len)
{
	uint64_t want = (uint64_t)lv->above->assoc.value + 2, tried = 0;

	e->npush = 0;
	for (uint64_t i = e->nbase; i < e->npool && e->npush < want && e->npush < AMP_MAX_CONG; i++) {
		uint64_t x = e->pool[i];
		int yes = 0;

		if (amp_contains(set, *n, x))
			continue;
		if (tried++ == PUSHER_TRIES * want) {
			snprintf(err, len, "%s: its %llu-line eviction set evicts too many of %llu pool lines for %llu pushers (lines of %s's set out of its set here)",
				 lv->name, (unsigned long long)*n, (unsigned long long)tried - 1,
				 (unsigned long long)want, lv->above->name);
			e->npush = 0;
			return -1;
		}
		for (int k = 0; k < 2 && !yes; k++)
			if (evicts(c, e, x, set, *n, VERIFY_REPS, NULL, &yes, err, len) < 0)
				return -1;
		if (!yes)
			e->push[e->npush++] = x;
	}
	if (e->npush < want) {
		snprintf(err, len, "%s: %llu pushers found, %llu wanted", lv->name, (unsigned long long)e->npush,
			 (unsigned long long)want);
		e->npush = 0;
		return -1;
	}
	if (reduce_target(c, lv, e, target, set, n, err, len) < 0 || prune_target(c, lv, e, target, set, n, err, len) < 0)
		return -1;
	return pushers_spared(c, lv, e, target, set, n, err, len);
}

/* Timing: the base walk, n lines of the target's L1 set that push it
 * out of L1 and leave it here.  Where L1's way is under a page (and at
 * least 512 B, past any line), lines L1's way past the target's offset
 * in the first pool pages: in its L1 set, in other sets here.  Else the
 * first pool lines, at its offset: in a level of one or two ways one of
 * them may share its set (a direct-mapped L2 under a 2-way L1d then
 * lost the target to its own base walk, and no walk read as evicting).
 * The warm-up line (the target's translation) is half of L1's way from
 * it: half a page fell in its L1 set under a way of half a page, and a
 * walk of one line evicted it from a 2-way L1d. */
static void base_lines(const struct amp_ctx *c, const struct amp_level *lv, struct evset *e, uint64_t n)
{
	uint64_t l1way = lv->above->way.known ? (uint64_t)lv->above->way.value : c->page;
	int moved = l1way < c->page && l1way >= 512;

	e->nbase = n < AMP_MAX_CONG ? n : AMP_MAX_CONG;
	e->warm = (moved ? l1way : c->page) / 2;
	for (uint64_t i = 0; i < e->nbase; i++) {
		uint64_t off = e->pool[i] % c->page;

		e->base[i] = moved ? e->pool[i] - off + (off + l1way) % c->page : e->pool[i];
	}
}

/* Timing: the ways are the lines of a minimal set that evicts a target
 * line (ways lines of its set, whatever the replacement order). */
static int target_ways_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
			    char *err, size_t len)
{
	struct evset *e = &found[v % AMP_MAX_VOTES];
	/* Lines at a multiple of 512 B in their page: the line test moves
	 * them by up to 256 B within any line (target_line_vote). */
	uint64_t off = (uint64_t)(v * 3 % (c->page / 512 > 1 ? c->page / 512 : 1)) * 512, target = off;
	uint64_t few = (uint64_t)lv->above->assoc.value + 4, n = 0, *s, best[AMP_MAX_CONG];
	double gap = lv->next_ticks - lv->hit_ticks;
	struct amp_rng r;

	evset_free(e);
	e->spacing = pool_spacing(c, lv);
	e->npool = TARGET_POOL;
	e->region = (e->npool + 1) * e->spacing;
	/* Huge pages where granted: where the host backs them with
	 * contiguous frames the pool spreads evenly over this level's page
	 * colours (an Intel family 6 model 207 guest's small pages held few:
	 * 64 to 128 lines at one offset evicted a line of its 16-way L2,
	 * where 32 colours take 512); scattered frames are no worse. */
	if (amp_arena_open(&e->arena, e->region, 1, err, len) < 0)
		return -1;
	/* The target's page first, the pool's pages after it in a random
	 * order (walks in address order would train a prefetcher). */
	if (!(s = pool_alloc(e, 1, off, err, len)))
		return -1;
	amp_rng_seed(&r, c->seed ^ 0x7461726765740000ULL ^ v);
	amp_shuffle(e->pool, (size_t)e->npool, &r);
	/* Half the sweep's gap between this level's hit and the next
	 * level's marks a miss (a walk may push the target further down: a
	 * reload from there is a miss here all the same).  No test of the
	 * whole pool first: its paired base walk (timing.c) over as many
	 * pages read about as slow as the pool in 1 of 32 votes on the
	 * Intel guest; evicting_prefix fails where no prefix evicts. */
	base_lines(c, lv, e, few);
	e->gap = gap;
	if (gap <= 0) {
		free(s);
		snprintf(err, len, "%s: no latency gap to the level below", lv->name);
		return -1;
	}
	/* Noise can end a search on a set too big (a drop that failed, or
	 * every line of 18 to 118 needed: seen on the Zen 5 guest) or lose
	 * the set: searches in other orders of the pool until two agree,
	 * at most SEARCH_TRIES; the smallest set found wins. */
	for (int k = 0, agreed = 0; k < SEARCH_TRIES && !agreed; k++) {
		uint64_t m;

		memcpy(s, e->pool, e->npool * sizeof *s);
		amp_shuffle(s, (size_t)e->npool, &r);
		if (evicting_prefix(c, lv, e, target, s, &m, err, len) < 0 ||
		    reduce_target(c, lv, e, target, s, &m, err, len) < 0 ||
		    prune_target(c, lv, e, target, s, &m, err, len) < 0)
			continue;
		agreed = m == n;
		if (!n || m < n) {
			n = m;
			memcpy(best, s, m * sizeof *s);
		}
	}
	free(s);
	if (!n)
		return -1;
	e->plain = n;
	if (lv->above->level == 1 && lv->above->assoc.known &&
	    timed_pushers(c, lv, e, target, best, &n, err, len) < 0)
		return -1;
	e->set[0] = target;
	memcpy(e->set + 1, best, n * sizeof *best);
	e->nset = n + 1;
	/* The baseline's walk less the set's lines: it did not evict the
	 * target, so fewer of its lines cannot either. */
	for (uint64_t i = 0; i < e->nbase && e->nl1 < AMP_MAX_CONG; i++)
		if (!in_set(e, e->base[i]))
			e->l1[e->nl1++] = e->base[i];
	*value = (int64_t)n;
	return 0;
}

/* Lines of one of its sets a walk must hold to overflow `up`: its ways,
 * or an exclusive pair's (its own and L1's). */
static uint64_t above_holds(const struct amp_level *up)
{
	return (uint64_t)(up->thrash_ways > up->assoc.value ? up->thrash_ways : up->assoc.value);
}

/* Whether lv's inclusion came out exclusive. */
static int decided_exclusive(const struct amp_level *lv)
{
	return amp_param_conclusive(&lv->inclusion) && lv->inclusion.value == AMP_INCL_EXCLUSIVE;
}

/* An exclusive L2 whose walks hold L1's ways besides its own (its sets
 * came with pushers, evset_search). */
static int exclusive_pair(const struct amp_level *l2)
{
	const struct amp_level *top = amp_level_top(l2);

	return decided_exclusive(l2) && top->assoc.known && l2->thrash_ways == l2->assoc.value + top->assoc.value;
}

/* Counters: whether pushers can be had: an L2 under a set-associative
 * L1, whose one set holds the whole pool, or a level below L2 whose set
 * there must be found first (pick_pushers_below): L2 must then show its
 * own sets to walks of the pool (more ways than L1: ways + 1 lines of
 * one set of it overflow L1's too), or be exclusive with its sets found
 * with pushers (a walk of one of them then overflows both levels).  A
 * minimal set of no more lines than the ways above + 1 may be the level
 * above's rather than this level's (a walk that fits there never
 * reaches this level), and one that thrashes in one order only holds
 * the ways above too (an exclusive pair): pushers then keep the level
 * above out of the way. */
static int pushers_possible(const struct amp_level *lv)
{
	const struct amp_level *up = lv->above, *top = amp_level_top(lv);

	if (lv->method != AMP_METHOD_COUNTERS || !up || !up->assoc.known || up->fully_associative ||
	    2 * above_holds(up) + 2 > AMP_MAX_CONG)
		return 0;
	if (up->level == 1)
		return lv->level == 2;
	return up->level == 2 && up->measurable && up->thrash_ways > 0 &&
	       ((up->thrash_ways == up->assoc.value && !up->nset_pushers) || exclusive_pair(up)) &&
	       top->assoc.known && up->thrash_ways >= top->assoc.value;
}

/* Counters: the step from a pool line to lines of other page-offset
 * classes in its L1 set (a multiple of L1's way), which no set of this
 * level shares with it (a bit of the page offset above this level's line
 * differs); 0 where none fits in a page. */
static uint64_t pusher_step(const struct amp_ctx *c, const struct amp_level *lv)
{
	uint64_t step = (uint64_t)lv->above->way.value;

	if (!lv->line.known)
		return 0;
	if ((uint64_t)lv->line.value > step)
		step = (uint64_t)lv->line.value;
	return amp_is_pow2(step) && step < c->page ? step : 0;
}

/* Counters: the i-th line from the pool's far end at the pusher
 * offsets of its page (pusher_step), or the pool line itself. */
static uint64_t far_line(const struct amp_ctx *c, const struct evset *e, uint64_t i, uint64_t step,
			 uint64_t per_page)
{
	uint64_t line = e->pool[e->npool - 1 - i / per_page], off = e->pool[0] % e->spacing;

	return step ? line - off + ((off + (i % per_page + 1) * step) & (c->page - 1)) : line;
}

/* Counters: drops from w[0..*n-1] (a walk that overflows L1's set, so
 * that each walk of it reaches this level) every line whose leaving
 * cuts this level's misses: it lay in a set of it the walk overflows.
 * Three passes at most; *misses ends as the misses per walk left. */
static int drop_overflowing(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, uint64_t *w,
			    uint64_t *n, double *misses, char *err, size_t len)
{
	double most = thrash_threshold(lv), less;

	if (walk_misses(c, lv, w, *n, e->region, misses, err, len) < 0)
		return -1;
	for (int pass = 0; pass < 3 && *misses >= most; pass++)
		for (uint64_t i = *n; i-- > 0 && *misses >= most;) {
			uint64_t x = w[i];

			w[i] = w[*n - 1];
			if (walk_misses(c, lv, w, *n - 1, e->region, &less, err, len) < 0)
				return -1;
			if (less < *misses) {
				--*n;
				*misses = less;
			} else {
				w[*n - 1] = w[i];
				w[i] = x;
			}
		}
	return 0;
}

/* Counters: pick_pushers' fallback where no window of pages fits (few
 * ways here, so many pages share a set of it).  A window of m lines
 * from the far end, doubled until enough are left, loses the lines that
 * overflow a set here (drop_overflowing).  The rest must still overflow
 * L1 (its ways + 1), so that each further line, walked with them, shows
 * whether it joins a full set here: it joins the pushers if not, until
 * there are m, or at least L1's ways + 1 where no more fit (a
 * direct-mapped L2 of 16 colours at the pushers' page offset holds 16
 * of the 26 wanted under a 12-way L1d; below L2 all m are needed).  0,
 * or -1 with err. */
static int fitting_pushers(struct amp_ctx *c, const struct amp_level *lv, struct evset *e, uint64_t m,
			   uint64_t step, uint64_t per_page, char *err, size_t len)
{
	uint64_t w[AMP_SET_LINES_MAX], n = 0, next = 0;
	uint64_t need = lv->above->level > 1 ? m : (uint64_t)lv->above->assoc.value + 1;
	uint64_t avail = (e->npool - e->searched) * per_page;
	double most = thrash_threshold(lv), misses;

	for (uint64_t size = m; n < need; size *= 2) {
		if (next == avail || next == AMP_SET_LINES_MAX)
			goto none;
		for (n = 0, next = 0; next < size && next < avail && next < AMP_SET_LINES_MAX; next++)
			w[n++] = far_line(c, e, next, step, per_page);
		if (drop_overflowing(c, lv, e, w, &n, &misses, err, len) < 0)
			return -1;
		if (misses >= most)
			goto none;
	}
	for (uint64_t tried = 0; n < m && next < avail && tried < GROW_TRIES * m; tried++) {
		w[n] = far_line(c, e, next++, step, per_page);
		if (walk_misses(c, lv, w, n + 1, e->region, &misses, err, len) < 0)
			return -1;
		n += misses < most;
	}
	if (n < need)
		goto none;
	memcpy(e->push, w, n * sizeof *w);
	e->npush = n;
	e->push_from = e->npool - 1 - (next - 1) / per_page;
	return 0;
none:
	snprintf(err, len, "%s: no %llu lines past its search fit it when walked alone, to push its set's lines out of %s",
		 lv->name, (unsigned long long)m, lv->above->name);
	return -1;
}

/* Counters: the pushers, 2 x L1's ways + 2 lines in pool pages from the
 * pool's far end (past the candidates the way vote samples): at other
 * page offsets where the way above is under a page (pusher_step), else
 * the pool's lines themselves.  Below L2 (whose way is then under a
 * page: its set lies at the pool's page offset, so pick_pushers_below
 * is not needed) they are the ways L2 holds + 1, none in the set: each
 * line of it then has that many lines of L2's set between its turns,
 * and more would stay in other sets of an exclusive level, and overflow
 * them, while a walk's own lines hold the pair.  They must fit this
 * level when walked alone (no set of it holds more of them than it has
 * ways): a window of pages that does, else fitting_pushers.  0, or -1
 * with err. */
static int pick_pushers(struct amp_ctx *c, const struct amp_level *lv, struct evset *e, char *err, size_t len)
{
	uint64_t m = lv->above->level > 1 ? above_holds(lv->above) + 1 : 2 * (uint64_t)lv->above->assoc.value + 2;
	uint64_t step = pusher_step(c, lv);
	uint64_t per_page = step ? c->page / step - 1 : 1, pages = (m + per_page - 1) / per_page;
	int yes = 1;

	for (int t = 0; t < FILL_TRIES && yes; t++) {
		uint64_t end = e->npool - (uint64_t)t * pages;

		if (end < pages || end - pages < e->searched)
			break;
		for (uint64_t k = 0; k < m; k++)
			e->push[k] = far_line(c, e, (uint64_t)t * pages * per_page + k, step, per_page);
		e->push_from = end - pages;
		if (thrashes(c, lv, NULL, e->push, m, e->region, &yes, err, len) < 0)
			return -1;
	}
	/* No window fits (few ways here, so many of its pages share a set
	 * of it): lines that overflow one go from a bigger window. */
	if (!yes)
		e->npush = m;
	else if (fitting_pushers(c, lv, e, m, step, per_page, err, len) < 0)
		return -1;
	e->pushers_apart = step != 0;
	return 0;
}

/* Counters, below L2: which of g[0..k-1] (k <= its ways) fall in the
 * set S of L2 above that base[0..a-1] (a lines of S) fill: with the
 * group they thrash L2 iff one of them does (the group alone cannot
 * overflow another set), and a group that does is halved.  Those go to
 * out[], up to max of them. */
static int set_above_members(struct amp_ctx *c, const struct amp_level *lv, struct evset *e, uint64_t a,
			     const uint64_t *g, uint64_t k, uint64_t *out, uint64_t *nout, uint64_t max, char *err,
			     size_t len)
{
	uint64_t t[2 * AMP_MAX_CONG];
	int yes;

	if (*nout >= max)
		return 0;
	memcpy(t, e->set + 1, a * sizeof *t);
	memcpy(t + a, g, k * sizeof *g);
	/* Under an exclusive pair L1's one set holds every line walked: a
	 * line out of the set takes L1 ways from it, and part of the walk
	 * misses L2 too (4 of 7 where L2 has 2 ways under L1's 4).  Only a
	 * walk of the set's lines alone misses L2 on every access. */
	if (overflows_at(c, lv->above, lv, NULL, t, a + k, e->region, exclusive_pair(lv->above) ? PAIR_FULL_MISSES : 0,
			 &yes, err, len) < 0)
		return -1;
	if (!yes) {
		/* Out of S: it stays in L2, so no set here can hold it. */
		e->outsider = g[0];
		e->has_outsider = 1;
		return 0;
	}
	if (k == 1) {
		out[(*nout)++] = g[0];
		return 0;
	}
	if (set_above_members(c, lv, e, a, g, k / 2, out, nout, max, err, len) < 0)
		return -1;
	return set_above_members(c, lv, e, a, g + k / 2, k - k / 2, out, nout, max, err, len);
}

/* Counters, below L2: the pushers are lines of the set S of L2 that the
 * set found without them fills (its L2 ways + 1 lines all lie in S: a
 * walk reaches this level only by overflowing S).  Pool lines from the
 * far end are sorted into S by L2's misses (set_above_members); a
 * window of L2's ways + 1 of them that fits this level when walked
 * alone starts the pushers (so many miss L2 on every walk, and reach
 * this level), and each further member joins them while they still
 * fit, up to 2 x L2's ways + 2.  0, or -1 with err. */
static int pick_pushers_below(struct amp_ctx *c, const struct amp_level *lv, struct evset *e, char *err,
			      size_t len)
{
	const struct amp_level *up = lv->above;
	uint64_t a = (uint64_t)up->thrash_ways, m = 2 * a + 2, want = 2 * m < 2 * AMP_MAX_CONG ? 2 * m : 2 * AMP_MAX_CONG;
	uint64_t member[2 * AMP_MAX_CONG], nm = 0, g[AMP_MAX_CONG], k = 0, next = e->npool, start;
	int yes = 1;

	/* Its first L2 ways + 1 lines must overflow one set of L2 (an
	 * exclusive pair's set holds more). */
	if (e->nset < a + 1) {
		snprintf(err, len, "%s: its %llu-line set is smaller than one set of %s (%llu lines) to take pushers from",
			 lv->name, (unsigned long long)e->nset, up->name, (unsigned long long)(a + 1));
		return -1;
	}
	if (thrashes_at(c, up, lv, NULL, e->set, a + 1, e->region, &yes, err, len) < 0)
		return -1;
	if (!yes) {
		snprintf(err, len, "%s: its %llu-line set overflows no set of %s to take pushers from", lv->name,
			 (unsigned long long)e->nset, up->name);
		return -1;
	}
	while (next > e->searched && nm < want) {
		uint64_t x = e->pool[--next];

		if (in_set(e, x))
			continue;
		g[k++] = x;
		if (k == (exclusive_pair(up) ? 1 : a)) { /* a pair's test takes one line at a time */
			if (set_above_members(c, lv, e, a, g, k, member, &nm, want, err, len) < 0)
				return -1;
			k = 0;
		}
	}
	e->push_from = next;
	if (nm < a + 1) {
		snprintf(err, len, "%s: %llu lines of its set of %s found, fewer than the %llu it takes to push its set's lines out of %s",
			 lv->name, (unsigned long long)nm, up->name, (unsigned long long)(a + 1), up->name);
		return -1;
	}
	for (start = 0; start + a + 1 <= nm && yes; start++)
		if (thrashes(c, lv, NULL, member + start, a + 1, e->region, &yes, err, len) < 0)
			return -1;
	if (yes) {
		snprintf(err, len, "%s: no %llu of the %llu lines found in its set of %s fit it when walked alone, to push its set's lines out of %s",
			 lv->name, (unsigned long long)(a + 1), (unsigned long long)nm, up->name, up->name);
		return -1;
	}
	start--;
	memcpy(e->push, member + start, (a + 1) * sizeof *member);
	e->npush = a + 1;
	for (uint64_t j = 0; j < nm && e->npush < m; j++) {
		if (j >= start && j <= start + a)
			continue;
		e->push[e->npush] = member[j];
		if (thrashes(c, lv, NULL, e->push, e->npush + 1, e->region, &yes, err, len) < 0)
			return -1;
		e->npush += !yes;
	}
	e->pushers_apart = 0;
	return 0;
}

/* Counters: which pushers fall in the set X that t[0..n-1] overflows
 * with them (pushers at the pool's own page offset may): with a line g
 * out of X (with it for t[0] the walk fits) swapped in for a pusher, the
 * walk fits iff that pusher was in X.  Those go to in_x[0..*nx-1], the
 * rest stay pushers. */
static int sort_pushers(struct amp_ctx *c, const struct amp_level *lv, struct evset *e, const uint64_t *t,
			uint64_t n, uint64_t *in_x, uint64_t *nx, char *err, size_t len)
{
	uint64_t u[AMP_MAX_CONG + 1], all[AMP_MAX_CONG], out[AMP_MAX_CONG], g = UINT64_MAX, keep = 0;
	int yes = 1;

	/* g: below L2 a line out of the pushers' L2 set; else among the
	 * lines group testing dropped, then the pool past the search. */
	for (uint64_t i = 0, tried = 0; yes && tried < OUTSIDER_TRIES; i++) {
		if (e->has_outsider && i > 0)
			break;
		if (e->has_outsider)
			g = e->outsider;
		else if (i < e->nset)
			g = e->set[i];
		else if (e->searched + (i - e->nset) < e->push_from)
			g = e->pool[e->searched + (i - e->nset)];
		else
			break;
		if (amp_contains(t, n, g))
			continue;
		tried++;
		memcpy(u, t + 1, (n - 1) * sizeof *u);
		u[n - 1] = g;
		if (thrashes(c, lv, e, u, n, e->region, &yes, err, len) < 0)
			return -1;
	}
	if (yes) {
		snprintf(err, len, "%s: every line tried joins the set the pushers left (%llu lines)", lv->name,
			 (unsigned long long)n);
		return -1;
	}
	*nx = 0;
	memcpy(all, e->push, e->npush * sizeof *all);
	for (uint64_t i = 0; i < e->npush; i++) {
		memcpy(e->push, all, e->npush * sizeof *all);
		e->push[i] = g;
		if (thrashes(c, lv, e, t, n, e->region, &yes, err, len) < 0)
			return -1;
		if (yes)
			out[keep++] = all[i];
		else
			in_x[(*nx)++] = all[i];
	}
	memcpy(e->push, out, keep * sizeof *out);
	e->npush = keep;
	return 0;
}

/* Counters: pushers at other page offsets, under L1: some line out of
 * the set must fit with the set less its first line and the pushers,
 * as one does in sort_pushers: a pool line at the set's own offset, or
 * (where every page at it shares one set here) a line of the set's
 * first page at a pusher offset.  Pushers that fit only while the walk
 * leaves them L1's ways overflow a set of their own once a candidate
 * takes one, and every candidate then reads as joining (an exclusive
 * 2-way L2 under a 24-way L1d, on the simulated machine: 3 of 8 frame
 * mappings read 2 ways of 512 B, or 9 ways). */
static int pushers_leave_room(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, char *err,
			      size_t len)
{
	uint64_t t[AMP_MAX_CONG + 1], tried = 0, step = pusher_step(c, lv), first = e->set[0] % c->page;
	uint64_t cand[OUTSIDER_TRIES], n = 0;

	if (lv->above->level != 1 || !e->pushers_apart || e->nset < 2 || !step)
		return 0;
	for (uint64_t i = e->searched; i < e->push_from && n < OUTSIDER_TRIES / 2; i++)
		if (!in_set(e, e->pool[i]))
			cand[n++] = e->pool[i];
	for (uint64_t k = 1; k < c->page / step && n < OUTSIDER_TRIES; k++)
		cand[n++] = e->set[0] - first + (first + k * step) % c->page;
	memcpy(t, e->set + 1, (e->nset - 1) * sizeof *t);
	for (; tried < n; tried++) {
		int yes;

		t[e->nset - 1] = cand[tried];
		if (thrashes(c, lv, e, t, e->nset, e->region, &yes, err, len) < 0)
			return -1;
		if (!yes)
			return 0;
	}
	snprintf(err, len, "%s: no line tried (%llu) fits with its set and its %llu pushers: they fit only while the walk leaves them %s's ways",
		 lv->name, (unsigned long long)tried, (unsigned long long)e->npush, lv->above->name);
	return -1;
}

/* Counters: misses here per walk of off[0..n-1], the mean of `times`
 * measurements (each of a few hundred accesses: under random
 * replacement one reads half a miss either way). */
static int mean_walk_misses(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off, uint64_t n,
			    uint64_t region, unsigned times, double *misses, char *err, size_t len)
{
	double sum = 0, one;

	for (unsigned i = 0; i < times; i++) {
		if (walk_misses(c, lv, off, n, region, &one, err, len) < 0)
			return -1;
		sum += one;
	}
	*misses = sum / times;
	return 0;
}

/* Counters, where the set thrashed in one order only (an exclusive
 * pair: this level holds the victims of the level above): drop the
 * pushers that fall in the set X here (at L2 the swap test misses some
 * too: an exclusive 20-way L2 under an LRU 8-way L1d had 7 in X, and
 * the set the search left with them read 28 ways).  Below L2, with
 * pushers in X, the swap test of
 * sort_pushers cannot tell them: L2's set S holds lines of X and the
 * pushers alike, so taking out any pusher leaves X more room in L2, and
 * a walk at the edge of fitting then fits either way (an exclusive
 * 24-way L3 under a 10-way L2 read 17 of 22 pushers in X where 11
 * were).  A walk of the whole set and the pushers overflows X by many
 * lines instead, so the lines of X miss here and no other line does:
 * leaving a pusher out saves about a miss a walk (LRU: one, in 36) iff
 * it is in X.  Under random replacement one measurement is too coarse
 * for that (a random 12-way L3 read -0.8 to 1.3 misses saved), so
 * unclear ones are measured again: MISS_DROP_MEASURES in all.  A
 * pusher out of X dropped only costs a pusher; one in X kept would make
 * the set a line short.  0, or -1 with err. */
static int drop_pushers_in_set(struct amp_ctx *c, const struct amp_level *lv, struct evset *e, char *err,
			       size_t len)
{
	uint64_t w[2 * AMP_MAX_CONG], push[AMP_MAX_CONG], keep = 0, n = e->nset + e->npush;
	double all, less;

	if (n > 2 * AMP_MAX_CONG)
		return 0;
	memcpy(push, e->push, e->npush * sizeof *push);
	memcpy(w, e->set, e->nset * sizeof *w);
	memcpy(w + e->nset, push, e->npush * sizeof *w);
	if (mean_walk_misses(c, lv, w, n, e->region, MISS_DROP_MEASURES, &all, err, len) < 0)
		return -1;
	for (uint64_t i = 0; i < e->npush; i++) {
		/* The walk less pusher i: the pushers after it move up one. */
		memmove(w + e->nset + i, w + e->nset + i + 1, (e->npush - i - 1) * sizeof *w);
		if (walk_misses(c, lv, w, n - 1, e->region, &less, err, len) < 0)
			return -1;
		if (all - less > 0 && all - less < MISS_DROP_CLEAR &&
		    mean_walk_misses(c, lv, w, n - 1, e->region, MISS_DROP_MEASURES, &less, err, len) < 0)
			return -1;
		memcpy(w + e->nset, push, e->npush * sizeof *w);
		if (all - less < MISS_DROP_IN_SET)
			e->push[keep++] = push[i];
	}
	if (keep < (uint64_t)lv->above->assoc.value + 1) {
		snprintf(err, len, "%s: %llu of %llu pushers fall in its set (a walk without each missed less): too few left to push it out of %s",
			 lv->name, (unsigned long long)(e->npush - keep), (unsigned long long)e->npush, lv->above->name);
		return -1;
	}
	e->npush = keep;
	return 0;
}

/* Counters: e->set (n lines, no more than L1's ways + 1) thrashed this
 * level, but such a walk reaches it only because it overflows L1's set
 * too: the set may hold lines of L1's alone.  With the pushers walked
 * after it, group testing shrinks it to lines of one set X here, and
 * the pushers in X (sort_pushers) join it: the set is then ways + 1
 * lines of X, as if L1's ways were not in the way.  one_order: this
 * vote's set, or earlier votes', thrashed in one order only (an
 * exclusive pair), or was searched again (evset_search): pushers in X
 * leave first (drop_pushers_in_set). */
static int with_pushers(struct amp_ctx *c, const struct amp_level *lv, struct evset *e, int one_order,
			char *err, size_t len)
{
	uint64_t t[AMP_MAX_CONG + 1], n = e->nset, in_x[AMP_MAX_CONG], nx = 0;
	int yes, less = 1, pair_below = one_order && lv->above->level > 1;

	if ((lv->above->level > 1 && !pusher_step(c, lv) ? pick_pushers_below(c, lv, e, err, len)
							       : pick_pushers(c, lv, e, err, len)) < 0 ||
	    (one_order && drop_pushers_in_set(c, lv, e, err, len) < 0))
		return -1;
	memcpy(t, e->set, n * sizeof *t);
	if (thrashes(c, lv, e, t, n, e->region, &yes, err, len) < 0)
		return -1;
	if (!yes) {
		snprintf(err, len, "%s: its %llu-line set fits once pushers keep it out of %s: what thrashed was %s",
			 lv->name, (unsigned long long)n, lv->above->name, lv->above->name);
		return -1;
	}
	if (reduce(c, lv, e, t, &n, e->region, err, len) < 0)
		return -1;
	/* Below L2 in an exclusive pair the pushers out of X are known
	 * (drop_pushers_in_set), and the swap test would misread them. */
	if (!e->pushers_apart && !pair_below && sort_pushers(c, lv, e, t, n, in_x, &nx, err, len) < 0)
		return -1;
	for (int round = 0; round < SORT_ROUNDS && nx && n + nx <= AMP_MAX_CONG &&
			   e->npush >= (uint64_t)lv->above->assoc.value + 1; round++) {
		/* Pushers in the set took part in the search: under an
		 * exclusive pair they filled L1 with lines of the set, which
		 * then held L1's ways too (an exclusive 20-way L2 under an
		 * LRU 8-way L1d: 7 of 18 pushers in the set, 28 ways).  Once
		 * more with the pushers out of it; and sorted again, as one
		 * in the set that the walk left in L1 (among the last) could
		 * pass for one out of it (19 ways so). */
		memcpy(t + n, in_x, nx * sizeof *in_x);
		n += nx;
		nx = 0;
		if (reduce(c, lv, e, t, &n, e->region, err, len) < 0 ||
		    sort_pushers(c, lv, e, t, n, in_x, &nx, err, len) < 0)
			return -1;
	}
	if (n + nx < 2) {
		/* Ways are the set's lines but one: the pushers alone
		 * overflowed the target's set here. */
		snprintf(err, len, "%s: the set found with pushers has one line: the pushers overflow its set themselves",
			 lv->name);
		return -1;
	}
	if (n + nx > AMP_MAX_CONG || e->npush < (uint64_t)lv->above->assoc.value + 1) {
		snprintf(err, len, "%s: %llu of %llu pushers share its set: too few left to push it out of %s",
			 lv->name, (unsigned long long)nx, (unsigned long long)(nx + e->npush), lv->above->name);
		return -1;
	}
	memcpy(e->set, t, n * sizeof *t);
	memcpy(e->set + n, in_x, nx * sizeof *in_x);
	e->nset = n + nx;
	/* Below L2, L2's ways + 1 pushers out of the set do (each of its
	 * lines then has at least as many lines of L2's set between its
	 * turns as L2 has ways); the rest only made every later walk
	 * dearer.  Only fewer: the array holds no more than npush pushers. */
	if (lv->above->level > 1 && e->npush > (uint64_t)lv->above->thrash_ways + 1)
		e->npush = (uint64_t)lv->above->thrash_ways + 1;
	/* The set must thrash, and fit without its first line. */
	if (thrashes(c, lv, e, e->set, e->nset, e->region, &yes, err, len) < 0)
		return -1;
	if (yes && thrashes(c, lv, e, e->set + 1, e->nset - 1, e->region, &less, err, len) < 0)
		return -1;
	if (!yes || less) {
		snprintf(err, len, "%s: the set found with pushers (%llu lines) %s", lv->name,
			 (unsigned long long)e->nset, yes ? "is not minimal" : "does not thrash");
		return -1;
	}
	return pushers_leave_room(c, lv, e, err, len);
}

/* Counters: the search runs again with pushers from the start, where
 * its first sets turned out to hold the level above's ways too (an
 * exclusive pair whose lines all share one set above: every set thrashes
 * in any order, and only the way vote sees it). */
static _Thread_local int pushers_first;

static int ways_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		     char *err, size_t len)
{
	struct evset *e = &found[v % AMP_MAX_VOTES];
	uint64_t spacing = pool_spacing(c, lv), max = pool_max(c, lv);
	uint64_t off = vote_offset(c, v);
	uint64_t n = POOL_MIN, *s;
	int yes = 0;

	if (lv->method == AMP_METHOD_TIMING)
		return target_ways_vote(c, lv, v, value, err, len);
	evset_free(e);
	e->spacing = spacing;
	e->npool = pool_lines(c, lv);
	e->region = e->npool * spacing;
	if (!(s = pool_alloc(e, 0, off, err, len)))
		return -1;
	/* The first walk flushes the whole pool: lines of its pages that
	 * other plans (or the zeroing of fresh pages) left in this level
	 * would take ways of its sets, and under random replacement a set
	 * of no more lines than ways then misses for many walks. */
	free(walked);
	walked = malloc(e->npool * sizeof *walked);
	nwalked = walked ? e->npool : 0;
	if (walked)
		memcpy(walked, e->pool, e->npool * sizeof *walked);
	for (unsigned attempt = 0;; attempt++) {
		uint64_t m;

		/* Doubling, and the largest pool last (a level may need more
		 * lines than the power of two below it, yet fewer than the one
		 * above). */
		for (;; n = n < max && 2 * n > max ? max : 2 * n) {
			if (n > max) {
				free(s);
				snprintf(err, len,
					 "%s: no pool of up to %llu lines, one per page at one page offset, thrashes it (its sets may hash more address bits than the page colour%s)",
					 lv->name, (unsigned long long)max,
					 lv->method == AMP_METHOD_TIMING ? "; a bigger pool would not fit L1, which the timing reference needs" : "");
				return -1;
			}
			if (thrashes(c, lv, NULL, e->pool, n, e->region, &yes, err, len) < 0) {
				free(s);
				return -1;
			}
			if (yes)
				break;
		}
		e->searched = m = n;
		memcpy(s, e->pool, n * sizeof *s);
		if (reduce(c, lv, NULL, s, &m, e->region, err, len) < 0) {
			free(s);
			return -1;
		}
		if (m >= 2 && m <= AMP_MAX_CONG) {
			n = m;
			break;
		}
		/* No group could go: the pool's thrash was lines of other
		 * data in its sets (not the pool's; a random level drops them
		 * only after many misses), which the walks since have pushed
		 * out.  The same pool again, then larger ones. */
		if (attempt == SEARCH_RETRIES) {
			free(s);
			snprintf(err, len, "%s: group testing ended with %llu lines", lv->name, (unsigned long long)m);
			return -1;
		}
	}
	memcpy(e->set, s, n * sizeof *s);
	e->nset = n;
	free(s);
	if (pushers_possible(lv) && (n <= above_holds(lv->above) + 1 || pushers_first) &&
	    with_pushers(c, lv, e, pushers_first, err, len) < 0)
		return -1;
	if (any_order_thrashes(c, lv, e, v, &yes, err, len) < 0)
		return -1;
	if (!yes && pushers_possible(lv) && !e->npush) {
		if (with_pushers(c, lv, e, 1, err, len) < 0) {
			/* Say why pushers were tried: the set looked exclusive. */
			size_t used = strlen(err);

			snprintf(err + used, len - used, " (its %llu-line set thrashed in one order only: exclusive?)",
				 (unsigned long long)e->nset);
			return -1;
		}
		if (any_order_thrashes(c, lv, e, v, &yes, err, len) < 0)
			return -1;
	}
	if (!yes) {
		e->above_adds = 1;
		snprintf(err, len, "%s: its %llu-line set thrashes in one order and fits in another: lines of other sets take part through the level above, which passes its victims here (exclusive?)",
			 lv->name, (unsigned long long)e->nset);
		return -1;
	}
	*value = (int64_t)e->nset - 1;
	return 0;
}

/* Whether line x joins the set: ways lines of it plus x thrash. */
static int joins(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, uint64_t x,
		 int *yes, char *err, size_t len)
{
	uint64_t t[AMP_MAX_CONG + 1];

	memcpy(t, e->set + 1, (e->nset - 1) * sizeof *t);
	t[e->nset - 1] = x;
	return thrashes(c, lv, e, t, e->nset, e->region, yes, err, len);
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
	if (thrashes(c, lv, e, t, e->nset - 1 + k, region, &yes, err, len) < 0)
		return -1;
	if (!yes)
		return 0;
	if (k == 1 && e->npush) {
		/* It may have overflowed a set the pushers fill instead: with
		 * one set line fewer (its set then fits) it still thrashes.
		 * The set's lines stay in the walk, so that it overflows the
		 * levels above as the test's did (a walk of the pushers and
		 * the line alone fits an exclusive pair that holds as many,
		 * and never reached this level: a 32-way NINE L3 under 24 + 10
		 * ways read a way half its own). */
		if (thrashes(c, lv, e, t + 1, e->nset - 1, region, &yes, err, len) < 0)
			return -1;
		if (yes)
			return 0;
	}
	if (k == 1) {
		++*joined;
		if (e->njoin < AMP_SET_LINES_MAX)
			e->join[e->njoin++] = g[0];
		return 0;
	}
	if (count_joiners(c, lv, e, g, k / 2, joined, err, len) < 0)
		return -1;
	return count_joiners(c, lv, e, g + k / 2, k - k / 2, joined, err, len);
}

/* Counters: candidates tested at once for joining e's set: its ways,
 * so that the group alone overflows no other set.  Below L2 with
 * pushers, only the lines in the pushers' L2 set (one in L2's way over
 * the page) reach this level at all, so as many groups of ways go in
 * one; a group that overflows a set the pushers fill is halved down to
 * lines that count_joiners tells apart. */
static uint64_t group_size(const struct amp_ctx *c, const struct amp_level *lv, const struct evset *e)
{
	uint64_t k = e->nset - 1, up_way = (uint64_t)lv->above->way.value;

	if (e->npush && lv->above->level > 1 && up_way > c->page)
		k *= up_way / c->page;
	return k < 1 ? 1 : k < AMP_MAX_CONG ? k : AMP_MAX_CONG;
}

/* Counters: candidates are the pool's lines past those the search
 * walked (among which the set's colour is over-represented: it filled a
 * set there first) and before the pushers', tested a group at a time
 * until JOINERS_WANTED joined, and three times the set's lines (the
 * replacement test's groups), or the pool is done; all on the pool's
 * frames.  They are drawn in random order, so that any number of them
 * stands for all those pages: runs of neighbouring frames, and pages
 * a fixed step apart, may favour some colours (on the simulated
 * machine, 46 pages in 512 in a row, and 64 in 2464 a golden-ratio step
 * apart, had a colour that 1 in 61 of the pool's pages have). */
static int counted_share(struct amp_ctx *c, const struct amp_level *lv, struct evset *e, uint64_t *tested,
			 uint64_t *joined, char *err, size_t len)
{
	uint64_t k = group_size(c, lv, e), g[AMP_MAX_CONG], m = 0;
	uint64_t lines = 3 * e->nset < AMP_SET_LINES_MAX - e->nset ? 3 * e->nset : AMP_SET_LINES_MAX - e->nset;
	uint64_t range = (e->npush ? e->push_from : e->npool) - e->searched;
	uint64_t *order = malloc(range * sizeof *order);
	struct amp_rng r;
	int rc = 0;

	if (!order) {
		snprintf(err, len, "out of memory for %llu candidates", (unsigned long long)range);
		return -1;
	}
	for (uint64_t j = 0; j < range; j++)
		order[j] = e->pool[e->searched + j];
	amp_rng_seed(&r, c->seed ^ 0x73686172ULL ^ e->pool[0]);
	amp_shuffle(order, (size_t)range, &r);
	for (uint64_t j = 0; j < range && rc == 0 && (*joined < JOINERS_WANTED || e->njoin < lines); j++) {
		g[m++] = order[j];
		if (m == k) {
			rc = count_joiners(c, lv, e, g, m, joined, err, len);
			*tested += m;
			m = 0;
		}
	}
	free(order);
	return rc;
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
	if (thrashes(c, lv, e, t, k, e->region, &yes, err, len) < 0)
		return -1;
	*fits = !yes;
	return 0;
}

/* Timing: the line, X-Ray's block size (4.4.1) with an eviction test for
 * the thrash: the set moved by b bytes still evicts the target while b
 * is inside its lines, and from the next line on it walks other sets.
 * The smallest b that spares the target is the line.  The set's lines
 * sit at a multiple of 512 B in their pages, so b up to 256 B stays
 * inside any line of up to 512; lines of the target's L1 set that do
 * not evict it are walked first, so the target leaves L1 whatever L1's
 * line. */
static int target_line_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
			    char *err, size_t len)
{
	const struct evset *e = &found[v % AMP_MAX_VOTES];
	uint64_t moved[3 * AMP_MAX_CONG], ways = e->nset - 1;
	double t;
	int yes;

	if (!e->nset) {
		snprintf(err, len, "%s: no eviction set from the associativity vote", lv->name);
		return -1;
	}
	/* The L1 lines first: walked after the set they spared the target
	 * here (its reload at the hit's 52 ticks against 85-95 without
	 * them, on the Zen 5 guest). */
	memcpy(moved, e->l1, e->nl1 * sizeof *moved);
	for (uint64_t b = 0; b <= 256; b = b ? 2 * b : 8) {
		/* The pushers move with the set: past L1's line the set
		 * shares an L1 set with them, not with the target, and
		 * alone it could fit there and never reach this level. */
		for (uint64_t i = 0; i < ways; i++)
			moved[e->nl1 + i] = e->set[1 + i] + b;
		for (uint64_t i = 0; i < e->npush; i++)
			moved[e->nl1 + ways + i] = e->push[i] + b;
		if (evicts_best_of_three(c, e, e->set[0], moved, e->nl1 + ways + e->npush, &t, &yes, err, len) < 0)
			return -1;
		amp_trace_point(lv, "timing", "offset_bytes", "offset of the moved eviction set (bytes)", (double)b,
				"extra_ticks", "ticks the reload takes beyond the base walk's", t, 0);
		if (yes)
			continue;
		if (b == 0) {
			/* The control: unmoved, the set must evict. */
			snprintf(err, len, "%s: its eviction set no longer evicts its target (reload %.1f ticks)",
				 lv->name, t);
			return -1;
		}
		*value = (int64_t)b;
		return 0;
	}
	snprintf(err, len, "%s: its eviction set moved by up to 256 B still evicts its target", lv->name);
	return -1;
}

/* Timing, the way size: random lines (a random pool page, a random
 * offset) join the target's set in a share of one over its sets,
 * whatever bits its index takes, hashed (the Zen 5 guest's L2: 1 line in
 * ~56 at one page offset joins) or not.  A test walks ways - 1 lines of
 * the set and a group of lines of one page offset: the target goes iff
 * one of them joins.  The group holds more lines than L1 has ways, so it
 * overflows its L1 set and every walk reaches this level (a line left in
 * L1 would not count); halves of a group that evicts are filled up with
 * lines of the same offset known not to join, down to single lines. */
struct sampler {
	struct amp_ctx *c;
	const struct evset *e;
	struct amp_rng r;
	uint64_t group;   /* lines per test: L1's ways + 4 */
	uint64_t joined;  /* lone lines that evicted the target every time */
	/* Lone lines that evicted it once, and their fillers, to test again */
	uint64_t cand[JOIN_BATCH];
	const uint64_t *cand_fill[JOIN_BATCH];
	unsigned ncand;
};

/* Whether the set's lines from set[from] on, then g[0..k-1] and
 * fill[0..nfill-1], evict line `target`. */
static int set_walk_evicts(struct amp_ctx *c, const struct evset *e, uint64_t target, uint64_t from,
			   const uint64_t *g, uint64_t k, const uint64_t *fill, uint64_t nfill, int *yes,
			   char *err, size_t len)
{
	uint64_t walk[2 * AMP_MAX_CONG], n = e->nset - from;

	memcpy(walk, e->set + from, n * sizeof *walk);
	if (k)
		memcpy(walk + n, g, k * sizeof *g);
	if (nfill)
		memcpy(walk + n + k, fill, nfill * sizeof *fill);
	return evicts(c, e, target, walk, n + k + nfill, AMP_RELOAD_REPS, NULL, yes, err, len);
}

/* Whether ways - 1 lines of the set, g[0..k-1] and fill[0..nfill-1]
 * evict the target: iff one of g or fill joins its set. */
static int joined_evicts(struct amp_ctx *c, const struct evset *e, const uint64_t *g, uint64_t k,
			 const uint64_t *fill, uint64_t nfill, int *yes, char *err, size_t len)
{
	return set_walk_evicts(c, e, e->set[0], 2, g, k, fill, nfill, yes, err, len);
}

static int group_evicts(struct sampler *sm, const uint64_t *g, uint64_t k, const uint64_t *fill, int *yes,
			char *err, size_t len)
{
	return joined_evicts(sm->c, sm->e, g, k, fill, fill ? sm->group - k : 0, yes, err, len);
}

/* k lines at page offset `off` of random pool pages other than the set's. */
static void random_lines(struct sampler *sm, uint64_t off, uint64_t *g, uint64_t k)
{
	const struct evset *e = sm->e;

	for (uint64_t i = 0; i < k; i++) {
		uint64_t page;

		do
			page = 1 + amp_rng_below(&sm->r, e->npool);
		while (in_set(e, page * e->spacing + e->set[0] % e->spacing));
		g[i] = page * e->spacing + off;
	}
}

/* Whether the set's ways lines (all but the target) evict line y, with
 * fill (y's offset, or NULL at the target's) flushing y from L1: iff y
 * is in the set.  A line that evicts the target and is not (its access
 * sends a prefetcher into the target's set) is spared.  On this
 * project's Zen 5 guest, in two runs 15% and over 20% of the joiners
 * lay 256 B below the target's offset (modulo 1 KiB: its L2 index
 * hashes the bits above); a joiner came every 700 to 1000 lines tested,
 * not 1024, and the way votes split between 32 and 64 KiB. */
static int set_evicts(struct sampler *sm, uint64_t y, const uint64_t *fill, int *yes, char *err, size_t len)
{
	return set_walk_evicts(sm->c, sm->e, y, 1, NULL, 0, fill, fill ? sm->group - 1 : 0, yes, err, len);
}

/* The lone lines that evicted the target are tested again, in rounds
 * over the batch (a line's retests lie a batch of tests apart, not in
 * one busy spell), and count only where they evict it every time.  On
 * the Zen 4 guest a fifth of them spared it in some of four retests
 * (noise, prefetches): counted, they read the share half again too big,
 * past the power of two above (a way of 64 KiB for 128). */
static int confirm_joiners(struct sampler *sm, char *err, size_t len)
{
	int alive[JOIN_BATCH];

	for (unsigned i = 0; i < sm->ncand; i++)
		alive[i] = 1;
	for (int round = 0; round < JOIN_RETESTS; round++)
		for (unsigned i = 0; i < sm->ncand; i++)
			if (alive[i] && group_evicts(sm, &sm->cand[i], 1, sm->cand_fill[i], &alive[i], err, len) < 0)
				return -1;
	for (unsigned i = 0; i < sm->ncand; i++)
		if (alive[i] && set_evicts(sm, sm->cand[i], sm->cand_fill[i], &alive[i], err, len) < 0)
			return -1;
	for (unsigned i = 0; i < sm->ncand; i++)
		sm->joined += (uint64_t)alive[i];
	sm->ncand = 0;
	return 0;
}

/* Finds the lone lines among g[0..k-1] (which evict together). */
static int count_in_group(struct sampler *sm, const uint64_t *g, uint64_t k, const uint64_t *fill,
			  char *err, size_t len)
{
	int yes;

	if (k == 1) {
		sm->cand[sm->ncand] = g[0];
		sm->cand_fill[sm->ncand] = fill;
		return ++sm->ncand == JOIN_BATCH ? confirm_joiners(sm, err, len) : 0;
	}
	for (int half = 0; half < 2; half++) {
		const uint64_t *h = g + (half ? k / 2 : 0);
		uint64_t hk = half ? k - k / 2 : k / 2;

		if (group_evicts(sm, h, hk, fill, &yes, err, len) < 0)
			return -1;
		if (yes && count_in_group(sm, h, hk, fill, err, len) < 0)
			return -1;
	}
	return 0;
}

static int target_way_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
			   char *err, size_t len)
{
	const struct evset *e = &found[v % AMP_MAX_VOTES];
	uint64_t line = (uint64_t)lv->line.value, tested = 0, g[AMP_MAX_CONG], slots, *fills = NULL, *fill;
	uint64_t l1way = lv->above->way.known ? (uint64_t)lv->above->way.value : c->page;
	struct sampler sm = { .c = c, .e = e, .group = (uint64_t)lv->above->assoc.value + 4 };
	char *found_fill = NULL;
	int yes;

	if (!e->nset) {
		snprintf(err, len, "%s: no eviction set from the associativity vote", lv->name);
		return -1;
	}
	if (!amp_param_conclusive(&lv->line)) {
		snprintf(err, len, "%s: needs its line first", lv->name);
		return -1;
	}
	if (sm.group + e->nset - 2 > 2 * AMP_MAX_CONG || sm.group > AMP_MAX_CONG) {
		snprintf(err, len, "%s: too many ways above it for a sampling group", lv->name);
		return -1;
	}
	slots = c->page / line;
	fills = malloc(slots * sm.group * sizeof *fills);
	found_fill = calloc(slots, 1);
	if (!fills || !found_fill) {
		snprintf(err, len, "out of memory");
		goto fail;
	}
	amp_rng_seed(&sm.r, c->seed ^ 0x73657473ULL ^ v);
	/* Every offset in turn (a plain index puts all joiners at one
	 * offset: drawing offsets at random would add their count's spread
	 * to the share's). */
	for (uint64_t k = 0; sm.joined < JOINERS_TIMED && tested < CANDIDATES_TIMED; k++) {
		uint64_t slot = (k * 37 + v) % slots, off = slot * line;

		random_lines(&sm, off, g, sm.group);
		if (group_evicts(&sm, g, sm.group, NULL, &yes, err, len) < 0)
			goto fail;
		tested += sm.group;
		if (!yes)
			continue;
		/* Fillers: a group of the same offset that spares the target,
		 * kept for that offset.  None in the target's L1 set: the set's
		 * lines overflow it already (and there, where a plain index
		 * puts all its joiners, few groups would spare the target). */
		fill = off % l1way == e->set[0] % l1way ? NULL : fills + slot * sm.group;
		for (int t = 0; fill && !found_fill[slot]; t++) {
			int fill_yes;

			if (t == FILL_TRIES) {
				snprintf(err, len, "%s: no group of lines at offset %llu spares its target",
					 lv->name, (unsigned long long)off);
				goto fail;
			}
			random_lines(&sm, off, fill, sm.group);
			if (group_evicts(&sm, fill, sm.group, NULL, &fill_yes, err, len) < 0)
				goto fail;
			found_fill[slot] = !fill_yes;
		}
		if (count_in_group(&sm, g, sm.group, fill, err, len) < 0)
			goto fail;
	}
	if (confirm_joiners(&sm, err, len) < 0)
		goto fail;
	free(fills);
	free(found_fill);
	amp_trace_point(lv, "timing", "lines_tested", "random lines tested (per vote)", (double)tested,
			"joined", "lines that joined the set", (double)sm.joined, 0);
	if (sm.joined < JOINERS_TIMED / 4) {
		snprintf(err, len, "%s: only %llu of %llu random lines joined its set", lv->name,
			 (unsigned long long)sm.joined, (unsigned long long)tested);
		return -1;
	}
	*value = (int64_t)(pow(2.0, round(log2((double)tested / (double)sm.joined))) * (double)line);
	return 0;
fail:
	free(fills);
	free(found_fill);
	return -1;
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
	if (lv->method == AMP_METHOD_TIMING)
		return target_way_vote(c, lv, v, value, err, len);
	if (lv->method == AMP_METHOD_COUNTERS) {
		if (counted_share(c, lv, e, &tested, &joined, err, len) < 0)
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

/* Inclusion (the inclusion module's test, on an eviction set): a line K
 * stays in L1, touched between every few lines of a walk of the
 * target's set, which reach this level.  With K the target the walk
 * thrashes K's set here (the set's ways lines plus K) while K's touches
 * hit L1 and never tell this level that K is in use:
 *  - inclusive: evicting K here takes it from L1, the next touch misses
 *    both, and K comes back to thrash the set again, pass after pass;
 *  - not inclusive: K leaves this level once and stays in L1, and the
 *    set's lines fit from then on.
 * The control keeps another line of the same L1 set that does not join
 * the target's set here.  By timing the two walks run by turns
 * (amp_run_pair) and differ by ticks; with counters by this level's
 * misses, and L1's misses check first that the control's line was kept
 * at all (a FIFO L1 lets it go, and then every touch of K
 * reaches this level and thrashes K's set whatever the inclusion).
 * Where the level is not inclusive, a second pair tells exclusive from
 * NINE: after the walk, lines of the L1 set (none of them in the target's
 * set here) push K out of L1 and K is reloaded: an exclusive level took
 * it as L1's victim (a hit here), a NINE one lost it to the walk (a miss
 * here); the control's K never left this level.  Chains go through the
 * next word of K at each touch; the control walks the set's lines at
 * their second word (two chains may not share a word). */
#define INCL_PASSES 4
#define INCL_CANDIDATES 8

#define INCL_CHAIN_MAX (8 * AMP_MAX_CONG)
struct incl_test {
	uint64_t chain[INCL_CHAIN_MAX], nchain; /* set lines and pushers, K before each */
	uint64_t warm, reload;
	enum amp_op op;  /* the walk's: chased by timing, touched with counters */
	unsigned prime;  /* priming passes; 0: 1 + 2 x ways (incl_plan) */
};

/* The same for the kept target and the control.  By timing: L1's ways
 * and two more lines of its set, none in the target's set; with
 * counters: the set's lines and the pushers. */
struct incl_flush {
	uint64_t line[2 * AMP_MAX_CONG], n;
};

/* Counters, a third level under an inclusive second (seed 19's h1 in
 * the policy matrix: a 24-way L3 under a 16-way LRU L2 under a random
 * L1d): the walk of the target's set here also overflows its set in the
 * level between, and K's touches that hit L1 never tell that level K is
 * in use: it lets K go, takes it from L1 too, and K's next touch
 * misses there whatever this level does.  Evictors, pool lines of K's
 * L1 set out of the walk, touched before K every `step` lines of the
 * walk, take K out of L1 so that each touch reaches the level between
 * and keeps it there. */
#define INCL_EVICTORS_MAX AMP_SET_LINES_MAX
struct incl_evictors {
	uint64_t line[INCL_EVICTORS_MAX], n;
	uint64_t step, want;
};

static void incl_evict(const struct incl_evictors *ev, struct incl_test *t)
{
	for (uint64_t j = 0; j < ev->n; j++)
		t->chain[t->nchain++] = ev->line[j];
}

/* Candidates for evictors of a third level, from the end of the pool,
 * none in the set, a pusher, a known joiner or the control: 2 wanted per
 * way of L1 (4 where it replaces at random), K touched every quarter of
 * the level between's ways.  0 where they do not apply or the chain has
 * no room. */
static int incl_evictors_find(const struct amp_ctx *c, const struct amp_level *lv, const struct evset *e,
			      uint64_t other, struct incl_evictors *ev)
{
	const struct amp_level *up = lv->above, *top = up->above;
	uint64_t walk = e->nset - 1 + e->npush;

	if (!top || top->above || !top->assoc.known || up->thrash_ways < 4)
		return 0;
	ev->n = 0;
	ev->step = (uint64_t)up->thrash_ways / 4;
	ev->want = (uint64_t)top->assoc.value * (amp_replaces_at_random(top) ? 4 : 2);
	/* Where L1's way is under a page, lines of its set at other page
	 * offsets first: the level between's index holds those bits, so they
	 * miss its set (every line at the pool's offset may share it: a
	 * 64-set L2 of 32 B lines indexes within the page). */
	if (amp_param_conclusive(&top->way) && (uint64_t)top->way.value < c->page &&
	    c->page % (uint64_t)top->way.value == 0) {
		uint64_t w1 = (uint64_t)top->way.value, shifts = c->page / w1 - 1;

		for (uint64_t i = e->npool, k = 0; i-- > e->nbase && ev->n < INCL_EVICTORS_MAX / 2; k++) {
			uint64_t page = e->pool[i] / c->page * c->page, off = e->pool[i] - page;

			ev->line[ev->n++] = page + (off + (1 + k % shifts) * w1) % c->page;
		}
	}
	for (uint64_t i = e->npool; i-- > e->nbase && ev->n < INCL_EVICTORS_MAX;) {
		uint64_t x = e->pool[i];

		if (!in_set(e, x) && x != other && !amp_contains(e->push, e->npush, x) &&
		    !amp_contains(e->join, e->njoin, x))
			ev->line[ev->n++] = x;
	}
	return ev->want < ev->n && walk + (walk + ev->step - 1) / ev->step * (ev->want + 1) <= INCL_CHAIN_MAX;
}

/* The walk of the set's ways lines at `word`, with K touched before
 * every `every` of them (every 0: no K).  With counters the walk is
 * touched, not chased (its order still holds on the simulated machine,
 * and a count needs no chain), so K's touches may repeat a word.  With
 * evictors (counters; ev NULL: none) the pushers and the set's lines
 * are one walk, with the evictors and then K before every ev->step of
 * them (the evictors alone where there is no K). */
static void incl_chain(const struct amp_ctx *c, const struct amp_level *lv, const struct evset *e,
		       uint64_t keep, unsigned word, unsigned every, const struct incl_evictors *ev,
		       struct incl_test *t)
{
	int counted = lv->method == AMP_METHOD_COUNTERS;
	/* By timing each touch of K takes a word of its own: no room for
	 * the pushers' touches (target_inclusion_vote then needs the set
	 * to overflow L1 alone). */
	uint64_t ways = e->nset - 1, push_every = 1, npush = counted ? e->npush : 0;

	for (uint64_t w = 4; w <= (uint64_t)lv->above->thrash_ways; w *= 2)
		push_every++;
	t->op = counted ? AMP_OP_TOUCH : AMP_OP_LOAD;
	t->nchain = 0;
	t->prime = 0;
	t->warm = keep ^ (c->page / 2);
	t->reload = keep;
	if (ev && counted) {
		for (uint64_t i = 0; i < npush + ways; i++) {
			if (i % ev->step == 0) {
				incl_evict(ev, t);
				if (every)
					t->chain[t->nchain++] = keep;
			}
			t->chain[t->nchain++] = i < npush ? e->push[i] : e->set[1 + i - npush] + 8 * word;
		}
		return;
	}
	/* Pushers (counters only) first, K touched before every log2(L1's
	 * ways) of them (a line touched that recently stays in L1 under
	 * lru and tree plru alike).  A touch of K that noise made miss L1
	 * puts K back here, and only the set's lines after it take it out
	 * again: they come last, and K's touches among the pushers are few. */
	for (uint64_t i = 0; i < npush; i++) {
		if (every && i % push_every == 0)
			t->chain[t->nchain++] = keep;
		t->chain[t->nchain++] = e->push[i];
	}
	for (uint64_t i = 0; i < ways; i++) {
		if (every && i % every == 0)
			t->chain[t->nchain++] = keep + (t->op == AMP_OP_TOUCH ? 0 : 8 * (i / every));
		t->chain[t->nchain++] = e->set[1 + i] + 8 * word;
	}
	t->reload = every && t->op == AMP_OP_LOAD ? keep + 8 * ((ways + every - 1) / every) : keep;
}

/* The walk's plan (measured: its passes), or, with a flush, the walk,
 * the flush, the warm-up line and K's reload (measured: the reload).
 * With counters the flush is the set's lines (and the pushers) walked
 * without K, over and over: they push K out of L1 and, where this level
 * is NINE, out of it too even under random replacement and where noise
 * dropped K from L1 late in the walk (its touch brought it back here).  (By timing the
 * flush is flush->line; the set there holds an exclusive level's ways
 * and L1's, which would overflow with K.) */
static int incl_plan(struct amp_plan *p, const struct amp_level *lv, const struct evset *e, struct incl_test *t,
		     const struct incl_flush *flush)
{
	int counted = lv->method == AMP_METHOD_COUNTERS, w, f, m, k;
	unsigned ways = (unsigned)(e->nset - 1);

	amp_plan_init(p, "inclusion", e->region);
	p->arena = lv->method == AMP_METHOD_COUNTERS ? amp_set_frames(lv) : &e->arena;
	w = amp_plan_add_seq(p, t->chain, (size_t)t->nchain);
	if (w < 0)
		goto oom;
	/* Primed long enough that K has left this level's set where it can
	 * (under random replacement it leaves after ways misses or so, and
	 * the set's overflow may cost only a couple a pass). */
	amp_plan_add_pass(p, w, t->op, t->prime ? t->prime : 1 + 2 * ways, 0);
	if (!flush) {
		amp_plan_add_pass(p, w, t->op, INCL_PASSES, 1);
		return 0;
	}
	f = amp_plan_add_seq(p, flush->line, (size_t)flush->n);
	m = amp_plan_add_seq(p, &t->warm, 1);
	k = amp_plan_add_seq(p, &t->reload, 1);
	if (f < 0 || m < 0 || k < 0)
		goto oom;
	amp_plan_add_pass(p, f, AMP_OP_TOUCH, counted ? 1 + 4 * ways : 1, 0);
	amp_plan_add_pass(p, m, AMP_OP_LOAD, 1, 0);
	amp_plan_add_pass(p, k, AMP_OP_TOUCH, 1, 1);
	return 0;
oom:
	amp_plan_free(p);
	return -1;
}

/* Counters: misses of event ev in t's plan, the minimum over c->reps
 * runs; with a flush, the mean: the reload is one miss or none, and
 * noise that drops K from L1 brings it back here (a run the minimum
 * would pick). */
static int incl_count(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, struct incl_test *t,
		      const struct incl_flush *flush, enum amp_event ev, double *misses, char *err, size_t len)
{
	struct amp_plan p;
	int rc;

	if (incl_plan(&p, lv, e, t, flush) < 0) {
		snprintf(err, len, "out of memory for an inclusion test");
		return -1;
	}
	rc = flush ? amp_count_mean(c, &p, ev, misses, err, len) : amp_count(c, &p, ev, misses, err, len);
	amp_plan_free(&p);
	return rc;
}

/* What the kept target's plan costs beyond the control's: ticks by
 * timing, this level's misses with counters. */
static int incl_pair(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, struct incl_test *x,
		     struct incl_test *y, const struct incl_flush *flush, double *diff, char *err, size_t len)
{
	struct amp_plan px, py;
	double tx, ty;
	int rc;

	if (lv->method == AMP_METHOD_COUNTERS) {
		if (incl_count(c, lv, e, x, flush, lv->ev, &tx, err, len) < 0 ||
		    incl_count(c, lv, e, y, flush, lv->ev, &ty, err, len) < 0)
			return -1;
		*diff = tx - ty;
		return 0;
	}
	if (incl_plan(&px, lv, e, x, flush) < 0)
		goto oom;
	if (incl_plan(&py, lv, e, y, flush) < 0) {
		amp_plan_free(&px);
		goto oom;
	}
	rc = amp_run_pair(&px, &py, c->host, VERIFY_REPS, &tx, &ty, err, len);
	c->accesses += (amp_plan_accesses(&px, 0) + amp_plan_accesses(&py, 0)) * VERIFY_REPS;
	amp_plan_free(&px);
	amp_plan_free(&py);
	*diff = tx - ty;
	return rc;
oom:
	snprintf(err, len, "out of memory for an inclusion test");
	return -1;
}

#define INCL_EVICTOR_GROUP 8

/* Misses in the level between ([0]) and here ([1]) of the set's ways
 * lines walked with m candidate evictors after them, once a pass.  Two
 * passes prime it: the set's lines overflow their set between at once,
 * and a joiner here overflows its set by one from the first pass. */
#define EVICTORS_PRIME 2
static int evictors_walk(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, const uint64_t *line,
			 uint64_t m, double miss[2], char *err, size_t len)
{
	struct incl_test walk = { .op = AMP_OP_TOUCH, .prime = EVICTORS_PRIME };
	uint64_t ways = e->nset - 1;
	struct amp_plan p;
	int rc;

	memcpy(walk.chain, e->set + 1, ways * sizeof *walk.chain);
	if (m)
		memcpy(walk.chain + ways, line, m * sizeof *walk.chain);
	walk.nchain = ways + m;
	if (incl_plan(&p, lv, e, &walk, NULL) < 0) {
		snprintf(err, len, "out of memory for an inclusion test");
		return -1;
	}
	snprintf(p.name, sizeof p.name, "inclusion, evictors");
	rc = amp_count(c, &p, lv->above->ev, &miss[0], err, len) < 0 || amp_count(c, &p, lv->ev, &miss[1], err, len) < 0;
	amp_plan_free(&p);
	return rc ? -1 : 0;
}

/* Whether any of m candidates joins the target's set between or here:
 * beyond the set's own misses (base), half a miss a pass or more. */
static int evictors_join(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, const uint64_t *line,
			 uint64_t m, const double base[2], int *joins, char *err, size_t len)
{
	double miss[2];

	if (evictors_walk(c, lv, e, line, m, miss, err, len) < 0)
		return -1;
	*joins = miss[0] - base[0] >= INCL_PASSES / 2.0 || miss[1] - base[1] >= INCL_PASSES / 2.0;
	return 0;
}

/* Keeps the first ev->want candidates out of the target's set in the
 * level between and here.  Walked once a pass after the set's lines, one
 * in the set between misses there every pass (the set's lines overflow
 * it), and one in the set here overflows it; as an evictor either would
 * thrash K's set beside K.  (The pool's L1 set may hold few colours of
 * the level between: 1 line in 4 joined it on the simulated machine.)
 * Tested in groups of INCL_EVICTOR_GROUP, the lines of a group that
 * joins one by one.  0 (ev->n may then be too few), or -1 with err. */
static int incl_evictors_out_of_set(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e,
				    struct incl_evictors *ev, char *err, size_t len)
{
	uint64_t kept = 0;
	double base[2];
	int joins;

	if (evictors_walk(c, lv, e, NULL, 0, base, err, len) < 0)
		return -1;
	for (uint64_t i = 0; i < ev->n && kept < ev->want; i += INCL_EVICTOR_GROUP) {
		uint64_t m = ev->n - i < INCL_EVICTOR_GROUP ? ev->n - i : INCL_EVICTOR_GROUP;

		if (evictors_join(c, lv, e, ev->line + i, m, base, &joins, err, len) < 0)
			return -1;
		for (uint64_t j = i; j < i + m && kept < ev->want; j++) {
			int one = 0;

			if (joins && evictors_join(c, lv, e, ev->line + j, 1, base, &one, err, len) < 0)
				return -1;
			if (!one)
				ev->line[kept++] = ev->line[j];
		}
	}
	ev->n = kept;
	return 0;
}

/* Counters: whether the control's line stayed in the level above
 * through its walk: its misses no more than the walk alone has, give or
 * take half a miss per pass (its touches would add one each).  Below L2
 * the control's line may lie in another set of the level above (its
 * frame's colour there), which then keeps it whatever it does: the
 * target itself is the control there, with one set line fewer, so that
 * its set here never overflows while the walk still overflows its set
 * above (where the set has lines enough). */
static int control_kept(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e,
			struct incl_test *y, const struct incl_evictors *ev, int *kept, char *err, size_t len)
{
	struct incl_test walk, own;
	struct evset fewer = *e;
	double with, without;

	if (lv->above->above && e->nset - 2 > (uint64_t)lv->above->thrash_ways) {
		fewer.nset--;
		incl_chain(c, lv, &fewer, e->set[0], 0, 1, ev, &own);
		y = &own;
	}
	incl_chain(c, lv, &fewer, 0, 1, 0, ev, &walk);
	if (incl_count(c, lv, &fewer, y, NULL, lv->above->ev, &with, err, len) < 0 ||
	    incl_count(c, lv, &fewer, &walk, NULL, lv->above->ev, &without, err, len) < 0)
		return -1;
	*kept = with - without < INCL_PASSES / 2.0;
	return 0;
}

/* Counters: the kept target's walk x and the control's y, K touched
 * before every line, and whether the level above kept the control's K
 * through its walk.  Two ways to keep it: in L1, its touches hitting
 * there, or (a third level) in the level between, evictors taking it
 * out of L1 before each touch.  Under a random L1 the first loses K
 * now and then, and each loss costs this level's set a round of misses
 * (a NINE L3 read inclusive on the simulated machine): the evictors go
 * first there; elsewhere they are the second try. */
static int incl_keep(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, uint64_t other,
		     struct incl_test *x, struct incl_test *y, int *kept, char *err, size_t len)
{
	const struct amp_level *top = amp_level_top(lv);
	struct incl_evictors ev;
	int evict_first = amp_replaces_at_random(top);

	for (int pass = 0; pass < 2; pass++) {
		const struct incl_evictors *with = (pass == 0) == evict_first ? &ev : NULL;

		if (with) {
			if (!incl_evictors_find(c, lv, e, other, &ev))
				continue;
			if (incl_evictors_out_of_set(c, lv, e, &ev, err, len) < 0)
				return -1;
			if (ev.n < ev.want)
				continue;
		}
		incl_chain(c, lv, e, e->set[0], 0, 1, with, x);
		incl_chain(c, lv, e, other, 1, 1, with, y);
		if (control_kept(c, lv, e, y, with, kept, err, len) < 0)
			return -1;
		if (*kept)
			return 0;
	}
	return 0;
}

/* The control's K: a pool line at the target's offset that stays out of
 * the target's set (with ways - 1 lines of the set it spares the target;
 * counted, with ways lines of it it does not thrash). */
static int incl_control(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, uint64_t *other,
			char *err, size_t len)
{
	int yes = 1;

	for (uint64_t i = e->nbase, tried = 0; i < e->npool && yes; i++) {
		if (in_set(e, e->pool[i]))
			continue;
		if (tried++ == INCL_CANDIDATES) {
			snprintf(err, len, "%s: none of %d pool lines stays out of its target's set", lv->name,
				 INCL_CANDIDATES);
			return -1;
		}
		*other = e->pool[i];
		if ((lv->method == AMP_METHOD_COUNTERS ? joins(c, lv, e, *other, &yes, err, len)
						       : joined_evicts(c, e, other, 1, NULL, 0, &yes, err, len)) < 0)
			return -1;
	}
	if (yes) {
		snprintf(err, len, "%s: every pool line joins its target's set", lv->name);
		return -1;
	}
	return 0;
}

/* Counters, a set found with pushers: whether max(L1's ways, its ways)
 * + 1 lines of it fit when walked without pushers.  They overflow L1's
 * set and this one alike, so they thrash unless this level is
 * exclusive: then the pair holds L1's ways and its own (X-Ray's C1 +
 * C2).  Capacity, not a reload: no noise that brings a line back here
 * can fake it. */
static int pair_fits(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, int *fits, char *err,
		     size_t len)
{
	uint64_t ways = e->nset - 1, above = (uint64_t)lv->above->thrash_ways, t[2 * AMP_MAX_CONG], k = 0;
	uint64_t n = (above > ways ? above : ways) + 1;
	int yes;

	for (uint64_t i = 0; i < e->nset && k < n; i++)
		t[k++] = e->set[i];
	for (uint64_t i = 0; i < e->njoin && k < n; i++)
		t[k++] = e->join[i];
	if (k < n) {
		snprintf(err, len, "%s: %llu lines of its set known, %llu wanted to tell an exclusive pair", lv->name,
			 (unsigned long long)k, (unsigned long long)n);
		return -1;
	}
	if (thrashes(c, lv, NULL, t, n, e->region, &yes, err, len) < 0)
		return -1;
	*fits = !yes;
	if (*fits) {
		/* Under a random level above most of the walk may hit there
		 * and never come here: a NINE L3 under a random 10-way L2 missed
		 * 0.2 a walk of 13 lines, 2.9 of which missed L2. */
		double above_rate;

		if (walk_rate_at(c, lv->above, lv, NULL, t, n, e->region, &above_rate, err, len) < 0)
			return -1;
		if (2 * above_rate < 1) {
			snprintf(err, len, "%s: a walk of %llu lines of its set missed %s %.1f times: most stay there (random replacement?), so their fitting here says nothing of exclusion",
				 lv->name, (unsigned long long)n, lv->above->name, above_rate * (double)n);
			return -1;
		}
	}
	return 0;
}

/* Counters: the stores' inclusion test (inclusion_by_stores) waited for
 * the joiners of the way vote: the inclusion vote runs again after it. */
static _Thread_local int stores_want_joiners;

/* Counters: misses of ev in a plan that flushes `load` and `store`,
 * loads `load` (unmeasured), stores to `store` (unmeasured), then loads
 * `probe` (measured); the mean over the repetitions (each run is a few
 * misses or none). */
static int stored_between(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, uint64_t load,
			  const uint64_t *store, uint64_t n, const uint64_t *probe, uint64_t np, enum amp_event ev,
			  double *misses, char *err, size_t len)
{
	struct amp_plan p;
	uint64_t all[AMP_SET_LINES_MAX + 1];
	int f, k, s, q, rc;

	memcpy(all, store, n * sizeof *all);
	all[n] = load;
	amp_plan_init(&p, "inclusion, stores", e->region);
	p.arena = amp_set_frames(lv);
	f = amp_plan_add_seq(&p, all, (size_t)(n + 1));
	k = amp_plan_add_seq(&p, &load, 1);
	s = amp_plan_add_seq(&p, store, (size_t)n);
	q = amp_plan_add_seq(&p, probe, (size_t)np);
	if (f < 0 || k < 0 || s < 0 || q < 0) {
		amp_plan_free(&p);
		snprintf(err, len, "out of memory for an inclusion test");
		return -1;
	}
	amp_plan_add_pass(&p, f, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(&p, k, AMP_OP_TOUCH, 1, 0);
	amp_plan_add_pass(&p, s, AMP_OP_STORE, 1, 0);
	amp_plan_add_pass(&p, q, AMP_OP_TOUCH, 1, 1);
	rc = amp_count_mean(c, &p, ev, misses, err, len);
	amp_plan_free(&p);
	return rc;
}

/* The set's lines but its target, then the way vote's joiners, at most
 * AMP_SET_LINES_MAX in all, into out; how many. */
static uint64_t set_others(const struct evset *e, uint64_t *out)
{
	uint64_t n = 0;

	for (uint64_t i = 1; i < e->nset; i++)
		out[n++] = e->set[i];
	for (uint64_t i = 0; i < e->njoin && n < AMP_SET_LINES_MAX; i++)
		out[n++] = e->join[i];
	return n;
}

/* Counters, where L1 cannot keep a line through a walk of its set
 * (direct-mapped or FIFO): stores that bypass L1 (write-no-allocate
 * there) but allocate here fill K's set here without touching L1.  K
 * loaded, the set's other lines (and joiners) stored, K loaded again:
 * an inclusive level took K from L1 when the stores evicted it here,
 * so K misses here; a NINE one left it in L1.  Checked first: the
 * stores leave a line of L1's set out of this set in L1 (they bypass
 * L1), and ways of them stored then loaded hit here (they allocate). */
static int inclusion_by_stores(struct amp_ctx *c, struct amp_level *lv, const struct evset *e, uint64_t other,
			       int64_t *value, char *err, size_t len)
{
	const struct amp_level *up = lv->above;
	uint64_t ways = e->nset - 1, store[AMP_SET_LINES_MAX], n = set_others(e, store);
	double kept_above, missed_here, reload;

	/* Under random replacement K goes only after many more stores than
	 * ways (the first fill the ways a flush left empty): the joiners
	 * too, which the way vote finds. */
	if (n < 3 * ways) {
		stores_want_joiners = 1;
		snprintf(err, len, "the way vote's joiners are not known yet");
		return -1;
	}
	/* Below L2 `other` may lie in another set of the level above, which
	 * keeps it whatever the stores do: K itself there, with one store
	 * fewer than would overflow its set here (more than its set above
	 * holds, where the set has lines enough). */
	if (up->above && ways - 1 > (uint64_t)up->thrash_ways) {
		if (stored_between(c, lv, e, e->set[0], store, ways - 1, &e->set[0], 1, up->ev, &kept_above, err,
				   len) < 0)
			return -1;
	} else if (stored_between(c, lv, e, other, store, n, &other, 1, up->ev, &kept_above, err, len) < 0) {
		return -1;
	}
	if (stored_between(c, lv, e, other, store, ways, store, ways, lv->ev, &missed_here, err, len) < 0)
		return -1;
	if (kept_above >= 0.5 || missed_here >= ways / 2.0) {
		snprintf(err, len, "stores %s", kept_above >= 0.5 ? "allocate there too" : "do not allocate here");
		return -1;
	}
	if (stored_between(c, lv, e, e->set[0], store, n, &e->set[0], 1, lv->ev, &reload, err, len) < 0)
		return -1;
	*value = reload >= 0.5 ? AMP_INCL_INCLUSIVE : AMP_INCL_NINE;
	return 0;
}

/* Counters: misses of ev in a plan that flushes k and walk[0..n-1],
 * brings k in by `bring` (a fetch or a load; unmeasured), walks the
 * lines `times` times by `walk_op` (unmeasured), then loads k again
 * (measured: this level's counter may see data misses only, on the
 * simulated machine as on many real ones) or fetches it (`probe`,
 * counted by the L1i's); the mean over the repetitions.  Code sits on
 * its line's own frame, so a fetch and a load of k meet below L1. */
static int probed_after(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e, uint64_t k,
			enum amp_op bring, const uint64_t *walk, uint64_t n, enum amp_op walk_op, unsigned times,
			enum amp_op probe, enum amp_event ev, double *misses, char *err, size_t len)
{
	struct amp_plan p;
	int q, w, rc;

	amp_plan_init(&p, "inclusion, code", e->region);
	p.arena = amp_set_frames(lv);
	p.code_in_region = 1;
	q = amp_plan_add_seq(&p, &k, 1);
	w = n ? amp_plan_add_seq(&p, walk, (size_t)n) : 0;
	if (q < 0 || w < 0) {
		amp_plan_free(&p);
		snprintf(err, len, "out of memory for an inclusion test");
		return -1;
	}
	amp_plan_add_pass(&p, q, AMP_OP_FLUSH, 1, 0);
	if (n)
		amp_plan_add_pass(&p, w, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(&p, q, bring, 1, 0);
	if (n)
		amp_plan_add_pass(&p, w, walk_op, times, 0);
	amp_plan_add_pass(&p, q, probe, 1, 1);
	rc = amp_count_mean(c, &p, ev, misses, err, len);
	amp_plan_free(&p);
	return rc;
}

/* Counters, where fetched code does not stay here: whether this level
 * is exclusive.  Lines of K's set fetched after K push it out of the
 * L1i (its ways are not needed: 1, 2, 4... of them are tried); an
 * exclusive level takes it as the L1i's victim, and a load of K then
 * hits here.  A level of data only never sees it, and where the L1i's
 * way spans pages the lines may miss K's set there: no answer, never a
 * wrong one. */
static int exclusive_by_code(struct amp_ctx *c, const struct amp_level *lv, const struct evset *e,
			     int *exclusive, char *err, size_t len)
{
	uint64_t last = e->nset - 1;
	double victim = 1;

	for (uint64_t a = 1; last > 0; a = a * 2 < last ? a * 2 : last) {
		if (probed_after(c, lv, e, e->set[0], AMP_OP_IFETCH, e->set + 1, a, AMP_OP_IFETCH, 1, AMP_OP_TOUCH,
				 lv->ev, &victim, err, len) < 0)
			return -1;
		if (victim < 0.5 || a == last)
			break;
	}
	*exclusive = victim < 0.5;
	return 0;
}

/* Counters, where L1d cannot keep a line through a walk of its set:
 * the L1i keeps it, fetched as code, since loads never touch the L1i.
 * K fetched, the set's other lines, the joiners and the pushers loaded
 * 1 + 4 x ways times (K leaves this level even under random
 * replacement), K fetched again: an inclusive level took K from the L1i
 * when the loads evicted it here.  Checked first with counts: fetched
 * code stays here (where it does not, exclusive_by_code may tell an
 * exclusive level), the loads take it out of this level (they miss it
 * in a share p of the runs), and leave a fetched line out of this set
 * in the L1i.  The L1i misses on K's refetch above p / 2 mean
 * inclusive.  Levels between L1
 * and this one must be exclusive: an inclusive or NINE one could hold
 * K (the first check could not see this level) or take it from the L1i
 * itself. */
static int inclusion_by_code(struct amp_ctx *c, struct amp_level *lv, const struct evset *e, uint64_t other,
			     int64_t *value, char *err, size_t len)
{
	const struct amp_level *l1i = amp_find_l1i(c);
	uint64_t ways = e->nset - 1, walk[AMP_SET_LINES_MAX + AMP_MAX_CONG], n = set_others(e, walk);
	unsigned times = (unsigned)(1 + 4 * ways);
	double stays, left, kept, refetch;
	int exclusive;

	if (!l1i || !l1i->measurable || l1i->method != AMP_METHOD_COUNTERS) {
		snprintf(err, len, "no L1i miss counter");
		return -1;
	}
	for (const struct amp_level *a = lv->above; a && a->level > 1; a = a->above)
		if (!amp_param_conclusive(&a->inclusion) || a->inclusion.value != AMP_INCL_EXCLUSIVE) {
			snprintf(err, len, "%s between is not known to be exclusive", a->name);
			return -1;
		}
	memcpy(walk + n, e->push, e->npush * sizeof *walk);
	n += e->npush;
	if (probed_after(c, lv, e, e->set[0], AMP_OP_IFETCH, NULL, 0, AMP_OP_TOUCH, 0, AMP_OP_TOUCH, lv->ev, &stays, err,
			 len) < 0)
		return -1;
	if (stays >= 0.5) {
		if (exclusive_by_code(c, lv, e, &exclusive, err, len) < 0)
			return -1;
		if (!exclusive) {
			snprintf(err, len, "fetched code does not stay here");
			return -1;
		}
		*value = AMP_INCL_EXCLUSIVE;
		return 0;
	}
	if (probed_after(c, lv, e, e->set[0], AMP_OP_IFETCH, walk, n, AMP_OP_TOUCH, times, AMP_OP_TOUCH, lv->ev,
			 &left, err, len) < 0 ||
	    probed_after(c, lv, e, other, AMP_OP_IFETCH, walk, n, AMP_OP_TOUCH, times, AMP_OP_IFETCH, l1i->ev, &kept,
			 err, len) < 0)
		return -1;
	if (left < 0.5 || kept >= 0.5) {
		snprintf(err, len, "%s", left < 0.5 ? "loads of its set leave fetched code here"
						    : "loads of its set take code from the L1i too");
		return -1;
	}
	if (probed_after(c, lv, e, e->set[0], AMP_OP_IFETCH, walk, n, AMP_OP_TOUCH, times, AMP_OP_IFETCH,
			 l1i->ev, &refetch, err, len) < 0)
		return -1;
	*value = refetch >= left / 2 ? AMP_INCL_INCLUSIVE : AMP_INCL_NINE;
	return 0;
}

/* Counters, where a line here is at least twice every line above and
 * no longer than a way of any: the set's lines with the bit of half a
 * line here flipped are the same lines here, but lie in other sets of
 * every level above, so K stays there while they take its line here.
 * K loaded, them walked 1 + 4 x ways times (random replacement here
 * too), K loaded again: it misses here only where an inclusive level
 * took it from above, else NINE (an exclusive level has the line of
 * the level above, amp(1) says: not this one).  Checked first: with a
 * way fewer of them K stays above (a bit that is no index bit above
 * would evict it there, and every level would read inclusive). */
static int inclusion_by_offset(struct amp_ctx *c, struct amp_level *lv, const struct evset *e, int64_t *value,
			       char *err, size_t len)
{
	uint64_t half = amp_offset_bypass(lv), walk[AMP_SET_LINES_MAX], n = set_others(e, walk);
	uint64_t ways = e->nset - 1;
	unsigned times = (unsigned)(1 + 4 * ways);
	double kept, reload;

	if (!ways) {
		snprintf(err, len, "no line of its set beside K");
		return -1;
	}
	if (!half) {
		snprintf(err, len, "lines above too long");
		return -1;
	}
	for (uint64_t i = 0; i < n; i++)
		walk[i] ^= half;
	if (probed_after(c, lv, e, e->set[0], AMP_OP_TOUCH, walk, ways - 1, AMP_OP_TOUCH, times, AMP_OP_TOUCH,
			 lv->above->ev, &kept, err, len) < 0)
		return -1;
	if (kept >= 0.5) {
		snprintf(err, len, "lines half a line here away took the line from %s too", lv->above->name);
		return -1;
	}
	if (probed_after(c, lv, e, e->set[0], AMP_OP_TOUCH, walk, n, AMP_OP_TOUCH, times, AMP_OP_TOUCH, lv->ev,
			 &reload, err, len) < 0)
		return -1;
	*value = reload >= 0.5 ? AMP_INCL_INCLUSIVE : AMP_INCL_NINE;
	return 0;
}

/* Counters: where L1 cannot keep a line (why says how), lines half a
 * line here away, stores past it or code kept in the L1i stand in; -1
 * with why and the reasons none can. */
static int kept_otherwise(struct amp_ctx *c, struct amp_level *lv, const struct evset *e, int64_t *value,
			  const char *why, char *err, size_t len)
{
	char by_offset[AMP_REASON_LEN], by_stores[AMP_REASON_LEN], by_code[AMP_REASON_LEN];
	uint64_t other = 0;
	int have_other = 1;

	if (inclusion_by_offset(c, lv, e, value, by_offset, sizeof by_offset) == 0)
		return 0;

	/* No control line for the stores where every pool line seems to
	 * join the set (an exclusive pair under a direct-mapped L1d: any
	 * line of L1's set takes a way the pair needs).  The code's control
	 * only needs a line out of the walk: one that is in the set here
	 * fails it safely (an inclusive level takes it from the L1i). */
	if (incl_control(c, lv, e, &other, by_stores, sizeof by_stores) < 0) {
		have_other = 0;
		for (uint64_t i = e->nbase; i < e->npool && !have_other; i++)
			if (!in_set(e, e->pool[i])) {
				other = e->pool[i];
				have_other = 1;
			}
	} else if (inclusion_by_stores(c, lv, e, other, value, by_stores, sizeof by_stores) == 0) {
		return 0;
	}
	if (have_other && inclusion_by_code(c, lv, e, other, value, by_code, sizeof by_code) == 0)
		return 0;
	if (!have_other)
		snprintf(by_code, sizeof by_code, "no pool line out of its set");
	snprintf(err, len, "%s: %s %s, and neither stores, fetched code nor lines half a line away can stand in (stores: %s; code: %s; half a line: %s)",
		 lv->name, lv->above->name, why, by_stores, by_code, by_offset);
	return -1;
}

static int target_inclusion_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
				 char *err, size_t len)
{
	const struct evset *e = &found[v % AMP_MAX_VOTES];
	const struct amp_level *up = lv->above;
	uint64_t ways = e->nset - 1, words = (uint64_t)up->line.value / 8, every, other = 0;
	/* A miss here: the sweep's gap in ticks, or one counted miss. */
	double miss = lv->method == AMP_METHOD_COUNTERS ? 1 : lv->next_ticks - lv->hit_ticks, d;
	const char *unit = lv->method == AMP_METHOD_COUNTERS ? "misses" : "ticks";
	struct incl_test x, y;
	struct incl_flush flush = { .n = 0 };
	int kept;

	if (!e->nset) {
		snprintf(err, len, "%s: no eviction set from the associativity vote", lv->name);
		return -1;
	}
	/* Touches of K by timing: one word each, one word left for its
	 * reload, and at most half of L1's ways between two of them (with
	 * counters incl_keep touches K before every line of the walk). */
	every = words > 1 ? (ways + words - 2) / (words - 1) : ways + 1;
	if (lv->method == AMP_METHOD_COUNTERS && up->thrash_ways < 2)
		return kept_otherwise(c, lv, e, value,
				      "above it is direct-mapped: no line can be kept there through a walk of its set", err,
				      len);
	if (lv->method == AMP_METHOD_TIMING && (amp_replaces_at_random(up) || amp_spares_overflow(up))) {
		/* Touches do not keep K there: any miss may take it, and the
		 * test and its control differ by chance (a NINE L2 under a
		 * random 12-way L1d read inclusive on the simulated machine,
		 * also where 2 of 3 rounds read its replacement as lru: its
		 * walk one line over its ways missed 0.14 of the time). */
		snprintf(err, len, "%s: %s %s, so a line touched between the lines of a walk of its set is not kept there",
			 lv->name, up->name,
			 amp_replaces_at_random(up) ? "replaces at random"
						    : "spared lines of a walk one line over its ways (not lru, plru or fifo)");
		return -1;
	}
	if (lv->method == AMP_METHOD_TIMING && (words < 2 || 2 * every > (uint64_t)up->assoc.value)) {
		snprintf(err, len, "%s: %s's %lld-byte lines hold too few words to keep a line there through a walk of %llu lines",
			 lv->name, up->name, (long long)up->line.value, (unsigned long long)ways);
		return -1;
	}
	if (lv->method == AMP_METHOD_TIMING && ways < (uint64_t)up->assoc.value) {
		/* K and the set's lines would all fit L1's set: the walk
		 * would never reach this level (the timed chain has no room
		 * for pushers among K's words). */
		snprintf(err, len, "%s: fewer ways (%llu) than %s above it (%lld): a kept line and its set's lines all fit there",
			 lv->name, (unsigned long long)ways, up->name, (long long)up->assoc.value);
		return -1;
	}
	if (e->npush && lv->method == AMP_METHOD_COUNTERS) {
		int fits;

		if (pair_fits(c, lv, e, &fits, err, len) < 0)
			return -1;
		if (fits) {
			*value = AMP_INCL_EXCLUSIVE;
			return 0;
		}
	}
	if (incl_control(c, lv, e, &other, err, len) < 0)
		return -1;
	if (lv->method == AMP_METHOD_COUNTERS) {
		if (incl_keep(c, lv, e, other, &x, &y, &kept, err, len) < 0)
			return -1;
		if (!kept)
			return kept_otherwise(c, lv, e, value,
					      "did not keep a line touched before every miss there (FIFO or tree PLRU?)", err,
					      len);
	} else {
		incl_chain(c, lv, e, e->set[0], 0, (unsigned)every, NULL, &x);
		incl_chain(c, lv, e, other, 1, (unsigned)every, NULL, &y);
	}
	/* The flush: with counters the set's lines and the pushers; by
	 * timing lines from the end of the pool (none in the target's set). */
	if (lv->method == AMP_METHOD_COUNTERS) {
		/* With pushers (pair_fits has ruled exclusion out) they go on
		 * too, so the set's lines leave L1. */
		memcpy(flush.line, e->set + 1, ways * sizeof *flush.line);
		memcpy(flush.line + ways, e->push, e->npush * sizeof *flush.line);
		flush.n = ways + e->npush;
	} else {
		for (uint64_t i = e->npool; i-- > 0 && flush.n < (uint64_t)up->assoc.value + 2 && flush.n < AMP_MAX_CONG;)
			if (!in_set(e, e->pool[i]) && e->pool[i] != other)
				flush.line[flush.n++] = e->pool[i];
	}
	if (incl_pair(c, lv, e, &x, &y, NULL, &d, err, len) < 0)
		return -1;
	amp_trace_point(lv, amp_method_names[lv->method], "reload",
			"0: the kept line's walks, 1: its reload after L1 let it go", 0, "extra", unit, d, 0);
	/* Inclusive: K's set thrashes here in every pass (a miss at least
	 * per pass); two misses in all are the mark. */
	if (d > 2 * miss) {
		*value = AMP_INCL_INCLUSIVE;
		return 0;
	}
	if (incl_pair(c, lv, e, &x, &y, &flush, &d, err, len) < 0)
		return -1;
	amp_trace_point(lv, amp_method_names[lv->method], "reload",
			"0: the kept line's walks, 1: its reload after L1 let it go", 1, "extra", unit, d, 0);
	*value = d > miss / 2 ? AMP_INCL_NINE : AMP_INCL_EXCLUSIVE;
	/* By timing that reload also hits where this level kept K through
	 * the walk (a policy that spares a line from a stream of others).
	 * An exclusive level's set without pushers held L1's ways besides
	 * its own (L1 passed its victims here); one that held fewer is no
	 * exclusive pair.  On an Intel family 6 model 207 guest: 16 to 19
	 * lines without pushers, 16 with them, and the reload hit. */
	if (*value == AMP_INCL_EXCLUSIVE && lv->method == AMP_METHOD_TIMING && e->plain &&
	    !amp_exclusive_fits(e->plain, ways, (uint64_t)up->assoc.value)) {
		snprintf(err, len, "%s: a line L1 let go after a walk of its set hit here, as in an exclusive level, but sets without pushers held %llu lines, where an exclusive one holds its %llu ways and most of %s's %lld: it kept the line through the walk",
			 lv->name, (unsigned long long)e->plain, (unsigned long long)ways, up->name,
			 (long long)up->assoc.value);
		return -1;
	}
	return 0;
}

int amp_exclusive_fits(uint64_t plain, uint64_t ways, uint64_t above)
{
	return 2 * plain >= 2 * ways + above;
}

/* The inclusion of a and the levels above it down to L2, the highest
 * first (amp_run_module runs each once). */
static void inclusion_from_l2(struct amp_ctx *c, struct amp_level *a)
{
	if (!a || a->level < 2)
		return;
	inclusion_from_l2(c, a->above);
	amp_run_module(c, &amp_module_inclusion, a);
}

/* The inclusion votes.  By timing L1's replacement comes first, ahead
 * of its turn: under a random one the kept-line test is refused.  With
 * counters the inclusion of the levels between L1 and this one comes
 * first too: the fetched-code test needs them known to be exclusive,
 * and a level whose sets came by strides decides it in the inclusion
 * module, which would otherwise run after this one (an inclusive L3
 * under an exclusive 24-way L2 stayed unknown for it). */
static void inclusion_vote(struct amp_ctx *c, struct amp_level *lv)
{
	unsigned sets = 0, fewer = 0;

	if (lv->method == AMP_METHOD_TIMING && lv->above->level == 1)
		amp_run_module(c, &amp_module_replacement, lv->above);
	if (lv->method == AMP_METHOD_COUNTERS)
		inclusion_from_l2(c, lv->above);
	amp_vote(c, lv, target_inclusion_vote, &lv->inclusion);
	if (lv->method != AMP_METHOD_TIMING)
		return;
	/* Sets without pushers too small for an exclusive pair rule
	 * exclusion out, whatever the kept-line test said (mod_write.c
	 * then measures the write policy). */
	for (unsigned v = 0; v < c->votes && v < AMP_MAX_VOTES; v++)
		if (found[v].nset > 1 && found[v].plain) {
			sets++;
			fewer += !amp_exclusive_fits(found[v].plain, found[v].nset - 1, (uint64_t)lv->above->assoc.value);
		}
	lv->not_exclusive = 2 * fewer > sets;
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
	for (int v = 0; v < AMP_MAX_VOTES; v++)
		evset_free(&found[v]);
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

/* The votes whose sets found[] holds. */
static unsigned held_votes(const struct amp_ctx *c)
{
	return c->votes < AMP_MAX_VOTES ? c->votes : AMP_MAX_VOTES;
}

/* How many votes' sets came with pushers (with_pushers): their lines
 * left L1 on every walk, so their ways are this level's alone. */
static unsigned pushed_votes(const struct amp_ctx *c)
{
	unsigned n = 0;

	for (unsigned v = 0; v < held_votes(c); v++)
		n += found[v].npush > 0;
	return n;
}

static int pushed(const struct amp_ctx *c)
{
	return pushed_votes(c) > 0;
}

/* Whether `ways` found for lv may be a level above's: a set of ways + 1
 * lines that a level above could hold never reaches lv.  Counted misses
 * are lv's own, so only a level above with as many ways hides it (an
 * exclusive pair above: as many as a walk of its set must hold, its
 * thrash_ways); by timing one way more may too (that level's own
 * thrash looks alike). */
static int hidden_above(const struct amp_ctx *c, const struct amp_level *lv, int64_t ways)
{
	int64_t slack = lv->method == AMP_METHOD_TIMING ? 1 : 0;

	if (pushed(c))
		return 0;
	for (const struct amp_level *a = lv->above; a; a = a->above)
		if (a->assoc.known && (ways <= a->assoc.value + slack || ways <= a->thrash_ways))
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

/* By timing, the line and way votes run on the sets of `ways` lines
 * only, moved to the front: a search that ended on a set too big (some
 * lines it could spare, seen when a noisy test kept them) would read a
 * wrong way size, and a failed one none (each a vote against). */
static void keep_sets_of(struct amp_ctx *c, int64_t ways)
{
	unsigned kept = 0;

	for (unsigned v = 0; v < c->votes && v < AMP_MAX_VOTES; v++) {
		if (found[v].nset != (uint64_t)ways + 1)
			continue;
		if (v != kept) {
			struct evset t = found[kept];

			found[kept] = found[v];
			found[v] = t;
		}
		kept++;
	}
	c->votes = kept;
}

/* Counters: the lines of the vote's set of `ways` ways with the most
 * joiners, kept on the level for the replacement test. */
static void keep_set_lines(const struct amp_ctx *c, struct amp_level *lv, int64_t ways)
{
	const struct evset *best = NULL;

	for (unsigned v = 0; v < c->votes && v < AMP_MAX_VOTES; v++)
		if (found[v].nset == (uint64_t)ways + 1 && (!best || found[v].njoin > best->njoin))
			best = &found[v];
	lv->nset_lines = 0;
	lv->nset_pushers = 0;
	if (!best)
		return;
	for (uint64_t i = 0; i < best->nset; i++)
		lv->set_lines[lv->nset_lines++] = best->set[i];
	for (uint64_t i = 0; i < best->njoin && lv->nset_lines < AMP_SET_LINES_MAX; i++)
		lv->set_lines[lv->nset_lines++] = best->join[i];
	memcpy(lv->set_pushers, best->push, best->npush * sizeof *best->push);
	lv->nset_pushers = (int)best->npush;
}

/* An exclusive level: a target's victims pass through the level above,
 * so a minimal set that evicts it holds that level's ways too (X-Ray
 * 4.4: C1 + C2).  Its own ways are the rest.  -1 with the
 * associativity unknown where none are left. */
static int exclusive_own_ways(struct amp_level *lv, struct amp_param *ways)
{
	const struct amp_level *up = lv->above;
	int64_t pair = ways->value, own = pair - up->assoc.value;

	if (own < 1) {
		amp_param_unknown(&lv->assoc, "exclusive, yet its eviction sets held no more lines than %s's %lld ways",
				  up->name, (long long)up->assoc.value);
		return -1;
	}
	ways->value = own;
	for (int i = 0; i < ways->nvotes; i++)
		if (ways->votes[i] > up->assoc.value)
			ways->votes[i] -= up->assoc.value;
	snprintf(ways->reason, sizeof ways->reason,
		 "exclusive: its eviction sets held %lld lines, %s's %lld ways among them", (long long)pair, up->name,
		 (long long)up->assoc.value);
	lv->assoc = *ways;
	return 0;
}

/* No associativity (lv->assoc says why): way and size wait on it. */
static int without_ways(struct amp_level *lv)
{
	forget_sets();
	if (!lv->inclusion.known)
		amp_param_unknown(&lv->inclusion, "needs the associativity first (its eviction sets)");
	amp_param_unknown(&lv->way, "needs the associativity first");
	amp_param_unknown(&lv->size, "needs the associativity first");
	return 0;
}

static int evset_search(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len);

/* Counters, below an exclusive pair: whether the kept set's pushers get
 * its lines past L2 (after the pushers, walked twice, every load of the
 * set's ways lines misses L2).  Where they do not, the rounds and the
 * inclusion test on those lines would read the pair, not this level
 * (a NINE L3 read inclusive so).  0, or -1 with err. */
static int pushers_clear_pair(struct amp_ctx *c, const struct amp_level *lv, char *err, size_t len)
{
	uint64_t w = (uint64_t)lv->thrash_ways;
	struct amp_plan p;
	double reached;
	int rc;

	if (lv->nset_lines < lv->thrash_ways) {
		snprintf(err, len, "%s: its eviction sets kept %d lines, fewer than its %llu ways", lv->name,
			 lv->nset_lines, (unsigned long long)w);
		return -1;
	}
	if (amp_set_pushed_plan(&p, "pushers past the pair", lv, AMP_OP_TOUCH, err, len) < 0)
		return -1;
	rc = amp_count_mean(c, &p, lv->above->ev, &reached, err, len);
	amp_plan_free(&p);
	if (rc < 0)
		return -1;
	if (reached < (double)w - 0.5) {
		snprintf(err, len, "%s: after its pushers (lines of one set of %s) %.1f of %llu loads of its set's lines got past that exclusive pair",
			 lv->name, lv->above->name, reached, (unsigned long long)w);
		return -1;
	}
	return 0;
}

/* The sets held L1's ways too: the way vote found every page in the
 * set, yet as many lines of other pages fit, or some votes' sets took
 * pushers and the others did not.  Once more with pushers for all (L1's
 * ways kept by lines of other sets here), which leave this level's own
 * ways; the first search's accesses count in the associativity's cost. */
static int search_with_pushers(struct amp_ctx *c, struct amp_level *lv, const struct amp_param *first,
			       char *err, size_t len)
{
	int rc;

	forget_sets();
	pushers_first = 1;
	rc = evset_search(c, lv, err, len);
	pushers_first = 0;
	lv->assoc.accesses += first->accesses;
	return rc;
}

/* The most votes the rounds below may reach (doubling ctx->votes up to
 * TIMED_VOTES_MAX by timing), so that no round leaves untaken a vote a
 * later one would want. */
static unsigned timed_votes_horizon(const struct amp_ctx *c, const struct amp_level *lv)
{
	unsigned h = c->votes;

	while (lv->method == AMP_METHOD_TIMING && h && 2 * h <= TIMED_VOTES_MAX)
		h *= 2;
	return h;
}

/* By timing, lines that seem to evict the target and do not (noise)
 * only add joiners, and so read the way size low: on this project's
 * Zen 5 guest 2 full runs in 6 read 32 KiB of L2's 64 KiB way, 512 KiB
 * in all; in one of them the latency sweep held 724 KiB at L2's
 * latency.
 * A size short of the sweep (amp_short_of_sweep), or far past it with a
 * level below (amp_past_sweep), has the way voted again on the same
 * sets, at most WAY_AGAIN times; the rounds set aside count as failed
 * measurements.  Still off, the way is inconclusive. */
#define WAY_AGAIN 2

/* How the way's size is off the sweep: "below", "far past", or NULL
 * where it is not (or the way is not known). */
static const char *off_sweep(const struct amp_ctx *c, const struct amp_level *lv, const struct amp_param *ways,
			     const struct amp_param *way)
{
	int64_t size = ways->value * way->value;

	if (!amp_param_conclusive(way))
		return NULL;
	if (amp_short_of_sweep(lv, size))
		return "below";
	return amp_past_sweep(c, lv, ways->value, size) ? "far past" : NULL;
}

static void way_again_if_off(struct amp_ctx *c, struct amp_level *lv, const struct amp_param *ways,
			     struct amp_param *way)
{
	char first[AMP_REASON_LEN];
	const char *off = off_sweep(c, lv, ways, way);
	unsigned set_aside = 0, rounds = 0;
	uint64_t spent = 0;

	if (!off)
		return;
	snprintf(first, sizeof first, "%s: a round read a way of %lld bytes, %lld KiB in all, %s the %lld KiB the latency sweep held at its latency",
		 lv->name, (long long)way->value, (long long)(ways->value * way->value) >> 10, off,
		 (long long)lv->effective_size.value >> 10);
	while (off_sweep(c, lv, ways, way)) {
		if (rounds++ == WAY_AGAIN) {
			way->inconclusive = 1;
			snprintf(way->reason, sizeof way->reason, "%s; so did %d more rounds", first, WAY_AGAIN);
			break;
		}
		set_aside += (unsigned)way->nvotes + way->failed;
		spent += way->accesses;
		amp_vote(c, lv, way_vote, way);
	}
	amp_param_set_aside(way, set_aside, spent, first);
}

static int evset_search(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	struct amp_param ways, way;
	const struct amp_level *up = lv->above;
	int pushed_sets;
	uint64_t began;
	unsigned horizon;

	if (lv->method == AMP_METHOD_TIMING)
		calibrate_hit(c, lv);
	began = amp_now_ns();
	horizon = timed_votes_horizon(c, lv);
	amp_vote_toward(c, lv, ways_vote, &ways, horizon);
	while (lv->method == AMP_METHOD_TIMING && (!amp_param_conclusive(&ways) || ways.confidence < TIMED_SURE) &&
	       2 * c->votes <= TIMED_VOTES_MAX) {
		if (!c->host->sim && 2 * (amp_now_ns() - began) >= TIMED_MORE_VOTES_NS) {
			size_t used = strlen(ways.reason);

			if (ways.inconclusive && used < sizeof ways.reason)
				snprintf(ways.reason + used, sizeof ways.reason - used, "; no more votes: as many again would pass %llu s",
					 (unsigned long long)(TIMED_MORE_VOTES_NS / 1000000000ULL));
			break;
		}
		/* The eviction tests' noise comes in bursts (whole runs that
		 * spare a target the next run evicts): on the Zen 5 guest 1
		 * vote in 4 failed or found a set too big, and some runs'
		 * votes split, in one with 11 of 16 failed.  As many votes
		 * again while so (evset_run restores the count); the line
		 * and way votes then run on the sets of the decided size. */
		amp_vote_more(c, lv, ways_vote, &ways, horizon);
		c->votes *= 2;
	}
	if (lv->method == AMP_METHOD_COUNTERS && !pushers_first && pushed(c) && pushed_votes(c) < held_votes(c)) {
		/* Some sets thrashed in one order only and took pushers
		 * (an exclusive pair), the others read both levels' ways: on
		 * a 2-way L2 under a 4-way L1d 5 votes of 8 read 6 ways, and
		 * the inclusion test on their sets NINE.  All with pushers. */
		return search_with_pushers(c, lv, &ways, err, len);
	}
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
	if (hidden_above(c, lv, ways.value)) {
		/* Its eviction sets fit a level above: what was found is
		 * that level's set, not this one's. */
		amp_param_unknown(&lv->assoc, "%s shows %s ways than %s above it (%lld): the level above may be what thrashed, so its sets are hidden from eviction sets",
				  lv->name, lv->method == AMP_METHOD_TIMING ? "at most one way more" : "no more",
				  up->name, (long long)ways.value);
		return without_ways(lv);
	}
	lv->assoc = ways;
	lv->thrash_ways = (int)ways.value;
	if (lv->method == AMP_METHOD_TIMING) {
		keep_sets_of(c, ways.value);
		amp_vote(c, lv, target_line_vote, &lv->line);
	}
	/* Virtual strides say nothing of these sets: the inclusion test
	 * runs here, on them (mod_inclusion.c then only sizes it).  An
	 * exclusive level's sets without pushers hold L1's ways too, which
	 * the way vote must not count; with pushers the ways are its own,
	 * and the inclusion test wants the joiners the way vote finds. */
	pushed_sets = pushed(c);
	stores_want_joiners = 0;
	if (!pushed_sets) {
		inclusion_vote(c, lv);
		if (decided_exclusive(lv)) {
			/* Under a random L1 lines of two sets here can overflow
			 * the pair together: a minimal set need not be one
			 * set's, and L1's ways taken from it would not leave
			 * this level's own (a 4-way L2 under a random 3-way L1d
			 * read 5).  With pushers the ways are its own. */
			if (!pushers_first && amp_replaces_at_random(up) && pushers_possible(lv))
				return search_with_pushers(c, lv, &ways, err, len);
			if (exclusive_own_ways(lv, &ways) < 0)
				return without_ways(lv);
		}
	}
	amp_vote(c, lv, way_vote, &way);
	if (lv->method == AMP_METHOD_TIMING)
		way_again_if_off(c, lv, &ways, &way);
	lv->way = way;
	if (pushed_sets || (stores_want_joiners && !amp_param_conclusive(&lv->inclusion)))
		inclusion_vote(c, lv);
	if (lv->method == AMP_METHOD_COUNTERS)
		keep_set_lines(c, lv, lv->thrash_ways); /* an exclusive pair's sets: its ways and L1's */
	if (pushed_sets && decided_exclusive(lv))
		lv->thrash_ways += (int)up->assoc.value; /* a walk without pushers fills L1's ways too */
	if (lv->method == AMP_METHOD_COUNTERS && lv->level > 2 && lv->nset_pushers && exclusive_pair(up) &&
	    pushers_clear_pair(c, lv, err, len) < 0) {
		lv->thrash_ways = 0;
		lv->nset_lines = 0;
		lv->nset_pushers = 0;
		amp_param_unknown(&lv->assoc, "%s", err);
		amp_param_unknown(&lv->inclusion, "needs the associativity first (its eviction sets)");
		return without_ways(lv);
	}
	if (above_adds(c) && !amp_param_conclusive(&way)) {
		/* The set found is this level's and the one above's. */
		if (!pushers_first && !pushed_sets && pushers_possible(lv))
			return search_with_pushers(c, lv, &ways, err, len);
		forget_sets();
		lv->thrash_ways = 0;
		amp_param_unknown(&lv->assoc, "%s", way.reason);
		amp_param_unknown(&lv->size, "needs the associativity first");
		return 0;
	}
	forget_sets();
	if (!amp_param_conclusive(&way)) {
		amp_param_unknown(&lv->size, "needs the way size (%s)", way.reason);
		return 0;
	}
	amp_size_derived(lv, ways.value * way.value, &ways, &way);
	return 0;
}

/* By timing, the walk that calibrates this level's hit (calibrate_hit;
 * the eviction tests themselves run on their arena) is backed by huge
 * pages where the system grants them, as when walks over hundreds of
 * pool pages timed group testing here: their STLB lookups (5 ticks an
 * access on this project's Zen 5 guest) looked like misses. */
static int evset_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	int rc;

	unsigned votes = c->votes;

	c->huge_walks = lv->method == AMP_METHOD_TIMING;
	c->evict_quiet = (struct amp_quiet){ .wait_left = EVICT_QUIET_WAIT_NS };
	if (lv->method == AMP_METHOD_COUNTERS && !c->host->sim &&
	    amp_arena_open_sparse(&lv->set_arena, pool_lines(c, lv) * pool_spacing(c, lv),
				  pool_lines(c, lv) * c->page, err, len) < 0)
		return -1;
	rc = evset_search(c, lv, err, len);
	if (!lv->nset_lines)
		amp_arena_close(&lv->set_arena);
	c->huge_walks = 0;
	c->votes = votes;
	return rc;
}

const struct amp_module amp_module_evset = {
	.name = "evset",
	.summary = "timing: associativity, way size and capacity of physically indexed levels by eviction sets",
	.kinds = 1u << AMP_KIND_CACHE,
	.fills = { AMP_FILLS(assoc), AMP_FILLS(way), AMP_FILLS(size), AMP_FILLS(inclusion) },
	.applies = evset_applies,
	.supported = evset_supported,
	.run = evset_run,
};
