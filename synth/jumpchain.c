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
#include "jumpchain.h"

struct amp_jumpchain {
	uint8_t *code;
	size_t size;    /* the mapping: the region, then the loop tail */
	uint64_t entry;
};

#define TAIL_ROOM 64 /* the loop tail sits on its own line past the region */

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

struct amp_jumpchain *amp_jumpchain_build(uint64_t region, const uint64_t *off, size_t n,
					  char *err, size_t len)
{
	struct amp_jumpchain *jc;
	size_t gap = amp_jumpchain_min_gap();
	const char *no_exec = getenv("AMP_NO_EXEC_MAPPINGS");

#if !defined(__x86_64__) && !defined(__aarch64__)
	snprintf(err, len, "instruction-fetch plans need a code generator for this architecture (x86-64 or aarch64)");
	return NULL;
#endif
	if (n == 0 || region < gap) {
		snprintf(err, len, "jump chain: nothing to lay out");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (off[i] + gap > region) {
			snprintf(err, len, "jump chain: offset %llu does not leave room for a jump",
				 (unsigned long long)off[i]);
			return NULL;
		}
#if defined(__aarch64__)
		if (off[i] % 4) {
			snprintf(err, len, "jump chain: offset %llu is not 4-byte aligned",
				 (unsigned long long)off[i]);
			return NULL;
		}
#endif
	}
	if (offsets_too_close(off, n, gap)) {
		snprintf(err, len, "jump chain: two offsets are closer than one jump (%zu bytes) or repeat", gap);
		return NULL;
	}
	jc = calloc(1, sizeof *jc);
	if (!jc) {
		snprintf(err, len, "jump chain: out of memory");
		return NULL;
	}
	region = (region + TAIL_ROOM - 1) / TAIL_ROOM * TAIL_ROOM;
	jc->size = region + TAIL_ROOM;
	jc->code = fresh_mapping(jc->size);
	if (jc->code == MAP_FAILED) {
		snprintf(err, len, "jump chain: mmap of %llu bytes: %s",
			 (unsigned long long)region, strerror(errno));
		free(jc);
		return NULL;
	}
	/* Bytes no jump lands on trap (int3 on x86-64, udf on aarch64), so
	 * a bad chain faults loudly instead of running on. */
#if defined(__x86_64__)
	const uint8_t trap = 0xcc;
#else
	const uint8_t trap = 0;
#endif
	/* Sparse chains (jumps far apart) fill only the pages they use. */
	if (jc->size <= (64u << 20))
		memset(jc->code, trap, jc->size);
	else
		for (size_t i = 0; i <= n; i++) {
			uint64_t pg = (i < n ? off[i] : region) & ~(uint64_t)4095;

			memset(jc->code + pg, trap, jc->size - pg < 4096 ? jc->size - pg : 4096);
		}
	if (emit_tail(jc->code, region, off[0]) < 0) {
		snprintf(err, len, "jump chain: the loop tail cannot reach offset %llu",
			 (unsigned long long)off[0]);
		amp_jumpchain_free(jc);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (emit_jump(jc->code, off[i], i + 1 < n ? off[i + 1] : region) < 0) {
			snprintf(err, len, "jump chain: offset %llu is out of reach of the next",
				 (unsigned long long)off[i]);
			amp_jumpchain_free(jc);
			return NULL;
		}
	}
	if ((no_exec && *no_exec && strcmp(no_exec, "0") != 0) ||
	    mprotect(jc->code, jc->size, PROT_READ | PROT_EXEC) < 0) {
		snprintf(err, len, "executable mappings are refused here (%s)",
			 no_exec && *no_exec && strcmp(no_exec, "0") ? "AMP_NO_EXEC_MAPPINGS is set"
								   : strerror(errno));
		amp_jumpchain_free(jc);
		return NULL;
	}
#if defined(__aarch64__)
	__builtin___clear_cache((char *)jc->code, (char *)jc->code + jc->size);
#endif
	jc->entry = off[0];
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
	if (jc->code && jc->code != MAP_FAILED)
		munmap(jc->code, jc->size);
	free(jc);
}
