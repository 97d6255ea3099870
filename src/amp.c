/* amp.c - the program: options to actions, backend choice, the default
 * measurement run and its report. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>
#include "alias.h"
#include "amp.h"
#include "cpu.h"
#include "cpu_sys.h"
#include "eventmap.h"
#include "memlimit.h"
#include "options.h"
#include "output.h"
#include "progress.h"
#include "plan.h"
#include "signals.h"
#include "sim.h"
#include "timer.h"
#include "timing.h"
#include "tlb_timing.h"
#include "trace.h"
#include "insn_timing.h"
#include "util.h"

#define DEFAULT_MAX_SIZE (64ULL << 20)

static int usage_error(const char *msg)
{
	fprintf(stderr, "amp: %s\n", msg);
	return AMP_EXIT_USAGE;
}

static int list_presets(void)
{
	for (const struct sim_preset *p = sim_presets; p->name; p++) {
		struct sim_spec spec;
		char err[SIM_ERR_LEN], line[256];

		printf("%-12s %s\n", p->name, p->description);
		if (sim_spec_parse(p->name, &spec, err, sizeof err) < 0) {
			printf("             (invalid: %s)\n", err);
			continue;
		}
		for (int i = 0; i < spec.n; i++) {
			line[0] = '\0';
			sim_level_describe(&spec.lv[i], line, sizeof line);
			printf("             %s\n", line);
		}
		printf("             MEM latency %u\n", spec.mem_latency);
	}
	return AMP_EXIT_OK;
}

static void backend_status(const struct amp_host *host, struct amp_report *r)
{
	r->nbackends = 0;
	for (int i = 0; amp_backends[i] && r->nbackends < AMP_MAX_BACKENDS; i++) {
		struct amp_backend_status *b = &r->backends[r->nbackends++];

		b->name = amp_backends[i]->name;
		b->priority = amp_backends[i]->priority;
		b->usable = amp_backends[i]->probe(host, b->reason, sizeof b->reason);
	}
}

static int list_backends(const struct amp_host *host)
{
	static struct amp_report r;

	backend_status(host, &r);
	for (int i = 0; i < r.nbackends; i++)
		printf("%-6s %-9s priority %-3d %s\n", r.backends[i].name,
		       r.backends[i].usable ? "usable" : "unusable", r.backends[i].priority,
		       r.backends[i].reason);
#ifndef HAVE_PAPI
	printf("%-6s %-9s %-12s %s\n", "papi", "absent", "", "amp was built without PAPI (configure --with-papi)");
#endif
	return AMP_EXIT_OK;
}

static int list_events(const struct amp_host *host)
{
	for (int i = 0; amp_backends[i]; i++) {
		const struct amp_backend_ops *b = amp_backends[i];
		char why[AMP_REASON_LEN];
		int usable = b->probe(host, why, sizeof why);

		printf("%s (%s%s%s):\n", b->name, usable ? "usable" : "unusable: ",
		       usable ? "" : why, "");
		for (int e = 0; e < AMP_EV_COUNT; e++) {
			char what[AMP_REASON_LEN];
			int ok = b->event_info(host, (enum amp_event)e, what, sizeof what);

			printf("  %-10s %-7s %s\n", amp_event_table[e].name, ok ? "yes" : "absent", what);
		}
	}
	return AMP_EXIT_OK;
}

static void host_identity(struct amp_report *r)
{
	struct amp_cpu_id id;
	struct utsname u;
	const struct amp_uarch *ua;

	memset(&id, 0, sizeof id);
	if (amp_cpu_identify(&id) == 0) {
		snprintf(r->cpu, sizeof r->cpu, "%s", id.model_name[0] ? id.model_name : id.vendor);
		snprintf(r->arch, sizeof r->arch, "%s", id.arch);
		ua = amp_uarch_for_cpu(&id);
		if (ua)
			snprintf(r->uarch, sizeof r->uarch, "%s", ua->name);
	}
	if (uname(&u) == 0) {
		snprintf(r->kernel, sizeof r->kernel, "%s", u.release);
		if (!r->arch[0])
			snprintf(r->arch, sizeof r->arch, "%s", u.machine);
	}
}

/* On a simulated machine the "reported" column is its spec. */
static void reported_from_spec(const struct sim_spec *spec, struct amp_report *r)
{
	static const char *side[] = { "data", "instruction", "unified" };

	snprintf(r->reported_source, sizeof r->reported_source, "the simulated machine's spec");
	r->nreported = 0;
	for (int i = 0; i < spec->n && r->nreported < AMP_MAX_LEVELS; i++) {
		const struct sim_level_spec *lv = &spec->lv[i];
		struct amp_reported_cache *c = &r->reported[r->nreported];

		if (lv->kind != SIM_CACHE)
			continue;
		memset(c, 0, sizeof *c);
		c->level = lv->level;
		snprintf(c->type, sizeof c->type, "%s", side[lv->side]);
		c->size = lv->size;
		c->line = lv->line;
		c->ways = lv->full ? 0 : lv->assoc;
		c->sets = (unsigned)(lv->size / ((uint64_t)lv->line * lv->assoc));
		r->nreported++;
	}
}

static uint64_t sim_default_max_size(const struct sim_spec *spec)
{
	uint64_t biggest = 0, size = 64 << 10;

	for (int i = 0; i < spec->n; i++)
		if (spec->lv[i].kind == SIM_CACHE && spec->lv[i].size > biggest)
			biggest = spec->lv[i].size;
	while (size < 4 * biggest && size < (256ULL << 20))
		size *= 2;
	return size;
}

/* Counter-API overhead on the chosen backend (AMP 2.2). */
static void measure_overhead(const struct amp_backend_ops *b, const struct amp_host *host,
			     unsigned reps, struct amp_report *r)
{
	struct amp_run_result res;
	char err[AMP_REASON_LEN];

	if (amp_event_overhead(b, host, AMP_EV_CYCLES, reps, &res, err, sizeof err) == 0)
		amp_num_set(&r->counter_overhead_ticks, (double)res.ticks_min);
	else
		amp_num_unknown(&r->counter_overhead_ticks, "%s", err);
}

static const struct amp_backend_ops *pick_backend(const struct amp_config *cfg,
						  const struct amp_host *host,
						  struct amp_report *r, int *status)
{
	const struct amp_backend_ops *b;
	char why[AMP_REASON_LEN];

	if (!cfg->backend) {
		b = amp_backend_choose(host, r->backend_why, sizeof r->backend_why);
		if (!b) {
			fprintf(stderr, "amp: %s\n", r->backend_why);
			*status = AMP_EXIT_RESOURCE;
		}
		return b;
	}
	b = amp_backend_find(cfg->backend);
	if (!b) {
		fprintf(stderr, "amp: %s: amp was built without it (configure --with-%s)\n",
			cfg->backend, cfg->backend);
		*status = AMP_EXIT_RESOURCE;
		return NULL;
	}
	if (!b->probe(host, why, sizeof why)) {
		fprintf(stderr, "amp: backend %s is unusable here: %s\n", b->name, why);
		*status = AMP_EXIT_RESOURCE;
		return NULL;
	}
	snprintf(r->backend_why, sizeof r->backend_why, "asked for with --backend");
	return b;
}

/* Why no counter backend is usable: the reasons of the ones that are not. */
static void counter_reasons(const struct amp_report *r, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < r->nbackends; i++) {
		const struct amp_backend_status *b = &r->backends[i];

		if (b->usable || strcmp(b->name, "timer") == 0 || strcmp(b->name, "sim") == 0)
			continue;
		used += snprintf(buf + used, used < len ? len - used : 0, "%s%s: %s",
				 used ? "; " : "", b->name, b->reason);
	}
#ifndef HAVE_PAPI
	snprintf(buf + used, used < len ? len - used : 0, "%spapi: not built in", used ? "; " : "");
#endif
}

/* -v: the steps of a phase (module and level, sweeps) that took this
 * long are listed one by one, the others summed. */
#define STEP_LEAST 0.1

/* Wall time of a phase: into the report, and on stderr with -v. */
static void phase_done(const struct amp_config *cfg, struct amp_report *r, const char *name,
		       uint64_t *t)
{
	uint64_t now = amp_now_ns();
	double sec = (double)(now - *t) / 1e9;

	if (r->nphases < (int)(sizeof r->phase / sizeof r->phase[0])) {
		r->phase[r->nphases].name = name;
		r->phase[r->nphases].seconds = sec;
		r->nphases++;
	}
	if (cfg->verbose) {
		amp_progress_clear();
		fprintf(stderr, "amp: %-22s %7.2f s\n", name, sec);
	}
	*t = now;
}

/* A phase begins: the progress line and --explain say so. */
static void phase_begin(const char *name)
{
	struct amp_trace_ev e = { .kind = AMP_TR_PHASE, .name = name };

	amp_progress_phase(name);
	if (amp_tracing())
		amp_trace(&e);
}

/* --cache: a kept report answers at once; otherwise the directory must
 * take one before amp spends time measuring.  1: answered (status set). */
static int cache_lookup(const struct amp_config *cfg, const struct amp_report *r, char *path, size_t plen,
			int *status)
{
	char err[AMP_REASON_LEN + 1100];

	if (amp_cache_path(cfg, r, path, plen, err, sizeof err) < 0) {
		fprintf(stderr, "amp: %s\n", err);
		*status = AMP_EXIT_RESOURCE;
		return 1;
	}
	if (!cfg->refresh && amp_cache_print(path)) {
		*status = AMP_EXIT_OK;
		return 1;
	}
	if (amp_cache_writable(path, err, sizeof err) < 0) {
		fprintf(stderr, "amp: %s\n", err);
		*status = AMP_EXIT_RESOURCE;
		return 1;
	}
	return 0;
}

/* Counter-driven characterisation of every (or the selected) level. */
static int characterise(const struct amp_config *cfg, const struct amp_host *host,
			const struct amp_backend_ops *b, struct amp_ctx *ctx, char *err, size_t len)
{
	amp_ctx_init(ctx, host, b, cfg->reps, cfg->votes, cfg->seed);
	if (amp_levels_discover(ctx, cfg->level, err, len) < 0)
		return AMP_EXIT_USAGE;
	if (amp_measure_overhead(ctx, err, len) < 0 || amp_characterise(ctx, err, len) < 0)
		return AMP_EXIT_FAILED;
	return AMP_EXIT_OK;
}

/* The sweep's range: enough for the levels asked for. */
static uint64_t sweep_max(const struct amp_config *cfg, uint64_t max_size)
{
	if (cfg->level && (strcasecmp(cfg->level, "L1d") == 0 || strcasecmp(cfg->level, "L1i") == 0 ||
			   strcasecmp(cfg->level, "ITLB") == 0 || strcasecmp(cfg->level, "ITLB2") == 0) && max_size > (4ULL << 20))
		return 4ULL << 20;
	return max_size;
}

/* Which pages a sweep's random draws ran on (real machine), after sep;
 * "" on the simulated machine or where no draws ran. */
static void draws_pages(const struct amp_tlb_timing *t, int sim, const char *sep, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!sim && t->ndraws && t->draws_aliased)
		snprintf(buf, len, "%severy page an alias of one of %u shared pages, by its line", sep, AMP_ALIAS_COPIES);
	else if (!sim && t->ndraws)
		snprintf(buf, len, "%spages of their own: %.150s", sep, t->alias_reason);
}

/* How the data TLB levels were read: the cyclic sweep, or the random
 * draws where they replaced its count (tlb_timing.c). */
static void data_tlb_codes(struct amp_ctx *ctx, const struct amp_tlb_timing *t, int sim)
{
	char pages[AMP_REASON_LEN], looks[64];

	draws_pages(t, sim, ", ", pages, sizeof pages);
	amp_tlb_draws_looks(t, t->draws_entries, looks, sizeof looks);
	for (int i = 0; i < ctx->nlv; i++) {
		struct amp_level *lv = &ctx->lv[i];
		int first = lv->level == 1;
		/* Level 1 came from the draws where they replaced the sweep's;
		 * level 2 where its entries are theirs. */
		int drawn = first ? t->first_replaced != 0
				  : t->nlevels > 1 && t->draws_entries && t->lv[1].entries == t->draws_entries;
		uint64_t replaced = first ? t->first_replaced : t->draws_replaced;

		if (lv->side != AMP_SIDE_DATA || lv->kind != AMP_KIND_TLB || !lv->measurable)
			continue;
		if (!drawn && lv->level == 2 && !t->draws_entries && t->draws_reason[0])
			snprintf(lv->code, sizeof lv->code,
				 "loads, one per page in a random cycle, each on another line (random draws found no level: %.150s)",
				 t->draws_reason);
		else if (!drawn)
			snprintf(lv->code, sizeof lv->code, "loads, one per page in a random cycle, each on another line%s",
				 lv->level == 2 && t->draws_entries ? " (random draws agree)" : "");
		else if (replaced)
			snprintf(lv->code, sizeof lv->code, "loads of pages drawn at random, one line each%.150s (the cycle read %llu)%s",
				 pages, (unsigned long long)replaced, first ? "" : looks);
		else
			snprintf(lv->code, sizeof lv->code, "loads of pages drawn at random, one line each%.150s%s", pages, looks);
	}
}

/* The timing path: the sweep's levels, then the modules by time. */
static int characterise_by_timing(const struct amp_config *cfg, const struct amp_host *host,
				  const struct amp_sweep *sw, struct amp_ctx *ctx, char *err, size_t len)
{
	static struct amp_tlb_timing tlb, itlb;
	static struct amp_sweep code;
	int want_tlb = !cfg->level || strcasecmp(cfg->level, "DTLB") == 0 ||
		       strcasecmp(cfg->level, "STLB") == 0;
	int want_insn = !cfg->level || strcasecmp(cfg->level, "L1i") == 0;
	int want_itlb = !cfg->level || strcasecmp(cfg->level, "ITLB") == 0 ||
			strcasecmp(cfg->level, "ITLB2") == 0;

	amp_ctx_init(ctx, host, &amp_backend_timer, cfg->reps, cfg->votes, cfg->seed);
	amp_ctx_timing(ctx);
	if (amp_levels_timing(ctx, cfg->level, sw, err, len) < 0)
		return AMP_EXIT_USAGE;
	if (want_tlb) {
		/* A TLB sweep that cannot run (memory bound, mmap refused)
		 * leaves the TLB levels unknown with its reason; the caches
		 * are still measured. */
		uint64_t t0 = amp_now_ns();

		if (amp_tlb_timing_measure(host, cfg->reps, cfg->seed, &tlb, err, len) < 0) {
			memset(&tlb, 0, sizeof tlb);
			snprintf(tlb.reason, sizeof tlb.reason, "%s", err);
		}
		amp_step_add(ctx, "DTLB", "TLB sweep", amp_now_ns() - t0);
		amp_tlb_timing_fill(ctx, &tlb);
		amp_curves_tlb("dtlb", &tlb);
		data_tlb_codes(ctx, &tlb, host->sim != NULL);
	}
	/* The instruction side: the code sweep (L1i), the TLB sweep with
	 * jumps (ITLB); its modules run with the others. */
	/* Where code cannot be run (executable mappings refused), those
	 * levels say why and the rest of the run goes on. */
	if (want_insn) {
		uint64_t t0 = amp_now_ns();
		int rc = amp_insn_sweep_run(ctx, AMP_INSN_SWEEP_MAX, &code, err, len);

		amp_step_add(ctx, "L1i", "code sweep", amp_now_ns() - t0);
		if (rc == 0)
			amp_insn_levels_fill(ctx, &code);
		else if (strstr(err, "executable mappings are refused"))
			amp_insn_blocks_fill(ctx, AMP_BLOCKS_CHAINS, err); /* the build-time blocks instead */
		else
			amp_insn_unreached(ctx, AMP_KIND_CACHE, err);
	}
	if (want_itlb) {
		uint64_t t0 = amp_now_ns();
		int rc = amp_tlb_timing_measure_op(host, AMP_OP_IFETCH, cfg->reps, cfg->seed, &itlb, err, len);

		amp_step_add(ctx, "ITLB", "TLB sweep", amp_now_ns() - t0);
		if (rc == 0) {
			char pages[AMP_REASON_LEN], looks[64];

			amp_tlb_timing_fill_side(ctx, &itlb, AMP_SIDE_INSN);
			amp_curves_tlb("itlb", &itlb);
			draws_pages(&itlb, host->sim != NULL, "; ", pages, sizeof pages);
			amp_tlb_draws_looks(&itlb, itlb.nlevels > 1 ? itlb.lv[1].entries : 0, looks, sizeof looks);
			for (int i = 0; i < ctx->nlv; i++) {
				struct amp_level *lv = &ctx->lv[i];

				if (lv->side != AMP_SIDE_INSN || lv->kind != AMP_KIND_TLB)
					continue;
				if (lv->level == 1 && itlb.first_replaced)
					snprintf(lv->code, sizeof lv->code,
						 "indirect jumps to pages drawn at random, one line each (run-time code%.80s; the chains read %llu)",
						 pages, (unsigned long long)itlb.first_replaced);
				else if (lv->level == 1)
					snprintf(lv->code, sizeof lv->code,
						 "jump chains, one jump per page, each on another line (run-time code)");
				else
					snprintf(lv->code, sizeof lv->code,
						 "indirect jumps to pages drawn at random, one line each (run-time code%.80s)%s",
						 pages, looks);
			}
		} else
			amp_insn_unreached(ctx, AMP_KIND_TLB, err);
	}
	if (amp_characterise(ctx, err, len) < 0)
		return AMP_EXIT_FAILED;
	return AMP_EXIT_OK;
}

/* The memory bound: --max-memory, never more than the machine has, or
 * the default that scales with it. */
static int memory_bound(const struct amp_config *cfg, struct amp_report *r)
{
	uint64_t machine = amp_machine_memory(), bound = cfg->max_memory;
	char a[32], b[32];

	if (bound && machine && bound > machine) {
		fprintf(stderr, "amp: --max-memory=%s is more than this machine has (%s)\n",
			amp_fmt_size(bound, a, sizeof a), amp_fmt_size(machine, b, sizeof b));
		return -1;
	}
	if (bound) {
		snprintf(r->memory_bound_why, sizeof r->memory_bound_why, "--max-memory");
	} else {
		bound = amp_memory_default_limit();
		snprintf(r->memory_bound_why, sizeof r->memory_bound_why,
			 "default: a quarter of %s, from 64 MiB to 1 GiB, at most half of ulimit -v",
			 amp_fmt_size(machine, a, sizeof a));
	}
	amp_memory_set_limit(bound);
	r->memory_bound = bound;
	return 0;
}

/* A sweep never asks for more than half the bound: plans beside it
 * need the rest. */
static uint64_t sweep_within_bound(uint64_t max_size, struct amp_report *r)
{
	uint64_t half = amp_memory_limit() / 2, size = 4096;

	if (max_size <= half)
		return max_size;
	while (size * 2 <= half)
		size *= 2;
	snprintf(r->sweep_note, sizeof r->sweep_note,
		 "the sweep stops at %llu KiB, half the memory bound (--max-memory)",
		 (unsigned long long)(size >> 10));
	return size;
}

struct phase_arg {
	const struct amp_config *cfg;
	struct amp_report *r;
	uint64_t *t;
};

static void cpu_phase_done(void *arg, const char *name)
{
	struct phase_arg *p = arg;

	phase_done(p->cfg, p->r, name, p->t);
}

/* --cpu: the cores as a system (cpu_sys.c), sized by the sweep's levels;
 * a simulated machine has no cores to time. */
/* --cpu: the core micro-benchmarks (cpu_ops.c), then the cores as a
 * system (cpu_sys.c) sized by the sweep's levels; a simulated machine has
 * no cores to time.  Returns the status the CPU part adds. */
static int characterise_cpu(const struct amp_config *cfg, const struct amp_host *host,
			    const struct amp_sweep *sw, struct amp_report *r, uint64_t *t)
{
	static struct amp_cpu ops;
	static struct amp_cpusys s;
	struct amp_cpusys_opts o = { .seed = cfg->seed, .phase_done = cpu_phase_done };
	struct phase_arg pa = { cfg, r, t };
	char err[AMP_REASON_LEN];
	int status = AMP_EXIT_OK;

	phase_begin("cpu");
	r->cpu_part = &ops;
	r->cpusys = &s;
	if (host->sim) {
		amp_cpu_unknown(&ops, "a simulated machine has no cores to time: --cpu needs a real machine");
		amp_cpusys_unknown(&s, "a simulated machine has no cores to time: --cpu measures real hardware only");
		fprintf(stderr, "amp: --cpu: %s\n", ops.reason);
		phase_done(cfg, r, "cpu", t);
		return status;
	}
	if (amp_cpu_measure(&ops, 250e3, cfg->reps) < 0)
		status = AMP_EXIT_FAILED;
	phase_done(cfg, r, "cpu", t);
	for (int i = 0; cfg->verbose && i < ops.nbench; i++)
		fprintf(stderr, "amp:   cpu %-16s %7.2f s\n", ops.bench[i].name, ops.bench[i].seconds);
	for (int k = 0; k < sw->nclusters - sw->reached_memory && o.nlevels < AMP_CPUSYS_MAX_LEVELS; k++)
		o.level_bytes[o.nlevels++] = sw->size[sw->cl[k].fits];
	o.phase_arg = &pa;
	if (amp_cpusys_measure(&s, &o, err, sizeof err) < 0)
		amp_cpusys_unknown(&s, err);
	return status;
}

/* Exit status 1 (amp(1)): a parameter whose votes split, or one marked
 * inconclusive with too few votes (a lone 33 among failed searches),
 * also where a later check left it unknown (the mark stays). */
static int inconclusive(const struct amp_ctx *c)
{
	for (int i = 0; i < c->nlv; i++)
		for (int k = 0; c->lv[i].selected && c->lv[i].measurable && k < AMP_NPARAMS; k++) {
			const struct amp_param *p = amp_level_param(&c->lv[i], k);

			if (p->inconclusive || (p->known && p->confidence < 0.5) || amp_geometry_failed(&c->lv[i], p))
				return 1;
		}
	return 0;
}

static int measure_and_report(const struct amp_config *cfg, const struct amp_host *host,
			      const struct amp_report **done);

static int run(const struct amp_config *cfg, const struct amp_host *host)
{
	static struct amp_report id;
	const struct amp_report *r = NULL;
	char cache_file[1024], err[AMP_REASON_LEN + 1100];
	int status;

	amp_report_init(&id);
	host_identity(&id);
	if (cfg->cache && cache_lookup(cfg, &id, cache_file, sizeof cache_file, &status))
		return status;
	if (cfg->curves && amp_curves_check(cfg->curves, err, sizeof err) < 0) {
		fprintf(stderr, "amp: %s\n", err);
		return AMP_EXIT_RESOURCE;
	}
	amp_trace_clear();
	amp_progress_start(cfg->quiet);
	if (cfg->explain)
		amp_explain_start(cfg->formats & ~(unsigned)AMP_FMT_TEXT && !cfg->output ? stderr : stdout);
	if (cfg->curves)
		amp_curves_start();
	status = measure_and_report(cfg, host, &r);
	amp_progress_stop();
	amp_trace_clear();
	if (cfg->cache && r && status == AMP_EXIT_OK && amp_cache_store(cache_file, r, err, sizeof err) < 0) {
		fprintf(stderr, "amp: %s\n", err);
		return AMP_EXIT_RESOURCE;
	}
	return status;
}

/* The measurement proper and its report. */
/* The other CPUs' load while amp measures (load.c): read once pinned,
 * and again before --cpu's own threads. */
static struct amp_load others_at_start;
static int others_started;

static void others_begin(void)
{
	others_started = amp_load_read("/proc/stat", &others_at_start) == 0;
}

static void others_end(struct amp_report *r, const struct amp_host *host)
{
	static struct amp_load now;

	if (host->sim)
		snprintf(r->others_reason, sizeof r->others_reason, "a simulated machine");
	else if (!others_started || amp_load_read("/proc/stat", &now) < 0)
		snprintf(r->others_reason, sizeof r->others_reason, "/proc/stat has no per-CPU times");
	else if (!r->pinned_cpu.known)
		snprintf(r->others_reason, sizeof r->others_reason, "amp is not pinned: every CPU may be its own");
	else if (amp_load_others(&others_at_start, &now, (int)r->pinned_cpu.value, &r->others) < 0)
		snprintf(r->others_reason, sizeof r->others_reason, "no other CPU");
}

static int measure_and_report(const struct amp_config *cfg, const struct amp_host *host,
			      const struct amp_report **done)
{
	static struct amp_ctx ctx, tctx;
	static struct amp_report r;
	static struct amp_sweep sw;
	const struct amp_backend_ops *b;
	char err[AMP_REASON_LEN];
	int status = AMP_EXIT_OK, timing;
	uint64_t t0 = amp_now_ns(), t = t0, max_size = cfg->max_size;

	amp_report_init(&r);
	if (memory_bound(cfg, &r) < 0)
		return AMP_EXIT_USAGE;
	host_identity(&r);
	backend_status(host, &r);
	b = pick_backend(cfg, host, &r, &status);
	if (!b)
		return status;
	snprintf(r.backend, sizeof r.backend, "%s", b->name);
	timing = cfg->timing || b == &amp_backend_timer;
	if (b == &amp_backend_timer && (cfg->counters || cfg->cross_check)) {
		char why[2 * AMP_REASON_LEN];

		counter_reasons(&r, why, sizeof why);
		fprintf(stderr, "amp: %s needs miss counters, and none are usable here (%s)\n",
			cfg->counters ? "--counters" : "--cross-check", why);
		return AMP_EXIT_RESOURCE;
	}

	{
		/* The phases to come, for the progress line's estimate. */
		const char *plan[5];
		int n = 0;

		plan[n++] = "calibration";
		if (timing || cfg->cross_check || !cfg->level)
			plan[n++] = "latency sweep";
		if (!timing || cfg->cross_check)
			plan[n++] = "counters";
		if (timing || cfg->cross_check)
			plan[n++] = "timing";
		if (cfg->cpu)
			plan[n++] = "cpu";
		amp_progress_plan(plan, n);
	}
	phase_begin("calibration");
	if (host->sim) {
		const struct sim_spec *spec = sim_get_spec(host->sim);

		sim_spec_format(spec, r.sim_spec, sizeof r.sim_spec);
		snprintf(r.tick_unit, sizeof r.tick_unit, "one simulated cycle");
		amp_num_unknown(&r.tick_mhz, "a simulated machine has no clock");
		amp_num_unknown(&r.timer_resolution_ns, "a simulated machine has no clock");
		amp_num_set(&r.timer_overhead_ticks, 0);
		amp_num_unknown(&r.pinned_cpu, "nothing to pin on a simulated machine");
		amp_num_unknown(&r.core_mhz, "a simulated machine has no clock");
		r.cycles_per_tick = 1;
		/* AMP_SYSFS_ROOT: a saved machine's sysfs as the reported
		 * column instead of the spec (teaching, the fixture tests). */
		if (getenv("AMP_SYSFS_ROOT"))
			amp_reported_from_sysfs(&r);
		else
			reported_from_spec(spec, &r);
		if (!max_size)
			max_size = sim_default_max_size(spec);
	} else {
		const struct amp_timer_cal *cal;
		int cpu = amp_pin_quietest(r.pinned_how, sizeof r.pinned_how, err, sizeof err);
		double cpt;

		if (cpu >= 0)
			amp_num_set(&r.pinned_cpu, cpu);
		else
			amp_num_unknown(&r.pinned_cpu, "%s", err);
		others_begin();
		cal = amp_timer();
		snprintf(r.tick_unit, sizeof r.tick_unit, "%s tick, %.1f MHz (constant rate, not core cycles)",
			 cal->source, cal->ticks_per_ns * 1000.0);
		amp_num_set(&r.tick_mhz, cal->ticks_per_ns * 1000.0);
		amp_num_set(&r.timer_resolution_ns, cal->resolution_ticks / cal->ticks_per_ns);
		amp_num_set(&r.timer_overhead_ticks, cal->overhead_ticks);
		cpt = amp_core_cycles_per_tick();
		if (cpt > 0) {
			r.cycles_per_tick = cpt;
			amp_num_set(&r.core_mhz, cpt * cal->ticks_per_ns * 1000.0);
		} else {
			amp_num_unknown(&r.core_mhz, "no dependent-add timing for this architecture");
		}
		amp_reported_from_sysfs(&r);
		if (!max_size)
			max_size = DEFAULT_MAX_SIZE;
	}
	measure_overhead(b, host, cfg->reps, &r);
	phase_done(cfg, &r, "calibration", &t);

	/* The sweep: the latency table, and the timing path's levels. */
	if (timing || cfg->cross_check || !cfg->level) {
		phase_begin("latency sweep");
		amp_ctx_init(&tctx, host, &amp_backend_timer, cfg->reps, cfg->votes, cfg->seed);
		amp_ctx_timing(&tctx);
		if (amp_measure_latency(&tctx, sweep_within_bound(sweep_max(cfg, max_size), &r), &sw, &r,
					err, sizeof err) < 0) {
			fprintf(stderr, "amp: latency sweep failed: %s\n", err);
			return AMP_EXIT_FAILED;
		}
		phase_done(cfg, &r, "latency sweep", &t);
	}
	if (!timing || cfg->cross_check) {
		int st;

		phase_begin("counters");
		st = characterise(cfg, host, b, &ctx, err, sizeof err);

		if (st != AMP_EXIT_OK) {
			fprintf(stderr, "amp: %s\n", err);
			return st;
		}
		r.hier = &ctx;
		status = inconclusive(&ctx) ? AMP_EXIT_FAILED : status;
		phase_done(cfg, &r, "counters", &t);
		if (cfg->verbose)
			amp_steps_print(&ctx, stderr, "amp:", STEP_LEAST);
	}
	if (timing || cfg->cross_check) {
		int st;

		phase_begin("timing");
		st = characterise_by_timing(cfg, host, &sw, &tctx, err, sizeof err);

		if (st != AMP_EXIT_OK) {
			fprintf(stderr, "amp: %s\n", err);
			return st;
		}
		if (cfg->cross_check)
			r.cross = &tctx;
		else
			r.hier = &tctx;
		status = inconclusive(&tctx) ? AMP_EXIT_FAILED : status;
		phase_done(cfg, &r, "timing", &t);
		if (cfg->verbose)
			amp_steps_print(&tctx, stderr, "amp:", STEP_LEAST);
	}
	others_end(&r, host);
	if (cfg->cpu && characterise_cpu(cfg, host, &sw, &r, &t) != AMP_EXIT_OK)
		status = AMP_EXIT_FAILED;
	r.wall_seconds = (double)(amp_now_ns() - t0) / 1e9;
	amp_progress_stop();
	*done = &r;
	return amp_output(cfg, &r, status);
}

int amp_main(int argc, char **argv)
{
	struct amp_config cfg;
	struct amp_host host = { 0 };
	struct sim_spec spec;
	char err[AMP_REASON_LEN + SIM_ERR_LEN];
	int status;

	amp_signals_install();
	if (amp_parse_args(argc, argv, &cfg, err, sizeof err) < 0)
		return usage_error(err);
	switch (cfg.action) {
	case AMP_ACT_HELP:
		amp_print_help(stdout);
		return AMP_EXIT_OK;
	case AMP_ACT_VERSION:
		printf("amp %s\n", PACKAGE_VERSION);
		return AMP_EXIT_OK;
	case AMP_ACT_LIST_PRESETS:
		return list_presets();
	default:
		break;
	}
	if (cfg.sim) {
		if (sim_spec_parse(cfg.sim, &spec, err, sizeof err) < 0)
			return usage_error(err);
		spec.noise = cfg.sim_noise;
		spec.sibling = cfg.sim_sibling;
		spec.seed = cfg.seed;
		spec.pages_random = cfg.pages_random;
		host.sim = sim_create(&spec, err, sizeof err);
		if (!host.sim) {
			fprintf(stderr, "amp: cannot build the simulated machine: %s\n", err);
			return AMP_EXIT_RESOURCE;
		}
	}
	switch (cfg.action) {
	case AMP_ACT_LIST_BACKENDS:
		status = list_backends(&host);
		break;
	case AMP_ACT_LIST_EVENTS:
		status = list_events(&host);
		break;
	default:
		status = run(&cfg, &host);
		break;
	}
	sim_destroy(host.sim);
	return status;
}
