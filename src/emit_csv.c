/* emit_csv.c - the report as one CSV table for spreadsheets and scripts:
 * a header line, then one row per measured value (caches, TLBs, latency
 * points and levels, main memory, and the measured-against-reported
 * rows).  Columns: section,level,parameter,value,unit,method,confidence,note
 * (value empty when unknown; note then says why). */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "report.h"
#include "timing.h"
#include "vendor.h"

/* A field, quoted when it holds a comma, a quote or a line break. */
static void field(FILE *out, const char *s, int last)
{
	if (strpbrk(s, ",\"\n\r")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputc(last ? '\n' : ',', out);
}

static void row(FILE *out, const char *section, const char *level, const char *param, const char *value,
		const char *unit, const char *method, double confidence, const char *note)
{
	char conf[32] = "";

	if (confidence >= 0)
		snprintf(conf, sizeof conf, "%.3g", confidence);
	field(out, section, 0);
	field(out, level, 0);
	field(out, param, 0);
	field(out, value, 0);
	field(out, unit, 0);
	field(out, method, 0);
	field(out, conf, 0);
	field(out, note, 1);
}

static const char *param_unit(const struct amp_level *lv, int k)
{
	const char *name = amp_param_fields[k].name;

	if (strcmp(name, "line") == 0 || strcmp(name, "way size") == 0 ||
	    strcmp(name, "effective size") == 0)
		return "bytes";
	if (strcmp(name, "size") == 0)
		return lv->kind == AMP_KIND_TLB ? "entries" : "bytes";
	if (strcmp(name, "associativity") == 0)
		return "ways";
	return "";
}

static const char *param_value(const struct amp_param *p, int k, char *buf, size_t len)
{
	const char *name = amp_param_fields[k].name;

	if (!p->known)
		snprintf(buf, len, "%s", "");
	else if (strcmp(name, "replacement") == 0 && p->value >= 0 && p->value < 5)
		snprintf(buf, len, "%s", amp_policy_names[p->value]);
	else if (strcmp(name, "inclusion") == 0 && p->value >= 0 && p->value < 3)
		snprintf(buf, len, "%s", amp_inclusion_names[p->value]);
	else if (strcmp(name, "write allocation") == 0)
		snprintf(buf, len, "%s", p->value ? "allocate" : "no-allocate");
	else if (strcmp(name, "split/unified") == 0)
		snprintf(buf, len, "%s", p->value ? "unified" : "split");
	else
		snprintf(buf, len, "%lld", (long long)p->value);
	return buf;
}

void amp_emit_csv(const struct amp_report *r, FILE *out)
{
	char v[64], lvl[16], note[AMP_REASON_LEN + 32];

	fputs("section,level,parameter,value,unit,method,confidence,note\n", out);
	for (int i = 0; r->hier && i < r->hier->nlv; i++) {
		const struct amp_level *lv = &r->hier->lv[i];

		if (!lv->selected)
			continue;
		if (!lv->measurable) {
			row(out, lv->kind == AMP_KIND_TLB ? "tlb" : "cache", lv->name, "", "", "", "", -1, lv->nc_reason);
			continue;
		}
		for (int k = 0; k < AMP_NPARAMS; k++) {
			const struct amp_param *p = amp_level_param(lv, k);
			const char *name = amp_param_fields[k].name;

			if (lv->kind == AMP_KIND_TLB && strcmp(name, "line") == 0)
				name = "page size";
			else if (lv->kind == AMP_KIND_TLB && strcmp(name, "size") == 0)
				name = "entries";
			if (lv->kind == AMP_KIND_TLB && k > 3)
				continue;
			if (!p->known || p->inconclusive)
				snprintf(note, sizeof note, "%s", p->reason);
			else if (p->failed)
				snprintf(note, sizeof note, "%u measurements failed and cast no vote", p->failed);
			else
				note[0] = 0;
			row(out, lv->kind == AMP_KIND_TLB ? "tlb" : "cache", lv->name, name,
			    param_value(p, k, v, sizeof v), param_unit(lv, k), p->method ? p->method : "",
			    p->known ? p->confidence : -1, note);
		}
	}
	for (int i = 0; i < r->nlatency; i++) {
		snprintf(lvl, sizeof lvl, "%llu", (unsigned long long)r->latency[i].size);
		snprintf(v, sizeof v, "%.3f", r->latency[i].ticks);
		row(out, "latency", lvl, "ticks per load", v, "ticks", "timing", -1, r->tick_unit);
	}
	for (int i = 0; r->sweep && i < r->sweep->nclusters; i++) {
		const struct amp_sweep *sw = r->sweep;
		int mem = sw->reached_memory && i == sw->nclusters - 1;

		snprintf(lvl, sizeof lvl, "%s%d", mem ? "memory" : "step", mem ? 0 : i + 1);
		snprintf(v, sizeof v, "%.3f", sw->cl[i].ticks);
		snprintf(note, sizeof note, "effective size %llu bytes", (unsigned long long)sw->size[sw->cl[i].fits]);
		row(out, "level", lvl, "latency", v, "ticks", "timing", -1, mem ? "" : note);
	}
	if (r->memory_ticks.known)
		snprintf(v, sizeof v, "%.3f", r->memory_ticks.value);
	row(out, "memory", "", "latency", r->memory_ticks.known ? v : "", "ticks", "timing", -1,
	    r->memory_ticks.known ? "" : r->memory_ticks.reason);
	for (int i = 0; r->compare && i < r->compare->n; i++) {
		const struct amp_compare_row *c = &r->compare->row[i];
		char rep[32] = "", cp[32] = "", lib[AMP_LIBVIEWS][32] = { "-", "-" };

		if (c->has_measured)
			snprintf(v, sizeof v, "%lld", (long long)c->measured);
		if (c->has_sysfs)
			snprintf(rep, sizeof rep, "%lld", (long long)c->sysfs);
		if (c->has_cpuid)
			snprintf(cp, sizeof cp, "%lld", (long long)c->cpuid);
		for (int j = 0; j < AMP_LIBVIEWS; j++)
			if (c->has_lib[j])
				snprintf(lib[j], sizeof lib[j], "%lld", (long long)c->lib[j]);
		snprintf(note, sizeof note, "%s; reported %s; cpuid %s; papi %s; hwloc %s%s%s",
			 c->verdict == AMP_DIFFER ? "differ" : amp_verdict_names[c->verdict],
			 rep[0] ? rep : "-", cp[0] ? cp : "-", lib[0], lib[1], c->why[0] ? "; " : "", c->why);
		row(out, "compare", c->level, c->param, c->has_measured ? v : "", "", c->measured_how, -1, note);
	}
}
