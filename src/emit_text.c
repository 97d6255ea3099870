/* emit_text.c - the report for people. */
#include "config.h"
#include <stdio.h>
#include "report.h"
#include "util.h"

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

		if (c->ways)
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
	fprintf(out, "\n");
	emit_reported(r, out);
	amp_emit_text_levels(r, out);
	emit_latency(r, out);
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
	fprintf(out, "\nCaches measured with counters (%s backend, %u votes of the minimum of %u runs):\n",
		c->backend->name, c->votes, c->reps);
	fprintf(out, "  %-5s %9s %10s %10s %6s %9s %8s %10s %8s %6s\n", "level", "line", "size",
		"effective", "ways", "write", "policy", "inclusion", "kind", "conf");
	for (int i = 0; i < c->nlv; i++) {
		const struct amp_level *lv = &c->lv[i];

		if (lv->kind != AMP_KIND_CACHE || !lv->selected)
			continue;
		if (!lv->counted) {
			fprintf(out, "  %-5s N/C (%s)\n", lv->name, lv->nc_reason);
			continue;
		}
		fprintf(out, "  %-5s %9s %10s %10s %6s %9s %8s %10s %8s %5.0f%%\n", lv->name,
			cell(&lv->line, 1, a, sizeof a), cell(&lv->size, 1, b, sizeof b),
			cell(&lv->effective_size, 1, d, sizeof d),
			lv->fully_associative ? "full" : cell(&lv->assoc, 0, e, sizeof e),
			name_cell(&lv->write_allocate, yes_no_write, 2, f, sizeof f),
			name_cell(&lv->replacement, amp_policy_names, 5, g, sizeof g),
			lv->level == 1 ? "-" : name_cell(&lv->inclusion, amp_inclusion_names, 3, h, sizeof h),
			name_cell(&lv->unified, unified_names, 2, k, sizeof k),
			100.0 * amp_level_confidence(lv));
	}
	for (int i = 0, header = 0; i < c->nlv; i++) {
		const struct amp_level *lv = &c->lv[i];

		if (lv->kind != AMP_KIND_TLB || !lv->selected)
			continue;
		if (!header++) {
			fprintf(out, "\nTLBs measured with counters:\n");
			fprintf(out, "  %-5s %9s %8s %6s %8s %6s\n", "level", "page", "entries", "ways",
				"policy", "conf");
		}
		if (!lv->counted) {
			fprintf(out, "  %-5s N/C (%s)\n", lv->name, lv->nc_reason);
			continue;
		}
		fprintf(out, "  %-5s %9s %8s %6s %8s %5.0f%%\n", lv->name, cell(&lv->line, 1, a, sizeof a),
			cell(&lv->size, 0, b, sizeof b),
			lv->fully_associative ? "full" : cell(&lv->assoc, 0, e, sizeof e),
			name_cell(&lv->replacement, amp_policy_names, 5, g, sizeof g),
			100.0 * amp_level_confidence(lv));
	}
	/* Every unknown or split parameter, with its reason and votes. */
	for (int i = 0; i < c->nlv; i++) {
		const struct amp_level *lv = &c->lv[i];

		if (!lv->counted || !lv->selected)
			continue;
		for (int j = 0; j < AMP_NPARAMS; j++) {
			const struct amp_param *p = amp_level_param(lv, j);

			if (p->known && !p->inconclusive)
				continue;
			/* Self-evident gaps need no line of their own. */
			if (!p->reason[0] || (lv->level == 1 && p == &lv->inclusion) ||
			    (lv->side == AMP_SIDE_INSN && p == &lv->write_allocate))
				continue;
			fprintf(out, "  %s %s: %s", lv->name, amp_param_fields[j].name, p->reason);
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
}
