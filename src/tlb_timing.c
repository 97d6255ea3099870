/* tlb_timing.c - data-TLB page size, levels and entries by timing.
 *
 * Page size (BlackjackBench 3.2): a fixed number of loads (more pages
 * than any TLB holds), one per stride, strides 256 B to 128 KiB, on
 * 4 KiB system pages.  The loads go chunk by chunk (64 KiB chunks in
 * random order, the loads of a chunk in random order), so below the page
 * size several loads share each translation.  Time per load climbs
 * until the stride reaches the page and pauses there: the page is the
 * first big rise the next stride does not carry on (the knee).
 *
 * Entries: one load per page over N pages in random cyclic order, N
 * from 4 to 16384 (four points per octave), each page's load on another
 * line so the lines spread over the cache sets.  Past some N the lines
 * themselves stop fitting a cache, a step that is no TLB's; so the same
 * number of lines is also timed packed into few pages, visited page by
 * page (the control), and the analysis works on the difference: the
 * TLBs' part of the time.  That curve is made monotone and clustered
 * (QT clustering, BlackjackBench 4.2.3: diameter 25% of the cluster's
 * mean); clusters the control steps with are one level in other cache
 * conditions, clusters over a short range of N are steps or climbs, the
 * rest are levels; each level's end is refined by bisection between the
 * last N that stays at its time and the first that does not.
 *
 * Past the first level, random draws (see draws() below) give the
 * instruction side's second level and check the data side's.
 *
 * On real hardware each sweep runs twice (each point keeps its fastest
 * time) and every timing waits for quiet (wait_quiet()); timings still
 * taken busy lower the results' confidence.  Jumps (the ITLB side) walk
 * one page more than N: the chain's loop tail.
 *
 * Limits: a TLB level that ends where a data cache does, with a step
 * at most INTERACT times the translation cost paid before it, is taken
 * for the cache.  With scattered page frames a physically indexed cache
 * sees the one-line-per-page loads conflict unlike the packed control
 * near its capacity; such residues fall between levels or past the
 * last, but a low-associativity cache there can blur a level's end. */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plan.h"
#include "sim.h"
#include "timer.h"
#include "timing.h"
#include "tlb_timing.h"
#include "jumpchain.h"
#include "measure.h"
#include "util.h"

#define KIB 1024u
#define SLOT 128u                 /* load granule: a line, or a pair of 64 B lines */
#define PS_LOADS 8192             /* loads per page-size point: > any TLB's reach */
/* Jumps per page-size point: past the first-level ITLBs' reach by far,
 * while a branch target buffer still holds most of them.  With 8192
 * jumps an AMD Zen 4 guest paid 25-125 ticks a jump for fetches the
 * branch predictors could not steer, the page's rise lost among them
 * (a knee at 1 KiB or 32 KiB in 3 of 14 runs); with 4096, 10-90 ticks
 * and the knee at 4 KiB in 32 of 33. */
#define PS_JUMPS 4096
#define DRAW_SLOT 64u             /* random jumps: each page's line, any of its 64 B lines */
#define PS_SLOT 64u               /* loads are >= 256 B apart: no two share a line */
#define PS_MIN_STRIDE 256u
#define PS_MAX_STRIDE (128u * KIB)
#define PS_CHUNK (64u * KIB)      /* a chunk's pages fit any level-1 TLB */
#define PS_MIN_STEP 0.005         /* the page step, relative to the level after it */
#define PS_KNEE 0.4               /* a knee's rise, relative to the biggest rise */
#define PS_FLAT 0.5               /* the rise after a knee, relative to the knee's */
#define PS_MIN_PAGE 1024u         /* no smaller page anywhere (nor in the sim) */
#define EN_MIN 4
#define EN_MAX 16384
#define MIN_LOADS 16384           /* per measured run: averages out noise */
#define WARM_WALKS 2              /* random replacement needs more than one */
#define T_MIN_NS 400000.0         /* per measured run on the real machine */
#define QT_DIAMETER 0.25
#define PLATEAU 3                 /* a level spans at least this factor in pages */
#define CTL_SHARE 0.25            /* a rise the control shares this much of is the caches' */
#define EDGE 2                    /* points either side of a boundary that judge it */
#define INTERACT 2.0              /* a cache can scale a translation's cost this much */
#define THR_STEP 0.003            /* bisection: share of the step that counts as left */
#define THR_SIGMA 4.0             /* bisection: noise multiples that count as left */
/* ... on the times themselves (controls_flat): a share that a random
 * TLB's first page over its entries passes (at 0.05 the simulated
 * random DTLBs of 64 and 96 entries read 65 and 98), and over the
 * scatter of the PVM Zen 5 guest's jumps under the ITLB's 64 (at 4
 * times that scatter alone, 58 or 59 in 3 runs of 5). */
#define THR_RAW_STEP 0.02
#define SWEEPS 2                  /* real machine: entries sweeps, each point's fastest kept */
#define RETRIES 2                 /* times a bisection step over its level is retaken */
#define REF_LINES 16u             /* the quiet gate's reference: lines of one page */
#define REF_REPS 2                /* its runs (of T_MIN_NS each) */
#define QUIET_WAIT_NS 4000000000ULL /* per sweep, at most this long waiting for quiet */
#define BUSY_SHARE 0.1            /* more points than this share never quiet: inconclusive */
#define STEP_POINTS 3             /* amp_tlb_step_clear: the fewest points of a level */
#define STEP_NOISE 3.0            /* ... and its step in multiples of the points' spread */
/* Real machine, loads: plans whose region fits run on one mapping, its
 * pages faulted in once (each plan mapping its own made page faults
 * and zeroing half the DTLB sweep's time: 476613 of them in a
 * --level=DTLB run on the Zen 5 guest).  The page sweep's largest
 * region (PS_LOADS loads PS_MAX_STRIDE apart); what its strides and the
 * entries sweep touch in it, at most. */
#define ARENA_REGION ((uint64_t)PS_LOADS * PS_MAX_STRIDE)
#define ARENA_TOUCHED (192ull << 20)

struct tt {
	const struct amp_host *host;
	unsigned reps;
	uint64_t seed;
	double est;                 /* ticks per load last seen: sizes the next run */
	double ref_est;             /* the same for the quiet gate's reference */
	char *err;
	size_t len;
	enum amp_op op;             /* loads (DTLB side) or jumps (ITLB side) */
	uint64_t alias;             /* real machine, random draws: pages alias one (its size), or 0 */
	struct amp_quiet quiet;     /* the gate (real machine; see wait_quiet) */
	int busy, timings;          /* timings taken unquiet once the wait was spent, of all */
	int busy_points, points;    /* entries sweep points and bisection steps with no quiet timing, of all */
	struct amp_arena arena;     /* real machine, loads: the plans' pages (see ARENA_REGION) */
};

/* Consecutive slots take consecutive lines, and every further digit
 * shifts them again, so the slots of any stride spread evenly over the
 * sets of every cache level, virtually or (with contiguous frames)
 * physically indexed. */
uint64_t amp_tlb_draw_line(uint64_t j, uint64_t lines)
{
	uint64_t sum = 0;

	if (lines < 2)
		return 0;
	for (; j; j /= lines)
		sum += j % lines;
	return sum % lines;
}

/* Time per load of a cyclic chain through off[0..n-1], after warming
 * walks; walks repeated until a run lasts T_MIN_NS (sized from the last
 * timed point's speed, so the runner's doubling rarely steps in),
 * minimum over reps runs. */
static int run_chain(struct tt *t, enum amp_op op, const char *name, uint64_t region, const uint64_t *off,
		     size_t n, unsigned reps, double est, double *tpl)
{
	const struct amp_timer_cal *cal = t->host->sim ? NULL : amp_timer();
	double tmin = cal ? T_MIN_NS * cal->ticks_per_ns : 0;
	uint64_t times = n >= MIN_LOADS ? 1 : (MIN_LOADS + n - 1) / n;
	struct amp_plan plan;
	struct amp_run_result res;
	int seq, rc;

	if (cal && est > 0 && tmin / (est * (double)n) > (double)times)
		times = (uint64_t)ceil(tmin / (est * (double)n));
	if (times > 1u << 24)
		times = 1u << 24;
	amp_plan_init(&plan, name, region);
	plan.huge = 0; /* huge pages would hide the page and the TLBs */
	if (t->arena.base && region <= t->arena.size)
		plan.arena = &t->arena;
	plan.min_ticks = tmin;
	plan.alias = op == AMP_OP_IJUMP || op == AMP_OP_DRAW ? t->alias : 0;
	seq = amp_plan_add_seq(&plan, off, n);
	if (seq < 0 || amp_plan_add_pass(&plan, seq, op, WARM_WALKS, 0) < 0 ||
	    amp_plan_add_pass(&plan, seq, op, (unsigned)times, 1) < 0) {
		amp_plan_free(&plan);
		snprintf(t->err, t->len, "tlb: out of memory");
		return -1;
	}
	rc = amp_run(&plan, t->host, NULL, reps, &res, t->err, t->len);
	amp_plan_free(&plan);
	if (rc < 0)
		return -1;
	*tpl = (double)res.ticks_min / (double)res.accesses;
	return 0;
}

/* The quiet gate (amp_quiet_look): a busy spell makes whole sweeps lose
 * their shape.  The reference is REF_LINES loads of one page, also for
 * the jumps of the ITLB sweep: 16 jumps of one page ran over 10% above
 * their fastest in 426 of 472 timings of an Intel family 6 model 207
 * guest (and 300 of 502 on an AMD Zen 4 guest), while 16 loads stayed
 * within it there through the DTLB sweep.  How fast a few jumps run
 * depends on the branch predictors' and op cache's state, which every
 * sweep point changes; a busy spell slows loads as much.  amp waits at
 * most QUIET_WAIT_NS per measurement. */
static int wait_quiet(struct tt *t)
{
	uint64_t off[REF_LINES];
	unsigned reps = REF_REPS < t->reps ? REF_REPS : t->reps;
	double r;

	for (unsigned i = 0; i < REF_LINES; i++)
		off[i] = ((i * 7) % REF_LINES) * SLOT;
	t->timings++;
	for (;;) {
		if (run_chain(t, AMP_OP_LOAD, "tlb-reference", 4096, off, REF_LINES, reps, t->ref_est, &r) < 0)
			return -1;
		t->ref_est = r;
		switch (amp_quiet_look(&t->quiet, r)) {
		case AMP_QUIET_BUSY:
			t->busy++;
			return 0;
		case AMP_QUIET_YES:
			return 0;
		case AMP_QUIET_WAIT:
			break;
		}
	}
}

/* A sweep's timing: run_chain once the machine is quiet (real machine),
 * its speed kept to size the next one. */
static int time_chain(struct tt *t, const char *name, uint64_t region, const uint64_t *off,
		      size_t n, double *tpl)
{
	if (!t->host->sim && wait_quiet(t) < 0)
		return -1;
	if (run_chain(t, t->op, name, region, off, n, t->reps, t->est, tpl) < 0)
		return -1;
	t->est = *tpl;
	return 0;
}

/* ---- analysis helpers ---- */

/* Least-squares non-decreasing fit (pool adjacent violators): timing
 * noise in either direction cannot make a level out of a blip. */
static void monotone(const double *y, double *m, int n)
{
	double sum[AMP_TLB_MAX_POINTS];
	int cnt[AMP_TLB_MAX_POINTS], nb = 0, k = 0;

	for (int i = 0; i < n; i++) {
		sum[nb] = y[i];
		cnt[nb++] = 1;
		while (nb > 1 && sum[nb - 2] / cnt[nb - 2] > sum[nb - 1] / cnt[nb - 1]) {
			sum[nb - 2] += sum[nb - 1];
			cnt[nb - 2] += cnt[nb - 1];
			nb--;
		}
	}
	for (int b = 0; b < nb; b++)
		for (int j = 0; j < cnt[b]; j++)
			m[k++] = sum[b] / cnt[b];
}

/* Median of v[0..n-1], v left as it is. */
static double median(const double *v, int n)
{
	double s[AMP_TLB_MAX_POINTS];

	memcpy(s, v, (size_t)n * sizeof *s);
	return amp_median(s, (size_t)n);
}

/* Robust spread of v around its median (scaled MAD). */
static double spread(const double *v, int n)
{
	double d[AMP_TLB_MAX_POINTS];

	return amp_mad_sigma(v, (size_t)n, median(v, n), d);
}

/* QT clustering (BlackjackBench Fig. 11) of v[0..n-1]: a candidate
 * cluster grows from each point by the point that keeps its diameter
 * smallest, while the diameter stays within QT_DIAMETER of its mean; the
 * largest candidate is taken and the rest clustered again.  label[i]
 * gets the cluster number; returns the number of clusters. */
static int qt_cluster(const double *v, int n, int *label)
{
	int nc = 0, left = n;

	for (int i = 0; i < n; i++)
		label[i] = -1;
	while (left > 0) {
		char best[AMP_TLB_MAX_POINTS] = { 0 };
		int bestn = 0;

		for (int i = 0; i < n; i++) {
			char in[AMP_TLB_MAX_POINTS] = { 0 };
			double lo = v[i], hi = v[i], sum = v[i];
			int cnt = 1;

			if (label[i] >= 0)
				continue;
			in[i] = 1;
			for (;;) {
				int j = -1;
				double dj = 0;

				for (int k = 0; k < n; k++) {
					double d;

					if (label[k] >= 0 || in[k])
						continue;
					d = fmax(hi, v[k]) - fmin(lo, v[k]);
					if (j < 0 || d < dj) {
						j = k;
						dj = d;
					}
				}
				if (j < 0 || dj > QT_DIAMETER * sum / cnt)
					break;
				in[j] = 1;
				lo = fmin(lo, v[j]);
				hi = fmax(hi, v[j]);
				sum += v[j];
				cnt++;
			}
			if (cnt > bestn) {
				bestn = cnt;
				memcpy(best, in, sizeof best);
			}
		}
		for (int i = 0; i < n; i++)
			if (best[i])
				label[i] = nc;
		nc++;
		left -= bestn;
	}
	return nc;
}

/* Sweeps of each curve: a busy host (a sibling hyperthread sharing the
 * TLBs and caches, or slowing the core) only adds time, for a second or
 * so, so each point keeps its fastest of SWEEPS sweeps, a sweep apart.
 * The simulated machine has no busy host: one sweep. */
static int sweeps(const struct tt *t)
{
	return t->host->sim ? 1 : SWEEPS;
}

/* ---- page size ---- */

/* Time per access at one stride: nps accesses, 64 KiB chunks in random
 * order, the accesses of a chunk in random order, each on another line
 * of its stride; `salt` picks another layout of the same stride. */
static int time_stride(struct tt *t, uint64_t s, uint64_t salt, uint64_t *off, size_t nps, double *v)
{
	uint64_t lines = s / PS_SLOT, per = s >= PS_CHUNK ? 1 : PS_CHUNK / s;
	struct amp_rng rng;

	amp_rng_seed(&rng, t->seed ^ (s * 0x9e3779b97f4a7c15ull) ^ salt);
	if (amp_block_order(off, nps, (size_t)per, &rng) < 0) {
		snprintf(t->err, t->len, "tlb: out of memory");
		return -1;
	}
	for (size_t k = 0; k < nps; k++)
		off[k] = off[k] * s + amp_tlb_draw_line(off[k], lines) * PS_SLOT;
	return time_chain(t, "tlb-page", nps * s, off, nps, v);
}

/* A knee at j of the monotone curve m: a big rise (PS_KNEE of the
 * biggest) that the next stride does not carry on (PS_FLAT of it). */
static int knee_at(const double *m, const uint64_t *strides, int j, double biggest)
{
	double d = m[j] - m[j - 1];

	return strides[j] >= PS_MIN_PAGE && d > 0 && d >= PS_KNEE * biggest && m[j + 1] - m[j] <= PS_FLAT * d;
}

double amp_tlb_biggest_rise(const double *m, int n)
{
	double biggest = 0;

	for (int j = 1; j + 1 < n; j++)
		biggest = fmax(biggest, m[j] - m[j - 1]);
	return biggest;
}

int amp_tlb_next_knee(const double *m, const uint64_t *strides, int n, int from, double biggest)
{
	for (int j = from > 1 ? from : 1; j + 1 < n; j++)
		if (knee_at(m, strides, j, biggest))
			return j;
	return -1;
}

/* Each of strides[0..n-1] timed sweeps(t) times, pass after pass over
 * them all (each pass at another moment), the fastest kept; pass p
 * lays them out with salt + p * step. */
static int sweep_strides(struct tt *t, const uint64_t *strides, int n, uint64_t salt, uint64_t step,
			 uint64_t *off, size_t nps, double *ticks)
{
	for (int pass = 0; pass < sweeps(t); pass++)
		for (int j = 0; j < n; j++) {
			double v;

			if (time_stride(t, strides[j], salt + (uint64_t)pass * step, off, nps, &v) < 0)
				return -1;
			ticks[j] = pass ? fmin(ticks[j], v) : v;
		}
	return 0;
}

/* The knee at j timed again at strides j-1..j+1 in other layouts
 * (`attempt` picks them): one rise of the sweep that noise or the host
 * made (a 1 KiB knee in 1 of 3 ITLB runs on the Zen 4 guest) does not
 * come back. */
static int knee_holds(struct tt *t, struct amp_tlb_timing *o, int j, double biggest, int attempt,
		      uint64_t *off, size_t nps, double *again)
{
	double m[3];

	if (sweep_strides(t, o->strides + j - 1, 3, 0x5bd1e995ull * (uint64_t)(1 + 2 * attempt), 0x5bd1e995ull,
			  off, nps, again) < 0)
		return -1;
	monotone(again, m, 3);
	return knee_at(m, o->strides + j - 1, 1, biggest);
}

static int page_size(struct tt *t, struct amp_tlb_timing *o)
{
	size_t nps = t->op == AMP_OP_IFETCH ? PS_JUMPS : PS_LOADS;
	uint64_t *off = malloc(nps * sizeof *off);
	double m[AMP_TLB_MAX_STRIDES], m_best[AMP_TLB_MAX_STRIDES], again[3] = { 0, 0, 0 };
	double ticks_best[AMP_TLB_MAX_STRIDES], again_best[3] = { 0, 0, 0 };
	int best = -1, first = -1, first_seen = -1;
	uint64_t system_page = t->host->sim ? 0 : (uint64_t)sysconf(_SC_PAGESIZE);

	if (!off) {
		snprintf(t->err, t->len, "tlb: out of memory");
		return -1;
	}
	o->nstrides = 0;
	o->page_doubt[0] = '\0';
	for (uint64_t s = PS_MIN_STRIDE; s <= PS_MAX_STRIDE; s *= 2)
		o->strides[o->nstrides++] = s;
	/* On a real machine a second round, a new sweep in other layouts,
	 * where no knee of the first held (a busy spell in mid-sweep), or
	 * where the knee that held lies past the system's page: noise can
	 * hide the page's knee from a whole sweep (the ITLB of the Zen 3
	 * guest read 32 KiB in 1 of 12 runs, with no knee seen before it).
	 * The second round looks only below the knee that held. */
	for (int round = 0; round < sweeps(t) && (best < 0 || o->strides[best] > system_page); round++) {
		double biggest;
		int below = best;

		if (sweep_strides(t, o->strides, o->nstrides, 0x2545f4914f6cdd1dull * (uint64_t)round, 0, off, nps,
				  o->stride_ticks) < 0) {
			free(off);
			return -1;
		}
		/* The knee: the first big rise that the next stride does not
		 * carry on, and that one of two more timings of it shows
		 * again.  Below the page the share of loads that miss doubles
		 * with the stride, so the rise into the page is the biggest of
		 * its climb, and the curve is flat after it.  Further on, page
		 * walks find their page-table lines (and, in a virtual
		 * machine, their nested translations) shared by fewer loads
		 * and climb again, up to steps as big as the page's; so the
		 * first knee is the page, not the biggest step (Blackjack 4.2
		 * takes the biggest scaled step).  The last stride has no
		 * successor to show a knee; the first ones are below any page
		 * (noise there makes no knee). */
		monotone(o->stride_ticks, m, o->nstrides);
		biggest = amp_tlb_biggest_rise(m, o->nstrides);
		first = -1;
		for (int j = amp_tlb_next_knee(m, o->strides, o->nstrides, 1, biggest);
		     j >= 0 && best == below && (below < 0 || j < below);
		     j = amp_tlb_next_knee(m, o->strides, o->nstrides, j + 1, biggest)) {
			int held = 0;

			if (first < 0)
				first = j;
			if (first_seen < 0 || j < first_seen)
				first_seen = j;
			/* Two tries: a true knee that one busy timing hides
			 * stays the page, not the next climb's knee beyond it. */
			for (int attempt = 0; attempt < 2 && !held; attempt++)
				held = knee_holds(t, o, j, biggest, attempt + 2 * round, off, nps, again);
			if (held < 0) {
				free(off);
				return -1;
			}
			if (held) { /* this round's sweep and retimings go with it */
				best = j;
				memcpy(m_best, m, sizeof m);
				memcpy(ticks_best, o->stride_ticks, o->nstrides * sizeof *ticks_best);
				memcpy(again_best, again, sizeof again);
			}
		}
	}
	free(off);
	if (best >= 0) { /* the round whose knee held */
		memcpy(m, m_best, sizeof m);
		memcpy(o->stride_ticks, ticks_best, o->nstrides * sizeof *ticks_best);
		memcpy(again, again_best, sizeof again);
	}
	if (best < 0 || m[best] - m[best - 1] < PS_MIN_STEP * m[best]) {
		o->page = 0;
		if (first >= 0)
			snprintf(o->page_reason, sizeof o->page_reason,
				 "no knee in the time per load against the stride held when timed again "
				 "(the first at %llu B: %.1f, %.1f, %.1f ticks, then %.1f, %.1f, %.1f)",
				 (unsigned long long)o->strides[first], m[first - 1], m[first], m[first + 1],
				 again[0], again[1], again[2]);
		else
			snprintf(o->page_reason, sizeof o->page_reason,
				 "no knee in the time per load against the stride (%.1f to %.1f ticks, %llu B to %llu B)",
				 o->stride_ticks[0], o->stride_ticks[o->nstrides - 1],
				 (unsigned long long)o->strides[0],
				 (unsigned long long)o->strides[o->nstrides - 1]);
		return 0;
	}
	o->page = o->strides[best];
	/* A knee at a stride past the first knee seen: that one may have
	 * been the page, noise hiding it when timed again (the ITLB of an
	 * AMD Zen 3 guest read 32 KiB, where page-table lines stop serving
	 * 8 pages each, in 4 of 8 runs of a noisy hour). */
	if (first_seen < best)
		snprintf(o->page_doubt, sizeof o->page_doubt,
			 "the first knee, at a stride of %llu B, did not hold when timed again; the one at %llu B did",
			 (unsigned long long)o->strides[first_seen], (unsigned long long)o->page);
	snprintf(o->page_reason, sizeof o->page_reason,
		 "knee at a stride of %llu B: time per load %.1f ticks at %llu B, %.1f at %llu B, "
		 "%.1f at %llu B (%.1f at %llu B); timed again %.1f, %.1f, %.1f",
		 (unsigned long long)o->page, m[best - 1], (unsigned long long)o->strides[best - 1],
		 m[best], (unsigned long long)o->page, m[best + 1],
		 (unsigned long long)o->strides[best + 1], m[o->nstrides - 1],
		 (unsigned long long)o->strides[o->nstrides - 1], again[0], again[1], again[2]);
	return 0;
}

/* ---- entries ---- */

/* Time per load over n pages `stride` pages apart, one line each, in
 * random order. */
/* time_pages' and time_packed's granule for op: a line pair, a line
 * for random jumps (their code is one page's lines on the real machine,
 * and no simulated L1i has lines of 128 B). */
static uint64_t slot_for(enum amp_op op)
{
	return op == AMP_OP_IJUMP ? DRAW_SLOT : SLOT;
}

/* The random draws' op for the sweep's. */
static enum amp_op draw_op(const struct tt *t)
{
	return t->op == AMP_OP_IFETCH ? AMP_OP_IJUMP : AMP_OP_DRAW;
}

static int time_pages(struct tt *t, uint64_t page, uint64_t stride, uint64_t n, double *tpl)
{
	uint64_t slot = slot_for(t->op), lines = page / slot, *off = malloc(n * sizeof *off);
	struct amp_rng rng;
	int rc;

	if (!off) {
		snprintf(t->err, t->len, "tlb: out of memory");
		return -1;
	}
	/* The lines fill the sets as evenly as the packed control's lines
	 * (alike for a virtually indexed L1, and with contiguous frames for
	 * lower levels of up to lines^2 sets). */
	for (uint64_t i = 0; i < n; i++)
		off[i] = i * stride * page + amp_tlb_draw_line(i, lines) * slot;
	amp_rng_seed(&rng, t->seed ^ (n * 0xd1b54a32d192ed03ull) ^ (stride - 1));
	amp_shuffle(off, n, &rng);
	rc = time_chain(t, "tlb-pages", (n - 1) * stride * page + page, off, n, tpl);
	free(off);
	return rc;
}

/* The control: the same number of lines packed page by page (lines of
 * a page in random order, pages in random order), so one translation
 * serves a page of loads and the caches' part of time_pages remains.
 * (The same loads on huge pages would be a closer twin, but huge pages
 * are a hint the kernel may not take.) */
static int time_packed(struct tt *t, uint64_t page, uint64_t n, double *tpl)
{
	uint64_t slot = slot_for(t->op), lines = page / slot, npg = (n + lines - 1) / lines;
	uint64_t *off = malloc(n * sizeof *off);
	struct amp_rng rng;
	int rc;

	amp_rng_seed(&rng, t->seed ^ (n * 0x94d049bb133111ebull));
	if (!off || amp_block_order(off, (size_t)n, (size_t)lines, &rng) < 0) {
		free(off);
		snprintf(t->err, t->len, "tlb: out of memory");
		return -1;
	}
	for (uint64_t k = 0; k < n; k++)
		off[k] *= slot;
	rc = time_chain(t, "tlb-packed", npg * page, off, n, tpl);
	free(off);
	return rc;
}

/* The TLBs' share of the time per load at n pages `stride` pages apart,
 * on top of an access whose line and translation are at hand (base). */
static int tlb_part(struct tt *t, uint64_t page, uint64_t stride, uint64_t n, double base, double *y)
{
	double a, c;

	if (time_pages(t, page, stride, n, &a) < 0 || time_packed(t, page, n, &c) < 0)
		return -1;
	*y = a - c + base;
	return 0;
}

/* tlb_part, or (raw) the time per load itself, without the control. */
static int tlb_look(struct tt *t, uint64_t page, uint64_t stride, uint64_t n, double base, int raw, double *y)
{
	return raw ? time_pages(t, page, stride, n, y) : tlb_part(t, page, stride, n, base, y);
}

/* tlb_look, where a time over `over` is believed only on a second look
 * (noise only adds time): up to RETRIES more, the fastest kept. */
static int tlb_look_over(struct tt *t, uint64_t page, uint64_t stride, uint64_t n, double base, int raw,
			 double over, double *y)
{
	int busy = t->busy, quiet;

	if (tlb_look(t, page, stride, n, base, raw, y) < 0)
		return -1;
	quiet = t->busy == busy;
	for (int r = 0; r < RETRIES && *y > over; r++) {
		double again;

		busy = t->busy;
		if (tlb_look(t, page, stride, n, base, raw, &again) < 0)
			return -1;
		*y = fmin(*y, again);
		quiet |= t->busy == busy;
	}
	t->points++;
	t->busy_points += !quiet;
	return 0;
}

/* Points first..last of the sweep. */
struct run {
	int first, last;
};

/* A TLB level: its points, the run of its fastest loads (head: least
 * data-cache trouble) and of its slowest (tail: next to its end). */
struct level {
	struct run all, head, tail;
};

static double run_median(const double *y, struct run r)
{
	return median(y + r.first, r.last - r.first + 1);
}

static void sweep_points(struct amp_tlb_timing *o)
{
	o->npoints = 0;
	for (uint64_t oct = EN_MIN; oct <= EN_MAX; oct *= 2)
		for (uint64_t q = 4; q < 8 && o->npoints < AMP_TLB_MAX_POINTS; q++) {
			uint64_t n = oct * q / 4;

			if (n > EN_MAX)
				break;
			o->pages[o->npoints++] = n;
		}
}

/* Groups the sweep into TLB levels; returns how many groups, the last
 * one possibly what lies past every TLB. */
static int find_levels(const struct amp_tlb_timing *o, const double *y, struct level *lv)
{
	double m[AMP_TLB_MAX_POINTS];
	int label[AMP_TLB_MAX_POINTS], nr = 0, nlv = 0;
	struct level r[AMP_TLB_MAX_POINTS];

	monotone(y, m, o->npoints);
	qt_cluster(m, o->npoints, label);
	/* Clusters of a monotone curve are runs of points. */
	for (int i = 0; i < o->npoints; nr++) {
		r[nr].all.first = i;
		while (i + 1 < o->npoints && label[i + 1] == label[r[nr].all.first])
			i++;
		r[nr].all.last = i++;
		r[nr].head = r[nr].tail = r[nr].all;
	}
	/* Where the control rises with the TLBs' part, the rise is the
	 * data leaving a cache, dearer with a translation to wait for:
	 * the same TLB level goes on (its head keeps the cached loads'
	 * time, its tail the uncached).  Only a translation already paid
	 * for can grow so, and at most by INTERACT times itself: from the
	 * first level, or by more, the rise is a TLB step that happens to
	 * fall on a cache's. */
	for (int k = 0; k + 1 < nr;) {
		struct run below = { r[k].all.last - EDGE + 1, r[k].all.last };
		struct run above = { r[k + 1].all.first, r[k + 1].all.first + EDGE - 1 };
		double dy, dc;

		/* Compared next to the boundary: further off, the control
		 * may step for other caches. */
		below.first = below.first < r[k].all.first ? r[k].all.first : below.first;
		above.last = above.last > r[k + 1].all.last ? r[k + 1].all.last : above.last;
		dy = run_median(y, above) - run_median(y, below);
		dc = run_median(o->ctl_ticks, above) - run_median(o->ctl_ticks, below);

		if (k == 0 || (dy > 0 && dc < CTL_SHARE * dy) ||
		    dy > INTERACT * (run_median(y, below) - run_median(y, r[0].head))) {
			k++;
			continue;
		}
		r[k].all.last = r[k + 1].all.last;
		r[k].tail = r[k + 1].tail;
		memmove(&r[k + 1], &r[k + 2], (size_t)(nr - k - 2) * sizeof r[0]);
		nr--;
		k = k > 0 ? k - 1 : 0;
	}
	/* A level is a plateau: a group over a wide range of N.  Short
	 * groups lie on a step (a set-associative TLB filling its sets one
	 * by one) or on a climb (page-walk data leaving the caches). */
	for (int k = 0; k < nr; k++)
		if (k == 0 || o->pages[r[k].all.last] >= PLATEAU * o->pages[r[k].all.first])
			lv[nlv++] = r[k];
	return nlv;
}

double amp_tlb_step_clear(const double *lv, int n, const double *next, int nnext, double step, uint64_t from,
			  uint64_t to, char *why, size_t len)
{
	double noise = n > 1 ? spread(lv, n) : 0;

	why[0] = '\0';
	if (nnext > 1)
		noise = fmax(noise, spread(next, nnext));
	if (n < STEP_POINTS) {
		snprintf(why, len, "the level rests on %d point%s of the sweep (%llu to %llu pages), too few to tell its step (%.2f ticks) from noise",
			 n, n == 1 ? "" : "s", (unsigned long long)from, (unsigned long long)to, step);
		return 0;
	}
	if (step < STEP_NOISE * noise) {
		snprintf(why, len, "its step (%.2f ticks) is within the noise of the sweep's points either side (spread %.2f ticks; %.0f times that is wanted)",
			 step, noise, STEP_NOISE);
		return step > 0 ? step / (STEP_NOISE * noise) : 0;
	}
	return 1;
}

/* Whether the control stays flat past a level whose last octave is
 * `end` and last point `last`: its median over the EDGE points after
 * `last` is within THR_SIGMA of its spread over `end` above its median
 * there.  Then the caches add nothing at the level's end, and the end
 * is better found on the times per load themselves: below a few hundred
 * lines the control's layout scatters more than the TLB's own step at
 * its start (the PVM Zen 5 guest's jump chains: 0.345 to 0.350 ticks a
 * jump from 32 to 56 pages, their control 0.320 to 0.354; ITLB read 64
 * to 82 entries in 10 default runs, 4 of them over 68). */
static int controls_flat(const struct amp_tlb_timing *o, struct run end, int last)
{
	struct run past = { last + 1, last + EDGE };
	const double *c = o->ctl_ticks;

	if (past.first >= o->npoints)
		return 0;
	if (past.last >= o->npoints)
		past.last = o->npoints - 1;
	return run_median(c, past) <= run_median(c, end) + THR_SIGMA * spread(c + end.first, end.last - end.first + 1);
}

static int entries(struct tt *t, struct amp_tlb_timing *o)
{
	double y[AMP_TLB_MAX_POINTS] = { 0 }, base;
	struct level lv[AMP_TLB_MAX_POINTS];
	int nlv, ntlb, quiet[AMP_TLB_MAX_POINTS] = { 0 };

	sweep_points(o);
	for (int pass = 0; pass < sweeps(t); pass++)
		for (int i = 0; i < o->npoints; i++) {
			int busy = t->busy;
			double a, c;

			if (time_pages(t, o->page, 1, o->pages[i], &a) < 0 ||
			    time_packed(t, o->page, o->pages[i], &c) < 0)
				return -1;
			o->ticks[i] = pass ? fmin(o->ticks[i], a) : a;
			o->ctl_ticks[i] = pass ? fmin(o->ctl_ticks[i], c) : c;
			quiet[i] |= t->busy == busy;
		}
	/* Each point keeps its fastest of the passes: one quiet pass is
	 * enough (on the Intel guest DTLB read 96 entries, 6 ways, in a
	 * run with 151 of 650 timings busy). */
	for (int i = 0; i < o->npoints; i++)
		t->busy_points += !quiet[i];
	t->points += o->npoints;
	base = o->ctl_ticks[0];
	for (int i = 0; i < o->npoints; i++)
		y[i] = o->ticks[i] - o->ctl_ticks[i] + base;

	nlv = find_levels(o, y, lv);
	/* The last group is a TLB level only when a climb follows it;
	 * otherwise it is what lies past every TLB. */
	ntlb = nlv > 0 && lv[nlv - 1].all.last + 2 < o->npoints ? nlv : nlv - 1;
	o->nlevels = 0;
	if (ntlb < 1) {
		snprintf(o->reason, sizeof o->reason,
			 "no step in the TLBs' part of the time per load from %d to %d pages "
			 "(%.1f to %.1f ticks)", EN_MIN, EN_MAX, y[0], y[o->npoints - 1]);
		return 0;
	}
	for (int k = 0; k < ntlb && o->nlevels < AMP_TLB_MAX_LEVELS; k++) {
		struct run after = { lv[k].all.last + 1, o->npoints - 1 }, end = lv[k].tail;
		double tail, sigma, next, thr, vtail;
		const double *v;
		int last = lv[k].all.last, raw;
		uint64_t lo, hi;

		/* The level's end is judged against its last octave: a level
		 * may creep up over its range (a Zen 4 guest's jumps pay 0.07
		 * ticks more from 20 pages to the ITLB's 64). */
		while (end.first < end.last && 2 * o->pages[end.first] < o->pages[end.last])
			end.first++;
		/* Past the last level the page walks grow dearer as their
		 * own data leaves the caches, and a TLB with no strict LRU
		 * fades out over a range of N: its penalty is the typical
		 * walk over the rest of the sweep. */
		tail = run_median(y, end);
		next = k + 1 < ntlb ? run_median(y, lv[k + 1].head) : run_median(y, after);
		/* The first level's end is found on the times themselves where
		 * the control stays flat past it (controls_flat), else on the
		 * TLBs' part. */
		raw = k == 0 && controls_flat(o, end, lv[k].all.last);
		v = raw ? o->ticks : y;
		vtail = run_median(v, end);
		sigma = spread(v + end.first, end.last - end.first + 1);
		thr = fmax(THR_SIGMA * sigma, (raw ? THR_RAW_STEP : THR_STEP) * (next - tail));

		/* The last N whose loads all stay at this level: from the last
		 * sweep point still at the tail's time, by bisection. */
		while (last > end.first && v[last] > vtail + thr)
			last--;
		lo = o->pages[last];
		hi = o->pages[last + 1];
		while (hi - lo > 1) {
			uint64_t mid = lo + (hi - lo) / 2;
			double at;

			if (tlb_look_over(t, o->page, 1, mid, base, raw, vtail + thr, &at) < 0)
				return -1;
			if (at <= vtail + thr)
				lo = mid;
			else
				hi = mid;
		}
		/* A real jump chain's loop tail lies on one page more. */
		o->lv[o->nlevels].entries = lo + (t->op == AMP_OP_IFETCH && !t->host->sim);
		o->lv[o->nlevels].hit_ticks = run_median(y, lv[k].head);
		o->lv[o->nlevels].miss_penalty_ticks = next - tail;
		/* The step must stand out of the noise of the points either
		 * side: this level's, and the next level's head (past the
		 * last level the curve climbs, so its spread is no noise). */
		{
			struct run own = lv[k].all, head = k + 1 < ntlb ? lv[k + 1].head : (struct run){ 0, -1 };

			o->lv[o->nlevels].step_clarity =
				amp_tlb_step_clear(y + own.first, own.last - own.first + 1, y + head.first,
						   head.last - head.first + 1, next - tail, o->pages[own.first],
						   o->pages[own.last], o->lv[o->nlevels].step_reason,
						   sizeof o->lv[o->nlevels].step_reason);
		}
		o->nlevels++;
	}
	o->reason[0] = '\0';
	return 0;
}

/* ---- the first level's associativity (X-Ray 4.4.2 and 4.6) ----
 *
 * n pages `stride` pages apart, one line each: for a TLB of E entries in
 * sets of W, the fewest that miss it are W x max(1, sets / stride) + 1,
 * halving with each doubling of the stride until the stride reaches the
 * sets, then W + 1 (E + 1 at every stride when fully associative).  The
 * level below is looked up only on this level's misses, so its own sets
 * (crowded at some stride) only make those misses dearer.  The fewest
 * that miss are found by bisection at strides 2, 3, 4, 6, 8, 12, ...
 * pages (3 x 2^j: a set count of that form is reached too) until the
 * least so far holds at a stride and at its double: one set, the ways. */
/* A set that is not LRU spares some pages of a walk one page over its
 * ways, which then misses only part of the time: an Intel family 6
 * model 207 guest's DTLB (96 entries) read "8 pages 16 and 32 apart
 * miss it" in 2 of 3 runs, 6 ways in the third.  Counts below the first
 * that misses by half the penalty are taken while they miss this share
 * of it (both looks), at most SOME_STEPS of them. */
#define SOME_SHARE 0.15
#define SOME_STEPS 4

/* The fewest pages `stride` apart that miss level 0: in (1, E + 1]. */
static int fewest_missing(struct tt *t, const struct amp_tlb_timing *o, uint64_t stride, double base,
			  double thr, double some, uint64_t *fewest)
{
	/* A real jump chain's loop tail lies on one page more. */
	uint64_t tail = t->op == AMP_OP_IFETCH && !t->host->sim, lo = 1, hi = o->lv[0].entries + 1 - tail;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		double v;

		if (tlb_look_over(t, o->page, stride, mid, base, 0, thr, &v) < 0)
			return -1;
		if (v > thr)
			hi = mid;
		else
			lo = mid;
	}
	for (int k = 0; k < SOME_STEPS && hi > 2; k++) {
		double v;

		if (tlb_look_over(t, o->page, stride, hi - 1, base, 0, some, &v) < 0)
			return -1;
		if (v <= some)
			break;
		hi--;
	}
	*fewest = hi + tail;
	return 0;
}

/* Two counts of the fewest pages that miss agree: equal, or within a
 * sixteenth of the larger (a Zen 4 guest's 64-entry ITLB read 64 at one
 * stride and 65 at the others). */
static int fewest_agree(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;

	return 16 * d <= (a > b ? a : b);
}

int amp_tlb_ways_settled(const uint64_t *strides, const uint64_t *fewest, int n, uint64_t entries,
			 uint64_t *ways, char *why, size_t len)
{
	uint64_t least = UINT64_MAX, a, b;

	*ways = 0;
	if (n < 3 || !fewest_agree(fewest[n - 1], fewest[n - 3]))
		return 0;
	/* The least so far, of the counts their double stride does not
	 * contradict (more pages, 2s apart, cannot miss where fewer s
	 * apart did not; such a low count was something else's). */
	for (int i = 0; i < n; i++)
		if ((i + 2 >= n || fewest[i + 2] <= fewest[i] || fewest_agree(fewest[i + 2], fewest[i])) &&
		    fewest[i] < least)
			least = fewest[i];
	if (!fewest_agree(fewest[n - 1], least) || !fewest_agree(fewest[n - 3], least))
		return 0;
	a = fewest[n - 3] - 1;
	b = fewest[n - 1] - 1;
	if (fewest_agree(a > b ? a : b, entries)) {
		*ways = entries; /* fully associative */
		return 1;
	}
	if (a && a <= entries && entries % a == 0)
		*ways = a;
	if (b && b <= entries && entries % b == 0 && (!*ways || b < *ways))
		*ways = b;
	if (!*ways)
		snprintf(why, len, "%llu pages %llu and %llu apart miss it, which does not divide its %llu entries into sets",
			 (unsigned long long)fewest[n - 1], (unsigned long long)strides[n - 3],
			 (unsigned long long)strides[n - 1], (unsigned long long)entries);
	return 1;
}

static int first_level_ways(struct tt *t, struct amp_tlb_timing *o)
{
	uint64_t e = o->lv[0].entries, least = UINT64_MAX;
	double hit = o->lv[0].hit_ticks, p0 = o->lv[0].miss_penalty_ticks;
	double thr = hit + p0 / 2, base = o->ctl_ticks[0];
	char *why = o->lv[0].assoc_reason;

	o->nassoc = 0;
	o->lv[0].assoc = 0;
	why[0] = '\0';
	for (int k = 0; k < AMP_TLB_MAX_STRIDES; k++) {
		/* 2, 3, 4, 6, 8, 12, ...: sets of 3 x 2^j reach one set too. */
		uint64_t s = (k % 2 ? 3 : 2) << (k / 2), fewest;

		if (fewest_missing(t, o, s, base, thr, hit + SOME_SHARE * p0, &fewest) < 0)
			return -1;
		o->assoc_strides[o->nassoc] = s;
		o->assoc_fewest[o->nassoc++] = fewest;
		if (fewest < least)
			least = fewest;
		if (amp_tlb_ways_settled(o->assoc_strides, o->assoc_fewest, o->nassoc, e, &o->lv[0].assoc, why,
					 sizeof o->lv[0].assoc_reason))
			return 0;
	}
	snprintf(why, sizeof o->lv[0].assoc_reason,
		 "the fewest pages that miss it (%llu) did not hold from one stride to its double up to %llu pages apart (%llu entries)",
		 (unsigned long long)least, (unsigned long long)o->assoc_strides[o->nassoc - 1], (unsigned long long)e);
	return 0;
}

/* ---- the second level's ways ----
 *
 * The same fewest-that-miss count, for level 2: a cycle of n test pages
 * `stride` apart, then f flush pages, so that every test access misses
 * level 1 and asks level 2.  The flush pages lie in the test pages'
 * level-1 set (odd multiples of its set count: the test pages are
 * multiples of a stride it divides) but in other level-2 sets (an odd
 * multiple of level 1's sets is no multiple of level 2's, where level 2
 * has more sets); f is FLUSH_WAYS x level 1's ways (twice its entries
 * where it is fully associative), so between two accesses of a test
 * page level 1 lets it go.  A chain visits each line once a cycle, so
 * the flush pages come once, and their cost is the cycle's whatever n
 * is: a test page's cost is the cycle's growth from one test page, over
 * n - 1, against that of two pages 2 x level 1's sets apart (other
 * level-2 sets).  A test page that level 2 lost pays its penalty.  The
 * flush pages' lines take the upper three quarters of a page's 64-byte
 * lines, the test pages' the lower quarter: neither crowds the other's
 * data-cache sets.  Only strides at or past level 2's sets are needed,
 * so they start at the power of two at or over its entries: 2^c,
 * 3 x 2^(c-1), 2^(c+1), ... (settled as level 1's).  Past SECOND_MOST
 * pages that fit, unknown: fully associative, or more ways than the
 * data caches let it show. */
#define FLUSH_WAYS 4
/* Test pages at most: at strides past a data cache's way their lines
 * share the sets their page offsets pick (a few per set fit), and a
 * fully associative level 2 would overflow them long before it missed. */
#define SECOND_MOST 65
#define SECOND_HELD 9  /* pages of the reference that level 2 holds */

/* Ticks of one cycle: n test pages `stride` apart, then f flush pages. */
static int time_cycle(struct tt *t, uint64_t page, uint64_t stride, uint64_t n, uint64_t sets1, uint64_t f,
		      double *cycle)
{
	uint64_t lines = page / 64, tlines = lines / 4, k = 0, top = 0;
	uint64_t *off = malloc((n + f) * sizeof *off);
	struct amp_rng rng;
	double tpl;
	int rc;

	if (!off) {
		snprintf(t->err, t->len, "tlb: out of memory");
		return -1;
	}
	for (uint64_t i = 0; i < n; i++)
		off[k++] = i * stride * page + amp_tlb_draw_line(i, tlines) * 64;
	amp_rng_seed(&rng, t->seed ^ (n * 0x9e3779b97f4a7c15ull) ^ stride);
	amp_shuffle(off, n, &rng);
	for (uint64_t j = 0; j < f; j++)
		off[k++] = (2 * j + 1) * sets1 * page + (tlines + j % (lines - tlines)) * 64;
	for (uint64_t i = 0; i < k; i++)
		top = off[i] > top ? off[i] : top;
	rc = time_chain(t, "tlb-second", top / page * page + page, off, k, &tpl);
	free(off);
	*cycle = tpl * (double)k;
	return rc;
}

/* One second-level count's setting: level 1's sets and the flush run,
 * a test page's cost where level 2 holds it, the cycle of one test page
 * at this stride, and the costs over which a test page missed it. */
struct second {
	uint64_t sets1, f;
	double hit, one, thr, some;
	double last; /* the cost last seen */
};

/* The cycle of one test page `stride` apart: the faster of two looks
 * (the first run of a fresh region ran 40 ticks slower on the Zen 5
 * guest, and a test page's cost came out negative). */
static int cycle_of_one(struct tt *t, const struct amp_tlb_timing *o, struct second *sc, uint64_t stride)
{
	double again;

	if (time_cycle(t, o->page, stride, 1, sc->sets1, sc->f, &sc->one) < 0 ||
	    time_cycle(t, o->page, stride, 1, sc->sets1, sc->f, &again) < 0)
		return -1;
	sc->one = fmin(sc->one, again);
	return 0;
}

/* A test page's cost in a cycle of n pages `stride` apart (n >= 2). */
static int test_page_cost(struct tt *t, const struct amp_tlb_timing *o, const struct second *sc, uint64_t stride,
			  uint64_t n, double *cost)
{
	double c;

	if (time_cycle(t, o->page, stride, n, sc->sets1, sc->f, &c) < 0)
		return -1;
	*cost = (c - sc->one) / (double)(n - 1);
	return 0;
}

/* Whether n test pages `stride` apart miss level 2 (a cost over `over`,
 * believed on a second look: noise only adds time). */
static int second_misses(struct tt *t, const struct amp_tlb_timing *o, struct second *sc, uint64_t stride,
			 uint64_t n, double over, int *yes)
{
	double v;

	if (test_page_cost(t, o, sc, stride, n, &v) < 0)
		return -1;
	for (int r = 0; r < RETRIES && v > over; r++) {
		double again;

		if (test_page_cost(t, o, sc, stride, n, &again) < 0)
			return -1;
		v = fmin(v, again);
	}
	*yes = v > over;
	sc->last = v;
	return 0;
}

/* The fewest test pages `stride` apart that miss level 2, in (1,
 * SECOND_MOST]: 2, 3, 5, 9, ... pages until some miss (the strides are
 * wide: a few ways' worth of pages spans gigabytes), then bisection;
 * 0 where SECOND_MOST pages fit. */
static int fewest_missing_second(struct tt *t, const struct amp_tlb_timing *o, struct second *sc, uint64_t stride,
				 uint64_t *fewest)
{
	uint64_t lo = 1, hi = 2, most = SECOND_MOST;
	int yes;

	if (cycle_of_one(t, o, sc, stride) < 0)
		return -1;
	for (;;) {
		if (second_misses(t, o, sc, stride, hi, sc->thr, &yes) < 0)
			return -1;
		if (!yes && hi == most) {
			*fewest = 0;
			return 0;
		}
		if (yes)
			break;
		lo = hi;
		hi = 2 * hi - 1 < most ? 2 * hi - 1 : most;
	}
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (second_misses(t, o, sc, stride, mid, sc->thr, &yes) < 0)
			return -1;
		if (yes)
			hi = mid;
		else
			lo = mid;
	}
	/* A set that is not LRU misses a walk one page over its ways only
	 * part of the time, as at level 1 (fewest_missing). */
	for (int k = 0; k < SOME_STEPS && hi > 2; k++) {
		if (second_misses(t, o, sc, stride, hi - 1, sc->some, &yes) < 0)
			return -1;
		if (!yes)
			break;
		hi--;
	}
	*fewest = hi;
	return 0;
}

/* The two strides the second level's ways settled on (k and k - 2),
 * looked at again: each count must agree with its first (a Zen 5 guest
 * under PVM, whose walks go through the hypervisor's shadow tables,
 * read 5 to 12 ways in 8 runs, settling where two counts happened to
 * agree).  Otherwise the ways are left unknown. */
static int second_ways_hold(struct tt *t, struct amp_tlb_timing *o, struct second *sc, const uint64_t *strides,
			    const uint64_t *fewest, int k)
{
	for (int i = k; i >= k - 2; i -= 2) {
		uint64_t again;

		if (fewest_missing_second(t, o, sc, strides[i], &again) < 0)
			return -1;
		if (!again || !fewest_agree(again, fewest[i])) {
			snprintf(o->lv[1].assoc_reason, sizeof o->lv[1].assoc_reason,
				 "the fewest pages %llu apart that miss it behind level 1's misses did not hold when looked at again (%llu, then %llu%s): the walks are too noisy to count its ways",
				 (unsigned long long)strides[i], (unsigned long long)fewest[i], (unsigned long long)again,
				 again ? "" : ": none up to the most tried");
			o->lv[1].assoc = 0;
			return 0;
		}
	}
	return 0;
}

static int second_level_ways(struct tt *t, struct amp_tlb_timing *o)
{
	uint64_t e2 = o->lv[1].entries, w1 = o->lv[0].assoc, top = 1, strides[AMP_TLB_MAX_STRIDES];
	uint64_t fewest[AMP_TLB_MAX_STRIDES], least = UINT64_MAX;
	char *why = o->lv[1].assoc_reason;
	struct second sc = { 0 };
	/* A miss here is a walk whose tables the caches hold, as the
	 * draws' walks (30 ticks on the Zen 3 guest, where the sweep's
	 * walks over many pages cost 54 to 69 and half of that hid the
	 * misses of 9 pages in a set of 8 in 3 of 9 runs). */
	double p2 = o->draws_walk > 0 ? fmin(o->draws_walk, o->lv[1].miss_penalty_ticks) : o->lv[1].miss_penalty_ticks;

	if (!w1) {
		snprintf(why, sizeof o->lv[1].assoc_reason, "needs the first level's ways (%s)", o->lv[0].assoc_reason);
		return 0;
	}
	sc.sets1 = o->lv[0].entries / w1;
	sc.f = FLUSH_WAYS * w1 < 2 * o->lv[0].entries ? FLUSH_WAYS * w1 : 2 * o->lv[0].entries;
	while (top < e2)
		top *= 2;
	/* A test page that level 2 holds: SECOND_HELD pages in other sets
	 * of it (the growth over more pages: less noise a page). */
	if (cycle_of_one(t, o, &sc, 2 * sc.sets1) < 0 || test_page_cost(t, o, &sc, 2 * sc.sets1, SECOND_HELD, &sc.hit) < 0)
		return -1;
	sc.thr = sc.hit + p2 / 2;
	sc.some = sc.hit + SOME_SHARE * p2;
	for (int k = 0; k < AMP_TLB_MAX_STRIDES; k++) {
		uint64_t s = k % 2 ? 3 * (top << (k / 2)) / 2 : top << (k / 2);

		if (fewest_missing_second(t, o, &sc, s, &fewest[k]) < 0)
			return -1;
		if (!fewest[k]) {
			snprintf(why, sizeof o->lv[1].assoc_reason,
				 "%d pages %llu apart cost %.1f ticks each, %.1f where held: under half its penalty (%.1f), so fully associative, or walks that find their tables cached",
				 SECOND_MOST, (unsigned long long)s, sc.last, sc.hit, p2);
			return 0;
		}
		strides[k] = s;
		least = fewest[k] < least ? fewest[k] : least;
		if (amp_tlb_ways_settled(strides, fewest, k + 1, e2, &o->lv[1].assoc, why, sizeof o->lv[1].assoc_reason)) {
			/* The sweep's entries are within a bisection step of
			 * the true count (1025 for 1024): ways whose nearest
			 * multiple agrees with them divide it. */
			uint64_t w = fewest[k] - 1, near = (e2 + w / 2) / w * w;

			if (!o->lv[1].assoc && w > 1 && near && fewest_agree(near, e2)) {
				o->lv[1].assoc = w;
				why[0] = 0;
			}
			return o->lv[1].assoc ? second_ways_hold(t, o, &sc, strides, fewest, k) : 0;
		}
	}
	snprintf(why, sizeof o->lv[1].assoc_reason,
		 "the fewest pages that miss it behind level 1's misses (%llu) did not hold from one stride to its double up to %llu pages apart (%llu entries)",
		 (unsigned long long)least, (unsigned long long)strides[AMP_TLB_MAX_STRIDES - 1], (unsigned long long)e2);
	return 0;
}

/* ---- past the first level, by random draws ----
 *
 * A cyclic jump chain past the ITLB's reach is foreseen by the branch
 * predictors, which fetch (and translate) ahead of it: on an AMD Zen 3
 * guest the chains read the ITLB's 64 entries but no second level up to
 * 16384 pages.  Jumps whose targets are drawn at random (plan op
 * AMP_OP_IJUMP) cannot be run ahead of, and with uniform draws a level
 * of C entries holds the next page with odds C/N whatever its
 * replacement, so the levels show as kinks of N times the excess per
 * jump (amp_tlb_draws_reach).  The points run from 2^(1/4) times the
 * first level's entries, four per octave, until the second level's end
 * has points to 4 times it; the control is the same lines packed.
 * Loads drawn likewise (AMP_OP_DRAW) check the data side's second level,
 * which a cyclic sweep under-reads where the level loses pages it has
 * room for (data_draws). */
/* A departure from the first level's misses, relative: at 0.25 one of
 * five runs on the Zen 3 guest read 172 entries among 309 to 368, a
 * busy spell over two points; the real end departs by 3 to 6 times
 * p1 (N - c1) within a point or two. */
#define DRAW_DEPART 0.5
#define DRAW_TAU 0.02             /* the noise per jump, relative to the control's time */
#define DRAW_P2_FROM 2            /* the walk's cost is taken from this many times c2 on */
#define DRAW_C1_AGREE 0.25        /* the draws' first-level end and the sweep's agree this well */
#define DRAW_FIT_LAST 10          /* ... judged on points 2 to at most this one (6.7 c1) */
#define DRAW_REFS 3               /* points with every page held: c1 x 3/7, 4/7, 5/7 */
/* The data side's sweep and draws agree this well (relative to the
 * draws) where the sweep's exact bisection stands: the draws' own
 * spread on the simulated machines is up to 8%. */
#define DRAW_AGREE 0.1
#define DRAW_LOOKS 2              /* looks at every point, each point's fastest kept */
/* The draws' first-level end and the sweep's entries agree this well
 * (relative, +1) where the sweep's stand: the ends on the simulated
 * machines lie within 1 of the level's entries, within 5% where code
 * outgrows the caches; on the Zen 3 guest 63.6 to 64.0 in 4 of 6 runs. */
#define DRAW_FIRST_AGREE 0.05
/* ... and its end may lie this many entries lower, or this share of
 * the sweep's count where that is more: the draws' own accesses take
 * entries (the table of targets, the stack; the data side's end lay
 * 1.4 to 3.4 under its sweep's 64 in 6 runs there), and on a PVM guest
 * of a Zen 5 host something else does: the jumps' ends lay 54 to 60
 * under the chains' 64 (CPUID and AMD: 64), in runs that then read 52,
 * 57 and 52 where the allowance was 4. */
#define DRAW_OWN_PAGES 4
#define DRAW_OWN_SHARE 0.15
/* ... and either way this many standard errors of the end (its line's
 * scatter): one run there whose points scattered read its end at 97
 * entries, 10 either way. */
#define DRAW_END_SIGMAS 3.0
#define DRAW_ANCHORS 4            /* first-level counts the draws run from: the sweep's, then theirs */

/* p1, the median of N e / (N - c1) over points from..to, then again
 * with the control's own misses (at the p1 so far) added back into t
 * until it settles: past c1 x per_page lines the control's pages miss
 * the first level too, and the second level holds them. */
#define FIRST_MISS_PASSES 64
static double first_miss(uint64_t c1, uint64_t per_page, const uint64_t *n, const double *e, int m, int from, int to,
			 double *t)
{
	double p1 = 0, r[AMP_TLB_MAX_POINTS];

	for (int pass = 0; pass < FIRST_MISS_PASSES; pass++) {
		double was = p1;

		for (int j = 0; j < m; j++) {
			uint64_t pages = (n[j] + per_page - 1) / per_page;

			t[j] = (double)n[j] * (e[j] + (pass && pages > c1 ? p1 * (1 - (double)c1 / (double)pages) : 0));
		}
		for (int j = from; j <= to; j++)
			r[j - from] = t[j] / (double)(n[j] - c1);
		p1 = fmax(0, median(r, to - from + 1));
		if (pass && fabs(p1 - was) <= 1e-9 * p1)
			break;
	}
	return p1;
}

/* Where the least-squares line through points from..to of (N, t)
 * meets zero (0 where it does not climb), and *se, that point's
 * standard error from the points' scatter about the line (inverse
 * prediction: s / slope x sqrt(1/k + (end - mean N)^2 / Sxx)). */
static double line_end(const uint64_t *n, const double *t, int from, int to, double *se)
{
	double sx = 0, sy = 0, k = to - from + 1, sxx = 0, sxy = 0, sse = 0, slope, mx, my, end;

	for (int j = from; j <= to; j++) {
		sx += (double)n[j];
		sy += t[j];
	}
	mx = sx / k;
	my = sy / k;
	for (int j = from; j <= to; j++) {
		sxx += ((double)n[j] - mx) * ((double)n[j] - mx);
		sxy += ((double)n[j] - mx) * (t[j] - my);
	}
	slope = sxy / sxx;
	*se = 0;
	if (!(slope > 0))
		return 0;
	end = mx - my / slope;
	for (int j = from; j <= to; j++) {
		double r = t[j] - my - slope * ((double)n[j] - mx);

		sse += r * r;
	}
	if (k > 2)
		*se = sqrt(sse / (k - 2)) / slope * sqrt(1 / k + (end - mx) * (end - mx) / sxx);
	return end;
}

/* The points' departures d from p1's line, and the first that holds
 * (the next two points, one at the end, departing further), or -1. */
static int departure(uint64_t c1, const uint64_t *n, const double *t, int m, double p1, double tau, double *d)
{
	for (int j = 0; j < m; j++)
		d[j] = t[j] - p1 * (double)(n[j] - c1);
	for (int j = 0; j + 1 < m; j++) {
		int ok = 1;

		for (int k = j; k <= j + 2 && k < m; k++)
			ok &= d[k] > fmax(DRAW_DEPART * p1 * (double)(n[k] - c1), tau * (double)n[k]) &&
			      (k == j || d[k] > d[k - 1]);
		if (ok)
			return j;
	}
	return -1;
}

int amp_tlb_draws_reach(uint64_t c1, uint64_t per_page, const uint64_t *n, const double *e, int m, double tau,
			double *p1, uint64_t *c2, double *p2, double *end1, double *end_se, char *why, size_t len)
{
	double d[AMP_TLB_MAX_POINTS], q[AMP_TLB_MAX_POINTS], t[AMP_TLB_MAX_POINTS], lo, at;
	int a, last, nq = 0;

	*c2 = 0;
	*p1 = *p2 = *end1 = *end_se = 0;
	if (m < 6 || m > AMP_TLB_MAX_POINTS) {
		snprintf(why, len, "%d points of random draws are too few to find the level below", m);
		return 0;
	}
	for (int j = 0; j < m; j++)
		if (n[j] <= c1 || (j && n[j] <= n[j - 1])) {
			snprintf(why, len, "random draws to %llu pages: the points must climb past the first level's %llu",
				 (unsigned long long)n[j], (unsigned long long)c1);
			return 0;
		}
	/* p1 from the first three points, then from every point on its
	 * line before the departure, or, where none departs yet, from all
	 * but the last two (one may await its confirmation).  From the
	 * first three alone, in a Zen 3 guest's run whose first points ran
	 * high, p1 read 7.3 ticks where the points to 1722 pages gave 5.6
	 * to 5.8, and its STLB 2186 entries. */
	*p1 = first_miss(c1, per_page, n, e, m, 2, 4, t);
	a = departure(c1, n, t, m, *p1, tau, d);
	last = 4;
	if (a > 5)
		last = a - 1;
	else if (a < 0 && m > 7)
		last = m - 3;
	if (last > 4) {
		*p1 = first_miss(c1, per_page, n, e, m, 2, last, t);
		a = departure(c1, n, t, m, *p1, tau, d);
	}
	/* Past a first level's end its misses cost something. */
	if (*p1 <= tau) {
		snprintf(why, len,
			 "draws to %llu to %llu pages cost no more than those to fewer than %llu (%.2f ticks a draw): "
			 "no first level ends at %llu entries",
			 (unsigned long long)n[2], (unsigned long long)n[last], (unsigned long long)c1, *p1,
			 (unsigned long long)c1);
		return -1;
	}
	/* Those points' line, N e = p1 (N - c1), meets zero at the first
	 * level's end: a first level read wrong shows there.  Judged on the
	 * first three points past it, or on the points to 6.7 c1 at most
	 * before the departure (the first three alone read 21 entries for
	 * 64 in a Zen 3 guest's run whose first points ran high; the longer
	 * line bends where code outgrows a simulated machine's caches). */
	{
		int to = last < DRAW_FIT_LAST ? last : DRAW_FIT_LAST;
		double se3, se, end3 = line_end(n, t, 2, 4, &se3), end = to > 4 ? line_end(n, t, 2, to, &se) : end3;

		if (to <= 4)
			se = se3;
		*end1 = fabs(end3 - (double)c1) < fabs(end - (double)c1) ? end3 : end;
		*end_se = *end1 == end3 ? se3 : se;
		if (fabs(end3 - (double)c1) > DRAW_C1_AGREE * (double)c1 + 2 &&
		    fabs(end - (double)c1) > DRAW_C1_AGREE * (double)c1 + 2) {
			snprintf(why, len,
				 "draws to %llu to %llu pages put the first level's end at %.0f entries, not %llu",
				 (unsigned long long)n[2], (unsigned long long)n[4], end3, (unsigned long long)c1);
			return -1;
		}
	}
	if (a < 0) {
		snprintf(why, len,
			 "random draws to %llu to %llu pages cost only the first level's misses (%.2f ticks each): "
			 "no level below it ends there",
			 (unsigned long long)n[0], (unsigned long long)n[m - 1], *p1);
		return 0;
	}
	/* The departure grows as p2 (N - c2): back along it to zero, no
	 * lower than the last point within the noise of p1's line. */
	lo = (double)c1;
	for (int j = 0; j < a; j++)
		if (d[j] <= tau * (double)n[j])
			lo = (double)n[j];
	at = (double)n[a] - d[a] * (double)(n[a + 1] - n[a]) / (d[a + 1] - d[a]);
	*c2 = (uint64_t)llround(fmin((double)n[a], fmax(lo, at)));
	for (int j = a; j < m; j++)
		if (n[j] >= DRAW_P2_FROM * *c2)
			q[nq++] = d[j] / (double)(n[j] - *c2);
	*p2 = nq ? median(q, nq) : d[m - 1] / (double)(n[m - 1] - *c2);
	why[0] = '\0';
	return 1;
}

/* Time per draw (a jump, or a load) of n pages drawn at random (*a)
 * and of the control (*c), each the fastest of sweeps(t); *quiet:
 * whether one of them was timed quiet. */
static int time_draws(struct tt *t, uint64_t page, uint64_t n, double *a, double *c, int *quiet)
{
	enum amp_op op = t->op;
	int rc = 0;

	t->op = draw_op(t);
	*quiet = 0;
	for (int pass = 0; pass < sweeps(t) && rc == 0; pass++) {
		int busy = t->busy;
		double x, y;

		rc = time_pages(t, page, 1, n, &x) < 0 || time_packed(t, page, n, &y) < 0 ? -1 : 0;
		*a = pass ? fmin(*a, x) : x;
		*c = pass ? fmin(*c, y) : y;
		*quiet |= t->busy == busy;
	}
	t->op = op;
	return rc;
}

uint64_t amp_tlb_second_entries(uint64_t sweep, uint64_t drawn)
{
	if (!drawn || (sweep && fabs((double)drawn - (double)sweep) <= DRAW_AGREE * (double)drawn))
		return sweep;
	return drawn;
}

void amp_tlb_draws_looks(const struct amp_tlb_timing *o, uint64_t entries, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!entries || !o->ndraws)
		return;
	if (o->draws_first_found <= 0)
		snprintf(buf, len, " (the first look found none)");
	else if (fabs((double)o->draws_first - (double)entries) > DRAW_AGREE * (double)entries)
		snprintf(buf, len, " (the first look read %llu)", (unsigned long long)o->draws_first);
}

/* Whether pages can alias shared ones here (for jumps, as code
 * that runs); if not, why. */
static int aliases_work(enum amp_op op, char *why, size_t len)
{
	long sys = sysconf(_SC_PAGESIZE);
	uint64_t at = 0;
	struct amp_jumpchain *probe;
	int ok;

	if (op != AMP_OP_IFETCH || sys <= 0)
		return amp_alias_check(why, len) == 0;
	probe = amp_jumpchain_build_aliased(2 * (uint64_t)sys, (uint64_t)sys, &at, 1, why, len);
	ok = probe != NULL;
	amp_jumpchain_free(probe);
	return ok;
}

/* The data side: the draws' second level where it differs from the
 * cyclic sweep's (amp_tlb_second_entries; the sweep's loads lost the
 * Zen 3 guest's 2048-entry level from 1080 to 1528 pages on); the
 * sweep's levels stand otherwise.  The sweep's miss penalties stand (a
 * load's miss is no predictors' business); the second level's comes
 * from the draws only where the sweep found no second level. */
static void data_draws(struct amp_tlb_timing *o, int found, uint64_t c2, double p1, double p2)
{
	uint64_t sweep = o->nlevels > 1 ? o->lv[1].entries : 0;

	o->draws_entries = found > 0 ? c2 : 0;
	o->draws_walk = found > 0 ? p2 : 0;
	if (amp_tlb_second_entries(sweep, o->draws_entries) == sweep)
		return;
	o->draws_replaced = sweep;
	if (o->nlevels < 2) {
		memset(&o->lv[1], 0, sizeof o->lv[1]);
		o->lv[1].hit_ticks = o->lv[0].hit_ticks + p1;
		o->lv[1].miss_penalty_ticks = p2;
		o->nlevels = 2;
	}
	o->lv[1].entries = c2;
	o->lv[1].step_clarity = 1;
	o->lv[1].step_reason[0] = '\0';
}

/* The excess per draw at every point so far (each point's and the
 * refs' fastest look) and the levels it shows (amp_tlb_draws_reach). */
static int draws_reach(struct tt *t, struct amp_tlb_timing *o, double *p1, uint64_t *c2, double *p2, double *end,
		       double *se, char *why, size_t len)
{
	double e[AMP_TLB_MAX_POINTS];
	int m = o->ndraws;

	for (int i = 0; i < m; i++)
		e[i] = o->draw_ticks[i] - o->draw_ctl_ticks[i] - o->ref_excess;
	return amp_tlb_draws_reach(o->lv[0].entries, o->page / slot_for(draw_op(t)), o->draw_pages, e, m,
				   DRAW_TAU * o->draw_ctl_ticks[m - 1], p1, c2, p2, end, se, why, len);
}

/* Every page held: the median of DRAW_REFS points under c1 (a single
 * one, timed in a busy spell, shifted every excess: the Zen 3 guest's
 * first level then read 94 entries for 69); each keeps its fastest
 * look. */
static int draw_refs(struct tt *t, struct amp_tlb_timing *o, int look, double *refs)
{
	uint64_t c1 = o->lv[0].entries;

	for (int r = 0; r < DRAW_REFS; r++) {
		uint64_t ref = c1 * (uint64_t)(r + DRAW_REFS) / (2 * DRAW_REFS + 1);
		double a, c;
		int quiet;

		if (time_draws(t, o->page, ref > 1 ? ref : 1, &a, &c, &quiet) < 0)
			return -1;
		refs[r] = look ? fmin(refs[r], a - c) : a - c;
	}
	o->ref_excess = median(refs, DRAW_REFS);
	return 0;
}

/* The points so far once more, each keeping its faster look. */
static int draws_again(struct tt *t, struct amp_tlb_timing *o)
{
	for (int i = 0; i < o->ndraws; i++) {
		double a, c;
		int quiet;

		if (time_draws(t, o->page, o->draw_pages[i], &a, &c, &quiet) < 0)
			return -1;
		o->draw_ticks[i] = fmin(o->draw_ticks[i], a);
		o->draw_ctl_ticks[i] = fmin(o->draw_ctl_ticks[i], c);
	}
	return 0;
}

/* One run of draws anchored at the first level's entries (c1 is
 * o->lv[0].entries while it runs): refs under c1, points from c1 x
 * 2^(1/4) on, DRAW_LOOKS looks at each.  A second look at every point,
 * later: a busy spell of another thread sharing the levels (the Zen 3
 * guest's host) takes entries for a few points in a row, and their
 * early departure read its L2 ITLB at 411 where the points from 875
 * pages on matched runs that read 510 and 512.  Returns
 * amp_tlb_draws_reach's found, or -2 where a timing failed. */
static int draws_run(struct tt *t, struct amp_tlb_timing *o, double *p1, uint64_t *c2, double *p2, double *end,
		     double *se, char *why, size_t len)
{
	uint64_t c1 = o->lv[0].entries;
	double refs[DRAW_REFS];
	int found = 0;

	o->ndraws = 0;
	for (int look = 0; look < DRAW_LOOKS; look++) {
		if (draw_refs(t, o, look, refs) < 0 || (look && draws_again(t, o) < 0))
			return -2;
		if (o->ndraws)
			found = draws_reach(t, o, p1, c2, p2, end, se, why, len);
		for (int j = 1; o->ndraws < AMP_TLB_MAX_POINTS; j++) {
			uint64_t n = (uint64_t)llround((double)c1 * exp2(j / 4.0));
			int i = o->ndraws, quiet;

			/* A first level the draws contradict stops them, once
			 * enough points judged it. */
			if (n > EN_MAX || (found > 0 && n > 4 * *c2) || (found < 0 && i > DRAW_FIT_LAST))
				break;
			if (n <= (i ? o->draw_pages[i - 1] : c1))
				continue;
			if (time_draws(t, o->page, n, &o->draw_ticks[i], &o->draw_ctl_ticks[i], &quiet) < 0)
				return -2;
			t->busy_points += !quiet;
			t->points++;
			o->draw_pages[i] = n;
			o->ndraws++;
			found = draws_reach(t, o, p1, c2, p2, end, se, why, len);
		}
		if (!look) {
			o->draws_first = found > 0 ? *c2 : 0;
			o->draws_first_found = found;
		}
	}
	return found;
}

/* Where the draws run next given their end, c1 their first level so
 * far: 0 where the end agrees with it.  With `allow`, the end may lie
 * DRAW_OWN_PAGES (or DRAW_OWN_SHARE) lower and DRAW_END_SIGMAS standard
 * errors either way; without, it agrees within a twentieth (+1) only. */
static uint64_t draws_from(uint64_t c1, int found, double end, double se, uint64_t last, int allow)
{
	double tol = DRAW_FIRST_AGREE * (double)c1 + 1 + (allow ? DRAW_END_SIGMAS * se : 0);
	double own = allow ? fmax(DRAW_OWN_PAGES, DRAW_OWN_SHARE * (double)c1) : 0;

	if (end > 0)
		return end - (double)c1 <= tol && (double)c1 - end <= tol + own ? 0 : (uint64_t)llround(end);
	return found < 0 && last > c1 ? last : 0;
}

uint64_t amp_tlb_draws_anchor(uint64_t c1, int found, double end, double se, uint64_t last)
{
	return draws_from(c1, found, end, se, last, 1);
}

uint64_t amp_tlb_draws_next(uint64_t sweep, uint64_t c1, int found, double end, double se, uint64_t last, int k,
			    int *settled)
{
	/* From a count of the draws' own, no allowance: those are for the
	 * sweep's count, and a run whose points scattered confirms nothing
	 * (on the Zen 5 guest, runs from 94 with them kept 94 for a
	 * 64-entry ITLB). */
	uint64_t next = draws_from(c1, found, end, se, last, c1 == sweep);

	/* An end that agrees with the sweep after all: its count. */
	if (next && !amp_tlb_draws_anchor(sweep, found, end, se, last))
		next = sweep;
	*settled = !next;
	return k + 1 == DRAW_ANCHORS || next < EN_MIN || next > EN_MAX / 4 ? 0 : next;
}

static int draws(struct tt *t, struct amp_tlb_timing *o)
{
	uint64_t sweep = o->lv[0].entries, c2 = 0;
	double p1 = 0, p2 = 0, end = 0, se = 0;
	char why[sizeof o->draws_reason] = "";
	int found = 0, settled = 1;

	/* Pages that alias shared ones (synth/alias.c: the caches then see
	 * one page's lines; so does the control, whose lines then alias as
	 * often as the draws'). */
	o->draws_aliased = !t->host->sim && aliases_work(t->op, o->alias_reason, sizeof o->alias_reason);
	t->alias = o->draws_aliased ? (uint64_t)sysconf(_SC_PAGESIZE) : 0;
	/* The draws check the sweep's first level too: where their line
	 * ends elsewhere, or no first level ends at it, they run again
	 * from where they put it (the Zen 3 guest's cyclic jump chains
	 * read its 64-entry ITLB at 5, 8, 57 and 73 in some runs).  A count
	 * of theirs stands only where a run from it agreed. */
	for (int k = 0; k < DRAW_ANCHORS; k++) {
		uint64_t next, last;

		found = draws_run(t, o, &p1, &c2, &p2, &end, &se, why, sizeof why);
		if (found < -1)
			return -1;
		last = o->ndraws ? o->draw_pages[o->ndraws - 1] : 0;
		next = amp_tlb_draws_next(sweep, o->lv[0].entries, found, end, se, last, k, &settled);
		if (!next)
			break;
		o->lv[0].entries = next;
	}
	/* The last run's first level stands unless its points refused it
	 * (amp_tlb_draws_reach: their end more than DRAW_C1_AGREE away) or
	 * moved it again (the runs did not settle); then the sweep's does,
	 * with no level below where they refused it. */
	if (found < 0 || !settled)
		o->lv[0].entries = sweep;
	o->first_replaced = o->lv[0].entries != sweep ? sweep : 0;
	/* A first level the draws replaced: its step and miss are theirs. */
	if (o->first_replaced) {
		o->lv[0].step_clarity = 1;
		o->lv[0].step_reason[0] = '\0';
		o->lv[0].miss_penalty_ticks = p1;
	}
	t->alias = 0;
	snprintf(o->draws_reason, sizeof o->draws_reason, "%s", why);
	if (found >= 0)
		o->l1_penalty = p1;
	if (t->op != AMP_OP_IFETCH) {
		data_draws(o, found, c2, p1, p2);
		return 0;
	}
	o->nlevels = 1;
	if (found < 0)
		return 0;
	/* The first level's miss is what a draw pays; the cyclic sweep's
	 * step was what the predictors left of it. */
	o->lv[0].miss_penalty_ticks = p1;
	if (found) {
		memset(&o->lv[1], 0, sizeof o->lv[1]);
		o->lv[1].entries = c2;
		o->lv[1].hit_ticks = o->lv[0].hit_ticks + p1;
		o->lv[1].miss_penalty_ticks = p2;
		o->lv[1].step_clarity = 1;
		snprintf(o->lv[1].assoc_reason, sizeof o->lv[1].assoc_reason,
			 "not measured by timing in this version (random jumps give the entries of the levels past the first)");
		o->nlevels = 2;
	}
	return 0;
}

/* No noise and no random replacement: one run tells all. */
static int sim_exact(const struct sim_spec *spec)
{
	for (int i = 0; i < spec->n; i++)
		if (spec->lv[i].policy == SIM_RANDOM)
			return 0;
	return spec->noise == 0;
}

int amp_tlb_timing_measure(const struct amp_host *host, unsigned reps, uint64_t seed,
			   struct amp_tlb_timing *out, char *err, size_t len)
{
	return amp_tlb_timing_measure_op(host, AMP_OP_LOAD, reps, seed, out, err, len);
}

static int measure(struct tt *t, struct amp_tlb_timing *out);

int amp_tlb_timing_measure_op(const struct amp_host *host, enum amp_op op, unsigned reps,
			      uint64_t seed, struct amp_tlb_timing *out, char *err, size_t len)
{
	struct tt t = { .host = host, .reps = reps ? reps : 1, .seed = seed, .err = err, .len = len, .op = op };
	char why[AMP_REASON_LEN];
	int rc;

	/* Jumps run from code of their own mapping: no data pages. A
	 * bound too tight for the arena leaves each plan its own. */
	if (!host->sim && op != AMP_OP_IFETCH && amp_arena_open_sparse(&t.arena, ARENA_REGION, ARENA_TOUCHED, why, sizeof why) < 0)
		memset(&t.arena, 0, sizeof t.arena);
	rc = measure(&t, out);
	amp_arena_close(&t.arena);
	return rc;
}

/* The sweeps and the ways, on t's settings. */
static int measure(struct tt *t, struct amp_tlb_timing *out)
{
	memset(out, 0, sizeof *out);
	/* An exact simulated machine gives the same answer every time. */
	if (t->host->sim && sim_exact(sim_get_spec(t->host->sim)))
		t->reps = 1;
	t->quiet.wait_left = QUIET_WAIT_NS;
	if (page_size(t, out) < 0)
		return -1;
	if (!out->page) {
		snprintf(out->reason, sizeof out->reason, "the page size is unknown: %s",
			 out->page_reason);
		return 0;
	}
	if (entries(t, out) < 0)
		return -1;
	if (out->nlevels && first_level_ways(t, out) < 0)
		return -1;
	/* The levels past the first: random draws (which check the first
	 * level's end too). */
	if (out->nlevels && draws(t, out) < 0)
		return -1;
	/* ... and its ways are judged again against the draws' entries. */
	if (out->first_replaced && first_level_ways(t, out) < 0)
		return -1;
	/* Its regions span gigabytes of address space: a refused mapping
	 * (ulimit -v) leaves only these ways unknown. */
	if (out->nlevels > 1 && t->op == AMP_OP_LOAD && second_level_ways(t, out) < 0) {
		snprintf(out->lv[1].assoc_reason, sizeof out->lv[1].assoc_reason, "%s", t->err);
		out->lv[1].assoc = 0;
	}
	out->busy = t->busy;
	out->timings = t->timings;
	out->busy_points = t->busy_points;
	out->points = t->points;
	return 0;
}

void amp_tlb_timing_fill(struct amp_ctx *c, const struct amp_tlb_timing *t)
{
	amp_tlb_timing_fill_side(c, t, AMP_SIDE_DATA);
}

/* A measured value the sweep doubts: inconclusive, at most `confidence`. */
static void doubted(struct amp_param *p, double confidence, const char *reason)
{
	p->inconclusive = 1;
	p->confidence = fmin(p->confidence, confidence);
	snprintf(p->reason, sizeof p->reason, "%s", reason);
}

void amp_tlb_timing_fill_side(struct amp_ctx *c, const struct amp_tlb_timing *t, enum amp_level_side side)
{
	for (int i = 0; i < c->nlv; i++) {
		struct amp_level *lv = &c->lv[i];
		int k = lv->level - 1;

		if (lv->kind != AMP_KIND_TLB || lv->side != side)
			continue;
		if (k == t->nlevels && k == 1 && t->draws_reason[0]) {
			snprintf(lv->nc_reason, sizeof lv->nc_reason, "random draws found no second level: %s",
				 t->draws_reason);
			continue;
		}
		if (k >= t->nlevels) {
			snprintf(lv->nc_reason, sizeof lv->nc_reason, "the TLB sweep found %d level%s%s%s",
				 t->nlevels, t->nlevels == 1 ? "" : "s", t->nlevels ? "" : ": ",
				 t->nlevels ? "" : t->reason);
			continue;
		}
		lv->measurable = 1;
		lv->hit_ticks = t->lv[k].hit_ticks;
		lv->next_ticks = t->lv[k].hit_ticks + t->lv[k].miss_penalty_ticks;
		if (t->page) {
			amp_param_measured(&lv->line, (int64_t)t->page, "timing");
			if (t->page_doubt[0])
				doubted(&lv->line, lv->line.confidence, t->page_doubt);
		} else
			amp_param_unknown(&lv->line, "%s", t->page_reason);
		amp_param_measured(&lv->size, (int64_t)t->lv[k].entries, "timing");
		if (t->lv[k].assoc) {
			amp_param_measured(&lv->assoc, (int64_t)t->lv[k].assoc, "timing");
			lv->fully_associative = t->lv[k].assoc == t->lv[k].entries;
		}
		/* Confidence: the share of the entries sweep's points and its
		 * bisection steps with a timing taken quiet. */
		for (int j = 0; j < 3 && t->busy_points; j++) {
			struct amp_param *p = j == 2 ? &lv->assoc : j ? &lv->size : &lv->line;

			if (!p->known)
				continue;
			p->confidence = 1 - (double)t->busy_points / t->points;
			if (t->busy_points <= BUSY_SHARE * t->points)
				continue;
			p->inconclusive = 1;
			snprintf(p->reason, sizeof p->reason,
				 "the machine stayed busy: %d of %d points and steps of the TLB sweep had every timing run with its "
				 "reference over %.0f%% above its fastest after waiting %.0f s for quiet",
				 t->busy_points, t->points, AMP_QUIET * 100, QUIET_WAIT_NS / 1e9);
		}
		/* Entries whose step did not stand out of the noise: half
		 * its clarity, under the 50% that marks a vote inconclusive.
		 * The ways were judged against those entries (fully
		 * associative where the fewest pages that miss match them, a
		 * divisor of them otherwise): in doubt with them. */
		if (t->lv[k].step_reason[0] && lv->size.known) {
			doubted(&lv->size, t->lv[k].step_clarity / 2, t->lv[k].step_reason);
			if (t->lv[k].assoc && lv->assoc.known) {
				char why[AMP_REASON_LEN];

				snprintf(why, sizeof why, "judged against entries in doubt: %s", t->lv[k].step_reason);
				doubted(&lv->assoc, t->lv[k].step_clarity / 2, why);
			}
		}
		/* A TLB has no write policy, inclusion or split of its own
		 * here: those stay empty; the rest say why they are unknown. */
		for (int j = 0; j < AMP_NPARAMS; j++) {
			struct amp_param *p = amp_level_param(lv, j);

			if (p == &lv->assoc && t->lv[k].assoc)
				continue;
			else if (p == &lv->assoc && t->lv[k].assoc_reason[0])
				amp_param_unknown(p, "%s", t->lv[k].assoc_reason);
			else if (p == &lv->assoc || p == &lv->way || p == &lv->replacement)
				amp_param_unknown(p, "not measured by timing in this version (the TLB sweep gives page size and entries%s)",
						  p == &lv->assoc ? "; ways of the first level only" : "");
			else if (p != &lv->line && p != &lv->size)
				amp_param_unknown(p, "%s", "");
		}
	}
}
