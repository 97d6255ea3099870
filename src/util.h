/* util.h - small helpers shared by amp's modules. */
#ifndef AMP_UTIL_H
#define AMP_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Exit statuses (documented in amp(1)). */
enum {
	AMP_EXIT_OK = 0,
	AMP_EXIT_FAILED = 1,    /* measurement failed or inconclusive */
	AMP_EXIT_USAGE = 2,     /* bad option or value */
	AMP_EXIT_RESOURCE = 3,  /* a required resource is missing */
};

/* splitmix64: small, seedable, good enough for access orders. */
struct amp_rng {
	uint64_t s;
};
void amp_rng_seed(struct amp_rng *r, uint64_t seed);
uint64_t amp_rng_next(struct amp_rng *r);
uint64_t amp_rng_below(struct amp_rng *r, uint64_t n); /* 0 <= x < n, n > 0 */
/* Fisher-Yates over v[0..n-1]. */
void amp_shuffle(uint64_t *v, size_t n, struct amp_rng *r);
/* idx[0..n-1] = 0..n-1 block by block: blocks of `block` indices in a
 * random order, each block's indices in a random order.  0, or -1 when
 * out of memory. */
int amp_block_order(uint64_t *idx, size_t n, size_t block, struct amp_rng *r);

/* "48K", "2M", "1.25M", "4096": bytes (binary suffixes K M G T, optional
 * B/iB).  0, or -1 when text is not such a size or overflows. */
int amp_parse_size(const char *text, uint64_t *bytes);
/* Decimal integer in [lo, hi]; 0 or -1. */
int amp_parse_uint(const char *text, uint64_t lo, uint64_t hi, uint64_t *out);
/* Decimal fraction in [lo, hi); 0 or -1. */
int amp_parse_double(const char *text, double lo, double hi, double *out);
/* "48 KiB", "2 MiB", "100 B": human size into buf. */
const char *amp_fmt_size(uint64_t bytes, char *buf, size_t len);

/* Whether x is among a[0..n-1]. */
static inline int amp_contains(const uint64_t *a, uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++)
		if (a[i] == x)
			return 1;
	return 0;
}

/* Whether x is a power of two (0 is not). */
static inline int amp_is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* qsort comparator for doubles, ascending. */
int amp_cmp_double(const void *a, const void *b);
/* Median of v[0..n-1], sorting v in place (even n: the mean of the two
 * middle values; n 0: 0). */
double amp_median(double *v, size_t n);
/* Robust spread of v[0..n-1] around med: the median absolute deviation
 * scaled to a normal sample's sigma; d is scratch room for n values. */
double amp_mad_sigma(const double *v, size_t n, double med, double *d);

/* Reads a small text file's first line (newline stripped); 0 or -1. */
int amp_read_line(const char *path, char *buf, size_t len);

/* Pins the process to the CPU it runs on (fewer migrations, stable
 * caches).  Returns the CPU, or -1 with the reason. */
int amp_pin_self(char *why, size_t len);

/* Pins the process to the quietest CPU it may run on (pin.c): one not
 * busy with other work (AMP_PIN_TAKEN of the time or more) where there
 * is one, and of those the one where short pointer chases over 8-256
 * KiB run fastest, the current one unless another is AMP_PIN_MARGIN
 * faster.  Returns the CPU and in how the choice, or -1 with the
 * reason. */
#define AMP_PIN_MARGIN 0.02
#define AMP_PIN_TAKEN 0.5
int amp_pin_quietest(char *how, size_t howlen, char *why, size_t len);
/* The choice among n scores (lower is quieter) from current; busy:
 * each CPU's share of time on other work (NULL, or below 0: unknown). */
int amp_pin_choose(const double *score, const double *busy, int n, int current);

#endif
