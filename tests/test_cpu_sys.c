/* test_cpu_sys.c - the CPU-system analyses on synthetic data with noise:
 * execution contexts from simulated scheduler timelines, mode of gaps,
 * clique tree; and the JSON members' shape
 * for a filled-in result.  No timing. */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_sys.h"
#include "util.h"
#include "tap.h"

static struct amp_rng rng;

/* Uniform noise in [-amp, amp]. */
static double noise(double amp)
{
	return ((double)amp_rng_below(&rng, 1000001) / 1000000.0 * 2 - 1) * amp;
}

/* A scheduler's timeline, simulated in steps of 5 us: M threads of ours
 * and `others` busy programs share `cpus` CPUs in time slots of about
 * 4 ms (who runs is drawn at random each slot).  Each of our threads
 * does CHUNKS chunks of 300 us of work alone; `shared` > 1: two of ours
 * running at once slow each other by that factor (one core's unit). */
#define CHUNKS 64
static void timeline(int m, int cpus, int others, double shared, uint64_t *start, uint64_t *end)
{
	double left[16], now = 0;
	int chunk[16], done = 0;

	for (int t = 0; t < m; t++) {
		left[t] = 300000 * (1 + noise(0.02));
		chunk[t] = 0;
		start[t * CHUNKS] = 0;
	}
	while (done < m) {
		int run[16], nrun = 0, slots = cpus;
		double slot_end = now + 4e6 * (1 + noise(0.2));

		/* The CPUs take the first of the runnable (ours unfinished,
		 * and the others) in a random order. */
		int order[32], nr = 0;

		for (int t = 0; t < m; t++)
			if (chunk[t] < CHUNKS)
				order[nr++] = t;
		for (int o = 0; o < others; o++)
			order[nr++] = m + o;
		for (int i = nr - 1; i > 0; i--) {
			int j = (int)amp_rng_below(&rng, (uint64_t)i + 1), tmp = order[i];

			order[i] = order[j];
			order[j] = tmp;
		}
		for (int i = 0; i < nr && i < slots; i++)
			if (order[i] < m)
				run[nrun++] = order[i];
		for (; now < slot_end && done < m; now += 5000) {
			double rate = nrun > 1 ? 1 / shared : 1;

			for (int r = 0; r < nrun; r++) {
				int t = run[r];

				if (chunk[t] == CHUNKS)
					continue;
				left[t] -= 5000 * rate;
				if (left[t] <= 0) {
					end[t * CHUNKS + chunk[t]] = (uint64_t)(now + 5000);
					if (++chunk[t] == CHUNKS) {
						done++;
						continue;
					}
					start[t * CHUNKS + chunk[t]] = (uint64_t)(now + 5000);
					left[t] = 300000 * (1 + noise(0.02));
				}
			}
		}
	}
}

/* The curve for 1..2N threads, each point the best of 5 rounds, and the
 * count from it. */
static int contexts_of(int cpus, int others, double shared, double *y)
{
	static uint64_t start[16 * CHUNKS], end[16 * CHUNKS];

	for (int m = 1; m <= 2 * cpus; m++) {
		y[m - 1] = 0;
		for (int r = 0; r < 5; r++) {
			double v;

			timeline(m, cpus, others, shared, start, end);
			v = amp_ctx_together(start, end, m, CHUNKS, 300000 * 0.98);
			if (!y[m - 1] || v < y[m - 1])
				y[m - 1] = v;
		}
	}
	return amp_ctx_count(y, 2 * cpus, 1.5);
}

static void test_contexts(void)
{
	double y[16];
	int ok = 1;

	tap_eq(contexts_of(2, 0, 1, y), 2, "contexts: 2 CPUs, idle machine (curve %.2f %.2f %.2f %.2f)", y[0], y[1],
	       y[2], y[3]);
	tap_eq(contexts_of(2, 2, 1, y), 2, "contexts: 2 CPUs, two other busy programs (curve %.2f %.2f %.2f %.2f)",
	       y[0], y[1], y[2], y[3]);
	tap_eq(contexts_of(1, 0, 1, y), 1, "contexts: 1 CPU (curve %.2f %.2f)", y[0], y[1]);
	tap_eq(contexts_of(2, 1, 2.0, y), 1, "contexts: 2 CPUs sharing one unit count once (curve %.2f %.2f)", y[0],
	       y[1]);
	for (int cpus = 1; cpus <= 4; cpus++)
		for (int others = 0; others <= 2; others++) {
			int got = contexts_of(cpus, others, 1, y);

			if (got != cpus)
				printf("# %d CPUs, %d others: %d\n", cpus, others, got);
			ok &= got == cpus;
		}
	tap_ok(ok, "contexts: 1..4 CPUs with 0..2 other busy programs");
	{
		uint64_t start[2 * CHUNKS], end[2 * CHUNKS];

		/* Two threads one after the other: never together. */
		for (int c = 0; c < CHUNKS; c++) {
			start[c] = (uint64_t)c * 10;
			end[c] = start[c] + 10;
			start[CHUNKS + c] = 10000 + (uint64_t)c * 10;
			end[CHUNKS + c] = start[CHUNKS + c] + 10;
		}
		tap_ok(amp_ctx_together(start, end, 2, CHUNKS, 10) == 2, "together: never at once reads as 2 (serial)");
		tap_ok(fabs(amp_ctx_together(start, end, 1, CHUNKS, 10) - 1) < 1e-9, "together: one thread reads 1");
	}
	{
		double c[] = { 1.0, 1.02, 7.5, 20 }, none[] = { 1.0, 1.1, 1.2 };

		tap_eq(amp_ctx_count(c, 4, 1.5), 2, "count: the points up to the first above the limit");
		tap_eq(amp_ctx_count(none, 3, 1.5), 3, "count: all points below (no answer: the caller says so)");
	}
}

static void test_gap_mode(void)
{
	double g[400];
	int n = 0;

	/* Slot of 4 ms with jitter, doubled slots, short interruptions. */
	for (int i = 0; i < 150; i++)
		g[n++] = 4.0 * (1 + noise(0.03));
	for (int i = 0; i < 60; i++)
		g[n++] = 8.0 * (1 + noise(0.03));
	for (int i = 0; i < 80; i++)
		g[n++] = 0.02 + (double)amp_rng_below(&rng, 1000) / 1000.0 * 3.5;
	for (int i = 0; i < 10; i++)
		g[n++] = 20 + (double)amp_rng_below(&rng, 100);
	{
		double m = amp_gap_mode(g, n, 0.1, 0.2);

		tap_ok(fabs(m - 4.0) < 0.15, "gap mode: 4 ms among doubled slots and short interruptions (got %.3f)", m);
	}
	n = 0;
	for (int i = 0; i < 40; i++)
		g[n++] = 2.8 * (1 + noise(0.02));
	for (int i = 0; i < 30; i++)
		g[n++] = 0.05 + (double)amp_rng_below(&rng, 1000) / 1000.0 * 10;
	{
		double m = amp_gap_mode(g, n, 0.1, 0.2);

		tap_ok(fabs(m - 2.8) < 0.1, "gap mode: 2.8 ms among spread outliers (got %.3f)", m);
	}
	/* A virtual machine: short exits far more often than slots end. */
	n = 0;
	for (int i = 0; i < 300; i++)
		g[n++] = 0.03 + (double)amp_rng_below(&rng, 1000) / 1000.0 * 0.03;
	for (int i = 0; i < 60; i++)
		g[n++] = 12.0 * (1 + noise(0.01));
	{
		double m = amp_gap_mode(g, n, 0.1, 0.2);

		tap_ok(fabs(m - 12.0) < 0.2, "gap mode: 12 ms among 300 short exits below the floor (got %.3f)", m);
	}
	tap_ok(amp_gap_mode(g, 300, 0.1, 0.2) == 0, "gap mode: only gaps below the floor, 0");
	tap_ok(amp_gap_mode(g, 0, 0.1, 0.2) == 0, "gap mode: no gaps, 0");
}

/* bw[b][i][j] for a machine described by `group(level, cpu)`: CPUs in
 * the same group at a level talk at that level's speed. */
#define MAXN 16
static double bw[4 * MAXN * MAXN];

typedef int (*group_fn)(int level, int cpu);

/* level 0: the same core (SMT siblings), 1: the same socket, 2: anywhere. */
static void make_matrix(int n, int nblocks, group_fn group, const double speed[][3], double amp)
{
	for (int b = 0; b < nblocks; b++)
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++) {
				int lv = group(0, i) == group(0, j) ? 0 : group(1, i) == group(1, j) ? 1 : 2;
				double v = speed[b][lv] * (1 + noise(amp));

				if (j > i)
					bw[(b * n + i) * n + j] = bw[(b * n + j) * n + i] = v;
				else if (i == j)
					bw[(b * n + i) * n + j] = 0;
			}
}

static int flat_group(int level, int cpu)
{
	return 0;
}

static int sockets_group(int level, int cpu)
{
	/* 2 sockets x 4 cores: CPUs 0,2,4,6 on one, 1,3,5,7 on the other
	 * (interleaved, as Linux often numbers them). */
	return level == 0 ? cpu : cpu % 2;
}

static int smt_group(int level, int cpu)
{
	/* 4 cores x 2 threads, one socket: siblings i and i+4. */
	return level == 0 ? cpu % 4 : 0;
}

static int count_at_depth(const struct amp_locality_node *nd, int nn, int depth, int size)
{
	int c = 0;

	for (int i = 0; i < nn; i++)
		if (nd[i].depth == depth && __builtin_popcountll(nd[i].cpus) == size)
			c++;
	return c;
}

static int has_node(const struct amp_locality_node *nd, int nn, uint64_t cpus)
{
	for (int i = 0; i < nn; i++)
		if (nd[i].cpus == cpus)
			return 1;
	return 0;
}

static void test_clique_tree(void)
{
	static const uint64_t block[4] = { 16 << 10, 256 << 10, 4 << 20, 64 << 20 };
	struct amp_locality_node nd[AMP_CPUSYS_MAX_NODES];
	int nn, ok = 1;

	/* One clique of two CPUs (this machine). */
	{
		static const double sp[4][3] = { { 30, 30, 30 }, { 25, 25, 25 }, { 18, 18, 18 }, { 9, 9, 9 } };

		make_matrix(2, 4, flat_group, sp, 0.05);
		nn = amp_clique_tree(2, 4, block, bw, nd, AMP_CPUSYS_MAX_NODES);
		tap_eq(nn, 1, "clique tree: 2 CPUs, one clique");
		tap_ok(nd[0].cpus == 3 && nd[0].parent == -1, "clique tree: the root holds both CPUs");
		tap_ok(fabs(nd[0].gbs - 9) < 0.5, "clique tree: root bandwidth at the largest block (%.2f)", nd[0].gbs);
	}
	/* 2 sockets x 4 cores: NUMA at every block, private caches only. */
	for (int trial = 0; trial < 20; trial++) {
		static const double sp[4][3] = { { 0, 20, 10 }, { 0, 18, 9 }, { 0, 15, 7 }, { 0, 8, 4 } };

		make_matrix(8, 4, sockets_group, sp, 0.06);
		nn = amp_clique_tree(8, 4, block, bw, nd, AMP_CPUSYS_MAX_NODES);
		if (nn != 3 || !has_node(nd, nn, 0x55) || !has_node(nd, nn, 0xaa) || nd[1].block != (64 << 20))
			ok = 0;
	}
	tap_ok(ok, "clique tree: 2 sockets x 4 cores gives two cliques {0,2,4,6} {1,3,5,7} at the largest block (20 noisy trials)");
	/* 4 cores x 2 SMT threads: siblings only faster in the small blocks. */
	ok = 1;
	for (int trial = 0; trial < 20; trial++) {
		static const double sp[4][3] = { { 60, 20, 20 }, { 40, 19, 19 }, { 16, 16, 16 }, { 8, 8, 8 } };

		make_matrix(8, 4, smt_group, sp, 0.05);
		nn = amp_clique_tree(8, 4, block, bw, nd, AMP_CPUSYS_MAX_NODES);
		if (nn != 5 || count_at_depth(nd, nn, 1, 2) != 4 || !has_node(nd, nn, 0x11) || !has_node(nd, nn, 0x88))
			ok = 0;
		for (int i = 1; i < nn; i++)
			if (nd[i].block != (256 << 10))
				ok = 0;
	}
	tap_ok(ok, "clique tree: 4 cores x 2 SMT threads gives four sibling pairs at 256 KiB (20 noisy trials)");
	/* Both: 2 sockets x 2 cores x 2 threads. */
	{
		static const double sp[4][3] = { { 60, 20, 10 }, { 40, 19, 9 }, { 16, 15, 7 }, { 8, 8, 4 } };
		ok = 1;
		for (int trial = 0; trial < 20; trial++) {
			/* cpu c: socket c % 2, core c % 4, sibling c / 4 */
			for (int b = 0; b < 4; b++)
				for (int i = 0; i < 8; i++)
					for (int j = i + 1; j < 8; j++) {
						int lv = i % 4 == j % 4 ? 0 : i % 2 == j % 2 ? 1 : 2;
						double v = sp[b][lv] * (1 + noise(0.05));

						bw[(b * 8 + i) * 8 + j] = bw[(b * 8 + j) * 8 + i] = v;
					}
			nn = amp_clique_tree(8, 4, block, bw, nd, AMP_CPUSYS_MAX_NODES);
			if (nn != 7 || count_at_depth(nd, nn, 1, 4) != 2 || count_at_depth(nd, nn, 2, 2) != 4 ||
			    !has_node(nd, nn, 0x55) || !has_node(nd, nn, 0x11) || !has_node(nd, nn, 0x44))
				ok = 0;
		}
		tap_ok(ok, "clique tree: 2 sockets x 2 cores x 2 threads: sockets, then sibling pairs (20 noisy trials)");
	}
	/* Uniform with noise: no clique. */
	ok = 1;
	for (int trial = 0; trial < 20; trial++) {
		static const double sp[4][3] = { { 20, 20, 20 }, { 18, 18, 18 }, { 15, 15, 15 }, { 8, 8, 8 } };

		make_matrix(8, 4, flat_group, sp, 0.06);
		if (amp_clique_tree(8, 4, block, bw, nd, AMP_CPUSYS_MAX_NODES) != 1)
			ok = 0;
	}
	tap_ok(ok, "clique tree: 8 CPUs with uniform noisy bandwidth stay one clique (20 trials)");
	tap_eq(amp_clique_tree(0, 4, block, bw, nd, AMP_CPUSYS_MAX_NODES), 0, "clique tree: no CPUs, no tree");
}

static void test_json(void)
{
	static struct amp_cpusys s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	amp_cpusys_unknown(&s, "why \"quoted\"");
	s.ncpus = 2;
	s.cpu[0] = 0;
	s.cpu[1] = 1;
	s.pinned = 1;
	amp_num_set(&s.ctx[0].count, 2);
	s.smt_known = 1;
	s.npairs_smt = 1;
	s.smt[0] = (struct amp_smt_pair){ 0, 1, { 1.02, 1.01 }, 0 };
	s.loc_known = 1;
	s.nnodes = 1;
	s.node[0] = (struct amp_locality_node){ 3, -1, 0, 64 << 20, 9.5 };
	s.nblocks = 1;
	s.block[0] = 64 << 20;
	s.pair_gbs[0][0][1] = s.pair_gbs[0][1][0] = 9.5;
	amp_cpusys_json_members(&s, f);
	fclose(f);
	tap_ok(strncmp(buf, ",\n", 2) == 0, "json: members start with a comma");
	tap_has(buf, "\"execution_contexts\": {\"integer\": 2, \"float\": null, \"float_reason\": \"why \\\"quoted\\\"\"",
		"json: contexts known and unknown, reason escaped");
	tap_has(buf, "\"smt_pairs\": []", "json: no SMT pair");
	tap_has(buf, "\"tree\": {\"cpus\": [0, 1]", "json: the tree's root");
	tap_has(buf, "\"bandwidth\": null, \"bandwidth_reason\"", "json: bandwidth unknown with its reason");
	free(buf);
}

int main(void)
{
	amp_rng_seed(&rng, 42);
	test_contexts();
	test_gap_mode();
	test_clique_tree();
	test_json();
	return tap_done();
}
