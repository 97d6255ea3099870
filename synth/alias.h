/* alias.h - pages that alias a few shared ones, so the TLBs see every
 * page of a region while the caches see one page's lines. */
#ifndef AMP_ALIAS_H
#define AMP_ALIAS_H

#include <stddef.h>
#include <stdint.h>

/* Copies of the shared page: a region's page maps the copy named by the
 * line (64 B, modulo the copies) of its lowest offset. */
#define AMP_ALIAS_COPIES 64u

/* The copy that each of the npages pages of `page` bytes maps, given
 * the offsets the region's accesses take (pages with none: copy 0);
 * copy[] has npages entries.  Each line place of a page lies in one
 * copy only, so the lines the caches see are no more than one page's;
 * pages whose one access spreads over the places share their copy with
 * only 1/AMP_ALIAS_COPIES of them.  -1 where memory ran out. */
int amp_alias_copies(uint64_t page, const uint64_t *off, size_t n, uint64_t npages, uint8_t *copy);
/* A memfd of AMP_ALIAS_COPIES copies of `img` (page bytes), or of zeros
 * where img is NULL; -1 with the reason. */
int amp_alias_fd(const char *name, const uint8_t *img, uint64_t page, char *err, size_t len);
/* Maps the `size` bytes at `at` (reserved, page-aligned), every `page`
 * bytes the copy of fd that amp_alias_copies names for off[0..n-1]
 * (off may be NULL: copy 0 throughout); -1 with the reason. */
int amp_alias_map(uint8_t *at, uint64_t size, uint64_t page, int fd, int prot, const uint64_t *off, size_t n,
		  char *err, size_t len);

#endif
