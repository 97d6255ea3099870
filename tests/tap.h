/* tap.h - the few TAP helpers amp's unit tests need.  Each check prints
 * "ok N - what" or "not ok N - what"; tap_done() prints the plan and
 * returns the exit status. */
#ifndef AMP_TAP_H
#define AMP_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
