/* options.h - amp's command line: one table gives getopt_long its
 * options and --help its text. */
#ifndef AMP_OPTIONS_H
#define AMP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum amp_action {
	AMP_ACT_RUN,
	AMP_ACT_HELP,
	AMP_ACT_VERSION,
	AMP_ACT_LIST_BACKENDS,
	AMP_ACT_LIST_EVENTS,
	AMP_ACT_LIST_PRESETS,
};

struct amp_config {
	enum amp_action action;
	const char *backend;     /* --backend, NULL: choose */
	const char *sim;         /* --sim SPEC */
	double sim_noise;
	int sim_noise_given;
	double sim_sibling;
	int sim_sibling_given;
	uint64_t seed;
	int pages_random, pages_given;
	int json;
	int counters;            /* --counters: miss counters required */
	int timing;              /* --timing: measure by timing even with counters */
	int cross_check;         /* --cross-check: counters and timing, compared */
	int cpu;                 /* --cpu: the CPU characterisation too */
	int verbose;             /* -v: per-phase wall times on stderr */
	const char *level;       /* --level NAME, NULL: every level */
	unsigned reps, votes;
	uint64_t max_size;       /* 0: default */
	uint64_t max_memory;     /* --max-memory, 0: default (memlimit.h) */
	unsigned formats;        /* --format: AMP_FMT_* bits; 0: text */
	const char *output;      /* --output BASE: one file per format */
	const char *curves;      /* --curves DIR: CSV and SVG per experiment */
	int compare;             /* --compare: only measured against reported */
	int quiet;               /* -q: no progress line */
	int explain;             /* --explain: narrate each experiment */
	int cache;               /* --cache: keep and reuse the JSON */
	int refresh;             /* --refresh: measure again, replace the cache */
};

/* Output formats (--format); several at once need --output. */
enum { AMP_FMT_TEXT = 1, AMP_FMT_JSON = 2, AMP_FMT_CSV = 4, AMP_FMT_HEADER = 8 };
extern const char *const amp_format_names[4];     /* by bit number */
extern const char *const amp_format_suffixes[4];  /* --output file suffix */

struct amp_option {
	const char *name;        /* long name */
	int short_name;          /* 0 when none */
	const char *arg;         /* argument's name, NULL when none */
	const char *help;
};
extern const struct amp_option amp_options[]; /* terminated by {NULL} */

/* Parses argv into cfg; 0, or -1 with one line (no newline) in err. */
int amp_parse_args(int argc, char **argv, struct amp_config *cfg, char *err, size_t len);
void amp_print_help(FILE *out);

#endif
