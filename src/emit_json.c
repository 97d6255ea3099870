/* emit_json.c - the report for programs (format_version tells them
 * which fields to expect; amp(1) documents each). */
#include "config.h"
#include <stdio.h>
#include "report.h"

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
	num(out, "pinned_cpu", &r->pinned_cpu, ",\n");
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
		if (c->ways)
			fprintf(out, "\"associativity\": %u, \"fully_associative\": false, ", c->ways);
		else
			fprintf(out, "\"associativity\": %llu, \"fully_associative\": true, ",
				c->line ? (unsigned long long)(c->size / c->line) : 0ULL);
		fprintf(out, "\"sets\": %u, ", c->sets);
		str(out, "shared_with", c->shared_with, "}");
	}
	fputs(r->nreported ? "\n  ]},\n" : "]},\n", out);
	fputs("  \"latency\": {", out);
	str(out, "method", r->latency_method, ", ");
	str(out, "tick_unit", r->tick_unit, ", ");
	fprintf(out, "\"stride\": %llu, \"points\": [", (unsigned long long)r->latency_stride);
	for (int i = 0; i < r->nlatency; i++) {
		const struct amp_latency_point *p = &r->latency[i];

		fprintf(out, "%s\n    {\"size\": %llu, \"ticks\": %.3f, ", i ? "," : "",
			(unsigned long long)p->size, p->ticks);
		num(out, "ns", &p->ns, "}");
	}
	fprintf(out, "%s]},\n", r->nlatency ? "\n  " : "");
	fprintf(out, "  \"wall_seconds\": %.3f\n}\n", r->wall_seconds);
}
