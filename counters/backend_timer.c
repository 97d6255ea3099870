/* backend_timer.c - the lowest-priority backend: no miss counters, only
 * time.  It is what the timing algorithms run on where no PMU is. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include "counters.h"
#include "timer.h"

struct timer_state {
	uint64_t t0, total;
};

static int timer_probe(const struct amp_host *host, char *why, size_t len)
{
	const struct amp_timer_cal *cal = amp_timer();

	if (cal->ticks_per_ns <= 0) {
		snprintf(why, len, "%s does not advance", cal->source);
		return 0;
	}
	snprintf(why, len, "%s at %.0f MHz", cal->source, cal->ticks_per_ns * 1000.0);
	return 1;
}

static int timer_event_info(const struct amp_host *host, enum amp_event ev,
			    char *what, size_t len)
{
	const struct amp_timer_cal *cal = amp_timer();

	if (ev != AMP_EV_CYCLES) {
		snprintf(what, len, "the timer counts time only; misses need perf, papi or --sim");
		return 0;
	}
	snprintf(what, len, "%s ticks (%.0f MHz measured; a constant-rate clock, not core cycles)",
		 cal->source, cal->ticks_per_ns * 1000.0);
	return 1;
}

static int timer_open(struct amp_cset *set, char *err, size_t len)
{
	for (int i = 0; i < set->n; i++)
		if (set->ev[i] != AMP_EV_CYCLES) {
			snprintf(err, len, "timer: cannot count %s (the timer counts time only)",
				 amp_event_table[set->ev[i]].name);
			return -1;
		}
	set->priv = calloc(1, sizeof(struct timer_state));
	if (!set->priv) {
		snprintf(err, len, "timer: out of memory");
		return -1;
	}
	return 0;
}

static int timer_start(struct amp_cset *set)
{
	struct timer_state *s = set->priv;

	s->total = 0;
	s->t0 = amp_ticks();
	return 0;
}

static int timer_stop(struct amp_cset *set)
{
	struct timer_state *s = set->priv;

	s->total += amp_ticks() - s->t0;
	return 0;
}

static int timer_read(struct amp_cset *set, uint64_t *values)
{
	struct timer_state *s = set->priv;

	for (int i = 0; i < set->n; i++)
		values[i] = s->total;
	return 0;
}

static void timer_close(struct amp_cset *set)
{
	free(set->priv);
	set->priv = NULL;
}

const struct amp_backend_ops amp_backend_timer = {
	.name = "timer",
	.summary = "cycle timer only (rdtsc / cntvct / clock_gettime); the timing fallback",
	.priority = 10,
	.auto_select = 1,
	.probe = timer_probe,
	.event_info = timer_event_info,
	.open = timer_open,
	.start = timer_start,
	.stop = timer_stop,
	.read = timer_read,
	.close = timer_close,
};
