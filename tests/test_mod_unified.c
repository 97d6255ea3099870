/* test_mod_unified.c - the split/unified module on simulated machines:
 * split and unified L1, unified and split L2 (with a unified L3 below),
 * replacement policies, an exclusive L2, with and without noise; levels
 * it must decline. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "measure.h"
#include "mod_sim.h"
#include "sim.h"
#include "tap.h"

#define SKIP MOD_SIM_SKIP

struct ucase {
	const char *spec;
	long long l1d, l1i, l2, l3; /* 1 unified, 0 split, -1 unknown */
	const char *why;            /* what some unknown reason must say */
};

static const struct ucase cases[] = {
	{ "pii-233", 0, 0, 1, SKIP, NULL },
	{ "usparc-1", 0, 0, 1, SKIP, NULL },
	{ "p5-133", 0, 0, -1, SKIP, "N/C" },
	/* One L1 for both sides: the L1d test and the L1i mirror test agree. */
	{ "L1:size=16K,line=32,assoc=4;L2:size=512K,line=32,assoc=4", 1, 1, 1, SKIP, NULL },
	{ "L1:size=8K,line=32,assoc=2,write=noallocate;L2:size=256K,line=32,assoc=4", 1, 1, 1, SKIP, NULL },
	/* A split L2 above a unified L3. */
	{ "L1d:size=16K,line=32,assoc=4;L1i:size=16K,line=32,assoc=4;"
	  "L2d:size=256K,line=32,assoc=4;L2i:size=256K,line=32,assoc=4;L3:size=4M,line=64,assoc=8",
	  0, 0, 0, 1, NULL },
	{ "L1d:size=16K,line=64,assoc=4;L1i:size=32K,line=64,assoc=8;"
	  "L2d:size=512K,line=64,assoc=8;L2i:size=128K,line=64,assoc=4;L3:size=8M,line=64,assoc=16",
	  0, 0, 0, 1, NULL },
	/* Random, tree-PLRU and FIFO replacement. */
	{ "L1:size=16K,line=32,assoc=4,policy=random;L2:size=512K,line=32,assoc=8,policy=random",
	  1, 1, 1, SKIP, NULL },
	{ "L1d:size=16K,line=32,assoc=4,policy=random;L1i:size=16K,line=32,assoc=4,policy=random;"
	  "L2:size=512K,line=32,assoc=8,policy=random", 0, 0, 1, SKIP, NULL },
	{ "L1d:size=32K,line=64,assoc=8,policy=plru;L1i:size=32K,line=64,assoc=8,policy=plru;"
	  "L2:size=1M,line=64,assoc=16,policy=plru,inclusion=inclusive", 0, 0, 1, SKIP, NULL },
	{ "L1:size=32K,line=64,assoc=8,policy=fifo;L2:size=1M,line=64,assoc=16,policy=fifo",
	  1, 1, 1, SKIP, NULL },
	/* Exclusive L2: code victims from L1i land in it. */
	{ "opteron240", 0, 0, 1, SKIP, NULL },
	/* L2 only twice L1: data cannot be pushed out of L1 and stay in L2
	 * (16 ways: see test_mod_write.c). */
	{ "L1d:size=32K,line=64,assoc=8;L1i:size=32K;L2:size=64K,line=64,assoc=16", 0, 0, -1, SKIP,
	  "less than 2 times" },
	{ NULL, 0, 0, 0, 0, NULL }
};

static void check(struct mod_sim *ms, const char *name, long long want, const char *spec,
		  double noise, const char *why)
{
	mod_sim_check(ms, name, AMP_FILLS(unified), want, spec, noise, why);
}

static void test_cases(void)
{
	static struct mod_sim ms;
	const double noises[] = { 0, 0.01 };
	char err[AMP_REASON_LEN];

	for (const struct ucase *u = cases; u->spec; u++)
		for (size_t k = 0; k < sizeof noises / sizeof noises[0]; k++) {
			if (mod_sim_run(&ms, u->spec, noises[k], "unified", err, sizeof err) < 0) {
				tap_ok(0, "%s: characterised (%s)", u->spec, err);
				mod_sim_free(&ms);
				continue;
			}
			check(&ms, "L1d", u->l1d, u->spec, noises[k], NULL);
			check(&ms, "L1i", u->l1i, u->spec, noises[k], NULL);
			check(&ms, "L2", u->l2, u->spec, noises[k], u->why);
			check(&ms, "L3", u->l3, u->spec, noises[k], u->why);
			mod_sim_free(&ms);
		}
}

static void test_cost(void)
{
	static struct mod_sim ms;
	char err[AMP_REASON_LEN];
	struct amp_level *l1d, *l2;

	if (mod_sim_run(&ms, "pii-233", 0, "unified", err, sizeof err) < 0) {
		tap_ok(0, "pii-233 characterised (%s)", err);
		mod_sim_free(&ms);
		return;
	}
	l1d = mod_sim_level(&ms, "L1d");
	l2 = mod_sim_level(&ms, "L2");
	/* 8 votes of 8 runs: data loaded twice, code twice the level once.
	 * L1d: 256 lines of data, 1024 of code; L2: 2048 and 32768. */
	tap_eq(l1d->unified.accesses, 8 * 8 * (2 * 256 + 1024), "L1d: accesses the measurement cost");
	tap_eq(l2->unified.accesses, 8 * 8 * (2 * 2048 + 32768), "L2: accesses the measurement cost");
	mod_sim_free(&ms);
}

/* Below a unified level the answer is derived, at no cost. */
static void test_derived(void)
{
	static struct mod_sim ms;
	char err[AMP_REASON_LEN];
	const char *specs[] = { "L1:size=16K,line=32,assoc=4;L2:size=512K,line=32,assoc=4",
				"pii-233;L3:size=4M,line=64,assoc=8" };
	const char *below[] = { "L2", "L3" };

	for (int i = 0; i < 2; i++) {
		struct amp_level *lv;

		if (mod_sim_run(&ms, specs[i], 0, "unified", err, sizeof err) < 0) {
			tap_ok(0, "%s characterised (%s)", specs[i], err);
			mod_sim_free(&ms);
			continue;
		}
		lv = mod_sim_level(&ms, below[i]);
		tap_eq(lv ? mod_sim_value(&lv->unified) : -3, 1, "%s below a unified level [%s]: unified",
		       below[i], specs[i]);
		tap_ok(lv && lv->unified.nvotes == 0 && lv->unified.accesses == 0,
		       "%s: derived, no accesses", below[i]);
		lv = lv ? lv->above : NULL;
		tap_ok(lv && lv->unified.nvotes == 8 && lv->unified.accesses > 0,
		       "%s above it: measured", lv ? lv->name : "?");
		mod_sim_free(&ms);
	}
}

int main(void)
{
	tap_run(test_cases());
	tap_run(test_cost());
	tap_run(test_derived());
	return tap_done();
}
