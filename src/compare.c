/* compare.c - measured against reported: for every cache level its
 * size, line and ways, for every TLB its entries, page and ways, as sysfs
 * reports them, as CPUID describes them, and as amp measured them; each
 * disagreement flagged and, where amp can tell, explained (the effective
 * capacity of a shared last level, exclusion, adjacent-line prefetch, a
 * hypervisor that rewrites or hides leaves). */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "measure.h"
#include "report.h"
#include "vendor.h"

const char *const amp_verdict_names[] = { "agree", "DIFFER", "not measured", "not reported" };

/* The cache levels amp names, the side each is probed from. */
static const struct {
	const char *name;
	int level, insn;
} cache_levels[] = {
	{ "L1d", 1, 0 }, { "L1i", 1, 1 }, { "L2", 2, 0 }, { "L3", 3, 0 }, { "L4", 4, 0 },
};
static const char *const tlb_levels[] = { "DTLB", "ITLB", "STLB", "ITLB2" };
static const char *const tlb_params[] = { "entries", "page", "ways" };

static const struct amp_reported_cache *find_reported(const struct amp_reported_cache *c, int n,
						      int level, int insn)
{
	for (int i = 0; i < n; i++)
		if (c[i].level == level && (strcmp(c[i].type, "instruction") == 0) == insn)
			return &c[i];
	return NULL;
}

static const struct amp_level *find_measured(const struct amp_report *r, const char *name)
{
	if (!r->hier)
		return NULL;
	for (int i = 0; i < r->hier->nlv; i++)
		if (strcmp(r->hier->lv[i].name, name) == 0 && r->hier->lv[i].selected)
			return &r->hier->lv[i];
	return NULL;
}

static const struct amp_reported_tlb *find_tlb(const struct amp_vendor *v, const char *name)
{
	const struct amp_reported_tlb *best = NULL;

	for (int i = 0; v && i < v->ntlb; i++)
		if (strcmp(v->tlb[i].name, name) == 0 && (!best || v->tlb[i].page < best->page))
			best = &v->tlb[i];
	return best;
}

static int64_t reported_value(const struct amp_reported_cache *c, const char *param)
{
	if (strcmp(param, "size") == 0)
		return (int64_t)c->size;
	if (strcmp(param, "line") == 0)
		return (int64_t)c->line;
	return c->ways ? (int64_t)c->ways : (int64_t)(c->line ? c->size / c->line : 0);
}

/* The same for a TLB; fully associative: as many ways as entries. */
static int64_t reported_tlb_value(const struct amp_reported_tlb *tl, const char *param)
{
	if (strcmp(param, "entries") == 0)
		return (int64_t)tl->entries;
	if (strcmp(param, "page") == 0)
		return (int64_t)tl->page;
	return (int64_t)(tl->ways ? tl->ways : tl->entries);
}

/* Whether the report describes lv as the last cache level. */
static int last_level(const struct amp_report *r, const struct amp_vendor *v, int level)
{
	int deepest = 0;

	for (int i = 0; i < r->nreported; i++)
		if (r->reported[i].level > deepest)
			deepest = r->reported[i].level;
	for (int i = 0; v && i < v->ncache; i++)
		if (v->cache[i].level > deepest)
			deepest = v->cache[i].level;
	return level > 1 && level == deepest;
}

/* Sum of the reported data-side capacities above `level`. */
static uint64_t reported_above(const struct amp_report *r, int level)
{
	uint64_t sum = 0;

	for (int i = 0; i < r->nreported; i++)
		if (r->reported[i].level < level && strcmp(r->reported[i].type, "instruction") != 0)
			sum += r->reported[i].size;
	return sum;
}

static int near(double a, double b, double tolerance)
{
	return a >= b * (1 - tolerance) && a <= b * (1 + tolerance);
}

/* Why a measured cache parameter differs from the reported one, when
 * amp can tell; "" otherwise. */
static void explain_cache(const struct amp_report *r, const struct amp_vendor *v,
			  const struct amp_level *lv, const struct amp_compare_row *row,
			  const struct amp_reported_cache *rep, char *why, size_t len)
{
	int64_t nominal = row->has_sysfs ? row->sysfs : row->cpuid;
	int effective = strstr(row->measured_how, "effective") != NULL;

	why[0] = '\0';
	if (strcmp(row->param, "line") == 0 && row->measured == 2 * nominal) {
		if (v && v->prefetch_bytes == (unsigned)row->measured)
			snprintf(why, len, "adjacent-line prefetch: CPUID leaf 2 says lines are fetched in %u-byte pairs",
				 v->prefetch_bytes);
		else
			snprintf(why, len, "twice the line: adjacent-line (spatial) prefetch fetches line pairs");
		return;
	}
	if (strcmp(row->param, "line") == 0 && nominal > 0 && row->measured > nominal &&
	    row->measured % nominal == 0) {
		snprintf(why, len, "%lld lines move together: a spatial prefetcher fetches neighbouring lines, and %s "
			 "sees the unit it moves", (long long)(row->measured / nominal),
			 strstr(row->measured_how, "timing") ? "timing" : "the counter");
		return;
	}
	if (strcmp(row->param, "size") != 0)
		return;
	if (row->measured > nominal && lv->level > 1 &&
	    near((double)row->measured, (double)(nominal + reported_above(r, lv->level)), 0.15)) {
		snprintf(why, len, "exclusion: the level holds its own lines and those of the levels above (%lld + %llu bytes)",
			 (long long)nominal, (unsigned long long)reported_above(r, lv->level));
		return;
	}
	if (lv->inclusion.known && lv->inclusion.value == AMP_INCL_EXCLUSIVE && row->measured > nominal) {
		snprintf(why, len, "exclusion (measured): the effective size counts the levels above");
		return;
	}
	if (row->measured < nominal && last_level(r, v, lv->level)) {
		snprintf(why, len, "effective capacity of a shared last level: one core%s reaches only part of it "
			 "(slices, other cores' and tenants' lines)%s",
			 rep && rep->shared_with[0] ? " of those sharing it" : "",
			 v && v->hypervisor ? "; a virtual machine shares it with the host's other guests" : "");
		return;
	}
	if (row->measured < nominal && effective)
		snprintf(why, len, "effective size: the largest working set still at this level's latency; a physically "
			 "indexed level loses capacity to page-frame conflicts, and the TLB adds cost before it is full");
}

static void set_measured(struct amp_compare_row *row, const struct amp_param *p, const struct amp_param *fallback)
{
	const struct amp_param *use = amp_param_conclusive(p) ? p : NULL;

	if (!use && fallback && amp_param_conclusive(fallback))
		use = fallback;
	if (!use) {
		row->has_measured = 0;
		snprintf(row->measured_how, sizeof row->measured_how, "-");
		snprintf(row->why, sizeof row->why, "%s", p->reason[0] ? p->reason : "not measured");
		return;
	}
	row->has_measured = 1;
	row->measured = use->value;
	snprintf(row->measured_how, sizeof row->measured_how, "%s%s", use->method ? use->method : "?",
		 use == fallback ? ", effective" : "");
}

/* A level's ways: where it is fully associative, as many as its size
 * holds units (lines of a cache; 1 for a TLB, whose size is its
 * entries), unit 0 where that is unknown. */
static void set_measured_ways(struct amp_compare_row *row, const struct amp_level *lv, int64_t unit)
{
	if (!lv->fully_associative || !amp_param_conclusive(&lv->size) || unit <= 0) {
		set_measured(row, &lv->assoc, NULL);
		return;
	}
	row->has_measured = 1;
	row->measured = lv->size.value / unit;
	snprintf(row->measured_how, sizeof row->measured_how, "%s", lv->size.method);
}

/* Whether a measured value differs from a reported one: exactly, or by
 * more than `share` of the reported one where share > 0. */
static int value_differs(int64_t reported, int64_t measured, double share)
{
	return share > 0 ? !near((double)measured, (double)reported, share) : reported != measured;
}

static int lib_differs(const struct amp_compare_row *row, int64_t v, double share)
{
	for (int i = 0; i < AMP_LIBVIEWS; i++)
		if (row->has_lib[i] && value_differs(row->lib[i], v, share))
			return 1;
	return 0;
}

/* Whether v differs from any reported value (sysfs, CPUID, a library). */
static int reported_differs(const struct amp_compare_row *row, int64_t v, double share)
{
	return (row->has_sysfs && value_differs(row->sysfs, v, share)) ||
	       (row->has_cpuid && value_differs(row->cpuid, v, share)) || lib_differs(row, v, share);
}

/* A first level's effective size (a timed curve's edge, with no level
 * above to add to it) within this share of every reported size agrees:
 * the searches behind it agree to 3% (mod_icache.c).  The Zen 3 guest's
 * L1i read 32.38 KiB for 32 KiB and counted as a disagreement. */
#define FIRST_LEVEL_EFFECTIVE_NEAR 0.03

/* The share a row's measured value may differ by and still agree. */
static double agree_share(const struct amp_compare_row *row, const struct amp_level *lv)
{
	return lv && lv->level == 1 && strcmp(row->param, "size") == 0 && strstr(row->measured_how, "effective")
		       ? FIRST_LEVEL_EFFECTIVE_NEAR
		       : 0;
}

static void verdict(struct amp_compare_row *row, double share)
{
	int has_lib = 0;

	for (int i = 0; i < AMP_LIBVIEWS; i++)
		has_lib |= row->has_lib[i];
	if (!row->has_sysfs && !row->has_cpuid && !has_lib) {
		row->verdict = AMP_NOT_REPORTED;
		return;
	}
	if (!row->has_measured) {
		row->verdict = AMP_NOT_MEASURED;
		return;
	}
	row->verdict = reported_differs(row, row->measured, share) ? AMP_DIFFER : AMP_AGREE;
}

static struct amp_compare_row *new_row(struct amp_compare *t, const char *level, const char *param)
{
	struct amp_compare_row *row;

	if (t->n >= AMP_COMPARE_MAX)
		return NULL;
	row = &t->row[t->n++];
	memset(row, 0, sizeof *row);
	snprintf(row->level, sizeof row->level, "%s", level);
	row->param = param;
	return row;
}

void amp_compare_build(const struct amp_report *r, const struct amp_vendor *v, struct amp_compare *t)
{
	static const char *const params[] = { "size", "line", "ways" };

	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < sizeof cache_levels / sizeof cache_levels[0]; i++) {
		const struct amp_reported_cache *s = find_reported(r->reported, r->nreported, cache_levels[i].level,
								   cache_levels[i].insn);
		const struct amp_reported_cache *c = v ? find_reported(v->cache, v->ncache, cache_levels[i].level,
								       cache_levels[i].insn) : NULL;
		const struct amp_level *lv = find_measured(r, cache_levels[i].name);
		const struct amp_reported_cache *lib[AMP_LIBVIEWS] = { NULL };
		int any_lib = 0;

		for (int j = 0; r->libviews && j < AMP_LIBVIEWS; j++) {
			lib[j] = find_reported(r->libviews[j].cache, r->libviews[j].ncache, cache_levels[i].level,
					       cache_levels[i].insn);
			any_lib |= lib[j] != NULL;
		}
		if (!s && !c && !any_lib && (!lv || !lv->measurable))
			continue;
		for (int k = 0; k < 3; k++) {
			struct amp_compare_row *row = new_row(t, cache_levels[i].name, params[k]);

			if (!row)
				return;
			if (s && !(k == 2 && s->ways_unknown)) {
				row->has_sysfs = 1;
				row->sysfs = reported_value(s, params[k]);
			}
			if (c && !(k == 2 && c->ways_unknown)) {
				row->has_cpuid = 1;
				row->cpuid = reported_value(c, params[k]);
			}
			/* A library's 0 ways is "unknown" (PAPI's -1), not fully
			 * associative. */
			for (int j = 0; j < AMP_LIBVIEWS; j++)
				if (lib[j] && (k != 2 || lib[j]->ways)) {
					row->has_lib[j] = 1;
					row->lib[j] = reported_value(lib[j], params[k]);
				}
			if (!lv || !lv->measurable) {
				snprintf(row->measured_how, sizeof row->measured_how, "-");
				snprintf(row->why, sizeof row->why, "%s", lv ? lv->nc_reason : "amp found no such level");
			} else if (k == 0) {
				set_measured(row, &lv->size, &lv->effective_size);
			} else if (k == 1) {
				set_measured(row, &lv->line, NULL);
			} else {
				set_measured_ways(row, lv, lv->line.known ? lv->line.value : 0);
			}
			verdict(row, agree_share(row, lv));
			if (row->verdict == AMP_AGREE && reported_differs(row, row->measured, 0))
				snprintf(row->why, sizeof row->why,
					 "effective size within %.0f%% of the reported one: the resolution of its search",
					 100 * FIRST_LEVEL_EFFECTIVE_NEAR);
			if (row->verdict == AMP_DIFFER) {
				t->ndiffer++;
				explain_cache(r, v, lv, row, s ? s : c, row->why, sizeof row->why);
			}
			if ((row->has_sysfs || row->has_cpuid) &&
			    lib_differs(row, row->has_sysfs ? row->sysfs : row->cpuid, 0)) {
				size_t used = strlen(row->why);

				snprintf(row->why + used, sizeof row->why - used, "%s%s", used ? "; " : "",
					 "a library's view differs from the system's: PAPI and hwloc read CPUID and sysfs their own way");
			}
			if (row->has_sysfs && row->has_cpuid && row->sysfs != row->cpuid) {
				size_t used = strlen(row->why);

				snprintf(row->why + used, sizeof row->why - used, "%s%s", used ? "; " : "",
					 "sysfs and CPUID disagree: a hypervisor rewrites CPUID, or the kernel took sysfs from firmware tables");
			}
		}
	}
	for (size_t i = 0; i < sizeof tlb_levels / sizeof tlb_levels[0]; i++) {
		const struct amp_reported_tlb *tl = find_tlb(v, tlb_levels[i]);
		const struct amp_level *lv = find_measured(r, tlb_levels[i]);

		if (!tl && (!lv || !lv->measurable))
			continue;
		for (int k = 0; k < 3; k++) {
			struct amp_compare_row *row = new_row(t, tlb_levels[i], tlb_params[k]);

			if (!row)
				return;
			if (tl) {
				row->has_cpuid = 1;
				row->cpuid = reported_tlb_value(tl, tlb_params[k]);
			}
			if (!lv || !lv->measurable) {
				snprintf(row->measured_how, sizeof row->measured_how, "-");
				snprintf(row->why, sizeof row->why, "%s", lv ? lv->nc_reason : "amp found no such level");
			} else if (k < 2) {
				set_measured(row, k == 0 ? &lv->size : &lv->line, NULL);
			} else {
				set_measured_ways(row, lv, 1); /* a TLB's size is its entries */
			}
			verdict(row, 0);
			if (row->verdict != AMP_DIFFER)
				continue;
			t->ndiffer++;
			if (k == 0 && lv->method == AMP_METHOD_TIMING)
				snprintf(row->why, sizeof row->why,
					 "by timing, entries are the reach where the walk's cost rises: a level below "
					 "(or a page-walk cache) blurs the step");
			else if (k == 2 && tl && !tl->ways && lv->fully_associative)
				snprintf(row->why, sizeof row->why,
					 "fully associative in both: its ways are its entries, and those differ");
		}
	}
}

static const char *value_cell(int has, int64_t v, int size, char *buf, size_t len)
{
	if (!has)
		snprintf(buf, len, "-");
	else if (size)
		amp_fmt_size((uint64_t)v, buf, len);
	else
		snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

void amp_compare_text(const struct amp_report *r, const struct amp_vendor *v,
		      const struct amp_compare *t, FILE *out)
{
	char a[32], b[32], c[32], l[AMP_LIBVIEWS][32];

	fprintf(out, "\nMeasured against reported (reported: %s%s; CPUID: ",
		r->nreported ? "" : "no ", r->nreported ? r->reported_source : "sysfs");
	if (v && !v->missing[0])
		fprintf(out, "%s, %s family 0x%x model 0x%x)\n", v->cpuid_source, v->vendor, v->family, v->model);
	else
		fprintf(out, "none: %s)\n", v ? v->missing : "not read on a simulated machine");
	for (int j = 0; r->libviews && j < AMP_LIBVIEWS; j++)
		fprintf(out, "  %s: %s\n", r->libviews[j].name,
			r->libviews[j].missing[0] ? r->libviews[j].missing : r->libviews[j].source);
	fprintf(out, "  %-5s %-8s %10s %10s %10s %10s %10s  %-17s %s\n", "level", "param", "reported", "CPUID",
		"papi", "hwloc", "measured", "measured how", "verdict");
	for (int i = 0; i < t->n; i++) {
		const struct amp_compare_row *row = &t->row[i];
		int size = strcmp(row->param, "size") == 0 || strcmp(row->param, "line") == 0 ||
			   strcmp(row->param, "page") == 0;

		fprintf(out, "  %-5s %-8s %10s %10s %10s %10s %10s  %-17s %s\n", row->level, row->param,
			value_cell(row->has_sysfs, row->sysfs, size, a, sizeof a),
			value_cell(row->has_cpuid, row->cpuid, size, b, sizeof b),
			value_cell(row->has_lib[0], row->lib[0], size, l[0], sizeof l[0]),
			value_cell(row->has_lib[1], row->lib[1], size, l[1], sizeof l[1]),
			value_cell(row->has_measured, row->measured, size, c, sizeof c), row->measured_how,
			amp_verdict_names[row->verdict]);
		if (row->why[0] && row->verdict != AMP_NOT_MEASURED)
			fprintf(out, "        why: %s\n", row->why);
	}
	for (int i = 0; v && i < v->nnotes; i++)
		fprintf(out, "  CPUID: %s\n", v->notes[i]);
	fprintf(out, "  %d disagreement%s between measured and reported\n", t->ndiffer, t->ndiffer == 1 ? "" : "s");
}

static void json_value(FILE *out, const char *key, int has, int64_t v, const char *sep)
{
	if (has)
		fprintf(out, "\"%s\": %lld%s", key, (long long)v, sep);
	else
		fprintf(out, "\"%s\": null%s", key, sep);
}

void amp_compare_json(const struct amp_vendor *v, const struct amp_compare *t, FILE *out)
{
	amp_compare_json_libs(v, t, NULL, out);
}

void amp_compare_json_libs(const struct amp_vendor *v, const struct amp_compare *t, const struct amp_libview *libs,
			   FILE *out)
{
	fputs("  \"comparison\": {", out);
	for (int j = 0; j < AMP_LIBVIEWS; j++) {
		const char *name = j ? "hwloc" : "papi";

		/* Each library's source, or why there is none. */
		if (libs && !libs[j].missing[0]) {
			fprintf(out, "\"%s\": ", name);
			amp_json_string(out, libs[j].source);
			fprintf(out, ", \"%s_reason\": null, ", name);
		} else {
			fprintf(out, "\"%s\": null, \"%s_reason\": ", name, name);
			amp_json_string(out, libs ? libs[j].missing : "not read");
			fputs(", ", out);
		}
	}
	fputs("\"cpuid\": ", out);
	if (!v || v->missing[0]) {
		fputs("null, \"cpuid_reason\": ", out);
		amp_json_string(out, v ? v->missing : "not read on a simulated machine");
	} else {
		fputs("{\"source\": ", out);
		amp_json_string(out, v->cpuid_source);
		fputs(", \"vendor\": ", out);
		amp_json_string(out, v->vendor);
		fprintf(out, ", \"family\": %u, \"model\": %u, \"hypervisor\": %s, \"prefetch_bytes\": %u,\n    \"caches\": [",
			v->family, v->model, v->hypervisor ? "true" : "false", v->prefetch_bytes);
		for (int i = 0; i < v->ncache; i++) {
			const struct amp_reported_cache *c = &v->cache[i];

			fprintf(out, "%s{\"level\": %d, \"type\": \"%s\", \"size\": %llu, \"line_size\": %llu, ",
				i ? ", " : "", c->level, c->type, (unsigned long long)c->size,
				(unsigned long long)c->line);
			if (c->ways_unknown)
				fputs("\"associativity\": null", out);
			else
				fprintf(out, "\"associativity\": %u", c->ways);
			fprintf(out, ", \"sets\": %u}", c->sets);
		}
		fputs("],\n    \"tlbs\": [", out);
		for (int i = 0; i < v->ntlb; i++) {
			const struct amp_reported_tlb *tl = &v->tlb[i];

			fprintf(out, "%s{\"name\": \"%s\", \"page_size\": %llu, \"pages\": \"%s\", \"entries\": %u, "
				"\"associativity\": %u, \"leaf\": \"%s\"}", i ? ", " : "", tl->name,
				(unsigned long long)tl->page, tl->pages, tl->entries, tl->ways, tl->leaf);
		}
		fputs("],\n    \"notes\": [", out);
		for (int i = 0; i < v->nnotes; i++) {
			fputs(i ? ", " : "", out);
			amp_json_string(out, v->notes[i]);
		}
		fputs("]}", out);
	}
	fprintf(out, ",\n    \"disagreements\": %d, \"rows\": [", t->ndiffer);
	for (int i = 0; i < t->n; i++) {
		const struct amp_compare_row *row = &t->row[i];

		fprintf(out, "%s\n      {\"level\": \"%s\", \"parameter\": \"%s\", ", i ? "," : "", row->level,
			row->param);
		json_value(out, "reported", row->has_sysfs, row->sysfs, ", ");
		json_value(out, "cpuid", row->has_cpuid, row->cpuid, ", ");
		json_value(out, "papi", row->has_lib[0], row->lib[0], ", ");
		json_value(out, "hwloc", row->has_lib[1], row->lib[1], ", ");
		json_value(out, "measured", row->has_measured, row->measured, ", ");
		fputs("\"method\": ", out);
		amp_json_string(out, row->measured_how);
		fprintf(out, ", \"verdict\": \"%s\", \"why\": ",
			row->verdict == AMP_DIFFER ? "differ" : amp_verdict_names[row->verdict]);
		if (row->why[0])
			amp_json_string(out, row->why);
		else
			fputs("null", out);
		fputs("}", out);
	}
	fputs(t->n ? "\n    ]},\n" : "]},\n", out);
}
