/* test_mod_inclusion.c - the inclusion module on simulated machines of
 * known inclusion: presets (X-Ray's exclusive Athlon MP and Opteron,
 * AMP's NINE Pentium II, the teaching zen5-like) and hand-made levels of
 * every kind, with and without noise.  Runs the modules it depends on
 * (line, assoc) and itself, as amp_characterise() does. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counters.h"
#include "measure.h"
#include "sim.h"
#include "tap.h"
#include "mod_sim.h"

enum { NINE = AMP_INCL_NINE, INCL = AMP_INCL_INCLUSIVE, EXCL = AMP_INCL_EXCLUSIVE, UNKNOWN = -1 };

#define K 1024LL
#define M (1024LL * 1024)

/* What one level should come out as; size and eff 0: not checked. */
struct want {
	const char *level;
	int inclusion;
	long long ways, size, eff;
};

/* Page frames of the next checks: scattered ones leave the lower levels
 * to eviction sets (mod_evset.c decides their inclusion). */
static int scattered_frames;

/* Characterise spec with line, assoc and inclusion (the modules it
 * depends on and itself); 0 or -1. */
static int characterise(struct mod_sim *r, const char *spec_text, double noise, const char *only)
{
	char err[AMP_REASON_LEN];

	if (mod_sim_run_pages(r, spec_text, noise, 1, 8, 8, only, "inclusion", scattered_frames, err, sizeof err) < 0) {
		tap_diag("%s: %s", spec_text, err);
		mod_sim_free(r);
		return -1;
	}
	return 0;
}

static struct amp_level *level(struct mod_sim *r, const char *name)
{
	for (int i = 0; i < r->ctx.nlv; i++)
		if (strcmp(r->ctx.lv[i].name, name) == 0)
			return &r->ctx.lv[i];
	return NULL;
}

static void check(const char *what, const char *spec, double noise, const struct want *w, int nw)
{
	struct mod_sim r;

	if (characterise(&r, spec, noise, NULL) < 0) {
		tap_ok(0, "%s (noise %g): characterised", what, noise);
		return;
	}
	for (int i = 0; i < nw; i++) {
		struct amp_level *lv = level(&r, w[i].level);

		if (!lv) {
			tap_ok(0, "%s: has %s", what, w[i].level);
			continue;
		}
		if (w[i].inclusion == UNKNOWN) {
			tap_ok(!lv->inclusion.known, "%s (noise %g) %s: inclusion unknown (%s)", what, noise,
			       lv->name, lv->inclusion.reason);
		} else {
			tap_ok(lv->inclusion.known && !lv->inclusion.inconclusive &&
			       lv->inclusion.value == w[i].inclusion,
			       "%s (noise %g) %s: %s", what, noise, lv->name, amp_inclusion_names[w[i].inclusion]);
			if (!lv->inclusion.known)
				tap_diag("unknown: %s", lv->inclusion.reason);
			else if (lv->inclusion.value != w[i].inclusion || lv->inclusion.inconclusive)
				tap_diag("got %s, confidence %.2f", amp_inclusion_names[lv->inclusion.value],
					 lv->inclusion.confidence);
		}
		if (w[i].ways)
			tap_eq(lv->assoc.known ? lv->assoc.value : -1, w[i].ways, "%s %s: %lld own ways",
			       what, lv->name, w[i].ways);
		if (w[i].size)
			tap_eq(lv->size.known ? lv->size.value : -1, w[i].size, "%s %s: own size %lld KiB",
			       what, lv->name, w[i].size / K);
		if (w[i].eff)
			tap_eq(lv->effective_size.known ? lv->effective_size.value : -1, w[i].eff,
			       "%s %s: effective size %lld KiB", what, lv->name, w[i].eff / K);
		if (lv->inclusion.nvotes)
			tap_diag("%s %s: %llu accesses for the inclusion", what, lv->name,
				 (unsigned long long)lv->inclusion.accesses);
	}
	sim_destroy(r.host.sim);
}

#define CHECK(what, spec, noise, ...) do { \
	const struct want w_[] = { __VA_ARGS__ }; \
	check(what, spec, noise, w_, (int)(sizeof w_ / sizeof w_[0])); \
} while (0)

static void test_presets(double noise)
{
	CHECK("athlonmp", "athlonmp", noise,
	      { "L1d", UNKNOWN, 2, 64 * K, 64 * K },
	      { "L2", EXCL, 16, 512 * K, 576 * K });
	CHECK("opteron240", "opteron240", noise,
	      { "L2", EXCL, 16, 1 * M, 1088 * K });
	CHECK("pii-233", "pii-233", noise,
	      { "L1d", UNKNOWN, 4, 16 * K, 16 * K },
	      { "L2", NINE, 4, 512 * K, 512 * K });
	CHECK("zen5-like", "zen5-like", noise,
	      { "L2", INCL, 16, 1 * M, 1 * M },
	      { "L3", NINE, 16, 32 * M, 32 * M });
}

/* Caches of this test: L1s 32K 8-way 64 B unless said otherwise. */
#define L1S "L1d:size=32K,line=64,assoc=8;L1i:size=32K,line=64,assoc=8;"
#define L1S2W "L1d:size=64K,line=64,assoc=2;L1i:size=64K,line=64,assoc=2;"

static void test_inclusive(double noise)
{
	/* Re-touch test, X kept in L1d. */
	CHECK("inclusive L2 16-way", L1S "L2:size=512K,assoc=16,inclusion=inclusive", noise,
	      { "L2", INCL, 16, 512 * K, 512 * K });
	CHECK("inclusive L2 of 128 B lines", L1S "L2:size=1M,line=128,assoc=16,inclusion=inclusive",
	      noise, { "L2", INCL, 16, 1 * M, 1 * M });
	CHECK("inclusive L2 of 64 B lines under 32 B",
	      "L1d:size=16K,line=32,assoc=4;L1i:size=16K,line=32,assoc=4;L2:size=256K,line=64,assoc=8,inclusion=inclusive",
	      noise, { "L2", INCL, 8, 256 * K, 256 * K });
	/* One line between touches of X (2-way L1d). */
	CHECK("inclusive r10k-225", "r10k-225;L2:inclusion=inclusive", noise,
	      { "L2", INCL, 2, 1 * M, 1 * M });
	/* X kept in L2, lines through L3. */
	CHECK("inclusive L3 under NINE L2", L1S "L2:size=256K,assoc=8;L3:size=4M,assoc=16,inclusion=inclusive",
	      noise, { "L2", NINE, 8, 256 * K, 256 * K }, { "L3", INCL, 16, 4 * M, 4 * M });
	CHECK("inclusive L3 under exclusive L2",
	      L1S2W "L2:size=512K,assoc=16,inclusion=exclusive;L3:size=8M,assoc=32,inclusion=inclusive",
	      noise, { "L2", EXCL, 16, 512 * K, 576 * K }, { "L3", INCL, 32, 8 * M, 8 * M });
	/* Instruction lines bypass L1d (same way size). */
	CHECK("inclusive L2 of L1d's way size", L1S "L2:size=64K,assoc=16,inclusion=inclusive", noise,
	      { "L2", INCL, 16, 64 * K, 64 * K });
	/* Data lines bypass L1d (way size above twice this one's). */
	CHECK("inclusive L2 of half L1d's way size", L1S2W "L2:size=256K,assoc=16,inclusion=inclusive",
	      noise, { "L2", INCL, 16, 256 * K, 256 * K });
	/* Direct-mapped L1d keeps nothing: instruction lines. */
	CHECK("inclusive usparc-1", "usparc-1;L2:inclusion=inclusive", noise,
	      { "L2", INCL, 1, 512 * K, 512 * K });
}

static void test_exclusive(double noise)
{
	CHECK("exclusive L2 8-way under 4-way",
	      "L1d:size=32K,line=64,assoc=4;L1i:size=32K,line=64,assoc=4;L2:size=256K,assoc=8,inclusion=exclusive",
	      noise, { "L2", EXCL, 8, 256 * K, 288 * K });
	CHECK("exclusive L3 under NINE L2", L1S "L2:size=256K,assoc=8;L3:size=2M,assoc=16,inclusion=exclusive",
	      noise, { "L2", NINE, 8, 256 * K, 256 * K }, { "L3", EXCL, 16, 2 * M, 2304 * K });
	CHECK("exclusive L3 under exclusive L2",
	      L1S2W "L2:size=512K,assoc=16,inclusion=exclusive;L3:size=4M,assoc=16,inclusion=exclusive",
	      noise, { "L2", EXCL, 16, 512 * K, 576 * K }, { "L3", EXCL, 16, 4 * M, 4672 * K });
	CHECK("exclusive L2 of L1d's way size", L1S "L2:size=64K,assoc=16,inclusion=exclusive", noise,
	      { "L2", EXCL, 16, 64 * K, 96 * K });
	/* A Duron: 64K 2-way L1d over a 64K 16-way exclusive L2. */
	CHECK("exclusive L2 of an eighth of L1d's way size",
	      L1S2W "L2:size=64K,assoc=16,inclusion=exclusive", noise,
	      { "L2", EXCL, 16, 64 * K, 128 * K });
	CHECK("exclusive split L2d",
	      L1S "L2d:size=256K,assoc=8,inclusion=exclusive;L2i:size=64K,assoc=16", noise,
	      { "L2", EXCL, 8, 256 * K, 288 * K });
}

static void test_nine(double noise)
{
	CHECK("NINE L2 of 64 B lines under 32 B",
	      "L1d:size=16K,line=32,assoc=4;L1i:size=16K,line=32,assoc=4;L2:size=256K,line=64,assoc=8",
	      noise, { "L2", NINE, 8, 256 * K, 256 * K });
	CHECK("NINE L2 of L1d's way size", L1S "L2:size=64K,assoc=16", noise,
	      { "L2", NINE, 16, 64 * K, 64 * K });
	CHECK("NINE L2 of half L1d's way size", L1S2W "L2:size=256K,assoc=16", noise,
	      { "L2", NINE, 16, 256 * K, 256 * K });
	CHECK("NINE L3 under exclusive L2", L1S2W "L2:size=512K,assoc=16,inclusion=exclusive;L3:size=8M,assoc=16",
	      noise, { "L3", NINE, 16, 8 * M, 8 * M });
	CHECK("NINE pentium4 (16 sets)", "pentium4", noise, { "L2", NINE, 8, 512 * K, 512 * K });
}

/* Policies above and here: PLRU keeps a touched line like LRU; FIFO does
 * not, and the instruction-line test takes over. */
static void test_policies(double noise)
{
	CHECK("pii-233 PLRU inclusive", "pii-233;L1d:policy=plru;L2:policy=plru,inclusion=inclusive", noise,
	      { "L2", INCL, 0, 0, 0 });
	CHECK("pii-233 PLRU", "pii-233;L1d:policy=plru;L2:policy=plru", noise, { "L2", NINE, 0, 0, 0 });
	CHECK("pii-233 FIFO inclusive", "pii-233;L1d:policy=fifo;L2:policy=fifo,inclusion=inclusive", noise,
	      { "L2", INCL, 0, 0, 0 });
	CHECK("pii-233 FIFO", "pii-233;L1d:policy=fifo;L2:policy=fifo", noise, { "L2", NINE, 0, 0, 0 });
	CHECK("athlonmp PLRU", "athlonmp;L1d:policy=plru;L2:policy=plru", noise,
	      { "L2", EXCL, 16, 512 * K, 576 * K });
	CHECK("athlonmp FIFO", "athlonmp;L1d:policy=fifo;L2:policy=fifo", noise,
	      { "L2", EXCL, 16, 512 * K, 576 * K });
	/* A random L1d over an LRU or PLRU L2: pushers take X out of L1d
	 * before each touch, so every touch reaches L2 and keeps it there
	 * (the policy matrix's h62: unknown before). */
#define RANDOM_L1 "L1d:size=6K,assoc=3,line=16,policy=random;L1i:size=6K,assoc=3,line=16,policy=random;"
	CHECK("random L1d, LRU L2, NINE L3",
	      RANDOM_L1 "L2:size=24K,assoc=6,line=32;L3:size=3M,assoc=12,line=64", noise,
	      { "L3", NINE, 12, 3 * M, 3 * M });
	CHECK("random L1d, LRU L2, inclusive L3",
	      RANDOM_L1 "L2:size=24K,assoc=6,line=32;L3:size=3M,assoc=12,line=64,inclusion=inclusive", noise,
	      { "L3", INCL, 12, 3 * M, 3 * M });
	CHECK("random L1d, PLRU L2, inclusive L3",
	      RANDOM_L1 "L2:size=64K,assoc=8,policy=plru;L3:size=4M,assoc=16,inclusion=inclusive", noise,
	      { "L3", INCL, 16, 4 * M, 4 * M });
#undef RANDOM_L1
}

/* Where no line can be kept above by touches (a random or direct-mapped
 * level above, or a FIFO one), other lines stand in: lines half a line
 * here away (the same line here, another set above: the policy matrix's
 * h6 and, on eviction sets, h47), or under a FIFO level above a line
 * made new there but old here (h46).  Unknown before. */
static void test_stand_ins(double noise)
{
#define RANDOM_L1 "L1d:size=48K,assoc=12,line=128,policy=random;L1i:size=48K,assoc=12,line=128,policy=random;"
	CHECK("random L1d, FIFO inclusive L2 of twice its line", RANDOM_L1 "L2:size=32M,assoc=32,line=256,policy=fifo,inclusion=inclusive",
	      noise, { "L2", INCL, 32, 32 * M, 32 * M });
	CHECK("random L1d, FIFO NINE L2 of twice its line", RANDOM_L1 "L2:size=32M,assoc=32,line=256,policy=fifo", noise,
	      { "L2", NINE, 32, 32 * M, 32 * M });
#undef RANDOM_L1
#define FIFO_L2 "L1d:size=8K,assoc=1,line=128;L1i:size=8K,assoc=1,line=128;L2:size=256K,assoc=8,line=256,policy=fifo,inclusion=inclusive;"
	CHECK("FIFO L2, random inclusive L3", FIFO_L2 "L3:size=10M,assoc=10,line=256,policy=random,inclusion=inclusive",
	      noise, { "L3", INCL, 10, 10 * M, 10 * M });
	CHECK("FIFO L2, random NINE L3", FIFO_L2 "L3:size=10M,assoc=10,line=256,policy=random", noise,
	      { "L3", NINE, 10, 10 * M, 10 * M });
	CHECK("FIFO L2, FIFO inclusive L3", FIFO_L2 "L3:size=10M,assoc=10,line=256,policy=fifo,inclusion=inclusive",
	      noise, { "L3", INCL, 10, 10 * M, 10 * M });
	CHECK("FIFO L2, FIFO NINE L3", FIFO_L2 "L3:size=10M,assoc=10,line=256,policy=fifo", noise,
	      { "L3", NINE, 10, 10 * M, 10 * M });
	/* An LRU L3 keeps the line a touch made new there: undecidable. */
	CHECK("FIFO L2, LRU inclusive L3", FIFO_L2 "L3:size=10M,assoc=10,line=256,inclusion=inclusive", noise,
	      { "L3", UNKNOWN, 0, 0, 0 });
#undef FIFO_L2
	scattered_frames = 1;
#define DM_L2 "L1d:size=1536,assoc=3,line=32;L1i:size=1536,assoc=3,line=32;L2:size=32K,assoc=1,line=64;"
	CHECK("direct-mapped L2, inclusive L3 of twice its line, scattered frames",
	      DM_L2 "L3:size=2M,assoc=4,line=128,policy=fifo,inclusion=inclusive", noise, { "L3", INCL, 4, 2 * M, 2 * M });
	CHECK("direct-mapped L2, NINE L3 of twice its line, scattered frames", DM_L2 "L3:size=2M,assoc=4,line=128,policy=fifo",
	      noise, { "L3", NINE, 4, 2 * M, 2 * M });
#undef DM_L2
	/* Seed 19's h1 in the policy matrix, smaller: the L3 set's lines
	 * overflow their L2 set too, and touches of the kept line that hit
	 * the random L1d leave the inclusive L2 to let it go (L1 with it);
	 * evictors take it out of L1 before each touch.  Unknown before
	 * (and one NINE vote of three read inclusive). */
#define RANDOM_L1_INCL_L2 "L1d:size=4K,assoc=8,line=64,policy=random;L1i:size=4K,assoc=8,line=64,policy=random;" \
			  "L2:size=128K,assoc=8,line=64,inclusion=inclusive;"
	CHECK("random L1d, inclusive L2, inclusive L3, scattered frames",
	      RANDOM_L1_INCL_L2 "L3:size=2M,assoc=16,line=64,inclusion=inclusive", noise, { "L3", INCL, 16, 2 * M, 2 * M });
	CHECK("random L1d, inclusive L2, NINE L3, scattered frames", RANDOM_L1_INCL_L2 "L3:size=2M,assoc=16,line=64",
	      noise, { "L3", NINE, 16, 2 * M, 2 * M });
#undef RANDOM_L1_INCL_L2
	/* Seed 37's h47: an L2 of 64 sets of 32 B lines indexes within the
	 * page, so every pool line shares the kept line's L2 set; evictors
	 * at other page offsets of L1's 128-byte way do not.  Unknown
	 * before (no evictor stayed out of that set). */
#define RANDOM_L1_L2_IN_PAGE "L1d:size=2048,assoc=16,line=16,policy=random;L1i:size=2048,assoc=16,line=16,policy=random;" \
			     "L2:size=49152,assoc=24,line=32,inclusion=inclusive;"
	CHECK("random 16-way L1d, inclusive L2 indexed within the page, inclusive L3, scattered frames",
	      RANDOM_L1_L2_IN_PAGE "L3:size=786432,assoc=24,line=32,inclusion=inclusive", noise,
	      { "L3", INCL, 24, 768 * K, 768 * K });
	CHECK("random 16-way L1d, inclusive L2 indexed within the page, NINE L3, scattered frames",
	      RANDOM_L1_L2_IN_PAGE "L3:size=786432,assoc=24,line=32", noise, { "L3", NINE, 24, 768 * K, 768 * K });
#undef RANDOM_L1_L2_IN_PAGE
	scattered_frames = 0;
}

/* What it cannot tell says so. */
static void test_limits(void)
{
	CHECK("split NINE L2d of L1d's way size", L1S "L2d:size=64K,assoc=16;L2i:size=64K,assoc=16", 0,
	      { "L2", UNKNOWN, 0, 0, 0 });
	CHECK("split exclusive L2d of L1d's way size",
	      L1S "L2d:size=64K,assoc=16,inclusion=exclusive;L2i:size=64K,assoc=16", 0, { "L2", UNKNOWN, 0, 0, 0 });
}

/* POWER3's L1d has 4 sets of 128 B lines: 4 experiments a plan, so each
 * plan is counted twice (8 experiments behind every count). */
static void test_few_sets(double noise)
{
	CHECK("power3 (4-set L1d)", "power3", noise, { "L2", NINE, 8, 512 * K, 512 * K });
	CHECK("power3, exclusive L2", "power3;L2:inclusion=exclusive", noise, { "L2", EXCL, 8, 512 * K, 576 * K });
}

int main(void)
{
	for (int i = 0; i < 2; i++) {
		double noise = i ? 0.01 : 0;

		tap_run(test_presets(noise));
		tap_run(test_few_sets(noise));
		tap_run(test_inclusive(noise));
		tap_run(test_exclusive(noise));
		tap_run(test_nine(noise));
		tap_run(test_policies(noise));
		tap_run(test_stand_ins(noise));
	}
	tap_run(test_limits());
	return tap_done();
}
