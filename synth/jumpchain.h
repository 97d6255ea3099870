/* jumpchain.h - synthesized code for instruction-fetch plans: a chain of
 * jumps laid out at exact offsets of an executable mapping, so a fetch
 * pass touches exactly the code lines (and pages) the plan names. */
#ifndef AMP_JUMPCHAIN_H
#define AMP_JUMPCHAIN_H

#include <stddef.h>
#include <stdint.h>

struct amp_jumpchain;

/* Smallest distance between two offsets (one jump instruction). */
size_t amp_jumpchain_min_gap(void);
/* Lays out a jump at each of off[0..n-1] in a fresh mapping of `region`
 * bytes: off[i] jumps to off[i+1], the last to the loop tail (on its
 * own line just past the region).  Written, then made
 * executable with mprotect.  NULL with the reason (architecture without
 * a code generator, executable mappings refused, offsets too close). */
struct amp_jumpchain *amp_jumpchain_build(uint64_t region, const uint64_t *off, size_t n,
					  char *err, size_t len);
/* The same chain written into the caller's mapping at base (size
 * bytes, page-aligned), so code shares frames with the data there: the
 * loop tail right after the last jump, the pages that hold code made
 * read+execute (never writable and executable at once) until
 * amp_jumpchain_free makes them read+write again.  The caller keeps
 * stores and chain words off those pages. */
struct amp_jumpchain *amp_jumpchain_build_in(uint8_t *base, uint64_t size, const uint64_t *off, size_t n,
					     char *err, size_t len);
/* Start of the generated code (offsets are relative to it). */
const uint8_t *amp_jumpchain_code(const struct amp_jumpchain *jc);
/* Runs the chain `times` times from off[0] (one call; a loop tail past
 * the region counts the walks). */
void amp_jumpchain_run(const struct amp_jumpchain *jc, uint64_t times);
/* An indirect chain: at each of off[0..n-1] a block that takes the
 * next address from a table and jumps there; the table's last address
 * must be amp_jumpchain_exit(), which returns (it and the entry sit
 * right after off[0]'s block, on its line).  Offsets at least a
 * block (9 B on x86-64, 8 on aarch64) apart.  NULL with the reason. */
struct amp_jumpchain *amp_jumpchain_build_indirect(uint64_t region, const uint64_t *off, size_t n,
						   char *err, size_t len);
/* The same with every `page` bytes of the region (a whole number of
 * system pages) mapping a shared page (synth/alias.h), which holds the blocks of all
 * the offsets' places in their pages: the TLBs see the region's pages,
 * the caches one page's lines.  Offsets whose places overlap are
 * refused.  NULL with the reason (executable or shared mappings
 * refused among them). */
struct amp_jumpchain *amp_jumpchain_build_aliased(uint64_t region, uint64_t page, const uint64_t *off, size_t n,
						  char *err, size_t len);
const uint8_t *amp_jumpchain_exit(const struct amp_jumpchain *jc);
/* Runs an indirect chain through the table's targets (one call). */
void amp_jumpchain_run_table(const struct amp_jumpchain *jc, const uint64_t *table);
void amp_jumpchain_free(struct amp_jumpchain *jc);

#endif
