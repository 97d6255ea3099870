/* plan.c - building experiment plans. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan.h"
#include "util.h"

void amp_plan_init(struct amp_plan *p, const char *name, uint64_t region)
{
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "%s", name);
	p->region = region;
}

static int plan_new_seq(struct amp_plan *p, size_t n)
{
	struct amp_seq *s;

	if (p->nseq >= AMP_PLAN_MAX_SEQ || n == 0)
		return -1;
	s = &p->seq[p->nseq];
	s->off = malloc(n * sizeof s->off[0]);
	if (!s->off)
		return -1;
	s->n = n;
	return p->nseq++;
}

int amp_plan_add_seq(struct amp_plan *p, const uint64_t *off, size_t n)
{
	int i = plan_new_seq(p, n);

	if (i >= 0)
		memcpy(p->seq[i].off, off, n * sizeof off[0]);
	return i;
}

int amp_plan_add_strided(struct amp_plan *p, uint64_t start, uint64_t stride, size_t n)
{
	int i = plan_new_seq(p, n);

	for (size_t k = 0; i >= 0 && k < n; k++)
		p->seq[i].off[k] = start + k * stride;
	return i;
}

int amp_plan_add_random_cycle(struct amp_plan *p, uint64_t stride, size_t n, uint64_t seed)
{
	int i = plan_new_seq(p, n);
	struct amp_rng rng;

	if (i < 0)
		return -1;
	amp_rng_seed(&rng, seed);
	for (size_t k = 0; k < n; k++)
		p->seq[i].off[k] = k * stride;
	/* One cycle through every slot in random order. */
	amp_shuffle(p->seq[i].off, n, &rng);
	return i;
}

int amp_plan_add_block_cycle(struct amp_plan *p, uint64_t stride, size_t n, size_t block,
			     uint64_t seed)
{
	int i = plan_new_seq(p, n);
	struct amp_rng rng;

	if (i < 0)
		return -1;
	amp_rng_seed(&rng, seed);
	if (amp_block_order(p->seq[i].off, n, block, &rng) < 0) {
		free(p->seq[i].off);
		p->nseq--;
		return -1;
	}
	for (size_t k = 0; k < n; k++)
		p->seq[i].off[k] *= stride;
	return i;
}

int amp_plan_add_pass(struct amp_plan *p, int seq, enum amp_op op, unsigned times, int measured)
{
	struct amp_pass *ps;

	if (p->npass >= AMP_PLAN_MAX_PASS)
		return -1;
	ps = &p->pass[p->npass];
	ps->seq = seq;
	ps->op = op;
	ps->times = times;
	ps->measured = measured;
	return p->npass++;
}

int amp_plan_check(const struct amp_plan *p, char *err, size_t len)
{
	int first = -1, last = -1;

	if (p->region == 0) {
		snprintf(err, len, "plan %s: empty region", p->name);
		return -1;
	}
	for (int i = 0; i < p->nseq; i++)
		for (size_t k = 0; k < p->seq[i].n; k++)
			if (p->seq[i].off[k] + 8 > p->region || p->seq[i].off[k] % 8) {
				snprintf(err, len, "plan %s: offset %llu of sequence %d is outside the region or not 8-byte aligned",
					 p->name, (unsigned long long)p->seq[i].off[k], i);
				return -1;
			}
	for (int i = 0; i < p->npass; i++) {
		const struct amp_pass *ps = &p->pass[i];

		if (ps->seq >= p->nseq || (ps->seq < 0 && !(ps->op == AMP_OP_FLUSH && ps->seq == AMP_PLAN_WHOLE_REGION))) {
			snprintf(err, len, "plan %s: pass %d names no sequence", p->name, i);
			return -1;
		}
		if (ps->measured) {
			if (first < 0)
				first = i;
			else if (last != i - 1) {
				snprintf(err, len, "plan %s: measured passes must be consecutive", p->name);
				return -1;
			}
			last = i;
		}
	}
	return 0;
}

uint64_t amp_plan_accesses(const struct amp_plan *p, int measured_only)
{
	uint64_t n = 0;

	for (int i = 0; i < p->npass; i++) {
		const struct amp_pass *ps = &p->pass[i];

		if (ps->op == AMP_OP_FLUSH || (measured_only && !ps->measured))
			continue;
		n += (uint64_t)ps->times * p->seq[ps->seq].n;
	}
	return n;
}

void amp_plan_free(struct amp_plan *p)
{
	for (int i = 0; i < p->nseq; i++)
		free(p->seq[i].off);
	p->nseq = 0;
	p->npass = 0;
}
