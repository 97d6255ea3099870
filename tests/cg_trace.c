/* cg_trace.c - the program tests/cachegrind.sh runs under cachegrind.
 *
 *   cg_trace SEED COUNT REGION STOREPCT
 *
 * Maps REGION bytes plus one page without touching them, runs the loop
 * once over a word of that page (the warm-up: every instruction of the
 * loop is then in I1, so no code line enters LL during the trace), then
 * over the region with the cg_lcg.h stream, and prints
 *
 *   base 0x... warm 0x... load_line N store_line M accesses A sink S
 *
 * The loop's only memory accesses are the 8-byte loads on line N and the
 * stores on line M (everything else lives in registers), so cachegrind's
 * counts for those lines are those of the A warm-up and traced accesses,
 * which test_sim_model --replay runs through the model.  Lines touched
 * before (startup, stack, code) are never touched again: under LRU they
 * leave before any traced line, so the counts equal a cold model's.
 * Built without sanitizers, optimized (-O0 would keep the loop's values
 * on the stack; cachegrind.sh notices). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "cg_lcg.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Each traced access on a line of its own, named by the enum after it.
 * The load's use is on its line too: compilers fold the two into one
 * instruction and may give it the line of either. */
ALWAYS_INLINE void cg_load(volatile uint64_t *p, uint64_t *sum) { *sum += *p; }
enum { CG_LOAD_LINE = __LINE__ - 1 };
ALWAYS_INLINE void cg_store(volatile uint64_t *p, uint64_t v) { *p = v; }
enum { CG_STORE_LINE = __LINE__ - 1 };

/* Few live values, so that no compiler needs the stack in the loop. */
static __attribute__((noinline)) uint64_t trace(char *base, uint64_t seed, uint64_t count,
						uint64_t region, unsigned store_pct)
{
	struct cg_lcg g;
	uint64_t words = region / 8, sink = 0;

	cg_lcg_init(&g, seed);
	for (; count; count--) {
		int store;
		uint64_t off = cg_lcg_next(&g, words, store_pct, &store);
		volatile uint64_t *p = (volatile uint64_t *)(base + off);

		if (store)
			cg_store(p, count);
		else
			cg_load(p, &sink);
	}
	return sink;
}

static uint64_t arg(const char *s, const char *what)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (end == s || *end) {
		fprintf(stderr, "cg_trace: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	uint64_t seed, count, region, pct, span, sink;
	char *base, *warm;

	if (argc != 5) {
		fprintf(stderr, "usage: cg_trace SEED COUNT REGION STOREPCT\n");
		return 2;
	}
	seed = arg(argv[1], "seed");
	count = arg(argv[2], "count");
	region = arg(argv[3], "region");
	pct = arg(argv[4], "store percentage");
	if (region < 8 || region % 8 || pct > 100) {
		fprintf(stderr, "cg_trace: region must be a positive multiple of 8, STOREPCT 0..100\n");
		return 2;
	}
	span = (region + 4095) / 4096 * 4096;
	base = mmap(NULL, span + 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		perror("cg_trace: mmap");
		return 1;
	}
	warm = base + span;
	sink = trace(warm, CG_WARM_SEED, CG_WARM_COUNT, CG_WARM_REGION, CG_WARM_STOREPCT);
	sink += trace(base, seed, count, region, (unsigned)pct);
	printf("base %#" PRIx64 " warm %#" PRIx64 " load_line %d store_line %d accesses %" PRIu64
	       " sink %" PRIu64 "\n", (uint64_t)(uintptr_t)base, (uint64_t)(uintptr_t)warm,
	       CG_LOAD_LINE, CG_STORE_LINE, count + CG_WARM_COUNT, sink);
	munmap(base, span + 4096);
	return 0;
}
