/* timer.c - calibration of the cycle timer. */
#include <stddef.h>
#include "timer.h"

static const char *timer_source(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return "rdtsc";
#elif defined(__aarch64__)
	return "cntvct_el0";
#else
	return "clock_gettime";
#endif
}

int amp_timer_calibrate(struct amp_timer_cal *cal)
{
	uint64_t best_overhead = UINT64_MAX, best_res = UINT64_MAX;

	cal->source = timer_source();
	for (int i = 0; i < 2000; i++) {
		uint64_t a = amp_ticks(), b = amp_ticks();
		if (b - a < best_overhead)
			best_overhead = b - a;
		/* Resolution: spin until the value changes. */
		uint64_t c = amp_ticks(), d;
		int spins = 0;
		while ((d = amp_ticks()) == c && spins++ < 100000)
			;
		if (d != c && d - c < best_res)
			best_res = d - c;
	}
	/* Rate: ticks over about 20 ms of the monotonic clock, best of 3
	 * (a preemption only lengthens one of them). */
	double rate = 0;
	for (int k = 0; k < 3; k++) {
		uint64_t n0 = amp_now_ns(), t0 = amp_ticks(), n1, t1;
		do {
			n1 = amp_now_ns();
		} while (n1 - n0 < 7000000);
		t1 = amp_ticks();
		double r = (double)(t1 - t0) / (double)(n1 - n0);
		if (k == 0 || r < rate)
			rate = r;
	}
	cal->ticks_per_ns = rate;
	cal->overhead_ticks = best_overhead == UINT64_MAX ? 0 : (double)best_overhead;
	cal->resolution_ticks = best_res == UINT64_MAX ? 0 : (double)best_res;
	return rate > 0 && best_res != UINT64_MAX ? 0 : -1;
}

const struct amp_timer_cal *amp_timer(void)
{
	static struct amp_timer_cal cal;
	static int done;

	if (!done) {
		amp_timer_calibrate(&cal);
		done = 1;
	}
	return &cal;
}
