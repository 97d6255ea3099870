/* memlimit.h - amp's bound on the memory it touches (--max-memory).
 * Every real mapping a plan prepares is reserved against the bound first,
 * so a run never grows past it, whatever the options ask. */
#ifndef AMP_MEMLIMIT_H
#define AMP_MEMLIMIT_H

#include <stddef.h>
#include <stdint.h>

/* Physical memory of this machine, bytes (0 when unknown). */
uint64_t amp_machine_memory(void);
/* The default bound: a quarter of the machine's memory, at least 64 MiB
 * and at most 1 GiB, and at most half of an address-space limit
 * (ulimit -v) when one is set. */
uint64_t amp_memory_default_limit(void);
void amp_memory_set_limit(uint64_t bytes);
uint64_t amp_memory_limit(void);
/* Takes `bytes` from what is left under the bound; 0, or -1 with the
 * reason (what needs how much, what is left). */
int amp_memory_reserve(const char *what, uint64_t bytes, char *err, size_t len);
void amp_memory_release(uint64_t bytes);
/* Bytes one touched page can cost here: 2 MiB where transparent huge
 * pages back ordinary mappings ("always"; or "madvise" and the caller
 * asks for huge pages), else the base page. */
uint64_t amp_touch_granule(int wants_huge);
/* AMP_NO_THP is set: amp's mappings must not get huge pages. */
int amp_thp_forbidden(void);

#endif
