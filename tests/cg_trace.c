/* cg_trace.c - the program tests/cachegrind.sh runs under cachegrind.
 *
 *   cg_trace SEED COUNT REGION STOREPCT
 *
 * Maps REGION bytes (plus a page for the warm-up) without touching them,
 * runs the cg_lcg.h stream over them and prints where things were:
 *
 *   base 0x... warm 0x... load_line N store_line M sink S
 *
 * In the traced loop the only memory accesses are the 8-byte loads and
 * stores on lines N and M (everything else lives in registers), so
 * cachegrind's counts for those two lines are the trace's.  Lines
 * touched before the loop are never touched again: under LRU they leave
 * before any traced line, so the counts equal a cold model's.  Built
 * without sanitizers, -O1. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "cg_lcg.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Each traced access on a line of its own, named by the enum after it. */
ALWAYS_INLINE uint64_t cg_load(volatile uint64_t *p) { return *p; }
enum { CG_LOAD_LINE = __LINE__ - 1 };
ALWAYS_INLINE void cg_store(volatile uint64_t *p, uint64_t v) { *p = v; }
enum { CG_STORE_LINE = __LINE__ - 1 };

static __attribute__((noinline)) uint64_t trace(char *base, uint64_t seed, uint64_t count,
						uint64_t region, unsigned store_pct)
{
	struct cg_lcg g;
	uint64_t words = region / 8, sink = 0;

	cg_lcg_init(&g, seed);
	for (uint64_t i = 0; i < count; i++) {
		int store;
		uint64_t off = cg_lcg_next(&g, words, store_pct, &store);
		volatile uint64_t *p = (volatile uint64_t *)(base + off);

		if (store)
			cg_store(p, i);
		else
			sink += cg_load(p);
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
	printf("base %#" PRIx64 " warm %#" PRIx64 " load_line %d store_line %d sink %" PRIu64 "\n",
	       (uint64_t)(uintptr_t)base, (uint64_t)(uintptr_t)warm, CG_LOAD_LINE, CG_STORE_LINE, sink);
	munmap(base, span + 4096);
	return 0;
}
