/* mod_icache.c - instruction-cache capacity by timing, with the control
 * engine of the I-cache paper (X-Ray, "Automatic Measurement of
 * Instruction Cache Capacity", Fig. 6).
 *
 * The nano-benchmark: a contiguous block of N lines of code, each line
 * a few jumps, run cyclically (lines of 16-page windows in random order:
 * no stride for a next-line prefetcher); its time per line.  A baseline
 * sample of S sizes just above N0 gives the mean mu and deviation sigma
 * of the time while everything fits; a time at or above mu + T sigma is
 * a significant rise.  N doubles from N0 until the time rises, then a
 * binary search between N/2 and N finds the largest N that does not;
 * every time is smoothed as the minimum over N-I/2..N+I/2 (isolated
 * fluctuations do not end the search early).  Capacity = N x line.
 *
 * Op caches: the code sweep (insn_timing.c) runs with several jumps a
 * line and finds an op cache in front of the L1i by the edge that moves
 * with the jumps per line; the baseline then starts above that edge
 * (with as many jumps a line), so the search finds the L1i's edge, not
 * the op cache's.  (The simulated machine has none: one fetch a line.)
 *
 * The threshold has a floor of FLOOR x mu: an exact machine has sigma
 * 0, and one line too many in one set of a cache of a thousand lines
 * rises by well under a percent. */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure.h"
#include "timing.h"
#include "timer.h"
#include "blocks.h"

#define BASE_BYTES 2048   /* N0: the baseline starts at 2 KiB of code */
#define SAMPLE 8          /* S */
#define T_SIGMA 2.0       /* T */
#define SMOOTH 5          /* I */
#define FLOOR 0.005
#define MAX_BYTES (64ULL << 20)
#define WINDOW_PAGES 16
#define ABOVE_OPCACHE 1.5 /* the baseline starts this far past the op cache's edge */

struct loop {
	struct amp_ctx *c;
	const struct amp_level *lv;
	uint64_t line;
	unsigned jumps;
	uint64_t seed;
	int blocks;     /* units are build-time blocks (blocks.c), not lines */
};

/* Build-time blocks: time per block of the last n blocks run
 * repeatedly (X-Ray's nano-benchmark, Fig. 3: doubled until a run
 * lasts t_min; the minimum of the runs).  On the simulated machine the
 * same code is a straight run of fetches over its bytes. */
static int nano_blocks(struct loop *l, uint64_t n, double *t, char *err, size_t len)
{
	struct amp_ctx *c = l->c;
	unsigned first = (unsigned)(AMP_BLOCKS - n);
	uint64_t bytes = amp_blocks_bytes(first, err, len), times = 1;

	if (!bytes)
		return -1;
	if (c->host->sim) {
		struct amp_plan p;
		int rc;

		amp_plan_init(&p, "blocks", bytes);
		if (amp_plan_add_strided(&p, 0, 16, bytes / 16) < 0) {
			snprintf(err, len, "%s: out of memory", l->lv->name);
			return -1;
		}
		amp_plan_add_pass(&p, 0, AMP_OP_IFETCH, 2, 0);
		amp_plan_add_pass(&p, 0, AMP_OP_IFETCH, 1, 1);
		rc = amp_timing_ticks(c, &p, t, err, len);
		amp_plan_free(&p);
		*t *= (double)(bytes / 16) / (double)n;
		return rc;
	}
	amp_blocks_run(first, 2);
	for (;;) {
		uint64_t t0 = amp_ticks(), dt;

		amp_blocks_run(first, times);
		dt = amp_ticks() - t0;
		if ((double)dt >= c->t_min_ticks || times >= (1ULL << 40))
			break;
		times *= 2;
	}
	*t = INFINITY;
	for (unsigned r = 0; r < (c->reps ? c->reps : 1); r++) {
		uint64_t t0 = amp_ticks();

		amp_blocks_run(first, times);
		*t = fmin(*t, (double)(amp_ticks() - t0) / (double)times / (double)n);
	}
	c->accesses += times * n * c->reps;
	return 0;
}

/* Time per line of code of n lines. */
static int nano(struct loop *l, uint64_t n, double *t, char *err, size_t len)
{
	struct amp_plan p;
	int seq, rc;

	if (l->blocks)
		return nano_blocks(l, n, t, err, len);
	amp_plan_init(&p, "icache", n * l->line + l->line);
	p.fetch_jumps = l->jumps;
	seq = amp_plan_add_block_cycle(&p, l->line, (size_t)n, (size_t)(WINDOW_PAGES * l->c->page / l->line),
				       l->seed + n);
	if (seq < 0) {
		snprintf(err, len, "%s: out of memory for %llu lines", l->lv->name, (unsigned long long)n);
		return -1;
	}
	amp_plan_add_pass(&p, seq, AMP_OP_IFETCH, 2, 0);
	amp_plan_add_pass(&p, seq, AMP_OP_IFETCH, (unsigned)((512 + n - 1) / n), 1);
	rc = amp_timing_ticks(l->c, &p, t, err, len);
	amp_plan_free(&p);
	return rc;
}

/* The smoothed time: the minimum over the neighbourhood of n. */
static int smoothed(struct loop *l, uint64_t n, double *t, char *err, size_t len)
{
	*t = INFINITY;
	for (int d = -SMOOTH / 2; d <= SMOOTH / 2; d++) {
		double x;

		if ((int64_t)n + d < 1)
			continue;
		if (nano(l, n + (uint64_t)(int64_t)d, &x, err, len) < 0)
			return -1;
		if (x < *t)
			*t = x;
	}
	return 0;
}

/* Fig. 6 from a baseline at n0 lines: the largest N below the threshold. */
static int control(struct loop *l, uint64_t n0, uint64_t *lines, char *err, size_t len)
{
	double mu = 0, ss = 0, sigma, thr, t;
	uint64_t n, lo, hi;

	for (uint64_t i = 0; i < SAMPLE; i++) {
		if (nano(l, n0 + i, &t, err, len) < 0)
			return -1;
		mu += t;
		ss += t * t;
	}
	mu /= SAMPLE;
	sigma = sqrt(fmax(0, (ss - mu * mu * SAMPLE) / (SAMPLE - 1)));
	thr = mu + fmax(T_SIGMA * sigma, FLOOR * mu);
	for (n = n0;; n *= 2) {
		/* Build-time blocks: the last doubling stops at every block there
		 * is (the smoothing looks SMOOTH/2 further). */
		if (l->blocks && n > AMP_BLOCKS - SMOOTH / 2) {
			if (n / 2 >= AMP_BLOCKS - SMOOTH / 2) {
				snprintf(err, len, "%s: all %d build-time blocks (%llu KiB) run at the baseline's speed",
					 l->lv->name, AMP_BLOCKS,
					 (unsigned long long)(amp_blocks_bytes(0, err, len) >> 10));
				return -1;
			}
			n = AMP_BLOCKS - SMOOTH / 2;
		}
		if (n * l->line > MAX_BYTES) {
			snprintf(err, len, "%s: code of %llu KiB still runs at the baseline's speed", l->lv->name,
				 (unsigned long long)(MAX_BYTES >> 10));
			return -1;
		}
		if (smoothed(l, n, &t, err, len) < 0)
			return -1;
		if (t >= thr)
			break;
	}
	if (n == n0) {
		snprintf(err, len, "%s: the baseline itself is above its threshold", l->lv->name);
		return -1;
	}
	lo = n / 2;
	hi = n;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (smoothed(l, mid, &t, err, len) < 0)
			return -1;
		if (t >= thr)
			hi = mid;
		else
			lo = mid;
	}
	/* The minimum over N-I/2..N+I/2 first rises I/2 lines past the first
	 * N that does: the last N that fits is I/2 below lo. */
	*lines = lo > SMOOTH / 2 ? lo - SMOOTH / 2 : lo;
	return 0;
}

static int capacity_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
			 char *err, size_t len)
{
	uint64_t line = amp_param_conclusive(&lv->line) ? (uint64_t)lv->line.value : 64;
	struct loop l = { c, lv, line, c->fetch_jumps > 1 ? c->fetch_jumps : 1, c->seed + 7919ULL * v, 0 };
	uint64_t n0 = BASE_BYTES / line ? BASE_BYTES / line : 1, lines;

	if (c->insn_blocks) {
		uint64_t block = amp_blocks_bytes(AMP_BLOCKS - 1, err, len);

		if (!block)
			return -1;
		l.blocks = 1;
		l.line = 1;
		n0 = BASE_BYTES / block ? BASE_BYTES / block : 1;
		if (control(&l, n0, &lines, err, len) < 0)
			return -1;
		*value = (int64_t)amp_blocks_bytes((unsigned)(AMP_BLOCKS - lines), err, len);
		return *value > 0 ? 0 : -1;
	}
	if (c->opcache.entries > 0) {
		uint64_t above = (uint64_t)ceil(ABOVE_OPCACHE * (double)c->opcache.bytes / (double)line);

		if (above > n0)
			n0 = above;
	}
	if (control(&l, n0, &lines, err, len) < 0)
		return -1;
	*value = (int64_t)(lines * line);
	return 0;
}

static int icache_applies(const struct amp_ctx *c, const struct amp_level *lv)
{
	return lv->method == AMP_METHOD_TIMING && lv->side == AMP_SIDE_INSN && lv->level == 1;
}

static int icache_supported(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len)
{
	return 1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Three whole searches (the paper runs one); the answer is their median
 * (line-exact agreement is not expected of timing), the confidence the
 * share within AGREE of it. */
#define SEARCHES 3
#define AGREE 0.03

static int icache_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	struct amp_param *p = &lv->effective_size;
	uint64_t before = c->accesses;
	int64_t sorted[SEARCHES];
	char why[AMP_REASON_LEN] = "";
	int n = 0, agree = 0;

	memset(p, 0, sizeof *p);
	for (unsigned v = 0; v < SEARCHES; v++) {
		int64_t value;

		if (capacity_vote(c, lv, v, &value, why, sizeof why) == 0)
			p->votes[p->nvotes++] = value;
	}
	p->method = amp_method_names[lv->method];
	p->accesses = c->accesses - before;
	if (!p->nvotes) {
		amp_param_unknown(p, "%s", why);
		return 0;
	}
	memcpy(sorted, p->votes, (size_t)p->nvotes * sizeof sorted[0]);
	qsort(sorted, (size_t)p->nvotes, sizeof sorted[0], cmp_i64);
	n = p->nvotes;
	p->known = 1;
	p->value = sorted[(n - 1) / 2];
	for (int i = 0; i < n; i++)
		agree += fabs((double)p->votes[i] - (double)p->value) <= AGREE * (double)p->value;
	p->confidence = (double)agree / SEARCHES;
	if (p->confidence < c->min_confidence) {
		p->inconclusive = 1;
		snprintf(p->reason, sizeof p->reason, "searches disagree: %d of %d within %.0f%% of the median",
			 agree, SEARCHES, AGREE * 100);
	}
	return 0;
}

const struct amp_module amp_module_icache = {
	.name = "icache",
	.summary = "timing: instruction-cache capacity by the I-cache paper's control engine (threshold mu + T sigma, doubling, binary search, smoothing)",
	.kinds = 1u << AMP_KIND_CACHE,
	.fills = { AMP_FILLS(effective_size) },
	.applies = icache_applies,
	.supported = icache_supported,
	.run = icache_run,
};
