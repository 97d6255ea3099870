/* test_sim_model.c - the simulated memory hierarchy on traces whose
 * outcome is worked out by hand: policies, write allocation, inclusion,
 * odd associativities, TLBs, the page map, noise, cycles and flushes.
 * Specs are built here field by field, independent of the parser.
 *
 * Also the model side of tests/cachegrind.sh:
 *   test_sim_model --replay BASE WARM SEED COUNT REGION STOREPCT D1 LL
 * replays cg_trace's stream (D1, LL as SIZE,ASSOC,LINE) and prints
 * "D1 <misses> LL <misses>". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "tap.h"
#include "cg_lcg.h"

enum { D = 0, I = 1 };	/* statistics index of a side */

/* ---- specs by hand ---- */

static struct sim_spec new_spec(void)
{
	struct sim_spec s;

	memset(&s, 0, sizeof s);
	s.mem_latency = 100;
	s.seed = 1;
	s.map_page = 4096;
	return s;
}

static struct sim_level_spec *add_level(struct sim_spec *s, const char *name,
					enum sim_kind kind, int level)
{
	struct sim_level_spec *l = &s->lv[s->n++];
	size_t n = strlen(name);

	memset(l, 0, sizeof *l);
	snprintf(l->name, sizeof l->name, "%s", name);
	l->kind = kind;
	l->level = level;
	if (kind == SIM_CACHE)
		l->side = name[n - 1] == 'd' ? SIM_DATA : name[n - 1] == 'i' ? SIM_INSN : SIM_UNIFIED;
	else
		l->side = name[0] == 'D' ? SIM_DATA : name[0] == 'I' ? SIM_INSN : SIM_UNIFIED;
	l->policy = SIM_LRU;
	l->write_allocate = 1;
	l->inclusion = SIM_NINE;
	l->counter = 1;
	l->index = SIM_INDEX_VIRTUAL;
	return l;
}

/* assoc 0: fully associative.  Side and kind follow the name. */
static struct sim_level_spec *add_cache(struct sim_spec *s, const char *name, int level,
					uint64_t size, unsigned assoc, unsigned line,
					enum sim_policy policy, unsigned latency)
{
	struct sim_level_spec *l = add_level(s, name, SIM_CACHE, level);

	l->size = size;
	l->line = line;
	l->full = assoc == 0;
	l->assoc = assoc ? assoc : (unsigned)(size / line);
	l->policy = policy;
	l->latency = latency;
	return l;
}

static struct sim_level_spec *add_tlb(struct sim_spec *s, const char *name, int level,
				      unsigned entries, unsigned assoc, uint64_t page,
				      unsigned penalty)
{
	struct sim_level_spec *l = add_level(s, name, SIM_TLB, level);

	l->entries = entries;
	l->full = assoc == 0;
	l->assoc = assoc ? assoc : entries;
	l->page = page;
	l->latency = penalty;
	return l;
}

static struct sim_machine *make(const struct sim_spec *s, const char *what)
{
	char err[SIM_ERR_LEN];
	struct sim_machine *m = sim_create(s, err, sizeof err);

	if (!m) {
		printf("Bail out! sim_create (%s): %s\n", what, err);
		exit(1);
	}
	return m;
}

/* ---- accesses and statistics ---- */

static int ld(struct sim_machine *m, uint64_t a)
{
	return (int)sim_access(m, a, SIM_LOAD);
}

static int st(struct sim_machine *m, uint64_t a)
{
	return (int)sim_access(m, a, SIM_STORE);
}

static int fe(struct sim_machine *m, uint64_t a)
{
	return (int)sim_access(m, a, SIM_IFETCH);
}

static uint64_t misses(const struct sim_machine *m, int level, int side)
{
	struct sim_level_stats s;

	sim_get_stats(m, level, &s);
	return s.misses[side];
}

static uint64_t accesses(const struct sim_machine *m, int level, int side)
{
	struct sim_level_stats s;

	sim_get_stats(m, level, &s);
	return s.accesses[side];
}

/* Loads of the lines named by letters (A = line 0, B = line 1...), as a
 * string of M (level `level` missed) and H. */
static void run_letters(struct sim_machine *m, int level, unsigned line, const char *trace,
			char *out)
{
	for (; *trace; trace++) {
		uint64_t before = misses(m, level, D);

		ld(m, (uint64_t)(*trace - 'A') * line);
		*out++ = misses(m, level, D) > before ? 'M' : 'H';
	}
	*out = '\0';
}

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- replacement policies ---- */

static void test_policies(void)
{
	static const struct {
		enum sim_policy policy;
		const char *name, *t1, *t2;
	} want[] = {
		/* A B C D A E B F A: LRU evicts B for E; tree PLRU evicts C
		 * (the hit on A points the root right, its subtree at C), so
		 * B hits; FIFO evicts A itself. */
		{ SIM_LRU, "lru", "MMMMHMMMH", "MMMMHMH" },
		{ SIM_PLRU, "plru", "MMMMHMHMH", "MMMMHMH" },
		{ SIM_FIFO, "fifo", "MMMMHMHMM", "MMMMHMM" },
	};
	char got[64];

	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		add_cache(&s, "L1d", 1, 256, 4, 64, want[i].policy, 4);
		m = make(&s, want[i].name);
		run_letters(m, 0, 64, "ABCDAEBFA", got);
		tap_ok(!strcmp(got, want[i].t1), "%s 4-way: ABCDAEBFA gives %s (got %s)",
		       want[i].name, want[i].t1, got);
		sim_flush_all(m);
		run_letters(m, 0, 64, "ABCDAEA", got);
		tap_ok(!strcmp(got, want[i].t2), "%s 4-way: ABCDAEA gives %s after flush_all (got %s)",
		       want[i].name, want[i].t2, got);
		sim_destroy(m);
	}
}

/* A line that LRU keeps: hot A between ever new lines X1 X2 ... */
static uint64_t hot_line_misses(enum sim_policy policy, uint64_t seed, unsigned ways, int n)
{
	struct sim_spec s = new_spec();
	struct sim_machine *m;
	uint64_t a_misses = 0;

	s.seed = seed;
	add_cache(&s, "L1d", 1, 64 * ways, ways, 64, policy, 4);
	m = make(&s, "hot line");
	for (int i = 0; i < n; i++) {
		uint64_t before = misses(m, 0, D);

		ld(m, 0);
		a_misses += misses(m, 0, D) - before;
		ld(m, (uint64_t)(i + 1) * 64);
	}
	sim_destroy(m);
	return a_misses;
}

static void test_random(void)
{
	struct sim_spec s = new_spec();
	struct sim_machine *m1, *m2, *m3;
	uint64_t r = 99, a, b;
	int n = 20000, diff = 0;

	add_cache(&s, "L1d", 1, 256, 4, 64, SIM_RANDOM, 4);
	s.seed = 7;
	m1 = make(&s, "random 1");
	m2 = make(&s, "random 2");
	s.seed = 8;
	m3 = make(&s, "random 3");
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 4; k++)
			ld(m1, (uint64_t)k * 64);
	tap_eq(misses(m1, 0, D), 4, "random: four lines in a 4-way set miss once (invalid ways first)");
	sim_flush_all(m1);
	for (int i = 0; i < 5000; i++) {
		uint64_t line = xs(&r) % 8 * 64;
		uint64_t b1 = misses(m1, 0, D), b3 = misses(m3, 0, D);

		ld(m1, line);
		ld(m2, line);
		ld(m3, line);
		diff += (misses(m1, 0, D) - b1) != (misses(m3, 0, D) - b3);
	}
	tap_eq(misses(m1, 0, D) - 4, misses(m2, 0, D), "random: one seed, one outcome");
	tap_ok(diff > 0, "random: another seed evicts other lines (%d accesses differ)", diff);
	sim_destroy(m1);
	sim_destroy(m2);
	sim_destroy(m3);

	a = hot_line_misses(SIM_LRU, 1, 4, n);
	b = hot_line_misses(SIM_RANDOM, 1, 4, n);
	tap_eq(a, 1, "lru keeps the hot line between new lines");
	/* Each new line evicts the hot one with probability 1/4. */
	tap_ok(b > 0.2 * n && b < 0.3 * n, "random evicts the hot line about 1/4 of the time (%" PRIu64 " of %d)",
	       b, n);
	tap_eq(hot_line_misses(SIM_RANDOM, 1, 4, n), b, "random: the same seed again, the same count");
	b = hot_line_misses(SIM_RANDOM, 1, 64, n);
	tap_ok(b > (uint64_t)n / 64 / 2 && b < (uint64_t)n / 64 * 2, "random 64-way (hashed set): hot line lost about 1/64 of the time (%" PRIu64 ")",
	       b);
}

/* ---- write allocation ---- */

static void test_write_allocate(void)
{
	for (int wa = 0; wa <= 1; wa++) {
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		add_cache(&s, "L1d", 1, 1024, 2, 64, SIM_LRU, 4)->write_allocate = wa;
		add_cache(&s, "L2", 2, 8192, 4, 64, SIM_LRU, 12);
		m = make(&s, "write allocate");
		st(m, 0x1000);
		ld(m, 0x1000);
		st(m, 0x1008);
		if (wa) {
			tap_eq(misses(m, 0, D), 1, "write-allocate L1: store fills, the load hits");
			tap_eq(accesses(m, 1, D), 1, "write-allocate L1: L2 looked up once");
		} else {
			tap_eq(misses(m, 0, D), 2, "no-write-allocate L1: the store does not fill, the load misses");
			tap_eq(accesses(m, 1, D), 2, "no-write-allocate L1: both go to L2");
			tap_eq(misses(m, 1, D), 1, "no-write-allocate L1: the store filled L2, the load hits there");
			tap_eq(accesses(m, 0, D), 3, "no-write-allocate L1: the later store hits the loaded line");
		}
		sim_destroy(m);
	}
	{
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		add_cache(&s, "L1d", 1, 1024, 2, 64, SIM_LRU, 4)->write_allocate = 0;
		add_cache(&s, "L2", 2, 8192, 4, 64, SIM_LRU, 12)->write_allocate = 0;
		m = make(&s, "no write allocate anywhere");
		st(m, 0x1000);
		st(m, 0x1000);
		ld(m, 0x1000);
		ld(m, 0x1000);
		tap_eq(misses(m, 1, D), 3, "no-write-allocate L1 and L2: two stores and the load miss L2");
		tap_eq(misses(m, 0, D), 3, "no-write-allocate L1 and L2: the second load hits L1");
		sim_destroy(m);
	}
}

/* ---- prefetch ---- */

/* A miss at a level with prefetch=N fills the N lines on each side of
 * it there, within the page, and counts nothing for them. */
static void test_prefetch(void)
{
	struct sim_spec s = new_spec();
	struct sim_machine *m;

	add_cache(&s, "L1d", 1, 1024, 2, 64, SIM_LRU, 4);
	add_cache(&s, "L2", 2, 65536, 8, 64, SIM_LRU, 12)->prefetch = 2;
	m = make(&s, "prefetch");
	ld(m, 0x1040);
	tap_eq(accesses(m, 1, D), 1, "prefetch: one demand access at L2");
	tap_eq(misses(m, 1, D), 1, "prefetch: one demand miss at L2, none for the neighbours");
	ld(m, 0x1000);
	ld(m, 0x10c0);
	tap_eq(misses(m, 1, D), 1, "prefetch: the line below and two above hit L2 (0x1000, 0x10c0)");
	tap_eq(misses(m, 0, D), 3, "prefetch: L2's neighbours were not put in L1d");
	ld(m, 0x1100);
	tap_eq(misses(m, 1, D), 2, "prefetch: three lines above is beyond prefetch=2");
	ld(m, 0x2000 - 64);
	ld(m, 0x2000);
	tap_eq(misses(m, 1, D), 4, "prefetch: no fill across the page boundary");
	sim_destroy(m);
}

/* index=hashed: the lines at one page offset of 64 pages overflow the
 * 4 sets they select in a physically indexed 16 KiB 4-way L2 (64 sets:
 * 16 lines fit), and reach every set when it hashes (all 64 fit); 256
 * consecutive lines, the whole cache, fit either way. */
static void test_hashed(void)
{
	for (int hashed = 0; hashed <= 1; hashed++) {
		struct sim_spec s = new_spec();
		struct sim_machine *m;
		uint64_t before;

		add_cache(&s, "L1d", 1, 128, 2, 64, SIM_LRU, 4);
		add_cache(&s, "L2", 2, 16384, 4, 64, SIM_LRU, 12)->index =
			hashed ? SIM_INDEX_HASHED : SIM_INDEX_PHYSICAL;
		m = make(&s, hashed ? "hashed" : "physical");
		for (int pass = 0; pass < 2; pass++)
			for (uint64_t p = 0; p < 64; p++)
				ld(m, p * 4096 + 512);
		before = misses(m, 1, D);
		if (hashed)
			tap_ok(before < 64 + 16, "hashed L2: a page-offset class of 64 lines mostly fits (%llu misses in 2 passes)",
			       (unsigned long long)before);
		else
			tap_eq(before, 128, "physical L2: a page-offset class of 64 lines thrashes its 4 sets");
		for (int pass = 0; pass < 2; pass++)
			for (uint64_t i = 0; i < 256; i++)
				ld(m, (1u << 20) + i * 64);
		tap_eq(misses(m, 1, D) - before, 256, "%s L2: 256 consecutive lines fit (misses only the first pass)",
		       hashed ? "hashed" : "physical");
		sim_destroy(m);
	}
}

/* ---- inclusion ---- */

static void test_inclusive(void)
{
	for (int incl = 0; incl <= 1; incl++) {
		struct sim_spec s = new_spec();
		struct sim_machine *m;
		char got[16];

		/* L1d one set of two; L2 two sets of two: A, B, C share L2 set 0.
		 * A's L1 hit leaves it LRU in L2, so C evicts it there. */
		add_cache(&s, "L1d", 1, 128, 2, 64, SIM_LRU, 4);
		add_cache(&s, "L2", 2, 256, 2, 64, SIM_LRU, 12)->inclusion =
			incl ? SIM_INCLUSIVE : SIM_NINE;
		m = make(&s, "inclusive");
		run_letters(m, 0, 128, "ABACA", got);
		if (incl) {
			tap_ok(!strcmp(got, "MMHMM"), "inclusive L2: its eviction of A back-invalidates L1 (L1 %s)", got);
			tap_eq(misses(m, 1, D), 4, "inclusive L2: A missed in L2 again");
		} else {
			tap_ok(!strcmp(got, "MMHMH"), "NINE L2: A stays in L1 after L2 evicts it (L1 %s)", got);
			tap_eq(misses(m, 1, D), 3, "NINE L2: three L2 misses");
		}
		sim_destroy(m);
	}
	for (int incl = 0; incl <= 1; incl++) {
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		add_cache(&s, "L1d", 1, 128, 2, 64, SIM_LRU, 4);
		add_cache(&s, "L1i", 1, 128, 2, 64, SIM_LRU, 4);
		add_cache(&s, "L2", 2, 128, 2, 64, SIM_LRU, 12)->inclusion =
			incl ? SIM_INCLUSIVE : SIM_NINE;
		m = make(&s, "inclusive split");
		fe(m, 0);
		ld(m, 64);
		ld(m, 128);	/* L2 evicts line 0 */
		fe(m, 0);
		tap_eq(misses(m, 1, I), incl ? 2 : 1, "%s L2: data evicting code %s L1i",
		       incl ? "inclusive" : "NINE", incl ? "back-invalidates" : "leaves");
		tap_eq(misses(m, 2, I), incl ? 2 : 1, "%s L2: code misses in L2", incl ? "inclusive" : "NINE");
		sim_destroy(m);
	}
	{
		/* Same with scattered physical pages and a physically indexed
		 * L2: back-invalidation must find the line's virtual set in a
		 * 32-set L1 (page-aligned lines share physical L2 set 0). */
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		s.pages_random = 1;
		add_cache(&s, "L1d", 1, 4096, 2, 64, SIM_LRU, 4);
		add_cache(&s, "L2", 2, 256, 2, 64, SIM_LRU, 12)->inclusion = SIM_INCLUSIVE;
		s.lv[1].index = SIM_INDEX_PHYSICAL;
		m = make(&s, "inclusive random pages");
		ld(m, 0);
		ld(m, 4096);
		ld(m, 0);
		ld(m, 64);	/* elsewhere in L1 and L2 */
		ld(m, 8192);	/* L2 evicts line 0: L1 set 0 keeps 4096 */
		ld(m, 0);
		tap_eq(misses(m, 0, D), 5, "inclusive physical L2, random pages: back-invalidation found the line's L1 set");
		sim_destroy(m);
	}
}

static void test_exclusive(void)
{
	for (int excl = 0; excl <= 1; excl++) {
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		add_cache(&s, "L1d", 1, 128, 2, 64, SIM_LRU, 4);
		add_cache(&s, "L1i", 1, 128, 2, 64, SIM_LRU, 4);
		add_cache(&s, "L2", 2, 128, 2, 64, SIM_LRU, 12)->inclusion =
			excl ? SIM_EXCLUSIVE : SIM_NINE;
		m = make(&s, "exclusive");
		for (int pass = 0; pass < 100; pass++)
			for (int k = 0; k < 4; k++)
				ld(m, (uint64_t)k * 64);
		tap_eq(misses(m, 0, D), 400, "%s L2: four lines cycle through a 2-line L1d",
		       excl ? "exclusive" : "NINE");
		tap_eq(misses(m, 2, D), excl ? 4 : 400, "%s L2: %s", excl ? "exclusive" : "NINE",
		       excl ? "L1 + L2 hold all four lines (cold misses only)" : "a 2-line L2 holds no cycle of four");
		sim_destroy(m);
	}
	{
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		add_cache(&s, "L1d", 1, 128, 2, 64, SIM_LRU, 4);
		add_cache(&s, "L1i", 1, 128, 2, 64, SIM_LRU, 4);
		add_cache(&s, "L2", 2, 128, 2, 64, SIM_LRU, 12)->inclusion = SIM_EXCLUSIVE;
		m = make(&s, "exclusive moves");
		ld(m, 0);
		ld(m, 64);
		tap_eq(misses(m, 2, D), 2, "exclusive L2: missed, but not filled");
		ld(m, 128);	/* L1d victim A goes to L2 */
		ld(m, 0);	/* L2 hit: A moves up, L1d victim B goes down */
		tap_eq(misses(m, 2, D), 3, "exclusive L2: the L1d victim hits in L2");
		fe(m, 0);
		tap_eq(misses(m, 2, I), 1, "exclusive L2: the line moved up left L2");
		fe(m, 64);
		tap_eq(misses(m, 2, I), 1, "exclusive L2: L1d's next victim is there");
		sim_destroy(m);
	}
	{
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		add_cache(&s, "L1d", 1, 128, 2, 64, SIM_LRU, 4);
		add_cache(&s, "L1i", 1, 128, 2, 64, SIM_LRU, 4);
		add_cache(&s, "L2", 2, 128, 2, 64, SIM_LRU, 12)->inclusion = SIM_EXCLUSIVE;
		m = make(&s, "exclusive code victims");
		fe(m, 0);
		fe(m, 64);
		fe(m, 128);	/* L1i victim line 0 goes to L2 */
		ld(m, 0);
		tap_ok(accesses(m, 2, D) == 1 && misses(m, 2, D) == 0, "exclusive L2: L1i victims go there too");
		sim_destroy(m);
	}
	for (int excl = 0; excl <= 1; excl++) {
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		/* One line per level: exclusive L2 and L3 pass victims down. */
		add_cache(&s, "L1d", 1, 64, 1, 64, SIM_LRU, 4);
		add_cache(&s, "L2", 2, 64, 1, 64, SIM_LRU, 12)->inclusion = SIM_EXCLUSIVE;
		add_cache(&s, "L3", 3, 64, 1, 64, SIM_LRU, 40)->inclusion = excl ? SIM_EXCLUSIVE : SIM_NINE;
		m = make(&s, "exclusive chain");
		for (int pass = 0; pass < 10; pass++)
			for (int k = 0; k < 3; k++)
				ld(m, (uint64_t)k * 64);
		tap_eq(misses(m, 1, D), 30, "exclusive L2 over %s L3: L2 misses each time", excl ? "exclusive" : "NINE");
		tap_eq(misses(m, 2, D), excl ? 3 : 30, "%s L3 below exclusive L2: %s", excl ? "exclusive" : "NINE",
		       excl ? "L2's victims land there" : "L2's victims are dropped");
		sim_destroy(m);
	}
}

/* ---- geometry ---- */

static void sweep(struct sim_machine *m, uint64_t lines, uint64_t stride, int passes)
{
	for (int p = 0; p < passes; p++)
		for (uint64_t k = 0; k < lines; k++)
			ld(m, k * stride);
}

static void test_odd_assoc(void)
{
	static const unsigned ways[] = { 3, 5, 12, 24 };

	for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
		unsigned w = ways[i];
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		/* Three sets: odd set count and odd way count. */
		add_cache(&s, "L1d", 1, 3 * w * 64, w, 64, SIM_LRU, 4);
		m = make(&s, "odd assoc");
		sweep(m, 3 * w, 64, 10);
		tap_eq(misses(m, 0, D), 3 * w, "%u-way, 3 sets: a sweep of the size misses only when cold", w);
		sim_flush_all(m);
		sweep(m, 3 * w + 1, 64, 10);
		tap_eq(misses(m, 0, D), 3 * w + (3 * w + 1) + 9 * (w + 1),
		       "%u-way, 3 sets: size + one line: set 0 misses every time", w);
		sim_flush_all(m);
		sweep(m, w + 1, 3 * 64, 10);
		tap_eq(misses(m, 0, D), 3 * w + (3 * w + 1) + 9 * (w + 1) + 10 * (w + 1),
		       "%u-way: %u lines of one set miss every time", w, w + 1);
		sim_destroy(m);

		s = new_spec();
		add_cache(&s, "L1d", 1, w * 64, w, 64, SIM_FIFO, 4);
		m = make(&s, "odd assoc fifo");
		sweep(m, w, 64, 10);
		sweep(m, w + 1, 64, 10);
		tap_eq(misses(m, 0, D), w + 1 + 9 * (w + 1), "%u-way FIFO: size fits, size + one line always misses", w);
		sim_destroy(m);
	}
}

static void test_full(void)
{
	static const enum sim_policy pol[] = { SIM_LRU, SIM_FIFO, SIM_PLRU, SIM_RANDOM };
	static const char *const name[] = { "lru", "fifo", "plru", "random" };

	for (int i = 0; i < 4; i++) {
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		add_cache(&s, "L1d", 1, 4096, 0, 64, pol[i], 4);
		m = make(&s, "full");
		sweep(m, 64, 64, 5);
		tap_eq(misses(m, 0, D), 64, "fully associative 64 lines, %s: a sweep of 64 misses only when cold", name[i]);
		if (pol[i] == SIM_LRU || pol[i] == SIM_FIFO) {
			sweep(m, 65, 64, 5);
			tap_eq(misses(m, 0, D), 64 + 1 + 4 * 65, "fully associative 64 lines, %s: 65 lines always miss", name[i]);
		}
		sim_destroy(m);
	}
	{
		/* 64 MB fully associative: 1M ways, hashed, O(1) LRU. */
		struct sim_spec s = new_spec();
		struct sim_machine *m;
		uint64_t n = UINT64_C(1) << 20;

		add_cache(&s, "L1d", 1, 64 << 20, 0, 64, SIM_LRU, 4);
		m = make(&s, "big full");
		sweep(m, n, 64, 2);
		tap_eq(misses(m, 0, D), n, "64 MB fully associative: 1M lines twice, cold misses only");
		ld(m, n * 64);	/* evicts line 0 */
		ld(m, 64);	/* hit; line 2 is LRU now */
		ld(m, 0);	/* evicts line 2 */
		ld(m, 128);
		tap_eq(misses(m, 0, D), n + 3, "64 MB fully associative: exact LRU order at 1M ways");
		sim_destroy(m);
	}
	{
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		add_cache(&s, "L1d", 1, 32768, 8, 64, SIM_LRU, 4);
		add_tlb(&s, "DTLB", 1, 2048, 0, 4096, 10);
		m = make(&s, "big full tlb");
		sweep(m, 2048, 4096, 3);
		tap_eq(misses(m, 1, D), 2048, "2048-entry fully associative TLB: 2048 pages miss once");
		sweep(m, 2049, 4096, 2);
		tap_eq(misses(m, 1, D), 2048 + 1 + 2049, "2048-entry fully associative TLB: 2049 pages always miss");
		sim_destroy(m);
	}
}

/* ---- TLBs ---- */

static void test_tlb(void)
{
	struct sim_spec s = new_spec();
	struct sim_machine *m;
	const uint64_t P = 4096;

	add_cache(&s, "L1d", 1, 32768, 8, 64, SIM_LRU, 4);
	add_tlb(&s, "DTLB", 1, 4, 2, P, 10);	/* two sets of two */
	m = make(&s, "dtlb");
	ld(m, 0);
	ld(m, 2 * P + 8);
	ld(m, 4 * P + 16);	/* evicts page 0 */
	ld(m, 0 + 24);	/* evicts page 2 */
	ld(m, 1 * P);
	ld(m, 3 * P);
	ld(m, 1 * P + 100);
	tap_eq(misses(m, 1, D), 6, "DTLB 4 entries 2-way: set conflicts under LRU");
	tap_eq(accesses(m, 1, D), 7, "DTLB: every load looked up");
	fe(m, 0);
	tap_eq(accesses(m, 1, I), 0, "no ITLB: fetches translate nothing");
	sim_destroy(m);

	s = new_spec();
	add_cache(&s, "L1d", 1, 32768, 8, 64, SIM_LRU, 0);
	add_tlb(&s, "DTLB", 1, 4, 0, P, 10);
	add_tlb(&s, "STLB", 2, 16, 4, P, 30);
	s.mem_latency = 0;
	m = make(&s, "stlb");
	sweep(m, 8, P, 2);
	tap_eq(misses(m, 1, D), 16, "DTLB 4 entries: 8 pages always miss");
	tap_eq(accesses(m, 2, D), 16, "STLB: looked up on each DTLB miss");
	tap_eq(misses(m, 2, D), 8, "STLB 16 entries: 8 pages miss once");
	tap_eq(sim_cycles(m), 16 * 10 + 8 * 30, "TLB penalties: DTLB 10 per miss, STLB 30 per miss");
	ld(m, 7 * P);
	tap_eq(accesses(m, 2, D), 16, "STLB: not looked up on a DTLB hit");
	fe(m, 0);
	tap_eq(accesses(m, 2, I), 0, "no ITLB: fetches skip the STLB too");
	sim_destroy(m);

	for (int unified = 0; unified <= 1; unified++) {
		s = new_spec();
		add_cache(&s, "L1d", 1, 32768, 8, 64, SIM_LRU, 4);
		add_cache(&s, "L1i", 1, 32768, 8, 64, SIM_LRU, 4);
		if (unified) {
			add_tlb(&s, "TLB", 1, 8, 0, P, 10);
		} else {
			add_tlb(&s, "DTLB", 1, 8, 0, P, 10);
			add_tlb(&s, "ITLB", 1, 8, 0, P, 10);
		}
		m = make(&s, "tlb sides");
		ld(m, 5 * P);
		fe(m, 5 * P + 64);
		if (unified) {
			tap_eq(misses(m, 2, I), 0, "unified TLB: a fetch finds the page a load brought");
			tap_eq(accesses(m, 2, I), 1, "unified TLB: fetches counted on the insn side");
		} else {
			tap_eq(misses(m, 3, I), 1, "split TLBs: the ITLB misses a page the DTLB holds");
			tap_eq(misses(m, 2, D), 1, "split TLBs: the DTLB missed once");
		}
		sim_destroy(m);
	}

	s = new_spec();
	add_cache(&s, "L1d", 1, 32768, 8, 64, SIM_LRU, 4);
	add_tlb(&s, "DTLB", 1, 4, 4, 2 << 20, 10);
	m = make(&s, "2M pages");
	ld(m, 0);
	ld(m, 100 * P);
	ld(m, (2 << 20) - 8);
	tap_eq(misses(m, 1, D), 1, "2 MB pages: one entry covers 2 MB");
	ld(m, 2 << 20);
	tap_eq(misses(m, 1, D), 2, "2 MB pages: the next 2 MB is another entry");
	sim_destroy(m);
}

/* ---- the page map ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_pages(void)
{
	struct sim_spec s = new_spec();
	struct sim_machine *m1, *m2, *m3, *mi;
	unsigned char seen[1024];
	int distinct = 0, same = 1, other = 0, offsets = 1;
	size_t n = (size_t)1 << 20, dups = 0;
	uint64_t *f;

	add_cache(&s, "L1d", 1, 32768, 8, 64, SIM_LRU, 4);
	add_cache(&s, "L2", 2, 256 << 10, 4, 64, SIM_LRU, 12)->index = SIM_INDEX_PHYSICAL;
	mi = make(&s, "identity pages");
	s.pages_random = 1;
	m1 = make(&s, "random pages");
	m2 = make(&s, "random pages again");
	s.seed = 2;
	m3 = make(&s, "random pages, seed 2");

	tap_eq(sim_translate(mi, 0x123456789), 0x123456789, "contiguous pages: physical = virtual");
	/* 64 KB apart: one L2 set virtually (1024 sets of 64 B). */
	memset(seen, 0, sizeof seen);
	for (uint64_t k = 0; k < 64; k++) {
		uint64_t va = k << 16, pa = sim_translate(m1, va | 0x48);
		unsigned set = (unsigned)(pa >> 6) % 1024;

		distinct += !seen[set];
		seen[set] = 1;
		same &= sim_translate(m2, va | 0x48) == pa;
		other += sim_translate(m3, va | 0x48) != pa;
		offsets &= (pa & 4095) == 0x48;
	}
	tap_ok(distinct >= 8, "random pages: 64 addresses of one virtual set land in %d physical sets", distinct);
	tap_ok(same, "random pages: the same seed, the same frames");
	tap_ok(other > 32, "random pages: another seed, other frames (%d of 64 differ)", other);
	tap_ok(offsets, "random pages: the offset in the page is kept");
	/* 36 bits of vpn above 4 KB pages: va bits 12..47 mixed. */
	tap_eq(sim_translate(m1, (UINT64_C(1) << 50) | 0x1000) >> 48, (UINT64_C(1) << 50) >> 48,
	       "random pages: vpn bits above the mixed width are kept");

	/* The same conflict pattern in the simulated L2. */
	sweep(mi, 16, 1 << 16, 10);
	sweep(m1, 16, 1 << 16, 10);
	tap_eq(misses(mi, 1, D), 160, "contiguous pages: 16 lines in one physical 4-way set always miss");
	tap_ok(misses(m1, 1, D) >= 16 && misses(m1, 1, D) < 80,
	       "random pages: the same lines spread over physical sets (%" PRIu64 " L2 misses)", misses(m1, 1, D));

	f = malloc((n + 4096) * sizeof *f);
	if (!f) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	for (size_t k = 0; k < n; k++)
		f[k] = sim_translate(m1, (uint64_t)k << 12) >> 12;
	for (size_t k = 0; k < 4096; k++)	/* far apart and strided vpns too */
		f[n + k] = sim_translate(m1, ((uint64_t)k * 0x1000001 + (UINT64_C(1) << 34)) << 12) >> 12;
	qsort(f, n + 4096, sizeof *f, cmp_u64);
	for (size_t k = 1; k < n + 4096; k++)
		dups += f[k] == f[k - 1];
	tap_eq(dups, 0, "random pages: no two of %zu vpns share a frame", n + 4096);
	free(f);
	sim_destroy(mi);
	sim_destroy(m1);
	sim_destroy(m2);
	sim_destroy(m3);
}

/* ---- noise ---- */

struct noise_run {
	uint64_t l1, l2, tlb, cycles;
};

static struct noise_run noise_run(double p, uint64_t seed)
{
	struct sim_spec s = new_spec();
	struct sim_machine *m;
	struct noise_run r;
	uint64_t x = 12345;

	s.noise = p;
	s.seed = seed;
	add_cache(&s, "L1d", 1, 4096, 4, 64, SIM_LRU, 4);
	add_cache(&s, "L2", 2, 32768, 8, 64, SIM_LRU, 12);
	add_tlb(&s, "DTLB", 1, 16, 4, 4096, 10);
	m = make(&s, "noise");
	for (int i = 0; i < 200000; i++) {
		uint64_t v = xs(&x);

		/* Mostly a 2 KB hot set, sometimes anywhere in 256 KB. */
		ld(m, v % 8 ? v % 2048 : v % (256 << 10));
	}
	r.l1 = misses(m, 0, D);
	r.l2 = misses(m, 1, D);
	r.tlb = misses(m, 2, D);
	r.cycles = sim_cycles(m);
	sim_destroy(m);
	return r;
}

static void test_noise(void)
{
	struct noise_run z1 = noise_run(0, 1), z2 = noise_run(0, 99);
	struct noise_run a = noise_run(0.01, 3), b = noise_run(0.01, 3), c = noise_run(0.01, 4);
	struct noise_run h = noise_run(0.5, 3);

	tap_ok(z1.l1 == z2.l1 && z1.l2 == z2.l2 && z1.tlb == z2.tlb && z1.cycles == z2.cycles,
	       "noise 0: the seed changes nothing");
	tap_ok(a.l1 == b.l1 && a.l2 == b.l2 && a.tlb == b.tlb && a.cycles == b.cycles,
	       "noise 0.01: one seed, one outcome");
	tap_ok(a.l1 != c.l1 || a.cycles != c.cycles, "noise 0.01: another seed, another outcome");
	tap_ok(a.l1 > z1.l1, "noise 0.01: more L1 misses (%" PRIu64 " > %" PRIu64 ")", a.l1, z1.l1);
	tap_ok(a.l1 >= z1.l1 + 200000 / 100 / 2, "noise 0.01: about one spurious L1 miss per 100 accesses");
	tap_ok(c.l1 > z1.l1 && c.tlb >= z1.tlb && a.tlb >= z1.tlb,
	       "noise 0.01: never fewer L1 or TLB misses than without");
	tap_ok(h.tlb > z1.tlb && h.l1 > a.l1 && h.cycles > a.cycles,
	       "noise 0.5: context switches empty TLBs (%" PRIu64 " > %" PRIu64 " TLB misses)", h.tlb, z1.tlb);
}

/* A busy SMT sibling: its lines take ways of L1d and L2 (never L3),
 * its accesses count nowhere.  A walk of 4 lines in one set of a 4-way
 * L1d fits it alone; beside a sibling it misses now and then. */
static void sibling_walk(double q, uint64_t seed, uint64_t *l1, uint64_t *l2, uint64_t *l3, uint64_t *acc)
{
	struct sim_spec s = new_spec();
	struct sim_machine *m;

	s.sibling = q;
	s.seed = seed;
	add_cache(&s, "L1d", 1, 4096, 4, 64, SIM_LRU, 4);
	add_cache(&s, "L2", 2, 32768, 8, 64, SIM_LRU, 12);
	add_cache(&s, "L3", 3, 1 << 20, 16, 64, SIM_LRU, 40);
	m = make(&s, "sibling");
	for (int i = 0; i < 100000; i++)
		ld(m, (uint64_t)(i % 4) * 1024); /* one set of L1d (way 1 KiB) */
	*l1 = misses(m, 0, D);
	*l2 = misses(m, 1, D);
	*l3 = misses(m, 2, D);
	*acc = sim_total_accesses(m);
	sim_destroy(m);
}

static void test_sibling(void)
{
	uint64_t l1, l2, l3, acc, q1, q2, q3, qa, r1, r2, r3, ra;
	struct sim_spec s = new_spec();
	char err[256];

	sibling_walk(0, 1, &l1, &l2, &l3, &acc);
	tap_ok(l1 == 4 && l2 == 4 && l3 == 4, "no sibling: 4 lines of one 4-way set miss once each");
	sibling_walk(0.2, 1, &q1, &q2, &q3, &qa);
	sibling_walk(0.2, 1, &r1, &r2, &r3, &ra);
	tap_ok(q1 > 4 && q1 < 100000 / 2, "sibling 0.2: the set loses lines to it now and then (%" PRIu64 " L1d misses)",
	       q1);
	tap_ok(q2 <= q1 && q3 == 4, "sibling 0.2: those come back from L2 (%" PRIu64 " misses), L3 untouched", q2);
	tap_ok(qa == acc, "sibling 0.2: its own accesses count nowhere (%" PRIu64 ")", qa);
	tap_ok(q1 == r1 && q2 == r2, "sibling 0.2: one seed, one outcome");
	s.sibling = 1.0;
	add_cache(&s, "L1d", 1, 4096, 4, 64, SIM_LRU, 4);
	tap_ok(sim_create(&s, err, sizeof err) == NULL && strstr(err, "sibling"), "sibling 1 is refused: %s", err);
}

/* A sibling's busy spell (sibling_ways 1 from access 1000 to 2000):
 * its line stays recent in each set we touch, in L1d and L2, so 4
 * lines of one set of a 4-way L1d miss it on every access of the spell
 * (LRU: the fourth line's turn finds the sibling's line younger), and
 * hit again once it ends; 3 lines fit beside it.  L2 (8-way) keeps
 * them all, and the sibling's lines count nowhere. */
static void spell_walk(unsigned lines, uint64_t *before, uint64_t *during, uint64_t *after, uint64_t *l2)
{
	struct sim_spec s = new_spec();
	struct sim_machine *m;
	uint64_t at[3] = { 0 };

	s.sibling_ways = 1;
	s.sibling_from = 1000;
	s.sibling_until = 2000;
	add_cache(&s, "L1d", 1, 4096, 4, 64, SIM_LRU, 4);
	add_cache(&s, "L2", 2, 32768, 8, 64, SIM_LRU, 12);
	m = make(&s, "spell");
	for (int i = 0; i < 3000; i++) {
		if (i == 1000 || i == 2000)
			at[i / 1000] = misses(m, 0, D);
		ld(m, (uint64_t)(i % lines) * 1024); /* one set of L1d (way 1 KiB) */
	}
	*before = at[1];
	*during = at[2] - at[1];
	*after = misses(m, 0, D) - at[2];
	*l2 = misses(m, 1, D);
	tap_ok(sim_total_accesses(m) == 3000, "sibling spell, %u lines: its own accesses count nowhere", lines);
	sim_destroy(m);
}

static void test_sibling_spell(void)
{
	uint64_t before, during, after, l2;

	spell_walk(4, &before, &during, &after, &l2);
	tap_ok(before == 4 && during >= 990 && after <= 4 && l2 == 4,
	       "sibling spell: 4 lines of a 4-way set miss %" PRIu64 " times before it, %" PRIu64
	       " of 1000 in it, %" PRIu64 " after; L2 %" PRIu64 " (cold only)",
	       before, during, after, l2);
	spell_walk(3, &before, &during, &after, &l2);
	tap_ok(before == 3 && during <= 1 && after == 0 && l2 == 3,
	       "sibling spell: 3 lines fit beside its line (%" PRIu64 " misses in it)", during);
}

/* ---- cycles ---- */

static void test_cycles(void)
{
	struct sim_spec s = new_spec();
	struct sim_machine *m;
	int c1, c2, c3, c4, c5, c6;

	add_cache(&s, "L1d", 1, 128, 2, 64, SIM_LRU, 4);
	add_cache(&s, "L2", 2, 8192, 4, 64, SIM_LRU, 12);
	add_tlb(&s, "DTLB", 1, 4, 4, 4096, 10);
	add_tlb(&s, "STLB", 2, 64, 4, 4096, 30);
	m = make(&s, "cycles");
	c1 = ld(m, 0);
	c2 = ld(m, 8);
	c3 = st(m, 64);
	c4 = ld(m, 128);	/* L1d evicts line 0 */
	c5 = ld(m, 0);
	c6 = fe(m, 64);	/* no L1i, no ITLB: straight to L2 */
	tap_eq(c1, 10 + 30 + 4 + 12 + 100, "cycles: DTLB and STLB miss, L1 and L2 miss, memory");
	tap_eq(c2, 4, "cycles: L1 hit");
	tap_eq(c3, 4 + 12 + 100, "cycles: a store to a new line in a known page");
	tap_eq(c4, 4 + 12 + 100, "cycles: another new line");
	tap_eq(c5, 4 + 12, "cycles: L2 hit");
	tap_eq(c6, 12, "cycles: a fetch with no L1i and no ITLB costs the L2 lookup");
	tap_eq(sim_cycles(m), (uint64_t)(c1 + c2 + c3 + c4 + c5 + c6), "cycles: the sum is kept");
	tap_eq(sim_total_accesses(m), 6, "six accesses counted");
	tap_eq(accesses(m, 1, I), 1, "L2 counts the fetch on the insn side");
	tap_ok(sim_op_count(m, SIM_LOAD) == 4 && sim_op_count(m, SIM_STORE) == 1 &&
	       sim_op_count(m, SIM_IFETCH) == 1, "loads, stores and fetches counted apart");
	tap_ok(sim_get_spec(m)->n == 4 && !strcmp(sim_get_spec(m)->lv[3].name, "STLB"),
	       "the machine keeps its spec");
	sim_destroy(m);

	s = new_spec();
	m = make(&s, "no levels");
	tap_eq(ld(m, 0), 100, "no caches at all: memory latency");
	sim_destroy(m);
}

/* ---- flushes ---- */

static void test_flush(void)
{
	for (int random = 0; random <= 1; random++) {
		struct sim_spec s = new_spec();
		struct sim_machine *m;
		const char *how = random ? "random pages" : "contiguous pages";

		s.pages_random = random;
		add_cache(&s, "L1d", 1, 4096, 4, 64, SIM_LRU, 4);
		add_cache(&s, "L2", 2, 65536, 8, 64, SIM_LRU, 12)->index = SIM_INDEX_PHYSICAL;
		add_tlb(&s, "DTLB", 1, 16, 4, 4096, 10);
		m = make(&s, "flush");
		sweep(m, 10, 64, 1);
		sim_flush_range(m, 192, 128);
		sweep(m, 10, 64, 1);
		tap_eq(misses(m, 0, D), 12, "flush_range (%s): lines 3 and 4 leave L1", how);
		tap_eq(misses(m, 1, D), 12, "flush_range (%s): and L2", how);
		tap_eq(misses(m, 2, D), 1, "flush_range (%s): TLBs are kept", how);
		sim_flush_range(m, 200, 1);
		ld(m, 3 * 64);
		ld(m, 4 * 64);
		tap_eq(misses(m, 0, D), 13, "flush_range (%s): one byte flushes its line only", how);
		sim_flush_all(m);
		sweep(m, 10, 64, 1);
		tap_eq(misses(m, 0, D), 23, "flush_all (%s): every line misses again", how);
		tap_eq(misses(m, 2, D), 2, "flush_all (%s): TLBs emptied, statistics kept", how);
		sim_flush_range(m, 0, UINT64_C(1) << 40);
		sweep(m, 10, 64, 1);
		tap_eq(misses(m, 1, D), 12 + 1 + 10 + 10, "flush_range (%s): a range larger than the cache", how);
		sim_destroy(m);
	}
	{
		/* A range larger than the level, but not all of its lines. */
		struct sim_spec s = new_spec();
		struct sim_machine *m;

		s.pages_random = 1;
		add_cache(&s, "L1d", 1, 4096, 0, 64, SIM_LRU, 4);
		m = make(&s, "flush scan");
		sweep(m, 32, 64, 1);
		for (uint64_t k = 0; k < 32; k++)
			ld(m, (1 << 20) + k * 64);
		sim_flush_range(m, 0, 8192);
		sweep(m, 32, 64, 1);
		for (uint64_t k = 0; k < 32; k++)
			ld(m, (1 << 20) + k * 64);
		tap_eq(misses(m, 0, D), 64 + 32, "flush_range by scanning the level: only lines in the range leave");
		sim_destroy(m);
	}
}

/* ---- structure ---- */

static void test_split_l2(void)
{
	struct sim_spec s = new_spec();
	struct sim_machine *m;

	add_cache(&s, "L1d", 1, 4096, 4, 64, SIM_LRU, 4);
	add_cache(&s, "L1i", 1, 4096, 4, 64, SIM_LRU, 4);
	add_cache(&s, "L2d", 2, 65536, 8, 64, SIM_LRU, 12);
	add_cache(&s, "L2i", 2, 65536, 8, 64, SIM_LRU, 12);
	add_cache(&s, "L3", 3, 1 << 20, 16, 64, SIM_LRU, 40);
	m = make(&s, "split L2");
	ld(m, 0);
	fe(m, 0);
	tap_ok(misses(m, 2, D) == 1 && accesses(m, 2, I) == 0, "split L2: data goes through L2d only");
	tap_ok(misses(m, 3, I) == 1 && accesses(m, 3, D) == 0, "split L2: code goes through L2i only");
	tap_ok(misses(m, 4, D) == 1 && misses(m, 4, I) == 0, "split L2: L3 is shared (the fetch hits there)");
	sim_destroy(m);
}

static void test_errors(void)
{
	char err[SIM_ERR_LEN];
	struct sim_spec s;

	s = new_spec();
	add_cache(&s, "L1d", 1, 4096, 4, 64, SIM_LRU, 4);
	add_cache(&s, "L1d", 1, 4096, 4, 64, SIM_LRU, 4);
	tap_ok(!sim_create(&s, err, sizeof err) && err[0], "two L1d: refused (%s)", err);
	s = new_spec();
	add_cache(&s, "L1d", 1, 3 * 64, 3, 64, SIM_PLRU, 4);
	tap_ok(!sim_create(&s, err, sizeof err) && err[0], "plru on 3 ways: refused (%s)", err);
	s = new_spec();
	add_cache(&s, "L1d", 1, 4096, 4, 0, SIM_LRU, 4);
	tap_ok(!sim_create(&s, err, sizeof err) && err[0], "line 0: refused (%s)", err);
	s = new_spec();
	add_cache(&s, "L1d", 1, 65 * 64, 4, 64, SIM_LRU, 4);
	tap_ok(!sim_create(&s, err, sizeof err) && err[0], "size not a multiple of line*assoc: refused (%s)", err);
	s = new_spec();
	s.map_page = 0;
	tap_ok(!sim_create(&s, err, sizeof err) && err[0], "map_page 0: refused (%s)", err);
	s = new_spec();
	add_cache(&s, "L1d", 1, UINT64_C(1) << 40, 8, 64, SIM_LRU, 4);
	tap_ok(!sim_create(&s, err, sizeof err) && err[0], "a 1 TB cache: refused (%s)", err);
}

/* ---- the cachegrind replay ---- */

static int parse_geom(const char *t, uint64_t *size, unsigned *assoc, unsigned *line)
{
	unsigned long long sz;

	return sscanf(t, "%llu,%u,%u", &sz, assoc, line) == 3 ? (*size = sz, 0) : -1;
}

static void replay_stream(struct sim_machine *m, uint64_t base, uint64_t seed, uint64_t count,
			  uint64_t region, unsigned pct)
{
	struct cg_lcg g;

	cg_lcg_init(&g, seed);
	for (uint64_t i = 0; i < count; i++) {
		int store;
		uint64_t off = cg_lcg_next(&g, region / 8, pct, &store);

		sim_access(m, base + off, store ? SIM_STORE : SIM_LOAD);
	}
}

static int replay(int argc, char **argv)
{
	struct sim_spec s = new_spec();
	struct sim_machine *m;
	uint64_t v[6], d1size, llsize;
	unsigned d1assoc, d1line, llassoc, llline;

	if (argc != 10) {
		fprintf(stderr, "usage: test_sim_model --replay BASE WARM SEED COUNT REGION STOREPCT D1 LL\n");
		return 2;
	}
	for (int i = 0; i < 6; i++)
		v[i] = strtoull(argv[2 + i], NULL, 0);
	if (parse_geom(argv[8], &d1size, &d1assoc, &d1line) ||
	    parse_geom(argv[9], &llsize, &llassoc, &llline) || v[4] < 8 || v[5] > 100) {
		fprintf(stderr, "test_sim_model --replay: bad arguments\n");
		return 2;
	}
	/* Cachegrind's machine: LRU, write-allocate, virtual addresses, LL
	 * looked up on D1 misses only; an L1i the trace never touches. */
	add_cache(&s, "L1d", 1, d1size, d1assoc, d1line, SIM_LRU, 1);
	add_cache(&s, "L1i", 1, 32768, 8, 64, SIM_LRU, 1);
	add_cache(&s, "L2", 2, llsize, llassoc, llline, SIM_LRU, 10);
	m = make(&s, "replay");
	replay_stream(m, v[1], CG_WARM_SEED, CG_WARM_COUNT, CG_WARM_REGION, CG_WARM_STOREPCT);
	replay_stream(m, v[0], v[2], v[3], v[4], (unsigned)v[5]);
	printf("D1 %" PRIu64 " LL %" PRIu64 "\n", misses(m, 0, D), misses(m, 2, D));
	sim_destroy(m);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--replay"))
		return replay(argc, argv);
	test_policies();
	test_random();
	test_write_allocate();
	test_prefetch();
	test_hashed();
	test_inclusive();
	test_exclusive();
	test_odd_assoc();
	test_full();
	test_tlb();
	test_pages();
	test_noise();
	test_sibling();
	test_sibling_spell();
	test_cycles();
	test_flush();
	test_split_l2();
	test_errors();
	return tap_done();
}
