/* insn_timing.h - the instruction side by timing: a code-size sweep
 * (time per jump of a chain of jumps, one per line, against the size
 * of the code) whose clusters give L1i's hit time and the next level's,
 * and the ITLB from the TLB sweep run with jumps. */
#ifndef AMP_INSN_TIMING_H
#define AMP_INSN_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include "measure.h"
#include "timing.h"
#include "tlb_timing.h"

/* Code sizes swept up to this (the level below L1i must show). */
#define AMP_INSN_SWEEP_MAX (1ULL << 20)
/* Real machine: jumps per 64 B line of instruction walks (8 bytes apart):
 * an op cache in front of the L1i overflows at an eighth of its reach
 * with one jump a line. */
#define AMP_INSN_JUMPS 8

/* Ticks per line of code of 4 KiB .. max_size, AMP_INSN_JUMPS jumps per
 * 64 B line (one on the simulated machine), page windows in random
 * order; then (real machine) a quarter as many jumps up to 256 KiB: an edge
 * that moves is an op cache (c->opcache).  Sets c->fetch_jumps.  0, or
 * -1 with err. */
int amp_insn_sweep_run(struct amp_ctx *c, uint64_t max_size, struct amp_sweep *sw, char *err,
		       size_t len);
/* The smallest stride between two lines of an instruction walk (the
 * jumps of one line need room): a power of two; 1 on the data side. */
uint64_t amp_insn_min_stride(const struct amp_ctx *c, const struct amp_level *lv);
/* Plateaus of the sweep's monotone curve (a step: 30% up). */
void amp_insn_sweep_analyse(struct amp_sweep *sw);
/* Makes the timing path's L1i measurable from the sweep (its hit time
 * and the next level's); otherwise says why in its nc_reason. */
void amp_insn_levels_fill(struct amp_ctx *c, const struct amp_sweep *sw);
/* Executable mappings refused (`why`): the L1i is measured through
 * build-time code, its capacity only: `kind` AMP_BLOCKS_CHAINS (where
 * this build has them; else the blocks of adds) or AMP_BLOCKS_ADDS. */
void amp_insn_blocks_fill(struct amp_ctx *c, int kind, const char *why);
/* 1 with why when lv is an instruction level that the build-time blocks
 * cannot measure (everything but the capacity). */
int amp_insn_blocks_refusal(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len);
/* The instruction-side levels of `kind` stay N/C with `why` (the sweep
 * that would reach them failed, e.g. no executable mapping). */
void amp_insn_unreached(struct amp_ctx *c, enum amp_level_kind kind, const char *why);

#endif
