/* test_eventmap.c - the event map's tables and self-check, the CPU ->
 * uarch table, libpfm4's encoding of every row (with vendor-documented
 * raw codes for a few), and what the perf and PAPI backends report when
 * they cannot count. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>
#endif
#ifdef HAVE_PAPI
#include <papi.h>
#endif
#include "counters.h"
#include "eventmap.h"
#include "tap.h"

static void test_selfcheck(void)
{
	char err[256] = "";
	int r = amp_eventmap_check(amp_uarchs, amp_eventmap, err, sizeof err);

	if (!tap_ok(r == 0, "amp_eventmap_check passes on the real tables"))
		tap_diag("%s", err);
	err[0] = '\0';
	r = amp_eventmap_selfcheck(err, sizeof err);
	if (!tap_ok(r == 0, "amp_eventmap_selfcheck passes (tables and CPU table)"))
		tap_diag("%s", err);
}

#define R(u, e, n) { u, AMP_EV_##e, n, __LINE__ }
#define END { NULL, 0, NULL, 0 }

static const struct amp_uarch toy_uarchs[] = {
	{ "a", "Toy A", "pmu_a" }, { "b", "Toy B", "pmu_b" }, { NULL, NULL, NULL }
};
static const struct amp_uarch toy_uarchs_twice[] = {
	{ "a", "Toy A", "pmu_a" }, { "a", "Toy A again", "pmu_a" }, { NULL, NULL, NULL }
};
static const struct amp_eventmap_row toy_good[] = {
	R("a", L1D_MISS, "X"), R("a", CYCLES, "C"), R("b", L1D_MISS, "X"), R("b", CYCLES, "C"), END
};
static const struct amp_eventmap_row toy_unknown[] = {
	R("a", L1D_MISS, "X"), R("a", CYCLES, "C"), R("c", L1D_MISS, "X"), END
};
static const struct amp_eventmap_row toy_dup[] = {
	R("a", L1D_MISS, "X"), R("a", L1D_MISS, "Y"), R("a", CYCLES, "C"),
	R("b", L1D_MISS, "X"), R("b", CYCLES, "C"), END
};
static const struct amp_eventmap_row toy_order[] = {
	R("a", CYCLES, "C"), R("a", L1D_MISS, "X"), R("b", L1D_MISS, "X"), R("b", CYCLES, "C"), END
};
static const struct amp_eventmap_row toy_split[] = {
	R("a", L1D_MISS, "X"), R("b", L1D_MISS, "X"), R("b", CYCLES, "C"), R("a", CYCLES, "C"), END
};
static const struct amp_eventmap_row toy_nocycles[] = {
	R("a", L1D_MISS, "X"), R("a", CYCLES, "C"), R("b", L1D_MISS, "X"), END
};
static const struct amp_eventmap_row toy_prefix[] = {
	R("a", L1D_MISS, "pmu_a::X"), R("a", CYCLES, "C"), R("b", L1D_MISS, "X"), R("b", CYCLES, "C"), END
};
static const struct amp_eventmap_row toy_modifier[] = {
	R("a", L1D_MISS, "X:u=0"), R("a", CYCLES, "C"), R("b", L1D_MISS, "X"), R("b", CYCLES, "C"), END
};
static const struct amp_eventmap_row toy_badev[] = {
	R("a", L1D_MISS, "X"), { "a", (enum amp_event)99, "Z", __LINE__ }, R("a", CYCLES, "C"),
	R("b", L1D_MISS, "X"), R("b", CYCLES, "C"), END
};

static void expect_broken(const struct amp_uarch *u, const struct amp_eventmap_row *rows,
			  const char *what, const char *needle)
{
	char err[256] = "";
	int r = amp_eventmap_check(u, rows, err, sizeof err);

	tap_eq(r, -1, "self-check catches %s", what);
	tap_has(err, needle, "... and says so: %s", err);
}

/* Rows of one real uarch, copied so they can be broken. */
static int copy_rows(const char *uarch, struct amp_eventmap_row *out, int max)
{
	int n = 0;

	for (const struct amp_eventmap_row *r = amp_eventmap; r->uarch && n < max - 1; r++)
		if (strcmp(r->uarch, uarch) == 0)
			out[n++] = *r;
	memset(&out[n], 0, sizeof out[n]);
	return n;
}

static void test_broken(void)
{
	struct amp_uarch spr_only[2];
	struct amp_eventmap_row rows[AMP_EV_COUNT + 2], tmp;
	char err[256] = "";
	int n;

	tap_eq(amp_eventmap_check(toy_uarchs, toy_good, err, sizeof err), 0,
	       "self-check passes a good toy table %s", err);
	expect_broken(toy_uarchs, toy_unknown, "an unknown uarch", "unknown uarch \"c\"");
	expect_broken(toy_uarchs, toy_dup, "a duplicate (uarch, event)", "duplicate row for a L1D_MISS");
	expect_broken(toy_uarchs, toy_order, "events out of enum order", "out of order");
	expect_broken(toy_uarchs, toy_split, "a uarch's rows split apart", "not together");
	expect_broken(toy_uarchs, toy_nocycles, "a uarch without CYCLES", "b has no row for CYCLES");
	expect_broken(toy_uarchs, toy_prefix, "a native name with a PMU prefix", "without PMU prefix");
	expect_broken(toy_uarchs, toy_modifier, "a native name with a modifier", "modifiers");
	expect_broken(toy_uarchs, toy_badev, "an event out of range", "out of range");
	expect_broken(toy_uarchs_twice, toy_good, "a uarch listed twice", "listed twice");

	/* The same on a copy of real rows. */
	if (!amp_uarch_find("spr")) {
		tap_ok(0, "uarch spr exists");
		return;
	}
	spr_only[0] = *amp_uarch_find("spr");
	memset(&spr_only[1], 0, sizeof spr_only[1]);
	n = copy_rows("spr", rows, (int)(sizeof rows / sizeof rows[0]));
	tap_ok(n >= 3, "spr has %d rows", n);
	if (n < 3)
		return;
	tap_eq(amp_eventmap_check(spr_only, rows, err, sizeof err), 0,
	       "a copy of the spr rows passes %s", err);
	tmp = rows[1];
	rows[1] = rows[2];
	rows[2] = tmp;
	expect_broken(spr_only, rows, "two real spr rows swapped", "out of order");
	rows[2] = rows[1];
	expect_broken(spr_only, rows, "a real spr row duplicated", "duplicate row for spr");
	copy_rows("spr", rows, (int)(sizeof rows / sizeof rows[0]));
	rows[n - 1].uarch = "sapphire";
	expect_broken(spr_only, rows, "a real row with a misspelt uarch", "unknown uarch \"sapphire\"");
	copy_rows("spr", rows, (int)(sizeof rows / sizeof rows[0]));
	rows[n - 1].native = "spr::UNHALTED_CORE_CYCLES";
	expect_broken(spr_only, rows, "a real row with the PMU prefix", "without PMU prefix");
	n = copy_rows("spr", rows, (int)(sizeof rows / sizeof rows[0]));
	if (rows[n - 1].ev == AMP_EV_CYCLES) {
		memset(&rows[n - 1], 0, sizeof rows[n - 1]);
		expect_broken(spr_only, rows, "spr rows without CYCLES", "spr has no row for CYCLES");
	}
}

static void test_cpu_map(void)
{
	static const struct {
		const char *vendor;
		unsigned family, model, implementer, part;
		const char *want;
		const char *what;
	} cases[] = {
		{ "GenuineIntel", 6, 0xcf, 0, 0, "spr", "Emerald Rapids (unknown to libpfm4 4.13)" },
		{ "GenuineIntel", 6, 0x8f, 0, 0, "spr", "Sapphire Rapids" },
		{ "GenuineIntel", 6, 0x55, 0, 0, "skx", "Skylake-SP/Cascade Lake" },
		{ "GenuineIntel", 6, 0x6a, 0, 0, "icx", "Ice Lake-SP" },
		{ "GenuineIntel", 6, 0x7e, 0, 0, "icl", "Ice Lake client" },
		{ "GenuineIntel", 6, 0x3c, 0, 0, NULL, "Haswell (no table)" },
		{ "AuthenticAMD", 0x19, 0x61, 0, 0, "zen4", "Zen 4 Raphael" },
		{ "AuthenticAMD", 0x19, 0x11, 0, 0, "zen4", "Zen 4 Genoa" },
		{ "AuthenticAMD", 0x19, 0x01, 0, 0, "zen3", "Zen 3 Milan" },
		{ "AuthenticAMD", 0x19, 0x21, 0, 0, "zen3", "Zen 3 Vermeer" },
		{ "AuthenticAMD", 0x17, 0x31, 0, 0, "zen2", "Zen 2 Rome" },
		{ "AuthenticAMD", 0x17, 0x71, 0, 0, "zen2", "Zen 2 Matisse" },
		{ "AuthenticAMD", 0x17, 0x01, 0, 0, NULL, "Zen 1 (no table)" },
		{ "AuthenticAMD", 0x1a, 0x02, 0, 0, NULL, "Zen 5 (no libpfm4 4.13 PMU)" },
		{ "AuthenticAMD", 6, 0x55, 0, 0, NULL, "AMD with an Intel model number" },
		{ "", 0, 0, 0x41, 0xd0c, "neoverse-n1", "Arm Neoverse N1" },
		{ "", 0, 0, 0x41, 0xd40, NULL, "Arm Neoverse V1 (no table)" },
		{ "", 0, 0, 0x51, 0xd0c, NULL, "another implementer's part 0xd0c" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct amp_cpu_id id;
		const struct amp_uarch *u;

		memset(&id, 0, sizeof id);
		snprintf(id.arch, sizeof id.arch, "%s", cases[i].implementer ? "aarch64" : "x86_64");
		snprintf(id.vendor, sizeof id.vendor, "%s", cases[i].vendor);
		id.family = cases[i].family;
		id.model = cases[i].model;
		id.implementer = cases[i].implementer;
		id.part = cases[i].part;
		u = amp_uarch_for_cpu(&id);
		if (cases[i].want)
			tap_ok(u && strcmp(u->name, cases[i].want) == 0, "%s -> %s (got %s)",
			       cases[i].what, cases[i].want, u ? u->name : "none");
		else
			tap_ok(!u, "%s -> no table (got %s)", cases[i].what, u ? u->name : "none");
	}
	tap_ok(amp_uarch_find("nonesuch") == NULL && amp_uarch_find(NULL) == NULL,
	       "amp_uarch_find of an unknown name is NULL");
	tap_ok(amp_eventmap_native(amp_uarch_find("spr"), AMP_EV_L4_MISS) == NULL,
	       "spr has no L4_MISS row");
}

static void test_host(void)
{
	struct amp_cpu_id id;
	const struct amp_uarch *u;

	tap_eq(amp_cpu_identify(&id), 0, "amp_cpu_identify succeeds");
	tap_ok(id.arch[0] != '\0', "the host architecture is known (%s)", id.arch);
#if defined(__x86_64__) || defined(__i386__)
	tap_ok(id.vendor[0] && id.family > 0, "CPUID gives vendor %s family 0x%x model 0x%x stepping %u",
	       id.vendor, id.family, id.model, id.stepping);
#endif
	u = amp_uarch_for_cpu(&id);
	tap_diag("host: %s %s family 0x%x model 0x%x stepping %u impl 0x%x part 0x%x \"%s\" -> %s",
		 id.arch, id.vendor, id.family, id.model, id.stepping, id.implementer, id.part,
		 id.model_name, u ? u->name : "no event table");
}

#ifdef HAVE_LIBPFM
/* Is this PMU compiled into libpfm4 (x86 builds lack the ARM ones)? */
static int pmu_built(const char *name)
{
	pfm_pmu_t p;

	pfm_for_all_pmus(p) {
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof info);
		info.size = sizeof info;
		if (pfm_get_pmu_info(p, &info) == PFM_SUCCESS && strcmp(info.name, name) == 0)
			return 1;
	}
	return 0;
}

static int encode(const struct amp_uarch *u, const char *native, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;
	char name[512];

	snprintf(name, sizeof name, "%s::%s", u->pfm_pmu, native);
	memset(attr, 0, sizeof *attr);
	attr->size = sizeof *attr;
	memset(&arg, 0, sizeof arg);
	arg.attr = attr;
	arg.size = sizeof arg;
	return pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
}

static void test_libpfm(void)
{
	/* Exact encodings, event | umask << 8 (AMD: event[11:8] at bit 32),
	 * as the vendors document them: Intel SDM / perfmon event lists,
	 * AMD PPRs (and Linux perf's JSON), Arm's N1 TRM. */
	static const struct {
		const char *uarch;
		enum amp_event ev;
		const char *native;
		unsigned long long config;
		const char *doc;
	} exact[] = {
		{ "spr", AMP_EV_L1D_MISS, "L1D:REPLACEMENT", 0x151, "event 51H umask 01H" },
		{ "skx", AMP_EV_STLB_MISS, "DTLB_LOAD_MISSES:MISS_CAUSES_A_WALK", 0x108,
		  "event 08H umask 01H" },
		{ "skx", AMP_EV_L1I_MISS, "ICACHE_64B:IFTAG_MISS", 0x283, "event 83H umask 02H" },
		{ "skx", AMP_EV_L2D_MISS, "L2_RQSTS:DEMAND_DATA_RD_MISS", 0x2124, "event 24H umask 21H" },
		{ "skx", AMP_EV_L3_MISS, "LONGEST_LAT_CACHE:MISS", 0x412e,
		  "architectural: event 2EH umask 41H" },
		{ "skx", AMP_EV_LOADS, "MEM_INST_RETIRED:ALL_LOADS", 0x81d0, "event D0H umask 81H" },
		{ "skx", AMP_EV_CYCLES, "UNHALTED_CORE_CYCLES", 0x3c, "architectural: event 3CH" },
		{ "icl", AMP_EV_STLB_MISS, "DTLB_LOAD_MISSES:WALK_COMPLETED", 0xe08, "event 08H umask 0EH" },
		{ "spr", AMP_EV_STLB_MISS, "DTLB_LOAD_MISSES:WALK_COMPLETED", 0xe12, "event 12H umask 0EH" },
		{ "spr", AMP_EV_L1I_MISS, "L2_RQSTS:ALL_CODE_RD", 0xe424, "event 24H umask E4H" },
		{ "spr", AMP_EV_STORES, "MEM_INST_RETIRED:ALL_STORES", 0x82d0, "event D0H umask 82H" },
		{ "zen2", AMP_EV_L2_MISS, "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C:IC_FILL_MISS",
		  0x964, "PMCx064 umask 0x09 (l2_cache_req_stat.ic_dc_miss_in_l2)" },
		{ "zen3", AMP_EV_L1I_MISS, "IC_TAG_HIT_MISS:IC_MISS", 0x10000188eULL,
		  "PMCx18E umask 0x18" },
		{ "zen3", AMP_EV_DTLB_MISS, NULL, 0xff45, "PMCx045 umask 0xFF (ls_l1_d_tlb_miss.all)" },
		{ "zen4", AMP_EV_STLB_MISS, NULL, 0xf045,
		  "PMCx045 umask 0xF0 (ls_l1_d_tlb_miss.all_l2_miss)" },
		{ "zen4", AMP_EV_CYCLES, "CYCLES_NOT_IN_HALT", 0x76, "PMCx076" },
		{ "zen3", AMP_EV_ITLB_WALK, NULL, 0x785, "PMCx085 umask 0x07 (bp_l1_tlb_miss_l2_tlb_miss)" },
		{ "skx", AMP_EV_ITLB_WALK, NULL, 0xe85, "event 85H umask 0EH (ITLB_MISSES.WALK_COMPLETED)" },
		{ "spr", AMP_EV_ITLB_WALK, NULL, 0xe11, "event 11H umask 0EH (ITLB_MISSES.WALK_COMPLETED)" },
		{ "neoverse-n1", AMP_EV_L1D_MISS, "L1D_CACHE_REFILL", 0x03, "event 0x03" },
		{ "neoverse-n1", AMP_EV_STLB_MISS, "L2D_TLB_REFILL", 0x2d, "event 0x2D" },
	};
	const struct amp_uarch *skipped = NULL;
	struct perf_event_attr attr;
	int r;

	/* Before pfm_initialize: amp encodes PMUs libpfm4 did not detect. */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	r = pfm_initialize();
	if (!tap_ok(r == PFM_SUCCESS, "pfm_initialize")) {
		tap_diag("%s", pfm_strerror(r));
		return;
	}
	for (const struct amp_eventmap_row *row = amp_eventmap; row->uarch; row++) {
		const struct amp_uarch *u = amp_uarch_find(row->uarch);

		if (!u)
			continue; /* the self-check reports it */
		if (!pmu_built(u->pfm_pmu)) {
			if (skipped != u)
				tap_ok(1, "# SKIP %s rows: PMU %s is not built into this libpfm4 "
				       "(it has only its own architecture's PMUs)", u->name, u->pfm_pmu);
			skipped = u;
			continue;
		}
		r = encode(u, row->native, &attr);
		if (!tap_ok(r == PFM_SUCCESS, "eventmap.c:%d: %s::%s encodes (raw 0x%llx)", row->line,
			    u->pfm_pmu, row->native, (unsigned long long)attr.config))
			tap_diag("%s", pfm_strerror(r));
		else if (!tap_ok(attr.exclude_kernel && !attr.exclude_user,
				 "... for user level only"))
			tap_diag("exclude_user %d exclude_kernel %d", (int)attr.exclude_user,
				 (int)attr.exclude_kernel);
	}
	for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
		const struct amp_uarch *u = amp_uarch_find(exact[i].uarch);
		const char *native = amp_eventmap_native(u, exact[i].ev);

		if (!tap_ok(native != NULL, "%s has a row for %s", exact[i].uarch,
			    amp_event_table[exact[i].ev].name))
			continue;
		if (exact[i].native)
			tap_ok(strcmp(native, exact[i].native) == 0, "%s %s is %s (got %s)",
			       exact[i].uarch, amp_event_table[exact[i].ev].name, exact[i].native, native);
		if (!pmu_built(u->pfm_pmu)) {
			tap_ok(1, "# SKIP %s::%s: PMU not built into this libpfm4", u->pfm_pmu, native);
			continue;
		}
		r = encode(u, native, &attr);
		tap_ok(r == PFM_SUCCESS, "%s::%s encodes", u->pfm_pmu, native);
		tap_eq(attr.config, exact[i].config, "%s %s: raw 0x%llx, %s", exact[i].uarch,
		       amp_event_table[exact[i].ev].name, exact[i].config, exact[i].doc);
	}
}
#endif

/* Is there certainly no CPU PMU?  Only said for x86 guests, whose core
 * PMU is "cpu" (or cpu_core/cpu_atom on hybrids). */
static int no_x86_pmu(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return access("/sys/bus/event_source/devices/software", F_OK) == 0 &&
	       access("/sys/bus/event_source/devices/cpu", F_OK) != 0 &&
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) != 0 &&
	       access("/sys/bus/event_source/devices/cpu_atom", F_OK) != 0;
#else
	return 0;
#endif
}

/* Something to count: walks a buffer larger than L1. */
static uint64_t busy_loop(void)
{
	static volatile unsigned char buf[1 << 20];
	uint64_t sum = 0;

	for (int rep = 0; rep < 8; rep++)
		for (size_t i = 0; i < sizeof buf; i += 64) {
			buf[i] = (unsigned char)(buf[i] + rep);
			sum += buf[i];
		}
	return sum;
}

static void open_read(const struct amp_backend_ops *ops, const struct amp_host *host)
{
	struct amp_cset set;
	uint64_t v[2] = { 0, 0 };
	char err[AMP_REASON_LEN] = "";

	memset(&set, 0, sizeof set);
	set.ops = ops;
	set.host = host;
	set.n = 2;
	set.ev[0] = AMP_EV_L1D_MISS;
	set.ev[1] = AMP_EV_CYCLES;
	if (!tap_ok(ops->open(&set, err, sizeof err) == 0, "%s: opens L1D_MISS+CYCLES", ops->name)) {
		tap_diag("%s", err);
		return;
	}
	tap_eq(ops->start(&set), 0, "%s: start", ops->name);
	tap_diag("loop checksum %llu", (unsigned long long)busy_loop());
	tap_eq(ops->stop(&set), 0, "%s: stop", ops->name);
	tap_eq(ops->read(&set, v), 0, "%s: read", ops->name);
	tap_ok(v[1] > 0, "%s: nonzero cycles (%llu), L1D misses %llu", ops->name,
	       (unsigned long long)v[1], (unsigned long long)v[0]);
	ops->close(&set);
}

static void expect_open_fails(const struct amp_backend_ops *ops, const struct amp_host *host,
			      enum amp_event e0, enum amp_event e1, const char *needle)
{
	struct amp_cset set;
	char err[AMP_REASON_LEN] = "";

	memset(&set, 0, sizeof set);
	set.ops = ops;
	set.host = host;
	set.n = 2;
	set.ev[0] = e0;
	set.ev[1] = e1;
	tap_eq(ops->open(&set, err, sizeof err), -1, "%s: open of %s+%s fails", ops->name,
	       amp_event_table[e0].name, amp_event_table[e1].name);
	tap_has(err, needle, "... and says: %s", err);
	tap_ok(set.priv == NULL, "... leaving nothing open");
	if (set.priv)
		ops->close(&set);
}

static void test_perf(void)
{
	static const struct {
		const char *name, *needle;
	} fakes[] = {
		{ "EACCES", "perf_event_paranoid" }, { "EPERM", "perf_event_paranoid" },
		{ "ENOSYS", "seccomp" }, { "ENOENT", "no hardware PMU" },
		{ "EOPNOTSUPP", "no hardware PMU" }, { "ENODEV", "no hardware PMU" },
	};
	const struct amp_backend_ops *ops = &amp_backend_perf;
	struct amp_host host = { NULL };
	char why[AMP_REASON_LEN];
	int p;

	tap_ok(strcmp(ops->name, "perf") == 0 && ops->priority == 50 && ops->auto_select == 1,
	       "perf backend: name, priority 50, auto-selected");
	for (size_t i = 0; i < sizeof fakes / sizeof fakes[0]; i++) {
		setenv("AMP_FAKE_PERF_ERRNO", fakes[i].name, 1);
		why[0] = '\0';
		tap_eq(ops->probe(&host, why, sizeof why), 0, "perf probe fails with fake %s",
		       fakes[i].name);
		tap_has(why, fakes[i].needle, "... and says: %s", why);
	}
	setenv("AMP_FAKE_PERF_ERRNO", "EACCES", 1);
	expect_open_fails(ops, &host, AMP_EV_CYCLES, AMP_EV_L1D_MISS, "perf_event_paranoid");
	unsetenv("AMP_FAKE_PERF_ERRNO");

	tap_eq(ops->event_info(&host, AMP_EV_L4_MISS, why, sizeof why), 0, "perf: L4_MISS is absent");
	tap_has(why, "L4_MISS", "... and says why: %s", why);
	tap_eq(ops->event_info(&host, AMP_EV_CYCLES, why, sizeof why), 1, "perf: CYCLES maps to %s", why);
	tap_eq(ops->event_info(&host, AMP_EV_L1D_MISS, why, sizeof why), 1,
	       "perf: L1D_MISS maps to %s", why);
	expect_open_fails(ops, &host, AMP_EV_CYCLES, AMP_EV_L4_MISS, "L4_MISS");

	why[0] = '\0';
	p = ops->probe(&host, why, sizeof why);
	tap_diag("perf probe: %d: %s", p, why);
	if (p) {
		open_read(ops, &host);
		return;
	}
	tap_has(why, "perf_event", "perf probe says why it cannot count");
	if (no_x86_pmu()) {
		tap_has(why, "No such file or directory", "no PMU on this x86 machine: ENOENT reported");
		tap_has(why, "no hardware PMU", "... and explained");
	}
}

#ifdef HAVE_PAPI
static void test_papi(void)
{
	const struct amp_backend_ops *ops = &amp_backend_papi;
	const PAPI_component_info_t *ci = NULL;
	struct amp_host host = { NULL };
	char why[AMP_REASON_LEN] = "", reason[48];
	int p, cidx;

	tap_ok(strcmp(ops->name, "papi") == 0 && ops->priority == 40 && ops->auto_select == 1,
	       "papi backend: name, priority 40, auto-selected");
	p = ops->probe(&host, why, sizeof why);
	tap_diag("papi probe: %d: %s", p, why);
	if (PAPI_is_initialized() == PAPI_NOT_INITED) {
		tap_eq(p, 0, "papi: probe fails when PAPI does not initialise");
		tap_has(why, "papi", "... and says: %s", why);
		return;
	}
	cidx = PAPI_get_component_index("perf_event");
	if (cidx >= 0)
		ci = PAPI_get_component_info(cidx);
	if (ci && ci->disabled) {
		tap_eq(p, 0, "papi: probe fails while perf_event is disabled");
		tap_has(why, "perf_event", "... naming the component");
		/* The start of PAPI's reason is enough to recognise it. */
		memcpy(reason, ci->disabled_reason, sizeof reason - 1);
		reason[sizeof reason - 1] = '\0';
		tap_has(why, reason, "... with PAPI's reason");
		tap_eq(ops->event_info(&host, AMP_EV_L1D_MISS, why, sizeof why), 0,
		       "papi: L1D_MISS not countable now");
		tap_has(why, "PAPI_L1_DCM", "... and says: %s", why);
		expect_open_fails(ops, &host, AMP_EV_CYCLES, AMP_EV_L1D_MISS, reason);
	} else if (p) {
		open_read(ops, &host);
	} else {
		tap_has(why, "papi", "papi probe says why it cannot count");
	}
	tap_eq(ops->event_info(&host, AMP_EV_STLB_MISS, why, sizeof why), 0, "papi: STLB_MISS absent");
	tap_has(why, "no PAPI preset", "... and says: %s", why);
	expect_open_fails(ops, &host, AMP_EV_CYCLES, AMP_EV_L4_MISS, "L4_MISS");
}
#endif

int main(void)
{
	test_selfcheck();
	test_broken();
	test_cpu_map();
	test_host();
#ifdef HAVE_LIBPFM
	test_libpfm(); /* first: it sets libpfm4 up before the backends do */
#else
	tap_ok(1, "# SKIP libpfm4 encodings: amp was built without libpfm4");
#endif
	test_perf();
#ifdef HAVE_PAPI
	test_papi();
#else
	tap_ok(1, "# SKIP papi backend: amp was built without PAPI");
#endif
	return tap_done();
}
