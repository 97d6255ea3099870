/* tap.h - the few TAP helpers amp's unit tests need.  Each check prints
 * "ok N - what" or "not ok N - what"; tap_done() prints the plan and
 * returns the exit status. */
#ifndef AMP_TAP_H
#define AMP_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

/* Integer equality with both values in the message on failure. */
#define tap_eq(got, want, ...) do { \
	long long tap_g_ = (long long)(got), tap_w_ = (long long)(want); \
	if (!tap_ok(tap_g_ == tap_w_, __VA_ARGS__)) \
		printf("#   got %lld, want %lld (%s:%d)\n", tap_g_, tap_w_, __FILE__, __LINE__); \
} while (0)

/* String contains. */
#define tap_has(hay, needle, ...) do { \
	const char *tap_h_ = (hay), *tap_nd_ = (needle); \
	if (!tap_ok(tap_h_ && strstr(tap_h_, tap_nd_) != NULL, __VA_ARGS__)) \
		printf("#   \"%s\" does not contain \"%s\" (%s:%d)\n", tap_h_ ? tap_h_ : "(null)", tap_nd_, __FILE__, __LINE__); \
} while (0)

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* How many seeds a loop of n seeded runs takes: n, or fewer where
 * AMP_TEST_SEEDS says so (CI's sanitizer stage, where every run costs
 * three times as much: the first seeds still take every code path). */
static inline unsigned tap_seeds(unsigned n)
{
	const char *env = getenv("AMP_TEST_SEEDS");
	long want = env ? atol(env) : 0;

	return want >= 1 && (unsigned long)want < n ? (unsigned)want : n;
}

/* Whether the next case may start: always, unless AMP_TEST_ONLY is set
 * and the case's text does not hold it (one case while working on it),
 * or AMP_TEST_BUDGET is set (CI's sanitizer stage) and this program has
 * used that many seconds of CPU time already; then the case is skipped
 * and the skip says why.  CPU time, not wall time: make check -j2 runs
 * two programs side by side.  A case that has started runs to its end. */
__attribute__((format(printf, 1, 2))) static inline int tap_in_budget(const char *fmt, ...)
{
	const char *env = getenv("AMP_TEST_BUDGET"), *only = getenv("AMP_TEST_ONLY");
	double budget = env ? atof(env) : 0, used;
	struct timespec t;
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (only && *only && !strstr(what, only)) {
		tap_ok(1, "%s # SKIP not AMP_TEST_ONLY=%s", what, only);
		return 0;
	}
	if (budget <= 0 || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0)
		return 1;
	used = (double)t.tv_sec + (double)t.tv_nsec / 1e9;
	if (used < budget)
		return 1;
	tap_ok(1, "%s # SKIP past AMP_TEST_BUDGET=%s s of CPU time (%.0f s used)", what, env, used);
	return 0;
}

/* tap_run(test_x(args)): the call, where the budget allows it. */
#define tap_run(call) do { if (tap_in_budget("%s", #call)) call; } while (0)

static inline void tap_skip_all(const char *reason)
{
	printf("1..0 # SKIP %s\n", reason);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
