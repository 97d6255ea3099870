/* counters.c - the uniform events, the backend list and the set API. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "counters.h"

const struct amp_event_info amp_event_table[AMP_EV_COUNT] = {
	{ AMP_EV_L1D_MISS, "L1D_MISS", "level-1 data cache misses" },
	{ AMP_EV_L1I_MISS, "L1I_MISS", "level-1 instruction cache misses" },
	{ AMP_EV_L2D_MISS, "L2D_MISS", "level-2 cache misses by data accesses" },
	{ AMP_EV_L2I_MISS, "L2I_MISS", "level-2 cache misses by instruction fetches" },
	{ AMP_EV_L2_MISS, "L2_MISS", "level-2 cache misses, data and instruction" },
	{ AMP_EV_L3_MISS, "L3_MISS", "level-3 (last-level) cache misses" },
	{ AMP_EV_L4_MISS, "L4_MISS", "level-4 cache misses" },
	{ AMP_EV_DTLB_MISS, "DTLB_MISS", "level-1 data TLB misses" },
	{ AMP_EV_STLB_MISS, "STLB_MISS", "second-level (shared) TLB misses" },
	{ AMP_EV_ITLB_MISS, "ITLB_MISS", "instruction TLB misses" },
	{ AMP_EV_ITLB_WALK, "ITLB_WALK", "instruction fetches that missed every TLB level (page walks)" },
	{ AMP_EV_LOADS, "LOADS", "load instructions" },
	{ AMP_EV_STORES, "STORES", "store instructions" },
	{ AMP_EV_CYCLES, "CYCLES", "cycles (or timer ticks, as the backend says)" },
};

int amp_event_lookup(const char *name)
{
	for (int i = 0; i < AMP_EV_COUNT; i++)
		if (strcasecmp(name, amp_event_table[i].name) == 0)
			return i;
	return -1;
}

/* Explicit list, not constructor registration: a constructor in an
 * unreferenced object of a static library is dropped by the linker. */
const struct amp_backend_ops *const amp_backends[] = {
	&amp_backend_perf,
#ifdef HAVE_PAPI
	&amp_backend_papi,
#endif
	&amp_backend_timer,
	&amp_backend_sim,
	NULL
};

const struct amp_backend_ops *amp_backend_find(const char *name)
{
	for (int i = 0; amp_backends[i]; i++)
		if (strcmp(amp_backends[i]->name, name) == 0)
			return amp_backends[i];
	return NULL;
}

const struct amp_backend_ops *amp_backend_choose(const struct amp_host *host,
						 char *why, size_t len)
{
	const struct amp_backend_ops *best = NULL;
	char reasons[4 * AMP_REASON_LEN] = "";

	if (host->sim) {
		snprintf(why, len, "a simulated machine was asked for (--sim)");
		return &amp_backend_sim;
	}
	for (int i = 0; amp_backends[i]; i++) {
		const struct amp_backend_ops *b = amp_backends[i];
		char r[AMP_REASON_LEN];

		if (!b->auto_select)
			continue;
		if (b->probe(host, r, sizeof r)) {
			if (!best || b->priority > best->priority)
				best = b;
		} else {
			size_t used = strlen(reasons);
			snprintf(reasons + used, sizeof reasons - used, "%s%s: %s",
				 used ? "; " : "", b->name, r);
		}
	}
	if (best && reasons[0])
		snprintf(why, len, "best usable backend (%s)", reasons);
	else if (best)
		snprintf(why, len, "best usable backend");
	else
		snprintf(why, len, "no usable backend (%s)", reasons);
	return best;
}

int amp_cset_open(struct amp_cset *set, const struct amp_backend_ops *ops,
		  const struct amp_host *host, const enum amp_event *ev, int n,
		  char *err, size_t len)
{
	memset(set, 0, sizeof *set);
	if (n < 0 || n > AMP_MAX_SET) {
		snprintf(err, len, "%s: at most %d events in one set", ops->name, AMP_MAX_SET);
		return -1;
	}
	set->ops = ops;
	set->host = host;
	set->n = n;
	for (int i = 0; i < n; i++)
		set->ev[i] = ev[i];
	if (ops->open(set, err, len) < 0) {
		set->ops = NULL;
		return -1;
	}
	return 0;
}

int amp_cset_start(struct amp_cset *set)
{
	return set->ops->start(set);
}

int amp_cset_stop(struct amp_cset *set)
{
	return set->ops->stop(set);
}

int amp_cset_read(struct amp_cset *set, uint64_t *values)
{
	return set->ops->read(set, values);
}

void amp_cset_close(struct amp_cset *set)
{
	if (set->ops)
		set->ops->close(set);
	set->ops = NULL;
}
