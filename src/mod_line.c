/* mod_line.c - line size of a cache, page size of a TLB (AMP 3.1, 3.10):
 * touch every small step of an uncached region once; each line (page)
 * misses once, so bytes per miss is the line (page) size, rounded to the
 * nearest power of two. */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include "measure.h"
#include "trace.h"

#define CACHE_REGION (64u << 10)   /* 256..4096 misses for 256..16 B lines */
#define CACHE_STEP 8
#define TLB_REGION (64u << 20)     /* 32 misses even for 2 MiB pages */
#define TLB_STEP 1024

static int line_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		     char *err, size_t len)
{
	int tlb = lv->kind == AMP_KIND_TLB;
	uint64_t region = tlb ? TLB_REGION : CACHE_REGION, step = tlb ? TLB_STEP : CACHE_STEP;
	struct amp_plan p;
	double misses;
	int rc;

	amp_plan_init(&p, "line", region);
	p.huge = 0; /* huge pages would hide the page size */
	if (amp_plan_add_strided(&p, 0, step, region / step) < 0) {
		snprintf(err, len, "%s: out of memory", lv->name);
		return -1;
	}
	amp_plan_add_pass(&p, AMP_PLAN_WHOLE_REGION, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(&p, 0, amp_level_op(lv), 1, 1);
	rc = amp_count(c, &p, lv->ev, &misses, err, len);
	amp_plan_free(&p);
	if (rc < 0)
		return -1;
	if (misses < 1) {
		snprintf(err, len, "%s: a first touch of %llu uncached bytes counted no misses",
			 lv->name, (unsigned long long)region);
		return -1;
	}
	*value = (int64_t)1 << (int)lround(log2((double)region / misses));
	amp_trace_point(lv, "counters", "vote", tlb ? "vote (each touches 64 MiB once, 1 KiB apart)"
						   : "vote (each touches 64 KiB once, 8 B apart)",
			v + 1, "bytes_per_miss", "bytes touched per miss", (double)region / misses, 1);
	return 0;
}

static int line_supported(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len)
{
	return 1;
}

static int line_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	amp_vote(c, lv, line_vote, &lv->line);
	return 0;
}

const struct amp_module amp_module_line = {
	.name = "line",
	.summary = "line size (caches) and page size (TLBs) from the miss rate of a first touch",
	.kinds = 1u << AMP_KIND_CACHE | 1u << AMP_KIND_TLB,
	.fills = { AMP_FILLS(line) },
	.applies = amp_applies_with_counters,
	.supported = line_supported,
	.run = line_run,
};
