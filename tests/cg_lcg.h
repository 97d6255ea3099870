/* cg_lcg.h - the seeded address stream of the cachegrind cross-check,
 * shared by tests/cg_trace (run under cachegrind) and test_sim_model
 * --replay (the same stream through the model), so both sides see one
 * trace.  Header-only and state in a small struct, so that cg_trace's
 * loop keeps it in registers and touches no memory but the trace. */
#ifndef AMP_CG_LCG_H
#define AMP_CG_LCG_H

#include <stdint.h>

/* Before the traced loop, cg_trace runs it once on a one-word region of
 * its own (CG_WARM_COUNT accesses, half stores) so that every
 * instruction of the loop is cached; the replay does the same. */
#define CG_WARM_SEED 4242
#define CG_WARM_COUNT 64
#define CG_WARM_REGION 8
#define CG_WARM_STOREPCT 50

struct cg_lcg {
	uint64_t s;     /* xorshift64* state, never 0 */
	uint64_t word;  /* current 8-byte word of the region */
};

static inline void cg_lcg_init(struct cg_lcg *g, uint64_t seed)
{
	g->s = seed * UINT64_C(0x9E3779B97F4A7C15) | 1;
	g->word = 0;
}

/* Next access: its byte offset in a region of `words` 8-byte words, and
 * whether it is a store.  A quarter of the steps walk a few words on
 * (spatial reuse), a quarter jump into the first 1/64 or 1/8 of the
 * region (hot parts that stay cached, so replacement order matters), the
 * rest jump anywhere. */
static inline uint64_t cg_lcg_next(struct cg_lcg *g, uint64_t words, unsigned store_pct, int *store)
{
	uint64_t r;

	g->s ^= g->s >> 12;
	g->s ^= g->s << 25;
	g->s ^= g->s >> 27;
	r = g->s * UINT64_C(2685821657736338717);
	if (r >> 62 == 0)
		g->word = (g->word + ((r >> 40) & 15)) % words;
	else if (r >> 62 == 1)
		g->word = (r >> 20) % (words / (r >> 61 & 1 ? 8 : 64) + 1) % words;
	else
		g->word = (r >> 20) % words;
	*store = (r & 0xffff) % 100 < store_pct;
	return g->word * 8;
}

#endif
