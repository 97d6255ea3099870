/* pin.c - the CPU amp pins itself to: the quietest of those it may run on.
 *
 * A virtual CPU shares its core with whatever the host runs on the
 * core's other hardware thread.  On this project's Zen 5 guest one vCPU
 * went through busy spells of minutes: its core clock read 3% lower, L1
 * hits 4% slower, the sweep's L1d plateau ended at 24 to 36 KiB instead
 * of 44; runs pinned to it read L1d's 10 ways and 40 KiB in 5 of 7 (L2's
 * ways inconclusive in 4 of 5), while the 4 pinned to the other vCPU in
 * between read 12 ways and 48 KiB.  So before pinning amp times a short
 * pointer chase (8 to 256 KiB: the L1d's and L2's edges, where such a
 * spell shows) on each CPU it may use, and keeps the CPU it started on
 * unless another runs the chases clearly faster. */
#include "config.h"
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "load.h"
#include "timer.h"
#include "util.h"

#define PROBE_CPUS 16              /* at most this many CPUs probed, spread over the mask */
#define PROBE_MIN (8u << 10)       /* chase sizes: 8 KiB .. */
#define PROBE_MAX (256u << 10)     /* .. 256 KiB, two an octave */
#define PROBE_LINE 64u
#define PROBE_LOADS 16384u         /* loads per timed run (a few tens of microseconds) */
#define PROBE_RUNS 3               /* the minimum of this many runs per size, CPU and round */
#define PROBE_ROUNDS 2             /* every CPU in turn, twice: a passing spell hits all alike */
/* Other work on each CPU is read from /proc/stat over this window
 * while amp sleeps (a jiffy is 10 ms at the usual USER_HZ of 100).  The
 * chases cannot see it: each runs in a time slice of its own.  Of 4
 * `--level=L2` runs started beside a loop pinned to one vCPU of the
 * Zen 5 guest, 3 pinned themselves to that vCPU and took 18.0 to 19.7
 * s; the fourth, on the other, 10.5 s. */
#define LOAD_WINDOW_NS 50000000L

/* Whether CPU i runs other work most of the time (busy: NULL or a
 * share below 0 where not known). */
static int taken(const double *busy, int i)
{
	return busy && busy[i] >= AMP_PIN_TAKEN;
}

int amp_pin_choose(const double *score, const double *busy, int n, int current)
{
	int best = -1, any_free = 0;

	for (int i = 0; i < n; i++)
		any_free |= !taken(busy, i);
	/* A CPU busy with other work would share its time and its caches
	 * with amp: only where every CPU is does one count. */
	for (int i = 0; i < n; i++)
		if ((!any_free || !taken(busy, i)) && (best < 0 || score[i] < score[best]))
			best = i;
	if (any_free && taken(busy, current))
		return best;
	/* Equal CPUs differ by noise: move only for a clear gain. */
	return score[best] < (1 - AMP_PIN_MARGIN) * score[current] ? best : current;
}

#if defined(HAVE_SCHED_SETAFFINITY) && defined(HAVE_SCHED_GETCPU)
static void *volatile probe_sink;

/* Ticks per load of the cyclic chain from start (the fastest of runs). */
static double chase_ticks(void **start)
{
	double best = 0;

	for (int r = 0; r < PROBE_RUNS; r++) {
		void **p = start;
		uint64_t t0 = amp_ticks(), dt;

		for (unsigned i = 0; i < PROBE_LOADS; i += 8) {
			p = (void **)*p; p = (void **)*p; p = (void **)*p; p = (void **)*p;
			p = (void **)*p; p = (void **)*p; p = (void **)*p; p = (void **)*p;
		}
		dt = amp_ticks() - t0;
		probe_sink = p;
		if (r == 0 || (double)dt < best)
			best = (double)dt;
	}
	return best / PROBE_LOADS;
}

/* A cyclic chain over the first `size` bytes of buf, one pointer per
 * line, lines in random order (no prefetcher learns a stride). */
static void build_chain(char *buf, size_t size, uint64_t *order, struct amp_rng *rng)
{
	size_t n = size / PROBE_LINE;

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	amp_shuffle(order, n, rng);
	for (size_t i = 0; i < n; i++)
		*(void **)(buf + order[i] * PROBE_LINE) = buf + order[(i + 1) % n] * PROBE_LINE;
}

static int pin_to(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof one, &one);
}

int amp_pin_self(char *why, size_t len)
{
	int cpu = sched_getcpu();

	if (cpu < 0) {
		snprintf(why, len, "sched_getcpu: %s", strerror(errno));
		return -1;
	}
	if (pin_to(cpu) < 0) {
		snprintf(why, len, "sched_setaffinity: %s", strerror(errno));
		return -1;
	}
	return cpu;
}

/* Adds each CPU's ticks per load over `size` bytes to its score; -1
 * when affinity is refused on the way. */
static int probe_size(const int *cpus, int n, char *buf, size_t size, uint64_t *order, struct amp_rng *rng,
		      double *score)
{
	double best[PROBE_CPUS];

	build_chain(buf, size, order, rng);
	for (int round = 0; round < PROBE_ROUNDS; round++)
		for (int i = 0; i < n; i++) {
			double t;

			if (pin_to(cpus[i]) < 0)
				return -1;
			chase_ticks((void **)buf); /* warm this CPU's caches */
			t = chase_ticks((void **)buf);
			if (round == 0 || t < best[i])
				best[i] = t;
		}
	for (int i = 0; i < n; i++)
		score[i] += best[i];
	return 0;
}

/* Scores (summed ticks per load over the sizes) of cpus[0..n-1]. */
static int probe(const int *cpus, int n, double *score)
{
	uint64_t *order = malloc(PROBE_MAX / PROBE_LINE * sizeof *order);
	char *buf = aligned_alloc(4096, PROBE_MAX);
	struct amp_rng rng;
	int rc = -1;

	if (order && buf) {
		amp_rng_seed(&rng, 1);
		for (int i = 0; i < n; i++)
			score[i] = 0;
		rc = 0;
		for (size_t size = PROBE_MIN; size <= PROBE_MAX && rc == 0; size *= 2) {
			rc = probe_size(cpus, n, buf, size, order, &rng, score);
			if (rc == 0 && size + size / 2 <= PROBE_MAX)
				rc = probe_size(cpus, n, buf, size + size / 2, order, &rng, score);
		}
	}
	free(order);
	free(buf);
	return rc;
}

/* Each of cpus[0..n-1]'s busy share over LOAD_WINDOW_NS while amp sleeps
 * (other work; -1 where /proc/stat does not say). */
static void others_busy(const int *cpus, int n, double *busy)
{
	static struct amp_load before, after;
	const struct timespec window = { 0, LOAD_WINDOW_NS };
	int ok = amp_load_read("/proc/stat", &before) == 0;

	nanosleep(&window, NULL);
	ok = ok && amp_load_read("/proc/stat", &after) == 0;
	for (int i = 0; i < n; i++)
		busy[i] = ok ? amp_load_share(&before, &after, cpus[i]) : -1;
}

int amp_pin_quietest(char *how, size_t howlen, char *why, size_t len)
{
	static int allowed_cpus[CPU_SETSIZE];
	cpu_set_t mask;
	int cpus[PROBE_CPUS], n, allowed = 0, current, pick, at = -1;
	double score[PROBE_CPUS], busy[PROBE_CPUS], most = 0;
	char taken_note[96] = "";

	snprintf(how, howlen, "the CPU it started on");
	if (sched_getaffinity(0, sizeof mask, &mask) < 0 || (current = sched_getcpu()) < 0)
		return amp_pin_self(why, len);
	if (CPU_COUNT(&mask) < 2) {
		snprintf(how, howlen, "the only CPU it may run on");
		return amp_pin_self(why, len);
	}
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &mask))
			allowed_cpus[allowed++] = cpu;
	/* Every allowed CPU, or PROBE_CPUS of them spread evenly, always
	 * with the current one. */
	n = allowed < PROBE_CPUS ? allowed : PROBE_CPUS;
	for (int i = 0; i < n; i++) {
		cpus[i] = allowed_cpus[(long)i * allowed / n];
		if (cpus[i] == current)
			at = i;
	}
	if (at < 0)
		cpus[at = n - 1] = current;
	others_busy(cpus, n, busy);
	if (probe(cpus, n, score) < 0) {
		sched_setaffinity(0, sizeof mask, &mask);
		return amp_pin_self(why, len);
	}
	pick = amp_pin_choose(score, busy, n, at);
	if (taken(busy, at) && pick != at)
		snprintf(taken_note, sizeof taken_note, "; CPU %d where it started ran other work %.0f%% of %ld ms",
			 current, 100 * busy[at], LOAD_WINDOW_NS / 1000000);
	if (pin_to(cpus[pick]) < 0) {
		snprintf(why, len, "sched_setaffinity: %s", strerror(errno));
		sched_setaffinity(0, sizeof mask, &mask);
		return -1;
	}
	for (int i = 0; i < n; i++)
		most = score[i] > most ? score[i] : most;
	if (pick == at)
		snprintf(how, howlen, "the CPU it started on, within %.0f%% of the quietest of %d probed "
			 "(8-256 KiB chases, ticks a load summed: %.1f here, %.1f the most)",
			 AMP_PIN_MARGIN * 100, n, score[at], most);
	else
		snprintf(how, howlen, "the quietest of %d probed (8-256 KiB chases, ticks a load summed: "
			 "%.1f here, %.1f on CPU %d where it started, %.1f the most%s)",
			 n, score[pick], score[at], current, most, taken_note);
	return cpus[pick];
}
#else
int amp_pin_self(char *why, size_t len)
{
	snprintf(why, len, "CPU affinity is not supported on this system");
	return -1;
}

int amp_pin_quietest(char *how, size_t howlen, char *why, size_t len)
{
	if (howlen)
		how[0] = '\0';
	return amp_pin_self(why, len);
}
#endif
