/* latency.c - load latency against working-set size.
 *
 * For each size (4 KiB doubling up to max_size) one pointer chain visits
 * a load slot every `stride` bytes in random cyclic order, so stride
 * prefetchers cannot run ahead (X-Ray 4.4.3, BlackjackBench 3).  A first
 * unmeasured walk warms the caches; the measured walks are repeated
 * until they last at least T_MIN (X-Ray's doubling of R), and the
 * minimum over repetitions is kept. */
#include "config.h"
#include <stdio.h>
#include "amp.h"
#include "plan.h"
#include "timer.h"

#define LATENCY_STRIDE 64
#define T_MIN_NS 2000000.0      /* 2 ms per measured run */
#define MIN_LOADS 4096

static int latency_point(const struct amp_host *host, uint64_t size, unsigned reps,
			 uint64_t seed, double *ticks_per_load, char *err, size_t len)
{
	const struct amp_timer_cal *cal = amp_timer();
	uint64_t n = size / LATENCY_STRIDE;
	unsigned times = n >= MIN_LOADS ? 1 : (unsigned)((MIN_LOADS + n - 1) / n);
	struct amp_plan plan;
	struct amp_run_result res;
	int seq, rc;

	for (;;) {
		amp_plan_init(&plan, "latency", size);
		plan.huge = 1;
		seq = amp_plan_add_random_cycle(&plan, LATENCY_STRIDE, n, seed);
		if (seq < 0) {
			snprintf(err, len, "latency: out of memory");
			return -1;
		}
		amp_plan_add_pass(&plan, seq, AMP_OP_LOAD, 1, 0);
		amp_plan_add_pass(&plan, seq, AMP_OP_LOAD, times, 1);
		/* The simulated machine is exact: one run is enough. */
		rc = amp_run(&plan, host, NULL, host->sim ? 1 : reps, &res, err, len);
		amp_plan_free(&plan);
		if (rc < 0)
			return -1;
		if (host->sim || (double)res.ticks_min / cal->ticks_per_ns >= T_MIN_NS || times >= 1u << 20)
			break;
		times *= 2;
	}
	*ticks_per_load = (double)res.ticks_min / (double)res.accesses;
	return 0;
}

int amp_measure_latency(const struct amp_host *host, uint64_t max_size, unsigned reps,
			uint64_t seed, struct amp_report *r, char *err, size_t len)
{
	const struct amp_timer_cal *cal = amp_timer();

	r->nlatency = 0;
	r->latency_stride = LATENCY_STRIDE;
	snprintf(r->latency_method, sizeof r->latency_method,
		 "random cyclic pointer chase, one load per %d B, minimum of %u runs of at least %.0f ms",
		 LATENCY_STRIDE, host->sim ? 1 : reps, host->sim ? 0 : T_MIN_NS / 1e6);
	if (host->sim)
		snprintf(r->latency_method, sizeof r->latency_method,
			 "random cyclic pointer chase, one load per %d B, simulated cycles", LATENCY_STRIDE);
	for (uint64_t size = 4096; size <= max_size && r->nlatency < AMP_MAX_POINTS; size *= 2) {
		struct amp_latency_point *p = &r->latency[r->nlatency];
		double t;

		if (latency_point(host, size, reps, seed + (uint64_t)r->nlatency, &t, err, len) < 0)
			return -1;
		p->size = size;
		p->ticks = t;
		if (host->sim)
			amp_num_unknown(&p->ns, "a simulated machine has no clock");
		else
			amp_num_set(&p->ns, t / cal->ticks_per_ns);
		r->nlatency++;
	}
	return 0;
}
