/* emit_header.c - the report as a C header for autotuners and compilers:
 * one #define per measured value (AMP_L1D_SIZE 49152 ...).  Only
 * measured values become macros; a value amp could not measure, or whose
 * votes split, is a comment with the reason, so that a program's
 * #ifdef falls back to its own default instead of a guess. */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "report.h"
#include "timing.h"

/* Text inside a C comment: no comment terminator, one line. */
static void comment_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (s[0] == '*' && s[1] == '/')
			fputs("* /", out), s++;
		else
			fputc(*s == '\n' ? ' ' : *s, out);
	}
}

/* "L1d" + "effective size" -> "AMP_L1D_EFFECTIVE_SIZE" */
static void macro_name(char *buf, size_t len, const char *level, const char *param)
{
	size_t n = (size_t)snprintf(buf, len, "AMP_%s_%s", level, param);

	for (size_t i = 0; i < n && i < len; i++)
		buf[i] = buf[i] == ' ' || buf[i] == '/' ? '_' : (char)toupper((unsigned char)buf[i]);
}

static void define(FILE *out, const char *name, long long value, const char *what)
{
	fprintf(out, "#define %-32s %lld%s /* %s */\n", name, value, value > 2147483647LL ? "LL" : "", what);
}

void amp_emit_header(const struct amp_report *r, FILE *out)
{
	char name[96];

	fprintf(out, "/* Memory hierarchy of ");
	comment_text(out, r->sim_spec[0] ? "a simulated machine" : r->cpu);
	if (!r->sim_spec[0])
		fprintf(out, " (Linux %s)", r->kernel);
	fprintf(out, ", measured by amp %s\n * (%s).\n", r->amp_version,
		r->hier ? amp_method_names[r->hier->method] : "latency sweep only");
	fprintf(out, " * Only measured values are defined; unknown or split ones are comments\n"
		" * with the reason.  Generated: do not edit; regenerate with\n"
		" * `amp --format=header`. */\n");
	fprintf(out, "#ifndef AMP_MEMORY_HIERARCHY_H\n#define AMP_MEMORY_HIERARCHY_H\n\n");
	fprintf(out, "#define AMP_FORMAT_VERSION %d\n", AMP_FORMAT_VERSION);
	for (int i = 0; r->hier && i < r->hier->nlv; i++) {
		const struct amp_level *lv = &r->hier->lv[i];

		if (!lv->selected)
			continue;
		fprintf(out, "\n/* %s */\n", lv->name);
		if (!lv->measurable) {
			fprintf(out, "/* not measured: ");
			comment_text(out, lv->nc_reason);
			fprintf(out, " */\n");
			continue;
		}
		for (int k = 0; k < AMP_NPARAMS; k++) {
			const struct amp_param *p = amp_level_param(lv, k);
			const char *param = amp_param_fields[k].name;

			if (lv->kind == AMP_KIND_TLB && k > 3)
				continue;
			if (lv->level == 1 && strcmp(param, "inclusion") == 0)
				continue;
			if (lv->kind == AMP_KIND_TLB)
				param = strcmp(param, "line") == 0 ? "page size" : strcmp(param, "size") == 0 ? "entries" : param;
			else if (strcmp(param, "line") == 0)
				param = "line size";
			else if (strcmp(param, "split/unified") == 0)
				param = "unified";
			macro_name(name, sizeof name, lv->name, param);
			if (amp_param_conclusive(p)) {
				char what[96];

				if (strcmp(param, "replacement") == 0 || strcmp(param, "inclusion") == 0) {
					const char *v = strcmp(param, "replacement") == 0 ? amp_policy_names[p->value]
											 : amp_inclusion_names[p->value];

					fprintf(out, "#define %-32s \"%s\" /* by %s */\n", name, v, p->method);
					continue;
				}
				snprintf(what, sizeof what, "by %s, confidence %.0f%%", p->method, 100 * p->confidence);
				define(out, name, (long long)p->value, what);
			} else {
				fprintf(out, "/* %s unknown: ", name);
				comment_text(out, p->reason[0] ? p->reason : "not measured");
				fprintf(out, " */\n");
			}
		}
		if (lv->method == AMP_METHOD_TIMING && lv->kind == AMP_KIND_CACHE && r->cycles_per_tick > 0) {
			macro_name(name, sizeof name, lv->name, "latency cycles");
			define(out, name, (long long)(lv->hit_ticks * r->cycles_per_tick + 0.5), "load-to-use, by timing");
		}
	}
	fprintf(out, "\n/* Main memory */\n");
	if (r->memory_ticks.known && r->tick_mhz.known)
		define(out, "AMP_MEMORY_LATENCY_NS", (long long)(r->memory_ticks.value / r->tick_mhz.value * 1000.0 + 0.5),
		       "load latency, by timing");
	else if (r->memory_ticks.known)
		define(out, "AMP_MEMORY_LATENCY_CYCLES", (long long)(r->memory_ticks.value + 0.5),
		       "simulated cycles");
	else {
		fprintf(out, "/* AMP_MEMORY_LATENCY_NS unknown: ");
		comment_text(out, r->memory_ticks.reason);
		fprintf(out, " */\n");
	}
	fprintf(out, "\n#endif /* AMP_MEMORY_HIERARCHY_H */\n");
}
