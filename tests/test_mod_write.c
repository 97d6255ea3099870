/* test_mod_write.c - the write-allocation module on simulated machines:
 * presets, write-allocate and no-write-allocate at L1, L2 and L3 in
 * several combinations and replacement policies, with and without
 * noise; levels it must decline, and an exclusive level. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "measure.h"
#include "mod_sim.h"
#include "sim.h"
#include "tap.h"

#define SKIP MOD_SIM_SKIP

struct wcase {
	const char *spec;
	long long l1d, l2, l3; /* 1 allocate, 0 no-alloc, -1 unknown */
	const char *why;       /* what some unknown reason must say */
};

static const struct wcase cases[] = {
	{ "pii-233", 1, 1, SKIP, NULL },
	{ "p5-133", 0, -1, SKIP, "N/C" },
	{ "usparc-1", 0, 1, SKIP, NULL },
	{ "ppro-200", 1, 1, SKIP, NULL },
	{ "pii-233;L2:write=noallocate", 1, 0, SKIP, NULL },
	{ "pii-233;L1d:write=noallocate;L2:write=noallocate", 0, 0, SKIP, NULL },
	{ "usparc-1;L2:write=noallocate", 0, 0, SKIP, NULL },
	/* Three levels, each policy on its own. */
	{ "L1d:size=8K,line=32,assoc=2,write=noallocate;L1i:size=8K,line=32,assoc=2;"
	  "L2:size=128K,line=32,assoc=4;L3:size=1M,line=64,assoc=8,write=noallocate", 0, 1, 0, NULL },
	{ "L1d:size=8K,line=32,assoc=2;L1i:size=8K,line=32,assoc=2;"
	  "L2:size=128K,line=32,assoc=4,write=noallocate;L3:size=1M,line=64,assoc=8", 1, 0, 1, NULL },
	/* Random and tree-PLRU replacement above and at the level. */
	{ "L1d:size=16K,line=32,assoc=4,policy=random;L1i:size=16K,line=32,assoc=4;"
	  "L2:size=256K,line=32,assoc=8,policy=random,write=noallocate", 1, 0, SKIP, NULL },
	{ "L1d:size=16K,line=64,assoc=8,policy=plru,write=noallocate;L1i:size=16K,line=64,assoc=8;"
	  "L2:size=512K,line=64,assoc=8,policy=plru", 0, 1, SKIP, NULL },
	{ "L1d:size=16K,line=64,assoc=8,policy=fifo;L1i:size=16K,line=64,assoc=8;"
	  "L2:size=512K,line=64,assoc=8,policy=fifo,inclusion=inclusive,write=noallocate", 1, 0, SKIP, NULL },
	/* L2 only twice L1: below a write-allocate L1 no region of lines
	 * pushed out of L1 still fits L2, so one set by strides is tested
	 * (its 16 ways of lines 4 KiB apart overflow L1's 8-way set);
	 * below a no-write-allocate L1 the stores never filled it, so any
	 * region that fits will do.  (16 ways: an 8-way L2 there has one
	 * place for L1's evictors, which overflow it, and its geometry
	 * stays unknown.) */
	{ "L1d:size=32K,line=64,assoc=8;L1i:size=32K;L2:size=64K,line=64,assoc=16", 1, 1, SKIP, NULL },
	{ "L1d:size=32K,line=64,assoc=8;L1i:size=32K;L2:size=64K,line=64,assoc=16,write=noallocate", 1, 0, SKIP,
	  NULL },
	{ "L1d:size=32K,line=64,assoc=8,write=noallocate;L1i:size=32K;L2:size=64K,line=64,assoc=16",
	  0, 1, SKIP, NULL },
	{ "L1d:size=32K,line=64,assoc=8,write=noallocate;L1i:size=32K;"
	  "L2:size=64K,line=64,assoc=16,write=noallocate", 0, 0, SKIP, NULL },
	/* An L1d without a counter: nothing to size L2's region by. */
	{ "pii-233;L1d:counter=no", -1, -1, SKIP, "needs the size of L1d" },
	/* Exclusive L2: it holds L1's victims, written or not, so whether
	 * its own stores allocate cannot be told; inclusion runs first and
	 * the module says so. */
	{ "opteron240", 1, -1, SKIP, "exclusive" },
	{ "opteron240;L1d:write=noallocate", 0, -1, SKIP, "exclusive" },
	{ "opteron240;L1d:write=noallocate;L2:write=noallocate", 0, -1, SKIP, "exclusive" },
	{ NULL, 0, 0, 0, NULL }
};

static void check(struct mod_sim *ms, const char *name, long long want, const char *spec,
		  double noise, const char *why)
{
	mod_sim_check(ms, name, AMP_FILLS(write_allocate), want, spec, noise, why);
}

static void test_cases(void)
{
	static struct mod_sim ms;
	const double noises[] = { 0, 0.01 };
	char err[AMP_REASON_LEN];

	for (const struct wcase *w = cases; w->spec; w++)
		for (size_t k = 0; k < sizeof noises / sizeof noises[0]; k++) {
			if (mod_sim_run(&ms, w->spec, noises[k], "write", err, sizeof err) < 0) {
				tap_ok(0, "%s: characterised (%s)", w->spec, err);
				mod_sim_free(&ms);
				continue;
			}
			check(&ms, "L1d", w->l1d, w->spec, noises[k], NULL);
			check(&ms, "L2", w->l2, w->spec, noises[k], w->why);
			check(&ms, "L3", w->l3, w->spec, noises[k], w->why);
			mod_sim_free(&ms);
		}
}

/* The instruction side is declined in words; the cost is counted. */
static void test_declined_and_cost(void)
{
	static struct mod_sim ms;
	char err[AMP_REASON_LEN];
	struct amp_level *l1i, *l1d, *l2;

	if (mod_sim_run(&ms, "pii-233", 0, "write", err, sizeof err) < 0) {
		tap_ok(0, "pii-233 characterised (%s)", err);
		mod_sim_free(&ms);
		return;
	}
	l1i = mod_sim_level(&ms, "L1i");
	l1d = mod_sim_level(&ms, "L1d");
	l2 = mod_sim_level(&ms, "L2");
	tap_ok(l1i && !l1i->write_allocate.known, "L1i: no write allocation measured");
	tap_has(l1i ? l1i->write_allocate.reason : NULL, "instruction cache", "L1i: the reason says why");
	/* L1d: 8 votes of 8 runs of a store and a load pass over 256 lines;
	 * L2: over 4 x 16K of 32 B lines. */
	tap_eq(l1d->write_allocate.accesses, 8 * 8 * 2 * 256, "L1d: accesses the measurement cost");
	tap_eq(l2->write_allocate.accesses, 8 * 8 * 2 * 2048, "L2: accesses the measurement cost");
	tap_eq(l1d->write_allocate.nvotes, 8, "L1d: 8 votes");
	mod_sim_free(&ms);
}

/* An exclusive level, once known, is declined in words; so is one that
 * may be exclusive. */
static void test_exclusive_declined(void)
{
	static struct amp_level lv, above;
	char why[AMP_REASON_LEN];
	const struct amp_module *mod = NULL;

	for (int m = 0; amp_modules[m]; m++)
		if (strcmp(amp_modules[m]->name, "write") == 0)
			mod = amp_modules[m];
	if (!tap_ok(mod != NULL, "the write module is in the table"))
		return;
	memset(&lv, 0, sizeof lv);
	memset(&above, 0, sizeof above);
	above.measurable = 1;
	above.size.known = 1;
	above.size.value = 64 << 10;
	lv.measurable = 1;
	lv.side = AMP_SIDE_DATA;
	lv.level = 2;
	lv.above = &above;
	lv.line.known = lv.size.known = 1;
	lv.line.value = 64;
	lv.size.value = 1 << 20;
	tap_eq(mod->supported(NULL, &lv, why, sizeof why), 0, "an L2 of 16x L1 of unknown inclusion is declined");
	tap_has(why, "may be exclusive", "because it may be exclusive");
	lv.sets_by_experiment = 1;
	tap_eq(mod->supported(NULL, &lv, why, sizeof why), 0,
	       "...and where eviction sets found no ways (a search that failed refused nothing)");
	tap_has(why, "may be exclusive", "because it may be exclusive");
	lv.assoc.known = 1;
	lv.assoc.value = 16;
	tap_eq(mod->supported(NULL, &lv, why, sizeof why), 1,
	       "...but measured where eviction sets (which refuse exclusive levels) found its ways");
	lv.sets_by_experiment = 0;
	lv.assoc.known = 0;
	lv.inclusion.known = 1;
	lv.inclusion.value = AMP_INCL_NINE;
	tap_eq(mod->supported(NULL, &lv, why, sizeof why), 1, "a NINE L2 of 16x L1 is measured");
	lv.inclusion.value = AMP_INCL_EXCLUSIVE;
	tap_eq(mod->supported(NULL, &lv, why, sizeof why), 0, "a known exclusive L2 is declined");
	tap_has(why, "undecidable", "in words");
}

/* Seed 31's h45 in the policy matrix, as the matrix runs it (harness
 * seed 46, 3 votes of 3 runs, scattered frames): an exclusive L2 under a
 * random 3-way L1d whose ways its eviction sets did not find read
 * "allocate" from one set of it, where its write policy is undecidable. */
static void test_maybe_exclusive_one_set(void)
{
	static const char *spec = "L1d:size=6144,assoc=3,line=16,policy=random,write=allocate;"
				  "L1i:size=6144,assoc=3,line=16,policy=random;"
				  "L2:size=262144,assoc=4,line=16,policy=lru,write=noallocate,inclusion=exclusive;"
				  "DTLB:entries=8,assoc=1,page=8K";
	struct mod_sim ms;
	char err[AMP_REASON_LEN];
	const struct amp_level *l2;

	if (mod_sim_run_pages(&ms, spec, 0, 46, 3, 3, NULL, NULL, 1, err, sizeof err) < 0) {
		tap_ok(0, "%s: %s", spec, err);
		mod_sim_free(&ms);
		return;
	}
	l2 = mod_sim_level(&ms, "L2");
	if (tap_ok(l2 != NULL, "has L2")) {
		tap_ok(!l2->write_allocate.known, "exclusive L2 under a random 3-way L1d: write allocation unknown (%s)",
		       l2->write_allocate.reason);
		tap_diag("its ways: %lld (%s); write %lld; inclusion: %s", (long long)l2->assoc.value, l2->assoc.reason, (long long)l2->write_allocate.value,
			 l2->inclusion.known ? amp_inclusion_names[l2->inclusion.value] : l2->inclusion.reason);
	}
	mod_sim_free(&ms);
}

/* The visiting order both modules use: every slot once, page by page. */
static void test_block_cycle(void)
{
	struct amp_plan p;
	unsigned char seen[1000] = { 0 };
	int perm = 1, changes = 0, seq;

	amp_plan_init(&p, "t", 1000 * 64);
	seq = amp_plan_add_block_cycle(&p, 64, 1000, 64, 9);
	tap_eq(seq, 0, "block cycle added");
	for (size_t i = 0; seq == 0 && i < 1000; i++) {
		uint64_t slot = p.seq[0].off[i] / 64;

		perm &= p.seq[0].off[i] % 64 == 0 && slot < 1000 && !seen[slot];
		if (slot < 1000)
			seen[slot] = 1;
		changes += i && slot / 64 != p.seq[0].off[i - 1] / 64 / 64;
	}
	tap_ok(perm, "a block cycle visits every slot once");
	tap_eq(changes, 15, "a block at a time: 16 blocks, 15 changes of block");
	tap_ok(p.seq[0].off[0] / 64 / 64 != 0 || p.seq[0].off[64] / 64 / 64 != 1,
	       "blocks not in address order");
	amp_plan_free(&p);
}

int main(void)
{
	tap_run(test_block_cycle());
	tap_run(test_cases());
	tap_run(test_declined_and_cost());
	tap_run(test_exclusive_declined());
	tap_run(test_maybe_exclusive_one_set());
	return tap_done();
}
