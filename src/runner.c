/* runner.c - executes experiment plans.
 *
 * Real machine: loads follow a cyclic pointer chain written into the
 * region (each load's address depends on the one before, so they are
 * neither merged nor overlapped and the compiler cannot drop them);
 * stores write the region's own words back (chains survive); fetches run
 * a synthesized jump chain; random draws (IJUMP, DRAW) run through a
 * table of addresses drawn beforehand; flushes use the cache-flush
 * instruction.
 * Simulated machine: the same accesses go into the model at fixed
 * virtual addresses.  Counters and the timer bracket the measured
 * passes; every repetition runs the whole plan. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "alias.h"
#include "jumpchain.h"
#include "memlimit.h"
#include "plan.h"
#include "sim.h"
#include "util.h"
#include "timer.h"

#define SIM_DATA_BASE 0x10000000000ULL /* where the model sees the region */
#define SIM_CODE_BASE 0x20000000000ULL
#define HUGE_PAGE (2ULL << 20)

/* A sink the compiler must assume is read, so chases are never dead. */
static void *volatile amp_sink;
/* Zero, unknown to the compiler: a DRAW load's address takes the value
 * before it masked by this, so each load waits on the one before. */
static volatile uint64_t amp_zero;

static __attribute__((noinline)) void *chase(void *start, uint64_t steps)
{
	void **p = start;

	while (steps >= 8) {
		p = *p; p = *p; p = *p; p = *p;
		p = *p; p = *p; p = *p; p = *p;
		steps -= 8;
	}
	while (steps--)
		p = *p;
	return p;
}

/* DRAW loads: the table's addresses in order, each load's address
 * waiting on the value the one before read. */
static __attribute__((noinline)) void *draw_loads(const uint64_t *table, uint64_t visits)
{
	uint64_t x = 0, zero = amp_zero, k = 0;

	for (; k + 4 <= visits; k += 4) {
		x = *(const volatile uint64_t *)(uintptr_t)(table[k] + (x & zero));
		x = *(const volatile uint64_t *)(uintptr_t)(table[k + 1] + (x & zero));
		x = *(const volatile uint64_t *)(uintptr_t)(table[k + 2] + (x & zero));
		x = *(const volatile uint64_t *)(uintptr_t)(table[k + 3] + (x & zero));
	}
	for (; k < visits; k++)
		x = *(const volatile uint64_t *)(uintptr_t)(table[k] + (x & zero));
	return (void *)(uintptr_t)x;
}

static void flush_line(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("clflush (%0)" :: "r"(p) : "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dc civac, %0" :: "r"(p) : "memory");
#else
	(void)p;
#endif
}

static void flush_fence(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("mfence" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dsb sy; isb" ::: "memory");
#endif
}

static int can_flush(void)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
	return 1;
#else
	return 0;
#endif
}

/* What a plan needs prepared on the real machine. */
struct real_plan {
	uint8_t *base;
	size_t size;
	uint64_t *store_val[AMP_PLAN_MAX_SEQ];  /* value each store writes */
	struct amp_jumpchain *code[AMP_PLAN_MAX_SEQ];
	uint64_t *table[AMP_PLAN_MAX_SEQ];      /* IJUMP: the drawn targets, then the exit; DRAW: addresses */
	unsigned table_walks[AMP_PLAN_MAX_SEQ]; /* walks of n visits the table holds */
	uint8_t *aliased;       /* DRAW with alias: the region's pages, each a shared one (alias.h) */
	size_t aliased_size;
	uint64_t reserved;      /* bytes held under the memory bound */
	int borrowed;           /* base is an arena's: not unmapped here */
};

static void real_free(struct real_plan *rp)
{
	for (int i = 0; i < AMP_PLAN_MAX_SEQ; i++) {
		free(rp->store_val[i]);
		free(rp->table[i]);
		amp_jumpchain_free(rp->code[i]);
	}
	if (rp->base && !rp->borrowed)
		munmap(rp->base, rp->size);
	if (rp->aliased)
		munmap(rp->aliased, rp->aliased_size);
	amp_memory_release(rp->reserved);
	memset(rp, 0, sizeof *rp);
}

static int seq_has_op(const struct amp_plan *p, int seq, enum amp_op op)
{
	for (int i = 0; i < p->npass; i++)
		if (p->pass[i].seq == seq && p->pass[i].op == op)
			return 1;
	return 0;
}

/* One chain link: the word at off must point at next. */
struct link {
	uint64_t off, next;
};

/* Sorts links[0..n-1] by offset: a radix sort, 11 bits a pass over the
 * bits the largest offset has (qsort's compare calls took 5% of a
 * default run's time: the access pairs' plans hold 300000 links). */
#define LINK_DIGIT 11
static int sort_links(struct link *links, size_t n)
{
	struct link *tmp = malloc(n * sizeof *tmp), *from = links, *to = tmp;
	uint64_t most = 0;

	if (!tmp)
		return -1;
	for (size_t k = 0; k < n; k++)
		most |= links[k].off;
	for (unsigned shift = 0; shift < 64 && most >> shift; shift += LINK_DIGIT) {
		size_t count[1u << LINK_DIGIT] = { 0 }, at = 0;
		struct link *swap;

		for (size_t k = 0; k < n; k++)
			count[from[k].off >> shift & ((1u << LINK_DIGIT) - 1)]++;
		for (size_t d = 0; d < 1u << LINK_DIGIT; d++) {
			size_t c = count[d];

			count[d] = at;
			at += c;
		}
		for (size_t k = 0; k < n; k++)
			to[count[from[k].off >> shift & ((1u << LINK_DIGIT) - 1)]++] = from[k];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != links)
		memcpy(links, from, n * sizeof *links);
	free(tmp);
	return 0;
}

/* Writes every load chain; two chains may share a word only when they
 * agree on its successor.  Sorting the links finds disagreements without
 * a bitmap of the region (regions can be sparse and terabytes long). */
static int write_chains(const struct amp_plan *p, struct real_plan *rp, char *err, size_t len)
{
	size_t n = 0, k = 0;
	struct link *links;

	for (int s = 0; s < p->nseq; s++)
		if (seq_has_op(p, s, AMP_OP_LOAD))
			n += p->seq[s].n;
	if (n == 0)
		return 0;
	links = malloc(n * sizeof *links);
	if (!links) {
		snprintf(err, len, "plan %s: out of memory", p->name);
		return -1;
	}
	for (int s = 0; s < p->nseq; s++) {
		const struct amp_seq *q = &p->seq[s];

		if (!seq_has_op(p, s, AMP_OP_LOAD))
			continue;
		for (size_t i = 0; i < q->n; i++, k++) {
			links[k].off = q->off[i];
			links[k].next = q->off[(i + 1) % q->n];
		}
	}
	if (sort_links(links, n) < 0) {
		snprintf(err, len, "plan %s: out of memory", p->name);
		free(links);
		return -1;
	}
	for (k = 0; k < n; k++) {
		if (k && links[k].off == links[k - 1].off && links[k].next != links[k - 1].next) {
			snprintf(err, len, "plan %s: offset %llu is in two load chains with different successors",
				 p->name, (unsigned long long)links[k].off);
			free(links);
			return -1;
		}
		*(void **)(rp->base + links[k].off) = rp->base + links[k].next;
	}
	free(links);
	return 0;
}

/* Whether sequence s uses its offsets in the data region: not where it
 * is only fetched, from code in a mapping of its own, or drawn from
 * aliased pages, and no flush reaches the region (faulting its data
 * pages in served nothing: the ITLB sweep's points run over up to 16384
 * pages). */
static int touches_data(const struct amp_plan *p, int s)
{
	if (p->code_in_region)
		return 1;
	for (int i = 0; i < p->npass; i++) {
		enum amp_op op = p->pass[i].op;

		if (op == AMP_OP_FLUSH ||
		    (p->pass[i].seq == s && op != AMP_OP_IFETCH && op != AMP_OP_IJUMP && !(op == AMP_OP_DRAW && p->alias)))
			return 1;
	}
	return 0;
}

/* The most memory the plan can touch: each offset's page (a huge page
 * where they back the mapping), never more than the region; the same
 * again for code in a mapping of its own. */
static uint64_t touch_bound(const struct amp_plan *p, uint64_t size)
{
	uint64_t data = 0, code = 0, g = amp_touch_granule(p->huge), gc = amp_touch_granule(0);

	for (int s = 0; s < p->nseq; s++) {
		data += touches_data(p, s) ? p->seq[s].n * g : 0;
		if ((seq_has_op(p, s, AMP_OP_IFETCH) || seq_has_op(p, s, AMP_OP_IJUMP)) && !p->code_in_region)
			code += p->seq[s].n * gc < p->region ? p->seq[s].n * gc : p->region;
	}
	return (data < size ? data : size) + code;
}

/* The jump chain of an ifetch sequence: fetch_jumps jumps per offset,
 * packed as tightly as jumps go (5 B on x86-64, 4 on aarch64), so a line
 * moved by less than a line still spans one more line (mod_block.c). */
static int build_code(const struct amp_plan *p, const struct amp_seq *q, struct amp_jumpchain **jc,
		      char *err, size_t len)
{
	uint64_t k = p->fetch_jumps > 1 ? p->fetch_jumps : 1, *off;

	if (k == 1) {
		*jc = amp_jumpchain_build(p->region, q->off, q->n, err, len);
		return *jc ? 0 : -1;
	}
	off = malloc(q->n * k * sizeof *off);
	if (!off) {
		snprintf(err, len, "plan %s: out of memory", p->name);
		return -1;
	}
	for (size_t i = 0; i < q->n; i++)
		for (uint64_t j = 0; j < k; j++)
			off[i * k + j] = q->off[i] + amp_jumpchain_min_gap() * j;
	*jc = amp_jumpchain_build(p->region, off, q->n * k, err, len);
	free(off);
	return *jc ? 0 : -1;
}

/* Sequence s's table for its `op` passes: as many walks of draws (from
 * visit_seed) as the longest takes, each the address of its offset
 * from `at`; one entry more is left for the caller. */
static int draw_table(const struct amp_plan *p, int s, enum amp_op op, const uint8_t *at, struct real_plan *rp,
		      char *err, size_t len)
{
	const struct amp_seq *q = &p->seq[s];
	unsigned walks = 1;
	struct amp_rng draw;
	uint64_t visits;

	for (int i = 0; i < p->npass; i++)
		if (p->pass[i].seq == s && p->pass[i].op == op && p->pass[i].times > walks)
			walks = p->pass[i].times;
	visits = (uint64_t)walks * q->n;
	rp->table[s] = malloc((visits + 1) * sizeof *rp->table[s]);
	if (!rp->table[s]) {
		snprintf(err, len, "plan %s: out of memory", p->name);
		return -1;
	}
	amp_rng_seed(&draw, p->visit_seed);
	for (uint64_t k = 0; k < visits; k++)
		rp->table[s][k] = (uint64_t)(uintptr_t)(at + q->off[amp_rng_below(&draw, q->n)]);
	rp->table_walks[s] = walks;
	return 0;
}

/* An IJUMP sequence: its indirect blocks, and its table of draws ending
 * at the exit. */
static int build_indirect(const struct amp_plan *p, int s, struct real_plan *rp, char *err, size_t len)
{
	const struct amp_seq *q = &p->seq[s];

	if (seq_has_op(p, s, AMP_OP_IFETCH) || seq_has_op(p, s, AMP_OP_DRAW) || p->code_in_region) {
		snprintf(err, len,
			 "plan %s: a sequence fetched by indirect jumps takes no other fetch, no random loads, nor code in the region",
			 p->name);
		return -1;
	}
	rp->code[s] = p->alias ? amp_jumpchain_build_aliased(p->region, p->alias, q->off, q->n, err, len)
			       : amp_jumpchain_build_indirect(p->region, q->off, q->n, err, len);
	if (!rp->code[s] || draw_table(p, s, AMP_OP_IJUMP, amp_jumpchain_code(rp->code[s]), rp, err, len) < 0)
		return -1;
	rp->table[s][(uint64_t)rp->table_walks[s] * q->n] = (uint64_t)(uintptr_t)amp_jumpchain_exit(rp->code[s]);
	return 0;
}

/* `size` bytes of address space whose every `page` bytes map one of the
 * shared pages of zeros (synth/alias.c: the copy the page's offset
 * among off[0..n-1] names), read-only; NULL with the reason.  Each page
 * is a mapping of its own, so their number is bounded. */
#define ALIAS_MOST_PAGES (1u << 15)
static uint8_t *map_aliased(uint64_t size, uint64_t page, const uint64_t *off, size_t n, char *err, size_t len)
{
	long sys = sysconf(_SC_PAGESIZE);
	uint8_t *at = MAP_FAILED;
	int fd = -1;

	if (sys <= 0 || page == 0 || page % (uint64_t)sys || size / page > ALIAS_MOST_PAGES) {
		snprintf(err, len, "aliased pages: %llu bytes in pages of %llu is not up to %u whole system pages",
			 (unsigned long long)size, (unsigned long long)page, ALIAS_MOST_PAGES);
		return NULL;
	}
	if ((fd = amp_alias_fd("amp-alias", NULL, page, err, len)) < 0)
		return NULL;
	at = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (at == MAP_FAILED) {
		snprintf(err, len, "aliased pages: mmap of %llu bytes: %s", (unsigned long long)size, strerror(errno));
		goto fail;
	}
	if (amp_alias_map(at, size, page, fd, PROT_READ, off, n, err, len) < 0)
		goto fail;
	close(fd);
	return at;
fail:
	if (at != MAP_FAILED)
		munmap(at, size);
	close(fd);
	return NULL;
}

int amp_alias_check(char *why, size_t len)
{
	long sys = sysconf(_SC_PAGESIZE);
	uint8_t *at = sys > 0 ? map_aliased(2 * (uint64_t)sys, (uint64_t)sys, NULL, 0, why, len) : NULL;

	if (sys <= 0)
		snprintf(why, len, "aliased pages: the system page size is unknown");
	if (!at)
		return -1;
	munmap(at, 2 * (size_t)sys);
	return 0;
}

/* A DRAW sequence's table, on aliased pages where the plan asks (the
 * first such sequence's offsets name the copies the pages map). */
static int build_draws(const struct amp_plan *p, int s, struct real_plan *rp, char *err, size_t len)
{
	if (p->alias && !rp->aliased) {
		rp->aliased_size = (p->region + p->alias - 1) / p->alias * p->alias;
		rp->aliased = map_aliased(rp->aliased_size, p->alias, p->seq[s].off, p->seq[s].n, err, len);
		if (!rp->aliased)
			return -1;
	}
	return draw_table(p, s, AMP_OP_DRAW, p->alias ? rp->aliased : rp->base, rp, err, len);
}

/* Whether offset x lies on one of the pages of q's offsets. */
static int shares_page(const struct amp_seq *q, uint64_t x, uint64_t page)
{
	for (size_t k = 0; k < q->n; k++)
		if (q->off[k] / page == x / page)
			return 1;
	return 0;
}

/* Fetch sequences as jump chains in the region itself (code_in_region),
 * once no store or chained load can touch their pages (which become
 * read+execute).  Written last: after the chains and store values. */
static int code_in_place(const struct amp_plan *p, struct real_plan *rp, char *err, size_t len)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	for (int s = 0; s < p->nseq; s++) {
		if (!seq_has_op(p, s, AMP_OP_IFETCH))
			continue;
		if (p->fetch_jumps > 1) {
			snprintf(err, len, "plan %s: code in the region takes one jump per line", p->name);
			return -1;
		}
		for (int o = 0; o < p->nseq; o++) {
			if (!seq_has_op(p, o, AMP_OP_STORE) && !seq_has_op(p, o, AMP_OP_LOAD))
				continue;
			for (size_t k = 0; k < p->seq[o].n; k++)
				if (shares_page(&p->seq[s], p->seq[o].off[k], page)) {
					snprintf(err, len, "plan %s: offset %llu is stored to or chained on a page that holds code",
						 p->name, (unsigned long long)p->seq[o].off[k]);
					return -1;
				}
		}
		rp->code[s] = amp_jumpchain_build_in(rp->base, rp->size, p->seq[s].off, p->seq[s].n, err, len);
		if (!rp->code[s])
			return -1;
	}
	return 0;
}

/* Maps `size` bytes (a multiple of HUGE_PAGE when huge) for `what`,
 * under the memory bound for `need` bytes touched; *base, or -1 with err. */
static int map_region(const char *what, size_t size, int huge, uint64_t need, uint8_t **base,
		      char *err, size_t len)
{
	uint8_t *raw, *b;

	if (amp_memory_reserve(what, need, err, len) < 0)
		return -1;
	/* NORESERVE: a sparse plan (a few lines 1 GiB apart) costs only
	 * the pages it touches. */
	/* Aligned to 2 MiB: huge pages can back it, and the same offsets
	 * always have the same low address bits (some L1s hash virtual
	 * address bits into way-predictor tags; an arbitrary placement can
	 * make lines of one set collide there and look like misses). */
	raw = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED) {
		snprintf(err, len, "%s: mmap of %zu bytes: %s", what, size, strerror(errno));
		amp_memory_release(need);
		return -1;
	}
	b = (uint8_t *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (b > raw)
		munmap(raw, (size_t)(b - raw));
	munmap(b + size, (size_t)(raw + size + HUGE_PAGE - (b + size)));
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
	/* A hint; 4K pages work too.  AMP_NO_THP=1 forbids huge pages here,
	 * as on a host without transparent huge pages.  A plan that did not
	 * ask for them gets none either where the host gives them unasked
	 * (enabled=always): the TLB sweeps would see 2 MiB pages. */
	if (amp_thp_forbidden() || !huge)
		madvise(b, size, MADV_NOHUGEPAGE);
	else
		madvise(b, size, MADV_HUGEPAGE);
#endif
	*base = b;
	return 0;
}

static size_t mapped_size(uint64_t region, int huge)
{
	return huge ? (region + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE : region;
}

static int arena_map(struct amp_arena *a, uint64_t region, int huge, uint64_t touched, char *err, size_t len)
{
	memset(a, 0, sizeof *a);
	a->size = mapped_size(region, huge);
	a->reserved = touched < a->size ? touched : a->size;
	if (map_region("arena", a->size, huge, a->reserved, &a->base, err, len) < 0) {
		memset(a, 0, sizeof *a);
		return -1;
	}
	return 0;
}

int amp_arena_open(struct amp_arena *a, uint64_t region, int huge, char *err, size_t len)
{
	return arena_map(a, region, huge, mapped_size(region, huge), err, len);
}

int amp_arena_open_sparse(struct amp_arena *a, uint64_t region, uint64_t touched, char *err, size_t len)
{
	return arena_map(a, region, 0, touched, err, len);
}

void amp_arena_close(struct amp_arena *a)
{
	if (a->base) {
		munmap(a->base, a->size);
		amp_memory_release(a->reserved);
	}
	memset(a, 0, sizeof *a);
}

static int real_prepare(const struct amp_plan *p, struct real_plan *rp, char *err, size_t len)
{
	char what[96];

	memset(rp, 0, sizeof *rp);
	snprintf(what, sizeof what, "plan %s", p->name);
	if (p->arena) {
		if (p->arena->size < p->region) {
			snprintf(err, len, "%s: region of %llu bytes is larger than its arena", what,
				 (unsigned long long)p->region);
			return -1;
		}
		rp->base = p->arena->base;
		rp->size = p->arena->size;
		rp->borrowed = 1;
	} else {
		rp->size = mapped_size(p->region, p->huge);
		rp->reserved = touch_bound(p, rp->size);
		if (map_region(what, rp->size, p->huge, rp->reserved, &rp->base, err, len) < 0) {
			rp->reserved = 0;
			return -1;
		}
	}
	/* Touch the pages the plan uses now, so page faults stay out of the
	 * measurement. */
	for (int s = 0; s < p->nseq; s++)
		if (touches_data(p, s))
			for (size_t k = 0; k < p->seq[s].n; k++)
				rp->base[p->seq[s].off[k]] = 0;
	if (write_chains(p, rp, err, len) < 0)
		goto fail;
	for (int s = 0; s < p->nseq; s++) {
		const struct amp_seq *q = &p->seq[s];

		if (seq_has_op(p, s, AMP_OP_STORE)) {
			rp->store_val[s] = malloc(q->n * sizeof(uint64_t));
			if (!rp->store_val[s]) {
				snprintf(err, len, "plan %s: out of memory", p->name);
				goto fail;
			}
			for (size_t k = 0; k < q->n; k++)
				rp->store_val[s][k] = *(uint64_t *)(rp->base + q->off[k]);
		}
		if (seq_has_op(p, s, AMP_OP_IFETCH) && !p->code_in_region && build_code(p, q, &rp->code[s], err, len) < 0)
			goto fail;
		if (seq_has_op(p, s, AMP_OP_IJUMP) && build_indirect(p, s, rp, err, len) < 0)
			goto fail;
		if (seq_has_op(p, s, AMP_OP_DRAW) && build_draws(p, s, rp, err, len) < 0)
			goto fail;
	}
	if (p->code_in_region && code_in_place(p, rp, err, len) < 0)
		goto fail;
	for (int i = 0; i < p->npass; i++)
		if (p->pass[i].op == AMP_OP_FLUSH && !can_flush()) {
			snprintf(err, len, "plan %s: no cache-flush instruction on this architecture", p->name);
			goto fail;
		}
	return 0;
fail:
	real_free(rp);
	return -1;
}

/* Sequence s's table of draws (n offsets a walk) from walk `from` to
 * its end: jumps run to the exit entry after it, loads count. */
static void run_table(enum amp_op op, const struct real_plan *rp, int s, uint64_t from, size_t n)
{
	const uint64_t *table = rp->table[s] + from * n;

	if (op == AMP_OP_IJUMP)
		amp_jumpchain_run_table(rp->code[s], table);
	else
		amp_sink = draw_loads(table, (rp->table_walks[s] - from) * n);
}

static void real_pass(const struct amp_plan *p, struct real_plan *rp, const struct amp_pass *ps,
		      uint64_t times)
{
	const struct amp_seq *q = ps->seq >= 0 ? &p->seq[ps->seq] : NULL;

	switch (ps->op) {
	case AMP_OP_LOAD:
		amp_sink = chase(rp->base + q->off[0], times * q->n);
		break;
	case AMP_OP_STORE:
		for (uint64_t t = 0; t < times; t++)
			for (size_t k = 0; k < q->n; k++)
				*(volatile uint64_t *)(rp->base + q->off[k]) = rp->store_val[ps->seq][k];
		/* Stores set up what a later pass measures: let them finish
		 * (their misses drain from the store buffer for microseconds
		 * and would slow the measured loads that follow). */
		if (!ps->measured)
			flush_fence();
		break;
	case AMP_OP_IFETCH:
		amp_jumpchain_run(rp->code[ps->seq], times);
		break;
	case AMP_OP_IJUMP:
	case AMP_OP_DRAW: {
		/* Whole tables, then the rest from the table's last walks. */
		unsigned walks = rp->table_walks[ps->seq];

		for (uint64_t t = 0; t < times / walks; t++)
			run_table(ps->op, rp, ps->seq, 0, q->n);
		if (times % walks)
			run_table(ps->op, rp, ps->seq, walks - times % walks, q->n);
		break;
	}
	case AMP_OP_TOUCH: {
		uint64_t sum = 0;

		for (uint64_t t = 0; t < times; t++)
			for (size_t k = 0; k < q->n; k++)
				sum += *(volatile uint64_t *)(rp->base + q->off[k]);
		amp_sink = (void *)(uintptr_t)sum;
		break;
	}
	case AMP_OP_FLUSH:
		if (q) {
			for (size_t k = 0; k < q->n; k++) {
				flush_line(rp->base + q->off[k]);
				if (rp->code[ps->seq])
					flush_line(amp_jumpchain_code(rp->code[ps->seq]) + q->off[k]);
				if (rp->aliased)
					flush_line(rp->aliased + q->off[k]);
			}
		} else {
			/* The whole region: every line the plan uses, data and code. */
			for (int i = 0; i < p->nseq; i++)
				for (size_t k = 0; k < p->seq[i].n; k++) {
					flush_line(rp->base + p->seq[i].off[k]);
					if (rp->code[i])
						flush_line(amp_jumpchain_code(rp->code[i]) + p->seq[i].off[k]);
					if (rp->aliased)
						flush_line(rp->aliased + p->seq[i].off[k]);
				}
			/* Changing the protection drops the region's translations
			 * (not where code lives in the region: it would lose its
			 * execute right). */
			if (!p->code_in_region) {
				mprotect(rp->base, rp->size, PROT_READ);
				mprotect(rp->base, rp->size, PROT_READ | PROT_WRITE);
			}
			if (rp->aliased) {
				mprotect(rp->aliased, rp->aliased_size, PROT_NONE);
				mprotect(rp->aliased, rp->aliased_size, PROT_READ);
			}
		}
		flush_fence();
		break;
	}
}

static void sim_pass(const struct amp_plan *p, struct sim_machine *m, const struct amp_pass *ps)
{
	const struct amp_seq *q = ps->seq >= 0 ? &p->seq[ps->seq] : NULL;
	int fetch = ps->op == AMP_OP_IFETCH || ps->op == AMP_OP_IJUMP;
	enum sim_op op = ps->op == AMP_OP_STORE ? SIM_STORE : fetch ? SIM_IFETCH : SIM_LOAD;
	uint64_t base = fetch && !p->code_in_region ? SIM_CODE_BASE : SIM_DATA_BASE;

	if (ps->op == AMP_OP_FLUSH) {
		/* Lines (and for the whole region, translations) go cold, for
		 * data and code alike. */
		for (int i = 0; i < p->nseq; i++) {
			const struct amp_seq *f = &p->seq[i];

			if (q && f != q)
				continue;
			for (size_t k = 0; k < f->n; k++) {
				sim_flush_range(m, SIM_DATA_BASE + f->off[k], 1);
				sim_flush_range(m, SIM_CODE_BASE + f->off[k], 1);
			}
		}
		if (!q) {
			sim_flush_tlb_range(m, SIM_DATA_BASE, p->region);
			sim_flush_tlb_range(m, SIM_CODE_BASE, p->region);
		}
		return;
	}
	if (ps->op == AMP_OP_IJUMP || ps->op == AMP_OP_DRAW) {
		struct amp_rng draw;

		/* Draws from the plan's seed, as the real machine's table is
		 * drawn (whose shorter passes run its last walks). */
		amp_rng_seed(&draw, p->visit_seed);
		for (uint64_t k = 0; k < (uint64_t)ps->times * q->n; k++)
			sim_access(m, base + q->off[amp_rng_below(&draw, q->n)], op);
		return;
	}
	for (unsigned t = 0; t < ps->times; t++)
		for (size_t k = 0; k < q->n; k++)
			sim_access(m, base + q->off[k], op);
}

static uint64_t now_ticks(const struct amp_host *host)
{
	return host->sim ? sim_cycles(host->sim) : amp_ticks();
}

static void result_init(struct amp_run_result *res, unsigned reps)
{
	memset(res, 0, sizeof *res);
	res->reps = reps;
	res->scale = 1;
	for (int i = 0; i < AMP_MAX_SET; i++)
		res->min[i] = UINT64_MAX;
	res->ticks_min = UINT64_MAX;
}

static int result_add(struct amp_run_result *res, struct amp_cset *set, uint64_t ticks,
		      char *err, size_t len)
{
	uint64_t v[AMP_MAX_SET];

	if (ticks < res->ticks_min)
		res->ticks_min = ticks;
	if (ticks > res->ticks_max)
		res->ticks_max = ticks;
	if (!set || set->n == 0)
		return 0;
	if (amp_cset_read(set, v) < 0) {
		snprintf(err, len, "%s: reading the counters failed", set->ops->name);
		return -1;
	}
	for (int i = 0; i < set->n; i++) {
		if (v[i] < res->min[i])
			res->min[i] = v[i];
		if (v[i] > res->max[i])
			res->max[i] = v[i];
	}
	return 0;
}

/* Real machine: loads what the measured passes read besides their
 * lines (pass and sequence records, the first offset, the region's
 * base) just before the bracket opens.  The passes before it may have
 * evicted them: a walk of one page offset evicts every line at that
 * offset from L1 and, from thousands of pages, from L2, heap and stack
 * lines too, and a miss there costs as much as the single timed load
 * of an eviction test.  On the Zen 3 guest (AMD family 25 model 1),
 * before, the base walk of an eviction test read slower than the walk
 * tested in about every other test of the same plans, and
 * no pool prefix evicted its target twice running; with these loads
 * first, the base read faster in 31 of 32 tests of 1024 to 4096 lines
 * (in the other, 4 ticks slower). */
static void metadata_warm(const struct amp_plan *plan, const struct real_plan *rp, int first, int last)
{
	uintptr_t sum = (uintptr_t)rp->base;

	for (int i = first; i <= last; i++) {
		const struct amp_pass *ps = &plan->pass[i];

		sum += (uintptr_t)ps->op + ps->times + (uintptr_t)ps->measured;
		if (ps->seq >= 0 && plan->seq[ps->seq].n)
			sum += plan->seq[ps->seq].off[0] + plan->seq[ps->seq].n;
	}
	amp_sink = (void *)sum;
}

/* One repetition: every pass, the measured ones `scale` times their
 * walks, inside the counter and timer bracket.  0, or -1 with err. */
static int run_once(const struct amp_plan *plan, const struct amp_host *host, struct real_plan *rp,
		    struct amp_cset *set, unsigned scale, uint64_t *ticks, char *err, size_t len)
{
	int first = -1, last = -1;
	uint64_t t0 = 0;

	for (int i = 0; i < plan->npass; i++)
		if (plan->pass[i].measured) {
			if (first < 0)
				first = i;
			last = i;
		}
	*ticks = 0;
	for (int i = 0; i < plan->npass; i++) {
		const struct amp_pass *ps = &plan->pass[i];

		if (i == first) {
			if (!host->sim)
				metadata_warm(plan, rp, first, last);
			if (set && set->n && amp_cset_start(set) < 0) {
				snprintf(err, len, "%s: starting the counters failed", set->ops->name);
				return -1;
			}
			t0 = now_ticks(host);
		}
		if (host->sim)
			sim_pass(plan, host->sim, ps);
		else
			real_pass(plan, rp, ps, (uint64_t)ps->times * (ps->measured ? scale : 1));
		if (i == last) {
			*ticks = now_ticks(host) - t0;
			if (set && set->n)
				amp_cset_stop(set);
		}
	}
	return 0;
}

/* The mean of the middle half of v[0..n-1] (sorts it): robust to the
 * runs an interrupt slowed, and finer than a coarse timer's step (a
 * guest's TSC may advance 26 ticks at a time: single reads of one
 * load land on either side of its true cost). */
static double midmean_of(double *v, unsigned n)
{
	double sum = 0;
	unsigned lo = n / 4, hi = n - n / 4;

	qsort(v, n, sizeof *v, amp_cmp_double);
	for (unsigned i = lo; i < hi; i++)
		sum += v[i];
	return sum / (double)(hi - lo);
}

/* Measured accesses beyond which a run is not doubled again. */
#define MAX_SCALED_ACCESSES (1ULL << 26)

int amp_run(const struct amp_plan *plan, const struct amp_host *host, struct amp_cset *set,
	    unsigned reps, struct amp_run_result *res, char *err, size_t len)
{
	struct real_plan rp;
	uint64_t measured = amp_plan_accesses(plan, 1), ticks;
	double each[AMP_RUN_MIDMEAN_REPS];
	unsigned scale = 1;
	int rc = 0;

	if (amp_plan_check(plan, err, len) < 0)
		return -1;
	if (reps == 0)
		reps = 1;
	if (!host->sim && real_prepare(plan, &rp, err, len) < 0)
		return -1;
	/* X-Ray's doubling, on the region already prepared. */
	while (!host->sim && plan->min_ticks > 0 && measured && measured * scale < MAX_SCALED_ACCESSES) {
		if (run_once(plan, host, &rp, NULL, scale, &ticks, err, len) < 0) {
			real_free(&rp);
			return -1;
		}
		if ((double)ticks >= plan->min_ticks)
			break;
		scale *= 2;
	}
	result_init(res, reps);
	res->scale = scale;
	res->accesses = measured * scale;
	for (unsigned r = 0; r < reps && rc == 0; r++) {
		rc = run_once(plan, host, &rp, set, scale, &ticks, err, len);
		if (rc == 0)
			rc = result_add(res, set, ticks, err, len);
		if (rc == 0 && r < AMP_RUN_MIDMEAN_REPS)
			each[r] = (double)ticks;
	}
	if (rc == 0)
		res->ticks_midmean = midmean_of(each, reps < AMP_RUN_MIDMEAN_REPS ? reps : AMP_RUN_MIDMEAN_REPS);
	if (!host->sim)
		real_free(&rp);
	return rc;
}

int amp_run_pair(const struct amp_plan *a, const struct amp_plan *b, const struct amp_host *host,
		 unsigned reps, double *ticks_a, double *ticks_b, char *err, size_t len)
{
	double each_a[AMP_RUN_MIDMEAN_REPS], each_b[AMP_RUN_MIDMEAN_REPS];

	if (reps == 0)
		reps = 1;
	if (reps > AMP_RUN_MIDMEAN_REPS)
		reps = AMP_RUN_MIDMEAN_REPS;
	if (amp_run_pair_each(a, b, host, reps, each_a, each_b, err, len) < 0)
		return -1;
	*ticks_a = midmean_of(each_a, reps);
	*ticks_b = midmean_of(each_b, reps);
	return 0;
}

int amp_run_pair_each(const struct amp_plan *a, const struct amp_plan *b, const struct amp_host *host,
		      unsigned reps, double *each_a, double *each_b, char *err, size_t len)
{
	struct real_plan ra, rb;
	uint64_t ticks;
	int rc = 0;

	if (amp_plan_check(a, err, len) < 0 || amp_plan_check(b, err, len) < 0)
		return -1;
	if (!host->sim && real_prepare(a, &ra, err, len) < 0)
		return -1;
	if (!host->sim && real_prepare(b, &rb, err, len) < 0) {
		real_free(&ra);
		return -1;
	}
	for (unsigned r = 0; r < reps && rc == 0; r++) {
		rc = run_once(a, host, &ra, NULL, 1, &ticks, err, len);
		each_a[r] = (double)ticks;
		if (rc == 0)
			rc = run_once(b, host, &rb, NULL, 1, &ticks, err, len);
		each_b[r] = (double)ticks;
	}
	if (!host->sim) {
		real_free(&ra);
		real_free(&rb);
	}
	return rc;
}

int amp_run_can_flush(const struct amp_host *host)
{
	return host->sim || can_flush();
}

int amp_run_overhead(const struct amp_host *host, struct amp_cset *set, unsigned reps,
		     struct amp_run_result *res, char *err, size_t len)
{
	if (reps == 0)
		reps = 1;
	result_init(res, reps);
	for (unsigned r = 0; r < reps; r++) {
		uint64_t t0, t1;

		if (set && set->n && amp_cset_start(set) < 0) {
			snprintf(err, len, "%s: starting the counters failed", set->ops->name);
			return -1;
		}
		t0 = now_ticks(host);
		t1 = now_ticks(host);
		if (set && set->n)
			amp_cset_stop(set);
		if (result_add(res, set, t1 - t0, err, len) < 0)
			return -1;
	}
	return 0;
}

int amp_event_overhead(const struct amp_backend_ops *b, const struct amp_host *host, enum amp_event ev,
		       unsigned reps, struct amp_run_result *res, char *err, size_t len)
{
	struct amp_cset set;
	int rc;

	if (amp_cset_open(&set, b, host, &ev, 1, err, len) < 0)
		return -1;
	rc = amp_run_overhead(host, &set, reps, res, err, len);
	amp_cset_close(&set);
	return rc;
}
