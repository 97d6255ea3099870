/* backend_papi.c - miss counters through PAPI's preset events.  PAPI
 * maps its presets to native events itself, so this backend needs no
 * table of ours; it is usable when PAPI's CPU component (perf_event) is
 * enabled and has the presets amp needs.  PAPI's own error strings and
 * its reason for disabling a component are passed through. */
#include "config.h"

#ifdef HAVE_PAPI
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <papi.h>
#include "counters.h"

/* Uniform event -> PAPI preset; STLB and L4 misses have none. */
static const struct papi_map {
	enum amp_event ev;
	int code;
	const char *name;
} papi_map[] = {
	{ AMP_EV_L1D_MISS, PAPI_L1_DCM, "PAPI_L1_DCM" },
	{ AMP_EV_L1I_MISS, PAPI_L1_ICM, "PAPI_L1_ICM" },
	{ AMP_EV_L2D_MISS, PAPI_L2_DCM, "PAPI_L2_DCM" },
	{ AMP_EV_L2I_MISS, PAPI_L2_ICM, "PAPI_L2_ICM" },
	{ AMP_EV_L2_MISS, PAPI_L2_TCM, "PAPI_L2_TCM" },
	{ AMP_EV_L3_MISS, PAPI_L3_TCM, "PAPI_L3_TCM" },
	{ AMP_EV_DTLB_MISS, PAPI_TLB_DM, "PAPI_TLB_DM" },
	{ AMP_EV_ITLB_MISS, PAPI_TLB_IM, "PAPI_TLB_IM" },
	{ AMP_EV_LOADS, PAPI_LD_INS, "PAPI_LD_INS" },
	{ AMP_EV_STORES, PAPI_SR_INS, "PAPI_SR_INS" },
	{ AMP_EV_CYCLES, PAPI_TOT_CYC, "PAPI_TOT_CYC" },
};

/* What amp cannot do without (the probe checks them). */
static const enum amp_event papi_needed[] = { AMP_EV_CYCLES, AMP_EV_L1D_MISS };

static const struct papi_map *papi_find(enum amp_event ev)
{
	for (size_t i = 0; i < sizeof papi_map / sizeof papi_map[0]; i++)
		if (papi_map[i].ev == ev)
			return &papi_map[i];
	return NULL;
}

/* PAPI_strerror returns NULL for codes it does not know. */
static const char *papi_err(int code)
{
	const char *s = PAPI_strerror(code);

	return s ? s : "unknown PAPI error";
}

static const char *ev_name(enum amp_event ev)
{
	return (unsigned)ev < AMP_EV_COUNT ? amp_event_table[ev].name : "?";
}

/* Initialise PAPI once per process (PAPI keeps the state); 0, or -1
 * with the reason. */
static int papi_init(char *why, size_t len)
{
	int r;

	if (PAPI_is_initialized() != PAPI_NOT_INITED)
		return 0;
	/* PAPI shares libpfm4 with the perf backend, and libpfm4 reads this
	 * once, at its initialisation; see backend_perf.c. */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 0);
	r = PAPI_library_init(PAPI_VER_CURRENT);
	if (r == PAPI_VER_CURRENT)
		return 0;
	if (r > 0)
		snprintf(why, len, "papi: library version %d.%d does not match the headers amp was "
			 "built with (%d.%d)", PAPI_VERSION_MAJOR(r), PAPI_VERSION_MINOR(r),
			 PAPI_VERSION_MAJOR(PAPI_VER_CURRENT), PAPI_VERSION_MINOR(PAPI_VER_CURRENT));
	else
		snprintf(why, len, "papi: PAPI_library_init: %s", papi_err(r));
	return -1;
}

/* The component that counts the presets: perf_event on Linux. */
static int papi_cpu_component(char *why, size_t len)
{
	int cidx = PAPI_get_component_index("perf_event");
	const PAPI_component_info_t *ci;

	if (cidx < 0)
		cidx = 0; /* PAPI puts its CPU component first */
	ci = PAPI_get_component_info(cidx);
	if (!ci) {
		snprintf(why, len, "papi: no CPU counter component");
		return -1;
	}
	if (ci->disabled) {
		snprintf(why, len, "papi: component %s disabled: %s", ci->name,
			 ci->disabled_reason[0] ? ci->disabled_reason : papi_err(ci->disabled));
		return -1;
	}
	if (ci->num_cntrs <= 0) {
		snprintf(why, len, "papi: component %s has no hardware counters", ci->name);
		return -1;
	}
	return cidx;
}

/* 1 when the preset exists on this host; else 0 with PAPI's reason. */
static int papi_preset(const struct papi_map *m, char *what, size_t len)
{
	PAPI_event_info_t info;
	int r = PAPI_query_event(m->code);

	if (r != PAPI_OK) {
		snprintf(what, len, "%s: %s", m->name, papi_err(r));
		return 0;
	}
	memset(&info, 0, sizeof info);
	if (PAPI_get_event_info(m->code, &info) == PAPI_OK && info.count > 0)
		snprintf(what, len, "%s (%s; %u native event%s: %s%s)", m->name, info.short_descr,
			 info.count, info.count == 1 ? "" : "s", info.name[0],
			 info.count > 1 ? ", ..." : "");
	else
		snprintf(what, len, "%s", m->name);
	return 1;
}

/* Presets can exist yet fail to count (PAPI's table knows the CPU, the
 * kernel has no PMU for it): count the needed ones once.  1 or 0. */
static int papi_trial(char *why, size_t len)
{
	long long junk[sizeof papi_needed / sizeof papi_needed[0]];
	int es = PAPI_NULL, r, ok = 0;
	const char *step = "PAPI_create_eventset";

	r = PAPI_create_eventset(&es);
	if (r != PAPI_OK) {
		es = PAPI_NULL;
		goto out;
	}
	for (size_t i = 0; i < sizeof papi_needed / sizeof papi_needed[0]; i++) {
		step = papi_find(papi_needed[i])->name;
		r = PAPI_add_event(es, papi_find(papi_needed[i])->code);
		if (r != PAPI_OK)
			goto out;
	}
	step = "PAPI_start";
	r = PAPI_start(es);
	if (r != PAPI_OK)
		goto out;
	step = "PAPI_stop";
	r = PAPI_stop(es, junk);
	ok = r == PAPI_OK;
out:
	if (!ok)
		snprintf(why, len, "papi: cannot count %s: %s", step, papi_err(r));
	if (es != PAPI_NULL) {
		PAPI_cleanup_eventset(es);
		PAPI_destroy_eventset(&es);
	}
	return ok;
}

static int papi_probe(const struct amp_host *host, char *why, size_t len)
{
	char what[AMP_REASON_LEN];
	int cidx;

	if (host && host->sim) {
		snprintf(why, len, "papi counts the real machine, not a simulated one");
		return 0;
	}
	if (papi_init(why, len) < 0)
		return 0;
	cidx = papi_cpu_component(why, len);
	if (cidx < 0)
		return 0;
	for (size_t i = 0; i < sizeof papi_needed / sizeof papi_needed[0]; i++)
		if (!papi_preset(papi_find(papi_needed[i]), what, sizeof what)) {
			snprintf(why, len, "papi: needs %s: %s", ev_name(papi_needed[i]), what);
			return 0;
		}
	if (!papi_trial(why, len))
		return 0;
	snprintf(why, len, "PAPI %d.%d.%d, component %s with %d counters",
		 PAPI_VERSION_MAJOR(PAPI_VER_CURRENT), PAPI_VERSION_MINOR(PAPI_VER_CURRENT),
		 PAPI_VERSION_REVISION(PAPI_VER_CURRENT), PAPI_get_component_info(cidx)->name,
		 PAPI_get_component_info(cidx)->num_cntrs);
	return 1;
}

static int papi_event_info(const struct amp_host *host, enum amp_event ev,
			   char *what, size_t len)
{
	const struct papi_map *m = papi_find(ev);

	if (!m) {
		snprintf(what, len, "no PAPI preset counts %s", ev_name(ev));
		return 0;
	}
	if (papi_init(what, len) < 0)
		return 0;
	if (!papi_preset(m, what, len)) {
		char why[AMP_REASON_LEN];
		size_t used = strlen(what);

		/* The usual cause: say it, not just "does not exist". */
		if (papi_cpu_component(why, sizeof why) < 0 && used < len)
			snprintf(what + used, len - used, " (%s)", why + strlen("papi: "));
		return 0;
	}
	return 1;
}

struct papi_set {
	int es;        /* PAPI event set */
	int running;
	long long start[AMP_MAX_SET];
	uint64_t total[AMP_MAX_SET];
};

static void papi_free_set(struct papi_set *s)
{
	long long junk[AMP_MAX_SET];

	if (s->running)
		PAPI_stop(s->es, junk);
	if (s->es != PAPI_NULL) {
		PAPI_cleanup_eventset(s->es);
		PAPI_destroy_eventset(&s->es);
	}
	free(s);
}

static int papi_open(struct amp_cset *set, char *err, size_t len)
{
	char what[AMP_REASON_LEN];
	struct papi_set *s;
	int r;

	if (set->n < 1 || set->n > AMP_MAX_SET) {
		snprintf(err, len, "papi: a set needs 1 to %d events", AMP_MAX_SET);
		return -1;
	}
	/* Events PAPI has no preset for first: that answer holds anywhere. */
	for (int i = 0; i < set->n; i++)
		if (!papi_find(set->ev[i])) {
			snprintf(err, len, "papi: cannot count %s: no PAPI preset for it",
				 ev_name(set->ev[i]));
			return -1;
		}
	if (papi_init(err, len) < 0 || papi_cpu_component(err, len) < 0)
		return -1;
	for (int i = 0; i < set->n; i++) {
		const struct papi_map *m = papi_find(set->ev[i]);

		if (!papi_preset(m, what, sizeof what)) {
			snprintf(err, len, "papi: cannot count %s: %s", ev_name(set->ev[i]), what);
			return -1;
		}
	}
	s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, len, "papi: out of memory");
		return -1;
	}
	s->es = PAPI_NULL;
	r = PAPI_create_eventset(&s->es);
	if (r != PAPI_OK) {
		snprintf(err, len, "papi: PAPI_create_eventset: %s", papi_err(r));
		s->es = PAPI_NULL;
		papi_free_set(s);
		return -1;
	}
	for (int i = 0; i < set->n; i++) {
		const struct papi_map *m = papi_find(set->ev[i]);

		r = PAPI_add_event(s->es, m->code);
		if (r != PAPI_OK) {
			snprintf(err, len, "papi: cannot count %s: PAPI_add_event(%s): %s",
				 ev_name(set->ev[i]), m->name, papi_err(r));
			papi_free_set(s);
			return -1;
		}
	}
	set->priv = s;
	return 0;
}

static int papi_start(struct amp_cset *set)
{
	struct papi_set *s = set->priv;

	if (!s || s->running || PAPI_start(s->es) != PAPI_OK)
		return -1;
	s->running = 1;
	/* PAPI_start zeroes the counts; reading back keeps the deltas
	 * right whatever a component does. */
	if (PAPI_read(s->es, s->start) != PAPI_OK)
		return -1;
	return 0;
}

static int papi_stop(struct amp_cset *set)
{
	struct papi_set *s = set->priv;
	long long now[AMP_MAX_SET];

	if (!s || !s->running)
		return -1;
	s->running = 0;
	if (PAPI_stop(s->es, now) != PAPI_OK)
		return -1;
	for (int i = 0; i < set->n; i++)
		s->total[i] = now[i] > s->start[i] ? (uint64_t)(now[i] - s->start[i]) : 0;
	return 0;
}

static int papi_read(struct amp_cset *set, uint64_t *values)
{
	struct papi_set *s = set->priv;

	if (!s)
		return -1;
	memcpy(values, s->total, (size_t)set->n * sizeof values[0]);
	return 0;
}

static void papi_close(struct amp_cset *set)
{
	if (set->priv)
		papi_free_set(set->priv);
	set->priv = NULL;
}

const struct amp_backend_ops amp_backend_papi = {
	.name = "papi",
	.summary = "PAPI preset events (PAPI_L1_DCM, ...) through PAPI's perf_event component",
	.priority = 40,
	.auto_select = 1,
	.probe = papi_probe,
	.event_info = papi_event_info,
	.open = papi_open,
	.start = papi_start,
	.stop = papi_stop,
	.read = papi_read,
	.close = papi_close,
};

#endif /* HAVE_PAPI */
