/* emit_text.c - the report for people. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "cpu.h"
#include "cpu_sys.h"
#include "report.h"
#include "timing.h"
#include "util.h"
#include "vendor.h"

static void num(FILE *out, const struct amp_num *n, const char *fmt, const char *unit)
{
	if (n->known) {
		fprintf(out, fmt, n->value);
		fprintf(out, "%s", unit);
	} else {
		fprintf(out, "unknown (%s)", n->reason);
	}
}

static void emit_reported(const struct amp_report *r, FILE *out)
{
	char sz[32], ln[32];

	if (r->nreported == 0) {
		fprintf(out, "\nReported caches: none (%s)\n", r->reported_missing);
		return;
	}
	fprintf(out, "\nCaches as reported by %s:\n", r->reported_source);
	fprintf(out, "  %-5s %-12s %10s %7s %7s %7s  %s\n", "level", "type", "size", "line",
		"ways", "sets", "shared with CPUs");
	for (int i = 0; i < r->nreported; i++) {
		const struct amp_reported_cache *c = &r->reported[i];
		char ways[16];

		if (c->ways_unknown)
			snprintf(ways, sizeof ways, "?");
		else if (c->ways)
			snprintf(ways, sizeof ways, "%u", c->ways);
		else
			snprintf(ways, sizeof ways, "full");
		fprintf(out, "  L%-4d %-12s %10s %7s %7s %7u  %s\n", c->level, c->type,
			amp_fmt_size(c->size, sz, sizeof sz), amp_fmt_size(c->line, ln, sizeof ln),
			ways, c->sets, c->shared_with[0] ? c->shared_with : "-");
	}
}

static void emit_latency(const struct amp_report *r, FILE *out)
{
	char sz[32];

	if (r->nlatency == 0)
		return;
	fprintf(out, "\nMeasured load latency (%s):\n", r->latency_method);
	if (r->sweep_note[0])
		fprintf(out, "  (%s)\n", r->sweep_note);
	fprintf(out, "  %10s %12s %14s\n", "working set", "ns/load", "ticks/load");
	for (int i = 0; i < r->nlatency; i++) {
		const struct amp_latency_point *p = &r->latency[i];

		fprintf(out, "  %10s ", amp_fmt_size(p->size, sz, sizeof sz));
		if (p->ns.known)
			fprintf(out, "%12.2f", p->ns.value);
		else
			fprintf(out, "%12s", "-");
		fprintf(out, " %14.2f\n", p->ticks);
	}
	fprintf(out, "  (one tick: %s)\n", r->tick_unit);
	if (!r->sweep)
		return;
	if (r->sweep->busy)
		fprintf(out, "  (%d of %d sizes timed while the machine stayed busy: a reference over 10%% above\n"
			"  its fastest after waiting 4 s for quiet; the levels may be off)\n", r->sweep->busy, r->sweep->n);
	fprintf(out, "  Levels (quality-threshold clusters of the monotone curve; median latency; largest\n"
		"  working set within 25%% of it: the effective size):\n");
	for (int i = 0; i < r->sweep->nclusters; i++) {
		const struct amp_sweep *sw = r->sweep;
		int mem = sw->reached_memory && i == sw->nclusters - 1;

		fprintf(out, "    %-7s up to %10s: %7.2f ticks", mem ? "memory" : "level",
			mem ? "-" : amp_fmt_size(sw->size[sw->cl[i].fits], sz, sizeof sz), sw->cl[i].ticks);
		if (r->cycles_per_tick > 0)
			fprintf(out, " = %6.1f cycles", sw->cl[i].ticks * r->cycles_per_tick);
		if (r->tick_mhz.known)
			fprintf(out, " = %7.2f ns", sw->cl[i].ticks / r->tick_mhz.value * 1000.0);
		fprintf(out, "\n");
	}
}

void amp_emit_text_levels(const struct amp_report *r, FILE *out);

void amp_emit_text(const struct amp_report *r, FILE *out)
{
	fprintf(out, "amp %s: memory hierarchy report\n\n", r->amp_version);
	if (r->sim_spec[0])
		fprintf(out, "Machine:  simulated: %s\n", r->sim_spec);
	else
		fprintf(out, "Machine:  %s (%s), Linux %s; event table: %s\n", r->cpu, r->arch,
			r->kernel, r->uarch[0] ? r->uarch : "none for this CPU");
	fprintf(out, "Backend:  %s: %s\n", r->backend, r->backend_why);
	for (int i = 0; i < r->nbackends; i++)
		fprintf(out, "          %-6s %-9s %s\n", r->backends[i].name,
			r->backends[i].usable ? "usable" : "unusable", r->backends[i].reason);
	fprintf(out, "Timer:    %s; ", r->tick_unit);
	fprintf(out, "resolution ");
	num(out, &r->timer_resolution_ns, "%.2f", " ns");
	fprintf(out, ", overhead ");
	num(out, &r->timer_overhead_ticks, "%.0f", " ticks");
	fprintf(out, "\nCounters: API overhead ");
	num(out, &r->counter_overhead_ticks, "%.0f", " ticks");
	fprintf(out, "\nPinned:   ");
	num(out, &r->pinned_cpu, "CPU %.0f", "");
	if (r->pinned_cpu.known && r->pinned_how[0])
		fprintf(out, " (%s)", r->pinned_how);
	fprintf(out, "\nCore:     ");
	num(out, &r->core_mhz, "%.0f MHz", " (dependent integer adds, one cycle each)");
	fprintf(out, "\n");
	emit_reported(r, out);
	amp_emit_text_levels(r, out);
	emit_latency(r, out);
	fprintf(out, "\nMain memory latency: ");
	if (r->memory_ticks.known && r->cycles_per_tick > 0 && r->tick_mhz.known)
		fprintf(out, "%.1f ticks = %.0f cycles = %.1f ns\n", r->memory_ticks.value,
			r->memory_ticks.value * r->cycles_per_tick, r->memory_ticks.value / r->tick_mhz.value * 1000.0);
	else
		num(out, &r->memory_ticks, "%.1f", " ticks\n");
	if (!r->memory_ticks.known)
		fprintf(out, "\n");
	if (r->memory_bound) {
		char b[32];

		fprintf(out, "\nMemory bound: %s (%s)\n", amp_fmt_size(r->memory_bound, b, sizeof b),
			r->memory_bound_why);
	}
	if (r->cpu_part)
		amp_cpu_emit_text(r->cpu_part, out);
	if (r->compare)
		amp_compare_text(r, r->vendor, r->compare, out);
	if (r->cpusys)
		amp_cpusys_emit_text(r->cpusys, out);
	if (r->others.known) {
		if (r->others.ncpus == 1)
			fprintf(out, "\nOther CPUs: CPU %d busy %.0f%% of the run", r->others.busiest,
				100 * r->others.busiest_share);
		else
			fprintf(out, "\nOther CPUs: %d busy %.0f%% of the run together; the busiest, CPU %d, %.0f%%",
				r->others.ncpus, 100 * r->others.share, r->others.busiest, 100 * r->others.busiest_share);
		if (r->others.busiest_share >= AMP_OTHERS_BUSY)
			fputs("\n  (a busy CPU that shares amp's core or caches makes them look smaller: measure again on an idle machine)",
			      out);
	}
	fprintf(out, "\nWall time: %.2f s\n", r->wall_seconds);
}

/* One parameter in a table cell: its value, "?" when unknown, a "~"
 * prefix when the votes split. */
static const char *cell(const struct amp_param *p, int kind_size, char *buf, size_t len)
{
	char v[32];

	if (!p->known) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (kind_size)
		amp_fmt_size((uint64_t)p->value, v, sizeof v);
	else
		snprintf(v, sizeof v, "%lld", (long long)p->value);
	snprintf(buf, len, "%s%s", p->inconclusive ? "~" : "", v);
	return buf;
}

static const char *name_cell(const struct amp_param *p, const char *const *names, int n,
			     char *buf, size_t len)
{
	if (!p->known || p->value < 0 || p->value >= n)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%s%s", p->inconclusive ? "~" : "", names[p->value]);
	return buf;
}

static const char *const yes_no_write[] = { "no-alloc", "allocate" };

/* What the system reports for lv (sysfs or the simulated spec): the
 * "reported" column, never a measured value. */
static const char *reported_cell(const struct amp_report *r, const struct amp_level *lv, char *buf,
				 size_t len)
{
	char sz[32], ln[32];

	for (int i = 0; i < r->nreported; i++) {
		const struct amp_reported_cache *rc = &r->reported[i];
		int insn = strcmp(rc->type, "instruction") == 0, data = strcmp(rc->type, "data") == 0;

		if (rc->level != lv->level || (lv->side == AMP_SIDE_INSN ? data : insn))
			continue;
		amp_fmt_size(rc->size, sz, sizeof sz);
		amp_fmt_size(rc->line, ln, sizeof ln);
		if (rc->ways_unknown)
			snprintf(buf, len, "%s %s", sz, ln);
		else if (rc->ways)
			snprintf(buf, len, "%s %s %u-way", sz, ln, rc->ways);
		else
			snprintf(buf, len, "%s %s full-way", sz, ln);
		return buf;
	}
	snprintf(buf, len, "-");
	return buf;
}

/* --cross-check: every parameter the two paths both measured and on
 * which they disagree. */
static void emit_cross(const struct amp_report *r, FILE *out)
{
	const struct amp_ctx *a = r->hier, *b = r->cross;
	int shown = 0, compared = 0;

	fprintf(out, "\nCross-check, counters against timing:\n");
	for (int i = 0; i < a->nlv; i++) {
		const struct amp_level *x = &a->lv[i], *y = NULL;

		for (int j = 0; j < b->nlv; j++)
			if (strcmp(b->lv[j].name, x->name) == 0)
				y = &b->lv[j];
		if (!y || !x->measurable || !y->measurable || !x->selected || !y->selected)
			continue;
		for (int k = 0; k < AMP_NPARAMS; k++) {
			const struct amp_param *p = amp_level_param(x, k), *q = amp_level_param(y, k);

			if (!amp_param_conclusive(p) || !amp_param_conclusive(q))
				continue;
			compared++;
			if (p->value != q->value) {
				fprintf(out, "  %s %s: counters %lld, timing %lld\n", x->name,
					amp_param_fields[k].name, (long long)p->value, (long long)q->value);
				shown++;
			}
		}
	}
	fprintf(out, "  %d parameter%s measured both ways, %d disagree%s\n", compared,
		compared == 1 ? "" : "s", shown, shown == 1 ? "s" : "");
}
static const char *const unified_names[] = { "split", "unified" };

void amp_emit_text_levels(const struct amp_report *r, FILE *out)
{
	const struct amp_ctx *c = r->hier;
	char a[32], b[32], d[32], e[32], f[32], g[32], h[32], k[32];

	if (!c) {
		if (r->hier_missing[0])
			fprintf(out, "\nCaches and TLBs: not characterised (%s)\n", r->hier_missing);
		return;
	}
	if (c->method == AMP_METHOD_TIMING)
		fprintf(out, "\nCaches measured by timing (no miss counters used; %u votes of the minimum of %u runs; latency in %s):\n",
			c->votes, c->reps, r->cycles_per_tick > 0 ? "core cycles" : "ticks");
	else
		fprintf(out, "\nCaches measured with counters (%s backend, %u votes of the minimum of %u runs):\n",
			c->backend->name, c->votes, c->reps);
	fprintf(out, "  %-5s %9s %10s %10s %6s %9s %8s %10s %8s %6s %8s  %s\n", "level", "line", "size",
		"effective", "ways", "write", "policy", "inclusion", "kind", "conf", "latency", "reported");
	for (int i = 0; i < c->nlv; i++) {
		const struct amp_level *lv = &c->lv[i];
		char lat[32] = "-", rep[64];

		if (lv->kind != AMP_KIND_CACHE || !lv->selected)
			continue;
		if (!lv->measurable) {
			fprintf(out, "  %-5s N/C (%s)\n", lv->name, lv->nc_reason);
			continue;
		}
		if (lv->method == AMP_METHOD_TIMING)
			snprintf(lat, sizeof lat, "%.1f", lv->hit_ticks * (r->cycles_per_tick > 0 ? r->cycles_per_tick : 1));
		fprintf(out, "  %-5s %9s %10s %10s %6s %9s %8s %10s %8s %5.0f%% %8s  %s\n", lv->name,
			cell(&lv->line, 1, a, sizeof a), cell(&lv->size, 1, b, sizeof b),
			cell(&lv->effective_size, 1, d, sizeof d),
			lv->fully_associative ? "full" : cell(&lv->assoc, 0, e, sizeof e),
			name_cell(&lv->write_allocate, yes_no_write, 2, f, sizeof f),
			name_cell(&lv->replacement, amp_policy_names, 5, g, sizeof g),
			lv->level == 1 ? "-" : name_cell(&lv->inclusion, amp_inclusion_names, 3, h, sizeof h),
			name_cell(&lv->unified, unified_names, 2, k, sizeof k),
			100.0 * amp_level_confidence(lv), lat, reported_cell(r, lv, rep, sizeof rep));
	}
	for (int i = 0, header = 0; i < c->nlv; i++) {
		const struct amp_level *lv = &c->lv[i];

		if (lv->kind != AMP_KIND_TLB || !lv->selected)
			continue;
		if (!header++) {
			fprintf(out, "\nTLBs measured %s:\n", c->method == AMP_METHOD_TIMING ? "by timing (the TLB sweep)" : "with counters");
			fprintf(out, "  %-5s %9s %8s %6s %8s %6s %9s\n", "level", "page", "entries", "ways",
				"policy", "conf", "penalty");
		}
		if (!lv->measurable) {
			fprintf(out, "  %-5s N/C (%s)\n", lv->name, lv->nc_reason);
			continue;
		}
		fprintf(out, "  %-5s %9s %8s %6s %8s %5.0f%% ", lv->name, cell(&lv->line, 1, a, sizeof a),
			cell(&lv->size, 0, b, sizeof b),
			lv->fully_associative ? "full" : cell(&lv->assoc, 0, e, sizeof e),
			name_cell(&lv->replacement, amp_policy_names, 5, g, sizeof g),
			100.0 * amp_level_confidence(lv));
		if (lv->method == AMP_METHOD_TIMING)
			fprintf(out, "%9.1f\n", (lv->next_ticks - lv->hit_ticks) *
						   (r->cycles_per_tick > 0 ? r->cycles_per_tick : 1));
		else
			fprintf(out, "%9s\n", "-");
	}
	/* The instruction side: which code ran, and an op cache if one showed. */
	for (int i = 0; i < c->nlv; i++)
		if (c->lv[i].selected && c->lv[i].code[0])
			fprintf(out, "  %s code: %s\n", c->lv[i].name, c->lv[i].code);
	if (c->opcache.entries > 0)
		fprintf(out, "  Op cache (decoded-uop cache) in front of L1i: ~%.0f entries (%s)\n",
			c->opcache.entries, c->opcache.method);
	/* Every unknown or split parameter, with its reason and votes, and
	 * every decided one some of whose measurements failed. */
	for (int i = 0; i < c->nlv; i++) {
		const struct amp_level *lv = &c->lv[i];

		if (!lv->measurable || !lv->selected)
			continue;
		for (int j = 0; j < AMP_NPARAMS; j++) {
			const struct amp_param *p = amp_level_param(lv, j);

			if (amp_param_conclusive(p)) {
				if (!p->failed)
					continue;
				fprintf(out, "  %s %s: %u of %u measurements failed and cast no vote; the first: %s",
					lv->name, amp_param_fields[j].name, p->failed, p->failed + (unsigned)p->nvotes,
					p->first_failure);
			} else if (!p->reason[0] || (lv->level == 1 && p == &lv->inclusion) ||
				   (lv->side == AMP_SIDE_INSN && p == &lv->write_allocate)) {
				continue; /* self-evident gaps need no line of their own */
			} else {
				fprintf(out, "  %s %s: %s", lv->name, amp_param_fields[j].name, p->reason);
			}
			if (p->nvotes) {
				fprintf(out, " (votes:");
				for (int v = 0; v < p->nvotes; v++)
					fprintf(out, " %lld", (long long)p->votes[v]);
				fprintf(out, ")");
			}
			fprintf(out, "\n");
		}
	}
	fprintf(out, "  (%llu accesses in all)\n", (unsigned long long)c->accesses);
	if (r->cross)
		emit_cross(r, out);
}
