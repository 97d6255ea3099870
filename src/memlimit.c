/* memlimit.c - the memory bound (see memlimit.h). */
#include "config.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "memlimit.h"
#include "util.h"

#define MIB (1ULL << 20)
#define HUGE_BYTES (2 * MIB)

static uint64_t limit;            /* 0: not set yet, use the default */
static _Atomic uint64_t reserved; /* threads of the CPU part reserve too */

uint64_t amp_machine_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

uint64_t amp_memory_default_limit(void)
{
	uint64_t m = amp_machine_memory() / 4;
	struct rlimit as;

	if (m < 64 * MIB)
		m = 64 * MIB;
	if (m > 1024 * MIB)
		m = 1024 * MIB;
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY && m > as.rlim_cur / 2)
		m = as.rlim_cur / 2;
	return m;
}

void amp_memory_set_limit(uint64_t bytes)
{
	limit = bytes;
}

uint64_t amp_memory_limit(void)
{
	if (!limit)
		limit = amp_memory_default_limit();
	return limit;
}

int amp_memory_reserve(const char *what, uint64_t bytes, char *err, size_t len)
{
	uint64_t cap = amp_memory_limit(), cur = atomic_load(&reserved);
	char need[32], left[32];

	do {
		if (bytes > cap || cur > cap - bytes) {
			amp_fmt_size(bytes, need, sizeof need);
			amp_fmt_size(cur < cap ? cap - cur : 0, left, sizeof left);
			snprintf(err, len, "%s needs up to %s, more than the %s left under the memory bound (--max-memory)",
				 what, need, left);
			return -1;
		}
	} while (!atomic_compare_exchange_weak(&reserved, &cur, cur + bytes));
	return 0;
}

void amp_memory_release(uint64_t bytes)
{
	atomic_fetch_sub(&reserved, bytes);
}

int amp_thp_forbidden(void)
{
	return getenv("AMP_NO_THP") != NULL;
}

uint64_t amp_touch_granule(int wants_huge)
{
	static int mode = -1; /* 0 never, 1 madvise, 2 always */
	char line[128];

	if (mode < 0) {
		mode = 1;
		if (amp_thp_forbidden()) /* the runner forbids them (runner.c) */
			mode = 0;
		else if (amp_read_line("/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof line) == 0)
			mode = strstr(line, "[always]") ? 2 : strstr(line, "[never]") ? 0 : 1;
	}
	if (mode == 2 || (mode == 1 && wants_huge))
		return HUGE_BYTES;
	return (uint64_t)sysconf(_SC_PAGESIZE);
}
