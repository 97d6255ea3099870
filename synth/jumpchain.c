/* jumpchain.c - run-time code generation for instruction-fetch plans.
 *
 * x86-64: "jmp rel32" (5 bytes) at each offset; the last jumps to a
 * loop tail past the region ("dec rdi; jnz first; ret"), so one call
 * runs the chain as many times as asked with no call or return between
 * walks (their cost would swamp walks of a few lines).
 * aarch64: "b imm26" (4 bytes), the tail "subs x0, x0, #1; b.ne first;
 * ret".
 * The mapping is written while writable, then switched to read+execute
 * (never both at once).  AMP_NO_EXEC_MAPPINGS=1 makes amp behave as if
 * the system refused executable mappings (hardened kernels, SELinux
 * execmem), for testing that path. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "alias.h"
#include "jumpchain.h"

struct amp_jumpchain {
	uint8_t *code;
	size_t size;    /* the mapping: the region, then the loop tail */
	uint64_t entry;
	uint64_t exit;  /* indirect chains: the return their last target is */
	/* In place (amp_jumpchain_build_in): code in the caller's mapping,
	 * on these pages (offsets), made read+write again when freed. */
	int in_place;
	uint64_t *pages;
	size_t npages, page_size;
};

#define TAIL_ROOM 64 /* the loop tail sits on its own line past the region */
#define TAIL_BYTES 16 /* what the loop tail takes (10 bytes on x86-64, 12 on aarch64) */
#if defined(__x86_64__)
#define TRAP_BYTE 0xcc /* int3 */
#else
#define TRAP_BYTE 0    /* udf */
#endif

size_t amp_jumpchain_min_gap(void)
{
#if defined(__x86_64__)
	return 5;
#else
	return 4;
#endif
}

/* The loop tail at `at`: count down the walks, back to `first`. */
static int emit_tail(uint8_t *code, uint64_t at, uint64_t first)
{
#if defined(__x86_64__)
	int64_t rel = (int64_t)first - (int64_t)(at + 3 + 6);
	int32_t r32 = (int32_t)rel;

	if (rel < INT32_MIN || rel > INT32_MAX)
		return -1;
	code[at] = 0x48; code[at + 1] = 0xff; code[at + 2] = 0xcf;  /* dec %rdi */
	code[at + 3] = 0x0f; code[at + 4] = 0x85;                   /* jnz rel32 */
	memcpy(code + at + 5, &r32, 4);
	code[at + 9] = 0xc3;                                        /* ret */
	return 0;
#elif defined(__aarch64__)
	int64_t rel = ((int64_t)first - (int64_t)(at + 4)) / 4;
	uint32_t insn[3];

	if (rel < -(1 << 18) || rel >= (1 << 18))
		return -1;
	insn[0] = 0xf1000400; /* subs x0, x0, #1 */
	insn[1] = 0x54000001u | (((uint32_t)rel & 0x7ffffu) << 5); /* b.ne */
	insn[2] = 0xd65f03c0; /* ret */
	memcpy(code + at, insn, sizeof insn);
	return 0;
#else
	(void)code; (void)at; (void)first;
	return -1;
#endif
}

static int emit_jump(uint8_t *code, uint64_t from, uint64_t to)
{
#if defined(__x86_64__)
	int64_t rel = (int64_t)to - (int64_t)(from + 5);
	if (rel < INT32_MIN || rel > INT32_MAX)
		return -1;
	int32_t r32 = (int32_t)rel;
	code[from] = 0xe9; /* jmp rel32 */
	memcpy(code + from + 1, &r32, 4);
	return 0;
#elif defined(__aarch64__)
	uint32_t insn;
	int64_t rel = ((int64_t)to - (int64_t)from) / 4;

	if (rel < -(1 << 25) || rel >= (1 << 25))
		return -1;
	insn = 0x14000000u | ((uint32_t)rel & 0x03ffffffu); /* b */
	memcpy(code + from, &insn, 4);
	return 0;
#else
	(void)code; (void)from; (void)to;
	return -1;
#endif
}

/* Every chain at virtual addresses no earlier chain of this process
 * used.  Branch predictors keep a jump's target by the jump's address,
 * and on an AMD Zen 4 guest (this project's machine, 2026-11) a chain
 * laid out at the addresses of an earlier, different one ran 2-3 times
 * slower at every size that fits, stale targets predicted again and
 * again (8 jumps a line, lines in random order: 15-20 ticks a line
 * against 5.8 at fresh addresses), which hid the L1i's edge.  So each
 * mapping goes below the lowest one so far, top-down like the kernel's
 * own placement.  Where that room is taken (libraries, a sanitizer's
 * allocator), the next try goes twice as far down, so a few tries step
 * over any cluster of mappings; only where none succeeds does the kernel
 * place it (the one case an old address can come back). */
#define CODE_GAP (2ULL << 20)
#define CODE_TRIES 24
#define CODE_LOWEST (1ULL << 32) /* stay clear of the program and its heap */

static _Thread_local uintptr_t code_floor; /* lowest chain mapping so far */

static void *fresh_mapping(size_t size)
{
	const int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
	uintptr_t span = (size + CODE_GAP - 1) / CODE_GAP * CODE_GAP + CODE_GAP;
	void *got;

	for (int i = 0; i < CODE_TRIES && code_floor > span + CODE_LOWEST; i++, span *= 2) {
		void *want = (void *)(code_floor - span);

#ifdef MAP_FIXED_NOREPLACE
		got = mmap(want, size, prot, flags | MAP_FIXED_NOREPLACE, -1, 0);
#else
		got = mmap(want, size, prot, flags, -1, 0);
#endif
		if (got == want) {
			code_floor = (uintptr_t)got;
			return got;
		}
		/* Older kernels take the flag as a hint only. */
		if (got != MAP_FAILED)
			munmap(got, size);
	}
	got = mmap(NULL, size, prot, flags, -1, 0);
	if (got != MAP_FAILED && (!code_floor || (uintptr_t)got < code_floor))
		code_floor = (uintptr_t)got;
	return got;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int offsets_too_close(const uint64_t *off, size_t n, size_t gap)
{
	uint64_t *sorted = malloc(n * sizeof *sorted);
	int bad = 0;

	if (!sorted)
		return 1;
	memcpy(sorted, off, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, cmp_u64);
	for (size_t i = 1; i < n && !bad; i++)
		bad = sorted[i] - sorted[i - 1] < gap;
	free(sorted);
	return bad;
}

/* Offsets a chain can take: inside the region with room for a jump,
 * aligned where the architecture asks, no two closer than a jump. */
static int check_offsets_gap(uint64_t region, const uint64_t *off, size_t n, size_t gap, char *err, size_t len)
{
#if !defined(__x86_64__) && !defined(__aarch64__)
	snprintf(err, len, "instruction-fetch plans need a code generator for this architecture (x86-64 or aarch64)");
	return -1;
#endif
	if (n == 0 || region < gap) {
		snprintf(err, len, "jump chain: nothing to lay out");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (off[i] + gap > region) {
			snprintf(err, len, "jump chain: offset %llu does not leave room for a jump",
				 (unsigned long long)off[i]);
			return -1;
		}
#if defined(__aarch64__)
		if (off[i] % 4) {
			snprintf(err, len, "jump chain: offset %llu is not 4-byte aligned",
				 (unsigned long long)off[i]);
			return -1;
		}
#endif
	}
	if (offsets_too_close(off, n, gap)) {
		snprintf(err, len, "jump chain: two offsets are closer than one jump (%zu bytes) or repeat", gap);
		return -1;
	}
	return 0;
}

static int check_offsets(uint64_t region, const uint64_t *off, size_t n, char *err, size_t len)
{
	return check_offsets_gap(region, off, n, amp_jumpchain_min_gap(), err, len);
}

/* The jumps at off[0..n-1] and the loop tail at `tail` into code. */
static int emit_chain(uint8_t *code, const uint64_t *off, size_t n, uint64_t tail, char *err, size_t len)
{
	if (emit_tail(code, tail, off[0]) < 0) {
		snprintf(err, len, "jump chain: the loop tail cannot reach offset %llu", (unsigned long long)off[0]);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (emit_jump(code, off[i], i + 1 < n ? off[i + 1] : tail) < 0) {
			snprintf(err, len, "jump chain: offset %llu is out of reach of the next",
				 (unsigned long long)off[i]);
			return -1;
		}
	return 0;
}

/* AMP_NO_EXEC_MAPPINGS=1 (a system that refuses executable mappings),
 * or else mprotect's answer. */
/* Whether AMP_NO_EXEC_MAPPINGS asks for none (with the reason). */
static int exec_refused(char *err, size_t len)
{
	const char *no_exec = getenv("AMP_NO_EXEC_MAPPINGS");

	if (!no_exec || !*no_exec || strcmp(no_exec, "0") == 0)
		return 0;
	snprintf(err, len, "executable mappings are refused here (AMP_NO_EXEC_MAPPINGS is set)");
	return 1;
}

static int make_executable(uint8_t *at, size_t size, char *err, size_t len)
{
	if (exec_refused(err, len))
		return -1;
	if (mprotect(at, size, PROT_READ | PROT_EXEC) < 0) {
		snprintf(err, len, "executable mappings are refused here (%s)", strerror(errno));
		return -1;
	}
#if defined(__aarch64__)
	__builtin___clear_cache((char *)at, (char *)at + size);
#endif
	return 0;
}

/* Traps on each 4 KiB page of code that holds a jump (off[0..n-1]) or
 * the loop tail (at `tail`), once each: 0, or -1 out of memory.  Where
 * they are at least half the mapping's pages, it is populated at once
 * first: a page fault each cost the ITLB sweep's one-jump-a-page chains
 * more than a second of system time per run on the Zen 5 guest (an
 * older kernel without MADV_POPULATE_WRITE faults them in as before). */
static int fill_used_pages(uint8_t *code, uint64_t size, const uint64_t *off, size_t n, uint64_t tail)
{
	uint64_t pages = (size + 4095) / 4096, used = 0;
	uint8_t *mark = calloc((size_t)(pages + 7) / 8, 1);

	if (!mark)
		return -1;
	for (size_t i = 0; i <= n; i++) {
		/* Both pages of a jump (or tail) that straddles them. */
		uint64_t at = i < n ? off[i] : tail, end = at + (i < n ? amp_jumpchain_min_gap() : TAIL_BYTES) - 1;

		for (uint64_t pg = at / 4096; pg <= end / 4096 && pg < pages; pg++) {
			used += !(mark[pg / 8] & (1u << (pg % 8)));
			mark[pg / 8] |= (uint8_t)(1u << (pg % 8));
		}
	}
#ifdef MADV_POPULATE_WRITE
	if (2 * used >= pages)
		madvise(code, size, MADV_POPULATE_WRITE);
#endif
	for (uint64_t pg = 0; pg < pages; pg++)
		if (mark[pg / 8] & (1u << (pg % 8)))
			memset(code + pg * 4096, TRAP_BYTE, size - pg * 4096 < 4096 ? size - pg * 4096 : 4096);
	free(mark);
	return 0;
}

/* A chain's fresh mapping of `size` bytes, its used pages (the offsets'
 * and the tail's) filled with traps; NULL with the reason (`shown`
 * bytes named where mmap fails). */
static struct amp_jumpchain *chain_mapping(uint64_t size, uint64_t shown, const uint64_t *off, size_t n,
					   uint64_t tail, char *err, size_t len)
{
	struct amp_jumpchain *jc = calloc(1, sizeof *jc);

	if (!jc) {
		snprintf(err, len, "jump chain: out of memory");
		return NULL;
	}
	jc->size = size;
	jc->code = fresh_mapping(jc->size);
	if (jc->code == MAP_FAILED) {
		snprintf(err, len, "jump chain: mmap of %llu bytes: %s", (unsigned long long)shown, strerror(errno));
		free(jc);
		return NULL;
	}
	/* Bytes no jump lands on trap (int3 on x86-64, udf on aarch64), so
	 * a bad chain faults loudly instead of running on: the pages the
	 * chain uses, each once.  The others stay untouched: filling them
	 * all faulted in whole regions for a few lines of code (the L1i's
	 * tests on the Zen 5 guest: 400427 page faults in --level=L1i). */
	if (fill_used_pages(jc->code, jc->size, off, n, tail) < 0) {
		snprintf(err, len, "jump chain: out of memory");
		amp_jumpchain_free(jc);
		return NULL;
	}
	return jc;
}

struct amp_jumpchain *amp_jumpchain_build(uint64_t region, const uint64_t *off, size_t n,
					  char *err, size_t len)
{
	struct amp_jumpchain *jc;

	if (check_offsets(region, off, n, err, len) < 0)
		return NULL;
	region = (region + TAIL_ROOM - 1) / TAIL_ROOM * TAIL_ROOM;
	jc = chain_mapping(region + TAIL_ROOM, region, off, n, region, err, len);
	if (!jc)
		return NULL;
	if (emit_chain(jc->code, off, n, region, err, len) < 0 ||
	    make_executable(jc->code, jc->size, err, len) < 0) {
		amp_jumpchain_free(jc);
		return NULL;
	}
	jc->entry = off[0];
	return jc;
}

/* Indirect blocks: "load the next target from the table, step past it,
 * jump there" (x86-64: mov (%rdi),%rax; add $8,%rdi; jmp *%rax; aarch64:
 * ldr x9,[x0],#8; br x9).  Where the table's targets follow no pattern
 * a predictor can learn, each jump is mispredicted and the front end
 * fetches its target only once the jump resolves: no fetch runs ahead. */
#if defined(__x86_64__)
static const uint8_t ijump_block[] = { 0x48, 0x8b, 0x07, 0x48, 0x83, 0xc7, 0x08, 0xff, 0xe0 };
static const uint8_t ijump_exit[] = { 0xc3 };
#elif defined(__aarch64__)
static const uint8_t ijump_block[] = { 0x09, 0x84, 0x40, 0xf8, 0x20, 0x01, 0x1f, 0xd6 };
static const uint8_t ijump_exit[] = { 0xc0, 0x03, 0x5f, 0xd6 };
#else
static const uint8_t ijump_block[] = { 0 };
static const uint8_t ijump_exit[] = { 0 };
#endif

/* The exit, then the entry block, right after the first offset's block:
 * on its line, so the chain adds no line of its own to any set. */
static uint64_t indirect_footprint(void)
{
	return 2 * sizeof ijump_block + sizeof ijump_exit;
}

/* The exit and the entry block after the block at `first` of code. */
static void emit_exit_entry(uint8_t *code, uint64_t first)
{
	memcpy(code + first + sizeof ijump_block, ijump_exit, sizeof ijump_exit);
	memcpy(code + first + sizeof ijump_block + sizeof ijump_exit, ijump_block, sizeof ijump_block);
}

struct amp_jumpchain *amp_jumpchain_build_indirect(uint64_t region, const uint64_t *off, size_t n,
						   char *err, size_t len)
{
	struct amp_jumpchain *jc;
	uint64_t size;

	if (check_offsets_gap(region, off, n, sizeof ijump_block, err, len) < 0)
		return NULL;
	for (size_t i = 1; i < n; i++)
		if (off[i] + sizeof ijump_block > off[0] && off[i] < off[0] + indirect_footprint()) {
			snprintf(err, len, "jump chain: offset %llu is where the entry and exit go",
				 (unsigned long long)off[i]);
			return NULL;
		}
	if (off[0] + indirect_footprint() > region) {
		snprintf(err, len, "jump chain: no room for the entry and exit after offset %llu",
			 (unsigned long long)off[0]);
		return NULL;
	}
	size = (region + TAIL_ROOM - 1) / TAIL_ROOM * TAIL_ROOM;
	jc = chain_mapping(size, size, off, n, off[0] + sizeof ijump_block + sizeof ijump_exit, err, len);
	if (!jc)
		return NULL;
	jc->exit = off[0] + sizeof ijump_block;
	jc->entry = jc->exit + sizeof ijump_exit;
	for (size_t i = 0; i < n; i++)
		memcpy(jc->code + off[i], ijump_block, sizeof ijump_block);
	emit_exit_entry(jc->code, off[0]);
	if (make_executable(jc->code, jc->size, err, len) < 0) {
		amp_jumpchain_free(jc);
		return NULL;
	}
	return jc;
}

/* Marks `foot` bytes at `at` of a page's map used (1 where a block
 * starts, 2 inside one); -1 where they leave the page or meet another. */
static int claim(uint8_t *used, uint64_t page, uint64_t at, uint64_t foot)
{
	for (uint64_t b = at; b < at + foot; b++)
		if (b >= page || used[b])
			return -1;
	memset(used + at, 2, foot);
	used[at] = 1;
	return 0;
}

/* Aliased indirect chains: every page of the region maps a shared page
 * (a memfd; one of the copies synth/alias.c names) holding the blocks
 * of every offset's place in its page, so however many pages the jumps
 * visit their code is one page's lines: the caches see one page while
 * the TLBs see them all.  (With pages of their own the lines outgrow
 * the L1i as the pages grow: on the Zen 3 guest the control rose from
 * 14.2 ticks a jump at 256 lines to 18.2 at 512; aliased, it ran at
 * 14.2 from 76 to 1722 lines.) */
struct amp_jumpchain *amp_jumpchain_build_aliased(uint64_t region, uint64_t page, const uint64_t *off, size_t n,
						  char *err, size_t len)
{
	long sys = sysconf(_SC_PAGESIZE);
	uint64_t first, size;
	struct amp_jumpchain *jc = NULL;
	uint8_t *img = NULL, *used = NULL;
	int fd = -1;

	if (check_offsets_gap(region, off, n, sizeof ijump_block, err, len) < 0)
		return NULL;
	if (sys <= 0 || page == 0 || page % (uint64_t)sys || page > (1u << 24)) {
		snprintf(err, len, "jump chain: an alias of %llu bytes is no whole number of system pages",
			 (unsigned long long)page);
		return NULL;
	}
	img = malloc(page);
	used = calloc(page, 1); /* claim()'s map */
	if (!img || !used) {
		snprintf(err, len, "jump chain: out of memory");
		goto fail;
	}
	/* The blocks of every place, the exit and entry after off[0]'s. */
	memset(img, TRAP_BYTE, page);
	first = off[0] % page;
	for (size_t i = 0; i <= n; i++) {
		/* Offsets at one place share its block. */
		if (i < n && used[off[i] % page] == 1)
			continue;
		if (i < n ? claim(used, page, off[i] % page, sizeof ijump_block)
			  : claim(used, page, first + sizeof ijump_block, indirect_footprint() - sizeof ijump_block)) {
			snprintf(err, len, "jump chain: offset %llu overlaps another block on the shared page",
				 (unsigned long long)off[i < n ? i : 0]);
			goto fail;
		}
		if (i < n)
			memcpy(img + off[i] % page, ijump_block, sizeof ijump_block);
	}
	emit_exit_entry(img, first);
	if (exec_refused(err, len))
		goto fail;
	if ((fd = amp_alias_fd("amp-ijump", img, page, err, len)) < 0)
		goto fail;
	size = (region + page - 1) / page * page;
	if (!(jc = calloc(1, sizeof *jc))) {
		snprintf(err, len, "jump chain: out of memory");
		goto fail;
	}
	jc->code = fresh_mapping(size);
	if (jc->code == MAP_FAILED) {
		snprintf(err, len, "jump chain: mmap of %llu bytes: %s", (unsigned long long)size, strerror(errno));
		jc->code = NULL;
		goto fail;
	}
	jc->size = size;
	if (amp_alias_map(jc->code, size, page, fd, PROT_READ | PROT_EXEC, off, n, err, len) < 0) {
		if (errno == EACCES || errno == EPERM)
			snprintf(err, len, "executable mappings are refused here (%s)", strerror(errno));
		goto fail;
	}
#if defined(__aarch64__)
	__builtin___clear_cache((char *)jc->code, (char *)jc->code + page);
#endif
	jc->exit = off[0] + sizeof ijump_block;
	jc->entry = jc->exit + sizeof ijump_exit;
	close(fd);
	free(img);
	free(used);
	return jc;
fail:
	if (fd >= 0)
		close(fd);
	amp_jumpchain_free(jc);
	free(img);
	free(used);
	return NULL;
}

const uint8_t *amp_jumpchain_exit(const struct amp_jumpchain *jc)
{
	return jc->code + jc->exit;
}

void amp_jumpchain_run_table(const struct amp_jumpchain *jc, const uint64_t *table)
{
	void (*fn)(const uint64_t *) = (void (*)(const uint64_t *))(uintptr_t)(jc->code + jc->entry);

	fn(table); /* the table is the first argument: rdi / x0 */
}

/* An in-place chain's pages made read+execute. */
static int protect_in_place(const struct amp_jumpchain *jc, char *err, size_t len)
{
	for (size_t i = 0; jc->in_place && i < jc->npages; i++)
		if (make_executable(jc->code + jc->pages[i], jc->page_size, err, len) < 0)
			return -1;
	return 0;
}

/* In place: the pages that hold code, each once, into jc->pages. */
static int code_pages(struct amp_jumpchain *jc, const uint64_t *off, size_t n, uint64_t tail)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	jc->pages = malloc(2 * (n + 1) * sizeof *jc->pages); /* a jump may straddle two pages */
	if (!jc->pages)
		return -1;
	for (size_t i = 0; i <= n; i++) {
		uint64_t first = (i < n ? off[i] : tail) / pg * pg;
		uint64_t last = ((i < n ? off[i] + amp_jumpchain_min_gap() : tail + TAIL_BYTES) - 1) / pg * pg;

		for (uint64_t p = first; p <= last; p += pg) {
			size_t k = 0;

			while (k < jc->npages && jc->pages[k] != p)
				k++;
			if (k == jc->npages)
				jc->pages[jc->npages++] = p;
		}
	}
	jc->page_size = pg;
	return 0;
}

struct amp_jumpchain *amp_jumpchain_build_in(uint8_t *base, uint64_t size, const uint64_t *off, size_t n,
					     char *err, size_t len)
{
	struct amp_jumpchain *jc;
	uint64_t tail;

	if (check_offsets(size, off, n, err, len) < 0)
		return NULL;
	tail = off[n - 1] + amp_jumpchain_min_gap();
	for (size_t i = 0; i < n; i++)
		if (off[i] > off[n - 1] && off[i] < tail + TAIL_BYTES) {
			snprintf(err, len, "jump chain: offset %llu is where the loop tail goes",
				 (unsigned long long)off[i]);
			return NULL;
		}
	if (tail + TAIL_BYTES > size) {
		snprintf(err, len, "jump chain: no room for the loop tail after offset %llu",
			 (unsigned long long)off[n - 1]);
		return NULL;
	}
	jc = calloc(1, sizeof *jc);
	if (!jc || code_pages(jc, off, n, tail) < 0) {
		free(jc);
		snprintf(err, len, "jump chain: out of memory");
		return NULL;
	}
	jc->code = base;
	jc->in_place = 1;
	jc->entry = off[0];
	if (emit_chain(base, off, n, tail, err, len) < 0 || protect_in_place(jc, err, len) < 0) {
		amp_jumpchain_free(jc);
		return NULL;
	}
	return jc;
}

const uint8_t *amp_jumpchain_code(const struct amp_jumpchain *jc)
{
	return jc->code;
}

void amp_jumpchain_run(const struct amp_jumpchain *jc, uint64_t times)
{
	void (*fn)(uint64_t) = (void (*)(uint64_t))(uintptr_t)(jc->code + jc->entry);

	if (times)
		fn(times); /* the count is the first argument: rdi / x0 */
}

void amp_jumpchain_free(struct amp_jumpchain *jc)
{
	if (!jc)
		return;
	if (jc->in_place)
		for (size_t i = 0; i < jc->npages; i++)
			mprotect(jc->code + jc->pages[i], jc->page_size, PROT_READ | PROT_WRITE);
	else if (jc->code && jc->code != MAP_FAILED)
		munmap(jc->code, jc->size);
	free(jc->pages);
	free(jc);
}
