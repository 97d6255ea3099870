/* output.c - what a run leaves: the comparison of measured against
 * reported, then each format asked for (text, json, csv, header) on
 * stdout or, with --output=BASE, in BASE.txt, BASE.json, BASE.csv,
 * BASE.h; then --curves and --cache. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amp.h"
#include "output.h"
#include "util.h"
#include "progress.h"
#include "vendor.h"

static void emit(unsigned format, const struct amp_report *r, FILE *out)
{
	if (format == AMP_FMT_JSON)
		amp_emit_json(r, out);
	else if (format == AMP_FMT_CSV)
		amp_emit_csv(r, out);
	else if (format == AMP_FMT_HEADER)
		amp_emit_header(r, out);
	else
		amp_emit_text(r, out);
}

int amp_output(const struct amp_config *cfg, struct amp_report *r, int status)
{
	static struct amp_vendor vendor;
	static struct amp_compare table;
	static struct amp_libview libs[AMP_LIBVIEWS];
	unsigned formats = cfg->formats ? cfg->formats : cfg->cache ? AMP_FMT_JSON : AMP_FMT_TEXT;
	char err[AMP_REASON_LEN + 1100];

	/* CPUID of this machine; on a simulated one only from a dump. */
	if (!r->sim_spec[0] || getenv("AMP_CPUID_DUMP")) {
		amp_vendor_cpuid(&vendor);
		r->vendor = &vendor;
	}
	/* PAPI's and hwloc's views of this machine (hwloc's also from a
	 * saved topology); on a simulated machine they would describe
	 * another one. */
	amp_vendor_papi(&libs[0]);
	amp_vendor_hwloc(&libs[1]);
	if (r->sim_spec[0]) {
		if (!libs[0].missing[0] || strncmp(libs[0].missing, "not built", 9) != 0)
			snprintf(libs[0].missing, sizeof libs[0].missing, "not read on a simulated machine");
		if (!getenv("AMP_HWLOC_XML") && (!libs[1].missing[0] || strncmp(libs[1].missing, "not built", 9) != 0))
			snprintf(libs[1].missing, sizeof libs[1].missing, "not read on a simulated machine");
		for (int i = 0; i < AMP_LIBVIEWS; i++)
			if (libs[i].missing[0])
				libs[i].ncache = 0;
	}
	r->libviews = libs;
	amp_compare_build(r, r->vendor, &table);
	r->compare = &table;

	if (cfg->compare) {
		amp_compare_text(r, r->vendor, &table, stdout);
	} else {
		for (unsigned bit = 0; bit < 4; bit++) {
			unsigned f = 1u << bit;
			char path[1024];
			FILE *out;

			if (!(formats & f))
				continue;
			if (!cfg->output) {
				emit(f, r, stdout);
				continue;
			}
			snprintf(path, sizeof path, "%s.%s", cfg->output, amp_format_suffixes[bit]);
			out = fopen(path, "w");
			if (!out) {
				fprintf(stderr, "amp: --output: cannot write %s: %s\n", path, strerror(errno));
				return AMP_EXIT_RESOURCE;
			}
			emit(f, r, out);
			if (fclose(out) != 0) {
				fprintf(stderr, "amp: --output: cannot write %s: %s\n", path, strerror(errno));
				return AMP_EXIT_RESOURCE;
			}
		}
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "amp: cannot write the report: %s\n", strerror(errno));
		return AMP_EXIT_RESOURCE;
	}
	if (cfg->curves && amp_curves_write(cfg->curves, r, err, sizeof err) < 0) {
		fprintf(stderr, "amp: %s\n", err);
		return AMP_EXIT_RESOURCE;
	}
	return status;
}
