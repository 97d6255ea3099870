/* progress.c - one line on standard error while amp measures: the
 * phase (and which of the run's phases it is), the level and parameter
 * at work, the time so far and an estimate of what is left of the whole
 * run.  Only on a terminal: a log file or a pipe
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

#define MAX_PLAN 8

/* What a phase typically costs on a real machine (seconds; bench/bench.sh
 * on the development machine, a Zen 5 guest).  Only the proportions
 * matter once a phase has run: the run's own pace scales them. */
static const struct {
	const char *name;
	double seconds;
} typical[] = {
	{ "calibration", 0.05 }, { "latency sweep", 2.6 }, { "counters", 5.0 }, { "timing", 5.5 }, { "cpu", 5.0 },
};

static struct {
	int on;
	uint64_t t0, phase_t0, drawn;
	char phase[32];
	double fraction;       /* of the current phase */
	char what[96];
	/* The run's plan: its phases in order, the one at work, and the
	 * typical and actual time of those done (the run's pace). */
	const char *plan[MAX_PLAN];
	int nplan, at;
	double typical_done, actual_done;
} pr;

static double typical_cost(const char *name)
{
	for (size_t i = 0; i < sizeof typical / sizeof typical[0]; i++)
		if (strcmp(typical[i].name, name) == 0)
			return typical[i].seconds;
	return 1;
}

/* Seconds the run has left: this phase's rest (from its share done,
 * else its typical cost less the time spent), then the phases to come,
 * each at its typical cost times the pace of the phases done so far
 * (a simulated machine's phases take other times than a real one's). */
static double run_left(double in_phase)
{
	double pace = pr.typical_done > 0.1 ? pr.actual_done / pr.typical_done : 1, left = 0;

	if (pr.at < 0 || pr.at >= pr.nplan)
		return -1;
	if (pr.fraction > 0.02 && pr.fraction < 1)
		left = in_phase * (1 - pr.fraction) / pr.fraction;
	else
		left = fmax(0, typical_cost(pr.plan[pr.at]) * pace - in_phase);
	for (int i = pr.at + 1; i < pr.nplan; i++)
		left += typical_cost(pr.plan[i]) * pace;
	return left;
}

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
	double run = run_left(in_phase);
	char left[48] = "", step[24] = "";

	if (!force && now - pr.drawn < REDRAW_NS)
		return;
	pr.drawn = now;
	/* The whole run: elapsed and an estimate of what is left. */
	if (run >= 0)
		snprintf(left, sizeof left, ", ~%.0f s left", ceil(run));
	if (pr.at >= 0 && pr.nplan > 1)
		snprintf(step, sizeof step, " (%d/%d)", pr.at + 1, pr.nplan);
	fprintf(stderr, "\r\033[Kamp: %s%s%s%s, %.1f s elapsed%s", pr.phase, step, pr.what[0] ? ": " : "", pr.what,
		elapsed, left);
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
	pr.at = -1;
	pr.t0 = pr.phase_t0 = amp_now_ns();
	amp_trace_subscribe(on_event, NULL);
	return 1;
}

void amp_progress_plan(const char *const *phases, int n)
{
	pr.nplan = 0;
	for (int i = 0; i < n && i < MAX_PLAN; i++)
		pr.plan[pr.nplan++] = phases[i];
	pr.at = -1;
}

void amp_progress_phase(const char *name)
{
	uint64_t now = amp_now_ns();

	if (!pr.on)
		return;
	/* The phase before this one is done: the pace learns from it. */
	if (pr.at >= 0 && pr.at < pr.nplan) {
		pr.typical_done += typical_cost(pr.plan[pr.at]);
		pr.actual_done += (double)(now - pr.phase_t0) / 1e9;
	}
	for (int i = pr.at + 1; i < pr.nplan; i++)
		if (strcmp(pr.plan[i], name) == 0) {
			pr.at = i;
			break;
		}
	snprintf(pr.phase, sizeof pr.phase, "%s", name);
	pr.phase_t0 = now;
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
