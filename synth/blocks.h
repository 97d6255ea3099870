/* blocks.h - build-time code blocks for instruction-fetch experiments:
 * the portable baseline of the I-cache paper (X-Ray) and AMP (3.7-3.8)
 * for systems that refuse executable mappings.  AMP_BLOCKS blocks of
 * straight-line integer adds (about 200 B each on x86-64), compiled into amp; their sizes are
 * measured with GCC's label addresses (&&label). */
#ifndef AMP_BLOCKS_H
#define AMP_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#define AMP_BLOCKS 512

/* Bytes of code from the start of block `first` to the end of the last
 * block (what a run from `first` executes each time), or 0 with the
 * reason in err when the compiler did not lay the blocks out in order. */
uint64_t amp_blocks_bytes(unsigned first, char *err, size_t len);
/* Runs blocks first..AMP_BLOCKS-1, `times` times over (one call). */
void amp_blocks_run(unsigned first, uint64_t times);

#endif
