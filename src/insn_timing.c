/* insn_timing.c - the code-size sweep (see insn_timing.h).
 *
 * The same analysis as the data sweep (timing.c: monotone curve, QT
 * clusters), on jumps: a jump per 64 B line, the lines of 16-page
 * windows in random order and the windows in random order, so a
 * next-line prefetcher finds no stride while translations are reused.
 * Its first cluster is the fastest fetch (L1i, or an op cache in front
 * of it: what the fetch sees); the second the level below. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "insn_timing.h"
#include "timer.h"

#define STRIDE 64
#define MIN_JUMPS 4096
#define WINDOW_PAGES 16
#define POINTS_PER_OCTAVE 4
#define T_MIN_NS 200000.0

static int sweep_point(struct amp_ctx *c, uint64_t size, unsigned idx, double *ticks, char *err,
		       size_t len)
{
	uint64_t n = size / STRIDE;
	unsigned times = n >= MIN_JUMPS ? 1 : (unsigned)((MIN_JUMPS + n - 1) / n);
	double save = c->t_min_ticks;
	struct amp_plan p;
	int seq, rc;

	amp_plan_init(&p, "code sweep", size);
	seq = amp_plan_add_block_cycle(&p, STRIDE, (size_t)n, (size_t)(WINDOW_PAGES * c->page / STRIDE),
				       c->seed + 0x1c0de + idx);
	if (seq < 0) {
		snprintf(err, len, "code sweep: out of memory");
		return -1;
	}
	{
		int k = getenv("AMP_JPL") ? atoi(getenv("AMP_JPL")) : 1;
		if (k > 1) {
			uint64_t *o = malloc(n * k * 8);
			for (uint64_t i = 0; i < n; i++) for (int j = 0; j < k; j++) o[i*k+j] = p.seq[seq].off[i] + j * (STRIDE / k);
			seq = amp_plan_add_seq(&p, o, n * k); free(o);
		}
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

int amp_insn_sweep_run(struct amp_ctx *c, uint64_t max_size, struct amp_sweep *sw, char *err,
		       size_t len)
{
	memset(sw, 0, sizeof *sw);
	snprintf(sw->method, sizeof sw->method,
		 "chain of jumps, one per %d B line, %d-page windows in random order, %d sizes per octave, minimum of %u runs",
		 STRIDE, WINDOW_PAGES, POINTS_PER_OCTAVE, c->reps);
	for (int k = 0; sw->n < AMP_SWEEP_MAX_POINTS; k++) {
		double x = 4096.0;
		uint64_t size;

		for (int i = 0; i < k / POINTS_PER_OCTAVE; i++)
			x *= 2;
		x *= 1.0 + (k % POINTS_PER_OCTAVE) / (double)POINTS_PER_OCTAVE;
		size = (uint64_t)x / 4096 * 4096;
		if (size > max_size)
			break;
		if (sw->n && size == sw->size[sw->n - 1])
			continue;
		if (sweep_point(c, size, (unsigned)k, &sw->raw[sw->n], err, len) < 0)
			return -1;
		sw->size[sw->n++] = size;
	}
	amp_sweep_analyse(sw);
	return 0;
}

void amp_insn_levels_fill(struct amp_ctx *c, const struct amp_sweep *sw)
{
	for (int i = 0; i < c->nlv; i++) {
		struct amp_level *lv = &c->lv[i];

		if (lv->side != AMP_SIDE_INSN || lv->kind != AMP_KIND_CACHE || lv->level != 1)
			continue;
		if (sw->nclusters < 2) {
			snprintf(lv->nc_reason, sizeof lv->nc_reason,
				 "the code sweep (up to %llu KiB) shows no level below the fastest fetch",
				 (unsigned long long)(sw->n ? sw->size[sw->n - 1] >> 10 : 0));
			continue;
		}
		lv->measurable = 1;
		lv->hit_ticks = sw->cl[0].ticks;
		lv->next_ticks = sw->cl[1].ticks;
		/* What timing does not measure on this side says why. */
		amp_param_unknown(&lv->write_allocate, "code is not written");
		amp_param_unknown(&lv->replacement, "needs miss counters (timing does not measure it in this version)");
		amp_param_unknown(&lv->inclusion, "needs miss counters (timing does not measure it in this version)");
	}
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
