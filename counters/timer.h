/* timer.h - the cycle timer every timing measurement uses: rdtsc on
 * x86-64, cntvct_el0 on aarch64, clock_gettime(CLOCK_MONOTONIC_RAW)
 * elsewhere, and its calibration (tick rate, resolution, overhead). */
#ifndef AMP_TIMER_H
#define AMP_TIMER_H

#include <stdint.h>
#include <time.h>

static inline uint64_t amp_now_ns(void)
{
	struct timespec ts;
#ifdef CLOCK_MONOTONIC_RAW
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
#else
	clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One timer read.  The lfence before rdtsc waits for earlier
 * instructions to finish, so the loads being timed are not left outside
 * the bracket; the one after keeps later ones from starting before it
 * (a single timed load, as in an eviction test, would otherwise be
 * issued early).  Not rdtscp, which orders the same way: a Zen 5
 * Firecracker guest's CPUID hides RDTSCP (the instruction still runs
 * there, but valgrind then refuses it, and a CPU without it would
 * raise SIGILL); rdtsc is in every x86-64. */
static inline uint64_t amp_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;
	__asm__ __volatile__("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
#else
	return amp_now_ns();
#endif
}

struct amp_timer_cal {
	const char *source;      /* "rdtsc", "cntvct_el0", "clock_gettime" */
	double ticks_per_ns;     /* measured against CLOCK_MONOTONIC_RAW */
	double resolution_ticks; /* smallest non-zero difference of two reads */
	double overhead_ticks;   /* smallest cost of one read-read pair */
};

/* Measures the timer (takes about 20 ms); 0, or -1 when the timer does
 * not advance (then the fields hold what could be seen). */
int amp_timer_calibrate(struct amp_timer_cal *cal);
/* The calibration of this process, done once on first use. */
const struct amp_timer_cal *amp_timer(void);

#endif
