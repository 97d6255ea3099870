/* test_mod_replace.c - the replacement module on simulated machines with
 * known answers: every policy at 2, 4, 8, 12 and 16 ways on L1d, on L2
 * (below an L1d) and on a DTLB, with and without noise, several seeds;
 * the instruction side, a TLB below another, fully associative TLBs,
 * exclusive pairs, sets found by eviction sets whose retouches go
 * through the other half of a line, the presets, and the cases it
 * must refuse. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counters.h"
#include "measure.h"
#include "sim.h"
#include "tap.h"
#include "mod_sim.h"

struct outcome {
	int ok;                 /* the machine was built and characterised */
	int known, inconclusive;
	int64_t value;
	double confidence;
	char reason[AMP_REASON_LEN];
	uint64_t accesses;
};

static const char *policy_name(int64_t v)
{
	return v >= 0 && v <= AMP_POLICY_UNKNOWN ? amp_policy_names[v] : "?";
}

/* Characterises `level` (and the levels above it) of the machine `text`
 * and returns its replacement parameter; all levels when level is NULL,
 * then each counted level's outcome goes to all[] (indexed like ctx->lv). */
static struct outcome characterise(const char *text, double noise, uint64_t seed, const char *level,
				   struct outcome *all, int *nall)
{
	struct outcome out = { 0 };
	struct sim_spec spec;
	struct amp_host host = { 0 };
	struct amp_ctx *ctx = calloc(1, sizeof *ctx);
	char err[512];

	if (!ctx || sim_spec_parse(text, &spec, err, sizeof err) < 0) {
		tap_diag("%s: %s", text, ctx ? err : "out of memory");
		free(ctx);
		return out;
	}
	spec.noise = noise;
	spec.seed = seed;
	host.sim = sim_create(&spec, err, sizeof err);
	if (!host.sim) {
		tap_diag("%s: %s", text, err);
		free(ctx);
		return out;
	}
	ctx->host = &host;
	ctx->backend = &amp_backend_sim;
	ctx->reps = 8;
	ctx->votes = 8;
	ctx->seed = seed;
	ctx->min_confidence = 0.5;
	if (amp_levels_discover(ctx, level, err, sizeof err) < 0 ||
	    amp_measure_overhead(ctx, err, sizeof err) < 0 || amp_characterise(ctx, err, sizeof err) < 0) {
		tap_diag("%s: %s", text, err);
	} else {
		for (int i = 0; i < ctx->nlv; i++) {
			const struct amp_level *lv = &ctx->lv[i];
			struct outcome o = { 1, lv->replacement.known, lv->replacement.inconclusive,
					     lv->replacement.value, lv->replacement.confidence, "",
					     lv->replacement.accesses };

			snprintf(o.reason, sizeof o.reason, "%s", lv->replacement.reason);
			if (all) {
				o.ok = lv->measurable && lv->selected;
				all[i] = o;
			}
			if (level && strcmp(lv->name, level) == 0)
				out = o;
		}
		if (nall)
			*nall = ctx->nlv;
	}
	sim_destroy(host.sim);
	free(ctx);
	return out;
}

/* The level's policy must come out as `want` (an amp_policy_id). */
static void expect(const char *text, double noise, uint64_t seed, const char *level, int want,
		   const char *what)
{
	struct outcome o = characterise(text, noise, seed, level, NULL, NULL);
	int good = o.ok && o.known && !o.inconclusive && o.value == want;

	tap_ok(good, "%s: %s (noise %.2f, seed %llu)", what, amp_policy_names[want], noise,
	       (unsigned long long)seed);
	if (!good)
		tap_diag("got %s%s%s, confidence %.2f: %s", o.known ? policy_name(o.value) : "unknown",
			 o.inconclusive ? " (inconclusive)" : "", o.ok ? "" : " (no run)", o.confidence,
			 o.reason);
}

static const char *const pol_key[] = { "lru", "plru", "fifo", "random" };
static const unsigned ways[] = { 2, 4, 8, 12, 16 };

/* What a policy looks like at a ways: plru is lru at two. */
static int expected(int pol, unsigned a)
{
	return pol == AMP_POLICY_PLRU && a == 2 ? AMP_POLICY_LRU : pol;
}

/* Noise-free with seed 1, then 1% noise with two more seeds (level 1
 * sees the noise: spurious misses, rare context switches). */
static const struct { double noise; uint64_t seed; } runs[] = { { 0, 1 }, { 0.01, 2 }, { 0.01, 7 } };

/* Where a loop over the first n of runs[] starts: 0, or where
 * AMP_TEST_SEEDS asks for fewer, so many from the end (the noisy ones
 * take the quiet ones' paths and more). */
static size_t first_run(size_t n)
{
	return n - tap_seeds((unsigned)n);
}

/* Every policy at every ways (tree plru needs a power of two) for one
 * level, over the first nruns of runs[]: spec is a format taking the
 * level's size (unit × ways), its ways and the policy; what a format
 * taking the ways and the policy. */
static void policy_matrix(const char *spec, unsigned unit, const char *level, const char *what_fmt,
			  size_t nruns)
{
	for (int p = 0; p < 4; p++) {
		if (!tap_in_budget("%s: policies from %s on", level, pol_key[p]))
			break;
		for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++)
			for (size_t r = first_run(nruns); r < nruns; r++) {
				char text[256], what[64];

				if (p == AMP_POLICY_PLRU && ways[w] == 12)
					continue;
				snprintf(text, sizeof text, spec, unit * ways[w], ways[w], pol_key[p]);
				snprintf(what, sizeof what, what_fmt, ways[w], pol_key[p]);
				expect(text, runs[r].noise, runs[r].seed, level, expected(p, ways[w]), what);
			}
	}
}

static void test_l1d(void)
{
	policy_matrix("L1d:size=%uK,assoc=%u,policy=%s;L1i:size=32K", 4, "L1d", "L1d %u-way %s",
		      sizeof runs / sizeof runs[0]);
}

static void test_l2(void)
{
	/* 64 KiB ways below the 8-way L1d's 4 KiB: with evictors; at 12
	 * and 16 ways after the check that L2 is no exclusive pair with it. */
	policy_matrix("L1d:size=32K,assoc=8;L1i:size=32K;L2:size=%uK,assoc=%u,policy=%s", 64, "L2",
		      "L2 %u-way %s below an 8-way L1d", 2);
}

static void test_tlb(void)
{
	policy_matrix("L1d:size=32K;L1i:size=32K;DTLB:entries=%u,assoc=%u,policy=%s", 16, "DTLB",
		      "DTLB %u-way %s", 2);
	/* Fully associative: one set, many rounds in it. */
	for (int p = 0; p < 4; p++) {
		char text[256], what[64];

		snprintf(text, sizeof text, "L1d:size=32K;L1i:size=32K;DTLB:entries=32,assoc=full,policy=%s",
			 pol_key[p]);
		snprintf(what, sizeof what, "fully associative 32-entry DTLB %s", pol_key[p]);
		expect(text, 0.01, 3, "DTLB", p, what);
	}
	/* A TLB below another (evictors in the DTLB). */
	for (int p = 0; p < 4; p++) {
		char text[256], what[64];

		snprintf(text, sizeof text,
			 "L1d:size=32K;L1i:size=32K;DTLB:entries=16,assoc=4;STLB:entries=256,assoc=8,policy=%s",
			 pol_key[p]);
		snprintf(what, sizeof what, "8-way STLB %s below a 4-way DTLB", pol_key[p]);
		expect(text, 0.01, 4, "STLB", p, what);
	}
}

/* A level whose lines are longer than a level further up: its test
 * words span two 64-byte L1d lines, and evictors that touched another
 * piece of their line than the test word left it in L1d (the fifo
 * probe then hit there in half the rounds: "fit no policy"). */
static void test_long_lines(void)
{
	for (int p = 0; p < 3; p++) {
		char text[256], what[96];

		snprintf(text, sizeof text,
			 "L1d:size=12K,assoc=6,line=64;L1i:size=12K,assoc=6,line=64;L2:size=256K,assoc=8,line=128;"
			 "L3:size=8M,assoc=16,line=128,policy=%s", pol_key[p]);
		snprintf(what, sizeof what, "16-way L3 %s of 128-byte lines below a 64-byte L1d", pol_key[p]);
		expect(text, 0, 1, "L3", p, what);
	}
}

static void test_insn(void)
{
	expect("L1d:size=32K;L1i:size=16K,assoc=4,policy=fifo", 0.01, 5, "L1i", AMP_POLICY_FIFO,
	       "4-way L1i fifo");
	expect("L1d:size=32K;L1i:size=32K,assoc=8,policy=plru", 0.01, 5, "L1i", AMP_POLICY_PLRU,
	       "8-way L1i plru");
	expect("L1d:size=32K;L1i:size=32K;ITLB:entries=64,assoc=8,policy=random", 0.01, 5, "ITLB",
	       AMP_POLICY_RANDOM, "8-way ITLB random");
	expect("L1d:size=32K;L1i:size=32K;ITLB:entries=64,assoc=4,policy=fifo", 0, 1, "ITLB",
	       AMP_POLICY_FIFO, "4-way ITLB fifo");
}

/* Every counted level of a preset says lru (the simulator's default). */
static void test_preset(const char *name)
{
	struct outcome all[AMP_MAX_HIER];
	int n = 0, levels = 0, good = 1;

	memset(all, 0, sizeof all);
	characterise(name, 0, 1, NULL, all, &n);
	for (int i = 0; i < n; i++) {
		if (!all[i].ok)
			continue;
		levels++;
		if (!all[i].known || all[i].inconclusive || all[i].value != AMP_POLICY_LRU) {
			good = 0;
			tap_diag("%s level %d: %s (%s)", name, i,
				 all[i].known ? policy_name(all[i].value) : "unknown", all[i].reason);
		}
	}
	tap_ok(good && levels > 0, "%s: lru on all %d counted levels", name, levels);
}

static void test_special(void)
{
	struct outcome o;

	o = characterise("L1d:size=8K,assoc=2,policy=plru;L1i:size=32K", 0, 1, "L1d", NULL, NULL);
	tap_ok(o.known && o.value == AMP_POLICY_LRU, "2-way plru reports lru");
	tap_has(o.reason, "plru", "and says plru is the same there");

	o = characterise("usparc-1", 0, 1, "L1d", NULL, NULL);
	tap_ok(o.ok && !o.known, "direct-mapped L1d: no policy");
	tap_has(o.reason, "direct-mapped: no choice to make", "with the reason");

	o = characterise("L1d:size=32K,assoc=8,policy=random;L1i:size=32K;L2:size=512K,assoc=16", 0, 1,
			 "L2", NULL, NULL);
	/* Each test access with fresh evictors of its own (ways x ln 1000
	 * of them): a reused one would stay in the random L1d now and then,
	 * and so would the test line. */
	tap_ok(o.known && !o.inconclusive && o.value == AMP_POLICY_LRU,
	       "L2 below a random L1d: lru (%s), through fresh evictors", policy_name(o.value));

	o = characterise("L1d:size=32K,assoc=8;L1i:size=32K;L2:size=16K,assoc=4", 0, 1, "L2", NULL, NULL);
	tap_ok(o.ok && !o.known, "L2 of no more ways than L1d, its way under twice the L1d's: not decided");
	/* Its geometry is L1d's as far as walks without evictors can see,
	 * so it is unknown (mod_assoc.c), and the policy waits for it. */
	tap_has(o.reason, "needs the associativity", "because no evictor can get past L1d to find its sets");

	/* Exclusive pairs: the counter sees both levels as one structure;
	 * lru above lru (or fifo, which then evicts in lru order) evicts as
	 * lru, but the victim level's own lru and fifo look alike (a hit
	 * moves the line up): unknown, naming the pair's order.
	 * opteron240's L2 way is twice the L1d's (the pair is checked with
	 * evictors), athlonmp's the same as the L1d's (assumed a pair). */
	o = characterise("opteron240", 0.01, 6, "L2", NULL, NULL);
	tap_ok(o.ok && !o.known, "exclusive lru L2 of opteron240: its own policy unknown");
	tap_has(o.reason, "the pair evicts as lru", "and the pair's order named");
	o = characterise("athlonmp;L2:policy=fifo", 0, 1, "L2", NULL, NULL);
	tap_ok(o.ok && !o.known, "exclusive fifo L2 below lru L1d (18-way pair): unknown");
	tap_has(o.reason, "exclusive", "because it is exclusive");
	expect("athlonmp;L2:policy=random", 0.01, 2, "L2", AMP_POLICY_RANDOM,
	       "exclusive random L2 below lru L1d");
	/* A random exclusive L2 under a 3-way L1d of known order (policy
	 * hierarchy 82 of test_modules): the pair is no random set of its
	 * summed ways, and random is read against a model of the pair. */
	{
		static const char *const above[] = { "lru", "fifo" };

		for (int u = 0; u < 2; u++)
			for (size_t r = first_run(2); r < 2; r++) {
				char text[320], what[96];

				snprintf(text, sizeof text,
					 "L1d:size=12K,assoc=3,line=32,policy=%s;L1i:size=12K,assoc=3,line=32;"
					 "L2:size=64K,assoc=2,line=32,policy=random,inclusion=exclusive;L3:size=2560K,assoc=20",
					 above[u]);
				snprintf(what, sizeof what, "random exclusive 2-way L2 under a %s 3-way L1d", above[u]);
				expect(text, runs[r].noise, runs[r].seed, "L2", AMP_POLICY_RANDOM, what);
			}
		o = characterise("L1d:size=12K,assoc=3,line=32;L1i:size=12K,assoc=3,line=32;"
				 "L2:size=64K,assoc=2,line=32,policy=lru,inclusion=exclusive;L3:size=2560K,assoc=20",
				 0, 1, "L2", NULL, NULL);
		tap_ok(o.ok && !o.known, "lru exclusive 2-way L2 under an lru 3-way L1d: its own policy unknown");
		tap_has(o.reason, "the pair evicts as lru", "and the pair's order named, not random");
	}
	/* An exclusive pair under a random L1d (policy hierarchy 40 of
	 * test_modules): every plan shows a share of misses whatever L2
	 * does, so each L2 policy is a model of the pair; random is read
	 * where its model fits, an ordered L2 stays unknown, and where the
	 * models lie too close (8 ways under 4) nothing is claimed. */
	{
		static const char *const ordered[] = { "lru", "fifo", "plru" };
		static const char *const pair = "L1d:size=4K,assoc=2,line=128,policy=random;L1i:size=4K,assoc=2,line=128;"
						"L2:size=2M,assoc=4,line=128,policy=%s,inclusion=exclusive;L3:size=5M,assoc=5,line=256";
		char text[320];

		snprintf(text, sizeof text, pair, "random");
		for (size_t r = first_run(sizeof runs / sizeof runs[0]); r < sizeof runs / sizeof runs[0]; r++)
			expect(text, runs[r].noise, runs[r].seed, "L2", AMP_POLICY_RANDOM,
			       "random exclusive 4-way L2 under a random 2-way L1d");
		for (int u = 0; u < 3; u++)
			for (size_t r = first_run(2); r < 2; r++) {
				snprintf(text, sizeof text, pair, ordered[u]);
				o = characterise(text, runs[r].noise, runs[r].seed, "L2", NULL, NULL);
				tap_ok(o.ok && !o.known, "%s exclusive 4-way L2 under a random 2-way L1d: unknown (noise %.2f)",
				       ordered[u], runs[r].noise);
				tap_has(o.reason, "fit an ordered policy here, not random", "and not random");
			}
		o = characterise("L1d:size=16K,assoc=4,policy=random;L1i:size=16K,assoc=4;"
				 "L2:size=512K,assoc=8,policy=random,inclusion=exclusive;L3:size=8M,assoc=16",
				 0, 1, "L2", NULL, NULL);
		tap_ok(o.ok && !o.known, "random exclusive 8-way L2 under a random 4-way L1d: unknown");
		tap_has(o.reason, "its models differ by under 3 standard errors", "its models too close to tell");
	}
	o = characterise("opteron240;L2:policy=plru", 0, 1, "L2", NULL, NULL);
	tap_ok(o.ok && !o.known, "exclusive plru L2 below lru L1d: the pair is no policy amp knows");
	tap_has(o.reason, "fit no policy", "and says so");

	/* A 12-way tree plru does not exist: the machine refuses it. */
	{
		struct sim_spec spec;
		char err[512];
		struct sim_machine *m = NULL;

		if (sim_spec_parse("L1d:size=48K,assoc=12,policy=plru;L1i:size=32K", &spec, err, sizeof err) == 0)
			m = sim_create(&spec, err, sizeof err);
		tap_ok(!m, "a 12-way plru cache cannot be built");
		sim_destroy(m);
	}
}

/* Fresh evictors per test access: enough that a line stays in a random
 * level of w ways once in a thousand accesses, (1 - 1/w)^e <= 1/1000. */
static void test_fresh_evictors(void)
{
	struct amp_level l1, l2, l3;

	memset(&l1, 0, sizeof l1);
	memset(&l2, 0, sizeof l2);
	memset(&l3, 0, sizeof l3);
	l2.above = &l1;
	l3.above = &l2;
	l1.thrash_ways = 6;
	l1.replacement.known = 1;
	l1.replacement.value = AMP_POLICY_RANDOM;
	l2.thrash_ways = 16;
	l2.replacement.known = 1;
	l2.replacement.value = AMP_POLICY_LRU;
	tap_ok(amp_evictors_fresh(&l2) == 38, "a random 6-way L1d: 38 fresh evictors (%llu)",
	       (unsigned long long)amp_evictors_fresh(&l2));
	tap_ok(amp_evictors_fresh(&l3) == 38, "an L3 under an LRU L2 under it: as many (%llu)",
	       (unsigned long long)amp_evictors_fresh(&l3));
	l2.thrash_ways = 64;
	tap_ok(amp_evictors_fresh(&l3) == 64, "at least the ways of the level right above (%llu)",
	       (unsigned long long)amp_evictors_fresh(&l3));
	l1.thrash_ways = 128;
	tap_ok(amp_evictors_fresh(&l2) == UINT64_MAX, "a random 128-way L1d: more than a test can afford");
	l1.replacement.inconclusive = 1;
	tap_ok(amp_evictors_fresh(&l2) == 0, "none where no level above is known to be random");
}

/* `level`'s replacement on scattered frames (its sets by eviction
 * sets) must be `want` (-1: unknown, `why` in its reason). */
static void expect_scattered(const char *text, const char *level, double noise, uint64_t seed, long long want,
			     const char *why)
{
	struct mod_sim ms;
	char err[AMP_REASON_LEN];

	if (mod_sim_run_pages(&ms, text, noise, seed, 8, 8, level, "replacement", 1, err, sizeof err) < 0)
		tap_ok(0, "%s: %s", text, err);
	else
		mod_sim_check(&ms, level, AMP_FILLS(replacement), want, text, noise, why);
	mod_sim_free(&ms);
}

/* Sets found by eviction sets (scattered frames) of 4 ways under a
 * 3-way L1d: a retouch of a whole line would have to be the line used
 * longest ago, where lru, plru and fifo evict alike; where the lines
 * above are at most half a line here, retouches through the other half
 * tell them apart (the geometries of policy hierarchies 67 and 47 of
 * test_modules).  With lines above as long, no order exists. */
static void test_halves(void)
{
	static const struct { const char *spec, *level; } shape[] = {
		{ "L1d:size=12K,assoc=3,line=32;L1i:size=12K,assoc=3,line=32;"
		  "L2:size=128K,assoc=4,line=64,policy=%s,inclusion=inclusive;L3:size=4M,assoc=16,line=64", "L2" },
		{ "L1d:size=1536,assoc=3,line=32;L1i:size=1536,assoc=3,line=32;"
		  "L2:size=32K,assoc=1,line=64,inclusion=nine;L3:size=2M,assoc=4,line=128,policy=%s,inclusion=inclusive;"
		  "DTLB:entries=128,assoc=2,page=8K", "L3" },
	};

	for (size_t s = 0; s < sizeof shape / sizeof shape[0]; s++)
		for (int p = 0; p < 4; p++)
			for (size_t r = first_run(2); r < 2; r++) {
				char text[320];

				snprintf(text, sizeof text, shape[s].spec, pol_key[p]);
				expect_scattered(text, shape[s].level, runs[r].noise, runs[r].seed, p, NULL);
			}
	expect_scattered("L1d:size=12K,assoc=3,line=64;L1i:size=12K,assoc=3,line=64;"
			 "L2:size=256K,assoc=4,line=64,policy=fifo,inclusion=inclusive;L3:size=4M,assoc=16,line=64",
			 "L2", 0, 1, -1, "no retouch order");
}

/* Sets found by eviction sets under an exclusive L2 that passes L1d's
 * victims on in order, below an lru L1d: the pair keeps each set's most
 * recent lines, as many as their summed ways, so the rounds reach L3
 * after that many others (policy hierarchy 95 of test_modules; an L2
 * of tree plru too). */
static void test_lru_pair(void)
{
	static const char *const l2[] = { "lru", "fifo" };

	for (int u = 0; u < 2; u++)
		for (int p = 0; p < 4; p++)
			for (size_t r = first_run(2); r < 2 && p != AMP_POLICY_PLRU; r++) { /* no 20-way plru */
				char text[320];

				if (!tap_in_budget("L3 replacement under exclusive pairs from here on"))
					return;
				snprintf(text, sizeof text,
					 "L1d:size=2560,assoc=5,line=16;L1i:size=2560,assoc=5,line=16;"
					 "L2:size=96K,assoc=6,line=16,policy=%s,inclusion=exclusive;"
					 "L3:size=1280K,assoc=20,line=32,policy=%s,inclusion=inclusive;DTLB:entries=16,assoc=8",
					 l2[u], pol_key[p]);
				expect_scattered(text, "L3", runs[r].noise, runs[r].seed, p, NULL);
			}
	for (int p = 0; p < 4; p++) {
		char text[320];

		if (!tap_in_budget("L3 replacement under a plru exclusive pair from here on"))
			return;
		snprintf(text, sizeof text,
			 "L1d:size=2K,assoc=4,line=16;L1i:size=2K,assoc=4,line=16;"
			 "L2:size=128K,assoc=8,line=16,policy=plru,inclusion=exclusive;"
			 "L3:size=2M,assoc=32,line=32,policy=%s,inclusion=inclusive;DTLB:entries=16,assoc=8", pol_key[p]);
		/* Random on more seeds: its found set's rounds are not
		 * independent, and one vote in eight fell below a binomial
		 * bound at seeds 1 and 2 (mod_replace.c replace_vote). */
		for (uint64_t seed = 1; seed <= (p == AMP_POLICY_RANDOM ? tap_seeds(3) : 1); seed++)
			expect_scattered(text, "L3", 0, seed, p, NULL);
	}
}

int main(void)
{
	/* The policy matrices first: with a time budget (tap_run) they
	 * run, the scattered L3s (seconds each) as time allows. */
	tap_run(test_l1d());
	tap_run(test_l2());
	tap_run(test_tlb());
	tap_run(test_long_lines());
	tap_run(test_insn());
	tap_run(test_preset("pii-233"));
	tap_run(test_preset("zen5-like"));
	tap_run(test_special());
	tap_run(test_fresh_evictors());
	tap_run(test_halves());
	tap_run(test_lru_pair());
	return tap_done();
}
