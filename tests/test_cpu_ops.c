/* test_cpu_ops.c - the nano-benchmark generator and the CPU curve
 * analyses: the generated table is complete, the timed statements
 * survive -O2 (counted in the object code), the generator takes a new
 * configuration and refuses a bad one, the live-range loops spill where
 * the registers run out (object code), and monotonicity, first step,
 * biggest relative step and the spill step find known answers on
 * synthetic noisy curves. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "curve.h"
#include "nanobench.h"
#include "tap.h"

static const char *const ops[] = { "add", "sub", "mul", "div" };
static const char *const types[] = { "int32", "int64", "float", "double" };

static void table_complete(void)
{
	int missing = 0;

	for (int o = 0; o < 4; o++)
		for (int t = 0; t < 4; t++)
			for (int k = 1; k <= NB_MAX_STREAMS; k++) {
				const struct amp_nb *b = amp_nb_find(AMP_NB_OPS, ops[o], types[t], k, 0);
				int len = b ? nb_len_short(k, b->nstmts) : 1;

				if (!b || !amp_nb_find(AMP_NB_OPS, ops[o], types[t], k, len) ||
				    !amp_nb_find(AMP_NB_OPS, ops[o], types[t], k, 2 * len))
					missing++;
			}
	tap_eq(missing, 0, "every op x type has both unrolls for 1..%d streams", NB_MAX_STREAMS);
	tap_ok(amp_nb_find(AMP_NB_OPS, "fma", "double", 1, 0) && amp_nb_find(AMP_NB_OPS, "muladd", "double", 1, 0),
	       "the FMA pair is in the table");
	for (int n = 2; n <= NB_MAX_VARS; n++)
		if (!amp_nb_find(AMP_NB_REGS, "int", NULL, n, 0) || !amp_nb_find(AMP_NB_REGS, "double", NULL, n, 0) ||
		    !amp_nb_find(AMP_NB_REGS, "vector", NULL, n, 0))
			missing++;
	tap_eq(missing, 0, "register benchmarks for 2..%d variables of int, double, vector", NB_MAX_VARS);
}

/* objdump's listing of `file`, to pclose; `header` gets the line that
 * starts function `fn` in it.  NULL when objdump cannot run. */
static FILE *disassembly(const char *file, const char *fn, char *header, size_t len)
{
	FILE *p;

	snprintf(header, len, "objdump -d --no-show-raw-insn '%s' 2>/dev/null", file);
	p = popen(header, "r");
	snprintf(header, len, "<%s>:", fn);
	return p;
}

/* The next line of the function that `header` starts in objdump's
 * listing p; 0 at its end (the blank line after it, or the end of the
 * listing).  *in_fn tells whether the function was found at all. */
static int fn_line(FILE *p, const char *header, char *line, int size, int *in_fn)
{
	while (fgets(line, size, p)) {
		if (!*in_fn) {
			*in_fn = strstr(line, header) != NULL;
			continue;
		}
		return line[0] != '\n';
	}
	return 0;
}

/* Instructions of `file`'s function `fn` in its timed part (between its
 * two timer reads; from the switch's indirect jump where it has one, so
 * the jump table's arithmetic is left out) whose mnemonic is
 * one of the words in `mn` (space-separated), immediates left out (the
 * loop's own decrement); -1 when objdump fails. */
static int count_insns(const char *file, const char *fn, const char *mn)
{
	char cmd[1024], line[512];
	int n = 0, in_fn = 0, in_loop = 0;
	FILE *p;

	p = disassembly(file, fn, cmd, sizeof cmd);
	if (!p)
		return -1;
	while (fn_line(p, cmd, line, sizeof line, &in_fn)) {
		char *tab, word[32], args[64], list[128];

		/* "  addr:\tmnemonic operands" */
		tab = strchr(line, '\t');
		args[0] = '\0';
		if (!tab || sscanf(tab + 1, "%31s %63s", word, args) < 1)
			continue;
		if (strcmp(word, "jmp") == 0 && args[0] == '*') {
			n = 0;
			continue;
		}
		if (strcmp(word, "rdtsc") == 0) {
			if (in_loop)
				break;
			in_loop = 1;
			continue;
		}
		if (!in_loop || args[0] == '$')
			continue;
		snprintf(list, sizeof list, "%s", mn);
		for (char *w = strtok(list, " "); w; w = strtok(NULL, " "))
			if (strcmp(word, w) == 0)
				n++;
	}
	if (pclose(p) != 0 && !in_fn)
		return -1;
	return in_fn ? n : -1;
}

/* Instructions of `fn`'s loop (from the target of its last backward
 * conditional jump to that jump) that touch the stack: the spills; -1
 * when objdump fails or no loop is found. */
static int loop_stack_refs(const char *file, const char *fn)
{
	char cmd[1024], line[512];
	static unsigned long addr[4096];
	static char onstack[4096];
	unsigned long from = 0, to = 0;
	int n = 0, in_fn = 0, refs = 0;
	FILE *p;

	p = disassembly(file, fn, cmd, sizeof cmd);
	if (!p)
		return -1;
	while (fn_line(p, cmd, line, sizeof line, &in_fn)) {
		char word[32];
		unsigned long a, target;
		char *tab;

		if (n == 4096)
			continue;
		tab = strchr(line, '\t');
		if (!tab || sscanf(line, " %lx:", &a) != 1 || sscanf(tab + 1, "%31s %lx", word, &target) < 1)
			continue;
		addr[n] = a;
		onstack[n++] = strstr(tab, "(%rsp)") || strstr(tab, "(%rbp)");
		if ((strcmp(word, "jne") == 0 || strcmp(word, "jnz") == 0) &&
		    sscanf(tab + 1, "%31s %lx", word, &target) == 2 && target < a) {
			from = target;
			to = a;
		}
	}
	pclose(p);
	if (!in_fn || to == 0)
		return -1;
	for (int i = 0; i < n; i++)
		refs += onstack[i] && addr[i] >= from && addr[i] <= to;
	return refs;
}

/* The live-range template leaves the registers to the variables: no
 * switch, nothing live across the timer reads, so 14 variables stay in
 * the 15 general-purpose registers an x86-64 function may use (16 but
 * the stack pointer) with one for the loop counter; 18 cannot. */
static void live_ranges_spill_where_registers_end(const char *self)
{
#if defined(__x86_64__)
	int fit = loop_stack_refs(self, "nb_regs_int_n14"), over = loop_stack_refs(self, "nb_regs_int_n18");
	int vfit = loop_stack_refs(self, "nb_regs_vector_n16"), vover = loop_stack_refs(self, "nb_regs_vector_n18");

	if (fit < 0) {
		tap_ok(1, "# SKIP objdump cannot read %s", self);
		return;
	}
	tap_eq(fit, 0, "14 int variables: the loop never touches the stack");
	tap_ok(over > 0, "18 int variables: the loop spills (%d stack accesses)", over);
	tap_eq(vfit, 0, "16 vector variables: no spill in 16 xmm registers");
	tap_ok(vover > 0, "18 vector variables: the loop spills (%d stack accesses)", vover);
#else
	(void)self;
	tap_ok(1, "# SKIP register counts are written for x86-64");
#endif
}

/* The shipped functions, in this very binary (built with amp's flags):
 * every timed statement is one instruction of its kind in the code. */
static void shipped_code_survives(const char *self)
{
#if defined(__x86_64__)
	static const struct {
		const char *fn, *mnemonics;
		int want;
	} rows[] = {
		{ "nb_ops_add_int32_k1_l6", "add", 12 },      /* A += X; A += Y, 6 steps */
		{ "nb_ops_sub_int64_k1_l6", "sub", 12 },
		{ "nb_ops_mul_int64_k1_l6", "imul", 12 },
		{ "nb_ops_mul_int32_k4_l4", "imul", 32 },
		{ "nb_ops_div_int32_k1_l12", "idiv", 12 },
		{ "nb_ops_div_int64_k2_l6", "idiv", 12 },
		{ "nb_ops_add_double_k3_l4", "addsd", 24 },
		{ "nb_ops_div_float_k1_l6", "divss", 12 },
		{ "nb_ops_mul_double_k12_l2", "mulsd", 48 },
		{ "nb_ops_fma_double_k1_l12", "vfmadd132sd vfmadd213sd vfmadd231sd", 12 },
		{ "nb_ops_muladd_double_k1_l6", "mulsd", 6 },
		{ "nb_regs_int_n8", "add", 32 },
		{ "nb_regs_vector_n10", "addpd", 40 },
	};
	int got = count_insns(self, rows[0].fn, rows[0].mnemonics);

	if (got < 0) {
		tap_ok(1, "# SKIP objdump cannot read %s", self);
		return;
	}
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		got = count_insns(self, rows[i].fn, rows[i].mnemonics);
		tap_eq(got, rows[i].want, "%s: %d %s survive -O2", rows[i].fn, rows[i].want, rows[i].mnemonics);
	}
#else
	(void)self;
	tap_ok(1, "# SKIP instruction counts are written for x86-64");
#endif
}

/* The generator itself: a new configuration line becomes compilable
 * code whose statements all survive -O2; a bad line is refused. */
static void generator_takes_new_lines(void)
{
	const char *gen = getenv("AMP_NBGEN"), *cc = getenv("CC"), *cpp = getenv("AMP_CPPFLAGS");
	char dir[] = "/tmp/amp-nbgen.XXXXXX", cmd[2048], path[512];
	FILE *f;
	int st;

	if (!gen || !cc || !cpp || !mkdtemp(dir)) {
		tap_ok(1, "# SKIP AMP_NBGEN, CC or AMP_CPPFLAGS unset (run under make check)");
		return;
	}
	snprintf(path, sizeof path, "%s/new.def", dir);
	f = fopen(path, "w");
	fprintf(f, "# a new operation and a new register type\n"
		   "ops xor int64 5 3 - - A = A ^ X; A = A ^ Y\n"
		   "regs ints unsigned int\n");
	fclose(f);
	snprintf(cmd, sizeof cmd, "'%s' '%s/new.def' >'%s/new.c' && %s -std=gnu11 -O2 -Wall -Werror %s -c '%s/new.c' -o '%s/new.o'",
		 gen, dir, dir, cc, cpp, dir, dir);
	st = system(cmd);
	tap_eq(st, 0, "a new ops line and regs line generate code that compiles with -Werror");
#if defined(__x86_64__)
	if (st == 0) {
		snprintf(path, sizeof path, "%s/new.o", dir);
		tap_eq(count_insns(path, "nb_ops_xor_int64_k1_l6", "xor"), 12, "its 12 xors survive -O2");
		tap_eq(count_insns(path, "nb_ops_xor_int64_k5_l2", "xor"), 20, "5 streams x 2 steps x 2 xors survive");
		tap_eq(count_insns(path, "nb_regs_ints_n5", "add"), 35, "35 live-range adds survive");
	}
#endif
	snprintf(path, sizeof path, "%s/bad.def", dir);
	f = fopen(path, "w");
	fprintf(f, "ops add int128 1 -1 - - A = A + X\n");
	fclose(f);
	snprintf(cmd, sizeof cmd, "'%s' '%s/bad.def' >/dev/null 2>'%s/err'", gen, dir, dir);
	st = system(cmd);
	tap_ok(st != 0, "an unknown type is refused");
	snprintf(path, sizeof path, "%s/bad.def", dir);
	f = fopen(path, "w");
	fprintf(f, "ops div int32 7 9 - nosuch A = A / X; A = A + Y\n");
	fclose(f);
	st = system(cmd);
	tap_ok(st != 0, "an aux naming no line is refused");
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", dir);
}

/* ---- synthetic curves ---- */

static unsigned long long rng = 12345;

static double noise(double amp)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return amp * (((double)(rng >> 11) / 9007199254740992.0) * 2 - 1);
}

static void monotone(void)
{
	double y[] = { 3, 1, 2, 2, 5, 4, 6 }, want[] = { 1, 1, 2, 2, 4, 4, 6 };
	int same = 1;

	amp_curve_monotone(y, 7);
	for (int i = 0; i < 7; i++)
		same &= y[i] == want[i];
	tap_ok(same, "monotone: y[i] = min over j >= i");
}

/* Live ranges: slower per add with few variables (idle pipeline), flat,
 * maybe a slight rise, then the first spill and irregular growth. */
static void biggest_step_on_live_ranges(void)
{
	int right = 0, trials = 0;

	for (int regs = 8; regs <= 32; regs += 3)
		for (int seed = 0; seed < 20; seed++) {
			double y[39];
			int step;

			for (int v = 2; v <= 40; v++) {
				double base = v < 6 ? 1.0 / v * 2.4 : 0.4;

				if (v > regs - 2 && v <= regs)
					base *= 1.04;                  /* a reserved register or two */
				if (v > regs)
					base = 0.8 + 0.05 * (v - regs) + 0.1 * ((v * 7) % 3); /* spills */
				y[v - 2] = base * (1 + noise(0.04));
			}
			amp_curve_monotone(y, 39);
			step = amp_curve_biggest_step(y, 39, 0.1);
			trials++;
			right += step + 2 == regs;
		}
	tap_eq(right, trials, "biggest relative step finds the register count on %d noisy curves", trials);
}

/* Live ranges where spills cost throughput only (stores forwarded to
 * loads at no latency, as on AMD Zen 5): the first spill raises the
 * time per add by a third, the next ones by as much or more (the
 * compiler spills several at once), then the curve wanders.  The spill
 * step finds the count; the biggest step often does not. */
static void spill_step_on_live_ranges(void)
{
	int right = 0, trials = 0, biggest_right = 0;

	for (int regs = 8; regs <= 32; regs += 3)
		for (int seed = 0; seed < 20; seed++) {
			double y[39], z[39];
			int step;

			for (int v = 2; v <= 40; v++) {
				double base = v < 5 ? 1.1 / v : 0.22; /* the pipeline fills */

				if (v == regs)
					base *= 1.05;                  /* the loop counter moved to memory */
				if (v > regs)                          /* spills: steps of 30-50%, then wander */
					base = 0.22 * (1.35 + (v > regs + 1 ? 0.55 : 0) + 0.02 * (v - regs) +
						       0.15 * ((v * 7) % 3));
				y[v - 2] = base * (1 + noise(0.03));
			}
			amp_curve_monotone(y, 39);
			memcpy(z, y, sizeof y);
			step = amp_curve_spill_step(y, 39);
			trials++;
			right += step + 2 == regs;
			biggest_right += amp_curve_biggest_step(z, 39, 0.1) + 2 == regs;
		}
	tap_eq(right, trials, "spill step finds the register count on %d noisy curves", trials);
	tap_ok(biggest_right < trials, "the biggest step misses it on %d of them", trials - biggest_right);
}

/* Operations in flight: a round costs the same until the streams fill
 * the pipeline, then k times the initiation interval. */
static void first_step_on_in_flight(void)
{
	int right = 0, trials = 0;

	for (int lat = 1; lat <= 5; lat++)
		for (double ii = 0.25; ii <= 1.0; ii *= 2)
			for (int seed = 0; seed < 10; seed++) {
				double y[NB_MAX_STREAMS];
				int in_flight = (int)(lat / ii + 0.5), step;

				if (in_flight >= NB_MAX_STREAMS)
					continue;
				for (int k = 1; k <= NB_MAX_STREAMS; k++) {
					double round = k * ii > lat ? k * ii : lat;

					y[k - 1] = round * (1 + noise(0.015));
				}
				amp_curve_monotone(y, NB_MAX_STREAMS);
				step = amp_curve_first_step(y, NB_MAX_STREAMS, 0.05);
				trials++;
				right += step + 1 == in_flight;
				if (step + 1 != in_flight)
					tap_diag("latency %d, interval %.2f: got %d, want %d", lat, ii, step + 1, in_flight);
			}
	tap_eq(right, trials, "first step finds the operations in flight on %d noisy curves", trials);
}

/* Execution-context shaped curves (flat at 1, then a jump, then noise
 * and more steps): the first step, not the biggest. */
static void first_step_not_biggest(void)
{
	double y[8] = { 1.0, 1.01, 0.99, 1.02, 1.6, 2.0, 3.9, 4.0 };

	amp_curve_monotone(y, 8);
	tap_eq(amp_curve_first_step(y, 8, 0), 3, "first step: the first jump above the mean relative step");
	tap_eq(amp_curve_biggest_step(y, 8, 0), 5, "biggest step: the largest relative jump");
}

static void flat_curves(void)
{
	double y[12];

	for (int i = 0; i < 12; i++)
		y[i] = 1 + noise(0.01);
	amp_curve_monotone(y, 12);
	tap_eq(amp_curve_first_step(y, 12, 0.05), -1, "a flat noisy curve has no first step above the floor");
	tap_eq(amp_curve_biggest_step(y, 12, 0.1), -1, "nor a biggest step above the floor");
	tap_eq(amp_curve_first_step(y, 1, 0), -1, "one point has no step");
}

static void unknown_cpu_emits(void)
{
	static struct amp_cpu cpu;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	amp_cpu_unknown(&cpu, "a simulated machine has no cores to time");
	f = open_memstream(&buf, &len);
	amp_cpu_json_members(&cpu, f);
	fclose(f);
	tap_has(buf, "\"frequency_mhz\": null", "unknown: frequency null in JSON");
	tap_has(buf, "\"reason\": \"a simulated machine has no cores to time\"", "unknown: with its reason");
	tap_has(buf, "{\"op\": \"div\", \"type\": \"double\", \"latency_cycles\": null", "unknown: rows still listed");
	tap_has(buf, "\"registers\": {\"int\": null, \"double\": null, \"vector\": null}", "unknown: registers null");
	free(buf);
}

int main(int argc, char **argv)
{
	table_complete();
	shipped_code_survives(argv[0]);
	live_ranges_spill_where_registers_end(argv[0]);
	generator_takes_new_lines();
	monotone();
	biggest_step_on_live_ranges();
	spill_step_on_live_ranges();
	first_step_on_in_flight();
	first_step_not_biggest();
	flat_curves();
	unknown_cpu_emits();
	(void)argc;
	return tap_done();
}
