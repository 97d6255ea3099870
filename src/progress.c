/* progress.c - one line on standard error while amp measures: the
 * phase, the level and parameter at work, the time so far and an
 * estimate of what is left.  Only on a terminal: a log file or a pipe
 * gets nothing of it. */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "measure.h"
#include "progress.h"
#include "timer.h"
#include "trace.h"

#define REDRAW_NS 100000000ull /* at most ten lines a second */

static struct {
	int on;
	uint64_t t0, phase_t0, drawn;
	char phase[32];
	double fraction;       /* of the current phase */
	char what[96];
} pr;

static int module_index(const struct amp_module *m, int *count)
{
	int i, at = 0;

	for (i = 0; amp_modules[i]; i++)
		if (amp_modules[i] == m)
			at = i;
	*count = i;
	return at;
}

static void draw(int force)
{
	uint64_t now = amp_now_ns();
	double elapsed = (double)(now - pr.t0) / 1e9, in_phase = (double)(now - pr.phase_t0) / 1e9;
	char left[48] = "";

	if (!force && now - pr.drawn < REDRAW_NS)
		return;
	pr.drawn = now;
	/* Time left in this phase, from its share done so far. */
	if (pr.fraction > 0.02 && pr.fraction < 1)
		snprintf(left, sizeof left, ", ~%.0f s left in it", in_phase * (1 - pr.fraction) / pr.fraction);
	fprintf(stderr, "\r\033[Kamp: %s%s%s, %.1f s%s", pr.phase, pr.what[0] ? ": " : "", pr.what, elapsed, left);
	fflush(stderr);
}

static void on_event(const struct amp_trace_ev *e, void *arg)
{
	int count, at;

	switch (e->kind) {
	case AMP_TR_SWEEP:
		/* Sizes grow geometrically: the share done is in octaves. */
		pr.fraction = e->stride > 4096 && e->region > 4096
				      ? log2((double)e->region / 4096) / log2((double)e->stride / 4096)
				      : 0;
		snprintf(pr.what, sizeof pr.what, "working set %llu KiB", (unsigned long long)(e->region >> 10));
		break;
	case AMP_TR_MODULE:
		at = module_index(e->module, &count);
		pr.fraction = count ? (double)at / count : 0;
		snprintf(pr.what, sizeof pr.what, "%s %s", e->lv->name, e->module->name);
		break;
	case AMP_TR_VOTE:
		snprintf(pr.what, sizeof pr.what, "%s %s, vote %u of %u", e->lv->name,
			 e->param ? e->param : e->module ? e->module->name : "", e->vote + 1, e->votes);
		break;
	default:
		return;
	}
	draw(0);
}

int amp_progress_start(int quiet)
{
	memset(&pr, 0, sizeof pr);
	if (quiet || !isatty(STDERR_FILENO))
		return 0;
	pr.on = 1;
	pr.t0 = pr.phase_t0 = amp_now_ns();
	amp_trace_subscribe(on_event, NULL);
	return 1;
}

void amp_progress_phase(const char *name)
{
	if (!pr.on)
		return;
	snprintf(pr.phase, sizeof pr.phase, "%s", name);
	pr.phase_t0 = amp_now_ns();
	pr.fraction = 0;
	pr.what[0] = '\0';
	draw(1);
}

void amp_progress_clear(void)
{
	if (pr.on) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}

void amp_progress_stop(void)
{
	if (!pr.on)
		return;
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
	pr.on = 0;
}
