/* mod_assoc.c - associativity, way size and capacity from thrashing
 * (AMP 3.2-3.3, X-Ray 4.4).
 *
 * Lines a stride s apart all fall in one set once s is a multiple of the
 * way size W (sets x line): then k such lines walked cyclically fit iff
 * k <= ways, whatever the replacement policy (no miss ever evicts when
 * everything fits).  Below W they spread over W/s sets and fit.  So:
 *   ways  = (smallest k that thrashes at a huge stride) - 1
 *   W     = smallest power-of-two stride at which ways+1 lines thrash
 *   size  = ways x W
 * Every hypothesis is tested directly, so 3-, 5-, 12-, 20- and 24-way
 * caches and sizes like 96 KiB or 1.25 MiB come out exact; a fully
 * associative level is one whose W is a single line.  The counter of a
 * lower level sees only what the levels above miss: a level with fewer
 * ways than the one above it (and not inclusive of it) is masked by it.
 * An exclusive level is seen together with the levels above; the
 * inclusion module then separates its own share. */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "measure.h"
#include "insn_timing.h"

#define MAX_WAYS (1u << 14)          /* give up beyond this many lines per set */
#define MAX_SET_FACTOR 63             /* odd factors of set counts tried (sets_factor_vote) */
#define STRIDE_MAX_DATA (1ULL << 30) /* covers way sizes up to 1 GiB */
#define STRIDE_MAX_INSN (1ULL << 26) /* jumps must reach (aarch64: +-128 MiB) */
/* Timing measures L1 only (virtually indexed, way sizes far below this);
 * strides of a GiB add page-walk costs a timed walk cannot separate. */
#define STRIDE_MAX_TIMING (1ULL << 20)

/* Code by timing: the share of a miss a line that a walk one line
 * shorter than the first that thrashes must miss to count as over the
 * ways too (smallest_thrash). */
#define CODE_MISSES_SOME 0.5
/* Counters, walks with evictors that miss here on their own: misses a
 * test line the test lines must add to count as a thrash (thrash_rate). */
#define EVICTORS_MISS_ADDED 0.25
/* Counters, per_arrival: below this share of a walk's accesses reaching
 * the level, its misses stay per access. */
#define ARRIVALS_LEAST 0.05
/* Counters, per_arrival: walks uncounted first.  A line of another walk
 * left in a random set goes only as a victim, and few of a walk's
 * accesses reach it (after 3 repetitions of 2 walks, 12 lines 512 KiB
 * apart in three random levels' 12-way L3 missed it now and then). */
#define ARRIVAL_WARM_WALKS 64

static uint64_t stride_max(const struct amp_level *lv)
{
	if (lv->method == AMP_METHOD_TIMING)
		return STRIDE_MAX_TIMING;
	return lv->side == AMP_SIDE_INSN ? STRIDE_MAX_INSN : STRIDE_MAX_DATA;
}

/* Each vote walks a different set, so votes are independent samples. */
/* The smallest step: the line, or 16 B while it is not known yet (by
 * timing it is measured afterwards; no line is smaller). */
static uint64_t unit_of(const struct amp_level *lv)
{
	return lv->line.known ? (uint64_t)lv->line.value : 16;
}

static uint64_t vote_base(const struct amp_level *lv, unsigned v)
{
	return (lv->line.known ? (uint64_t)lv->line.value : 64) * (uint64_t)(v % 64);
}

/* Whether to evict each test line from the level above between test
 * accesses; set while a search runs (see assoc_run). */
struct search {
	int evict;
	uint64_t way; /* the power-of-two way size found (sets_factor_vote) */
	int evict_failed; /* needed evictors, and the walks with them failed */
	uint64_t hi; /* timing: a stride known to be a multiple of the way */
	double fastest; /* code by timing: the fastest base walk of this vote */
	int pair; /* code by timing: each walk against one of ways lines first */
	int some; /* a walk that misses at all counts (amp_misses_some) */
	double least; /* counters: a thrash's least miss rate besides THRASH_RATE (way_search) */
	uint64_t fit, over; /* counters: lines known to fit one set, lines that thrashed it (pushed_ways_vote) */
	int pushed; /* counters: the ways came from walks with pushers */
	unsigned looks_left; /* data by timing: looks at a partial step left to the level (look_again) */
	uint64_t full_lines; /* ... the fewest lines of this level's votes' full steps (0: none yet) */
	uint64_t mixed_lines; /* ... this round's first partial step at fewer lines: its lines */
};
static _Thread_local struct search search;

/* Data by timing: walks against an all-L1 reference, in shares of the
 * gap to the level below. */
static int data_by_time(const struct amp_level *lv)
{
	return lv->side != AMP_SIDE_INSN && lv->method == AMP_METHOD_TIMING;
}

/* Code by timing: walks are judged against the fastest of their vote
 * (amp_timing_code_rate), so the first walks of a vote must fit. */
static int code_by_time(const struct amp_level *lv)
{
	return lv->side == AMP_SIDE_INSN && lv->method == AMP_METHOD_TIMING;
}

static int code_walk(struct amp_ctx *c, struct amp_level *lv, uint64_t base, uint64_t stride,
		     uint64_t n, int base_walk, int *yes, double *rate_out, char *err, size_t len)
{
	uint64_t *off = malloc(n * sizeof *off);
	double rate;
	int rc;

	if (!off) {
		snprintf(err, len, "out of memory for a walk of %llu lines", (unsigned long long)n);
		return -1;
	}
	for (uint64_t i = 0; i < n; i++)
		off[i] = base + i * stride;
	rc = amp_timing_code_rate(c, lv, off, n, base + stride * (n - 1) + 64, &search.fastest,
				  base_walk, &rate, err, len);
	free(off);
	if (rc < 0)
		return -1;
	amp_trace_walk(lv, n, stride, 0, rate);
	*yes = amp_thrashes(lv, rate);
	if (rate_out)
		*rate_out = rate;
	return 0;
}

/* Counters, below L2: a walk that misses this level, yet too little to
 * thrash it, may be one line over its ways under a level above that
 * keeps some of the walk's lines (random, tree PLRU): most accesses hit
 * there on the way, and what reaches this level misses it only now and
 * then (three random levels' 12-way L3: 13 lines missed it 0.02 of the
 * time, and it read 13 ways in every vote).  Such a walk is measured
 * again per access that reaches this level.  Evictors would not help:
 * the sets here that share the test lines' set above (4 where the way
 * here is 4 times the way above) cannot hold them. */
static int per_arrival(const struct amp_level *lv, double rate)
{
	return lv->method == AMP_METHOD_COUNTERS && lv->kind == AMP_KIND_CACHE && lv->above &&
	       lv->above->level > 1 && rate > 0 && !amp_thrashes(lv, rate);
}

/* The walk's misses here per access that reaches this level (a miss of
 * the level above), or per access where fewer than ARRIVALS_LEAST of
 * them reach it (their few arrivals would magnify noise).  The n lines
 * after the walk's are flushed with it: a longer walk before left them
 * in the set, and a random set keeps some for long (12 lines of a
 * 12-way L3 read 0.01 misses an access after 16). */
static int arrival_walk(struct amp_ctx *c, const struct amp_level *lv, uint64_t base, uint64_t stride,
			uint64_t n, double *rate, char *err, size_t len)
{
	uint64_t *off = malloc(2 * n * sizeof *off);
	double arrivals = 0;
	int rc;

	if (!off) {
		snprintf(err, len, "out of memory for a walk of %llu lines", (unsigned long long)n);
		return -1;
	}
	for (uint64_t i = 0; i < 2 * n; i++)
		off[i] = base + i * stride;
	rc = amp_offsets_rate_settled(c, lv, off, n, off + n, n, off[n - 1] + 64, NULL, ARRIVAL_WARM_WALKS, rate,
				      err, len);
	if (rc == 0 && *rate > 0)
		rc = amp_offsets_rate_flushed(c, lv->above, off, n, off + n, n, off[n - 1] + 64, NULL, &arrivals,
					      err, len);
	free(off);
	if (rc < 0)
		return -1;
	if (arrivals >= ARRIVALS_LEAST)
		*rate = *rate / arrivals > 1 ? 1 : *rate / arrivals;
	amp_trace_walk(lv, n, stride, 0, *rate);
	return 0;
}

/* Whether n lines `stride` apart thrash lv; with counters *rate (if
 * given) is the walk's misses per test line (a walk per_arrival is
 * judged per test access that reaches lv). */
static int thrash_rate(struct amp_ctx *c, struct amp_level *lv, uint64_t base, uint64_t stride, uint64_t n,
		       int *yes, double *rate_out, char *err, size_t len)
{
	double rate, judged;

	if (code_by_time(lv) && search.pair) {
		/* Against ways lines at the same stride, which fit. */
		search.fastest = 0;
		if (code_walk(c, lv, base, stride, (uint64_t)lv->thrash_ways, 1, yes, NULL, err, len) < 0)
			return -1;
	}
	if (code_by_time(lv))
		return code_walk(c, lv, base, stride, n, amp_code_base_walk(c, n, stride), yes, rate_out, err,
				 len);
	if (amp_cyclic_rate_ex(c, lv, base, stride, n, search.evict, stride_max(lv), &rate, err, len) < 0)
		return -1;
	judged = rate;
	/* search.least, a quarter of the walk's rate at the largest
	 * stride, is per access, as that rate is (against that rate per
	 * arrival, 0.10, a walk at 0.0212 per access fell short, and the
	 * way read 32 MiB). */
	if (!search.evict && per_arrival(lv, rate) && arrival_walk(c, lv, base, stride, n, &judged, err, len) < 0)
		return -1;
	*yes = (search.some ? amp_misses_some(lv, judged) : amp_thrashes(lv, judged)) && rate >= search.least;
	if (rate_out)
		*rate_out = rate;
	if (*yes && search.evict) {
		/* The evictors may overflow sets here themselves (they lie
		 * in its sets other than the test lines'): under a random
		 * 2-way L1d of a 512 B way a 5-way L2 of a 1 KiB way holds
		 * them all in one set, and the 6 of 5 test lines made those
		 * "thrash" (4 ways, in 13 of 24 frame mappings).  Then only
		 * what the test lines add counts, and it must be clear:
		 * their own overflow of an LRU set adds a miss a line, the
		 * evictors' noise a tenth of one (1.09 with, 0.97 alone). */
		double alone;

		if (amp_evictors_alone_rate(c, lv, base, stride, n, stride_max(lv), &alone, err, len) < 0)
			return -1;
		if (amp_thrashes(lv, alone))
			*yes = rate - alone >= EVICTORS_MISS_ADDED && rate - alone >= search.least;
	}
	return 0;
}

static int thrash(struct amp_ctx *c, struct amp_level *lv, uint64_t base, uint64_t stride,
		  uint64_t n, int *yes, char *err, size_t len)
{
	return thrash_rate(c, lv, base, stride, n, yes, NULL, err, len);
}

/* Between lo lines `stride` apart, which fit, and *hi, which thrash: the
 * smallest number that thrashes, in *hi (bisection). */
static int bisect_thrash(struct amp_ctx *c, struct amp_level *lv, uint64_t base, uint64_t stride, uint64_t lo,
			 uint64_t *hi, char *err, size_t len)
{
	while (*hi - lo > 1) {
		uint64_t mid = lo + (*hi - lo) / 2;
		int yes;

		if (thrash(c, lv, base, stride, mid, &yes, err, len) < 0)
			return -1;
		if (yes)
			*hi = mid;
		else
			lo = mid;
	}
	return 0;
}

/* Data by timing: the smallest walk that thrashes at a stride past
 * the way, *hi lines, looked at again while it misses only part of the
 * time; 1 where it still does, 0, or -1 with err.  A neighbour on the
 * core (a host's SMT sibling shares L1d) takes ways in spells that come
 * and go within seconds: on the Zen 5 guest, walks of 12 lines 4 KiB
 * apart, timed in 8 mappings in turn every 0.2 s, hit in all 8 (2.2 to
 * 2.4 ticks a load) or missed in all 8 (7.3 to 8.6) in 27 rounds of 30,
 * the misses for up to 2.5 s running, and 4 of 87 `--level=L1d` runs
 * read 10 of its 12 ways (3 of them inconclusive), 11 lines missing
 * half of the gap.  Quiet, one line over the ways misses fully there
 * (13 lines: 1.2 to 2.2 of the gap).  A set that is not LRU misses part
 * of the time one line over too, at every look (Intel's 12-way L1d:
 * 0.50 to 0.59): looks then cost only the budget (search.looks_left,
 * and a nap each on a real machine). */
#define STEP_FULL 0.8               /* of the gap: a step this high is no spell's */
#define STEP_LOOKS 48               /* looks a level may take in all */
#define STEP_NAP_NS 20000000L       /* a real machine's nap before each: about 1 s in all */
#define LOOK_FITS 0.05              /* of the gap: a look this low fits (12 lines of the Zen 5 L1d, quiet: 0.00) */
static int look_again(struct amp_ctx *c, struct amp_level *lv, uint64_t base, uint64_t s, uint64_t *hi,
		      char *err, size_t len)
{
	uint64_t most = 2 * *hi;
	double rate;
	int yes;

	if (thrash_rate(c, lv, base, s, *hi, &yes, &rate, err, len) < 0)
		return -1;
	while (rate < STEP_FULL && search.looks_left && *hi < most) {
		search.looks_left--;
		amp_nap(c, STEP_NAP_NS);
		if (thrash_rate(c, lv, base, s, *hi, &yes, &rate, err, len) < 0)
			return -1;
		/* It fits after all (twice running: a random set one line
		 * over misses about 2/ways of the time, a fluctuating share
		 * that looks must not catch low): the walk one line longer
		 * is next. */
		if (rate < LOOK_FITS && thrash_rate(c, lv, base, s, *hi, &yes, &rate, err, len) < 0)
			return -1;
		if (rate < LOOK_FITS && thrash_rate(c, lv, base, s, ++*hi, &yes, &rate, err, len) < 0)
			return -1;
	}
	if (rate < STEP_FULL)
		return 1;
	if (!search.full_lines || *hi < search.full_lines)
		search.full_lines = *hi;
	return 0;
}

/* Smallest number of lines `stride` apart that thrash (doubling, then
 * bisection): ways + 1 once the stride is a multiple of the way size.
 * Code by timing: the doubling stops only where twice as many lines
 * thrash too.  An op cache that a few lines of one set half fill swaps
 * between serving them and not, and such a walk can be slower than one
 * that misses the L1i (on this project's Zen 5 guests 3 lines at a 4 KiB
 * stride, 8 jumps a line: 14.5 ticks a line, 8.6 at 2 and at 8 lines). */
static int smallest_thrash(struct amp_ctx *c, struct amp_level *lv, uint64_t base, uint64_t s,
			   uint64_t *first, char *err, size_t len)
{
	uint64_t lo, hi = 1;
	int yes = 0;

	while (hi <= MAX_WAYS) {
		if (thrash(c, lv, base, s, hi, &yes, err, len) < 0)
			return -1;
		if (yes && code_by_time(lv) && 2 * hi <= MAX_WAYS) {
			if (thrash(c, lv, base, s, 2 * hi, &yes, err, len) < 0)
				return -1;
			if (!yes)
				hi *= 2; /* twice as many fit: go on from there */
		}
		if (yes)
			break;
		hi *= 2;
	}
	if (!yes) {
		snprintf(err, len, "%s: %u lines %llu bytes apart still fit one set",
			 lv->name, MAX_WAYS, (unsigned long long)s);
		return -1;
	}
	lo = hi / 2; /* fits (or 0) */
	if (bisect_thrash(c, lv, base, s, lo, &hi, err, len) < 0)
		return -1;
	/* By timing the smallest walk that thrashes may hold more than one
	 * line over the ways where the set spares some lines (a random
	 * 12-way set one line over misses 15% of its accesses, two lines
	 * over 28%; the simulated machine read 14 ways).  Shorter walks
	 * that still miss at all are over the ways too; code, where a walk
	 * that fits can run slower than the fastest for its layout, when it
	 * misses half a line's miss a line (this project's Zen 5 guest: 9
	 * lines 4 KiB apart at 0.63 under its 8-way L1i, which read 9). */
	while ((data_by_time(lv) || code_by_time(lv)) && hi > 2) {
		double rate;

		if (thrash_rate(c, lv, base, s, hi - 1, &yes, &rate, err, len) < 0)
			return -1;
		if (code_by_time(lv) ? rate < CODE_MISSES_SOME : !amp_misses_some(lv, rate))
			break;
		hi--;
	}
	if (hi < 2) {
		snprintf(err, len, "%s: a single line walked alone keeps missing", lv->name);
		return -1;
	}
	*first = hi;
	return 0;
}

/* Where the thrashing length never settles: whether the walks' span
 * (lines x stride) grew at most SPAN_GROWTH times while the stride grew
 * 2^(SPAN_LEAST - 1) times or more.  Lines of one set thrash at the same
 * count at every stride past the way size, so their span doubles with
 * the stride; a span that hardly grows is a structure indexed above
 * every stride tried, about that big (a TLB, a branch predictor), not
 * this level's sets.  On the Zen 3 guest (AMD family 25 model 1) code
 * walks 4 KiB to 1 MiB apart thrashed from 266 lines down to 3, spans of
 * 1.0 to 3.0 MiB, while 128 lines 8 KiB apart, all of one L1i set, ran
 * as fast as 4. */
#define SPAN_LEAST 5
#define SPAN_GROWTH 4

/* The spans of one vote's walks, in stride order. */
struct spans {
	uint64_t first, last, lo, hi;
	int n;
};

static void span_add(struct spans *sp, uint64_t span)
{
	if (!sp->n++)
		sp->first = sp->lo = sp->hi = span;
	sp->last = span;
	sp->lo = span < sp->lo ? span : sp->lo;
	sp->hi = span > sp->hi ? span : sp->hi;
}

static void span_reason(const struct amp_level *lv, const struct spans *sp, uint64_t s, char *err, size_t len)
{
	if (sp->n >= SPAN_LEAST && sp->last <= SPAN_GROWTH * sp->first)
		snprintf(err, len, "%s: the thrashing length still changes at a %llu-byte stride; at every stride walks thrash once they span %llu to %llu KiB (lines x stride): something indexed above every stride fills (a TLB, a branch predictor), not this level's sets",
			 lv->name, (unsigned long long)s, (unsigned long long)(sp->lo >> 10), (unsigned long long)(sp->hi >> 10));
	else
		snprintf(err, len, "%s: the thrashing length still changes at a %llu-byte stride", lv->name,
			 (unsigned long long)s);
}

static int ways_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		     char *err, size_t len)
{
	uint64_t base = vote_base(lv, v), s = stride_max(lv), n, n2;
	struct spans sp = { 0 };

	search.fastest = 0;
	if (lv->method == AMP_METHOD_COUNTERS) {
		if (smallest_thrash(c, lv, base, s, &n, err, len) < 0)
			return -1;
		*value = (int64_t)(n - 1);
		return 0;
	}
	/* Timing: X-Ray Fig. 8, strides doubling from a page until the
	 * thrashing length stops changing (huge strides are avoided: see
	 * timing.c on hashed way predictors). */
	s = c->page;
	if (smallest_thrash(c, lv, base, s, &n, err, len) < 0)
		return -1;
	span_add(&sp, n * s);
	for (;; s *= 2, n = n2) {
		if (2 * s > stride_max(lv)) {
			span_reason(lv, &sp, s, err, len);
			return -1;
		}
		if (smallest_thrash(c, lv, base, 2 * s, &n2, err, len) < 0)
			return -1;
		span_add(&sp, n2 * 2 * s);
		if (n2 == n)
			break;
	}
	/* Any stride where the length settled is a multiple of the way.
	 * Code takes the smallest: far-apart lines of code pay for more
	 * than their set, and the walk one line over (way_vote) must
	 * thrash clearly against the one that fits. */
	if (code_by_time(lv) ? !search.hi || 2 * s < search.hi : 2 * s > search.hi)
		search.hi = 2 * s;
	/* Data by timing, the settled step looked at again while partial
	 * (at strides under the way the lines fill several sets, and the
	 * step is partial in any cache).  One still partial once the looks
	 * were spent, at fewer lines than earlier votes' full steps, marks
	 * the round (spell_seen): a spell outlasted the looks (one default
	 * run's 16 L1d votes read 12 where full, then 11 and 10).  A level
	 * whose step is partial by nature may read one full in noise, but
	 * at the same lines. */
	if (data_by_time(lv) && lv->kind == AMP_KIND_CACHE) {
		int partial = look_again(c, lv, base, 2 * s, &n, err, len);

		if (partial < 0)
			return -1;
		if (partial && n < search.full_lines && !search.mixed_lines)
			search.mixed_lines = n;
	}

	*value = (int64_t)(n - 1);
	return 0;
}

/* Lines per walk of the way search: one more than fit a set.  Code by
 * timing takes nearly twice as many: one line over often costs a
 * fraction of a miss on real hardware (8.6 ticks a line of 8 at a 4 KiB
 * stride, 9.5-14 of 9, 17-19 of 16 on this project's Zen 5 guests), and
 * a quarter of the ways fewer than twice leaves each of two sets a half
 * way apart room to spare (16 lines filled two sets of 8 to the last
 * way, and on a Zen 4 guest they ran 25% slower than 8 in 1 vote of 8,
 * a way size of half the true one). */
static uint64_t way_walk_lines(const struct amp_level *lv)
{
	uint64_t ways = (uint64_t)lv->thrash_ways, spare = ways / 4 ? ways / 4 : 1;

	if (!code_by_time(lv))
		return ways + 1;
	return 2 * ways - spare > ways + 1 ? 2 * ways - spare : ways + 1;
}

static int way_search(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		      char *err, size_t len)
{
	uint64_t unit = unit_of(lv), n = way_walk_lines(lv);
	uint64_t base = vote_base(lv, v), lo = unit, hi = search.hi ? search.hi : stride_max(lv);
	double rate_hi = 0;
	int yes;

	/* With evictors the way size is at least twice the one above (and
	 * shorter strides would put test lines among the evictors' sets). */
	if (search.evict)
		lo = 2 * amp_evictor_step(lv);
	/* Several jumps a line (real machine, instruction side) need room. */
	if (lo < amp_insn_min_stride(c, lv))
		lo = amp_insn_min_stride(c, lv);
	if (thrash(c, lv, base, lo, n, &yes, err, len) < 0)
		return -1;
	if (yes && !search.evict) {
		*value = (int64_t)lo; /* one set: fully associative */
		return 0;
	}
	if (yes) {
		*value = (int64_t)lo;
		return 0;
	}
	if (thrash_rate(c, lv, base, hi, n, &yes, &rate_hi, err, len) < 0)
		return -1;
	/* Counters: a walk split over two sets here may still miss at
	 * times, where a random level above keeps the wrong lines (5 lines
	 * 16 KiB apart in an exclusive pair of a random 2-way L1d over a
	 * 2-way L2 of 32 KiB way: 0.06, against 0.72 in one set).  A thrash
	 * takes a quarter of the rate of the walk at hi, which thrashes one
	 * set. */
	if (yes && !code_by_time(lv) && !data_by_time(lv))
		search.least = rate_hi / 4;
	/* Code by timing: a reference walk slowed at hi (by what its layout
	 * shares with others) hides the thrash there; twice hi is one set
	 * too. */
	if (!yes && code_by_time(lv) && 2 * hi <= stride_max(lv)) {
		hi *= 2;
		if (thrash(c, lv, base, hi, n, &yes, err, len) < 0)
			return -1;
	}
	if (!yes) {
		snprintf(err, len, "%s: %llu lines thrash at no stride up to %llu bytes",
			 lv->name, (unsigned long long)n, (unsigned long long)hi);
		return -1;
	}
	/* Code by timing: from hi down to the first stride that fits.  A
	 * walk that fits is trusted, one that thrashes less so: an op cache
	 * has sets too, and fewer lines a set (16 lines 512 B apart, 8
	 * jumps a line, on an AMD Zen 4 guest: 8.3 ticks a line against 5.7
	 * for 8), so a bisection through such strides stopped there. */
	while (code_by_time(lv) && hi / 2 >= lo) {
		if (thrash(c, lv, base, hi / 2, n, &yes, err, len) < 0)
			return -1;
		if (!yes)
			break;
		hi /= 2;
	}
	while (!code_by_time(lv) && hi / lo > 2) { /* both powers of two: bisect the exponent */
		uint64_t mid = lo;
		int steps = 0;

		for (uint64_t x = lo; x < hi; x *= 2)
			steps++;
		for (int i = 0; i < steps / 2; i++)
			mid *= 2;
		if (thrash(c, lv, base, mid, n, &yes, err, len) < 0)
			return -1;
		if (yes)
			hi = mid;
		else
			lo = mid;
	}
	*value = (int64_t)hi;
	return 0;
}

/* Code by timing: each walk of the way search is judged against ways
 * lines at its stride, which fit (how fast fitting code runs varies
 * with its layout: an op cache serves some of it). */
static int way_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		    char *err, size_t len)
{
	int rc;

	search.pair = code_by_time(lv);
	/* One line over the ways misses only a little in a random set. */
	search.some = 1;
	rc = way_search(c, lv, v, value, err, len);
	search.pair = 0;
	search.some = 0;
	search.least = 0;
	return rc;
}

/* Sets that are no power of two (f x 2^k, f odd): lines a power-of-two
 * way size W apart then spread over f sets, and every power-of-two
 * stride sees f times the ways.  Lines f W apart share one set: the
 * vote is the largest odd f dividing the ways seen for which ways/f + 1
 * such lines thrash while as many W apart fit (1: none; a true power-of-
 * two geometry fits them, as f W is a multiple of W). */
static int sets_factor_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
			    char *err, size_t len)
{
	uint64_t ways = (uint64_t)lv->thrash_ways, way = search.way, base = vote_base(lv, v);
	int evicted = search.evict, rc = 0;

	*value = 1;
	for (uint64_t f = ways < MAX_SET_FACTOR ? ways : MAX_SET_FACTOR; f >= 3 && rc == 0; f--) {
		int yes;

		if (f % 2 == 0 || ways % f || f * way > stride_max(lv))
			continue;
		/* ways/f lines may fit the level above: push them out of it
		 * (odd multiples of its way never reach a stride of f W). */
		search.evict = evicted || (amp_evictors_usable(lv) &&
					   ways / f <= (uint64_t)lv->above->thrash_ways);
		rc = thrash(c, lv, base, f * way, ways / f + 1, &yes, err, len);
		if (rc < 0 || !yes)
			continue;
		/* Control: the same lines a way apart must fit (f sets).  One
		 * set of this level alone (what evictors leave of an exclusive
		 * pair) thrashes at both strides. */
		rc = thrash(c, lv, base, way, ways / f + 1, &yes, err, len);
		if (rc == 0 && !yes) {
			*value = (int64_t)f;
			break;
		}
	}
	search.evict = evicted;
	return rc;
}

/* Counters: ways and way size corrected by the odd factor of the sets
 * (lv's way size is not yet set: the walks are not limited by it). */
static void odd_sets(struct amp_ctx *c, struct amp_level *lv, struct amp_param *ways, struct amp_param *way)
{
	struct amp_param f;

	if (lv->method != AMP_METHOD_COUNTERS)
		return;
	search.way = (uint64_t)way->value;
	amp_vote(c, lv, sets_factor_vote, &f);
	ways->accesses += f.accesses;
	if (!amp_param_conclusive(&f)) {
		amp_param_unknown(way, "whether its sets are a power of two was not decided (%s)", f.reason);
	} else if (f.value > 1) {
		ways->value /= f.value;
		way->value *= f.value;
		lv->thrash_ways = (int)ways->value;
		/* The mapping check then walks with evictors too. */
		if (amp_evictors_usable(lv) && ways->value <= lv->above->thrash_ways)
			search.evict = 1;
	}
}

/* Timing: L1 caches only, which are virtually indexed; below them page
 * frames decide the sets (mod_evset.c), and TLBs come from the TLB
 * sweep (tlb_timing.c). */
static int assoc_applies(const struct amp_ctx *c, const struct amp_level *lv)
{
	return lv->method == AMP_METHOD_COUNTERS || (lv->level == 1 && lv->kind == AMP_KIND_CACHE);
}

static int assoc_supported(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len)
{
	if (amp_insn_blocks_refusal(c, lv, why, len))
		return 0;
	/* By timing the line comes after the geometry (mod_block.c). */
	if (lv->method == AMP_METHOD_COUNTERS && (!lv->line.known || lv->line.inconclusive)) {
		snprintf(why, len, "needs the %s size first (%s)",
			 lv->kind == AMP_KIND_TLB ? "page" : "line", lv->line.reason);
		return 0;
	}
	return 1;
}

/* Groups of lines at the found way stride, shifted by whole pages, that
 * the check below walks: other pages, other frames. */
#define MAPPING_CHECKS 4

/* Whether a walk of n lines missed more than once a line (by half a
 * miss in all): the evictors missed too. */
static int misses_more_than_once(double rate, int64_t n)
{
	return rate * (double)n > (double)n + 0.5;
}

/* Whether the check's two walks hold with the way known: where the
 * evictors of a group would overflow this level's sets, the walk takes
 * pushers (measure.c), and only a test line can miss.  The evictors of
 * the search may overflow a small way's one other set on contiguous
 * frames too (a 24-way L2 of a 1 KiB way under a random 3-way L1d of
 * 512 B missed 2.56 a line one line over its ways; handed to eviction
 * sets, it left L3 no evictors, and L3 read L2's 24 ways). */
static int pushed_walks_hold(struct amp_ctx *c, struct amp_level *lv, uint64_t base, int64_t ways,
			     double *rate)
{
	char err[AMP_REASON_LEN];
	int fit = 1, over = 0, known = lv->way.known;

	if (known)
		return 0; /* the walks took pushers already, if they could */
	lv->way.known = 1;
	if (thrash(c, lv, base, (uint64_t)lv->way.value, (uint64_t)ways, &fit, err, sizeof err) < 0 ||
	    thrash_rate(c, lv, base, (uint64_t)lv->way.value, (uint64_t)ways + 1, &over, rate, err, sizeof err) < 0)
		fit = 1;
	lv->way.known = known;
	return !fit && over && !misses_more_than_once(*rate, ways + 1);
}

/* Counters, physically indexed levels: with contiguous frames (or huge
 * pages) `ways` lines `way` bytes apart fit one set and one more
 * thrashes it, from any starting page.  Scattered frames put such lines
 * in random sets, and the answer found at one start does not hold at
 * another.  1: the strides predicted the sets; 0: they did not (why). */
static int mapping_holds(struct amp_ctx *c, struct amp_level *lv, int64_t ways, int64_t way,
			 char *why, size_t len)
{
	for (unsigned k = 1; k <= MAPPING_CHECKS; k++) {
		uint64_t base = vote_base(lv, k) + 5 * k * c->page;
		int fit, over;
		double rate = 0;
		char err[AMP_REASON_LEN];

		if (thrash(c, lv, base, (uint64_t)way, (uint64_t)ways, &fit, err, sizeof err) < 0 ||
		    thrash_rate(c, lv, base, (uint64_t)way, (uint64_t)ways + 1, &over, &rate, err, sizeof err) < 0) {
			snprintf(why, len, "%s", err);
			return 0;
		}
		if (fit || !over) {
			snprintf(why, len, "virtual strides do not predict its sets: %lld lines %lld bytes apart %s one set %u pages further on (scattered page frames)",
				 (long long)(fit ? ways : ways + 1), (long long)way, fit ? "overflow" : "fit",
				 5 * k);
			return 0;
		}
		/* With evictors a walk that overflows one set misses at most
		 * once per line: more, and the evictors miss too (scattered
		 * frames put them in this level's sets with the test lines;
		 * a 2-way L2 under a 12-way L1d read 10 ways 512 B apart). */
		if (search.evict && misses_more_than_once(rate, ways + 1) &&
		    !pushed_walks_hold(c, lv, base, ways, &rate)) {
			snprintf(why, len, "virtual strides do not predict its sets: %lld lines %lld bytes apart %u pages further on miss %.2f times a line with the lines that evict them from %s",
				 (long long)ways + 1, (long long)way, 5 * k, rate, lv->above->name);
			return 0;
		}
	}
	return 1;
}

/* Counters, caches below level 1 (physically indexed): when the stride
 * answers do not hold up (unknown, split votes, or failing the mapping
 * check), leave ways, way and size to eviction sets (mod_evset.c) and
 * say why.  1: handed over. */
static int by_experiment_if_scattered(struct amp_ctx *c, struct amp_level *lv)
{
	char why[AMP_REASON_LEN];
	int holds;

	if (lv->method != AMP_METHOD_COUNTERS || lv->kind != AMP_KIND_CACHE || lv->level < 2) {
		search.evict = 0;
		return 0;
	}
	if (search.evict_failed) {
		/* No more ways than the level above, and no evictors to tell
		 * them apart: that level holds every walk that fits it, so any
		 * way stride passes the mapping check (a 24-way L1d over a
		 * direct-mapped L2 on scattered frames read 24 ways 32 MiB
		 * apart).  Its own thrash, or this one's: unknown. */
		search.evict = 0;
		snprintf(why, sizeof why, "%s showed no more ways than %s above it (%lld), and walks with lines that evict them from %s failed",
			 lv->name, lv->above->name, (long long)lv->assoc.value, lv->above->name);
	} else if (amp_param_conclusive(&lv->assoc) && amp_param_conclusive(&lv->way)) {
		/* With the evictors the answer was found with, if any; as
		 * while searching, their walks are not yet limited by the
		 * sets the answer gives. */
		lv->way.known = search.pushed; /* pushers need it */
		holds = mapping_holds(c, lv, lv->assoc.value, lv->way.value, why, sizeof why);
		lv->way.known = 1;
		search.evict = 0;
		if (holds)
			return 0;
	} else {
		search.evict = 0;
		const struct amp_param *p = amp_param_conclusive(&lv->assoc) ? &lv->way : &lv->assoc;

		snprintf(why, sizeof why, "virtual strides gave no %s (%s)",
			 p == &lv->way ? "way size" : "associativity", p->reason);
	}
	lv->sets_by_experiment = 1;
	lv->thrash_ways = 0;
	amp_param_unknown(&lv->assoc, "%s", why);
	amp_param_unknown(&lv->way, "%s", why);
	amp_param_unknown(&lv->size, "%s", why);
	return 1;
}

/* Timing, data side: how much of a cyclic walk of ways + 1 lines a way
 * apart misses, the least of OVERFLOW_SETS sets: interference only adds
 * misses (mod_replace.c rules lru, plru and fifo out when it is well
 * below one).  Not the median: on an Intel family 6 model 207 guest the
 * median read 0.65 to 0.78 in some runs and over 0.8 in others, while
 * single walks of the ways search read 0.50 to 0.59. */
#define OVERFLOW_SETS 5

static void overflow_share(struct amp_ctx *c, struct amp_level *lv)
{
	double least = INFINITY;
	char err[AMP_REASON_LEN];

	lv->overflow_share = 0;
	if (!data_by_time(lv) || lv->kind != AMP_KIND_CACHE)
		return;
	for (unsigned v = 0; v < OVERFLOW_SETS; v++) {
		double rate;

		if (amp_cyclic_rate_ex(c, lv, vote_base(lv, v), (uint64_t)lv->way.value,
				       (uint64_t)lv->thrash_ways + 1, 0, stride_max(lv), &rate, err, sizeof err) < 0)
			return;
		least = fmin(least, rate);
	}
	lv->overflow_share = least;
}

/* By timing, votes that disagree are voted on again, as many more of
 * them later: another process on the core (a host's SMT sibling shares
 * L1d) takes ways for seconds at a time, and votes cast then read fewer
 * ways (3 of 8 read 10 of the Zen 5 guest's 12 L1d ways in one burst). */
static void split_again(struct amp_ctx *c, struct amp_level *lv, amp_vote_fn fn, struct amp_param *p)
{
	if (lv->method == AMP_METHOD_TIMING && p->known && p->confidence < 1)
		amp_vote_more(c, lv, fn, p, 0);
}

extern const struct amp_module amp_module_replacement;

/* The ways again with evictors between the accesses, where the level
 * above may hold the lines: where walks without them saw no more ways
 * than it has, and, with counters, under a random L1 of A ways, whose
 * walks keep some lines there however long they are (18 lines 1 GiB
 * apart missed a 16-way NINE L2 under a random 16-way L1d 0.02 of the
 * time: 18 ways seen).  With (fresh) evictors the walks see the level's
 * own ways W.  Under the random L1 an exclusive pair holds exactly
 * A + W lines of a set and never misses them, so W is taken only where
 * the S seen without evictors is under A + W; else S stands (the pair). */
static void ways_with_evictors(struct amp_ctx *c, struct amp_level *lv, struct amp_param *ways)
{
	uint64_t above = (uint64_t)lv->above->thrash_ways;
	int pair = (uint64_t)ways->value > above;
	struct amp_param again;

	search.evict = 1;
	if (amp_vote(c, lv, ways_vote, &again) == 0 &&
	    (!pair || (uint64_t)(ways->value - again.value) < above)) {
		again.accesses += ways->accesses;
		*ways = again;
		return;
	}
	search.evict = 0;
	if (pair)
		ways->accesses += again.accesses;
	else
		search.evict_failed = 1;
}

/* Counters, with the way size known: the smallest walk a way apart that
 * thrashes, with pushers (measure.c pushed_rate_walk) sharing its set
 * above, between search.fit lines (which must fit) and search.over
 * (which must thrash). */
static int pushed_ways_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
			    char *err, size_t len)
{
	uint64_t base = vote_base(lv, v), way = (uint64_t)lv->way.value;
	uint64_t lo = search.fit, hi = search.over;
	int yes;

	if (thrash(c, lv, base, way, lo, &yes, err, len) < 0)
		return -1;
	if (yes) {
		snprintf(err, len, "%s: %llu lines %llu bytes apart thrash with pushers, where half a way apart they fit",
			 lv->name, (unsigned long long)lo, (unsigned long long)way);
		return -1;
	}
	if (thrash(c, lv, base, way, hi, &yes, err, len) < 0)
		return -1;
	if (!yes) {
		snprintf(err, len, "%s: %llu lines %llu bytes apart fit with pushers", lv->name,
			 (unsigned long long)hi, (unsigned long long)way);
		return -1;
	}
	if (bisect_thrash(c, lv, base, way, lo, &hi, err, len) < 0)
		return -1;
	*value = (int64_t)(hi - 1);
	return 0;
}

/* Counters: where walks with evictors failed because this level has
 * fewer ways than the levels above hold of a set (an exclusive chain
 * passes its victims down: a 20-way L4 under 10 + 2 + 16 exclusive ways
 * read 28, and the 28 evictors of each test line, in one set of it,
 * missed every time), the ways the walks saw are the chain's.  The way
 * search still found this level's way size W (ways + 1 lines W / 2
 * apart fit: two of its sets hold them), so half of them fit one set;
 * pushers in its other sets then push the test lines out of the chain
 * at no cost here, and the walks see this level's own ways. */
static void ways_with_pushers(struct amp_ctx *c, struct amp_level *lv, struct amp_param *ways,
			     const struct amp_param *way)
{
	struct amp_param again, way_before = lv->way;
	int thrash_before = lv->thrash_ways;

	if (lv->method != AMP_METHOD_COUNTERS || lv->kind != AMP_KIND_CACHE || !amp_evictors_usable(lv) ||
	    (uint64_t)way->value % (2 * amp_evictor_step(lv)))
		return;
	search.over = (uint64_t)ways->value + 1;
	search.fit = (search.over + 1) / 2;
	search.evict = 1;
	/* The pushers' walks need the way, and fit lines per set. */
	lv->way = *way;
	lv->thrash_ways = (int)search.fit;
	if (amp_vote(c, lv, pushed_ways_vote, &again) == 0 && amp_param_conclusive(&again)) {
		again.accesses += ways->accesses;
		*ways = again;
		lv->thrash_ways = (int)again.value;
		search.evict_failed = 0;
		search.pushed = 1;
		return;
	}
	ways->accesses += again.accesses;
	lv->way = way_before;
	lv->thrash_ways = thrash_before;
	search.evict = 0;
}

static int assoc_round(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	struct amp_param ways, way;
	int64_t unit = (int64_t)unit_of(lv);

	search.evict = 0;
	search.evict_failed = 0;
	search.pushed = 0;
	search.hi = 0;
	search.mixed_lines = 0;
	/* With counters, L1's replacement first: a random L1 keeps some
	 * lines of any walk (see ways_with_evictors). */
	if (lv->method == AMP_METHOD_COUNTERS && lv->kind == AMP_KIND_CACHE && lv->above && !lv->above->above)
		amp_run_module(c, &amp_module_replacement, lv->above);
	if (amp_vote(c, lv, ways_vote, &ways) == 0 && amp_evictors_usable(lv) &&
	    (ways.value <= lv->above->thrash_ways ||
	     (lv->method == AMP_METHOD_COUNTERS && amp_replaces_at_random(lv->above))))
		ways_with_evictors(c, lv, &ways);
	split_again(c, lv, ways_vote, &ways);
	if (!ways.known || ways.inconclusive) {
		lv->assoc = ways;
		if (by_experiment_if_scattered(c, lv))
			return 0;
		amp_param_unknown(&lv->way, "needs the associativity first");
		amp_param_unknown(&lv->size, "needs the associativity first");
		return 0;
	}
	lv->thrash_ways = (int)ways.value;
	amp_vote(c, lv, way_vote, &way);
	split_again(c, lv, way_vote, &way);
	if (amp_param_conclusive(&way))
		odd_sets(c, lv, &ways, &way);
	if (search.evict_failed && amp_param_conclusive(&way))
		ways_with_pushers(c, lv, &ways, &way);
	lv->assoc = ways;
	lv->way = way;
	if (by_experiment_if_scattered(c, lv))
		return 0;
	if (!way.known || way.inconclusive) {
		amp_param_unknown(&lv->size, "needs the way size (%s)", way.reason);
		/* Code by timing: 2 x ways lines that thrash at no stride (or
		 * at no stride most votes agree on) do not confirm the ways:
		 * on real hardware a busy host or an op cache can make a few
		 * lines of one set look like a thrashing walk. */
		if (code_by_time(lv) && lv->assoc.known) {
			lv->assoc.inconclusive = 1;
			snprintf(lv->assoc.reason, sizeof lv->assoc.reason,
				 "the way search did not confirm it (%s)", way.reason);
		}
		return 0;
	}
	lv->fully_associative = way.value == unit;
	overflow_share(c, lv);
	/* A TLB's size is its entries; a cache's, its bytes. */
	amp_size_derived(lv, lv->kind == AMP_KIND_TLB ? ways.value * (way.value / unit) : ways.value * way.value,
			 &ways, &way);
	return 0;
}

/* Data by timing: a neighbour on the core (a host's SMT sibling shares
 * L1d) that runs a small loop keeps its lines recent in every set, and
 * while it runs every walk sees fewer ways: all 8 votes of 1 run of
 * `--level=L1d` in 40 read 10 of the Zen 5 guest's 12 L1d ways.  Two
 * things give such a round away:
 *  - the way search, run after the spell, finds no stride at which one
 *    line more than those ways thrashes (that run read no way size);
 *  - the size is below what the latency sweep, run earlier, held at the
 *    level's latency (44 KiB there; 40 KiB read in a full run), less
 *    what the levels above hold (amp_short_of_sweep).
 * Such a level is measured again after AMP_SPELL_PAUSE_NS, at most
 * AMP_SPELL_TRIES times. */

/* Whether this round of lv's ways was measured in a spell; why. */
static int spell_seen(const struct amp_level *lv, char *why, size_t len)
{
	if (!data_by_time(lv) || lv->kind != AMP_KIND_CACHE)
		return 0;
	if (search.mixed_lines) {
		snprintf(why, len, "%s: a vote's %llu lines missed part of the time, look after look, where earlier votes' walks of %llu missed fully",
			 lv->name, (unsigned long long)search.mixed_lines, (unsigned long long)search.full_lines);
		return 1;
	}
	if (!amp_param_conclusive(&lv->assoc))
		return 0;
	if (!amp_param_conclusive(&lv->way)) {
		snprintf(why, len, "%s: a round read %lld ways, and the way search then found no stride at which %lld lines thrash (%s)",
			 lv->name, (long long)lv->assoc.value, (long long)lv->assoc.value + 1, lv->way.reason);
		return 1;
	}
	if (!amp_param_conclusive(&lv->size) || !amp_short_of_sweep(lv, lv->size.value))
		return 0;
	snprintf(why, len, "%s: a round read %lld ways of %lld bytes, %lld KiB, below the %lld KiB the latency sweep held at its latency",
		 lv->name, (long long)lv->assoc.value, (long long)lv->way.value, (long long)lv->size.value >> 10,
		 (long long)lv->effective_size.value >> 10);
	return 1;
}

static int assoc_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	char first[AMP_REASON_LEN] = "", why[AMP_REASON_LEN];
	unsigned discarded = 0, tries = 0;
	uint64_t spent = 0;
	int rc;

	search.looks_left = STEP_LOOKS;
	search.full_lines = 0;
	rc = assoc_round(c, lv, err, len);

	for (; rc == 0 && spell_seen(lv, why, sizeof why); tries++) {
		if (!first[0])
			snprintf(first, sizeof first, "%s", why);
		if (tries == AMP_SPELL_TRIES) {
			/* A spell as long as the rounds, or a level these
			 * walks cannot read: unknown, not wrong. */
			lv->assoc.inconclusive = 1;
			snprintf(lv->assoc.reason, sizeof lv->assoc.reason, "%s; so did %u more rounds, %.1f s apart",
				 first, tries, AMP_SPELL_PAUSE_NS / 1e9);
			if (lv->size.known) {
				lv->size.inconclusive = 1;
				snprintf(lv->size.reason, sizeof lv->size.reason, "%s", lv->assoc.reason);
			}
			break;
		}
		discarded += (unsigned)lv->assoc.nvotes;
		spent += lv->assoc.accesses + lv->way.accesses;
		amp_spell_pause(c);
		rc = assoc_round(c, lv, err, len);
	}
	/* The rounds measured in a spell count as failed measurements. */
	if (discarded && amp_param_conclusive(&lv->assoc)) {
		amp_param_set_aside(&lv->assoc, discarded, spent, first);
		lv->size.accesses += spent;
	}
	return rc;
}

const struct amp_module amp_module_assoc = {
	.name = "assoc",
	.summary = "associativity, way size and capacity (entries) from cyclic walks that thrash one set",
	.kinds = 1u << AMP_KIND_CACHE | 1u << AMP_KIND_TLB,
	.fills = { AMP_FILLS(assoc), AMP_FILLS(way), AMP_FILLS(size) },
	.applies = assoc_applies,
	.supported = assoc_supported,
	.run = assoc_run,
};
