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
	emit_latency(r, out);
	fprintf(out, "\nWall time: %.2f s\n", r->wall_seconds);
}
