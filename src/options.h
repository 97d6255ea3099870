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
};

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
