/* test_runner.c - plans and runners: building plans, checking them, and
 * running the same plan on the simulated machine (exact counts) and on
 * the real one (chains run, errors are reported). */
#include "config.h"
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "alias.h"
#include "amp.h"
#include "counters.h"
#include "jumpchain.h"
#include "plan.h"
#include "sim.h"
#include "tap.h"
#include "timing.h"
#include "tlb_timing.h"
#include "measure.h"
#include "memlimit.h"
#include "load.h"

/* Older kernels' headers lack it (the hint alone then; EEXIST never). */
#ifdef MAP_FIXED_NOREPLACE
#define FIXED_NOREPLACE MAP_FIXED_NOREPLACE
#else
#define FIXED_NOREPLACE 0
#endif

static void test_plans(void)
{
	struct amp_plan p;
	char err[256];
	int seq, perm = 1;
	unsigned char seen[256] = { 0 };

	amp_plan_init(&p, "t", 256 * 64);
	seq = amp_plan_add_random_cycle(&p, 64, 256, 7);
	tap_eq(seq, 0, "random cycle added");
	for (size_t i = 0; i < 256; i++) {
		uint64_t slot = p.seq[seq].off[i] / 64;

		perm &= p.seq[seq].off[i] % 64 == 0 && slot < 256 && !seen[slot];
		if (slot < 256)
			seen[slot] = 1;
	}
	tap_ok(perm, "a random cycle visits every slot once");
	tap_ok(p.seq[seq].off[0] != 0 || p.seq[seq].off[1] != 64, "and not in address order");
	amp_plan_add_pass(&p, seq, AMP_OP_LOAD, 1, 0);
	amp_plan_add_pass(&p, seq, AMP_OP_LOAD, 3, 1);
	tap_eq(amp_plan_check(&p, err, sizeof err), 0, "a prime+measure plan checks");
	tap_eq(amp_plan_accesses(&p, 1), 768, "measured accesses: 3 walks of 256");
	tap_eq(amp_plan_accesses(&p, 0), 1024, "all accesses: 4 walks");
	amp_plan_add_pass(&p, seq, AMP_OP_LOAD, 1, 0);
	amp_plan_add_pass(&p, seq, AMP_OP_LOAD, 1, 1);
	tap_eq(amp_plan_check(&p, err, sizeof err), -1, "measured passes must be consecutive");
	tap_has(err, "consecutive", "and the reason says so");
	amp_plan_free(&p);

	amp_plan_init(&p, "t", 4096);
	amp_plan_add_strided(&p, 0, 64, 65);
	amp_plan_add_pass(&p, 0, AMP_OP_LOAD, 1, 1);
	tap_eq(amp_plan_check(&p, err, sizeof err), -1, "an offset outside the region is refused");
	amp_plan_free(&p);
	amp_plan_init(&p, "t", 4096);
	amp_plan_add_strided(&p, 4, 64, 2);
	amp_plan_add_pass(&p, 0, AMP_OP_LOAD, 1, 1);
	tap_eq(amp_plan_check(&p, err, sizeof err), -1, "a misaligned offset is refused");
	amp_plan_free(&p);
	amp_plan_init(&p, "t", 4096);
	amp_plan_add_pass(&p, 3, AMP_OP_LOAD, 1, 1);
	tap_eq(amp_plan_check(&p, err, sizeof err), -1, "a pass over a missing sequence is refused");
	amp_plan_free(&p);
}

/* A plan of one sequence and these passes. */
static void simple_plan(struct amp_plan *p, uint64_t region, uint64_t stride, size_t n,
			const enum amp_op *ops, const int *measured, int npass)
{
	amp_plan_init(p, "t", region);
	amp_plan_add_strided(p, 0, stride, n);
	for (int i = 0; i < npass; i++)
		amp_plan_add_pass(p, ops[i] == AMP_OP_FLUSH ? AMP_PLAN_WHOLE_REGION : 0, ops[i], 1, measured[i]);
}

static void test_sim_runner(void)
{
	struct sim_spec spec;
	struct amp_host host = { 0 };
	enum amp_event ev[3] = { AMP_EV_L1D_MISS, AMP_EV_L1I_MISS, AMP_EV_L2_MISS };
	struct amp_cset set;
	struct amp_plan p;
	struct amp_run_result res;
	char err[256];

	if (sim_spec_parse("L1d:size=16K,assoc=4,line=32,write=noallocate;L1i:size=16K,assoc=4,line=32;"
			   "L2:size=512K,assoc=4,line=32", &spec, err, sizeof err) < 0 ||
	    !(host.sim = sim_create(&spec, err, sizeof err))) {
		tap_ok(0, "simulated machine: %s", err);
		return;
	}
	tap_eq(amp_cset_open(&set, &amp_backend_sim, &host, ev, 3, err, sizeof err), 0, "counters open");

	/* 16 KiB in 32 B lines fits L1d exactly: after the priming walk no
	 * measured load misses. */
	simple_plan(&p, 16384, 32, 512, (enum amp_op[]){ AMP_OP_LOAD, AMP_OP_LOAD }, (int[]){ 0, 1 }, 2);
	tap_eq(amp_run(&p, &host, &set, 4, &res, err, sizeof err), 0, "fitting plan runs");
	tap_eq(res.min[0], 0, "fits: no L1D misses");
	tap_eq(res.accesses, 512, "512 measured accesses");
	tap_eq(res.ticks_min, 512 * 4, "cycles: 512 L1 hits at the default latency 4");
	amp_plan_free(&p);

	/* One line more than fits: a cyclic LRU walk misses every access. */
	simple_plan(&p, 16384 + 32 * 4 * 128, 32, 512 + 128, (enum amp_op[]){ AMP_OP_LOAD, AMP_OP_LOAD },
		    (int[]){ 0, 1 }, 2);
	tap_eq(amp_run(&p, &host, &set, 2, &res, err, sizeof err), 0, "overflowing plan runs");
	tap_eq(res.min[0], 640, "overflow by a quarter: every load misses L1d");
	tap_eq(res.min[2], 0, "and hits L2");
	amp_plan_free(&p);

	/* Two plans by turns (the paired eviction test): each keeps the
	 * time it takes alone, the overflowing one a miss per load more. */
	{
		struct amp_plan fit, over;
		double t_fit = 0, t_over = 0;
		uint64_t over_alone;

		simple_plan(&fit, 16384, 32, 512, (enum amp_op[]){ AMP_OP_LOAD, AMP_OP_LOAD }, (int[]){ 0, 1 }, 2);
		simple_plan(&over, 16384 + 32 * 4 * 128, 32, 512 + 128,
			    (enum amp_op[]){ AMP_OP_LOAD, AMP_OP_LOAD }, (int[]){ 0, 1 }, 2);
		tap_eq(amp_run(&over, &host, NULL, 2, &res, err, sizeof err), 0, "the overflowing plan alone");
		over_alone = res.ticks_min;
		tap_eq(amp_run_pair(&fit, &over, &host, 5, &t_fit, &t_over, err, sizeof err), 0,
		       "two plans run by turns");
		tap_ok(t_fit == 512 * 4, "the fitting one: 512 L1 hits (%.0f cycles)", t_fit);
		tap_ok(t_over == (double)over_alone && t_over > 640 * 4,
		       "the overflowing one: as alone, 640 misses (%.0f cycles, %llu alone)", t_over,
		       (unsigned long long)over_alone);
		over.region = 0;
		tap_eq(amp_run_pair(&fit, &over, &host, 5, &t_fit, &t_over, err, sizeof err), -1,
		       "a pair with a bad plan is refused");
		amp_plan_free(&fit);
		amp_plan_free(&over);
	}

	/* No-write-allocate: flush, store, then load: the loads miss. */
	simple_plan(&p, 8192, 32, 256, (enum amp_op[]){ AMP_OP_FLUSH, AMP_OP_STORE, AMP_OP_LOAD },
		    (int[]){ 0, 0, 1 }, 3);
	tap_eq(amp_run(&p, &host, &set, 1, &res, err, sizeof err), 0, "store-then-load plan runs");
	tap_eq(res.min[0], 256, "stores did not allocate in L1d");
	amp_plan_free(&p);

	/* Flush makes the next walk cold at every level. */
	simple_plan(&p, 8192, 32, 256, (enum amp_op[]){ AMP_OP_LOAD, AMP_OP_FLUSH, AMP_OP_LOAD },
		    (int[]){ 0, 0, 1 }, 3);
	tap_eq(amp_run(&p, &host, &set, 1, &res, err, sizeof err), 0, "flush plan runs");
	tap_eq(res.min[0], 256, "after a flush every load misses L1d");
	tap_eq(res.min[2], 256, "and L2");
	amp_plan_free(&p);

	/* Instruction fetches go to L1i, not L1d. */
	simple_plan(&p, 32768, 64, 512, (enum amp_op[]){ AMP_OP_IFETCH }, (int[]){ 1 }, 1);
	tap_eq(amp_run(&p, &host, &set, 1, &res, err, sizeof err), 0, "fetch plan runs");
	tap_eq(res.min[1], 512, "cold fetches miss L1i once per line");
	tap_eq(res.min[0], 0, "and touch no data line");
	amp_plan_free(&p);

	/* Lines drawn at random, by jumps (IJUMP, in L1i) or by loads (DRAW,
	 * in L1d; their sequence chained by a LOAD pass too, whose words then
	 * hold pointers): of 8 lines of one 4-way set, 4 stay at any time, so
	 * half the draws miss; 4 lines never miss once in.  Every draw is one
	 * measured access. */
	for (int k = 0; k < 2; k++) {
		enum amp_op op = k ? AMP_OP_DRAW : AMP_OP_IJUMP;
		const char *l1 = k ? "L1d" : "L1i";

		for (size_t lines = 4; lines <= 8; lines += 4) {
			simple_plan(&p, 65536, 4096, lines, &op, (int[]){ 0 }, 1);
			p.pass[0].times = 64;
			amp_plan_add_pass(&p, 0, op, 4000 / (unsigned)lines, 1);
			if (op == AMP_OP_DRAW)
				amp_plan_add_pass(&p, 0, AMP_OP_LOAD, 1, 0);
			p.visit_seed = 11;
			tap_eq(amp_run(&p, &host, &set, 1, &res, err, sizeof err), 0, "a plan of random %s runs: %s",
			       k ? "loads" : "jumps", err);
			tap_eq(res.accesses, 4000, "4000 draws measured");
			tap_eq(res.min[k ? 1 : 0], 0, "none on the other side's %s", k ? "L1i" : "L1d");
			if (lines == 4)
				tap_eq(res.min[1 - k], 0, "4 lines of a 4-way set: no draw misses %s", l1);
			else
				tap_ok(res.min[1 - k] >= 1800 && res.min[1 - k] <= 2200,
				       "8 lines of a 4-way set: about half the draws miss %s (%llu of 4000)", l1,
				       (unsigned long long)res.min[1 - k]);
			amp_plan_free(&p);
		}
	}

	/* Code in the region: a fetched line is the data line of the same
	 * offset below L1 (one physical line), not a line of code apart. */
	{
		uint64_t line = 4096 * 7;

		amp_plan_init(&p, "code in region", 1 << 16);
		amp_plan_add_seq(&p, &line, 1);
		amp_plan_add_pass(&p, 0, AMP_OP_FLUSH, 1, 0);
		amp_plan_add_pass(&p, 0, AMP_OP_IFETCH, 1, 0);
		amp_plan_add_pass(&p, 0, AMP_OP_TOUCH, 1, 1);
		for (int in_region = 0; in_region < 2; in_region++) {
			p.code_in_region = in_region;
			tap_eq(amp_run(&p, &host, &set, 1, &res, err, sizeof err), 0, "fetch then load runs");
			tap_ok(res.min[0] == 1 && res.min[2] == (uint64_t)!in_region,
			       "the load misses L1d and %s L2 (%llu, %llu)", in_region ? "hits" : "misses",
			       (unsigned long long)res.min[0], (unsigned long long)res.min[2]);
		}
		amp_plan_free(&p);
	}

	/* Touch passes load like chased ones: a walk over 512 lines after a
	 * flush misses L1d on each of them once. */
	simple_plan(&p, 16384, 32, 512, (enum amp_op[]){ AMP_OP_FLUSH, AMP_OP_TOUCH }, (int[]){ 0, 1 }, 2);
	tap_eq(amp_run(&p, &host, &set, 3, &res, err, sizeof err), 0, "touch plan runs");
	tap_eq(res.min[0], 512, "touches after a flush miss L1d once a line");
	tap_ok(res.ticks_midmean >= (double)res.ticks_min && res.ticks_midmean <= (double)res.ticks_max,
	       "the mean of the middle half lies between min and max (%.1f)", res.ticks_midmean);
	amp_plan_free(&p);

	tap_eq(amp_run_overhead(&host, &set, 3, &res, err, sizeof err), 0, "overhead measured");
	tap_eq(res.min[0] + res.ticks_min, 0, "reading simulated counters costs nothing");
	amp_cset_close(&set);
	sim_destroy(host.sim);
}

static void test_real_runner(void)
{
	struct amp_host host = { 0 };
	struct amp_plan p;
	struct amp_run_result res;
	char err[256];
	uint64_t a[3] = { 0, 64, 128 }, b[3] = { 0, 128, 64 };

	amp_plan_init(&p, "t", 65536);
	amp_plan_add_random_cycle(&p, 64, 1024, 3);
	amp_plan_add_pass(&p, 0, AMP_OP_LOAD, 1, 0);
	amp_plan_add_pass(&p, 0, AMP_OP_STORE, 1, 0);
	amp_plan_add_pass(&p, 0, AMP_OP_LOAD, 4, 1);
	tap_eq(amp_run(&p, &host, NULL, 3, &res, err, sizeof err), 0, "a real chain runs (stores keep it intact)");
	tap_ok(res.ticks_min > 0 && res.ticks_min <= res.ticks_max, "and takes time (%llu ticks)",
	       (unsigned long long)res.ticks_min);
	{
		double ta = 0, tb = 0;

		tap_eq(amp_run_pair(&p, &p, &host, 200, &ta, &tb, err, sizeof err), 0,
		       "a real plan runs by turns with itself (reps clamped to %d)", AMP_RUN_MIDMEAN_REPS);
		tap_ok(ta > 0 && tb > 0, "and both turns take time (%.1f, %.1f ticks)", ta, tb);
	}
	amp_plan_free(&p);

	/* An arena keeps its memory from plan to plan (eviction sets need
	 * the same frames): the chain a plan wrote is still there after it. */
	{
		struct amp_arena arena;

		tap_eq(amp_arena_open(&arena, 8192, 0, err, sizeof err), 0, "an arena opens");
		amp_plan_init(&p, "t", 8192);
		p.arena = &arena;
		amp_plan_add_seq(&p, a, 3);
		amp_plan_add_seq(&p, (uint64_t[]){ 4096, 4160 }, 2);
		amp_plan_add_pass(&p, 1, AMP_OP_TOUCH, 2, 0);
		amp_plan_add_pass(&p, 0, AMP_OP_LOAD, 1, 1);
		tap_eq(amp_run(&p, &host, NULL, 5, &res, err, sizeof err), 0, "a plan runs on it");
		tap_ok(*(uint8_t **)(arena.base + 64) == arena.base + 128 &&
		       *(uint8_t **)(arena.base + 128) == arena.base,
		       "its chain stays in the arena after the run");
		tap_ok(res.ticks_midmean >= (double)res.ticks_min && res.ticks_midmean <= (double)res.ticks_max,
		       "the mean of the middle half lies between min and max");
		p.region = 16384;
		tap_eq(amp_run(&p, &host, NULL, 1, &res, err, sizeof err), -1, "a plan bigger than its arena is refused");
		tap_has(err, "larger than its arena", "with the reason");
		amp_plan_free(&p);
		amp_arena_close(&arena);
		tap_ok(arena.base == NULL, "and the arena closes");
	}

	/* A sparse arena (a counted eviction-set search's pool and its
	 * candidates) holds only what its plans touch under the memory
	 * bound: 4 GiB of address space under a 64 MiB bound. */
	{
		struct amp_arena arena;
		uint64_t limit = amp_memory_limit(), far[2] = { 0, (3ULL << 30) + 64 };

		amp_memory_set_limit(64ULL << 20);
		tap_eq(amp_arena_open(&arena, 4ULL << 30, 0, err, sizeof err), -1,
		       "a 4 GiB arena is refused under a 64 MiB bound");
		tap_eq(amp_arena_open_sparse(&arena, 4ULL << 30, 1ULL << 20, err, sizeof err), 0,
		       "a sparse one with 1 MiB touched opens (%s)", arena.base ? "" : err);
		tap_ok(arena.size == 4ULL << 30 && arena.reserved == 1ULL << 20, "and holds 1 MiB under the bound");
		amp_plan_init(&p, "t", 4ULL << 30);
		p.arena = &arena;
		amp_plan_add_seq(&p, far, 2);
		amp_plan_add_pass(&p, 0, AMP_OP_LOAD, 2, 1);
		tap_eq(amp_run(&p, &host, NULL, 3, &res, err, sizeof err), 0, "a plan of lines 3 GiB apart runs on it");
		tap_ok(*(uint8_t **)(arena.base + far[1]) == arena.base, "and its chain stays there");
		amp_plan_free(&p);
		amp_arena_close(&arena);
		amp_memory_set_limit(limit);
	}

	amp_plan_init(&p, "t", 4096);
	amp_plan_add_seq(&p, a, 3);
	amp_plan_add_seq(&p, b, 3);
	amp_plan_add_pass(&p, 0, AMP_OP_LOAD, 1, 1);
	amp_plan_add_pass(&p, 1, AMP_OP_LOAD, 1, 1);
	tap_eq(amp_run(&p, &host, NULL, 1, &res, err, sizeof err), -1, "conflicting chains are refused");
	tap_has(err, "two load chains", "with the reason");
	amp_plan_free(&p);

	/* The links are sorted by offset to find a word two chains share:
	 * 4096 lines scattered over 64 MiB (offsets of 26 bits, many alike
	 * in their low bits), one of them in a second chain with another
	 * successor. */
	{
		enum { SCATTERED = 4096 };
		uint64_t *many = malloc(SCATTERED * sizeof *many), two[2];
		struct amp_rng rng;

		amp_rng_seed(&rng, 12345);
		for (size_t k = 0; many && k < SCATTERED; k++)
			many[k] = (k << 14) | amp_rng_below(&rng, 256) * 64;
		two[0] = many ? many[SCATTERED / 2] : 0;
		two[1] = two[0] + 8; /* a word in no line of the first */
		amp_plan_init(&p, "t", 64ULL << 20);
		amp_plan_add_seq(&p, many, SCATTERED);
		amp_plan_add_seq(&p, two, 2);
		amp_plan_add_pass(&p, 0, AMP_OP_LOAD, 1, 1);
		err[0] = '\0';
		tap_eq(amp_run(&p, &host, NULL, 1, &res, err, sizeof err), 0,
		       "4096 lines over 64 MiB run (%s)", err);
		amp_plan_add_pass(&p, 1, AMP_OP_LOAD, 1, 1);
		tap_eq(amp_run(&p, &host, NULL, 1, &res, err, sizeof err), -1,
		       "with a second chain through one of them, refused");
		tap_has(err, "two load chains", "with the reason");
		amp_plan_free(&p);
		free(many);
	}

	amp_plan_init(&p, "t", 1 << 16);
	amp_plan_add_random_cycle(&p, 64, 1024, 5);
	amp_plan_add_pass(&p, 0, AMP_OP_IFETCH, 2, 1);
	amp_plan_add_pass(&p, AMP_PLAN_WHOLE_REGION, AMP_OP_FLUSH, 1, 0);
#if defined(__x86_64__) || defined(__aarch64__)
	tap_eq(amp_run(&p, &host, NULL, 2, &res, err, sizeof err), 0, "a synthesized jump chain runs: %s",
	       err);
	setenv("AMP_NO_EXEC_MAPPINGS", "1", 1);
	tap_eq(amp_run(&p, &host, NULL, 1, &res, err, sizeof err), -1,
	       "with executable mappings refused the fetch plan fails");
	tap_has(err, "refused", "saying so");
	unsetenv("AMP_NO_EXEC_MAPPINGS");
#else
	tap_eq(amp_run(&p, &host, NULL, 1, &res, err, sizeof err), -1, "no code generator here");
#endif
	amp_plan_free(&p);

	/* Lines drawn at random by indirect jumps, on the real machine: the
	 * table runs whole and in part (a warm walk, then measured walks
	 * doubled to last long enough); a sequence fetched both ways is
	 * refused. */
	amp_plan_init(&p, "random jumps", 1 << 17);
	amp_plan_add_strided(&p, 0, 4096, 16);
	p.visit_seed = 3;
	amp_plan_add_pass(&p, 0, AMP_OP_IJUMP, 1, 0);
	amp_plan_add_pass(&p, 0, AMP_OP_IJUMP, 5, 1);
	p.min_ticks = 100000;
#if defined(__x86_64__) || defined(__aarch64__)
	tap_eq(amp_run(&p, &host, NULL, 2, &res, err, sizeof err), 0, "indirect jumps through a table run: %s", err);
	tap_ok(res.accesses >= 80 && res.accesses % 80 == 0 && res.ticks_min > 0,
	       "80 draws a run, doubled (%llu draws, %llu ticks)", (unsigned long long)res.accesses,
	       (unsigned long long)res.ticks_min);
	amp_plan_add_pass(&p, 0, AMP_OP_IFETCH, 1, 0);
	tap_eq(amp_run(&p, &host, NULL, 1, &res, err, sizeof err), -1, "a sequence fetched by both kinds of jump is refused");
	tap_has(err, "indirect jumps", "with the reason");
#else
	tap_eq(amp_run(&p, &host, NULL, 1, &res, err, sizeof err), -1, "no code generator here");
#endif
	amp_plan_free(&p);

	/* Loads drawn at random through a table, on the real machine: whole
	 * and in part, after a flush of the whole region (lines and
	 * translations), on the region's pages (a LOAD chain on them too) and
	 * on pages that alias one shared page; too many pages to alias one
	 * by one are refused. */
	{
		long sys = sysconf(_SC_PAGESIZE);
		char why[256];

		tap_eq(amp_alias_check(why, sizeof why), 0, "one page can be mapped at many addresses here: %s", why);
		for (int aliased = 0; aliased < 2; aliased++) {
			amp_plan_init(&p, "random loads", 64 * (uint64_t)sys);
			amp_plan_add_strided(&p, 64, (uint64_t)sys + 64, 60);
			p.visit_seed = 7;
			p.alias = aliased ? (uint64_t)sys : 0;
			amp_plan_add_pass(&p, 0, AMP_OP_LOAD, 1, 0);
			amp_plan_add_pass(&p, AMP_PLAN_WHOLE_REGION, AMP_OP_FLUSH, 1, 0);
			amp_plan_add_pass(&p, 0, AMP_OP_DRAW, 1, 0);
			amp_plan_add_pass(&p, 0, AMP_OP_DRAW, 3, 1);
			p.min_ticks = 50000;
			tap_eq(amp_run(&p, &host, NULL, 2, &res, err, sizeof err), 0, "random loads%s run: %s",
			       aliased ? " on aliased pages" : "", err);
			tap_ok(res.accesses >= 180 && res.accesses % 180 == 0 && res.ticks_min > 0,
			       "180 draws a run, doubled (%llu draws, %llu ticks)", (unsigned long long)res.accesses,
			       (unsigned long long)res.ticks_min);
			amp_plan_free(&p);
		}
		amp_plan_init(&p, "both draws", 64 * (uint64_t)sys);
		amp_plan_add_strided(&p, 0, (uint64_t)sys, 4);
		amp_plan_add_pass(&p, 0, AMP_OP_IJUMP, 1, 0);
		amp_plan_add_pass(&p, 0, AMP_OP_DRAW, 1, 1);
		tap_eq(amp_run(&p, &host, NULL, 1, &res, err, sizeof err), -1,
		       "a sequence drawn by both jumps and loads is refused");
		tap_has(err, "no random loads", "with the reason");
		amp_plan_free(&p);
		amp_plan_init(&p, "too many aliases", ((1ull << 15) + 1) * (uint64_t)sys);
		p.alias = (uint64_t)sys;
		amp_plan_add_strided(&p, 0, (uint64_t)sys, 4);
		amp_plan_add_pass(&p, 0, AMP_OP_DRAW, 1, 1);
		tap_eq(amp_run(&p, &host, NULL, 1, &res, err, sizeof err), -1, "32769 pages to alias are refused");
		tap_has(err, "aliased pages", "with the reason");
		amp_plan_free(&p);
	}

#if defined(__x86_64__) || defined(__aarch64__)
	/* The same on pages that alias one shared page (alias): 64
	 * pages, a line each at 64 places; places that overlap on the shared
	 * page are refused. */
	{
		long sys = sysconf(_SC_PAGESIZE);
		uint64_t off[64], clash[2] = { 0, (uint64_t)sys + 8 };

		for (int i = 0; i < 64; i++)
			off[i] = (uint64_t)i * (uint64_t)sys + (uint64_t)(i * 64) % (uint64_t)sys;
		amp_plan_init(&p, "aliased jumps", 64 * (uint64_t)sys);
		p.alias = (uint64_t)sys;
		p.visit_seed = 5;
		amp_plan_add_seq(&p, off, 64);
		amp_plan_add_pass(&p, 0, AMP_OP_IJUMP, 1, 0);
		amp_plan_add_pass(&p, 0, AMP_OP_IJUMP, 4, 1);
		tap_eq(amp_run(&p, &host, NULL, 2, &res, err, sizeof err), 0, "jumps on aliased pages run: %s", err);
		tap_eq(res.accesses, 256, "256 draws measured");
		amp_plan_free(&p);
		amp_plan_init(&p, "aliased clash", 2 * (uint64_t)sys);
		p.alias = (uint64_t)sys;
		amp_plan_add_seq(&p, clash, 2);
		amp_plan_add_pass(&p, 0, AMP_OP_IJUMP, 1, 1);
		tap_eq(amp_run(&p, &host, NULL, 1, &res, err, sizeof err), -1,
		       "blocks whose places overlap on the shared page are refused");
		tap_has(err, "overlaps another block", "with the reason");
		amp_plan_free(&p);
		setenv("AMP_NO_EXEC_MAPPINGS", "1", 1);
		tap_ok(amp_jumpchain_build_aliased(2 * (uint64_t)sys, (uint64_t)sys, off, 1, err, sizeof err) == NULL,
		       "with executable mappings refused no aliased chain is built");
		tap_has(err, "refused", "saying so");
		unsetenv("AMP_NO_EXEC_MAPPINGS");
	}
#endif

#if defined(__x86_64__) || defined(__aarch64__)
	/* Code in the region: the chain runs on the arena's own page, and
	 * the page is writable again once the plan is done. */
	{
		struct amp_arena arena;
		uint64_t code[2] = { 8192, 8192 + 128 }, data[2] = { 0, 64 }, store = 8192 + 512;

		tap_eq(amp_arena_open(&arena, 1 << 16, 0, err, sizeof err), 0, "an arena for code in place");
		amp_plan_init(&p, "code in region", 1 << 16);
		p.arena = &arena;
		p.code_in_region = 1;
		amp_plan_add_seq(&p, code, 2);
		amp_plan_add_seq(&p, data, 2);
		amp_plan_add_pass(&p, 0, AMP_OP_FLUSH, 1, 0);
		amp_plan_add_pass(&p, 0, AMP_OP_IFETCH, 3, 1);
		amp_plan_add_pass(&p, 0, AMP_OP_TOUCH, 1, 1);
		amp_plan_add_pass(&p, 1, AMP_OP_LOAD, 2, 1);
		tap_eq(amp_run(&p, &host, NULL, 3, &res, err, sizeof err), 0, "a chain in the arena runs: %s", err);
		arena.base[8192] = 1;
		tap_ok(arena.base[8192] == 1, "and its page takes stores again");
		amp_plan_add_seq(&p, &store, 1);
		amp_plan_add_pass(&p, 2, AMP_OP_STORE, 1, 0);
		tap_eq(amp_run(&p, &host, NULL, 1, &res, err, sizeof err), -1, "a store on a page of code is refused");
		tap_has(err, "page that holds code", "with the reason");
		amp_plan_free(&p);
		amp_arena_close(&arena);
	}
#endif
	{
		uint64_t close_off[2] = { 0, 2 };
		struct amp_jumpchain *jc = amp_jumpchain_build(4096, close_off, 2, err, sizeof err);

		tap_ok(jc == NULL, "jumps closer than one instruction are refused");
		amp_jumpchain_free(jc);
	}
#if defined(__x86_64__) || defined(__aarch64__)
	{
		/* Branch predictors keep targets by address: no chain may land
		 * on the addresses of one before it, freed or not.  Each goes
		 * below all earlier ones, even past 256 MiB of other mappings
		 * right below the first (a sanitizer's allocator, libraries). */
		uint64_t off[3] = { 0, 4096, 8192 };
		const size_t wall = 256u << 20;
		uintptr_t lo[8] = { 0 };
		void *obstacle = MAP_FAILED;
		int below = 1, built = 1, taken = 0;

		for (int i = 0; i < 8 && built; i++) {
			struct amp_jumpchain *jc = amp_jumpchain_build(3 * 4096, off, 3, err, sizeof err);

			built = jc != NULL;
			if (!jc)
				break;
			amp_jumpchain_run(jc, 3);
			lo[i] = (uintptr_t)amp_jumpchain_code(jc);
			for (int j = 0; j < i; j++)
				below &= lo[i] + 3 * 4096 <= lo[j];
			if (i == 0) {
				obstacle = mmap((void *)(lo[0] - wall), wall, PROT_NONE,
						MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | FIXED_NOREPLACE, -1, 0);
				taken = obstacle == MAP_FAILED && errno == EEXIST;
			}
			amp_jumpchain_free(jc);
		}
		/* Under a sanitizer the first chain can land among its
		 * allocator's mappings: then they are the obstacle. */
		tap_ok(obstacle == (void *)(lo[0] - wall) || taken, "256 MiB right below the first chain mapped (%s)",
		       taken ? "already, by other mappings" : "by the test");
		tap_ok(built && below, "8 chains built and freed one after another: each below all before it%s%s",
		       built ? "" : ": ", built ? "" : err);
		if (obstacle != MAP_FAILED)
			munmap(obstacle, wall);
	}
#endif
}

/* Ticks per load at working-set size `size` (-1 when not swept). */
static double at(const struct amp_report *r, uint64_t size)
{
	for (int i = 0; i < r->nlatency; i++)
		if (r->latency[i].size == size)
			return r->latency[i].ticks;
	return -1;
}

static void test_latency_sim(void)
{
	struct sim_spec spec;
	struct amp_host host = { 0 };
	struct amp_report *r = calloc(1, sizeof *r);
	struct amp_ctx *ctx = calloc(1, sizeof *ctx);
	struct amp_sweep *sw = calloc(1, sizeof *sw);
	char err[256];

	if (!r || !ctx || !sw || sim_spec_parse("L1d:size=16K,assoc=4,line=64,latency=3;L1i:size=16K;"
				 "L2:size=256K,assoc=8,line=64,latency=11;MEM:latency=100",
				 &spec, err, sizeof err) < 0 || !(host.sim = sim_create(&spec, err, sizeof err))) {
		tap_ok(0, "simulated machine: %s", err);
		free(r);
		free(ctx);
		free(sw);
		return;
	}
	amp_ctx_init(ctx, &host, &amp_backend_sim, 1, 1, 1);
	amp_ctx_timing(ctx);
	tap_eq(amp_measure_latency(ctx, 1 << 20, sw, r, err, sizeof err), 0, "latency sweep runs");
	tap_ok(r->nlatency > 20 && r->latency[r->nlatency - 1].size <= 1 << 20,
	       "4 KiB to at most 1 MiB, about four sizes an octave (%d)", r->nlatency);
	tap_ok(r->latency[0].ticks == 3.0, "4 KiB: L1 latency 3 (%.2f)", r->latency[0].ticks);
	tap_ok(at(r, 16 << 10) == 3.0, "16 KiB: still L1 (%.2f)", at(r, 16 << 10));
	tap_ok(at(r, 64 << 10) > 13.9 && at(r, 64 << 10) <= 14.0, "64 KiB: L1 miss + L2 hit = 14 (%.2f)",
	       at(r, 64 << 10));
	tap_ok(r->latency[r->nlatency - 1].ticks > 100, "the largest: mostly memory (%.2f)",
	       r->latency[r->nlatency - 1].ticks);
	tap_ok(!r->latency[0].ns.known && strstr(r->latency[0].ns.reason, "no clock"),
	       "no nanoseconds on a simulated machine, with the reason");
	tap_eq(sw->nclusters, 3, "three levels: L1, L2 and memory");
	tap_ok(r->memory_ticks.known && r->memory_ticks.value > 100, "memory latency known (%.1f)",
	       r->memory_ticks.value);
	sim_destroy(host.sim);
	free(r);
	free(ctx);
	free(sw);
}

/* The CPU amp pins itself to (pin.c): the current one unless another is
 * clearly quieter; and on this machine a real choice among those allowed. */
static void test_pin(void)
{
	const double equal[3] = { 54.0, 54.3, 53.9 }, busy[3] = { 54.0, 61.0, 54.2 };
	const double quieter[2] = { 60.0, 54.0 };
	char how[192], why[256];
	int cpu;

	const double idle[3] = { 0, 0.02, -1 }, current_taken[3] = { 0, 1.0, 0.1 }, all_taken[3] = { 0.9, 1.0, 0.6 };
	const double other_taken[3] = { 1.0, 0, 0 }, fastest_here[3] = { 55.0, 53.0, 56.0 };

	tap_eq(amp_pin_choose(equal, NULL, 3, 1), 1, "pin: within the margin the current CPU stays");
	tap_eq(amp_pin_choose(busy, NULL, 3, 1), 0, "pin: a slow current CPU gives way to the quietest");
	tap_eq(amp_pin_choose(quieter, NULL, 2, 0), 1, "pin: 10%% quieter elsewhere moves");
	tap_eq(amp_pin_choose(busy, NULL, 3, 0), 0, "pin: the quietest current CPU stays");
	tap_eq(amp_pin_choose(equal, idle, 3, 1), 1, "pin: idle CPUs (or unknown) choose by the chases alone");
	/* Another process on the current CPU: the chases run as fast
	 * there (each in a time slice of its own), yet amp would get half
	 * of it. */
	tap_eq(amp_pin_choose(equal, current_taken, 3, 1), 2, "pin: a current CPU busy with other work gives way, to the fastest free one");
	tap_eq(amp_pin_choose(fastest_here, current_taken, 3, 1), 0, "pin: ... even where its chases ran fastest");
	tap_eq(amp_pin_choose(equal, other_taken, 3, 2), 2, "pin: a faster CPU busy with other work is no choice");
	tap_eq(amp_pin_choose(busy, all_taken, 3, 1), 0, "pin: where every CPU is busy, the chases decide");
	cpu = amp_pin_quietest(how, sizeof how, why, sizeof why);
	if (cpu < 0) {
		tap_ok(why[0] != 0, "pin: refused with a reason (%s)", why);
	} else {
#ifdef HAVE_SCHED_GETCPU
		tap_ok(sched_getcpu() == cpu, "pin: runs on the CPU chosen (%d): %s", cpu, how);
#endif
		tap_ok(strstr(how, "CPU") != NULL, "pin: says how it chose");
	}
}

/* The other CPUs' load from two /proc/stat readings (load.c). */
static void test_load(void)
{
	static struct amp_load a, b;
	struct amp_others o;
	char path[] = "/tmp/amp-stat-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		tap_ok(0, "load: a scratch file");
		return;
	}
	fputs("cpu  300 0 100 1000 0 0 0 0 0 0\ncpu0 100 0 50 500 0 0 0 0 0 0\n"
	      "cpu1 200 0 50 500 0 0 0 0 0 0\ncpu3 0 0 0 100 0 0 0 0 0 0\nintr 1 2 3\n", f);
	fclose(f);
	tap_eq(amp_load_read(path, &a), 0, "load: /proc/stat read");
	tap_ok(a.n == 3 && a.cpu[2] == 3 && a.busy[1] == 250 && a.all[1] == 750,
	       "load: per-CPU lines only, busy = user+nice+system+irq+softirq");
	f = fopen(path, "w");
	/* 100 jiffies later: CPU 0 (amp's) busy, CPU 1 busy 90, CPU 3 idle,
	 * CPU 5 new (not compared), steal counted in the time. */
	fputs("cpu0 200 0 50 500 0 0 0 0\ncpu1 280 0 60 500 0 0 0 10\ncpu3 0 0 0 200 0 0 0 0\n"
	      "cpu5 0 0 0 50 0 0 0 0\n", f);
	fclose(f);
	tap_eq(amp_load_read(path, &b), 0, "load: the second reading");
	tap_eq(amp_load_others(&a, &b, 0, &o), 0, "load: others of CPU 0");
	tap_ok(o.ncpus == 2 && o.busiest == 1 && o.busiest_share > 0.89 && o.busiest_share < 0.91,
	       "load: CPU 1 the busiest, 90%% (%.3f)", o.busiest_share);
	tap_ok(o.share > 0.44 && o.share < 0.46, "load: 90 of 200 jiffies together (%.3f)", o.share);
	tap_eq(amp_load_others(&a, &a, 0, &o), -1, "load: no time passed: nothing to say");
	unlink(path);
	tap_eq(amp_load_read(path, &a), -1, "load: a missing file");
}

/* Aliased pages map copies by line (synth/alias.c): no copy is mapped
 * more often than a shadowing hypervisor's bound allows (KVM: 1000) for
 * the TLB draws' largest tables, each line place lies in one copy (the
 * caches still see one page's lines), and the mappings reach the copy
 * named. */
static void test_alias_copies(void)
{
	const uint64_t page = 4096, most = 16384; /* the draws' EN_MAX */
	static uint64_t off[16384];
	static uint8_t copy[16384];
	char err[256];

	for (unsigned slot = 64; slot <= 128; slot *= 2) {
		unsigned uses[AMP_ALIAS_COPIES] = { 0 }, busiest = 0, split = 0;
		int place_copy[64];

		for (uint64_t j = 0; j < most; j++)
			off[j] = j * page + amp_tlb_draw_line(j, page / slot) * slot;
		tap_eq(amp_alias_copies(page, off, most, most, copy), 0, "alias: copies for %u pages", (unsigned)most);
		memset(place_copy, -1, sizeof place_copy);
		for (uint64_t j = 0; j < most; j++) {
			int place = (int)(off[j] % page / 64);

			uses[copy[j]]++;
			split += place_copy[place] >= 0 && place_copy[place] != copy[j];
			place_copy[place] = copy[j];
		}
		for (unsigned c = 0; c < AMP_ALIAS_COPIES; c++)
			busiest = uses[c] > busiest ? uses[c] : busiest;
		tap_ok(busiest <= 512, "alias: %u pages with a line each %u B apart map no copy more than 512 times (%u)",
		       (unsigned)most, slot, busiest);
		tap_eq(split, 0, "alias: each line place of the %u B slots lies in one copy", slot);
	}
	/* Pages of several lines take their lowest's copy; pages with none, 0. */
	{
		uint64_t some[3] = { 2 * page + 640, 2 * page + 192, 3 * page + 4032 };

		tap_eq(amp_alias_copies(page, some, 3, 5, copy), 0, "alias: copies for 5 pages");
		tap_ok(copy[0] == 0 && copy[1] == 0 && copy[2] == 3 && copy[3] == 63 && copy[4] == 0,
		       "alias: a page maps its lowest line's copy, an untouched one copy 0 (%u %u %u %u %u)", copy[0],
		       copy[1], copy[2], copy[3], copy[4]);
	}
	/* Mapped for real: each copy of this memfd holds its own number. */
	{
		long sys = sysconf(_SC_PAGESIZE);
		uint64_t ps = sys > 0 ? (uint64_t)sys : 4096, at_line[4] = { 0, ps + 5 * 64, 2 * ps + 64, 3 * ps + 5 * 64 + 8 };
		int fd = memfd_create("amp-test-alias", MFD_CLOEXEC);
		int ok = fd >= 0 && ftruncate(fd, (off_t)(ps * AMP_ALIAS_COPIES)) == 0;
		uint8_t *at = mmap(NULL, 4 * ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		for (unsigned c = 0; ok && c < AMP_ALIAS_COPIES; c++) {
			uint8_t b = (uint8_t)c;

			ok = pwrite(fd, &b, 1, (off_t)(c * ps)) == 1;
		}
		ok = ok && at != MAP_FAILED && amp_alias_map(at, 4 * ps, ps, fd, PROT_READ, at_line, 4, err, sizeof err) == 0;
		tap_ok(ok && at[0] == 0 && at[ps] == 5 && at[2 * ps] == 1 && at[3 * ps] == 5,
		       "alias: pages read the copies their lines name: %s", ok ? "mapped" : err);
		if (at != MAP_FAILED)
			munmap(at, 4 * ps);
		if (fd >= 0)
			close(fd);
	}
}

int main(void)
{
	test_pin();
	test_load();
	test_plans();
	test_sim_runner();
	test_real_runner();
	test_alias_copies();
	test_latency_sim();
	return tap_done();
}
