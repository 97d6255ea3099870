/* test_insn.c - the instruction side on simulated machines: the L1 code
 * caches of AMP Table 1's presets (line, size, ways) and their ITLBs
 * (page, entries; by timing their ways too) by counters and by timing (the code sweep, the
 * I-cache control loop, the TLB sweep with jumps), and a seeded matrix
 * of split and unified L1 and L2 configurations, with and without
 * noise, whose split/unified answers must come out exactly by counters
 * and by timing. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codechain.h"
#include "insn_timing.h"
#include "measure.h"
#include "mod_sim.h"
#include "sim.h"
#include "tap.h"
#include "timing.h"
#include "tlb_timing.h"
#include "util.h"

/* The timing path on a simulated machine, instruction side included
 * (what amp does without counters). */
static int timed(struct mod_sim *ms, const char *spec, double noise, uint64_t seed, char *err, size_t len)
{
	static struct amp_sweep sw, code;
	static struct amp_tlb_timing itlb;
	struct amp_ctx *c = &ms->ctx;

	if (mod_sim_build(ms, spec, noise, seed, 0, err, len) < 0)
		return -1;
	amp_ctx_init(c, &ms->host, &amp_backend_sim, 3, 3, seed);
	amp_ctx_timing(c);
	if (amp_sweep_run(c, 4ULL << 20, &sw, err, len) < 0 || amp_levels_timing(c, NULL, &sw, err, len) < 0 ||
	    amp_insn_sweep_run(c, AMP_INSN_SWEEP_MAX, &code, err, len) < 0)
		return -1;
	amp_insn_levels_fill(c, &code);
	if (amp_tlb_timing_measure_op(&ms->host, AMP_OP_IFETCH, 3, seed, &itlb, err, len) < 0)
		return -1;
	amp_tlb_timing_fill_side(c, &itlb, AMP_SIDE_INSN);
	return amp_characterise(c, err, len);
}

static const struct sim_level_spec *spec_of(struct mod_sim *ms, enum sim_kind kind, int side_insn)
{
	const struct sim_spec *s = sim_get_spec(ms->sim);

	for (int i = 0; i < s->n; i++)
		if (s->lv[i].kind == kind && s->lv[i].level == 1 &&
		    (s->lv[i].side == SIM_UNIFIED || (s->lv[i].side == SIM_INSN) == side_insn))
			return &s->lv[i];
	return NULL;
}

static int is(const struct amp_param *p, int64_t v)
{
	return amp_param_conclusive(p) && p->value == v;
}

static void test_presets(void)
{
	static const char *const presets[] = { "p5-133", "ppro-200", "pii-233", "usparc-1", "r10k-225" };

	for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
		if (!tap_in_budget("instruction side of the presets from %s on", presets[i]))
			return;
		for (int timing = 0; timing < 2; timing++) {
			struct mod_sim *ms = calloc(1, sizeof *ms);
			char err[AMP_REASON_LEN];
			const struct sim_level_spec *li, *tl;
			struct amp_level *lv, *it;
			int rc = timing ? timed(ms, presets[i], 0, 1, err, sizeof err)
					: mod_sim_run(ms, presets[i], 0, NULL, err, sizeof err);

			if (rc < 0) {
				tap_ok(0, "%s %s: %s", presets[i], timing ? "timing" : "counters", err);
				mod_sim_free(ms);
				free(ms);
				continue;
			}
			li = spec_of(ms, SIM_CACHE, 1);
			lv = mod_sim_level(ms, "L1i");
			tap_ok(lv && is(&lv->line, li->line) && is(&lv->size, (int64_t)li->size) &&
			       is(&lv->assoc, li->assoc) && strcmp(lv->size.method, timing ? "timing" : "counters") == 0,
			       "%s %s: L1i %u B / %llu B / %u-way (got %lld / %lld / %lld)", presets[i],
			       timing ? "timing" : "counters", li->line, (unsigned long long)li->size, li->assoc,
			       lv ? mod_sim_value(&lv->line) : -9, lv ? mod_sim_value(&lv->size) : -9,
			       lv ? mod_sim_value(&lv->assoc) : -9);
			if (timing) {
				/* The control loop: within 3% (the I-cache paper's accuracy). */
				double e = lv ? (double)mod_sim_value(&lv->effective_size) : -1;

				tap_ok(e >= 0.97 * (double)li->size && e <= 1.03 * (double)li->size,
				       "%s timing: I-cache control loop %.0f B within 3%% of %llu", presets[i], e,
				       (unsigned long long)li->size);
				tap_ok(lv && is(&lv->unified, 0), "%s timing: L1i split (got %lld)", presets[i],
				       lv ? mod_sim_value(&lv->unified) : -9);
				tl = spec_of(ms, SIM_TLB, 1);
				it = mod_sim_level(ms, "ITLB");
				tap_ok(tl && it && is(&it->line, (int64_t)tl->page) && is(&it->size, tl->entries) &&
					       is(&it->assoc, tl->assoc) && it->fully_associative == tl->full,
				       "%s timing: ITLB %llu B pages, %u entries, %u ways%s (got %lld, %lld, %lld)", presets[i],
				       tl ? (unsigned long long)tl->page : 0, tl ? tl->entries : 0, tl ? tl->assoc : 0,
				       tl && tl->full ? " (fully associative)" : "",
				       it ? mod_sim_value(&it->line) : -9, it ? mod_sim_value(&it->size) : -9,
				       it ? mod_sim_value(&it->assoc) : -9);
			}
			mod_sim_free(ms);
			free(ms);
		}
	}
}

/* Split or unified L1 and L2 (a unified L3 below a split L2), drawn from
 * a seeded generator: sizes, ways (L2 two more than L1, so timing can
 * reach its sets), lines, noise. */
static void test_matrix(void)
{
	struct amp_rng rng;

	amp_rng_seed(&rng, 5);
	for (int k = 0; k < 8; k++) {
		if (!tap_in_budget("instruction-side matrix from machine %d on", k))
			return;
		int l1u = (int)amp_rng_below(&rng, 2), l2u = l1u || k % 2; /* the sim has no split L2 under a unified L1 */
		unsigned line = amp_rng_below(&rng, 2) ? 64 : 32, a1 = 2u << amp_rng_below(&rng, 2);
		unsigned a2 = a1 + 2 + 2 * (unsigned)amp_rng_below(&rng, 3);
		uint64_t s1 = (uint64_t)a1 * 4096 / (1u + (unsigned)amp_rng_below(&rng, 2));
		uint64_t s2 = (uint64_t)a2 * (16u << amp_rng_below(&rng, 2)) * 1024 / 4;
		double noise = k & 2 ? 0.0005 : 0;
		char spec[512], l1[128], l2[256];

		/* A power of two of sets, and half of L2 twice L1 (the test's reach). */
		s2 = (uint64_t)a2 * line * 64;
		while (s2 < 8 * s1)
			s2 *= 2;
		if (l1u)
			snprintf(l1, sizeof l1, "L1:size=%llu,line=%u,assoc=%u", (unsigned long long)s1, line, a1);
		else
			snprintf(l1, sizeof l1, "L1d:size=%llu,line=%u,assoc=%u;L1i:size=%llu,line=%u,assoc=%u",
				 (unsigned long long)s1, line, a1, (unsigned long long)s1, line, a1);
		if (l2u)
			snprintf(l2, sizeof l2, "L2:size=%llu,line=%u,assoc=%u", (unsigned long long)s2, line, a2);
		else
			snprintf(l2, sizeof l2, "L2d:size=%llu,line=%u,assoc=%u;L2i:size=%llu,line=%u,assoc=%u;"
				 "L3:size=%llu,line=%u,assoc=16", (unsigned long long)s2, line, a2,
				 (unsigned long long)s2, line, a2, (unsigned long long)(8 * s2), line);
		snprintf(spec, sizeof spec, "%s;%s;MEM:latency=200", l1, l2);
		for (int timing = 0; timing < 2; timing++) {
			struct mod_sim *ms = calloc(1, sizeof *ms);
			char err[AMP_REASON_LEN];
			struct amp_level *d, *i, *u;
			int rc = timing ? timed(ms, spec, noise, 100 + (uint64_t)k, err, sizeof err)
					: mod_sim_run_ex(ms, spec, noise, 100 + (uint64_t)k, 8, 8, NULL, NULL, err,
							 sizeof err);

			d = rc == 0 ? mod_sim_level(ms, "L1d") : NULL;
			i = rc == 0 ? mod_sim_level(ms, "L1i") : NULL;
			u = rc == 0 ? mod_sim_level(ms, "L2") : NULL;
			tap_ok(d && i && u && is(&d->unified, l1u) && is(&i->unified, l1u) && is(&u->unified, l2u),
			       "matrix %d %s%s: L1 %s, L2 %s (got L1d %lld L1i %lld L2 %lld%s%s) [%s]", k,
			       timing ? "timing" : "counters", noise > 0 ? " noise" : "", l1u ? "unified" : "split",
			       l2u ? "unified" : "split", d ? mod_sim_value(&d->unified) : -9,
			       i ? mod_sim_value(&i->unified) : -9, u ? mod_sim_value(&u->unified) : -9,
			       rc < 0 ? ": " : (u && !u->unified.known ? ": " : ""),
			       rc < 0 ? err : (u && !u->unified.known ? u->unified.reason : ""), spec);
			mod_sim_free(ms);
			free(ms);
		}
	}
}

/* Executable mappings refused: the build-time code measures the L1i's
 * capacity with the control loop, both kinds: the jump chains
 * (synth/codechain.h; on the simulated machine, fetches over their
 * units at their offsets) and the blocks of adds (a straight run of
 * fetches over their bytes). */
static void test_blocks(void)
{
	static const char *const presets[] = { "p5-133", "pii-233", "r10k-225" };
	static const int kinds[] = { AMP_BLOCKS_CHAINS, AMP_BLOCKS_ADDS };

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
			if (!tap_in_budget("build-time blocks from %s on", presets[i]))
				return;
			struct mod_sim *ms = calloc(1, sizeof *ms);
			static struct amp_sweep sw;
			char err[AMP_REASON_LEN] = "";
			struct amp_ctx *c = &ms->ctx;
			struct amp_level *lv;
			const struct sim_level_spec *li;
			double e = -1;
			int kind = kinds[k], rc;
			const char *code = kind == AMP_BLOCKS_CHAINS ? "jump chains" : "blocks of adds";

			if (kind == AMP_BLOCKS_CHAINS && !amp_codechain_have()) {
				tap_ok(1, "# SKIP %s: no build-time jump chains on this architecture", presets[i]);
				free(ms);
				continue;
			}
			rc = mod_sim_build(ms, presets[i], 0, 1, 0, err, sizeof err);
			if (rc == 0) {
				amp_ctx_init(c, &ms->host, &amp_backend_sim, 3, 3, 1);
				amp_ctx_timing(c);
				rc = amp_sweep_run(c, 4ULL << 20, &sw, err, sizeof err) < 0 ||
				     amp_levels_timing(c, NULL, &sw, err, sizeof err) < 0;
			}
			if (rc == 0) {
				amp_insn_blocks_fill(c, kind, "executable mappings are refused (test)");
				rc = amp_characterise(c, err, sizeof err);
			}
			li = rc == 0 ? spec_of(ms, SIM_CACHE, 1) : NULL;
			lv = rc == 0 ? mod_sim_level(ms, "L1i") : NULL;
			if (lv && amp_param_conclusive(&lv->effective_size))
				e = (double)lv->effective_size.value;
			tap_ok(li && e >= 0.97 * (double)li->size && e <= 1.03 * (double)li->size &&
			       strncmp(lv->code, "build-time blocks", 17) == 0 && strstr(lv->code, code) &&
			       !lv->assoc.known && lv->assoc.reason[0],
			       "%s build-time %s: L1i capacity %.0f B within 3%% of %llu, the rest says why%s%s",
			       presets[i], code, e, li ? (unsigned long long)li->size : 0, err[0] ? ": " : "", err);
			mod_sim_free(ms);
			free(ms);
		}
}

/* One chain's order and run (see test_chain_order). */
static void check_chain(unsigned jumps, unsigned layout)
{
	const int32_t *order = amp_codechain_order(jumps, layout);
	static unsigned char seen[AMP_CODECHAIN_UNITS];
	static unsigned per_set[5][1024];
	unsigned unbalanced = 0, bad = 0, neighbours = 0;

	memset(seen, 0, sizeof seen);
	memset(per_set, 0, sizeof per_set);
	for (int k = AMP_CODECHAIN_UNITS - 1; order && k >= 0; k--) {
		int32_t o = order[k];

		if (o < 0 || o % AMP_CODECHAIN_UNIT || o / AMP_CODECHAIN_UNIT >= AMP_CODECHAIN_UNITS ||
		    seen[o / AMP_CODECHAIN_UNIT]++) {
			bad++;
			continue;
		}
		if (k + 1 < AMP_CODECHAIN_UNITS && order[k + 1] == o + AMP_CODECHAIN_UNIT)
			neighbours++;
		/* Ways of 4, 8, 16, 32 and 64 KiB: 64 << w sets. */
		for (unsigned w = 0; w < 5; w++) {
			unsigned sets = 64u << w, lo = ~0u, hi = 0;

			per_set[w][o / AMP_CODECHAIN_UNIT % sets]++;
			for (unsigned s = 0; s < sets; s++) {
				lo = per_set[w][s] < lo ? per_set[w][s] : lo;
				hi = per_set[w][s] > hi ? per_set[w][s] : hi;
			}
			unbalanced += hi - lo > (w ? 2u : 1u);
		}
	}
	for (size_t n = 1; n <= AMP_CODECHAIN_UNITS; n *= 4)
		amp_codechain_run(jumps, layout, n, 3);
	tap_ok(order && !bad && !unbalanced && neighbours < AMP_CODECHAIN_UNITS / 32,
	       "chain of %u jumps a unit, layout %u: a permutation of its units (%u bad), every run "
	       "balanced over the sets (%u not), %u units run right after the one before them, and it runs",
	       jumps, layout, bad, unbalanced, neighbours);
}

/* The chains' order: every unit once, at a multiple of 64 B; any run
 * of the last n units (what a run of n executes) puts as many of them
 * on each set of a cache whose way is 4 KiB as on any other, give or
 * take one, and give or take two where the way is 8 to 64 KiB; few run
 * right after their neighbour (no next-line prefetch); the code runs and
 * returns. */
static void test_chain_order(void)
{
	static const unsigned jumps[] = { AMP_CODECHAIN_JUMPS };

	if (!amp_codechain_have()) {
		tap_ok(1, "# SKIP no build-time jump chains on this architecture");
		return;
	}
	for (size_t j = 0; j < sizeof jumps / sizeof jumps[0]; j++)
		for (unsigned l = 0; l < AMP_CODECHAIN_LAYOUTS; l++)
			check_chain(jumps[j], l);
	/* The layouts are other code: another order, on pages of their own. */
	tap_ok(!amp_codechain_order(8, AMP_CODECHAIN_LAYOUTS) && amp_codechain_order(8, 0) != amp_codechain_order(8, 1) &&
	       memcmp(amp_codechain_order(8, 0), amp_codechain_order(8, 1), AMP_CODECHAIN_UNITS * sizeof(int32_t)) != 0,
	       "the chain's layouts differ, and there are %d", AMP_CODECHAIN_LAYOUTS);
}

/* Checks that keep wrong geometry from passing as measured, on pii-233
 * timed: the line's control (the class of 2 x ways lines a way apart
 * must thrash unmoved), the size check against the capacity search,
 * and the L1i-hit floor under code walks where an op cache sits in
 * front. */
extern const struct amp_module amp_module_block_l1, amp_module_icache, amp_module_isets;

static void test_checks(void)
{
	struct mod_sim *ms = calloc(1, sizeof *ms);
	char err[AMP_REASON_LEN] = "";
	struct amp_level *lv;
	int64_t way, ways;

	if (timed(ms, "pii-233", 0, 1, err, sizeof err) < 0 || !(lv = mod_sim_level(ms, "L1i")) ||
	    !amp_param_conclusive(&lv->way) || !amp_param_conclusive(&lv->assoc)) {
		tap_ok(0, "pii-233 timed, L1i geometry: %s", err);
		goto out;
	}
	way = lv->way.value;
	ways = lv->assoc.value;
	struct amp_ctx *c = &ms->ctx;

	/* A way size a quarter too small spreads the class over 4 sets. */
	lv->way.value = way / 4;
	amp_module_block_l1.run(c, lv, err, sizeof err);
	tap_ok(!amp_param_conclusive(&lv->line) && strstr(lv->line.reason, "fit unmoved"),
	       "L1i way taken as %lld B: no line, the class fits unmoved (%s)", (long long)(way / 4),
	       lv->line.reason);
	lv->way.value = way;
	amp_module_block_l1.run(c, lv, err, sizeof err);
	tap_ok(is(&lv->line, spec_of(ms, SIM_CACHE, 1)->line), "L1i true way: line %lld again",
	       (long long)mod_sim_value(&lv->line));

	/* Half the ways: ways x way is half the capacity search's. */
	lv->assoc.value = ways / 2;
	lv->size.value = ways / 2 * way;
	amp_module_icache.run(c, lv, err, sizeof err);
	tap_ok(lv->assoc.inconclusive && lv->way.inconclusive && lv->size.inconclusive &&
	       lv->line.inconclusive && strstr(lv->assoc.reason, "off the capacity search"),
	       "L1i with %lld ways: ways, way, size and line inconclusive (%s)", (long long)(ways / 2),
	       lv->assoc.reason);

	/* 63 ways beside an inconclusive capacity search of a seventh of
	 * that (the PVM Zen 5 guest): still in doubt. */
	{
		static struct amp_level odd;

		odd.assoc = lv->assoc;
		odd.way = lv->way;
		odd.size = lv->size;
		odd.line = lv->line;
		odd.assoc.inconclusive = odd.way.inconclusive = odd.size.inconclusive = odd.line.inconclusive = 0;
		odd.assoc.value = 63;
		odd.size.value = 63 * way;
		odd.effective_size = lv->effective_size;
		odd.effective_size.value = 9 * way;
		odd.effective_size.inconclusive = 1;
		amp_icache_geometry_check(&odd);
		tap_ok(odd.assoc.inconclusive && odd.size.inconclusive && strstr(odd.assoc.reason, "off the capacity search"),
		       "L1i of 63 ways beside an inconclusive capacity of 9 ways: in doubt (%s)", odd.assoc.reason);
		odd.assoc.inconclusive = odd.size.inconclusive = 0;
		odd.assoc.value = 9;
		odd.size.value = 9 * way;
		odd.assoc.reason[0] = 0;
		amp_icache_geometry_check(&odd);
		tap_ok(!odd.assoc.inconclusive && !odd.size.inconclusive,
		       "L1i of 9 ways beside that capacity: stands (%s)", odd.assoc.reason);
	}

	/* A reference an op cache served (half the fitting time): a fitting
	 * walk reads as thrashing against it, and fits against the hit. */
	uint64_t off[64];
	double fast = 0, rate_none, rate_op;

	for (int64_t i = 0; i < ways; i++)
		off[i] = (uint64_t)(i * way);
	lv->assoc.inconclusive = 0;
	amp_timing_code_rate(c, lv, off, (uint64_t)ways, (uint64_t)(ways * way), &fast, 1, &rate_none, err, sizeof err);
	lv->hit_ticks = fast;
	fast /= 2;
	c->opcache.entries = 0;
	amp_timing_code_rate(c, lv, off, (uint64_t)ways, (uint64_t)(ways * way), &fast, 0, &rate_none, err, sizeof err);
	c->opcache.entries = 1024;
	amp_timing_code_rate(c, lv, off, (uint64_t)ways, (uint64_t)(ways * way), &fast, 0, &rate_op, err, sizeof err);
	tap_ok(amp_thrashes(lv, rate_none) && !amp_thrashes(lv, rate_op),
	       "a fitting walk against an op-cache-fast reference: thrashes without an op cache known (%.2f), fits against the L1i hit with one (%.2f)",
	       rate_none, rate_op);
out:
	mod_sim_free(ms);
	free(ms);
}

/* L1i's below the capacity search's 2 KiB baseline: it starts at half
 * the thrash tests' size instead (from 2 KiB, a 1 KiB L1i's baseline
 * ran at L2's speed and every search found L2's 64 KiB).  Where no
 * search verifies an edge, the failures are counted with the first
 * one's reason, as votes'. */
static void test_small_l1i(void)
{
	static const struct {
		const char *spec;
		int64_t bytes; /* 0: no edge verifies (4 lines of baseline) */
	} cases[] = {
		{ "L1d:size=4K,assoc=2,line=32;L1i:size=1K,assoc=2,line=32;L2:size=64K,assoc=4,line=32", 1024 },
		{ "L1d:size=4K,assoc=2,line=32;L1i:size=1536,assoc=3,line=32;L2:size=64K,assoc=4,line=32", 1536 },
		{ "L1d:size=4K,assoc=2,line=64;L1i:size=512,assoc=1,line=64;L2:size=64K,assoc=4,line=64", 0 },
	};
	struct mod_sim *ms = calloc(1, sizeof *ms);

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[AMP_REASON_LEN] = "";
		const struct amp_level *lv;

		if (timed(ms, cases[i].spec, 0.02, 1, err, sizeof err) < 0 || !(lv = mod_sim_level(ms, "L1i"))) {
			tap_ok(0, "%s timed: %s", cases[i].spec, err);
			mod_sim_free(ms);
			continue;
		}
		const struct amp_param *e = &lv->effective_size;

		if (cases[i].bytes)
			tap_ok(amp_param_conclusive(e) && llabs(e->value - cases[i].bytes) <= cases[i].bytes * 3 / 100 &&
				       amp_param_conclusive(&lv->size) && lv->size.value == cases[i].bytes,
			       "a %lld B L1i: its capacity search finds %lld B, the thrash tests %lld B", (long long)cases[i].bytes,
			       (long long)mod_sim_value(e), (long long)mod_sim_value(&lv->size));
		else
			tap_ok(!e->known && e->failed == (unsigned)e->nvotes + 5 && strstr(e->first_failure, "no verified edge") &&
				       amp_param_conclusive(&lv->size) && lv->size.value == 512,
			       "a 512 B direct-mapped L1i: no edge verifies above a 256 B baseline, %u of 5 searches failed (%s); the thrash tests' 512 B stand",
			       e->failed, e->first_failure);
		mod_sim_free(ms);
	}
	free(ms);
}

/* A baseline past the L1i's edge (an op cache's edge taken as more than
 * half the L1i's): code that overflows a random-replacement L1i slows
 * gradually, and the search walks back down to the edge. */
static void test_past_edge(void)
{
	static const char *const specs[] = {
		"L1d:size=32K,assoc=8,line=64;L1i:size=32K,assoc=8,line=64,policy=random;L2:size=512K,assoc=8,line=64",
		"L1d:size=32K,assoc=8,line=64;L1i:size=48K,assoc=12,line=64,policy=random;L2:size=1M,assoc=16,line=64",
	};
	struct mod_sim *ms = calloc(1, sizeof *ms);

	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		char err[AMP_REASON_LEN] = "";
		struct amp_level *lv;

		if (timed(ms, specs[i], 0.02, 1, err, sizeof err) < 0 || !(lv = mod_sim_level(ms, "L1i"))) {
			tap_ok(0, "%s timed: %s", specs[i], err);
			mod_sim_free(ms);
			continue;
		}
		int64_t l1i = spec_of(ms, SIM_CACHE, 1)->size;
		struct amp_ctx *c = &ms->ctx;

		c->opcache.entries = 2560;
		c->opcache.bytes = (uint64_t)l1i * 5 / 8;
		amp_module_icache.run(c, lv, err, sizeof err);
		const struct amp_param *e = &lv->effective_size;
		tap_ok(amp_param_conclusive(e) && llabs(e->value - l1i) <= l1i * 3 / 100,
		       "a %lld KiB L1i, its baseline at %llu KiB: the search walks back to %lld B", (long long)(l1i >> 10),
		       (unsigned long long)(2 * c->opcache.bytes >> 10), (long long)mod_sim_value(e));
		mod_sim_free(ms);
	}
	free(ms);
}

/* Lines reached by jumps drawn at random (mod_isets.c), on simulated
 * L1i of every replacement policy, way sizes under, at and over a page,
 * lines of 32 to 128 B, with and without noise: the ways, way size, size
 * and line each machine was built with. */
static void test_random_jumps(void)
{
	static const struct {
		const char *l1i;
		int64_t line, ways, way;
		double noise;
	} cases[] = {
		{ "size=32K,assoc=8,line=64", 64, 8, 4096, 0 },
		{ "size=48K,assoc=12,line=64,policy=random", 64, 12, 4096, 0.02 },
		{ "size=64K,assoc=4,line=64,policy=plru", 64, 4, 16384, 0 },
		{ "size=16K,assoc=4,line=32,policy=fifo", 32, 4, 4096, 0.02 },
		{ "size=32K,assoc=2,line=128", 128, 2, 16384, 0 },
		{ "size=8K,assoc=8,line=64,policy=random", 64, 8, 1024, 0.02 },
	};
	struct mod_sim *ms = calloc(1, sizeof *ms);

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char spec[256], err[AMP_REASON_LEN] = "";
		struct amp_level *lv;

		snprintf(spec, sizeof spec, "L1d:size=32K,assoc=8,line=64;L1i:%s;L2:size=1M,assoc=16,line=64;MEM:latency=200",
			 cases[i].l1i);
		if (timed(ms, spec, cases[i].noise, 7 + i, err, sizeof err) < 0 || !(lv = mod_sim_level(ms, "L1i"))) {
			tap_ok(0, "%s timed: %s", spec, err);
			mod_sim_free(ms);
			continue;
		}
		/* As where the cyclic walks read nothing. */
		amp_param_unknown(&lv->assoc, "cyclic walks: no answer");
		amp_param_unknown(&lv->way, "cyclic walks: no answer");
		amp_param_unknown(&lv->line, "cyclic walks: no answer");
		amp_param_unknown(&lv->size, "cyclic walks: no answer");
		amp_module_isets.run(&ms->ctx, lv, err, sizeof err);
		tap_ok(is(&lv->assoc, cases[i].ways) && is(&lv->way, cases[i].way) &&
		       is(&lv->size, cases[i].ways * cases[i].way) && is(&lv->line, cases[i].line),
		       "L1i %s, noise %.2f: %lld ways of %lld B, %lld B, line %lld (%s)", cases[i].l1i, cases[i].noise,
		       mod_sim_value(&lv->assoc), mod_sim_value(&lv->way), mod_sim_value(&lv->size),
		       mod_sim_value(&lv->line), lv->assoc.known ? lv->line.reason : lv->assoc.reason);
		mod_sim_free(ms);
	}
	free(ms);
}

/* The code sweep's levels from curves a real machine gave: an op cache
 * serving code in part makes a bump, not the L1i's plateau, and one
 * fast size alone does not pull the sizes before it down. */
static int sweep_of(struct amp_sweep *sw, const double *raw, int n)
{
	static const int kib[] = { 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96 };

	memset(sw, 0, sizeof *sw);
	for (int i = 0; i < n; i++) {
		sw->size[i] = (uint64_t)kib[i] << 10;
		sw->raw[i] = raw[i];
	}
	sw->n = n;
	amp_insn_sweep_analyse(sw);
	/* The KiB where the first plateau ends. */
	return sw->nclusters >= 2 ? (int)(sw->size[sw->cl[0].fits] >> 10) : -1;
}

static void test_sweep_analysis(void)
{
	/* An AMD Zen 4 guest, 8 jumps a line: the op cache's overflow at
	 * 5-10 KiB runs slower than the L1i from 12 to 32 KiB. */
	static const double zen4[] = { 5.63, 6.97, 7.77, 8.15, 8.64, 7.07, 5.90, 6.07, 6.27, 5.96,
				       5.87, 6.16, 6.50, 8.79, 9.67, 10.25, 11.67, 35.90, 74.33 };
	static const double lucky[] = { 6.0, 6.0, 6.1, 6.0, 6.1, 6.0, 6.1, 6.0, 6.2, 6.1,
					6.2, 6.3, 6.4, 9.1, 6.0, 10.2, 11.5, 36.0, 74.0 };
	static struct amp_sweep sw;
	int edge = sweep_of(&sw, zen4, 19);

	tap_ok(edge == 32 && sw.cl[0].ticks > 5.5 && sw.cl[0].ticks < 6.6,
	       "code sweep: the first plateau runs past an op cache's bump to the L1i's edge (32 KiB, got %d at %.2f ticks)",
	       edge, sw.cl[0].ticks);
	edge = sweep_of(&sw, lucky, 19);
	tap_ok(edge == 32, "code sweep: one fast size past the edge does not move it (32 KiB, got %d)", edge);
}

int main(void)
{
	tap_run(test_sweep_analysis());
	tap_run(test_checks());
	tap_run(test_small_l1i());
	tap_run(test_past_edge());
	tap_run(test_random_jumps());
	tap_run(test_chain_order());
	tap_run(test_presets());
	tap_run(test_matrix());
	tap_run(test_blocks());
	return tap_done();
}
