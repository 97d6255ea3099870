/* test_vendor.c - CPUID decoding and the measured-against-reported
 * table on saved machines (tests/fixtures): an AMD Zen 5 guest captured
 * here and an Intel Emerald Rapids guest written from its description;
 * then the reasons amp gives for disagreements, on hand-built measured
 * hierarchies whose answers are known. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amp.h"
#include "measure.h"
#include "report.h"
#include "tap.h"
#include "vendor.h"

static char fixture[1024];

static const char *fx(const char *machine, const char *file)
{
	const char *dir = getenv("AMP_TEST_SRCDIR");

	snprintf(fixture, sizeof fixture, "%s/fixtures/%s/%s", dir ? dir : "tests", machine, file);
	return fixture;
}

static const struct amp_reported_cache *cache(const struct amp_vendor *v, int level, const char *type)
{
	for (int i = 0; i < v->ncache; i++)
		if (v->cache[i].level == level && strcmp(v->cache[i].type, type) == 0)
			return &v->cache[i];
	return NULL;
}

static int has_note(const struct amp_vendor *v, const char *text)
{
	for (int i = 0; i < v->nnotes; i++)
		if (strstr(v->notes[i], text))
			return 1;
	return 0;
}

/* Expected geometry of a cache: size, line, ways. */
static void check_cache(const struct amp_vendor *v, const char *machine, int level, const char *type,
			uint64_t size, unsigned line, unsigned ways)
{
	const struct amp_reported_cache *c = cache(v, level, type);

	if (!tap_ok(c != NULL, "%s: CPUID lists L%d %s", machine, level, type))
		return;
	tap_eq(c->size, size, "%s: L%d %s size", machine, level, type);
	tap_eq(c->line, line, "%s: L%d %s line", machine, level, type);
	tap_eq(c->ways, ways, "%s: L%d %s ways", machine, level, type);
}

static const struct amp_compare_row *row(const struct amp_compare *t, const char *level, const char *param)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->row[i].level, level) == 0 && strcmp(t->row[i].param, param) == 0)
			return &t->row[i];
	return NULL;
}

/* A measured level: parameters known and conclusive. */
static struct amp_level *level(struct amp_ctx *c, const char *name, int lvl, int64_t line, int64_t ways,
			       int64_t size, int64_t effective)
{
	struct amp_level *lv = &c->lv[c->nlv++];

	memset(lv, 0, sizeof *lv);
	snprintf(lv->name, sizeof lv->name, "%s", name);
	lv->kind = AMP_KIND_CACHE;
	lv->level = lvl;
	lv->measurable = 1;
	lv->selected = 1;
	lv->method = AMP_METHOD_TIMING;
	if (line)
		amp_param_measured(&lv->line, line, "timing");
	else
		amp_param_unknown(&lv->line, "not measured here");
	if (ways)
		amp_param_measured(&lv->assoc, ways, "timing");
	else
		amp_param_unknown(&lv->assoc, "not measured here");
	if (size)
		amp_param_measured(&lv->size, size, "timing");
	else
		amp_param_unknown(&lv->size, "needs the associativity first");
	if (effective)
		amp_param_measured(&lv->effective_size, effective, "timing");
	return lv;
}

/* A measured TLB: entries and page; ways 0 unknown (why), or fully
 * associative where they equal the entries. */
static void tlb(struct amp_ctx *c, const char *name, int lvl, int64_t entries, int64_t ways, const char *why)
{
	struct amp_level *lv = level(c, name, lvl, 4096, ways, entries, 0);

	lv->kind = AMP_KIND_TLB;
	lv->fully_associative = ways == entries;
	if (!ways)
		amp_param_unknown(&lv->assoc, why);
}

static void load(struct amp_report *r, struct amp_vendor *v, const char *machine)
{
	char root[1024];

	amp_report_init(r);
	snprintf(root, sizeof root, "%s", fx(machine, "cache"));
	setenv("AMP_SYSFS_ROOT", root, 1);
	tap_eq(amp_reported_from_sysfs(r), 0, "%s: sysfs fixture read", machine);
	tap_eq(amp_vendor_cpuid_file(v, fx(machine, "cpuid.txt")), 0, "%s: CPUID dump read", machine);
}

int main(void)
{
	static struct amp_report r;
	static struct amp_vendor v;
	static struct amp_ctx c;
	static struct amp_compare t;
	const struct amp_compare_row *x;

	/* The Zen 5 guest: 0x8000001D visible, leaf 4 empty, TLBs from
	 * the legacy leaves. */
	load(&r, &v, "zen5-guest");
	tap_ok(strcmp(v.vendor, "AuthenticAMD") == 0, "zen5: vendor AuthenticAMD (%s)", v.vendor);
	tap_eq(v.family, 0x1a, "zen5: family 0x1a");
	tap_eq(v.hypervisor, 1, "zen5: hypervisor bit");
	check_cache(&v, "zen5", 1, "data", 48 << 10, 64, 12);
	check_cache(&v, "zen5", 1, "instruction", 32 << 10, 64, 8);
	check_cache(&v, "zen5", 2, "unified", 1 << 20, 64, 16);
	check_cache(&v, "zen5", 3, "unified", 32 << 20, 64, 16);
	tap_ok(has_note(&v, "leaf 4 is empty"), "zen5: notes leaf 4 empty");
	tap_ok(v.ntlb >= 3, "zen5: TLBs from 0x80000005/6 (%d)", v.ntlb);
	tap_eq(r.nreported, 4, "zen5: four sysfs caches");

	/* Measured: L1d agrees; L2 effective below nominal; L3 a slice of a
	 * shared last level; L2 line doubled by adjacent-line prefetch. */
	memset(&c, 0, sizeof c);
	level(&c, "L1d", 1, 64, 12, 48 << 10, 48 << 10);
	level(&c, "L2", 2, 128, 0, 0, 740 << 10);
	level(&c, "L3", 3, 64, 0, 0, 3 << 20);
	r.hier = &c;
	amp_compare_build(&r, &v, &t);
	x = row(&t, "L1d", "size");
	tap_ok(x && x->verdict == AMP_AGREE, "zen5: L1d size agrees");
	x = row(&t, "L1d", "ways");
	tap_ok(x && x->verdict == AMP_AGREE && x->sysfs == 12 && x->cpuid == 12, "zen5: L1d ways 12 in all three");
	x = row(&t, "L3", "size");
	tap_ok(x && x->verdict == AMP_DIFFER, "zen5: L3 effective 3M differs from 32M");
	tap_has(x ? x->why : "", "shared last level", "zen5: L3 explained as a shared last level");
	tap_has(x ? x->measured_how : "", "effective", "zen5: L3 size is the effective one");
	x = row(&t, "L2", "line");
	tap_ok(x && x->verdict == AMP_DIFFER, "zen5: L2 line 128 differs");
	tap_has(x ? x->why : "", "adjacent-line", "zen5: doubled line explained by adjacent-line prefetch");
	x = row(&t, "L2", "ways");
	tap_ok(x && x->verdict == AMP_NOT_MEASURED, "zen5: L2 ways not measured");
	x = row(&t, "L1i", "size");
	tap_ok(x && x->verdict == AMP_NOT_MEASURED && x->sysfs == 32 << 10, "zen5: L1i reported, not measured");
	tap_eq(t.ndiffer, 3, "zen5: three disagreements (L2 size, L2 line, L3 size)");

	/* A first level's effective size within 3% of the reported one
	 * agrees (the Zen 3 guest's L1i: 32.38 KiB for 32); 6% off does not. */
	memset(&c, 0, sizeof c);
	level(&c, "L1i", 1, 0, 0, 0, 33157);
	level(&c, "L2", 2, 64, 16, 0, 1040 << 10);
	r.hier = &c;
	amp_compare_build(&r, &v, &t);
	x = row(&t, "L1i", "size");
	tap_ok(x && x->verdict == AMP_AGREE, "zen5: L1i effective 32.38 KiB agrees with 32 KiB");
	tap_has(x ? x->why : "", "within 3%", "zen5: and says why");
	x = row(&t, "L2", "size");
	tap_ok(x && x->verdict == AMP_DIFFER, "zen5: an L2 effective size 1.6%% over is no first level: differs");
	c.lv[0].effective_size.value = 34 << 10;
	amp_compare_build(&r, &v, &t);
	x = row(&t, "L1i", "size");
	tap_ok(x && x->verdict == AMP_DIFFER, "zen5: L1i effective 34 KiB differs from 32 KiB");

	/* The Emerald Rapids guest: leaf 4 with 20-way 260M L3, leaf 2
	 * pointing at 4 and 0x18, leaf 0x18 empty (hidden). */
	load(&r, &v, "intel-emr-guest");
	tap_ok(strcmp(v.vendor, "GenuineIntel") == 0, "emr: vendor GenuineIntel");
	tap_eq(v.family, 6, "emr: family 6");
	tap_eq(v.model, 207, "emr: model 207");
	check_cache(&v, "emr", 1, "data", 48 << 10, 64, 12);
	check_cache(&v, "emr", 1, "instruction", 32 << 10, 64, 8);
	check_cache(&v, "emr", 2, "unified", 2 << 20, 64, 16);
	check_cache(&v, "emr", 3, "unified", 260ULL << 20, 64, 20);
	tap_eq(v.ncache, 4, "emr: leaf 2's 0xFF adds no duplicate caches");
	tap_eq(v.ntlb, 0, "emr: no TLBs (leaf 0x18 empty)");
	tap_ok(has_note(&v, "0x18"), "emr: notes that leaf 0x18 is hidden");
	tap_eq(v.prefetch_bytes, 64, "emr: leaf 2 descriptor 0xF0 (64-byte prefetch)");

	/* Exclusion: an L2 whose effective size is its own plus L1d's. */
	memset(&c, 0, sizeof c);
	level(&c, "L1d", 1, 64, 12, 48 << 10, 48 << 10);
	level(&c, "L2", 2, 64, 16, 0, (2 << 20) + (48 << 10) + (32 << 10));
	level(&c, "L3", 3, 64, 0, 0, 24 << 20);
	r.hier = &c;
	amp_compare_build(&r, &v, &t);
	x = row(&t, "L2", "size");
	tap_ok(x && x->verdict == AMP_DIFFER, "emr: L2 effective above nominal differs");
	tap_has(x ? x->why : "", "exclusion", "emr: explained as exclusion");
	x = row(&t, "L3", "size");
	tap_has(x ? x->why : "", "shared last level", "emr: 24M of 260M: shared last level");
	x = row(&t, "L3", "ways");
	tap_ok(x && x->sysfs == 20 && x->cpuid == 20, "emr: L3 20 ways reported by sysfs and CPUID");

	/* sysfs and CPUID disagreeing is flagged even without a measurement. */
	r.reported[3].size = 128ULL << 20;
	amp_compare_build(&r, &v, &t);
	x = row(&t, "L3", "size");
	tap_has(x ? x->why : "", "sysfs and CPUID disagree", "a rewritten leaf is flagged");

	/* The Zen 5 Firecracker guest: 0x8000001D hidden, no sysfs caches;
	 * 0x80000006 gives L2 8 ways (the hardware has 16) and L3 code 9
	 * ("see 0x8000001D"): ways unknown, not 508 MiB fully associative. */
	amp_report_init(&r);
	setenv("AMP_SYSFS_ROOT", fx("zen5-guest-legacy", "no-such-cache-dir"), 1);
	tap_eq(amp_reported_from_sysfs(&r), -1, "zen5 legacy: no sysfs caches");
	tap_eq(amp_vendor_cpuid_file(&v, fx("zen5-guest-legacy", "cpuid.txt")), 0, "zen5 legacy: CPUID dump read");
	check_cache(&v, "zen5 legacy", 1, "data", 48 << 10, 64, 12);
	check_cache(&v, "zen5 legacy", 2, "unified", 1 << 20, 64, 8);
	{
		const struct amp_reported_cache *l3 = NULL;

		for (int i = 0; i < v.ncache; i++)
			if (v.cache[i].level == 3)
				l3 = &v.cache[i];
		tap_ok(l3 && l3->size == 508ULL << 20 && l3->ways_unknown && l3->sets == 0,
		       "zen5 legacy: L3 508 MiB, ways unknown (code 9), no sets");
	}
	tap_ok(has_note(&v, "sends L3's associativity to 0x8000001D"), "zen5 legacy: notes the hidden leaf for L3");
	memset(&c, 0, sizeof c);
	level(&c, "L2", 2, 64, 16, 1 << 20, 724 << 10);
	level(&c, "L3", 3, 64, 0, 0, 16 << 20);
	r.hier = &c;
	amp_compare_build(&r, &v, &t);
	x = row(&t, "L3", "ways");
	tap_ok(x && !x->has_cpuid && !x->has_sysfs, "zen5 legacy: L3 ways reported by neither");
	x = row(&t, "L2", "ways");
	tap_ok(x && x->verdict == AMP_DIFFER && x->cpuid == 8, "zen5 legacy: measured 16 ways differ from CPUID's 8");

	/* TLB ways beside CPUID's (the Zen 5 guest's: DTLB 96 entries fully
	 * associative, STLB 128 entries 8-way, ITLB2 64 entries 4-way):
	 * fully associative counts its entries as ways, as a cache does. */
	tap_eq(amp_vendor_cpuid_file(&v, fx("zen5-guest", "cpuid.txt")), 0, "zen5: CPUID dump read again");
	memset(&c, 0, sizeof c);
	tlb(&c, "DTLB", 1, 96, 96, NULL);
	tlb(&c, "STLB", 2, 128, 8, NULL);
	tlb(&c, "ITLB2", 2, 64, 0, "not measured by timing in this version");
	amp_compare_build(&r, &v, &t);
	x = row(&t, "DTLB", "ways");
	tap_ok(x && x->cpuid == 96 && x->measured == 96 && x->verdict == AMP_AGREE,
	       "zen5: DTLB fully associative in both, 96 ways agree");
	x = row(&t, "STLB", "ways");
	tap_ok(x && x->cpuid == 8 && x->measured == 8 && x->verdict == AMP_AGREE, "zen5: STLB 8 ways agree");
	x = row(&t, "ITLB2", "ways");
	tap_ok(x && x->cpuid == 4 && !x->has_measured && x->verdict == AMP_NOT_MEASURED &&
		       strstr(x->why, "not measured by timing"),
	       "zen5: ITLB2 ways not measured, with the level's reason");
	memset(&c, 0, sizeof c);
	tlb(&c, "DTLB", 1, 72, 72, NULL);
	tlb(&c, "STLB", 2, 128, 16, NULL);
	amp_compare_build(&r, &v, &t);
	x = row(&t, "DTLB", "ways");
	tap_ok(x && x->verdict == AMP_DIFFER && strstr(x->why, "its ways are its entries"),
	       "zen5: 72 entries fully associative differ in ways only as in entries (%s)", x ? x->why : "no row");
	x = row(&t, "STLB", "ways");
	tap_ok(x && x->verdict == AMP_DIFFER && x->measured == 16, "zen5: STLB 16 ways differ from CPUID's 8");

	/* A dump that is not one. */
	tap_eq(amp_vendor_cpuid_file(&v, fx("zen5-guest", "cache/index0/level")), -1, "a non-dump is refused");
	tap_has(v.missing, "no CPUID lines", "with a reason");
	tap_eq(amp_vendor_cpuid_file(&v, "/nonexistent/dump"), -1, "a missing dump is refused");
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
