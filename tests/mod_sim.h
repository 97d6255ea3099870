/* mod_sim.h - runs the measurement modules on a simulated machine, in
 * module-table order up to a named module, for the module unit tests. */
#ifndef AMP_MOD_SIM_H
#define AMP_MOD_SIM_H

#include <stdio.h>
#include <string.h>
#include "measure.h"
#include "sim.h"
#include "tap.h"

struct mod_sim {
	struct sim_machine *sim;
	struct amp_host host;
	struct amp_ctx ctx;
};

/* Builds the machine of `spec` with `noise` and `seed` and characterises
 * it, level `only` and those above it (NULL: all), through module `last`
 * (NULL: all), with `votes` votes of the minimum of `reps` runs.  0 or
 * -1 with err (the machine, if built, stays for mod_sim_free). */
/* Builds the machine only (host set, context untouched).  0 or -1 with
 * err. */
static inline int mod_sim_build(struct mod_sim *ms, const char *spec, double noise, uint64_t seed,
				int pages_random, char *err, size_t len)
{
	struct sim_spec s;

	memset(ms, 0, sizeof *ms);
	if (sim_spec_parse(spec, &s, err, len) < 0)
		return -1;
	s.noise = noise;
	s.seed = seed;
	s.pages_random = pages_random;
	ms->sim = sim_create(&s, err, len);
	if (!ms->sim)
		return -1;
	ms->host.sim = ms->sim;
	return 0;
}

/* The same on scattered page frames (pages_random 1) or contiguous. */
static inline int mod_sim_run_pages(struct mod_sim *ms, const char *spec, double noise, uint64_t seed,
				    unsigned reps, unsigned votes, const char *only, const char *last,
				    int pages_random, char *err, size_t len)
{
	if (mod_sim_build(ms, spec, noise, seed, pages_random, err, len) < 0)
		return -1;
	amp_ctx_init(&ms->ctx, &ms->host, &amp_backend_sim, reps, votes, seed);
	if (amp_levels_discover(&ms->ctx, only, err, len) < 0 ||
	    amp_measure_overhead(&ms->ctx, err, len) < 0 ||
	    amp_characterise_through(&ms->ctx, last, err, len) < 0)
		return -1;
	return 0;
}

static inline int mod_sim_run_ex(struct mod_sim *ms, const char *spec, double noise, uint64_t seed,
				 unsigned reps, unsigned votes, const char *only, const char *last,
				 char *err, size_t len)
{
	return mod_sim_run_pages(ms, spec, noise, seed, reps, votes, only, last, 0, err, len);
}

/* The usual case: seed 1, 8 votes of the minimum of 8 runs, like amp. */
static inline int mod_sim_run(struct mod_sim *ms, const char *spec, double noise, const char *last,
			      char *err, size_t len)
{
	return mod_sim_run_ex(ms, spec, noise, 1, 8, 8, NULL, last, err, len);
}

static inline void mod_sim_free(struct mod_sim *ms)
{
	sim_destroy(ms->sim);
	ms->sim = NULL;
}

static inline struct amp_level *mod_sim_level(struct mod_sim *ms, const char *name)
{
	for (int i = 0; i < ms->ctx.nlv; i++)
		if (strcmp(ms->ctx.lv[i].name, name) == 0)
			return &ms->ctx.lv[i];
	return NULL;
}

/* A conclusive value of p, or -1 (unknown) / -2 (inconclusive). */
static inline long long mod_sim_value(const struct amp_param *p)
{
	if (!p->known)
		return -1;
	return p->inconclusive ? -2 : p->value;
}

#define MOD_SIM_SKIP 99 /* level absent or not checked */

/* The parameter at `fills` (AMP_FILLS) of level `name` is `want`
 * (MOD_SIM_SKIP: not checked; -1: unknown, with `why` in its reason
 * when given); a known value must have every vote. */
static inline void mod_sim_check(struct mod_sim *ms, const char *name, size_t fills, long long want,
				 const char *spec, double noise, const char *why)
{
	struct amp_level *lv = mod_sim_level(ms, name);
	const struct amp_param *p;
	int field = 0;

	while (field < AMP_NPARAMS - 1 && amp_param_fields[field].offset != fills)
		field++;

	if (want == MOD_SIM_SKIP)
		return;
	if (!lv) {
		tap_ok(0, "%s [%s, noise %.2f]: level present", name, spec, noise);
		return;
	}
	p = amp_level_param(lv, field);
	tap_eq(mod_sim_value(p), want, "%s %s [%s, noise %.2f]", name, amp_param_fields[field].name, spec,
	       noise);
	if (want == -1 && why)
		tap_has(p->reason, why, "%s: the reason says why", name);
	if (want >= 0)
		tap_ok(p->confidence >= 0.99, "%s: every vote agrees (%.2f)", name, p->confidence);
}

#endif
