/* test_counters.c - the middle layer: events, the backend list, choice,
 * the set API, and the timer and sim backends' paths (perf and papi
 * error paths are in test_eventmap.c). */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counters.h"
#include "sim.h"
#include "tap.h"
#include "timer.h"

static void test_events(void)
{
	int dup = 0;

	for (int i = 0; i < AMP_EV_COUNT; i++) {
		tap_eq(amp_event_table[i].id, i, "event row %d is in enum order", i);
		for (int j = 0; j < i; j++)
			dup |= strcmp(amp_event_table[i].name, amp_event_table[j].name) == 0;
	}
	tap_ok(!dup, "event names are unique");
	tap_eq(amp_event_lookup("l1d_miss"), AMP_EV_L1D_MISS, "lookup is case-insensitive");
	tap_eq(amp_event_lookup("STLB_MISS"), AMP_EV_STLB_MISS, "STLB_MISS exists");
	tap_eq(amp_event_lookup("L9_MISS"), -1, "unknown event name gives -1");
}

static void test_backend_list(void)
{
	int n = 0, complete = 1, has_papi = 0;

	for (int i = 0; amp_backends[i]; i++, n++) {
		const struct amp_backend_ops *b = amp_backends[i];

		complete &= b->name && b->summary && b->probe && b->event_info && b->open &&
			    b->start && b->stop && b->read && b->close;
		has_papi |= strcmp(b->name, "papi") == 0;
		tap_ok(amp_backend_find(b->name) == b, "backend %s is found by name", b->name);
	}
	tap_ok(complete, "every backend fills every operation");
#ifdef HAVE_PAPI
	tap_ok(has_papi, "papi is compiled in (HAVE_PAPI)");
#else
	tap_ok(!has_papi, "papi is absent without HAVE_PAPI");
#endif
	tap_ok(amp_backend_find("timer") && amp_backend_find("sim") && amp_backend_find("perf"),
	       "perf, timer and sim are always there");
	tap_ok(amp_backend_find("nosuch") == NULL, "unknown backend name gives NULL");
	tap_ok(!amp_backend_sim.auto_select, "sim is never picked unless asked for");
	tap_ok(amp_backend_timer.priority < amp_backend_perf.priority, "timer ranks below perf");
}

static void test_choose(void)
{
	struct amp_host real = { 0 };
	char why[1024];
	const struct amp_backend_ops *b = amp_backend_choose(&real, why, sizeof why);

	tap_ok(b != NULL && b != &amp_backend_sim, "a real host gets a real backend (%s)", b ? b->name : "none");
	tap_diag("chosen: %s: %s", b ? b->name : "none", why);
	for (int i = 0; amp_backends[i]; i++) {
		char r[AMP_REASON_LEN];

		if (amp_backends[i]->auto_select && amp_backends[i]->probe(&real, r, sizeof r))
			tap_ok(amp_backends[i]->priority <= b->priority,
			       "chosen backend outranks usable %s", amp_backends[i]->name);
	}
}

static void test_timer(void)
{
	struct amp_host host = { 0 };
	const struct amp_timer_cal *cal = amp_timer();
	enum amp_event ev[2] = { AMP_EV_CYCLES, AMP_EV_L1D_MISS };
	struct amp_cset set;
	char err[256], what[256];
	uint64_t v = 0;
	volatile uint64_t x = 0;

	tap_ok(cal->ticks_per_ns > 0, "timer advances (%.3f ticks/ns, %s)", cal->ticks_per_ns, cal->source);
	tap_ok(cal->resolution_ticks > 0, "timer resolution measured (%.0f ticks)", cal->resolution_ticks);
	tap_ok(amp_backend_timer.probe(&host, what, sizeof what) == 1, "timer is usable: %s", what);
	tap_eq(amp_backend_timer.event_info(&host, AMP_EV_CYCLES, what, sizeof what), 1, "timer counts CYCLES");
	tap_eq(amp_backend_timer.event_info(&host, AMP_EV_L1D_MISS, what, sizeof what), 0, "timer has no L1D_MISS");
	tap_has(what, "time only", "and says why");
	tap_eq(amp_cset_open(&set, &amp_backend_timer, &host, ev, 2, err, sizeof err), -1,
	       "opening L1D_MISS on the timer fails");
	tap_has(err, "L1D_MISS", "naming the event");
	tap_eq(amp_cset_open(&set, &amp_backend_timer, &host, ev, 1, err, sizeof err), 0, "CYCLES opens");
	amp_cset_start(&set);
	for (int i = 0; i < 100000; i++)
		x += (uint64_t)i;
	amp_cset_stop(&set);
	amp_cset_read(&set, &v);
	tap_ok(v > 0, "a busy loop takes ticks (%llu)", (unsigned long long)v);
	amp_cset_close(&set);
	tap_eq(amp_cset_open(&set, &amp_backend_timer, &host, ev, AMP_MAX_SET + 1, err, sizeof err), -1,
	       "too many events in one set are refused");
}

static void test_sim(void)
{
	struct sim_spec spec;
	struct amp_host host = { 0 };
	enum amp_event ev[4] = { AMP_EV_L1D_MISS, AMP_EV_L2_MISS, AMP_EV_LOADS, AMP_EV_CYCLES };
	enum amp_event nc = AMP_EV_DTLB_MISS;
	struct amp_cset set;
	char err[256], what[256];
	uint64_t v[4];

	tap_eq(amp_backend_sim.event_info(&host, AMP_EV_L1D_MISS, what, sizeof what), 1,
	       "without --sim, sim explains where counts come from");
	tap_eq(amp_cset_open(&set, &amp_backend_sim, &host, ev, 1, err, sizeof err), -1,
	       "sim without a machine cannot open");
	tap_has(err, "--sim", "and says to give --sim");
	if (sim_spec_parse("L1d:size=1K,assoc=2,line=32;L1i:size=1K,assoc=2,line=32;"
			   "L2:size=4K,assoc=4,line=32;DTLB:entries=8,assoc=2,counter=no",
			   &spec, err, sizeof err) < 0) {
		tap_ok(0, "spec parses: %s", err);
		return;
	}
	host.sim = sim_create(&spec, err, sizeof err);
	tap_ok(host.sim != NULL, "simulated machine built");
	if (!host.sim)
		return;
	tap_eq(amp_cset_open(&set, &amp_backend_sim, &host, &nc, 1, err, sizeof err), -1,
	       "a level with counter=no cannot be counted");
	tap_has(err, "N/C", "and the reason says N/C");
	tap_eq(amp_cset_open(&set, &amp_backend_sim, &host, ev, 4, err, sizeof err), 0, "sim set opens");
	/* 64 lines of 32 B = 2 KiB: twice L1d, half of L2.  Cold pass:
	 * every line misses both; second pass: L1d (LRU, cyclic) misses
	 * every line again, L2 hits all. */
	amp_cset_start(&set);
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t a = 0; a < 2048; a += 32)
			sim_access(host.sim, 0x100000 + a, SIM_LOAD);
	amp_cset_stop(&set);
	amp_cset_read(&set, v);
	tap_eq(v[0], 128, "L1D_MISS counts both passes' misses");
	tap_eq(v[1], 64, "L2_MISS counts the cold pass only");
	tap_eq(v[2], 128, "LOADS counts loads");
	tap_ok(v[3] > 0, "CYCLES advance (%llu)", (unsigned long long)v[3]);
	amp_cset_start(&set);
	amp_cset_stop(&set);
	amp_cset_read(&set, v);
	tap_eq(v[0] + v[1] + v[2] + v[3], 0, "an empty bracket counts nothing");
	amp_cset_close(&set);
	sim_destroy(host.sim);
}

int main(void)
{
	test_events();
	test_backend_list();
	test_choose();
	test_timer();
	test_sim();
	return tap_done();
}
