/* test_cpu_sys.c - the CPU-system analyses on synthetic data with noise:
 * first step, mode of gaps, clique tree; and the JSON members' shape
 * for a filled-in result.  No timing. */
#include "config.h"
#include <math.h>
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

/* M threads on N contexts: flat, then ceil(M/N) (threads stay put) or
 * M/N (the OS spreads the extra ones). */
static void contexts_curve(double *y, int n, int contexts, int spread, double amp)
{
	for (int m = 1; m <= n; m++) {
		double ideal = m <= contexts ? 1 : spread ? (double)m / contexts : (double)((m + contexts - 1) / contexts);

		y[m - 1] = ideal * (1 + noise(amp));
	}
}

static void test_first_step(void)
{
	double y[32];
	int ok_step = 1, ok_spread = 1;

	/* The example of the paper's kind: noise on the flat part. */
	{
		double c[] = { 1.0, 1.03, 0.99, 1.02, 2.0, 2.05, 3.0, 3.1 };

		tap_eq(amp_first_step(c, 8, 0.1), 3, "first step: flat for 4 points with noise, then steps");
	}
	for (int trial = 0; trial < 50; trial++) {
		int n = 1 + (int)amp_rng_below(&rng, 15), m = 2 + (int)amp_rng_below(&rng, 5);

		contexts_curve(y, 2 * n, n, 0, 0.04);
		if (amp_first_step(y, 2 * n, 0.1) != n - 1)
			ok_step = 0;
		/* After the step the time grows by 1/m per thread: from 6
		 * contexts on, that is within 2% noise of flat. */
		contexts_curve(y, 2 * m, m, 1, 0.02);
		if (amp_first_step(y, 2 * m, 0.1) != m - 1)
			ok_spread = 0;
	}
	tap_ok(ok_step, "first step: 50 noisy step curves (1..15 contexts, 4%% noise)");
	tap_ok(ok_spread, "first step: 50 noisy linear curves, 2..6 contexts (the OS spreads the extra threads)");
	/* This machine's case: 2 contexts, curve up to 4 threads. */
	{
		double c[] = { 1.0, 1.04, 1.49, 2.02 };

		tap_eq(amp_first_step(c, 4, 0.1), 1, "first step: 2 contexts from 4 points");
	}
	/* One context (or one CPU). */
	{
		double c[] = { 1.0, 2.01, 2.98 };

		tap_eq(amp_first_step(c, 3, 0.1), 0, "first step: 1 context");
	}
	/* No flat part: every step real (one context, on a loaded machine). */
	{
		double c[] = { 1.0, 1.62, 2.64 };

		tap_eq(amp_first_step(c, 3, 0.1), 0, "first step: a curve with no flat part has its step at once");
	}
	/* No step: flat noise only. */
	{
		double c[] = { 1.0, 1.02, 0.99, 1.03, 1.01, 1.04 };

		tap_eq(amp_first_step(c, 6, 0.1), -1, "first step: none in flat noise");
	}
	tap_eq(amp_first_step(y, 1, 0.1), -1, "first step: one point is no curve");
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
	test_first_step();
	test_gap_mode();
	test_clique_tree();
	test_json();
	return tap_done();
}
