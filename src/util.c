/* util.c - small helpers shared by amp's modules. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util.h"

void amp_rng_seed(struct amp_rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t amp_rng_next(struct amp_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t amp_rng_below(struct amp_rng *r, uint64_t n)
{
	/* Rejection keeps it unbiased. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;

	do {
		x = amp_rng_next(r);
	} while (x >= limit);
	return x % n;
}

int amp_parse_size(const char *text, uint64_t *bytes)
{
	static const struct { const char *suffix; uint64_t mult; } units[] = {
		{ "", 1 }, { "b", 1 },
		{ "k", 1ULL << 10 }, { "kb", 1ULL << 10 }, { "kib", 1ULL << 10 },
		{ "m", 1ULL << 20 }, { "mb", 1ULL << 20 }, { "mib", 1ULL << 20 },
		{ "g", 1ULL << 30 }, { "gb", 1ULL << 30 }, { "gib", 1ULL << 30 },
		{ "t", 1ULL << 40 }, { "tb", 1ULL << 40 }, { "tib", 1ULL << 40 },
	};
	const char *p = text;
	uint64_t whole = 0, frac_num = 0, frac_den = 1;

	if (!text || !isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -1;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		for (; isdigit((unsigned char)*p); p++) {
			if (frac_den >= 1000000000ULL)
				return -1;
			frac_num = frac_num * 10 + (uint64_t)(*p - '0');
			frac_den *= 10;
		}
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		uint64_t m = units[i].mult;

		if (strcasecmp(p, units[i].suffix) != 0)
			continue;
		if (whole > UINT64_MAX / m)
			return -1;
		/* The fraction must come out a whole number of bytes. */
		if ((frac_num * m) % frac_den)
			return -1;
		*bytes = whole * m + frac_num * m / frac_den;
		return *bytes < whole * m ? -1 : 0;
	}
	return -1;
}

int amp_parse_uint(const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!text || !isdigit((unsigned char)text[0]))
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int amp_parse_double(const char *text, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (!text || !*text || isspace((unsigned char)text[0]))
		return -1;
	errno = 0;
	v = strtod(text, &end);
	if (errno || *end || !isfinite(v) || v < lo || v >= hi)
		return -1;
	*out = v;
	return 0;
}

const char *amp_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	uint64_t v = bytes;

	while (u < 4 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if ((u == 0 && bytes >= 1024) || (u < 4 && v >= 10240)) {
		/* Not a whole number of KiB, or many thousands of a unit
		 * (24684092 KiB): show it with decimals in a bigger unit. */
		double d = (double)bytes;

		u = 0;
		while (u < 4 && d >= 1024) {
			d /= 1024;
			u++;
		}
		snprintf(buf, len, "%.2f %s", d, unit[u]);
	} else {
		snprintf(buf, len, "%llu %s", (unsigned long long)v, unit[u]);
	}
	return buf;
}

int amp_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

void amp_shuffle(uint64_t *v, size_t n, struct amp_rng *r)
{
	for (size_t k = n; k > 1; k--) {
		size_t j = (size_t)amp_rng_below(r, k);
		uint64_t t = v[k - 1];

		v[k - 1] = v[j];
		v[j] = t;
	}
}

int amp_block_order(uint64_t *idx, size_t n, size_t block, struct amp_rng *r)
{
	size_t nb, k = 0;
	uint64_t *order;

	if (block == 0)
		block = 1;
	nb = (n + block - 1) / block;
	order = malloc(nb * sizeof *order);
	if (!order)
		return -1;
	for (size_t b = 0; b < nb; b++)
		order[b] = b;
	amp_shuffle(order, nb, r);
	for (size_t b = 0; b < nb; b++) {
		size_t first = (size_t)order[b] * block, end = first + block < n ? first + block : n;
		uint64_t *v = idx + k;

		for (size_t s = first; s < end; s++)
			idx[k++] = s;
		amp_shuffle(v, end - first, r);
	}
	free(order);
	return 0;
}

int amp_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double amp_median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, amp_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double amp_mad_sigma(const double *v, size_t n, double med, double *d)
{
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(v[i] - med);
	return 1.4826 * amp_median(d, n);
}
