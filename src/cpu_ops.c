/* cpu_ops.c - the core micro-benchmarks (X-Ray section 3, BlackjackBench
 * 3.3 and 3.5), timed with the generated nano-benchmarks of synth/:
 *
 * - frequency: dependent integer adds, one a cycle (amp_core_cycles_per_tick);
 * - per operation and type, with 1..NB_MAX_STREAMS independent streams:
 *   the time of a "round" (every stream one step further).  Latency is
 *   the round of one stream, from two unrolls whose difference cancels
 *   the loop; the initiation interval the least time per operation over
 *   the stream counts, and operations in flight the stream count after
 *   which a round starts to cost more (first step), both from the long
 *   unroll;
 * - FMA: a*x+y compiled with fused multiply-add allowed against a
 *   multiply then an add; present when the fused form runs and saves
 *   latency or issue slots (X-Ray 3.4);
 * - registers: the live-range pattern over 2..NB_MAX_VARS variables; the
 *   first step of the monotone time per add is the first spill
 *   (amp_curve_spill_step says why not the biggest).
 *
 * Every timing doubles its iterations until a run lasts t_min (X-Ray
 * section 2.2) and keeps the minimum of reps runs. */
#include "config.h"
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "cpu.h"
#include "curve.h"
#include "nanobench.h"
#include "timer.h"
#include "timing.h"

/* The instruction table amp reports: (op, type) pairs of nanobench.def. */
static const struct { const char *op, *type; } insn_rows[] = {
	{ "add", "int32" }, { "add", "int64" }, { "add", "float" }, { "add", "double" },
	{ "sub", "int32" }, { "sub", "int64" }, { "sub", "float" }, { "sub", "double" },
	{ "mul", "int32" }, { "mul", "int64" }, { "mul", "float" }, { "mul", "double" },
	{ "div", "int32" }, { "div", "int64" }, { "div", "float" }, { "div", "double" },
};

static const struct { const char *name, *why; } reg_rows[AMP_CPU_NREG] = {
	{ "int", "general-purpose" },
	{ "double", "scalar floating-point" },
	{ "vector", "128-bit vector (GCC vector extensions: SSE on x86-64, NEON on aarch64)" },
};

struct timing {
	double t_min_ticks;
	unsigned reps;
};

/* Round times of one ops configuration, ticks, for 1..NB_MAX_STREAMS:
 * from the difference of the two unrolls (no loop in it: latency), and
 * from the long unroll alone (the loop's branch shares the issue slots
 * with the statements there, so this is what throughput sees; the
 * difference of two throughput-bound loops can come out below any
 * achievable rate when the short loop is front-end bound). */
struct ops_curve {
	const struct amp_nb *first; /* its 1-stream short function */
	double round[NB_MAX_STREAMS];
	double whole[NB_MAX_STREAMS];
};

/* X-Ray's R doubling: iterations for one run of b to last t_min. */
static uint64_t iterations_for(const struct amp_nb *b, const struct timing *tm)
{
	uint64_t iters = 1;

	while (iters < (1ULL << 40) && (double)b->run(iters) < tm->t_min_ticks)
		iters *= 2;
	return iters;
}

/* Ticks of one round of cfg with k streams: the long function's extra
 * steps over the short one's, per iteration.  0 when noise hid it. */
static double round_ticks(const struct amp_nb *cfg, int k, const struct timing *tm, double *whole)
{
	int len = nb_len_short(k, cfg->nstmts);
	const struct amp_nb *s = amp_nb_find(AMP_NB_OPS, cfg->name, cfg->type, k, len);
	const struct amp_nb *l = amp_nb_find(AMP_NB_OPS, cfg->name, cfg->type, k, 2 * len);
	uint64_t iters, ts = UINT64_MAX, tl = UINT64_MAX;

	*whole = 0;
	if (!s || !l)
		return 0;
	iters = iterations_for(s, tm);
	/* Interleaved, so a slow spell of the machine hits both alike. */
	for (unsigned r = 0; r < tm->reps; r++) {
		uint64_t a = s->run(iters), b = l->run(iters);

		ts = a < ts ? a : ts;
		tl = b < tl ? b : tl;
	}
	*whole = (double)tl / ((double)iters * l->length);
	if (tl <= ts)
		return 0;
	return (double)(tl - ts) / ((double)iters * (l->length - s->length));
}

static int ops_curve(const char *name, const char *type, const struct timing *tm,
		     struct ops_curve *c)
{
	c->first = amp_nb_find(AMP_NB_OPS, name, type, 1, 0);
	if (!c->first)
		return -1;
	for (int k = 1; k <= NB_MAX_STREAMS; k++)
		c->round[k - 1] = round_ticks(c->first, k, tm, &c->whole[k - 1]);
	return 0;
}

/* Ticks per operation of c at k streams, from its difference rounds
 * (whole = 0) or its long-unroll rounds (whole = 1); the aux statement's
 * share (its own time per statement at k streams) taken off. */
static double per_op(const struct ops_curve *c, const struct ops_curve *aux, int k, int whole)
{
	int n = c->first->nstmts;
	double r = whole ? c->whole[k - 1] : c->round[k - 1];
	double a = !aux ? 0 : whole ? aux->whole[k - 1] : aux->round[k - 1];

	if (r <= 0)
		return 0;
	if (!aux)
		return r / (k * n);
	if (a <= 0 || n < 2)
		return 0;
	r -= a / aux->first->nstmts;
	return r > 0 ? r / (k * (n - 1)) : 0;
}

static void measure_insn(struct amp_cpu_insn *in, const struct timing *tm, double cpt)
{
	struct ops_curve c, aux;
	const struct ops_curve *ap = NULL;
	double lat, ii = 0, rounds[NB_MAX_STREAMS];
	int step, n = 0;

	if (ops_curve(in->op, in->type, tm, &c) < 0) {
		amp_num_unknown(&in->latency_cycles, "no nano-benchmark %s %s in nanobench.def", in->op, in->type);
		in->throughput = in->in_flight = in->latency_cycles;
		return;
	}
	if (c.first->aux && ops_curve(c.first->aux, in->type, tm, &aux) == 0)
		ap = &aux;
	lat = per_op(&c, ap, 1, 0);
	if (lat > 0)
		amp_num_set(&in->latency_cycles, lat * cpt);
	else
		amp_num_unknown(&in->latency_cycles, "the two unrolls timed alike (noise)");
	for (int k = 1; k <= NB_MAX_STREAMS; k++) {
		double t = per_op(&c, ap, k, 1);

		if (t > 0 && (ii == 0 || t < ii))
			ii = t;
		if (c.whole[k - 1] > 0)
			rounds[n++] = c.whole[k - 1];
		else
			break;
	}
	if (ii > 0)
		amp_num_set(&in->throughput, ii * cpt);
	else
		amp_num_unknown(&in->throughput, "the two unrolls timed alike (noise)");
	/* A round costs the same while the streams pipeline, then grows. */
	amp_curve_monotone(rounds, n);
	step = amp_curve_first_step(rounds, n, 0.05);
	if (step >= 0)
		amp_num_set(&in->in_flight, step + 1);
	else
		amp_num_unknown(&in->in_flight, "no step up to %d streams", n);
}

/* ---- FMA: the fused form may not exist; an illegal instruction says so ---- */

static sigjmp_buf ill_jump;

static void on_sigill(int sig)
{
	(void)sig;
	siglongjmp(ill_jump, 1);
}

/* 0, 1 when the CPU refused the fused instruction, -1 without the line. */
static int fused_curve(const struct timing *tm, struct ops_curve *c)
{
	struct sigaction sa, old;
	int st;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigill;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGILL, &sa, &old);
	if (sigsetjmp(ill_jump, 1))
		st = 1;
	else
		st = ops_curve("fma", "double", tm, c);
	sigaction(SIGILL, &old, NULL);
	return st;
}

static double best_ii(const struct ops_curve *c)
{
	double best = 0;

	for (int k = 1; k <= NB_MAX_STREAMS; k++)
		if (c->whole[k - 1] > 0 && (best == 0 || c->whole[k - 1] / k < best))
			best = c->whole[k - 1] / k;
	return best;
}

static void measure_fma(struct amp_cpu *cpu, const struct timing *tm, double cpt)
{
	struct ops_curve fused, sep;
	int st = fused_curve(tm, &fused);

	if (st < 0 || ops_curve("muladd", "double", tm, &sep) < 0) {
		amp_num_unknown(&cpu->fma, "no fma/muladd nano-benchmarks in nanobench.def");
		return;
	}
	cpu->fma_separate_latency = sep.round[0] * cpt;
	cpu->fma_separate_ii = best_ii(&sep) * cpt;
	if (st == 1) {
		amp_num_set(&cpu->fma, 0);
		snprintf(cpu->fma_why, sizeof cpu->fma_why, "the fused multiply-add instruction is illegal here");
		return;
	}
	cpu->fma_fused_latency = fused.round[0] * cpt;
	cpu->fma_fused_ii = best_ii(&fused) * cpt;
	if (fused.round[0] <= 0 || sep.round[0] <= 0 || cpu->fma_fused_ii <= 0 || cpu->fma_separate_ii <= 0) {
		amp_num_unknown(&cpu->fma, "the two unrolls timed alike (noise)");
		return;
	}
	/* Fused means one operation: a cycle of latency or a quarter of the
	 * issue slots saved over a multiply then an add (X-Ray 3.4; on some
	 * machines only one of the two shows). */
	if (cpu->fma_fused_latency < cpu->fma_separate_latency - 0.5 ||
	    cpu->fma_fused_ii < 0.75 * cpu->fma_separate_ii) {
		amp_num_set(&cpu->fma, 1);
		snprintf(cpu->fma_why, sizeof cpu->fma_why, "a*x+y fused is faster than a multiply then an add");
	} else {
		amp_num_set(&cpu->fma, 0);
		snprintf(cpu->fma_why, sizeof cpu->fma_why, "a*x+y fused is no faster than a multiply then an add");
	}
}

/* ---- registers: live ranges ---- */

static void measure_regs(struct amp_cpu_regs *rg, const struct timing *tm, double cpt)
{
	const struct amp_nb *bench[NB_MAX_VARS];
	uint64_t iters[NB_MAX_VARS], best[NB_MAX_VARS];
	double y[NB_MAX_VARS];
	int n = 0, step;

	for (int v = 2; v <= NB_MAX_VARS; v++) {
		const struct amp_nb *b = amp_nb_find(AMP_NB_REGS, rg->name, NULL, v, 0);

		if (!b)
			break;
		rg->ctype = b->type;
		bench[n] = b;
		iters[n] = iterations_for(b, tm);
		best[n++] = UINT64_MAX;
	}
	if (n < 3) {
		amp_num_unknown(&rg->count, "no regs %s nano-benchmarks in nanobench.def", rg->name);
		return;
	}
	/* Whole sweeps, repeated: a slow spell of a shared machine then
	 * raises one sweep's points, and the minimum per point drops them;
	 * repetitions back to back would raise neighbouring points alike. */
	for (unsigned r = 0; r < tm->reps; r++)
		for (int i = 0; i < n; i++) {
			uint64_t t = bench[i]->run(iters[i]);

			best[i] = t < best[i] ? t : best[i];
		}
	for (int i = 0; i < n; i++)
		y[i] = (double)best[i] / ((double)iters[i] * bench[i]->length) * cpt;
	rg->npoints = n;
	memcpy(rg->cycles, y, n * sizeof y[0]);
	/* Few variables leave the pipeline idle (slower per add); the
	 * monotone curve keeps only the cost spills add (BlackjackBench 3.5). */
	amp_curve_monotone(y, n);
	step = amp_curve_spill_step(y, n);
	if (step < 0) {
		amp_num_unknown(&rg->count, "no step of %.0f%% or more up to %d variables: spills cost little here",
				AMP_CURVE_SPILL_MIN * 100, n + 1);
		return;
	}
	rg->before = y[step];
	rg->after = y[step + 1];
	amp_num_set(&rg->count, step + 2);
}

static void bench_done(struct amp_cpu *cpu, const char *name, uint64_t *t)
{
	uint64_t now = amp_now_ns();

	if (cpu->nbench < AMP_CPU_MAX_BENCH) {
		cpu->bench[cpu->nbench].name = name;
		cpu->bench[cpu->nbench].seconds = (double)(now - *t) / 1e9;
		cpu->nbench++;
	}
	*t = now;
}

static void clear(struct amp_cpu *cpu)
{
	memset(cpu, 0, sizeof *cpu);
	cpu->ninsns = (int)(sizeof insn_rows / sizeof insn_rows[0]);
	for (int i = 0; i < cpu->ninsns; i++) {
		cpu->insn[i].op = insn_rows[i].op;
		cpu->insn[i].type = insn_rows[i].type;
	}
	for (int i = 0; i < AMP_CPU_NREG; i++)
		cpu->regs[i].name = reg_rows[i].name;
}

void amp_cpu_unknown(struct amp_cpu *cpu, const char *reason)
{
	clear(cpu);
	snprintf(cpu->reason, sizeof cpu->reason, "%s", reason);
	amp_num_unknown(&cpu->frequency_mhz, "%s", reason);
	amp_num_unknown(&cpu->add_latency_check, "%s", reason);
	amp_num_unknown(&cpu->fma, "%s", reason);
	for (int i = 0; i < cpu->ninsns; i++) {
		amp_num_unknown(&cpu->insn[i].latency_cycles, "%s", reason);
		cpu->insn[i].throughput = cpu->insn[i].in_flight = cpu->insn[i].latency_cycles;
	}
	for (int i = 0; i < AMP_CPU_NREG; i++)
		amp_num_unknown(&cpu->regs[i].count, "%s", reason);
}

int amp_cpu_measure(struct amp_cpu *cpu, double t_min_ns, unsigned reps)
{
	const struct amp_timer_cal *cal = amp_timer();
	struct timing tm = { t_min_ns * cal->ticks_per_ns, reps ? reps : 1 };
	uint64_t t0 = amp_now_ns(), t = t0;
	struct ops_curve add;
	double cpt;

	clear(cpu);
	cpt = amp_core_cycles_per_tick();
	if (cpt <= 0) {
		amp_cpu_unknown(cpu, "no dependent-add timing for this architecture");
		return -1;
	}
	cpu->measured = 1;
	cpu->cycles_per_tick = cpt;
	amp_num_set(&cpu->frequency_mhz, cpt * cal->ticks_per_ns * 1000.0);
	/* The generated C add chain against the hand-written one: 1 cycle
	 * when the generator's template costs nothing extra. */
	if (ops_curve("add", "int32", &tm, &add) == 0 && add.round[0] > 0)
		amp_num_set(&cpu->add_latency_check, add.round[0] / add.first->nstmts * cpt);
	else
		amp_num_unknown(&cpu->add_latency_check, "the two unrolls timed alike (noise)");
	bench_done(cpu, "frequency", &t);
	for (int i = 0; i < cpu->ninsns; i++)
		measure_insn(&cpu->insn[i], &tm, cpt);
	bench_done(cpu, "instructions", &t);
	measure_fma(cpu, &tm, cpt);
	bench_done(cpu, "fma", &t);
	for (int i = 0; i < AMP_CPU_NREG; i++)
		measure_regs(&cpu->regs[i], &tm, cpt);
	bench_done(cpu, "registers", &t);
	cpu->seconds = (double)(amp_now_ns() - t0) / 1e9;
	return 0;
}

/* ---- output ---- */

static const char *reg_why(const char *name)
{
	for (int i = 0; i < AMP_CPU_NREG; i++)
		if (strcmp(reg_rows[i].name, name) == 0)
			return reg_rows[i].why;
	return "";
}

static void text_num(FILE *out, const struct amp_num *n, const char *fmt, int width)
{
	char buf[32];

	if (n->known)
		snprintf(buf, sizeof buf, fmt, n->value);
	else
		snprintf(buf, sizeof buf, "?");
	fprintf(out, "%*s", width, buf);
}

void amp_cpu_emit_text(const struct amp_cpu *cpu, FILE *out)
{
	fprintf(out, "\nCPU:\n");
	if (!cpu->measured) {
		fprintf(out, "  unknown: %s\n", cpu->reason);
		return;
	}
	fprintf(out, "  Frequency: %.0f MHz (dependent integer adds, one cycle each; the generated int32 add chain: ",
		cpu->frequency_mhz.value);
	text_num(out, &cpu->add_latency_check, "%.2f", 0);
	fprintf(out, " cycles)\n");
	fprintf(out, "  Instructions, in core cycles (throughput: cycles between independent operations):\n");
	fprintf(out, "    %-4s %-7s %8s %11s %10s\n", "op", "type", "latency", "throughput", "in flight");
	for (int i = 0; i < cpu->ninsns; i++) {
		const struct amp_cpu_insn *in = &cpu->insn[i];

		fprintf(out, "    %-4s %-7s ", in->op, in->type);
		text_num(out, &in->latency_cycles, "%.2f", 8);
		text_num(out, &in->throughput, "%.2f", 12);
		text_num(out, &in->in_flight, "%.0f", 11);
		fprintf(out, "\n");
	}
	fprintf(out, "  FMA: ");
	if (cpu->fma.known)
		fprintf(out, "%s (%s: fused latency %.2f, interval %.2f; multiply then add %.2f, %.2f cycles)\n",
			cpu->fma.value ? "present" : "absent", cpu->fma_why, cpu->fma_fused_latency,
			cpu->fma_fused_ii, cpu->fma_separate_latency, cpu->fma_separate_ii);
	else
		fprintf(out, "? (%s)\n", cpu->fma.reason);
	fprintf(out, "  Registers available to variables:\n");
	for (int i = 0; i < AMP_CPU_NREG; i++) {
		const struct amp_cpu_regs *rg = &cpu->regs[i];

		fprintf(out, "    %-7s ", rg->name);
		if (rg->count.known)
			fprintf(out, "%2.0f  %s (%s); %.2f -> %.2f cycles per add past it\n", rg->count.value,
				reg_why(rg->name), rg->ctype ? rg->ctype : "?", rg->before, rg->after);
		else
			fprintf(out, " ?  %s\n", rg->count.reason);
	}
	fprintf(out, "  Benchmarks:");
	for (int i = 0; i < cpu->nbench; i++)
		fprintf(out, "%s %s %.2f s", i ? "," : "", cpu->bench[i].name, cpu->bench[i].seconds);
	fprintf(out, "; %.2f s in all\n", cpu->seconds);
}

static void json_num(FILE *out, const char *key, const struct amp_num *n, const char *fmt)
{
	fprintf(out, "\"%s\": ", key);
	if (n->known)
		fprintf(out, fmt, n->value);
	else
		fputs("null", out);
}

void amp_cpu_json_members(const struct amp_cpu *cpu, FILE *out)
{
	fputs("\"reason\": ", out);
	if (cpu->measured)
		fputs("null", out);
	else
		amp_json_string(out, cpu->reason);
	fputs(",\n    ", out);
	json_num(out, "frequency_mhz", &cpu->frequency_mhz, "%.1f");
	fputs(",\n    ", out);
	json_num(out, "add_chain_cycles", &cpu->add_latency_check, "%.3f");
	fputs(",\n    \"instructions\": [", out);
	for (int i = 0; i < cpu->ninsns; i++) {
		const struct amp_cpu_insn *in = &cpu->insn[i];

		fprintf(out, "%s\n      {\"op\": \"%s\", \"type\": \"%s\", ", i ? "," : "", in->op, in->type);
		json_num(out, "latency_cycles", &in->latency_cycles, "%.3f");
		fputs(", ", out);
		json_num(out, "throughput", &in->throughput, "%.3f");
		fputs(", ", out);
		json_num(out, "in_flight", &in->in_flight, "%.0f");
		fputs("}", out);
	}
	fputs(cpu->ninsns ? "\n    ],\n    " : "],\n    ", out);
	fputs("\"fma\": ", out);
	fputs(!cpu->fma.known ? "null" : cpu->fma.value ? "true" : "false", out);
	if (cpu->fma.known && cpu->measured)
		fprintf(out, ",\n    \"fma_cycles\": {\"fused_latency\": %.3f, \"fused_throughput\": %.3f, "
			"\"separate_latency\": %.3f, \"separate_throughput\": %.3f}",
			cpu->fma_fused_latency, cpu->fma_fused_ii, cpu->fma_separate_latency, cpu->fma_separate_ii);
	fputs(",\n    \"registers\": {", out);
	for (int i = 0; i < AMP_CPU_NREG; i++) {
		fputs(i ? ", " : "", out);
		json_num(out, cpu->regs[i].name, &cpu->regs[i].count, "%.0f");
	}
	fputs("},\n    \"register_types\": {", out);
	for (int i = 0; i < AMP_CPU_NREG; i++) {
		fprintf(out, "%s\"%s\": ", i ? ", " : "", cpu->regs[i].name);
		if (cpu->regs[i].ctype)
			amp_json_string(out, cpu->regs[i].ctype);
		else
			fputs("null", out);
	}
	fputs("},\n    \"register_cycles_per_add\": {", out);
	for (int i = 0; i < AMP_CPU_NREG; i++) {
		fprintf(out, "%s\"%s\": [", i ? ", " : "", cpu->regs[i].name);
		for (int p = 0; p < cpu->regs[i].npoints; p++)
			fprintf(out, "%s%.3f", p ? ", " : "", cpu->regs[i].cycles[p]);
		fputs("]", out);
	}
	fputs("},\n    \"benchmarks\": [", out);
	for (int i = 0; i < cpu->nbench; i++)
		fprintf(out, "%s{\"name\": \"%s\", \"seconds\": %.3f}", i ? ", " : "", cpu->bench[i].name,
			cpu->bench[i].seconds);
	fprintf(out, "],\n    \"seconds\": %.3f", cpu->seconds);
}
