/* test_options.c - the option table, the parser, --help. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "tap.h"

#define MAXARGS 8

static int parse(struct amp_config *cfg, char *err, size_t len, const char **args)
{
	char *argv[MAXARGS + 2];
	int argc = 0;

	argv[argc++] = (char *)"amp";
	for (int i = 0; args[i] && argc <= MAXARGS; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	return amp_parse_args(argc, argv, cfg, err, len);
}

static void test_table(void)
{
	char *help = NULL;
	size_t helplen = 0;
	FILE *f = open_memstream(&help, &helplen);
	int dup = 0, n = 0;

	amp_print_help(f);
	fclose(f);
	for (int i = 0; amp_options[i].name; i++, n++) {
		char want[80];

		for (int j = 0; j < i; j++)
			dup |= strcmp(amp_options[i].name, amp_options[j].name) == 0;
		snprintf(want, sizeof want, "--%s", amp_options[i].name);
		tap_has(help, want, "--help lists %s", want);
		tap_ok(amp_options[i].help && strlen(amp_options[i].help) > 10,
		       "%s has a help text", want);
	}
	tap_ok(!dup, "option names are unique");
	tap_ok(n >= 12, "the table has the foundation's options (%d)", n);
	tap_has(help, "Exit status", "--help documents exit statuses");
	free(help);
}

static void test_good(void)
{
	struct amp_config cfg;
	char err[256];

	tap_eq(parse(&cfg, err, sizeof err, (const char *[]){ NULL }), 0, "no options parse");
	tap_eq(cfg.action, AMP_ACT_RUN, "default action is a run");
	tap_eq(cfg.reps, 8, "default --reps is 8");
	tap_eq(cfg.seed, 1, "default --seed is 1");
	tap_eq(parse(&cfg, err, sizeof err, (const char *[]){ "--sim=pii-233", "--sim-noise=0.01",
		"--seed=42", "--sim-pages=random", "--json", "--reps", "3", "--max-size=1.5M", NULL }), 0,
	       "a full set of values parses");
	tap_ok(cfg.sim && strcmp(cfg.sim, "pii-233") == 0, "--sim kept");
	tap_ok(cfg.sim_noise > 0.0099 && cfg.sim_noise < 0.0101, "--sim-noise=0.01");
	tap_eq(cfg.seed, 42, "--seed=42");
	tap_eq(cfg.pages_random, 1, "--sim-pages=random");
	tap_eq(cfg.json, 1, "--json");
	tap_eq(cfg.reps, 3, "--reps 3 (separate argument)");
	tap_eq(cfg.max_size, 1572864, "--max-size=1.5M");
	tap_eq(parse(&cfg, err, sizeof err, (const char *[]){ "-h", NULL }), 0, "-h parses");
	tap_eq(cfg.action, AMP_ACT_HELP, "-h asks for help");
	tap_eq(parse(&cfg, err, sizeof err, (const char *[]){ "-V", NULL }), 0, "-V parses");
	tap_eq(cfg.action, AMP_ACT_VERSION, "-V asks for the version");
	tap_eq(parse(&cfg, err, sizeof err, (const char *[]){ "--list-events", "--backend=sim", NULL }), 0,
	       "--list-events --backend=sim needs no --sim");
	tap_eq(parse(&cfg, err, sizeof err, (const char *[]){ "--backend=timer", NULL }), 0, "--backend=timer");
}

static const struct bad_row {
	const char *args[4];
	const char *msg;
	int line;
} bad_rows[] = {
	{ { "--nosuch" }, "unknown option '--nosuch'", __LINE__ },
	{ { "-x" }, "unknown option '-x'", __LINE__ },
	{ { "--sim" }, "needs a value", __LINE__ },
	{ { "--sim=" }, "--sim", __LINE__ },
	{ { "--reps=0" }, "--reps", __LINE__ },
	{ { "--reps=" }, "--reps", __LINE__ },
	{ { "--reps=abc" }, "--reps", __LINE__ },
	{ { "--reps=-3" }, "--reps", __LINE__ },
	{ { "--reps=99999999999999999999" }, "--reps", __LINE__ },
	{ { "--seed=-1" }, "--seed", __LINE__ },
	{ { "--seed=1x" }, "--seed", __LINE__ },
	{ { "--sim=a", "--sim-noise=1" }, "--sim-noise", __LINE__ },
	{ { "--sim=a", "--sim-noise=-0.1" }, "--sim-noise", __LINE__ },
	{ { "--sim=a", "--sim-noise=nan" }, "--sim-noise", __LINE__ },
	{ { "--sim=a", "--sim-noise=" }, "--sim-noise", __LINE__ },
	{ { "--sim=a", "--sim-pages=scattered" }, "--sim-pages", __LINE__ },
	{ { "--max-size=1K" }, "--max-size", __LINE__ },
	{ { "--max-size=12Q" }, "--max-size", __LINE__ },
	{ { "--max-size=2T" }, "--max-size", __LINE__ },
	{ { "--backend=foo" }, "--backend", __LINE__ },
	{ { "--backend=" }, "--backend", __LINE__ },
	{ { "extra" }, "unexpected argument 'extra'", __LINE__ },
	{ { "--sim-noise=0.1" }, "needs --sim", __LINE__ },
	{ { "--sim-pages=random" }, "needs --sim", __LINE__ },
	{ { "--sim=pii-233", "--backend=perf" }, "cannot count it", __LINE__ },
	{ { "--backend=sim" }, "--backend=sim needs --sim", __LINE__ },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof bad_rows / sizeof bad_rows[0]; i++) {
		const struct bad_row *row = &bad_rows[i];
		const char *args[5] = { row->args[0], row->args[1], row->args[2], row->args[3], NULL };
		struct amp_config cfg;
		char err[256] = "";
		int rc = parse(&cfg, err, sizeof err, args);

		tap_ok(rc == -1 && strstr(err, row->msg) && !strchr(err, '\n'),
		       "line %d: %s %s is refused in one line", row->line, row->args[0],
		       row->args[1] ? row->args[1] : "");
		if (rc != -1 || !strstr(err, row->msg))
			tap_diag("rc %d, message '%s', want '%s'", rc, err, row->msg);
	}
}

int main(void)
{
	test_table();
	test_good();
	test_bad();
	return tap_done();
}
