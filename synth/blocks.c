/* blocks.c - build-time code blocks (see blocks.h).
 *
 * The nano-benchmark of the I-cache paper (Fig. 5): each block 16 times
 * four independent adds (p1 += p0 ... p4 += p0: the fetch, not a chain
 * of dependences, limits the speed), each four followed by an empty asm
 * that keeps them in registers and stops the compiler folding repeated
 * adds into one (it emits no instruction).  Every block starts at a label
 * whose address is taken: a computed goto may enter any of them, so no
 * block can be merged into its neighbours or reordered without breaking
 * the address order, which amp_blocks_bytes checks.  A run enters at
 * block `first` and falls through to the end, then loops back. */
#include "config.h"
#include <stdio.h>
#include "blocks.h"

#define KEEP __asm__ volatile("" : "+r"(p1), "+r"(p2), "+r"(p3), "+r"(p4))
#define S4 { p1 += p0; p2 += p0; p3 += p0; p4 += p0; KEEP; }
#define S16 S4 S4 S4 S4
#define BODY S16 S16 S16 S16

/* Label names in base four, so the blocks and their table expand from
 * the same macros in the same order. */
#define R4(f, p) f(p##0) f(p##1) f(p##2) f(p##3)
#define R16(f, p) R4(f, p##0) R4(f, p##1) R4(f, p##2) R4(f, p##3)
#define R64(f, p) R16(f, p##0) R16(f, p##1) R16(f, p##2) R16(f, p##3)
#define R256(f, p) R64(f, p##0) R64(f, p##1) R64(f, p##2) R64(f, p##3)
#define R512(f, p) R256(f, p##0) R256(f, p##1)
#define ADDR(l) &&l,
#define BLOCK(l) l: BODY

static volatile uint64_t seed_in = 1, sink;

/* With times 0 only the label addresses are taken (no code runs). */
static void blocks(unsigned first, uint64_t times, uintptr_t *addr, uintptr_t *end)
{
	static const void *const lab[AMP_BLOCKS + 1] = { R512(ADDR, b) &&finish };
	uint64_t p0 = seed_in, p1 = seed_in, p2 = seed_in, p3 = seed_in, p4 = seed_in;
	uint64_t i = times;

	if (addr) {
		for (unsigned k = 0; k < AMP_BLOCKS; k++)
			addr[k] = (uintptr_t)lab[k];
		*end = (uintptr_t)lab[AMP_BLOCKS];
		if (!i)
			return;
	}
	if (!i || first >= AMP_BLOCKS)
		return;
	goto *lab[first];
	R512(BLOCK, b)
	if (--i)
		goto *lab[first];
finish:
	sink = p1 + p2 + p3 + p4;
}

uint64_t amp_blocks_bytes(unsigned first, char *err, size_t len)
{
	static uintptr_t addr[AMP_BLOCKS], end;

	if (first >= AMP_BLOCKS) {
		snprintf(err, len, "build-time blocks: only %d blocks", AMP_BLOCKS);
		return 0;
	}
	blocks(0, 0, addr, &end);
	for (unsigned k = 1; k < AMP_BLOCKS; k++)
		if (addr[k] <= addr[k - 1] || end <= addr[k]) {
			snprintf(err, len, "build-time blocks: the compiler did not lay them out in order (block %u)", k);
			return 0;
		}
	return (uint64_t)(end - addr[first]);
}

void amp_blocks_run(unsigned first, uint64_t times)
{
	blocks(first, times, NULL, NULL);
}
