/* backend_sim.c - counters of the simulated machine: each uniform event
 * is the sum of the miss counts of the simulated levels it covers, read
 * like a PMU (start/stop deltas).  Chosen only with --sim. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counters.h"
#include "sim.h"

#define SIDE_D (1 << SIM_DATA)
#define SIDE_I (1 << SIM_INSN)
#define SIDE_U (1 << SIM_UNIFIED)
#define STAT_D 1 /* data-side statistics */
#define STAT_I 2 /* instruction-side statistics */

/* Which simulated levels (kind, level number, sides) and which of their
 * per-side miss counts make up each event. */
static const struct sim_event_map {
	enum amp_event ev;
	enum sim_kind kind;
	int level;
	int sides;
	int stats;
} sim_event_map[] = {
	{ AMP_EV_L1D_MISS, SIM_CACHE, 1, SIDE_D | SIDE_U, STAT_D },
	{ AMP_EV_L1I_MISS, SIM_CACHE, 1, SIDE_I | SIDE_U, STAT_I },
	{ AMP_EV_L2D_MISS, SIM_CACHE, 2, SIDE_D | SIDE_U, STAT_D },
	{ AMP_EV_L2I_MISS, SIM_CACHE, 2, SIDE_I | SIDE_U, STAT_I },
	{ AMP_EV_L2_MISS, SIM_CACHE, 2, SIDE_D | SIDE_I | SIDE_U, STAT_D | STAT_I },
	{ AMP_EV_L3_MISS, SIM_CACHE, 3, SIDE_D | SIDE_I | SIDE_U, STAT_D | STAT_I },
	{ AMP_EV_L4_MISS, SIM_CACHE, 4, SIDE_D | SIDE_I | SIDE_U, STAT_D | STAT_I },
	{ AMP_EV_DTLB_MISS, SIM_TLB, 1, SIDE_D | SIDE_U, STAT_D },
	{ AMP_EV_ITLB_MISS, SIM_TLB, 1, SIDE_I | SIDE_U, STAT_I },
	{ AMP_EV_STLB_MISS, SIM_TLB, 2, SIDE_D | SIDE_I | SIDE_U, STAT_D | STAT_I },
	{ AMP_EV_ITLB_WALK, SIM_TLB, 2, SIDE_I | SIDE_U, STAT_I },
};

static const struct sim_event_map *map_of(enum amp_event ev)
{
	for (size_t i = 0; i < sizeof sim_event_map / sizeof sim_event_map[0]; i++)
		if (sim_event_map[i].ev == ev)
			return &sim_event_map[i];
	return NULL;
}

static int level_matches(const struct sim_level_spec *lv, const struct sim_event_map *m)
{
	return lv->kind == m->kind && lv->level == m->level && (m->sides & (1 << lv->side));
}

/* 1 when the machine can count ev; otherwise 0 and the reason. */
static int sim_can_count(const struct sim_spec *spec, enum amp_event ev,
			 char *what, size_t len)
{
	const struct sim_event_map *m;
	int found = 0;
	size_t used = 0;

	if (ev == AMP_EV_LOADS || ev == AMP_EV_STORES || ev == AMP_EV_CYCLES) {
		snprintf(what, len, "%s of the simulated machine",
			 ev == AMP_EV_CYCLES ? "simulated cycles" : "accesses");
		return 1;
	}
	m = map_of(ev);
	what[0] = '\0';
	for (int i = 0; m && i < spec->n; i++) {
		const struct sim_level_spec *lv = &spec->lv[i];

		if (!level_matches(lv, m))
			continue;
		if (!lv->counter) {
			snprintf(what, len, "the simulated %s has no miss counter (counter=no, N/C)",
				 lv->name);
			return 0;
		}
		used += snprintf(what + used, used < len ? len - used : 0, "%s%s misses",
				 found ? " + " : "", lv->name);
		found = 1;
	}
	if (!found)
		snprintf(what, len, "the simulated machine has no such level");
	return found;
}

static int sim_probe(const struct amp_host *host, char *why, size_t len)
{
	snprintf(why, len, "%s", host->sim ? "simulated machine loaded"
				      : "software model; chosen with --sim=SPEC");
	return 1;
}

static int sim_event_info(const struct amp_host *host, enum amp_event ev,
			  char *what, size_t len)
{
	if (!host->sim) {
		snprintf(what, len, "counted by the matching level of the machine given with --sim=SPEC");
		return 1;
	}
	return sim_can_count(sim_get_spec(host->sim), ev, what, len);
}

struct sim_cset_state {
	uint64_t start[AMP_MAX_SET], total[AMP_MAX_SET];
};

static uint64_t sim_event_value(struct sim_machine *m, enum amp_event ev)
{
	const struct sim_spec *spec = sim_get_spec(m);
	const struct sim_event_map *map;
	uint64_t sum = 0;

	switch (ev) {
	case AMP_EV_LOADS:
		return sim_op_count(m, SIM_LOAD);
	case AMP_EV_STORES:
		return sim_op_count(m, SIM_STORE);
	case AMP_EV_CYCLES:
		return sim_cycles(m);
	default:
		break;
	}
	map = map_of(ev);
	for (int i = 0; map && i < spec->n; i++) {
		struct sim_level_stats st;

		if (!level_matches(&spec->lv[i], map))
			continue;
		sim_get_stats(m, i, &st);
		if (map->stats & STAT_D)
			sum += st.misses[0];
		if (map->stats & STAT_I)
			sum += st.misses[1];
	}
	return sum;
}

static int sim_open(struct amp_cset *set, char *err, size_t len)
{
	char what[AMP_REASON_LEN];

	if (!set->host->sim) {
		snprintf(err, len, "sim: no simulated machine (give --sim=SPEC)");
		return -1;
	}
	for (int i = 0; i < set->n; i++)
		if (!sim_can_count(sim_get_spec(set->host->sim), set->ev[i], what, sizeof what)) {
			snprintf(err, len, "sim: cannot count %s: %s",
				 amp_event_table[set->ev[i]].name, what);
			return -1;
		}
	set->priv = calloc(1, sizeof(struct sim_cset_state));
	if (!set->priv) {
		snprintf(err, len, "sim: out of memory");
		return -1;
	}
	return 0;
}

static int sim_start(struct amp_cset *set)
{
	struct sim_cset_state *s = set->priv;

	for (int i = 0; i < set->n; i++) {
		s->start[i] = sim_event_value(set->host->sim, set->ev[i]);
		s->total[i] = 0;
	}
	return 0;
}

static int sim_stop(struct amp_cset *set)
{
	struct sim_cset_state *s = set->priv;

	for (int i = 0; i < set->n; i++)
		s->total[i] += sim_event_value(set->host->sim, set->ev[i]) - s->start[i];
	return 0;
}

static int sim_read(struct amp_cset *set, uint64_t *values)
{
	struct sim_cset_state *s = set->priv;

	memcpy(values, s->total, set->n * sizeof values[0]);
	return 0;
}

static void sim_close(struct amp_cset *set)
{
	free(set->priv);
	set->priv = NULL;
}

const struct amp_backend_ops amp_backend_sim = {
	.name = "sim",
	.summary = "the simulated machine (--sim=SPEC): exact miss counts and simulated cycles",
	.priority = 0,
	.auto_select = 0,
	.probe = sim_probe,
	.event_info = sim_event_info,
	.open = sim_open,
	.start = sim_start,
	.stop = sim_stop,
	.read = sim_read,
	.close = sim_close,
};
