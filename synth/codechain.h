/* codechain.h - build-time jump chains for instruction-fetch experiments
 * where executable mappings are refused: the same kind of code as the
 * run-time jump chains (jumpchain.h), compiled into amp's .text by
 * synth/chaingen, so any number of 64 B units can be run without
 * writing code.  Two chains (8 and 4 jumps per unit: an op cache's edge
 * moves with the jumps, a cache's does not); x86-64 and aarch64 only
 * (amp_codechain_have() says 0 elsewhere; the blocks of adds remain). */
#ifndef AMP_CODECHAIN_H
#define AMP_CODECHAIN_H

#include <stddef.h>
#include <stdint.h>

#define AMP_CODECHAIN_UNIT 64      /* bytes of code per unit */
#define AMP_CODECHAIN_UNITS 4096   /* units per chain: 256 KiB */
#define AMP_CODECHAIN_JUMPS 8, 4   /* the chains, by jumps per unit */
/* Chains of each kind, each on pages of its own: how fast code runs can
 * depend on which page frames amp's text got (on a Zen 5 guest, copies
 * of one binary file: in about one in five, the last 5 to 8 pages of a
 * chain ran at 16-27 ticks a unit where the others ran at 4.7), so a
 * time is the fastest over the layouts, as for code laid out at run
 * time. */
#define AMP_CODECHAIN_LAYOUTS 3

/* 1 where this build has the chains. */
int amp_codechain_have(void);
/* The offsets from the chain's start of its units, in the order they
 * run; a run of n units executes the last n.  NULL where there is no
 * chain of `jumps` jumps per unit or no such layout. */
const int32_t *amp_codechain_order(unsigned jumps, unsigned layout);
/* Runs the last n units of that chain `times` times (one call). */
void amp_codechain_run(unsigned jumps, unsigned layout, size_t n, uint64_t times);

#endif
