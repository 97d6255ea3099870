/* mod_icache.c - instruction-cache capacity by timing, with the control
 * engine of the I-cache paper (X-Ray, "Automatic Measurement of
 * Instruction Cache Capacity", Fig. 6).
 *
 * The nano-benchmark: a contiguous block of N lines of code, each line
 * a few jumps, run cyclically (lines of 16-page windows in random order:
 * no stride for a next-line prefetcher); its time per line.  A baseline
 * sample of S sizes just above N0 gives the typical time mu and its
 * spread sigma while everything fits; a time at or above mu + T sigma is
 * a significant rise.  N doubles from N0 until the time rises, then a
 * binary search between N/2 and N finds the largest N that does not;
 * every time is smoothed as the minimum over N-I/2..N+I/2 (isolated
 * fluctuations do not end the search early).  Capacity = N x line.
 *
 * Executable mappings refused: the same loop runs the build-time jump
 * chains (codechain.h: 64 B units, 8 jumps a unit, 4 to tell an op
 * cache's edge), or where this build has none the blocks of adds
 * (blocks.h: units are blocks, no verification).
 *
 * Op caches: the code sweep (insn_timing.c) runs with several jumps a
 * line and finds an op cache in front of the L1i by the edge that moves
 * with the jumps per line; the baseline then starts at twice that edge
 * (past its gradual overflow, with as many jumps a line), so the search
 * finds the L1i's edge, not the op cache's.  (The simulated machine has
 * none: one fetch a line.)
 *
 * Robustness (a guest under load): the baseline is the median and its
 * spread the median absolute deviation (one slow sample does not lift
 * the threshold), the threshold lies between FLOOR and CAP above mu,
 * and every edge E in run-time code is verified (verified()): a search
 * that fails is run again over other code, one stopped by an op cache
 * starts again above it; the answer comes from a last search with its
 * baseline at half the edge.  On real hardware a time counts only while
 * the machine is quiet (struct gate).
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
#include "codechain.h"
#include "util.h"

#define BASE_BYTES 2048   /* N0: the baseline starts at 2 KiB of code */
#define SAMPLE 8          /* S */
#define T_SIGMA 2.0       /* T */
#define SMOOTH 5          /* I */
#define FLOOR 0.005
#define FLOOR_REAL 0.1  /* real hardware: the plateau before the L1i's step wanders this much */
#define CAP 0.1           /* the threshold at most 10% above mu (the L1i's step is far larger) */
#define STEP 0.25         /* a verified edge: 1.25 E at least 25% slower than 0.8 E */
#define TRIES 3           /* searches per vote whose edge fails verification */
#define REBASES 3         /* searches per vote started again from a plateau below the baseline */
#define HOPS 2            /* op-cache edges passed over per vote (none found by the sweep) */
#define QUIET_WAIT_NS 8000000000ULL /* the module waits at most this long for quiet */
#define SEARCH_BUDGET_NS 8000000000ULL   /* no search starts after this, once SEARCHES_LEAST ran */
#define SEARCH_DEADLINE_NS 12000000000ULL /* nothing is timed after this */
#define MAX_BYTES (64ULL << 20)
#define WINDOW_PAGES 16
#define ABOVE_OPCACHE 2.0 /* the baseline starts this far past the op cache's edge */

/* The quiet gate (real machine, run-time code; see amp_quiet_look):
 * its reference is the first vote's baseline code. */
struct gate {
	uint64_t ref;       /* lines of the reference code */
	unsigned jumps;     /* its jumps per line */
	struct amp_quiet q;
	uint64_t deadline;  /* amp_now_ns() past which nothing is timed (icache_run) */
};

struct loop {
	struct amp_ctx *c;
	const struct amp_level *lv;
	uint64_t line;
	unsigned jumps;
	uint64_t seed;
	int built;      /* build-time code (AMP_BLOCKS_*): units are its blocks or
			 * chain units, not lines laid out at run time */
	struct gate *gate; /* NULL: every time counts */
	int rebased;    /* times a search started again from its plateau (the last verified one did, if any) */
};

/* One call of build-time code: `times` runs of the blocks of adds from
 * block `arg`, or of the last n units of the chain with `arg` jumps a
 * unit in layout `layout`. */
struct built_call {
	int kind;
	unsigned arg;
	uint64_t n;
	unsigned layout;
};

static void built_run(const struct built_call *b, uint64_t times)
{
	if (b->kind == AMP_BLOCKS_CHAINS)
		amp_codechain_run(b->arg, b->layout, (size_t)b->n, times);
	else
		amp_blocks_run(b->arg, times);
}

/* Ticks per unit of one call's code (X-Ray's nano-benchmark, Fig. 3:
 * runs doubled until a call lasts t_min; the minimum of the calls). */
static double built_ticks(struct amp_ctx *c, const struct built_call *b, uint64_t units)
{
	uint64_t times = 1;
	double t = INFINITY;

	built_run(b, 2);
	for (;;) {
		uint64_t t0 = amp_ticks(), dt;

		built_run(b, times);
		dt = amp_ticks() - t0;
		if ((double)dt >= c->t_min_ticks || times >= (1ULL << 40))
			break;
		times *= 2;
	}
	for (unsigned r = 0; r < (c->reps ? c->reps : 1); r++) {
		uint64_t t0 = amp_ticks();

		built_run(b, times);
		t = fmin(t, (double)(amp_ticks() - t0) / (double)times / (double)units);
	}
	c->accesses += times * units * c->reps;
	return t;
}

/* Build-time code on the simulated machine: a fetch every 16 B of the
 * `span` bytes at each of off[0..n-1] (as many as the code spans,
 * whatever the line), two passes to warm, one timed; ticks per unit of
 * `span` bytes. */
static int sim_built(struct loop *l, const int32_t *off, size_t n, uint64_t span, uint64_t region,
		     double *t, char *err, size_t len)
{
	struct amp_plan p;
	uint64_t *at, k = span / 16;
	int seq, rc;

	at = malloc(n * k * sizeof *at);
	if (!at) {
		snprintf(err, len, "%s: out of memory", l->lv->name);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < k; j++)
			at[i * k + j] = (uint64_t)off[i] + 16 * j;
	amp_plan_init(&p, "built", region);
	seq = amp_plan_add_seq(&p, at, n * k);
	free(at);
	if (seq < 0) {
		amp_plan_free(&p);
		snprintf(err, len, "%s: out of memory", l->lv->name);
		return -1;
	}
	amp_plan_add_pass(&p, seq, AMP_OP_IFETCH, 2, 0);
	amp_plan_add_pass(&p, seq, AMP_OP_IFETCH, 1, 1);
	rc = amp_timing_ticks(l->c, &p, t, err, len);
	amp_plan_free(&p);
	*t *= (double)k;
	return rc;
}

/* Build-time blocks of adds: time per block of the last n blocks run
 * repeatedly; on the simulated machine the same code is a straight run
 * of fetches over its bytes (one unit). */
static int nano_blocks(struct loop *l, uint64_t n, double *t, char *err, size_t len)
{
	unsigned first = (unsigned)(AMP_BLOCKS - n);
	uint64_t bytes = amp_blocks_bytes(first, err, len);
	static const int32_t start = 0;
	struct built_call b = { AMP_BLOCKS_ADDS, first, n, 0 };

	if (!bytes)
		return -1;
	if (l->c->host->sim) {
		if (sim_built(l, &start, 1, bytes / 16 * 16, bytes, t, err, len) < 0)
			return -1;
		*t /= (double)n;
		return 0;
	}
	*t = built_ticks(l->c, &b, n);
	return 0;
}

/* Build-time jump chains: time per 64 B unit of the last n units of the
 * chain with `jumps` jumps a unit, the fastest of its layouts (in the
 * simulated machine, fetches over the same units at the same offsets). */
static int nano_chain(struct loop *l, uint64_t n, unsigned jumps, double *t, char *err, size_t len)
{
	*t = INFINITY;
	if (!amp_codechain_order(jumps, 0) || n < 1 || n > AMP_CODECHAIN_UNITS) {
		snprintf(err, len, "%s: needs %llu KiB of code, more than the build-time chains' %d KiB",
			 l->lv->name, (unsigned long long)(n * AMP_CODECHAIN_UNIT >> 10),
			 AMP_CODECHAIN_UNITS * AMP_CODECHAIN_UNIT >> 10);
		return -1;
	}
	for (unsigned k = 0; k < AMP_CODECHAIN_LAYOUTS; k++) {
		const int32_t *order = amp_codechain_order(jumps, k);
		struct built_call b = { AMP_BLOCKS_CHAINS, jumps, n, k };
		double x;

		if (!l->c->host->sim)
			x = built_ticks(l->c, &b, n);
		else if (sim_built(l, order + AMP_CODECHAIN_UNITS - n, n, AMP_CODECHAIN_UNIT,
				   (uint64_t)AMP_CODECHAIN_UNITS * AMP_CODECHAIN_UNIT, &x, err, len) < 0)
			return -1;
		*t = fmin(*t, x);
	}
	return 0;
}

/* Time per line of code of n lines, `jumps` jumps a line. */
static int nano_code(struct loop *l, uint64_t n, unsigned jumps, double *t, char *err, size_t len)
{
	struct amp_plan p;
	int seq, rc;

	if (l->built == AMP_BLOCKS_ADDS)
		return nano_blocks(l, n, t, err, len);
	if (l->built == AMP_BLOCKS_CHAINS)
		return nano_chain(l, n, jumps, t, err, len);
	amp_plan_init(&p, "icache", n * l->line + l->line);
	p.fetch_jumps = jumps;
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

/* Time per line of code of n lines, through the quiet gate if any. */
static int nano(struct loop *l, uint64_t n, double *t, char *err, size_t len)
{
	struct gate *g = l->gate;

	if (!g)
		return nano_code(l, n, l->jumps, t, err, len);
	for (;;) {
		double r;

		if (amp_now_ns() > g->deadline) {
			snprintf(err, len, "%s: the capacity searches' %.0f s were spent (busy spells, or an edge not found below %llu KiB)",
				 l->lv->name, SEARCH_DEADLINE_NS / 1e9, (unsigned long long)(n * l->line >> 10));
			return -1;
		}

		if (nano_code(l, g->ref, g->jumps, &r, err, len) < 0 || nano_code(l, n, l->jumps, t, err, len) < 0)
			return -1;
		if (amp_quiet_look(&g->q, r) != AMP_QUIET_WAIT)
			return 0;
	}
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

/* The baseline at n0..n0+S-1 lines: mu is the median, sigma comes from
 * the median absolute deviation (one slow sample does not move them),
 * the threshold mu + T sigma stays between FLOOR and CAP above mu. */
static int baseline(struct loop *l, uint64_t n0, double *mu, double *thr, char *err, size_t len)
{
	double t[SAMPLE], dev[SAMPLE], sigma;

	for (uint64_t i = 0; i < SAMPLE; i++)
		if (nano(l, n0 + i, &t[i], err, len) < 0)
			return -1;
	*mu = amp_median(t, SAMPLE);
	sigma = amp_mad_sigma(t, SAMPLE, *mu, dev);
	*thr = *mu + fmin(fmax(T_SIGMA * sigma, (l->c->host->sim ? FLOOR : FLOOR_REAL) * *mu), CAP * *mu);
	return 0;
}

/* Fig. 6 from a baseline at n0 lines: the largest N below the threshold
 * thr (the baseline mu and thr returned for the verification). */
static int control(struct loop *l, uint64_t n0, uint64_t *lines, double *mu, double *thr, char *err,
		   size_t len)
{
	double t;
	uint64_t n, lo, hi;
	uint64_t most = l->built == AMP_BLOCKS_ADDS ? AMP_BLOCKS : l->built ? AMP_CODECHAIN_UNITS : 0;

	if (baseline(l, n0, mu, thr, err, len) < 0)
		return -1;
	for (n = n0;; n *= 2) {
		/* Build-time code: the last doubling stops at every unit there
		 * is (the smoothing looks SMOOTH/2 further). */
		if (most && n > most - SMOOTH / 2) {
			if (n / 2 >= most - SMOOTH / 2) {
				uint64_t bytes = l->built == AMP_BLOCKS_ADDS ? amp_blocks_bytes(0, err, len)
									     : most * AMP_CODECHAIN_UNIT;

				snprintf(err, len, "%s: all %llu KiB of build-time code run at the baseline's speed",
					 l->lv->name, (unsigned long long)(bytes >> 10));
				return -1;
			}
			n = most - SMOOTH / 2;
		}
		if (n * l->line > MAX_BYTES) {
			snprintf(err, len, "%s: code of %llu KiB still runs at the baseline's speed", l->lv->name,
				 (unsigned long long)(MAX_BYTES >> 10));
			return -1;
		}
		if (smoothed(l, n, &t, err, len) < 0)
			return -1;
		if (t >= *thr)
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
		if (t >= *thr)
			hi = mid;
		else
			lo = mid;
	}
	/* The minimum over N-I/2..N+I/2 first rises I/2 lines past the first
	 * N that does: the last N that fits is I/2 below lo. */
	*lines = lo > SMOOTH / 2 ? lo - SMOOTH / 2 : lo;
	return 0;
}

/* Smoothed times at 0.8 n and 1.25 n lines with `jumps` jumps a line. */
static int around(const struct loop *l, uint64_t n, unsigned jumps, double *below, double *above,
		  char *err, size_t len)
{
	struct loop at = *l;

	at.jumps = jumps;
	if (smoothed(&at, n * 4 / 5, below, err, len) < 0)
		return -1;
	return smoothed(&at, n + n / 4, above, err, len);
}

/* The edge of a verified step, searched again between 0.8 E and 1.25 E
 * against the plateau just below it (`below`, at 0.8 E) instead of the
 * baseline's mu:
 * - where that plateau has crept up since the baseline (an AMD Zen 4
 *   guest, 8 jumps a line: 6.0 ticks a line at 16 KiB, 6.2 at 26 KiB,
 *   6.7 at 31.9, 10 at 34.9), the threshold is raised by as much, so the
 *   slope does not end the search early (edges at 29-31 KiB there);
 * - on real hardware the threshold then comes down to ONSET above that
 *   plateau, extended along its slope from 0.8 E to 0.9 E: on a Zen 5
 *   guest the first lines past the L1i cost little (a decoupled front
 *   end prefetches them), 32 KiB of chains ran at 5.29 ticks a unit, 34
 *   KiB at 5.39, 36 at 5.79, and FLOOR_REAL alone put the edge at 36
 *   KiB.  It never lies above the raised threshold.
 * A flat plateau on the simulated machine leaves the edge as it was. */
#define ONSET 0.03

static int on_the_step(struct loop *l, uint64_t *lines, double mu, double thr, double below,
		       char *err, size_t len)
{
	uint64_t from = *lines * 4 / 5, lo = from, hi = *lines + *lines / 4, nine = *lines * 9 / 10;
	double t, slope = 0;
	int real = !l->c->host->sim;

	if (below <= mu && !real)
		return 0;
	if (below > mu)
		thr += below - mu;
	if (real && nine > lo) {
		if (smoothed(l, nine, &t, err, len) < 0)
			return -1;
		slope = fmax(0, (t - below) / (double)(nine - from));
	}
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		double at = real ? fmin(thr, (below + slope * (double)(mid - from)) * (1 + ONSET)) : thr;

		if (smoothed(l, mid, &t, err, len) < 0)
			return -1;
		if (t >= at)
			hi = mid;
		else
			lo = mid;
	}
	/* As in control(): the smoothed time rises SMOOTH/2 lines late. */
	*lines = lo > SMOOTH / 2 ? lo - SMOOTH / 2 : lo;
	return 0;
}

/* The control loop from n0 until its edge is verified: just below it
 * the baseline's plateau (under the threshold, not CAP below mu: the
 * machine did not change speed meanwhile), just above it (E + E/16) and
 * at 1.25 E over the threshold; a step of STEP across it, and (several
 * jumps a line) a step of at least STEP/2 with half the jumps.  An op cache's edge has
 * moved away with half the jumps, and one found from below (soft: an op
 * cache that overflows bit by bit) may rise by less than STEP: the
 * search starts again at twice that edge (four times a soft one), at
 * most `hops` times. */
static int verified(struct loop *l, uint64_t n0, int hops, uint64_t *lines, char *err, size_t len)
{
	/* The chains' op cache overflows at once (their 8-jump plateau
	 * starts at 1.25 times its edge on a Zen 5 guest): no soft edges. */
	int tries = 0, soft = hops > 0 && l->built != AMP_BLOCKS_CHAINS;

	for (;;) {
		double mu, thr, below, near, above, half_below, half_above;

		if (control(l, n0, lines, &mu, &thr, err, len) < 0 ||
		    around(l, *lines, l->jumps, &below, &above, err, len) < 0 ||
		    smoothed(l, *lines + *lines / 16 + SMOOTH, &near, err, len) < 0)
			return -1;
		/* near: a slow spell that ended the search early shows as a
		 * time under the threshold just past the edge found. */
		if (below < thr && below >= (1 - CAP) * mu && near >= thr && above >= thr) {
			int rises = above >= (1 + STEP) * below, moved = !rises && soft;

			if (rises && l->jumps >= 2) {
				if (around(l, *lines, l->jumps / 2, &half_below, &half_above, err, len) < 0)
					return -1;
				moved = half_above < (1 + STEP / 2) * half_below;
				/* The 4-jump chain has a small step of its own below its
				 * op cache's edge (Zen 5 guest: 1.30 ticks a unit at 8 KiB,
				 * 1.51 at 12, against 2.6 and 5.3 with 8 jumps): an edge
				 * whose step is at least halved with half the jumps moved. */
				if (l->built == AMP_BLOCKS_CHAINS)
					moved = moved || half_above / half_below - 1 < (above / below - 1) / 2;
			}
			if (rises && !moved)
				return on_the_step(l, lines, mu, thr, below, err, len);
			if (moved && hops-- > 0) {
				/* An op cache that overflows bit by bit is done within
				 * about four times where it starts. */
				n0 = (soft ? 4 : 2) * *lines;
				soft = 0; /* only the first edge found from below */
				continue;
			}
		}
		/* A plateau before the edge faster than the baseline: the
		 * baseline sat on an op cache's overflow (code it serves in
		 * part ran slower than code it does not serve at all: an AMD
		 * Zen 4 guest, 7.1-7.5 ticks a line at 10 KiB, 6.0 at 26) or in a
		 * busy spell; or past the L1i's edge, where a hop over an op
		 * cache overshot it (a Zen 3 guest: an op-cache edge at 10.8 KiB,
		 * a baseline at 43 KiB, each search's plateau 4/5 of its edge
		 * down): the search starts again from that plateau, at most
		 * REBASES times. */
		if (below < (1 - CAP) * mu && near >= thr && above >= thr && l->rebased < REBASES) {
			l->rebased++;
			n0 = *lines * 4 / 5;
			continue;
		}
		/* A slow sample stopped the search early, it ran past the edge,
		 * the machine changed speed, or the edge is an op cache's past
		 * the ones expected: search again, over other code. */
		if (++tries == TRIES) {
			snprintf(err, len, "%s: no verified edge in %d searches (the last at %llu KiB: %.2f ticks a line below, %.2f above)",
				 l->lv->name, TRIES, (unsigned long long)(*lines * l->line >> 10), below, above);
			return -1;
		}
		l->seed += 104729;
	}
}

/* The baseline's bytes: BASE_BYTES, or half the thrash tests' size
 * where that is less (a simulated 1 KiB L1i ran a 2 KiB baseline at
 * L2's speed, and every search found L2's 64 KiB). */
static uint64_t base_bytes(const struct amp_level *lv)
{
	if (amp_param_conclusive(&lv->size) && (uint64_t)lv->size.value / 2 < BASE_BYTES)
		return (uint64_t)lv->size.value / 2;
	return BASE_BYTES;
}

/* Whole units of `unit` bytes in `bytes`, at least one. */
static uint64_t units_in(uint64_t bytes, uint64_t unit)
{
	return bytes / unit ? bytes / unit : 1;
}

static int capacity_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, struct gate *g,
			 int64_t *value, char *err, size_t len)
{
	uint64_t line = amp_param_conclusive(&lv->line) ? (uint64_t)lv->line.value : 64, base = base_bytes(lv);
	struct loop l = { c, lv, line, c->fetch_jumps > 1 ? c->fetch_jumps : 1, c->seed + 7919ULL * v, 0, NULL, 0 };
	uint64_t n0 = units_in(base, line), lines, half;
	double mu, thr;

	if (c->insn_blocks == AMP_BLOCKS_ADDS) {
		uint64_t block = amp_blocks_bytes(AMP_BLOCKS - 1, err, len);

		if (!block)
			return -1;
		l.built = AMP_BLOCKS_ADDS;
		l.line = 1;
		n0 = units_in(base, block);
		if (control(&l, n0, &lines, &mu, &thr, err, len) < 0)
			return -1;
		*value = (int64_t)amp_blocks_bytes((unsigned)(AMP_BLOCKS - lines), err, len);
		return *value > 0 ? 0 : -1;
	}
	/* The chains: the same control loop and verification as code laid
	 * out at run time, in 64 B units, with the chain of 8 jumps a unit
	 * (4 where verified() looks for an op cache's edge). */
	if (c->insn_blocks == AMP_BLOCKS_CHAINS) {
		l.built = AMP_BLOCKS_CHAINS;
		l.line = AMP_CODECHAIN_UNIT;
		l.jumps = 8;
		n0 = units_in(base, l.line);
	}
	if (c->opcache.entries > 0) {
		uint64_t above = (uint64_t)ceil(ABOVE_OPCACHE * (double)c->opcache.bytes / (double)line);

		if (above > n0)
			n0 = above;
	}
	if (!c->host->sim) {
		/* The first vote's baseline is every vote's reference. */
		if (!g->ref) {
			g->ref = n0;
			g->jumps = l.jumps;
			g->q = (struct amp_quiet){ .wait_left = QUIET_WAIT_NS };
		}
		l.gate = g;
	}
	/* No op cache found by the sweep: the search may still meet one. */
	if (verified(&l, n0, l.jumps >= 2 && c->opcache.entries <= 0 ? HOPS : 0, &lines, err, len) < 0)
		return -1;
	/* The plateau before the edge need not be flat (an op cache's
	 * overflow lingers past its edge): the answer comes from a search
	 * whose baseline is at half the edge, where one verifies, unless
	 * the search already started again from the plateau below it. */
	if (!l.rebased && lines / 2 > n0 && verified(&l, lines / 2, 0, &half, err, len) == 0)
		lines = half;
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

/* The thrash tests' size (ways x way) against this capacity: code whose
 * layout an op cache serves in part can fake a way size (on this
 * project's Zen 5 guests 512 B or 2 KiB in 1 of 6 runs, where the
 * capacity search is within 3% of 32 KiB; 2 ways in busy spells).
 * Where the two disagree by more than SIZE_CHECK, the associativity, the
 * way size, the size and the line found in its sets are inconclusive;
 * the capacity stands as measured. */
#define SIZE_CHECK 0.25

void amp_icache_geometry_check(struct amp_level *lv)
{
	const struct amp_param *e = &lv->effective_size;
	double off;

	/* An inconclusive capacity still bounds it: on the PVM Zen 5 guest
	 * one run read 63 ways of 4 KiB (252 KiB, 8 votes of 8) beside
	 * searches that found 34 KiB once and failed twice. */
	if (!e->known || e->value <= 0 || !amp_param_conclusive(&lv->size))
		return;
	off = fabs((double)lv->size.value - (double)e->value) / (double)e->value;
	if (off <= SIZE_CHECK)
		return;
	struct amp_param *ps[] = { &lv->assoc, &lv->way, &lv->size, &lv->line };
	for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
		if (!ps[i]->known)
			continue;
		ps[i]->inconclusive = 1;
		snprintf(ps[i]->reason, sizeof ps[i]->reason,
			 "the thrash tests' size, %lld B (%lld ways of %lld B), is %.0f%% off the capacity search's %lld B",
			 (long long)lv->size.value, (long long)lv->assoc.value, (long long)lv->way.value,
			 off * 100, (long long)e->value);
	}
}

/* Five whole searches (the paper runs one); the answer is their median
 * (line-exact agreement is not expected of timing), the confidence the
 * share within AGREE of it (of the searches run).  On real hardware no
 * search starts once SEARCH_BUDGET_NS have gone by and at least
 * SEARCHES_LEAST have run, and nothing is timed past the deadline
 * (gate.deadline): on the Intel guest five took 9 to 11 s in most full
 * runs, 37 s in one and 184 s in another (busy spells make searches
 * wait and retry, and one that misses the edge doubles its code up to
 * MAX_BYTES). */
#define SEARCHES 5
#define SEARCHES_LEAST 3
#define AGREE 0.03

static int icache_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	struct amp_param *p = &lv->effective_size;
	uint64_t before = c->accesses;
	int64_t sorted[SEARCHES];
	struct gate g = { 0 };
	char why[AMP_REASON_LEN] = "", first_why[AMP_REASON_LEN] = "";
	int n = 0, agree = 0;
	unsigned ran, failed = 0;
	uint64_t start = amp_now_ns();

	memset(p, 0, sizeof *p);
	g.deadline = start + SEARCH_DEADLINE_NS;
	for (ran = 0; ran < SEARCHES; ran++) {
		int64_t value;
		uint64_t now = amp_now_ns();

		if (!c->host->sim &&
		    (now > g.deadline || (ran >= SEARCHES_LEAST && now - start > SEARCH_BUDGET_NS)))
			break;
		if (capacity_vote(c, lv, ran, &g, &value, why, sizeof why) == 0)
			p->votes[p->nvotes++] = value;
		else if (!failed++)
			snprintf(first_why, sizeof first_why, "%s", why);
	}
	p->method = amp_method_names[lv->method];
	p->accesses = c->accesses - before;
	/* Failed searches are counted and the first one's reason kept, as
	 * votes' (the report names them); they still count against the
	 * confidence: one search of three cannot stand for the rest. */
	p->failed = failed;
	snprintf(p->first_failure, sizeof p->first_failure, "%s", first_why);
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
	p->confidence = (double)agree / ran;
	if (p->confidence < c->min_confidence) {
		p->inconclusive = 1;
		snprintf(p->reason, sizeof p->reason, "searches disagree: %d of %u within %.0f%% of the median%s%s%s",
			 agree, ran, AGREE * 100,
			 ran < SEARCHES ? " (no more searches: their time was spent)" : "",
			 failed ? "; the first that failed: " : "", first_why);
	}
	amp_icache_geometry_check(lv);
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
