/* timing.c - time as the measure of misses (see timing.h): the timed
 * run with X-Ray's doubling, the TLB-neutral reference walk, the
 * BlackjackBench size/latency sweep with monotonicity and quality
 * threshold clustering, and the core clock. */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "timer.h"
#include "util.h"
#include "timing.h"
#include "curve.h"
#include "trace.h"

#define MIN_WALK_ACCESSES 512      /* per measured run, before doubling */
#define SWEEP_STRIDE 64            /* one load per 64 B (no line is smaller here) */
#define SWEEP_MIN_LOADS 4096
#define SWEEP_T_MIN_NS 1000000.0   /* 1 ms per measured sweep run */
#define SWEEP_POINTS_PER_OCTAVE 4
/* Random order within windows of this many pages, the windows in random
 * order: translations are reused ~1000 times (so TLB steps stay out of
 * the cache curve, BlackjackBench 3.1.2) while no page is walked on its
 * own long enough for a region prefetcher to fill it. */
#define SWEEP_WINDOW_PAGES 16
/* Quality threshold: a cluster's spread is at most this share of its
 * mean (BlackjackBench 4.2.3). */
#define QT_DIAMETER 0.25
/* X-Ray 4.5: each level is at least twice as slow as the one above it;
 * clusters closer than this are one level seen through conflicts. */
#define LEVEL_LATENCY_RATIO 2.0
#define MIN_LEVEL_POINTS 3       /* a level between two others spans at least this many points */
/* ... unless it is a level squeezed by other tenants: two points or more
 * at least LEVEL_LATENCY_RATIO over the level before and this many
 * times under the level after (see amp_sweep_analyse). */
#define SQUEEZED_BELOW_NEXT 4.0
/* Main memory: a plateau this many times slower than the first point. */
#define MEMORY_RATIO 20.0

/* The plan timed on c's host: runs of at least t_min ticks (real
 * machine), the minimum of reps, per measured access, timer overhead
 * removed. */
static int timed(struct amp_ctx *c, struct amp_plan *p, unsigned reps, double t_min, double *ticks,
		 char *err, size_t len)
{
	struct amp_run_result res;
	double overhead = c->host->sim ? 0 : amp_timer()->overhead_ticks;

	p->min_ticks = c->host->sim ? 0 : t_min;
	if (amp_run(p, c->host, NULL, reps, &res, err, len) < 0)
		return -1;
	if (!res.accesses) {
		snprintf(err, len, "plan %s: nothing measured", p->name);
		return -1;
	}
	c->accesses += (amp_plan_accesses(p, 0) - amp_plan_accesses(p, 1) + res.accesses) * res.reps;
	*ticks = ((double)res.ticks_min - overhead) / (double)res.accesses;
	if (*ticks < 0)
		*ticks = 0;
	return 0;
}

int amp_timing_ticks(struct amp_ctx *c, struct amp_plan *p, double *ticks, char *err, size_t len)
{
	return timed(c, p, c->reps, c->t_min_ticks, ticks, err, len);
}

int amp_timing_ticks_reps(struct amp_ctx *c, struct amp_plan *p, unsigned reps, double *ticks, char *err,
			  size_t len)
{
	return timed(c, p, reps < c->reps ? reps : c->reps, c->t_min_ticks, ticks, err, len);
}

int amp_timing_ticks_once(struct amp_ctx *c, struct amp_plan *p, double *ticks, char *err, size_t len)
{
	return timed(c, p, c->reps, 0, ticks, err, len);
}

int amp_timing_misses(struct amp_ctx *c, const struct amp_level *lv, struct amp_plan *p,
		      double *misses, char *err, size_t len)
{
	double gap = lv->next_ticks - lv->hit_ticks, ticks;
	uint64_t n = amp_plan_accesses(p, 1);

	if (gap <= 0) {
		snprintf(err, len, "%s: no latency gap to the level below", lv->name);
		return -1;
	}
	if (amp_timing_ticks_once(c, p, &ticks, err, len) < 0)
		return -1;
	*misses = (ticks - lv->hit_ticks) * (double)n / gap;
	if (*misses < 0)
		*misses = 0;
	amp_trace_count(p, "timing", *misses);
	return 0;
}

/* The eviction test's plan: target, the walk `passes` times, the warm
 * line, the target timed.  `fresh`: the target is flushed first, so its
 * load puts it in every level anew: one that was still there would keep
 * its old place where a hit does not renew a line (FIFO), and lines of
 * its set walked in the paired base walk (amp_timing_evicted) then
 * aged it: eviction sets of a simulated FIFO L2 came out short by the
 * base walk's lines that fell in the target's set (14 or 15 lines for
 * 16 ways).  0, or -1 (out of memory). */
static int reload_plan(struct amp_plan *p, const struct amp_arena *a, uint64_t region, uint64_t *target,
		       uint64_t *warm, const uint64_t *off, uint64_t n, unsigned passes, int fresh)
{
	int t, w;

	amp_plan_init(p, "eviction test", region);
	p->arena = a;
	t = amp_plan_add_seq(p, target, 1);
	w = amp_plan_add_seq(p, off, (size_t)n);
	if (t < 0 || w < 0 || amp_plan_add_seq(p, warm, 1) < 0) {
		amp_plan_free(p);
		return -1;
	}
	if (fresh)
		amp_plan_add_pass(p, t, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(p, t, AMP_OP_LOAD, 1, 0);
	amp_plan_add_pass(p, w, AMP_OP_TOUCH, passes, 0);
	amp_plan_add_pass(p, w + 1, AMP_OP_LOAD, 1, 0);
	amp_plan_add_pass(p, t, AMP_OP_LOAD, 1, 1);
	return 0;
}

int amp_timing_reload(struct amp_ctx *c, const struct amp_arena *a, uint64_t region, uint64_t target,
		      uint64_t warm, const uint64_t *off, uint64_t n, unsigned passes, unsigned reps,
		      double *ticks, char *err, size_t len)
{
	struct amp_plan p;
	struct amp_run_result res;
	int rc;

	if (reload_plan(&p, a, region, &target, &warm, off, n, passes, 0) < 0) {
		snprintf(err, len, "out of memory for an eviction test of %llu lines", (unsigned long long)n);
		return -1;
	}
	rc = amp_run(&p, c->host, NULL, reps, &res, err, len);
	amp_plan_free(&p);
	if (rc < 0)
		return -1;
	c->accesses += (n * passes + 3) * res.reps;
	*ticks = res.ticks_midmean - (c->host->sim ? 0 : amp_timer()->overhead_ticks);
	return 0;
}

/* The mean of the fastest three quarters of v[0..n-1] (sorts it): an
 * interrupt only slows a run.  Not a median: where the timer steps about
 * as far as a miss costs (26 ticks on the Zen 4 guest), a single reload
 * reads one of two steps, in a share that follows its true cost; a mean
 * keeps that share, a median rounds it to a step. */
static double fast_mean(double *v, unsigned n)
{
	unsigned k = n - n / 4;
	double sum = 0;

	qsort(v, n, sizeof *v, amp_cmp_double);
	for (unsigned i = 0; i < k; i++)
		sum += v[i];
	return sum / k;
}

/* Share of the gap below which a difference spares the target, and
 * above which it evicts it, without more runs. */
#define SPARES_BELOW 0.3
#define EVICTS_ABOVE 0.7

static int quiet_reference(struct amp_ctx *c, enum amp_op op, double *r, char *err, size_t len);

/* How long amp naps in a busy spell before it looks again. */
static const struct timespec quiet_nap = { 0, 2000000 };

/* Real machine: eviction tests wait for quiet (evict_quiet's budget
 * allowing; mod_evset.c sets it per search).  The reference is timed
 * at most every EVICT_QUIET_EVERY_NS (busy spells last longer): timed
 * before every test it made `amp --level=L2` on this project's Zen 4
 * guest take 95 to 191 s instead of 4 to 14. */
#define EVICT_QUIET_EVERY_NS 50000000ULL

static int evict_when_quiet(struct amp_ctx *c, char *err, size_t len)
{
	struct amp_quiet *q = &c->evict_quiet;

	if (c->host->sim)
		return 0;
	while (amp_now_ns() - q->looked_at >= EVICT_QUIET_EVERY_NS) {
		double r;

		if (quiet_reference(c, AMP_OP_LOAD, &r, err, len) < 0)
			return -1;
		q->looked_at = amp_now_ns();
		if (amp_quiet_look(q, r) != AMP_QUIET_WAIT)
			return 0;
		q->looked_at = 0; /* busy: look again after the nap */
	}
	return 0;
}

/* The base walk's copy of a walk's line: this far on in its page (no
 * line is bigger, and eviction-set lines lie at multiples of 512 B or
 * up to 256 B past them, so no copy lands on the target's offset). */
#define PAIRED_MOVE 256

int amp_timing_evicted(struct amp_ctx *c, const struct amp_arena *a, uint64_t region, uint64_t target,
		       uint64_t warm, const uint64_t *base, uint64_t nbase, const uint64_t *off, uint64_t n,
		       unsigned passes, unsigned reps, double gap, double *ticks, int *yes, char *err,
		       size_t len)
{
	struct amp_plan pb, p;
	unsigned done = 0, most;
	double *each;
	uint64_t *paired;
	int rc;

	if (reps == 0)
		reps = 1;
	most = reps * AMP_EVICT_ROUNDS;
	/* The base's runs, then the walk's; each side's runs so far sorted
	 * in place (their order does not matter to fast_mean). */
	each = malloc(2 * (size_t)most * sizeof *each);
	paired = malloc((size_t)(nbase + n) * sizeof *paired);
	if (!each || !paired)
		goto oom;
	/* The base walk: the base, then the walk's lines moved within their
	 * pages (other sets at every level), so both walks touch the same
	 * pages.  On the Intel guest (host frames of 4 KiB under the guest's
	 * huge pages) a walk of 64 to 256 pages slowed the target's reload
	 * by about 20 ticks with its lines at another page offset than the
	 * target's, half the L2-L3 gap: every set of 64 lines "evicted" it,
	 * and group testing found sets of 11 to 14 lines for 16 ways. */
	for (uint64_t i = 0; i < nbase; i++)
		paired[i] = base[i];
	for (uint64_t i = 0; i < n; i++)
		paired[nbase + i] = off[i] - off[i] % c->page + (off[i] % c->page + PAIRED_MOVE) % c->page;
	if (reload_plan(&pb, a, region, &target, &warm, paired, nbase + n, passes, 1) < 0)
		goto oom;
	if (reload_plan(&p, a, region, &target, &warm, off, n, passes, 1) < 0) {
		amp_plan_free(&pb);
		goto oom;
	}
	free(paired);
	paired = NULL;
	do {
		if ((rc = evict_when_quiet(c, err, len)) < 0)
			break;
		rc = amp_run_pair_each(&pb, &p, c->host, reps, each + done, each + most + done, err, len);
		if (rc < 0)
			break;
		c->accesses += ((2 * n + nbase) * passes + 6) * reps; /* both walks */
		done += reps;
		*ticks = fast_mean(each + most, done) - fast_mean(each, done);
	} while (done < most && *ticks >= SPARES_BELOW * gap && *ticks <= EVICTS_ABOVE * gap);
	if (rc == 0)
		*yes = *ticks > gap / 2;
	free(each);
	amp_plan_free(&pb);
	amp_plan_free(&p);
	return rc;
oom:
	free(paired);
	free(each);
	snprintf(err, len, "out of memory for an eviction test of %llu lines", (unsigned long long)n);
	return -1;
}

/* The reference walk: the same pages, each page's lines moved to
 * offsets that spread over the level-1 sets, so it hits L1 yet pays the
 * same translations. */
struct ref_slot {
	uint64_t page, index;
};

static int cmp_slot(const void *a, const void *b)
{
	const struct ref_slot *x = a, *y = b;

	if (x->page != y->page)
		return x->page < y->page ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static uint64_t *reference_offsets(const uint64_t *off, uint64_t n, uint64_t page, uint64_t line)
{
	struct ref_slot *s = malloc(n * sizeof *s);
	uint64_t *ref = malloc(n * sizeof *ref);
	uint64_t slots = page / line, npage = 0, k = 0;

	if (!s || !ref) {
		free(s);
		free(ref);
		return NULL;
	}
	for (uint64_t i = 0; i < n; i++) {
		s[i].page = off[i] / page;
		s[i].index = i;
	}
	qsort(s, n, sizeof *s, cmp_slot);
	for (uint64_t i = 0; i < n; i++) {
		if (i > 0 && s[i].page != s[i - 1].page) {
			npage++;
			k = 0;
		}
		/* Page j starts at slot j: round robin over the sets. */
		ref[s[i].index] = s[i].page * page + ((npage + k) % slots) * line;
		k++;
	}
	free(s);
	return ref;
}

/* Translation cost of the reference, as a share of the latency gap
 * measured, beyond which a timed comparison is refused. */
#define REF_TLB_SHARE 0.2
/* A reference over that is taken again, up to REF_TAKES times in all,
 * after a quiet_nap. */
#define REF_TAKES 4

/* On real hardware page walks also fill the caches, so once the
 * reference pays much for translations the two walks no longer differ
 * by cache misses alone (the simulator's TLB only adds time).  A chain
 * of jumps pays a loop tail per walk, a share of a short walk's time
 * that is no translation cost; a few pages never strain a TLB, so
 * short jump walks skip the check. */
static int ref_too_slow(const struct amp_ctx *c, const struct amp_level *lv, enum amp_op op, uint64_t n,
			double t_ref)
{
	double h1 = amp_level_top(lv)->hit_ticks;

	return !c->host->sim && !(op == AMP_OP_IFETCH && n < 64) &&
	       t_ref - h1 > REF_TLB_SHARE * (lv->next_ticks - h1);
}

/* Lines stay where the caller put them: on AMD's L1 (and perhaps
 * others) lines whose high address bits differ irregularly can collide
 * in the way predictor's hashed tags and look like conflict misses. */
static int walk_ticks(struct amp_ctx *c, const uint64_t *off, uint64_t n, uint64_t region,
		      struct amp_rng *order, enum amp_op op, double *ticks, char *err, size_t len)
{
	struct amp_plan p;
	unsigned walks = (unsigned)((MIN_WALK_ACCESSES + n - 1) / n);
	uint64_t *moved = malloc(n * sizeof *moved);
	int seq, rc;

	if (!moved) {
		snprintf(err, len, "out of memory for a walk of %llu lines", (unsigned long long)n);
		return -1;
	}
	for (uint64_t i = 0; i < n; i++)
		moved[i] = off[i];
	/* A random cyclic order: no stride for a prefetcher (X-Ray 4.4.3);
	 * the same order for the walk and its reference. */
	amp_shuffle(moved, (size_t)n, order);
	amp_plan_init(&p, "timed walk", region);
	p.huge = c->huge_walks;
	if (op == AMP_OP_IFETCH)
		p.fetch_jumps = c->fetch_jumps;
	seq = amp_plan_add_seq(&p, moved, (size_t)n);
	free(moved);
	if (seq < 0) {
		snprintf(err, len, "out of memory for a walk of %llu lines", (unsigned long long)n);
		return -1;
	}
	/* Cold first: a FIFO set primed from lines left by earlier walks
	 * can settle into a cycle of hits and misses (half of 12 lines
	 * of an 8-way set hit); from cold, a walk that overflows it misses
	 * every time.  Not code: with its lines flushed, L1i read 9 ways
	 * (36 KiB) in 3 of 3 full runs on the Zen 5 guest, 8 without. */
	if (op != AMP_OP_IFETCH)
		amp_plan_add_pass(&p, seq, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(&p, seq, op, 2, 0);
	amp_plan_add_pass(&p, seq, op, walks, 1);
	rc = amp_timing_ticks(c, &p, ticks, err, len);
	amp_plan_free(&p);
	return rc;
}

int amp_timing_rate(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off, uint64_t n,
		    uint64_t region, double *rate, char *err, size_t len)
{
	double excess, gap = lv->next_ticks - lv->hit_ticks;

	if (gap <= 0) {
		snprintf(err, len, "%s: no latency gap to the level below", lv->name);
		return -1;
	}
	if (amp_timing_excess(c, lv, off, n, region, &excess, err, len) < 0)
		return -1;
	/* Beyond L1, hits here cost (hit - h1) more than the reference. */
	*rate = (excess - (lv->hit_ticks - amp_level_top(lv)->hit_ticks)) / gap;
	if (*rate < 0)
		*rate = 0;
	if (amp_tracing()) {
		struct amp_trace_ev e = { .kind = AMP_TR_TIMED, .lv = lv, .lines = n, .region = region,
					  .excess = excess, .rate = *rate, .method = "timing" };

		amp_trace(&e);
	}
	return 0;
}

/* A walk's region: at least `region`, covering every line of off[], in
 * whole pages. */
static uint64_t whole_pages(const struct amp_ctx *c, const uint64_t *off, uint64_t n, uint64_t region)
{
	for (uint64_t i = 0; i < n; i++)
		if (off[i] + 64 > region)
			region = off[i] + 64;
	return (region + c->page - 1) / c->page * c->page;
}

/* Code walks by timing are judged against the fastest walk of their
 * search, not against an all-L1 reference (amp_timing_excess): an op
 * cache in front of the L1i serves the reference, spread over its sets,
 * and not a walk in one set; and code lines a set stride apart that miss
 * cost far more than the code sweep's gap (sequential code is
 * prefetched).  On this project's Zen 5 guests: 8.6 ticks a line that
 * hits, 12-19 that misses, a sweep gap of 2.5.  A line that misses costs
 * at least this share of a hit more, so THRASH_RATE_TIMING (0.8) is a
 * walk 25% slower than the fastest.  Only walks whose code an op cache
 * cannot hold may set the fastest (amp_code_base_walk). */
#define CODE_MISS_SHARE 0.3125
/* With an op cache: lines a page apart share its set too, and 4 of them
 * at 8 jumps a line overflow it (fewer may be served from it, faster
 * than from the L1i: 10.2 ticks a line of 1, 7.4 of 8 at 1 KiB apart). */
#define CODE_BASE_LINES 4

enum amp_quiet_state amp_quiet_look(struct amp_quiet *q, double r)
{
	uint64_t now = amp_now_ns();

	if (q->nap_since) {
		uint64_t spent = now - q->nap_since;

		q->wait_left = spent < q->wait_left ? q->wait_left - spent : 0;
		q->nap_since = 0;
	}
	if (!(q->fastest > 0) || r < q->fastest)
		q->fastest = r;
	if (r <= (1 + AMP_QUIET) * q->fastest)
		return AMP_QUIET_YES;
	if (!q->wait_left)
		return AMP_QUIET_BUSY;
	q->nap_since = now;
	nanosleep(&quiet_nap, NULL); /* let the busy spell pass */
	return AMP_QUIET_WAIT;
}

/* The quiet gate of code walks (a fitting walk slowed reads as one that
 * thrashes): the reference is 16 lines of one page; amp waits at most
 * CODE_QUIET_WAIT_NS in the whole run.
 * Each walk is the fastest of CODE_LAYOUTS layouts (another order of its
 * lines, another address: jumpchain.c maps each chain afresh): branch
 * predictors index and tag jumps by their address, and on an AMD Zen 4
 * guest 8 lines of one L1i set, 8 jumps a line, ran at 5.9 ticks a line
 * in some layouts and 10-24 in others, while 16 lines never ran under
 * 8.2.  Such conflicts only slow code that fits; none speeds up code
 * that misses. */
#define CODE_QUIET_WAIT_NS 6000000000ULL
#define QUIET_REF_LINES 16
#define CODE_LAYOUTS 3

/* A quiet gate's reference: 16 lines of one page, loads or jumps. */
static int quiet_reference(struct amp_ctx *c, enum amp_op op, double *r, char *err, size_t len)
{
	uint64_t ref[QUIET_REF_LINES];
	struct amp_rng order;

	for (unsigned i = 0; i < QUIET_REF_LINES; i++)
		ref[i] = i * (c->page / QUIET_REF_LINES);
	amp_rng_seed(&order, 1);
	return walk_ticks(c, ref, QUIET_REF_LINES, 2 * c->page, &order, op, r, err, len);
}

static int code_walk_quiet(struct amp_ctx *c, const uint64_t *off, uint64_t n, uint64_t region,
			   struct amp_rng *order, double *t, char *err, size_t len)
{
	if (c->host->sim)
		return walk_ticks(c, off, n, region, order, AMP_OP_IFETCH, t, err, len);
	if (!(c->code_quiet.fastest > 0))
		c->code_quiet.wait_left = CODE_QUIET_WAIT_NS;
	*t = INFINITY;
	for (unsigned k = 0; k < CODE_LAYOUTS;) {
		struct amp_rng again = *order;
		double r, x;

		if (quiet_reference(c, AMP_OP_IFETCH, &r, err, len) < 0 ||
		    walk_ticks(c, off, n, region, &again, AMP_OP_IFETCH, &x, err, len) < 0)
			return -1;
		if (amp_quiet_look(&c->code_quiet, r) != AMP_QUIET_WAIT) {
			*order = again;
			*t = fmin(*t, x);
			k++;
		}
	}
	return 0;
}

int amp_timing_code_rate(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off,
			 uint64_t n, uint64_t region, double *fastest, int update, double *rate,
			 char *err, size_t len)
{
	struct amp_rng order;
	double t, ref;

	/* The chain's loop tail sits at the region's end: there, on a line
	 * whose set bits (any of 64 B .. a page) all differ from the first
	 * line's, not in the set walked (at a page boundary it would be
	 * one more line of set 0). */
	region = whole_pages(c, off, n, region) + (((off[0] % c->page) & ~63ULL) ^ (c->page - 64));
	amp_rng_seed(&order, amp_rng_next(&c->rng));
	if (code_walk_quiet(c, off, n, region, &order, &t, err, len) < 0)
		return -1;
	if (update && (*fastest <= 0 || t < *fastest))
		*fastest = t;
	/* Never against anything faster than the L1i's hit (the code sweep's
	 * plateau): a faster walk ran from the op cache, and walks that
	 * only overflow the op cache would read as thrashing (8 lines of one
	 * set ran so in some runs here, and the ways read 2). */
	ref = *fastest;
	if (c->opcache.entries > 0 && ref > 0 && ref < lv->hit_ticks)
		ref = lv->hit_ticks;
	*rate = ref > 0 ? (t - ref) / (CODE_MISS_SHARE * ref) : 0;
	if (amp_tracing()) {
		struct amp_trace_ev e = { .kind = AMP_TR_TIMED, .lv = lv, .lines = n, .region = region,
					  .excess = *fastest > 0 ? t - *fastest : 0, .rate = *rate, .method = "timing",
					  .text = "the fastest code walk" };

		amp_trace(&e);
	}
	return 0;
}

int amp_code_base_walk(const struct amp_ctx *c, uint64_t n, uint64_t stride)
{
	/* One jump a line: the simulated machine, which has no op cache.
	 * Real code walks keep the rule where the sweep found none: in some
	 * runs here it missed the op cache, and walks of 1 or 2 lines it
	 * served set the pace (every longer walk then thrashed: 2 ways). */
	if (c->fetch_jumps < 2)
		return 1;
	return n >= CODE_BASE_LINES && stride % c->page == 0;
}

int amp_timing_excess(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off, uint64_t n,
		      uint64_t region, double *excess, char *err, size_t len)
{
	const struct amp_level *top = amp_level_top(lv);
	/* One reference line per L1 line (64 B until L1's is known). */
	uint64_t *ref = reference_offsets(off, n, c->page,
					  top->line.known && top->line.value <= (int64_t)c->page ? (uint64_t)top->line.value : 64);
	double t, t_ref, h1 = top->hit_ticks;
	enum amp_op op = amp_level_op(lv);
	struct amp_rng order, order_ref;

	if (!ref) {
		snprintf(err, len, "out of memory for a walk of %llu lines", (unsigned long long)n);
		return -1;
	}
	/* Whole pages: the reference moves lines within theirs. */
	region = whole_pages(c, off, n, region);
	amp_rng_seed(&order, amp_rng_next(&c->rng));
	for (unsigned take = 0;; take++) {
		struct amp_rng again = order;
		double x, x_ref;

		order_ref = order;
		if (walk_ticks(c, off, n, region, &again, op, &x, err, len) < 0 ||
		    walk_ticks(c, ref, n, region, &order_ref, op, &x_ref, err, len) < 0) {
			free(ref);
			return -1;
		}
		if (take == 0 || x_ref < t_ref) {
			t = x;
			t_ref = x_ref;
		}
		/* The pair whose reference ran fastest: a busy spell
		 * slows every run of a walk (a reference over one page
		 * read 14.1 ticks a load over L1's hit on the Intel
		 * guest, in 2 of 16 `--level=L1d` runs). */
		if (!ref_too_slow(c, lv, op, n, t_ref) || take + 1 == REF_TAKES)
			break;
		nanosleep(&quiet_nap, NULL);
	}
	free(ref);
	if (ref_too_slow(c, lv, op, n, t_ref)) {
		snprintf(err, len,
			 "%s: a walk over %llu pages pays %.1f ticks per access over L1's hit with its lines spread over L1's sets, in the fastest of %u takes (TLB misses, or a busy machine), too much to tell cache misses apart",
			 lv->name, (unsigned long long)n, t_ref - h1, REF_TAKES);
		return -1;
	}
	/* An op cache in front of the L1i serves a reference spread over its
	 * sets faster than the L1i, while the test walk, all in one of its
	 * sets, overflows it: the reference is an L1i hit at best. */
	if (op == AMP_OP_IFETCH && c->opcache.entries > 0 && t_ref < lv->hit_ticks)
		t_ref = lv->hit_ticks;
	*excess = t - t_ref;
	return 0;
}

/* ---- the size/latency sweep ---- */

static int sweep_point(struct amp_ctx *c, uint64_t size, unsigned idx, double *ticks, char *err,
		       size_t len)
{
	uint64_t n = size / SWEEP_STRIDE;
	unsigned times = n >= SWEEP_MIN_LOADS ? 1 : (unsigned)((SWEEP_MIN_LOADS + n - 1) / n);
	/* Big working sets take long per run; a few runs are enough there. */
	unsigned reps = size > (8ULL << 20) && c->reps > 3 ? 3 : c->reps;
	double t_min = c->host->sim ? 0 : SWEEP_T_MIN_NS * amp_timer()->ticks_per_ns;
	struct amp_plan p;
	int seq, rc;

	amp_plan_init(&p, "sweep", size);
	p.huge = 1;
	seq = amp_plan_add_block_cycle(&p, SWEEP_STRIDE, (size_t)n,
				       (size_t)(SWEEP_WINDOW_PAGES * c->page / SWEEP_STRIDE), c->seed + idx);
	if (seq < 0) {
		snprintf(err, len, "sweep: out of memory");
		return -1;
	}
	amp_plan_add_pass(&p, seq, AMP_OP_LOAD, 1, 0);
	amp_plan_add_pass(&p, seq, AMP_OP_LOAD, times, 1);
	rc = timed(c, &p, reps, t_min, ticks, err, len);
	amp_plan_free(&p);
	return rc;
}

/* Quality threshold clustering of y[a..b] (BlackjackBench Fig. 11, on a
 * non-decreasing sequence, so a cluster is a run of neighbours): the
 * longest run whose spread is within QT_DIAMETER of its mean becomes a
 * cluster, then the parts on either side are clustered the same way. */
static void qt_cluster(const double *y, int a, int b, int *first, int *last, int *n, int max)
{
	int best_i = a, best_j = a;

	if (a > b || *n >= max)
		return;
	for (int i = a; i <= b; i++) {
		double sum = 0;

		for (int j = i; j <= b; j++) {
			sum += y[j];
			if (y[j] - y[i] > QT_DIAMETER * sum / (j - i + 1))
				break;
			if (j - i > best_j - best_i) {
				best_i = i;
				best_j = j;
			}
		}
	}
	first[*n] = best_i;
	last[*n] = best_j;
	(*n)++;
	qt_cluster(y, a, best_i - 1, first, last, n, max);
	qt_cluster(y, best_j + 1, b, first, last, n, max);
}

int amp_qt_runs(const double *y, int n, int *first, int *last, int max)
{
	int k = 0;

	qt_cluster(y, 0, n - 1, first, last, &k, max);
	/* In order (the runs do not overlap). */
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && first[j] < first[j - 1]; j--) {
			int f = first[j], l = last[j];

			first[j] = first[j - 1];
			last[j] = last[j - 1];
			first[j - 1] = f;
			last[j - 1] = l;
		}
	return k;
}

/* Whether point i was measured near its monotone time (within
 * QT_DIAMETER), not lifted there by monotonicity from a faster point
 * past it: only such points are evidence of a level at that time. */
static int measured_near(const struct amp_sweep *sw, int i)
{
	return sw->raw[i] <= (1 + QT_DIAMETER) * sw->ticks[i];
}

/* The points of run [a, b] measured near their time.  Fewer than
 * MIN_LEVEL_POINTS make the run too short to be a level between two
 * others: a fast point carried back over slower ones is one point of
 * evidence, not a plateau (on this project's Zen 5 guest one size of
 * 5.7 MiB hit L3 at 65 ticks between two at memory's 370, and another
 * run's L3 fading out read 112, 241 and 101 ticks at 11.3 to 16 MiB;
 * both read as an L4). */
static int run_support(const struct amp_sweep *sw, int a, int b)
{
	int n = 0;

	for (int i = a; i <= b; i++)
		n += measured_near(sw, i);
	return n;
}

void amp_sweep_analyse(struct amp_sweep *sw)
{
	int first[AMP_SWEEP_MAX_POINTS], last[AMP_SWEEP_MAX_POINTS], support[AMP_SWEEP_MAX_POINTS], n;
	char level_point[AMP_SWEEP_MAX_POINTS] = { 0 }; /* of a level's own runs, not a step */

	/* Monotonicity as BlackjackBench (4.1) has it: each point is the
	 * fastest at its size or beyond.  Noise only slows a run, so a
	 * point slower than a bigger one is what noise kept: on this
	 * project's Zen 5 guest single sizes of 3.4-7 MiB read memory's
	 * latency in all 8 runs while bigger ones read L3's, and carried
	 * forward they cut L3's effective size there (2.9-5.8 MiB). */
	memcpy(sw->ticks, sw->raw, (size_t)sw->n * sizeof *sw->ticks);
	amp_curve_monotone(sw->ticks, sw->n);
	n = amp_qt_runs(sw->ticks, sw->n, first, last, AMP_SWEEP_MAX_POINTS);
	for (int i = 0; i < n; i++)
		support[i] = run_support(sw, first[i], last[i]);
	sw->nclusters = 0;
	for (int i = 0; i < n; i++) {
		double lat = sw->ticks[first[i]];
		int k = sw->nclusters, j = i + 1, ramp, step;

		/* The next run that can be a level: not short, or the last. */
		while (j + 1 < n && support[j] < MIN_LEVEL_POINTS)
			j++;
		/* Too close to the cluster before: the same level's ramp.  Under
		 * MIN_LEVEL_POINTS points measured near between two levels
		 * (sizes a fifth apart): the step itself (a guest's L3 fading into memory shows such a
		 * ledge, 152-170 ticks between 33 and 364), unless two or more
		 * stand far from both: a level squeezed by other tenants (this
		 * Zen 5 guest's L3 in 2 of 6 runs on 2026-12-02: 1.2-1.7 MiB at
		 * 20-31 ticks, past L2's 9 and before memory's 353-372). */
		ramp = k > 0 && lat < LEVEL_LATENCY_RATIO * sw->cl[k - 1].ticks;
		step = k > 0 && !ramp && support[i] < MIN_LEVEL_POINTS && i + 1 < n &&
		       !(support[i] >= 2 && j < n && sw->ticks[first[j]] >= SQUEEZED_BELOW_NEXT * lat);
		if (!step)
			memset(level_point + first[i], 1, (size_t)(last[i] - first[i] + 1));
		if (ramp || step) {
			sw->cl[k - 1].last = last[i];
			continue;
		}
		if (k == AMP_SWEEP_MAX_CLUSTERS)
			break;
		sw->cl[k].first = first[i];
		sw->cl[k].last = last[i];
		sw->cl[k].ticks = lat;
		sw->nclusters++;
	}
	/* A cluster's latency is the median of its level's points (its
	 * runs and the ramps that joined it, not the steps after it) that
	 * were measured near their time: with the steps a simulated 2-way
	 * L2 of 3 points at 16 ticks, followed by 6 of its fading out at 44
	 * and 63, read 44; its effective size the last point near that. */
	for (int k = 0; k < sw->nclusters; k++) {
		int a = sw->cl[k].first, b = sw->cl[k].last, near[AMP_SWEEP_MAX_POINTS], m = 0;

		for (int i = a; i <= b; i++)
			if (level_point[i] && measured_near(sw, i))
				near[m++] = i;
		sw->cl[k].ticks = sw->ticks[m ? near[(m - 1) / 2] : (a + b) / 2];
		sw->cl[k].fits = a;
		for (int i = a; i <= b; i++)
			if (sw->ticks[i] <= (1 + QT_DIAMETER) * sw->cl[k].ticks)
				sw->cl[k].fits = i;
	}
	sw->reached_memory = sw->nclusters >= 2 &&
			     sw->cl[sw->nclusters - 1].ticks >= MEMORY_RATIO * sw->ticks[0];
}

/* Main memory's plateau is clear: the last points agree within 10% and
 * are far slower than the first. */
static int plateau_reached(const struct amp_sweep *sw)
{
	int k = SWEEP_POINTS_PER_OCTAVE + 1;
	double lo = 1e300, hi = 0;

	if (sw->n < k + 1)
		return 0;
	for (int i = sw->n - k; i < sw->n; i++) {
		lo = fmin(lo, sw->raw[i]);
		hi = fmax(hi, sw->raw[i]);
	}
	return hi <= 1.1 * lo && lo >= MEMORY_RATIO * sw->raw[0];
}

/* A sweep point once the machine is quiet (real machine): a busy spell
 * (on this project's guests a host thread beside the vCPU slows it by
 * half for seconds) lifts whole stretches of the curve and moves the
 * levels' effective sizes (on a Zen 4 guest an L1 hit read 3.3 ticks,
 * not 2.8, and L1d's effective size 20 KiB of 32).  The reference is 16 loads of one page, timed before
 * each point; amp waits at most SWEEP_QUIET_WAIT_NS for the sweep. */
#define SWEEP_QUIET_WAIT_NS 4000000000ULL

static int quiet_sweep_point(struct amp_ctx *c, struct amp_quiet *q, uint64_t size, unsigned idx,
			     double *ticks, int *busy, char *err, size_t len)
{
	if (c->host->sim)
		return sweep_point(c, size, idx, ticks, err, len);
	for (;;) {
		double r;

		if (quiet_reference(c, AMP_OP_LOAD, &r, err, len) < 0 ||
		    sweep_point(c, size, idx, ticks, err, len) < 0)
			return -1;
		switch (amp_quiet_look(q, r)) {
		case AMP_QUIET_BUSY:
			(*busy)++;
			return 0;
		case AMP_QUIET_YES:
			return 0;
		case AMP_QUIET_WAIT:
			break;
		}
	}
}

int amp_sweep_run(struct amp_ctx *c, uint64_t max_size, struct amp_sweep *sw, char *err, size_t len)
{
	struct amp_quiet q = { .wait_left = SWEEP_QUIET_WAIT_NS };

	memset(sw, 0, sizeof *sw);
	snprintf(sw->method, sizeof sw->method,
		 "random cyclic pointer chase, one load per %d B, huge pages where granted, %d sizes per octave, minimum of %u runs%s",
		 SWEEP_STRIDE, SWEEP_POINTS_PER_OCTAVE, c->reps,
		 c->host->sim ? " (simulated cycles)" : " of at least 1 ms");
	for (int k = 0; sw->n < AMP_SWEEP_MAX_POINTS; k++) {
		double x = 4096.0 * pow(2.0, (double)k / SWEEP_POINTS_PER_OCTAVE);
		uint64_t size = (uint64_t)x / 4096 * 4096;

		if (size > max_size)
			break;
		if (sw->n && size == sw->size[sw->n - 1])
			continue;
		if (quiet_sweep_point(c, &q, size, (unsigned)k, &sw->raw[sw->n], &sw->busy, err, len) < 0)
			return -1;
		sw->size[sw->n++] = size;
		if (amp_tracing()) {
			struct amp_trace_ev e = { .kind = AMP_TR_SWEEP, .region = size, .stride = max_size,
						  .excess = sw->raw[sw->n - 1], .method = "timing" };

			amp_trace(&e);
		}
		if (plateau_reached(sw))
			break;
	}
	amp_sweep_analyse(sw);
	return 0;
}

/* ---- the core clock ---- */

/* A dependent chain of register-to-register adds.  Not "add $1": Intel's
 * Golden Cove cores (family 6 model 207 here) fold adds of an immediate
 * at rename, and such a chain ran at 5 adds a cycle (amp read a 13.9 GHz
 * core).  The step comes from a volatile, so no compiler or renamer knows
 * its value. */
static uint64_t add_chain_ticks(unsigned rounds)
{
	static volatile uint64_t one = 1;
	uint64_t x = 0, step = one, t0 = amp_ticks();

	for (unsigned r = 0; r < rounds; r++) {
#if defined(__x86_64__)
		__asm__ __volatile__(
			"add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
			"add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
			"add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
			"add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
			: "+r"(x) : "r"(step));
#elif defined(__aarch64__)
		__asm__ __volatile__(
			"add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
			"add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
			"add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
			"add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
			: "+r"(x) : "r"(step));
#else
		(void)x;
		(void)step;
		return 0;
#endif
	}
	return amp_ticks() - t0;
}

double amp_core_cycles_per_tick(void)
{
	const unsigned rounds = 1u << 16; /* 1 Mi adds: about 0.3 ms */
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 9; i++) {
		uint64_t t = add_chain_ticks(rounds);

		if (t && t < best)
			best = t;
	}
	if (best == UINT64_MAX || best == 0)
		return 0;
	return (double)rounds * 16.0 / (double)best;
}
