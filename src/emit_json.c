/* emit_json.c - the report for programs (format_version tells them
 * which fields to expect; amp(1) documents each). */
#include "config.h"
#include <stdio.h>
#include "cpu.h"
#include "cpu_sys.h"
#include "report.h"
#include "timing.h"
#include "vendor.h"

void amp_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* "key": value, or "key": null, "key_reason": "why". */
static void num(FILE *out, const char *key, const struct amp_num *n, const char *sep)
{
	if (n->known) {
		fprintf(out, "\"%s\": %.6g%s", key, n->value, sep);
	} else {
		fprintf(out, "\"%s\": null, \"%s_reason\": ", key, key);
		amp_json_string(out, n->reason);
		fputs(sep, out);
	}
}

static void str(FILE *out, const char *key, const char *value, const char *sep)
{
	fprintf(out, "\"%s\": ", key);
	amp_json_string(out, value);
	fputs(sep, out);
}

void amp_emit_json_levels(const struct amp_report *r, FILE *out);

void amp_emit_json(const struct amp_report *r, FILE *out)
{
	fprintf(out, "{\n  \"format_version\": %d,\n  ", AMP_FORMAT_VERSION);
	str(out, "amp_version", r->amp_version, ",\n");
	fputs("  \"host\": {", out);
	str(out, "cpu", r->cpu, ", ");
	str(out, "arch", r->arch, ", ");
	str(out, "kernel", r->kernel, ", ");
	if (r->uarch[0])
		str(out, "event_table", r->uarch, "},\n");
	else
		fputs("\"event_table\": null, \"event_table_reason\": \"amp has no event table for this CPU\"},\n", out);
	fputs("  \"simulated\": ", out);
	if (r->sim_spec[0]) {
		fputs("{", out);
		str(out, "spec", r->sim_spec, "},\n");
	} else {
		fputs("null,\n", out);
	}
	fputs("  \"backend\": {", out);
	str(out, "name", r->backend, ", ");
	str(out, "why", r->backend_why, "},\n");
	fputs("  \"backends\": [", out);
	for (int i = 0; i < r->nbackends; i++) {
		const struct amp_backend_status *b = &r->backends[i];

		fprintf(out, "%s\n    {", i ? "," : "");
		str(out, "name", b->name, ", ");
		fprintf(out, "\"usable\": %s, \"priority\": %d, ", b->usable ? "true" : "false", b->priority);
		str(out, "reason", b->reason, "}");
	}
	fputs("\n  ],\n  \"timer\": {", out);
	str(out, "unit", r->tick_unit, ", ");
	num(out, "mhz", &r->tick_mhz, ", ");
	num(out, "resolution_ns", &r->timer_resolution_ns, ", ");
	num(out, "overhead_ticks", &r->timer_overhead_ticks, "},\n  ");
	num(out, "counter_overhead_ticks", &r->counter_overhead_ticks, ",\n  ");
	num(out, "pinned_cpu", &r->pinned_cpu, ", ");
	str(out, "pinned_how", r->pinned_cpu.known && r->pinned_how[0] ? r->pinned_how : NULL, ",\n");
	if (r->others.known)
		fprintf(out, "  \"other_cpus\": {\"cpus\": %d, \"busy\": %.3f, \"busiest_cpu\": %d, \"busiest_busy\": %.3f},\n",
			r->others.ncpus, r->others.share, r->others.busiest, r->others.busiest_share);
	else {
		fputs("  \"other_cpus\": null, ", out);
		str(out, "other_cpus_reason", r->others_reason, ",\n");
	}
	fputs("  \"reported\": {", out);
	if (r->nreported)
		str(out, "source", r->reported_source, ", ");
	else
		fputs("\"source\": null, ", out);
	if (!r->nreported)
		str(out, "missing_reason", r->reported_missing, ", ");
	fputs("\"caches\": [", out);
	for (int i = 0; i < r->nreported; i++) {
		const struct amp_reported_cache *c = &r->reported[i];

		fprintf(out, "%s\n    {\"level\": %d, ", i ? "," : "", c->level);
		str(out, "type", c->type, ", ");
		fprintf(out, "\"size\": %llu, \"line_size\": %llu, ", (unsigned long long)c->size,
			(unsigned long long)c->line);
		if (c->ways_unknown)
			fputs("\"associativity\": null, \"fully_associative\": null, ", out);
		else if (c->ways)
			fprintf(out, "\"associativity\": %u, \"fully_associative\": false, ", c->ways);
		else
			fprintf(out, "\"associativity\": %llu, \"fully_associative\": true, ",
				c->line ? (unsigned long long)(c->size / c->line) : 0ULL);
		fprintf(out, "\"sets\": %u, ", c->sets);
		str(out, "shared_with", c->shared_with, "}");
	}
	fputs(r->nreported ? "\n  ]},\n" : "]},\n", out);
	amp_emit_json_levels(r, out);
	if (r->compare)
		amp_compare_json_libs(r->vendor, r->compare, r->libviews, out);
	fputs("  \"latency\": {", out);
	str(out, "method", r->latency_method, ", ");
	if (r->sweep_note[0])
		str(out, "note", r->sweep_note, ", ");
	str(out, "tick_unit", r->tick_unit, ", ");
	fprintf(out, "\"busy_points\": %d, ", r->sweep ? r->sweep->busy : 0);
	fprintf(out, "\"stride\": %llu, \"points\": [", (unsigned long long)r->latency_stride);
	for (int i = 0; i < r->nlatency; i++) {
		const struct amp_latency_point *p = &r->latency[i];

		fprintf(out, "%s\n    {\"size\": %llu, \"ticks\": %.3f, ", i ? "," : "",
			(unsigned long long)p->size, p->ticks);
		num(out, "ns", &p->ns, "}");
	}
	fprintf(out, "%s],\n    \"steps\": [", r->nlatency ? "\n  " : "");
	for (int i = 0; r->sweep && i < r->sweep->nclusters; i++) {
		const struct amp_sweep *sw = r->sweep;
		int mem = sw->reached_memory && i == sw->nclusters - 1;

		fprintf(out, "%s{\"what\": \"%s\", \"up_to\": %llu, \"ticks\": %.3f}", i ? ", " : "",
			mem ? "memory" : "cache", (unsigned long long)sw->size[sw->cl[i].fits], sw->cl[i].ticks);
	}
	fputs("]},\n  ", out);
	num(out, "memory_latency_ticks", &r->memory_ticks, ",\n  ");
	num(out, "core_mhz", &r->core_mhz, ",\n");
	if (r->cpu_part) { /* --cpu sets both halves */
		fputs("  \"cpu\": {\n    ", out);
		amp_cpu_json_members(r->cpu_part, out);
		if (r->cpusys)
			amp_cpusys_json_members(r->cpusys, out);
		fputs("\n  },\n", out);
	} else {
		fputs("  \"cpu\": null, \"cpu_reason\": \"not asked for (--cpu)\",\n", out);
	}
	fputs("  \"phases\": [", out);
	for (int i = 0; i < r->nphases; i++)
		fprintf(out, "%s{\"name\": \"%s\", \"seconds\": %.3f}", i ? ", " : "", r->phase[i].name,
			r->phase[i].seconds);
	fputs("],\n", out);
	fprintf(out, "  \"memory_bound_bytes\": %llu, ", (unsigned long long)r->memory_bound);
	str(out, "memory_bound_reason", r->memory_bound_why, ",\n");
	fprintf(out, "  \"wall_seconds\": %.3f\n}\n", r->wall_seconds);
}

/* One parameter with its evidence: value (or null and reason),
 * confidence, votes and what it cost. */
static void param(FILE *out, const char *key, const struct amp_param *p, const char *const *names,
		  const char *sep)
{
	fprintf(out, "\"%s\": {", key);
	if (p->known && names)
		str(out, "value", names[p->value], ", ");
	else if (p->known)
		fprintf(out, "\"value\": %lld, ", (long long)p->value);
	else
		fputs("\"value\": null, ", out);
	if (!p->known || p->inconclusive)
		str(out, "reason", p->reason, ", ");
	fprintf(out, "\"inconclusive\": %s, \"confidence\": %.3g, \"votes\": [",
		p->inconclusive ? "true" : "false", p->known ? p->confidence : 0.0);
	for (int i = 0; i < p->nvotes; i++)
		fprintf(out, "%s%lld", i ? ", " : "", (long long)p->votes[i]);
	fprintf(out, "], \"failed\": %u, ", p->failed);
	if (p->failed)
		str(out, "first_failure", p->first_failure, ", ");
	fprintf(out, "\"accesses\": %llu}%s", (unsigned long long)p->accesses, sep);
}

/* The flat value of a parameter: number, name, bool or null. */
static void flat(FILE *out, const char *key, const struct amp_param *p, const char *const *names,
		 int boolean, const char *sep)
{
	if (!p->known)
		fprintf(out, "\"%s\": null%s", key, sep);
	else if (boolean)
		fprintf(out, "\"%s\": %s%s", key, p->value ? "true" : "false", sep);
	else if (names) {
		fprintf(out, "\"%s\": ", key);
		amp_json_string(out, names[p->value]);
		fputs(sep, out);
	} else
		fprintf(out, "\"%s\": %lld%s", key, (long long)p->value, sep);
}

static const char *level_type(const struct amp_level *lv)
{
	/* The STLB serves both sides; ITLB2 is the instruction side's. */
	if (lv->kind == AMP_KIND_TLB)
		return lv->side == AMP_SIDE_INSN ? "instruction" : lv->level == 2 ? "unified" : "data";
	if (lv->unified.known && lv->unified.value)
		return "unified";
	if (lv->level == 1 || lv->unified.known)
		return lv->side == AMP_SIDE_INSN ? "instruction" : "data";
	return NULL;
}

static void emit_level(FILE *out, const struct amp_level *lv, int first)
{
	const char *type = level_type(lv);

	fprintf(out, "%s\n    {", first ? "" : ",");
	str(out, "name", lv->name, ", ");
	fprintf(out, "\"level\": %d, ", lv->level);
	if (type)
		str(out, "type", type, ", ");
	else
		fputs("\"type\": null, ", out);
	if (!lv->measurable) {
		fputs("\"method\": null, ", out);
		str(out, "reason", lv->nc_reason, "}");
		return;
	}
	if (lv->kind == AMP_KIND_CACHE) {
		flat(out, "line_size", &lv->line, NULL, 0, ", ");
		flat(out, "size", &lv->size, NULL, 0, ", ");
		flat(out, "effective_size", &lv->effective_size, NULL, 0, ", ");
	} else {
		flat(out, "page_size", &lv->line, NULL, 0, ", ");
		flat(out, "entries", &lv->size, NULL, 0, ", ");
	}
	flat(out, "associativity", &lv->assoc, NULL, 0, ", ");
	fprintf(out, "\"fully_associative\": %s, ", lv->fully_associative ? "true" : "false");
	if (lv->kind == AMP_KIND_CACHE) {
		flat(out, "write_allocate", &lv->write_allocate, NULL, 1, ", ");
		flat(out, "inclusion", &lv->inclusion, amp_inclusion_names, 0, ", ");
	}
	if (lv->replacement.known)
		flat(out, "replacement", &lv->replacement, amp_policy_names, 0, ", ");
	else
		fputs("\"replacement\": \"unknown\", ", out);
	if (lv->method == AMP_METHOD_TIMING && lv->kind == AMP_KIND_CACHE)
		fprintf(out, "\"latency_ticks\": %.3f, ", lv->hit_ticks);
	if (lv->method == AMP_METHOD_TIMING && lv->kind == AMP_KIND_TLB)
		fprintf(out, "\"miss_penalty_ticks\": %.3f, ", lv->next_ticks - lv->hit_ticks);
	if (lv->code[0])
		str(out, "code", lv->code, ", ");
	fprintf(out, "\"method\": \"%s\", \"confidence\": %.3g,\n      \"parameters\": {",
		amp_method_names[lv->method], amp_level_confidence(lv));
	param(out, lv->kind == AMP_KIND_CACHE ? "line_size" : "page_size", &lv->line, NULL, ", ");
	param(out, "associativity", &lv->assoc, NULL, ", ");
	param(out, "way_size", &lv->way, NULL, ", ");
	param(out, lv->kind == AMP_KIND_CACHE ? "size" : "entries", &lv->size, NULL, ", ");
	if (lv->kind == AMP_KIND_CACHE) {
		param(out, "effective_size", &lv->effective_size, NULL, ", ");
		param(out, "write_allocate", &lv->write_allocate, NULL, ", ");
		param(out, "inclusion", &lv->inclusion, amp_inclusion_names, ", ");
		param(out, "unified", &lv->unified, NULL, ", ");
	}
	param(out, "replacement", &lv->replacement, amp_policy_names, "}}");
}

/* The caches and TLBs arrays; `end` follows the last one. */
static void emit_levels(FILE *out, const struct amp_ctx *c, const char *end)
{
	for (int kind = AMP_KIND_CACHE; kind <= AMP_KIND_TLB; kind++) {
		int first = 1;

		fprintf(out, "  \"%s\": [", kind == AMP_KIND_CACHE ? "caches" : "tlbs");
		for (int i = 0; i < c->nlv; i++) {
			const struct amp_level *lv = &c->lv[i];

			if ((int)lv->kind != kind || !lv->selected)
				continue;
			emit_level(out, lv, first);
			first = 0;
		}
		fputs(first ? "]" : "\n  ]", out);
		fputs(kind == AMP_KIND_TLB ? end : ",\n", out);
	}
}

void amp_emit_json_levels(const struct amp_report *r, FILE *out)
{
	const struct amp_ctx *c = r->hier;

	if (!c) {
		fputs("  \"caches\": null, \"tlbs\": null, \"characterisation_reason\": ", out);
		amp_json_string(out, r->hier_missing[0] ? r->hier_missing : "not asked for");
		fputs(",\n", out);
		return;
	}
	fprintf(out, "  \"characterisation\": {\"method\": \"%s\", \"backend\": \"%s\", "
		"\"votes\": %u, \"reps\": %u, \"accesses\": %llu},\n", amp_method_names[c->method],
		c->backend->name, c->votes, c->reps, (unsigned long long)c->accesses);
	if (c->opcache.entries > 0) {
		fprintf(out, "  \"op_cache\": {\"entries\": %.0f, \"code_bytes\": %llu, ", c->opcache.entries,
			(unsigned long long)c->opcache.bytes);
		str(out, "method", c->opcache.method, "},\n");
	} else {
		fputs("  \"op_cache\": null,\n", out);
	}
	emit_levels(out, c, ",\n");
	if (r->cross) {
		fputs("  \"cross_check\": {\"method\": \"timing\",\n", out);
		emit_levels(out, r->cross, "},\n");
	}

}
