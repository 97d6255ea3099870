/* options.c - the option table, the parser and --help. */
#include "config.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure.h"
#include "options.h"
#include "util.h"

#define DEFAULT_REPS 8
#define MAX_REPS 1000000
#define DEFAULT_VOTES 8
#define MAX_VOTES 64

/* The one table: getopt_long's options and --help both come from it. */
const struct amp_option amp_options[] = {
	{ "help", 'h', NULL, "show this help and exit" },
	{ "version", 'V', NULL, "show the version and exit" },
	{ "list-backends", 0, NULL, "list counter backends, whether each is usable here and why not" },
	{ "list-events", 0, NULL, "list the uniform events and what each maps to under each backend" },
	{ "list-presets", 0, NULL, "list the simulated machines --sim knows by name" },
	{ "backend", 0, "NAME", "use this backend: perf, papi, timer or sim (default: best usable)" },
	{ "sim", 0, "SPEC", "measure a simulated machine: a preset name or an element list (see amp(1))" },
	{ "sim-noise", 0, "P", "simulated interference: probability 0 <= P < 1 per access (default 0)" },
	{ "sim-sibling", 0, "Q", "simulated busy SMT sibling: probability 0 <= Q < 1 per access that it fills a line of L1d and L2 (default 0)" },
	{ "seed", 0, "N", "seed for random orders, random replacement and noise (default 1)" },
	{ "sim-pages", 0, "MODE", "simulated page frames: contiguous (default) or random" },
	{ "counters", 0, NULL, "characterise caches and TLBs with miss counters; fail (status 3) if none" },
	{ "timing", 0, NULL, "measure by timing (X-Ray, BlackjackBench) even where miss counters are usable" },
	{ "cross-check", 0, NULL, "measure with counters and by timing; report every parameter they disagree on" },
	{ "cpu", 0, NULL, "also characterise the cores: frequency, instruction latencies, registers, contexts, time slot, locality, bandwidth" },
	{ "verbose", 'v', NULL, "print each phase's wall time on standard error" },
	{ "level", 0, "NAME", "characterise only this level and the levels above it: L1d L1i L2 L3 L4 DTLB ITLB STLB ITLB2" },
	{ "votes", 0, "N", "votes per parameter; the most common answer wins (default 8)" },
	{ "json", 0, NULL, "write the report as JSON (format_version 1) instead of text" },
	{ "reps", 0, "N", "repetitions per measurement; the minimum is kept (default 8)" },
	{ "max-size", 0, "BYTES", "largest working set of the latency sweep (default 64M; K/M/G suffixes)" },
	{ "max-memory", 0, "BYTES", "most memory amp may touch (default a quarter of the machine's, 64M to 1G)" },
	{ "format", 0, "LIST", "output formats, comma-separated: text, json, csv, header (default text)" },
	{ "output", 'o', "BASE", "write each format to BASE.txt, BASE.json, BASE.csv, BASE.h instead of stdout" },
	{ "compare", 0, NULL, "print only the table of measured against reported (sysfs, CPUID) values" },
	{ "curves", 0, "DIR", "write each experiment's raw curve to DIR as CSV and as an SVG chart" },
	{ "quiet", 'q', NULL, "no progress line on standard error" },
	{ "explain", 0, NULL, "narrate each experiment as it runs: hypothesis, accesses, counts, votes" },
	{ "cache", 0, NULL, "reuse the JSON report kept in $XDG_CACHE_HOME/amp for this CPU and kernel" },
	{ "refresh", 0, NULL, "with --cache: measure again and replace the kept report" },
	{ NULL, 0, NULL, NULL },
};

const char *const amp_format_names[4] = { "text", "json", "csv", "header" };
const char *const amp_format_suffixes[4] = { "txt", "json", "csv", "h" };

/* "json,header" into AMP_FMT_* bits; 0 on a bad name. */
static unsigned parse_formats(const char *list)
{
	unsigned bits = 0;

	while (*list) {
		size_t n = strcspn(list, ",");
		int found = 0;

		for (int i = 0; i < 4; i++)
			if (strlen(amp_format_names[i]) == n && strncmp(list, amp_format_names[i], n) == 0) {
				bits |= 1u << i;
				found = 1;
			}
		if (!found)
			return 0;
		list += n;
		if (*list == ',' && *++list == '\0')
			return 0;
	}
	return bits;
}

static int option_index(const char *name)
{
	for (int i = 0; amp_options[i].name; i++)
		if (strcmp(amp_options[i].name, name) == 0)
			return i;
	return -1;
}

/* getopt_long's value for table row i: its short letter, or 256 + i. */
static int option_val(int i)
{
	return amp_options[i].short_name ? amp_options[i].short_name : 256 + i;
}

/* The table row getopt_long's value val stands for, or -1. */
static int option_of_val(int val)
{
	for (int i = 0; amp_options[i].name; i++)
		if (option_val(i) == val)
			return i;
	return -1;
}

static int is(int val, const char *name)
{
	int i = option_index(name);

	return i >= 0 && val == option_val(i);
}

static int bad_value(char *err, size_t len, const char *opt, const char *value, const char *want)
{
	snprintf(err, len, "option '--%s': invalid value '%s' (%s)", opt, value, want);
	return -1;
}

int amp_parse_args(int argc, char **argv, struct amp_config *cfg, char *err, size_t len)
{
	struct option longopts[64];
	char shortopts[64];
	int n = 0, s = 0, c;

	memset(cfg, 0, sizeof *cfg);
	cfg->action = AMP_ACT_RUN;
	cfg->seed = 1;
	cfg->reps = DEFAULT_REPS;
	cfg->votes = DEFAULT_VOTES;
	shortopts[s++] = ':'; /* report a missing argument as ':' */
	for (int i = 0; amp_options[i].name && n < 63; i++, n++) {
		longopts[n].name = amp_options[i].name;
		longopts[n].has_arg = amp_options[i].arg ? required_argument : no_argument;
		longopts[n].flag = NULL;
		longopts[n].val = option_val(i);
		if (amp_options[i].short_name) {
			shortopts[s++] = (char)amp_options[i].short_name;
			if (amp_options[i].arg)
				shortopts[s++] = ':';
		}
	}
	memset(&longopts[n], 0, sizeof longopts[n]);
	shortopts[s] = '\0';

	opterr = 0;
	optind = 0; /* 0, not 1: GNU getopt forgets a half-read "-vh" of an earlier call */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		uint64_t u;

		if (c == '?') {
			/* A known option reported here was given a value it
			 * does not take ("--json=1"). */
			int known = optopt ? option_of_val(optopt) : -1;

			if (known >= 0 && !amp_options[known].arg)
				snprintf(err, len, "option '--%s' takes no value (see amp --help)",
					 amp_options[known].name);
			else if (optopt && optopt < 256)
				snprintf(err, len, "unknown option '-%c' (see amp --help)", optopt);
			else
				snprintf(err, len, "unknown option '%s' (see amp --help)", argv[optind - 1]);
			return -1;
		}
		if (c == ':') {
			snprintf(err, len, "option '%s' needs a value (see amp --help)", argv[optind - 1]);
			return -1;
		}
		if (c == 'h') {
			cfg->action = AMP_ACT_HELP;
		} else if (c == 'V') {
			cfg->action = AMP_ACT_VERSION;
		} else if (is(c, "list-backends")) {
			cfg->action = AMP_ACT_LIST_BACKENDS;
		} else if (is(c, "list-events")) {
			cfg->action = AMP_ACT_LIST_EVENTS;
		} else if (is(c, "list-presets")) {
			cfg->action = AMP_ACT_LIST_PRESETS;
		} else if (is(c, "backend")) {
			if (strcmp(optarg, "perf") && strcmp(optarg, "papi") &&
			    strcmp(optarg, "timer") && strcmp(optarg, "sim"))
				return bad_value(err, len, "backend", optarg, "expected perf, papi, timer or sim");
			cfg->backend = optarg;
		} else if (is(c, "sim")) {
			if (!*optarg)
				return bad_value(err, len, "sim", optarg, "expected a preset name or an element list");
			cfg->sim = optarg;
		} else if (is(c, "sim-noise")) {
			if (amp_parse_double(optarg, 0.0, 1.0, &cfg->sim_noise) < 0)
				return bad_value(err, len, "sim-noise", optarg, "expected a probability 0 <= P < 1");
			cfg->sim_noise_given = 1;
		} else if (is(c, "sim-sibling")) {
			if (amp_parse_double(optarg, 0.0, 1.0, &cfg->sim_sibling) < 0)
				return bad_value(err, len, "sim-sibling", optarg, "expected a probability 0 <= Q < 1");
			cfg->sim_sibling_given = 1;
		} else if (is(c, "seed")) {
			if (amp_parse_uint(optarg, 0, UINT64_MAX, &cfg->seed) < 0)
				return bad_value(err, len, "seed", optarg, "expected a non-negative integer");
		} else if (is(c, "sim-pages")) {
			if (strcmp(optarg, "contiguous") == 0)
				cfg->pages_random = 0;
			else if (strcmp(optarg, "random") == 0)
				cfg->pages_random = 1;
			else
				return bad_value(err, len, "sim-pages", optarg, "expected contiguous or random");
			cfg->pages_given = 1;
		} else if (is(c, "counters")) {
			cfg->counters = 1;
		} else if (is(c, "timing")) {
			cfg->timing = 1;
		} else if (is(c, "cross-check")) {
			cfg->cross_check = 1;
		} else if (is(c, "cpu")) {
			cfg->cpu = 1;
		} else if (is(c, "verbose")) {
			cfg->verbose = 1;
		} else if (is(c, "level")) {
			if (!amp_level_name_valid(optarg))
				return bad_value(err, len, "level", optarg,
						 "expected L1d, L1i, L2, L3, L4, DTLB, ITLB, STLB or ITLB2");
			cfg->level = optarg;
		} else if (is(c, "votes")) {
			if (amp_parse_uint(optarg, 1, MAX_VOTES, &u) < 0)
				return bad_value(err, len, "votes", optarg, "expected an integer from 1 to 64");
			cfg->votes = (unsigned)u;
		} else if (is(c, "json")) {
			cfg->json = 1;
			cfg->formats |= AMP_FMT_JSON;
		} else if (is(c, "format")) {
			unsigned f = parse_formats(optarg);

			if (!f)
				return bad_value(err, len, "format", optarg,
						 "expected text, json, csv or header, or a comma list of them");
			cfg->formats |= f;
			cfg->json = (cfg->formats & AMP_FMT_JSON) != 0;
		} else if (is(c, "output")) {
			if (!*optarg)
				return bad_value(err, len, "output", optarg, "expected a file name without suffix");
			cfg->output = optarg;
		} else if (is(c, "compare")) {
			cfg->compare = 1;
		} else if (is(c, "curves")) {
			if (!*optarg)
				return bad_value(err, len, "curves", optarg, "expected a directory");
			cfg->curves = optarg;
		} else if (c == 'q') {
			cfg->quiet = 1;
		} else if (is(c, "explain")) {
			cfg->explain = 1;
		} else if (is(c, "cache")) {
			cfg->cache = 1;
		} else if (is(c, "refresh")) {
			cfg->refresh = 1;
		} else if (is(c, "reps")) {
			if (amp_parse_uint(optarg, 1, MAX_REPS, &u) < 0)
				return bad_value(err, len, "reps", optarg, "expected an integer from 1 to 1000000");
			cfg->reps = (unsigned)u;
		} else if (is(c, "max-size")) {
			if (amp_parse_size(optarg, &cfg->max_size) < 0 || cfg->max_size < 4096 ||
			    cfg->max_size > (1ULL << 40))
				return bad_value(err, len, "max-size", optarg, "expected a size from 4K to 1T, e.g. 64M");
		} else if (is(c, "max-memory")) {
			if (amp_parse_size(optarg, &cfg->max_memory) < 0 || cfg->max_memory < (16ULL << 20) ||
			    cfg->max_memory > (1ULL << 40))
				return bad_value(err, len, "max-memory", optarg, "expected a size from 16M to 1T, e.g. 512M");
		}
	}
	if (optind < argc) {
		snprintf(err, len, "unexpected argument '%s' (see amp --help)", argv[optind]);
		return -1;
	}
	if (cfg->max_memory && cfg->max_size > cfg->max_memory) {
		snprintf(err, len, "--max-size is larger than --max-memory");
		return -1;
	}
	if (cfg->counters + cfg->timing + cfg->cross_check > 1) {
		snprintf(err, len, "--counters, --timing and --cross-check exclude each other");
		return -1;
	}
	if (cfg->formats & (cfg->formats - 1) && !cfg->output) {
		snprintf(err, len, "several formats need --output=BASE (one file per format)");
		return -1;
	}
	if (cfg->compare && cfg->formats & ~(unsigned)AMP_FMT_TEXT) {
		snprintf(err, len, "--compare prints a text table; the JSON has it as \"comparison\"");
		return -1;
	}
	if (cfg->refresh && !cfg->cache) {
		snprintf(err, len, "--refresh needs --cache");
		return -1;
	}
	if (!cfg->sim && (cfg->sim_noise_given || cfg->sim_sibling_given || cfg->pages_given)) {
		snprintf(err, len, "%s needs --sim=SPEC", cfg->sim_noise_given ? "--sim-noise" :
			 cfg->sim_sibling_given ? "--sim-sibling" : "--sim-pages");
		return -1;
	}
	if (cfg->backend && cfg->sim && strcmp(cfg->backend, "sim") != 0) {
		snprintf(err, len, "--sim measures a simulated machine; --backend=%s cannot count it", cfg->backend);
		return -1;
	}
	if (cfg->backend && !cfg->sim && strcmp(cfg->backend, "sim") == 0 &&
	    (cfg->action == AMP_ACT_RUN)) {
		snprintf(err, len, "--backend=sim needs --sim=SPEC (see amp --list-presets)");
		return -1;
	}
	return 0;
}

void amp_print_help(FILE *out)
{
	fprintf(out, "Usage: amp [OPTION]...\n"
		"Measure this machine's memory hierarchy from user space: with hardware\n"
		"miss counters where there are some, by timing where there are none, or\n"
		"on a simulated machine (--sim).\n\nOptions:\n");
	for (int i = 0; amp_options[i].name; i++) {
		const struct amp_option *o = &amp_options[i];
		char left[64];

		if (o->short_name)
			snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name,
				 o->arg ? "=" : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof left, "    --%s%s%s", o->name, o->arg ? "=" : "",
				 o->arg ? o->arg : "");
		fprintf(out, "  %-24s %s\n", left, o->help);
	}
	fprintf(out, "\nExit status: 0 ok, 1 measurement failed or inconclusive, 2 usage error,\n"
		"3 a required resource is missing (e.g. an unusable --backend).\n"
		"See amp(1) for the --sim grammar, the presets and the JSON format.\n");
}
