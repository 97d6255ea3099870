/* insn_timing.c - the code-size sweep (see insn_timing.h).
 *
 * A chain of jumps, the lines of 16-page windows in random order and the
 * windows in random order (no stride for a next-line prefetcher, while
 * translations are reused); time per line against the code's size.
 *
 * Op caches (decoded-uop caches): each taken jump ends an op-cache entry,
 * so with k jumps a line an op cache covers k times less code while the
 * L1i still holds the same bytes.  On real hardware the sweep runs with
 * AMP_INSN_JUMPS jumps a line (the op cache overflows far below any L1i)
 * and again with a quarter as many up to OPCACHE_SWEEP_MAX: the first edge
 * that moves (by OPCACHE_MOVE or more) is an op cache of about
 * edge/line x jumps entries; the L1i is the level after it.  The
 * simulated machine has no op cache (one fetch per line there). */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "insn_timing.h"
#include "timer.h"
#include "jumpchain.h"
#include "blocks.h"
#include "codechain.h"
#include "util.h"

#define STRIDE 64
#define MIN_LINES 4096
#define WINDOW_PAGES 16
#define POINTS_PER_OCTAVE 4
#define T_MIN_NS 200000.0
#define RISE 0.3                    /* a step: 30% above the plateau before it */
#define OPCACHE_MOVE 1.5
#define OPCACHE_SWEEP_MAX (64ULL << 10)
#define OPCACHE_PASSES 3             /* its sweep: the minimum of passes at different times */

static int sweep_point(struct amp_ctx *c, uint64_t size, unsigned idx, unsigned jumps, double *ticks,
		       char *err, size_t len)
{
	uint64_t n = size / STRIDE;
	unsigned times = n >= MIN_LINES ? 1 : (unsigned)((MIN_LINES + n - 1) / n);
	double save = c->t_min_ticks;
	struct amp_plan p;
	int seq, rc;

	amp_plan_init(&p, "code sweep", size);
	p.fetch_jumps = jumps;
	seq = amp_plan_add_block_cycle(&p, STRIDE, (size_t)n, (size_t)(WINDOW_PAGES * c->page / STRIDE),
				       c->seed + 0x1c0de + idx);
	if (seq < 0) {
		snprintf(err, len, "code sweep: out of memory");
		return -1;
	}
	amp_plan_add_pass(&p, seq, AMP_OP_IFETCH, 2, 0);
	amp_plan_add_pass(&p, seq, AMP_OP_IFETCH, times, 1);
	if (!c->host->sim)
		c->t_min_ticks = T_MIN_NS * amp_timer()->ticks_per_ns;
	rc = amp_timing_ticks(c, &p, ticks, err, len);
	c->t_min_ticks = save;
	amp_plan_free(&p);
	return rc;
}

static int run_sweep(struct amp_ctx *c, uint64_t max_size, unsigned jumps, struct amp_sweep *sw,
		     char *err, size_t len)
{
	memset(sw, 0, sizeof *sw);
	snprintf(sw->method, sizeof sw->method,
		 "chain of jumps, %u per %d B line, %d-page windows in random order, %d sizes per octave, minimum of %u runs",
		 jumps, STRIDE, WINDOW_PAGES, POINTS_PER_OCTAVE, c->reps);
	for (int k = 0; sw->n < AMP_SWEEP_MAX_POINTS; k++) {
		double x = 4096.0;
		uint64_t size;

		for (int i = 0; i < k / POINTS_PER_OCTAVE; i++)
			x *= 2;
		x *= 1.0 + (k % POINTS_PER_OCTAVE) / (double)POINTS_PER_OCTAVE;
		size = (uint64_t)x / 1024 * 1024;
		if (size > max_size)
			break;
		if (sw->n && size == sw->size[sw->n - 1])
			continue;
		if (sweep_point(c, size, (unsigned)k, jumps, &sw->raw[sw->n], err, len) < 0)
			return -1;
		sw->size[sw->n++] = size;
	}
	amp_insn_sweep_analyse(sw);
	return 0;
}

static double median_of(const double *v, int a, int b)
{
	double tmp[AMP_SWEEP_MAX_POINTS];
	int n = b - a + 1;

	memcpy(tmp, v + a, (size_t)n * sizeof *tmp);
	qsort(tmp, (size_t)n, sizeof *tmp, amp_cmp_double);
	return tmp[(n - 1) / 2];
}

/* Plateaus of the monotone curve: a new one starts at the first point
 * RISE above the start of the current one.  (Code fetched from L2 is
 * often under twice as slow as from L1i, too close for the data sweep's
 * clusters.)  The monotone curve takes at each size the fastest time
 * that two sizes in a row reach from there on, not the slowest before
 * it: code that an op cache serves in part can run slower than code it
 * does not serve at all (an AMD Zen 4 guest, 8 jumps a line: 8.7 ticks
 * a line at 8 KiB, 6.0 from 12 to 32 KiB, 9.0 at 40), and a running
 * maximum made that bump the L1i's plateau; one fast size alone (a
 * lucky layout) does not pull the sizes before it down. */
void amp_insn_sweep_analyse(struct amp_sweep *sw)
{
	int start = 0;

	for (int i = sw->n - 1; i >= 0; i--) {
		double pair = i ? fmax(sw->raw[i - 1], sw->raw[i]) : sw->raw[i];

		sw->ticks[i] = i + 1 < sw->n && sw->ticks[i + 1] < pair ? sw->ticks[i + 1] : pair;
	}
	sw->nclusters = 0;
	for (int i = 0; i <= sw->n && sw->n; i++) {
		if (i < sw->n && sw->ticks[i] < (1 + RISE) * sw->ticks[start])
			continue;
		if (sw->nclusters < AMP_SWEEP_MAX_CLUSTERS) {
			int k = sw->nclusters++;

			sw->cl[k].first = start;
			sw->cl[k].last = i - 1;
			sw->cl[k].fits = i - 1;
			sw->cl[k].ticks = median_of(sw->ticks, start, i - 1);
		}
		start = i;
	}
}

/* Code size of the first edge: the last size before the raw curve's
 * running maximum first rises RISE above its start.  An op cache shows
 * there either way: where the code it serves runs faster than the rest
 * (a plateau), or slower where it serves it in part (the bump the
 * levels pass over). */
static uint64_t first_edge(const struct amp_sweep *sw)
{
	double top = 0;

	for (int i = 0; i < sw->n; i++) {
		top = fmax(top, sw->raw[i]);
		if (i && top >= (1 + RISE) * sw->raw[0])
			return sw->size[i - 1];
	}
	return 0;
}

/* More passes over the sizes up to max (those of sw's first pass kept):
 * an SMT sibling shares the op cache and the L1i, and a burst of its
 * code shrinks ours for a while, so each size keeps its fastest pass. */
static int min_passes(struct amp_ctx *c, uint64_t max, unsigned jumps, int passes, struct amp_sweep *sw,
		      char *err, size_t len)
{
	static struct amp_sweep again;

	for (int pass = 0; pass < passes; pass++) {
		if (pass == 0 && sw->n == 0) {
			if (run_sweep(c, max, jumps, sw, err, len) < 0)
				return -1;
			continue;
		}
		if (run_sweep(c, max, jumps, &again, err, len) < 0)
			return -1;
		for (int i = 0; i < again.n && i < sw->n; i++)
			if (again.raw[i] < sw->raw[i])
				sw->raw[i] = again.raw[i];
	}
	amp_insn_sweep_analyse(sw);
	return 0;
}

int amp_insn_sweep_run(struct amp_ctx *c, uint64_t max_size, struct amp_sweep *sw, char *err,
		       size_t len)
{
	static struct amp_sweep half;

	half.n = 0;
	unsigned k = c->host->sim ? 1 : AMP_INSN_JUMPS;

	memset(&c->opcache, 0, sizeof c->opcache);
	c->fetch_jumps = k;
	if (run_sweep(c, max_size, k, sw, err, len) < 0)
		return -1;
	if (k >= 2 && min_passes(c, OPCACHE_SWEEP_MAX, k, OPCACHE_PASSES - 1, sw, err, len) < 0)
		return -1;
	if (k < 2 || sw->nclusters < 2)
		return 0;
	if (min_passes(c, OPCACHE_SWEEP_MAX < max_size ? OPCACHE_SWEEP_MAX : max_size, k / 4, OPCACHE_PASSES,
		       &half, err, len) < 0)
		return -1;
	if (first_edge(&half) >= OPCACHE_MOVE * (double)first_edge(sw)) {
		c->opcache.bytes = first_edge(sw);
		c->opcache.entries = (double)(first_edge(sw) / STRIDE) * k;
		snprintf(c->opcache.method, sizeof c->opcache.method,
			 "timing: the code sweep's first edge, %llu KiB at %u jumps per %d B line, moved to %llu KiB at %u (each taken jump ends an entry)",
			 (unsigned long long)(first_edge(sw) >> 10), k, STRIDE,
			 (unsigned long long)(first_edge(&half) >> 10), k / 4);
	}
	return 0;
}

uint64_t amp_insn_min_stride(const struct amp_ctx *c, const struct amp_level *lv)
{
	uint64_t span = 1;

	if (lv->side != AMP_SIDE_INSN || c->fetch_jumps < 2)
		return 1;
	while (span < c->fetch_jumps * amp_jumpchain_min_gap())
		span *= 2;
	return span;
}

void amp_insn_levels_fill(struct amp_ctx *c, const struct amp_sweep *sw)
{
	/* With an op cache in front, the L1i is the first plateau that
	 * goes on past the op cache's edge (the second where the op cache
	 * serves its code faster, the first where it does not). */
	int l1 = 0;

	while (c->opcache.entries > 0 && l1 + 1 < sw->nclusters && sw->size[sw->cl[l1].fits] <= c->opcache.bytes)
		l1++;

	for (int i = 0; i < c->nlv; i++) {
		struct amp_level *lv = &c->lv[i];

		if (lv->side != AMP_SIDE_INSN || lv->kind != AMP_KIND_CACHE || lv->level != 1)
			continue;
		snprintf(lv->code, sizeof lv->code, "jump chains, %u per line (run-time code)",
			 c->fetch_jumps > 1 ? c->fetch_jumps : 1);
		if (sw->nclusters < l1 + 2) {
			snprintf(lv->nc_reason, sizeof lv->nc_reason,
				 "the code sweep (up to %llu KiB) shows no level below the fastest fetch%s",
				 (unsigned long long)(sw->n ? sw->size[sw->n - 1] >> 10 : 0),
				 l1 ? " and the op cache" : "");
			continue;
		}
		lv->measurable = 1;
		lv->hit_ticks = sw->cl[l1].ticks;
		lv->next_ticks = sw->cl[l1 + 1].ticks;
		/* What timing does not measure on this side says why. */
		amp_param_unknown(&lv->write_allocate, "code is not written");
		amp_param_unknown(&lv->replacement, AMP_WHY_REPLACEMENT_TIMING);
		amp_param_unknown(&lv->inclusion, "nothing above it");
	}
}

void amp_insn_blocks_fill(struct amp_ctx *c, int kind, const char *why)
{
	if (kind == AMP_BLOCKS_CHAINS && !amp_codechain_have())
		kind = AMP_BLOCKS_ADDS;
	c->insn_blocks = kind;
	for (int i = 0; i < c->nlv; i++) {
		struct amp_level *lv = &c->lv[i];

		if (lv->side != AMP_SIDE_INSN || lv->kind != AMP_KIND_CACHE || lv->level != 1)
			continue;
		lv->measurable = 1;
		if (kind == AMP_BLOCKS_CHAINS)
			snprintf(lv->code, sizeof lv->code,
				 "build-time blocks (jump chains compiled into amp: %d KiB, 8 and 4 jumps per 64 B, %d layouts): %.60s",
				 AMP_CODECHAIN_UNITS * AMP_CODECHAIN_UNIT >> 10, AMP_CODECHAIN_LAYOUTS, why);
		else
			snprintf(lv->code, sizeof lv->code, "build-time blocks (%d blocks of adds, sizes by &&label): %.40s",
				 AMP_BLOCKS, why);
		amp_param_unknown(&lv->write_allocate, "code is not written");
		amp_param_unknown(&lv->replacement, AMP_WHY_REPLACEMENT_TIMING);
		amp_param_unknown(&lv->inclusion, "nothing above it");
	}
}

int amp_insn_blocks_refusal(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len)
{
	if (!c->insn_blocks || lv->side != AMP_SIDE_INSN)
		return 0;
	snprintf(why, len, "needs code laid out at run time (executable mappings are refused; the build-time blocks give the capacity only)");
	return 1;
}

void amp_insn_unreached(struct amp_ctx *c, enum amp_level_kind kind, const char *why)
{
	for (int i = 0; i < c->nlv; i++) {
		struct amp_level *lv = &c->lv[i];

		if (lv->side == AMP_SIDE_INSN && lv->kind == kind) {
			lv->measurable = 0;
			snprintf(lv->nc_reason, sizeof lv->nc_reason, "no code could be run: %s", why);
		}
	}
}
