/* eventmap.c - per microarchitecture, the native event that counts each
 * uniform event (libpfm4 names, without the PMU prefix), and amp's own
 * CPU model -> microarchitecture table.  Everything here is data; the
 * self-check keeps the tables honest, tests/test_eventmap.c checks that
 * libpfm4 encodes every row.
 *
 * Meaning of the uniform events, as counters.c and the sim backend use
 * them: DTLB_MISS and ITLB_MISS are misses of the first-level TLBs,
 * STLB_MISS misses of the second-level TLB (a page walk), ITLB_WALK
 * instruction fetches that missed every TLB level (the ITLB2 level:
 * AMD's L2 ITLB, Intel's shared STLB).  Neoverse N1 has no row for it
 * yet: libpfm4's arm_n1 table is not built on x86, so no test here
 * could check its encoding.  Where a PMU
 * has no single event with that meaning the row is left out, so amp
 * reports the level as not countable instead of measuring the wrong one:
 *   - Intel counts only STLB hits and page walks (no L1 DTLB/ITLB miss);
 *   - AMD Zen counts ITLB misses in two events (L2 ITLB hit / miss);
 *   - L3 misses on Zen are counted by the separate L3 PMU, not the core;
 *   - nothing counts an L4 (none of these parts has one).
 * Cache misses are demand misses where the PMU separates them:
 * prefetches would blur the capacity knees amp looks for. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "eventmap.h"

const struct amp_uarch amp_uarchs[] = {
	{ "skx", "Intel Skylake-SP/Cascade Lake/Cooper Lake", "skx" },
	{ "icl", "Intel Ice Lake/Tiger Lake/Rocket Lake (client)", "icl" },
	{ "icx", "Intel Ice Lake-SP/Ice Lake-D", "icx" },
	{ "spr", "Intel Sapphire/Emerald Rapids", "spr" },
	{ "zen2", "AMD Zen 2", "amd64_fam17h_zen2" },
	{ "zen3", "AMD Zen 3", "amd64_fam19h_zen3" },
	{ "zen4", "AMD Zen 4", "amd64_fam19h_zen4" },
	{ "neoverse-n1", "Arm Neoverse N1", "arm_n1" },
	/* Zen 5 (AMD family 0x1a): libpfm4 4.13 has no PMU for it
	 * (amd64_fam1ah_zen5 came later), so no table yet. */
	{ NULL, NULL, NULL }
};

/* CPU -> uarch.  x86 rows match the CPUID vendor, family and a model
 * range; ARM rows (arm = 1) match the MIDR implementer and a part range.
 * amp keeps its own list because libpfm4 4.13 does not detect every
 * model (Emerald Rapids, most Zen 4 parts), and encodes the PMU of an
 * undetected model only when asked by name. */
static const struct amp_cpu_match {
	int arm;
	const char *vendor;    /* x86: CPUID vendor string */
	unsigned family;       /* x86: family; ARM: implementer */
	unsigned lo, hi;       /* x86: models; ARM: parts */
	const char *uarch;
} amp_cpu_matches[] = {
	/* Intel family 6 model numbers as in the SDM / intel-family.h. */
	{ 0, "GenuineIntel", 0x6, 0x55, 0x55, "skx" }, /* SKX, CLX, CPX */
	{ 0, "GenuineIntel", 0x6, 0x7d, 0x7e, "icl" }, /* Ice Lake client */
	{ 0, "GenuineIntel", 0x6, 0x8c, 0x8d, "icl" }, /* Tiger Lake: libpfm's icl */
	{ 0, "GenuineIntel", 0x6, 0xa7, 0xa7, "icl" }, /* Rocket Lake: libpfm's icl */
	{ 0, "GenuineIntel", 0x6, 0x6a, 0x6a, "icx" }, /* Ice Lake-SP */
	{ 0, "GenuineIntel", 0x6, 0x6c, 0x6c, "icx" }, /* Ice Lake-D */
	{ 0, "GenuineIntel", 0x6, 0x8f, 0x8f, "spr" }, /* Sapphire Rapids */
	{ 0, "GenuineIntel", 0x6, 0xcf, 0xcf, "spr" }, /* Emerald Rapids: spr events */
	/* AMD Zen generations as arch/x86/kernel/cpu/amd.c sorts them. */
	{ 0, "AuthenticAMD", 0x17, 0x30, 0x4f, "zen2" },
	{ 0, "AuthenticAMD", 0x17, 0x60, 0x7f, "zen2" },
	{ 0, "AuthenticAMD", 0x17, 0x90, 0x91, "zen2" },
	{ 0, "AuthenticAMD", 0x17, 0xa0, 0xaf, "zen2" },
	{ 0, "AuthenticAMD", 0x19, 0x00, 0x0f, "zen3" },
	{ 0, "AuthenticAMD", 0x19, 0x20, 0x5f, "zen3" },
	{ 0, "AuthenticAMD", 0x19, 0x10, 0x1f, "zen4" },
	{ 0, "AuthenticAMD", 0x19, 0x60, 0xaf, "zen4" },
	{ 1, NULL, 0x41, 0xd0c, 0xd0c, "neoverse-n1" },
};

#define ROW(u, e, native) { u, AMP_EV_##e, native, __LINE__ }

/* Grouped by uarch, events in enum order within a group (checked). */
const struct amp_eventmap_row amp_eventmap[] = {
	/* Intel Skylake-SP: SDM vol. 3B, 19.x / perfmon event lists. */
	ROW("skx", L1D_MISS, "L1D:REPLACEMENT"),
	ROW("skx", L1I_MISS, "ICACHE_64B:IFTAG_MISS"),
	ROW("skx", L2D_MISS, "L2_RQSTS:DEMAND_DATA_RD_MISS"),
	ROW("skx", L2I_MISS, "L2_RQSTS:CODE_RD_MISS"),
	ROW("skx", L2_MISS, "L2_RQSTS:ALL_DEMAND_MISS"),
	ROW("skx", L3_MISS, "LONGEST_LAT_CACHE:MISS"),
	ROW("skx", STLB_MISS, "DTLB_LOAD_MISSES:MISS_CAUSES_A_WALK"),
	ROW("skx", ITLB_WALK, "ITLB_MISSES:WALK_COMPLETED"),
	ROW("skx", LOADS, "MEM_INST_RETIRED:ALL_LOADS"),
	ROW("skx", STORES, "MEM_INST_RETIRED:ALL_STORES"),
	ROW("skx", CYCLES, "UNHALTED_CORE_CYCLES"),

	/* Intel Ice Lake client: no MISS_CAUSES_A_WALK, count walks. */
	ROW("icl", L1D_MISS, "L1D:REPLACEMENT"),
	ROW("icl", L1I_MISS, "ICACHE_64B:IFTAG_MISS"),
	ROW("icl", L2D_MISS, "L2_RQSTS:DEMAND_DATA_RD_MISS"),
	ROW("icl", L2I_MISS, "L2_RQSTS:CODE_RD_MISS"),
	ROW("icl", L2_MISS, "L2_RQSTS:ALL_DEMAND_MISS"),
	ROW("icl", L3_MISS, "LONGEST_LAT_CACHE:MISS"),
	ROW("icl", STLB_MISS, "DTLB_LOAD_MISSES:WALK_COMPLETED"),
	ROW("icl", ITLB_WALK, "ITLB_MISSES:WALK_COMPLETED"),
	ROW("icl", LOADS, "MEM_INST_RETIRED:ALL_LOADS"),
	ROW("icl", STORES, "MEM_INST_RETIRED:ALL_STORES"),
	ROW("icl", CYCLES, "UNHALTED_CORE_CYCLES"),

	/* Intel Ice Lake-SP: the same core as icl. */
	ROW("icx", L1D_MISS, "L1D:REPLACEMENT"),
	ROW("icx", L1I_MISS, "ICACHE_64B:IFTAG_MISS"),
	ROW("icx", L2D_MISS, "L2_RQSTS:DEMAND_DATA_RD_MISS"),
	ROW("icx", L2I_MISS, "L2_RQSTS:CODE_RD_MISS"),
	ROW("icx", L2_MISS, "L2_RQSTS:ALL_DEMAND_MISS"),
	ROW("icx", L3_MISS, "LONGEST_LAT_CACHE:MISS"),
	ROW("icx", STLB_MISS, "DTLB_LOAD_MISSES:WALK_COMPLETED"),
	ROW("icx", ITLB_WALK, "ITLB_MISSES:WALK_COMPLETED"),
	ROW("icx", LOADS, "MEM_INST_RETIRED:ALL_LOADS"),
	ROW("icx", STORES, "MEM_INST_RETIRED:ALL_STORES"),
	ROW("icx", CYCLES, "UNHALTED_CORE_CYCLES"),

	/* Intel Sapphire Rapids (Golden Cove).  It has no L1I miss count
	 * (ICACHE_DATA/ICACHE_TAG count stall cycles); code reads reaching
	 * L2 are the L1I misses, as in the kernel's generic L1I read miss. */
	ROW("spr", L1D_MISS, "L1D:REPLACEMENT"),
	ROW("spr", L1I_MISS, "L2_RQSTS:ALL_CODE_RD"),
	ROW("spr", L2D_MISS, "L2_RQSTS:DEMAND_DATA_RD_MISS"),
	ROW("spr", L2I_MISS, "L2_RQSTS:CODE_RD_MISS"),
	ROW("spr", L2_MISS, "L2_RQSTS:ALL_DEMAND_MISS"),
	ROW("spr", L3_MISS, "LONGEST_LAT_CACHE:MISS"),
	ROW("spr", STLB_MISS, "DTLB_LOAD_MISSES:WALK_COMPLETED"),
	ROW("spr", ITLB_WALK, "ITLB_MISSES:WALK_COMPLETED"),
	ROW("spr", LOADS, "MEM_INST_RETIRED:ALL_LOADS"),
	ROW("spr", STORES, "MEM_INST_RETIRED:ALL_STORES"),
	ROW("spr", CYCLES, "UNHALTED_CORE_CYCLES"),

	/* AMD Zen 2 (PPR for family 17h models 31h+).  L1D misses are the
	 * demand fills from every source; L1I misses the I-cache fill
	 * requests to L2 (no IC miss event in this libpfm table); L2 misses
	 * from PMCx064 (L2CacheReqStat: DC miss 0x08, IC miss 0x01). */
	ROW("zen2", L1D_MISS, "DATA_CACHE_REFILLS_FROM_SYSTEM:MABRESP_LCL_L2:LS_MABRESP_LCL_CACHE"
			      ":LS_MABRESP_LCL_DRAM:LS_MABRESP_RMT_CACHE:LS_MABRESP_RMT_DRAM"),
	ROW("zen2", L1I_MISS, "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:IC_FILL_MISS:IC_FILL_HIT_S"
			      ":IC_FILL_HIT_X"),
	ROW("zen2", L2D_MISS, "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C"),
	ROW("zen2", L2I_MISS, "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:IC_FILL_MISS"),
	ROW("zen2", L2_MISS, "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C:IC_FILL_MISS"),
	ROW("zen2", DTLB_MISS, "L1_DTLB_MISS:TLB_RELOAD_4K_L2_HIT:TLB_RELOAD_COALESCED_PAGE_HIT"
			       ":TLB_RELOAD_2M_L2_HIT:TLB_RELOAD_1G_L2_HIT:TLB_RELOAD_4K_L2_MISS"
			       ":TLB_RELOAD_COALESCED_PAGE_MISS:TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS"),
	ROW("zen2", STLB_MISS, "L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS"
			       ":TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS"),
	ROW("zen2", ITLB_WALK, "L1_ITLB_MISS_L2_ITLB_MISS:IF4K:IF2M:IF1G"),
	ROW("zen2", LOADS, "LS_DISPATCH:LD_DISPATCH"),
	ROW("zen2", STORES, "LS_DISPATCH:STORE_DISPATCH"),
	ROW("zen2", CYCLES, "CYCLES_NOT_IN_HALT"),

	/* AMD Zen 3 (PPR for family 19h model 01h). */
	ROW("zen3", L1D_MISS, "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:LCL_L2:INT_CACHE:EXT_CACHE_LCL"
			      ":MEM_IO_LCL:EXT_CACHE_RMT:MEM_IO_RMT"),
	ROW("zen3", L1I_MISS, "IC_TAG_HIT_MISS:IC_MISS"),
	ROW("zen3", L2D_MISS, "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C"),
	ROW("zen3", L2I_MISS, "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:IC_FILL_MISS"),
	ROW("zen3", L2_MISS, "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C:IC_FILL_MISS"),
	ROW("zen3", DTLB_MISS, "L1_DTLB_MISS:TLB_RELOAD_4K_L2_HIT:TLB_RELOAD_COALESCED_PAGE_HIT"
			       ":TLB_RELOAD_2M_L2_HIT:TLB_RELOAD_1G_L2_HIT:TLB_RELOAD_4K_L2_MISS"
			       ":TLB_RELOAD_COALESCED_PAGE_MISS:TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS"),
	ROW("zen3", STLB_MISS, "L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS"
			       ":TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS"),
	ROW("zen3", ITLB_WALK, "L1_ITLB_MISS_L2_ITLB_MISS:IF4K:IF2M:IF1G"),
	ROW("zen3", LOADS, "LS_DISPATCH:LD_DISPATCH"),
	ROW("zen3", STORES, "LS_DISPATCH:STORE_DISPATCH"),
	ROW("zen3", CYCLES, "CYCLES_NOT_IN_HALT"),

	/* AMD Zen 4 (PPR for family 19h model 11h). */
	ROW("zen4", L1D_MISS, "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:LCL_L2:LOCAL_CCX"
			      ":NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:FAR_CACHE_NEAR_FAR:DRAM_IO_FAR"
			      ":ALT_MEM_NEAR_FAR"),
	ROW("zen4", L1I_MISS, "IC_TAG_HIT_MISS:IC_MISS"),
	ROW("zen4", L2D_MISS, "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C"),
	ROW("zen4", L2I_MISS, "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:IC_FILL_MISS"),
	ROW("zen4", L2_MISS, "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C:IC_FILL_MISS"),
	ROW("zen4", DTLB_MISS, "L1_DTLB_MISS:TLB_RELOAD_4K_L2_HIT:TLB_RELOAD_COALESCED_PAGE_HIT"
			       ":TLB_RELOAD_2M_L2_HIT:TLB_RELOAD_1G_L2_HIT:TLB_RELOAD_4K_L2_MISS"
			       ":TLB_RELOAD_COALESCED_PAGE_MISS:TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS"),
	ROW("zen4", STLB_MISS, "L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS"
			       ":TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_1G_L2_MISS"),
	ROW("zen4", ITLB_WALK, "L1_ITLB_MISS_L2_ITLB_MISS:IF4K:IF2M:IF1G"),
	ROW("zen4", LOADS, "LS_DISPATCH:LD_DISPATCH"),
	ROW("zen4", STORES, "LS_DISPATCH:STORE_DISPATCH"),
	ROW("zen4", CYCLES, "CYCLES_NOT_IN_HALT"),

	/* Arm Neoverse N1 (TRM, PMU events).  Its L2 is unified and has no
	 * separate data/instruction refill counts; the L2 TLB is unified
	 * too.  N1 lacks LD_RETIRED/ST_RETIRED: loads and stores are the
	 * speculatively executed ones. */
	ROW("neoverse-n1", L1D_MISS, "L1D_CACHE_REFILL"),
	ROW("neoverse-n1", L1I_MISS, "L1I_CACHE_REFILL"),
	ROW("neoverse-n1", L2_MISS, "L2D_CACHE_REFILL"),
	ROW("neoverse-n1", L3_MISS, "L3D_CACHE_REFILL"),
	ROW("neoverse-n1", DTLB_MISS, "L1D_TLB_REFILL"),
	ROW("neoverse-n1", STLB_MISS, "L2D_TLB_REFILL"),
	ROW("neoverse-n1", ITLB_MISS, "L1I_TLB_REFILL"),
	ROW("neoverse-n1", LOADS, "LD_SPEC"),
	ROW("neoverse-n1", STORES, "ST_SPEC"),
	ROW("neoverse-n1", CYCLES, "CPU_CYCLES"),

	{ NULL, 0, NULL, 0 }
};

#undef ROW

static const struct amp_uarch *uarch_in(const struct amp_uarch *uarchs, const char *name)
{
	for (const struct amp_uarch *u = uarchs; u->name; u++)
		if (strcmp(u->name, name) == 0)
			return u;
	return NULL;
}

const struct amp_uarch *amp_uarch_find(const char *name)
{
	return name ? uarch_in(amp_uarchs, name) : NULL;
}

const struct amp_uarch *amp_uarch_for_cpu(const struct amp_cpu_id *id)
{
	if (!id)
		return NULL;
	for (size_t i = 0; i < sizeof amp_cpu_matches / sizeof amp_cpu_matches[0]; i++) {
		const struct amp_cpu_match *m = &amp_cpu_matches[i];

		if (m->arm) {
			if (id->implementer != m->family || id->part < m->lo || id->part > m->hi)
				continue;
		} else if (strcmp(id->vendor, m->vendor) != 0 || id->family != m->family ||
			   id->model < m->lo || id->model > m->hi) {
			continue;
		}
		return amp_uarch_find(m->uarch);
	}
	return NULL;
}

const char *amp_eventmap_native(const struct amp_uarch *u, enum amp_event ev)
{
	if (!u)
		return NULL;
	for (const struct amp_eventmap_row *r = amp_eventmap; r->uarch; r++)
		if (r->ev == ev && strcmp(r->uarch, u->name) == 0)
			return r->native;
	return NULL;
}

static const char *event_name(enum amp_event ev)
{
	return (unsigned)ev < AMP_EV_COUNT ? amp_event_table[ev].name : "?";
}

/* The checks on a pair of tables; separate from amp_eventmap_selfcheck()
 * so the test can feed it broken copies. */
int amp_eventmap_check(const struct amp_uarch *uarchs, const struct amp_eventmap_row *rows,
		       char *err, size_t len)
{
	const struct amp_eventmap_row *r, *q;
	const struct amp_uarch *u, *v;

	for (u = uarchs; u->name; u++) {
		if (!u->title || !u->pfm_pmu || !u->name[0] || !u->pfm_pmu[0]) {
			snprintf(err, len, "uarch %s: title and libpfm4 PMU name are required", u->name);
			return -1;
		}
		for (v = uarchs; v != u; v++)
			if (strcmp(u->name, v->name) == 0) {
				snprintf(err, len, "uarch %s is listed twice", u->name);
				return -1;
			}
	}
	for (r = rows; r->uarch; r++) {
		if (!uarch_in(uarchs, r->uarch)) {
			snprintf(err, len, "eventmap.c:%d: unknown uarch \"%s\"", r->line, r->uarch);
			return -1;
		}
		if ((unsigned)r->ev >= AMP_EV_COUNT) {
			snprintf(err, len, "eventmap.c:%d: event %d out of range", r->line, (int)r->ev);
			return -1;
		}
		/* The backend adds the PMU prefix and the privilege level. */
		if (!r->native || !r->native[0] || strstr(r->native, "::") ||
		    strpbrk(r->native, "= \t,")) {
			snprintf(err, len, "eventmap.c:%d: %s %s: native name \"%s\" must be EVENT[:UMASK...] "
				 "without PMU prefix or modifiers", r->line, r->uarch,
				 event_name(r->ev), r->native ? r->native : "(null)");
			return -1;
		}
		if (r != rows && strcmp(r[-1].uarch, r->uarch) == 0) {
			if (r[-1].ev == r->ev) {
				snprintf(err, len, "eventmap.c:%d: duplicate row for %s %s (also line %d)",
					 r->line, r->uarch, event_name(r->ev), r[-1].line);
				return -1;
			}
			if (r[-1].ev > r->ev) {
				snprintf(err, len, "eventmap.c:%d: %s %s is out of order (events go in "
					 "enum amp_event order)", r->line, r->uarch, event_name(r->ev));
				return -1;
			}
		} else {
			/* A new group: this uarch must not have appeared before. */
			for (q = rows; q != r; q++)
				if (strcmp(q->uarch, r->uarch) == 0) {
					snprintf(err, len, "eventmap.c:%d: rows of %s are not together "
						 "(also line %d)", r->line, r->uarch, q->line);
					return -1;
				}
		}
	}
	/* Every uarch must at least count L1D misses and cycles: amp's
	 * cache measurements need both. */
	for (u = uarchs; u->name; u++) {
		int l1d = 0, cycles = 0;

		for (r = rows; r->uarch; r++) {
			if (strcmp(r->uarch, u->name) != 0)
				continue;
			l1d |= r->ev == AMP_EV_L1D_MISS;
			cycles |= r->ev == AMP_EV_CYCLES;
		}
		if (!l1d || !cycles) {
			snprintf(err, len, "uarch %s has no row for %s", u->name,
				 l1d ? "CYCLES" : "L1D_MISS");
			return -1;
		}
	}
	return 0;
}

int amp_eventmap_selfcheck(char *err, size_t len)
{
	if (amp_eventmap_check(amp_uarchs, amp_eventmap, err, len) < 0)
		return -1;
	for (size_t i = 0; i < sizeof amp_cpu_matches / sizeof amp_cpu_matches[0]; i++) {
		const struct amp_cpu_match *m = &amp_cpu_matches[i];

		if (!amp_uarch_find(m->uarch)) {
			snprintf(err, len, "CPU table row %zu names unknown uarch \"%s\"", i, m->uarch);
			return -1;
		}
		if (m->lo > m->hi || (!m->arm && !m->vendor)) {
			snprintf(err, len, "CPU table row %zu (%s): bad model range or vendor", i, m->uarch);
			return -1;
		}
		/* Overlapping ranges would make the answer depend on order. */
		for (size_t j = 0; j < i; j++) {
			const struct amp_cpu_match *o = &amp_cpu_matches[j];

			if (o->arm == m->arm && o->family == m->family &&
			    (m->arm || strcmp(o->vendor, m->vendor) == 0) &&
			    o->lo <= m->hi && m->lo <= o->hi) {
				snprintf(err, len, "CPU table rows %zu and %zu overlap", j, i);
				return -1;
			}
		}
	}
	return 0;
}
