/* latency.c - the load-latency table of the report, from the timing
 * path's size/latency sweep (timing.c): every point, in ticks and in
 * nanoseconds, and main memory's latency when the sweep reached it. */
#include "config.h"
#include <stdio.h>
#include "amp.h"
#include "timer.h"
#include "timing.h"

int amp_measure_latency(struct amp_ctx *c, uint64_t max_size, struct amp_sweep *sw,
			struct amp_report *r, char *err, size_t len)
{
	const struct amp_host *host = c->host;
	double ticks_per_ns = host->sim ? 0 : amp_timer()->ticks_per_ns;

	if (amp_sweep_run(c, max_size, sw, err, len) < 0)
		return -1;
	r->sweep = sw;
	r->nlatency = 0;
	r->latency_stride = 64;
	snprintf(r->latency_method, sizeof r->latency_method, "%s", sw->method);
	for (int i = 0; i < sw->n && r->nlatency < AMP_MAX_POINTS; i++) {
		struct amp_latency_point *p = &r->latency[r->nlatency++];

		p->size = sw->size[i];
		p->ticks = sw->raw[i];
		if (host->sim)
			amp_num_unknown(&p->ns, "a simulated machine has no clock");
		else
			amp_num_set(&p->ns, p->ticks / ticks_per_ns);
	}
	if (sw->reached_memory)
		amp_num_set(&r->memory_ticks, sw->cl[sw->nclusters - 1].ticks);
	else
		amp_num_unknown(&r->memory_ticks, "the sweep (up to %llu KiB) did not reach main memory",
				(unsigned long long)(sw->n ? sw->size[sw->n - 1] >> 10 : 0));
	return 0;
}
