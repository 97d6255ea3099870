/* alias.c - aliased pages for the TLB draws (amp_jumpchain_build_aliased
 * for code, the runner's DRAW tables for data).
 *
 * Why copies, not one shared page: a hypervisor that shadows a guest's
 * page tables keeps a list of the translations of each guest page and
 * drops them all once the list passes a bound (KVM's shadow MMU: 1000);
 * past it, every access to a page that aliases the one faults to the
 * host.  On a PVM guest of a Zen 5 host, a chase over N pages aliasing
 * one memfd page took 2.5 ticks a load to N = 1000 and 4938 at 1024
 * (17755 at 8000); over four copies, 2.5 to 4000.  The copy each page
 * maps follows the line its access uses, so the caches still see one
 * page's lines however many copies there are. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "alias.h"

#define LINE 64u
#ifndef MAP_POPULATE
#define MAP_POPULATE 0 /* not Linux: faulted in by the warm-up walks */
#endif

int amp_alias_copies(uint64_t page, const uint64_t *off, size_t n, uint64_t npages, uint8_t *copy)
{
	uint64_t *lowest;

	memset(copy, 0, npages);
	if (!off || !n)
		return 0;
	if (!(lowest = malloc(npages * sizeof *lowest)))
		return -1;
	for (uint64_t p = 0; p < npages; p++)
		lowest[p] = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		uint64_t p = off[i] / page;

		if (p < npages && off[i] % page < lowest[p])
			lowest[p] = off[i] % page;
	}
	for (uint64_t p = 0; p < npages; p++)
		if (lowest[p] != UINT64_MAX)
			copy[p] = (uint8_t)(lowest[p] / LINE % AMP_ALIAS_COPIES);
	free(lowest);
	return 0;
}

int amp_alias_fd(const char *name, const uint8_t *img, uint64_t page, char *err, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, (off_t)(page * AMP_ALIAS_COPIES)) < 0) {
		snprintf(err, len, "aliased pages: shared pages (memfd): %s", strerror(errno));
		goto fail;
	}
	for (unsigned c = 0; img && c < AMP_ALIAS_COPIES; c++)
		if (pwrite(fd, img, page, (off_t)(c * page)) != (ssize_t)page) {
			snprintf(err, len, "aliased pages: writing a shared page (memfd): %s", strerror(errno));
			goto fail;
		}
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

int amp_alias_map(uint8_t *at, uint64_t size, uint64_t page, int fd, int prot, const uint64_t *off, size_t n,
		  char *err, size_t len)
{
	uint64_t npages = size / page;
	uint8_t *copy = malloc(npages ? npages : 1);

	if (!copy || amp_alias_copies(page, off, n, npages, copy) < 0) {
		snprintf(err, len, "aliased pages: out of memory");
		free(copy);
		errno = ENOMEM;
		return -1;
	}
	/* Populated now: faulted in by the warm-up walks instead, the draws'
	 * 16384 pages took a tenth of --level=DTLB's time on the PVM guest. */
	for (uint64_t p = 0; p < npages; p++)
		if (mmap(at + p * page, page, prot, MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd, (off_t)(copy[p] * page)) == MAP_FAILED) {
			int why = errno;

			snprintf(err, len, "aliased pages: mapping page %llu of the shared ones: %s",
				 (unsigned long long)p, strerror(why));
			free(copy);
			errno = why; /* for callers that word it their way */
			return -1;
		}
	free(copy);
	return 0;
}
