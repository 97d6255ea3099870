/* test_sim_spec.c - the --sim=SPEC grammar: good specs field by field,
 * defaults, suffixes, presets and overrides, canonical text round trips,
 * a table of bad specs and their messages, and random garbage that must
 * never crash. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"
#include "tap.h"

#define K 1024ull
#define M (1024ull * 1024)

static const struct sim_level_spec *level(const struct sim_spec *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->lv[i].name, name))
			return &s->lv[i];
	return NULL;
}

static int parse(const char *text, struct sim_spec *s, char *err)
{
	return sim_spec_parse(text, s, err, SIM_ERR_LEN);
}

/* Field by field: struct padding is not ours to compare. */
static int level_eq(const struct sim_level_spec *a, const struct sim_level_spec *b)
{
	return !strcmp(a->name, b->name) && a->kind == b->kind &&
	       a->side == b->side && a->level == b->level &&
	       a->size == b->size && a->assoc == b->assoc &&
	       a->full == b->full && a->line == b->line &&
	       a->policy == b->policy &&
	       a->write_allocate == b->write_allocate &&
	       a->inclusion == b->inclusion && a->latency == b->latency &&
	       a->entries == b->entries && a->page == b->page &&
	       a->counter == b->counter && a->index == b->index;
}

static int spec_eq(const struct sim_spec *a, const struct sim_spec *b)
{
	int i;

	if (a->n != b->n || a->mem_latency != b->mem_latency ||
	    a->noise != b->noise || a->seed != b->seed ||
	    a->pages_random != b->pages_random || a->map_page != b->map_page ||
	    strcmp(a->preset, b->preset))
		return 0;
	for (i = 0; i < a->n; i++)
		if (!level_eq(&a->lv[i], &b->lv[i]))
			return 0;
	return 1;
}

/* format(spec) re-parses to spec; the text is returned in buf. */
static int round_trips(const struct sim_spec *s, char *buf, size_t len)
{
	struct sim_spec again;
	char err[SIM_ERR_LEN];

	sim_spec_format(s, buf, len);
	return sim_spec_parse(buf, &again, err, sizeof err) == 0 && spec_eq(s, &again);
}

static void test_issue_example(void)
{
	struct sim_spec s;
	char err[SIM_ERR_LEN] = "";
	const struct sim_level_spec *l;
	int rc;

	rc = parse("L1d:size=16K,assoc=4,line=32;L1i:size=16K,assoc=4,line=32;"
		   "L2:size=512K,assoc=4,line=32;DTLB:entries=64,assoc=4,page=4K",
		   &s, err);
	tap_eq(rc, 0, "issue example parses (%s)", err);
	tap_eq(s.n, 4, "issue example: 4 levels");
	tap_ok(!strcmp(s.lv[0].name, "L1d") && !strcmp(s.lv[1].name, "L1i") &&
	       !strcmp(s.lv[2].name, "L2") && !strcmp(s.lv[3].name, "DTLB"),
	       "issue example: sorted L1d L1i L2 DTLB");
	for (int i = 0; i < 3; i++) {
		l = &s.lv[i];
		tap_eq(l->kind, SIM_CACHE, "%s: a cache", l->name);
		tap_eq(l->size, i < 2 ? 16 * K : 512 * K, "%s: size", l->name);
		tap_eq(l->assoc, 4, "%s: assoc", l->name);
		tap_eq(l->full, 0, "%s: not full", l->name);
		tap_eq(l->line, 32, "%s: line", l->name);
		tap_eq(l->policy, SIM_LRU, "%s: policy default lru", l->name);
		tap_eq(l->write_allocate, 1, "%s: write-allocate default", l->name);
		tap_eq(l->inclusion, SIM_NINE, "%s: inclusion default nine", l->name);
		tap_eq(l->counter, 1, "%s: counter default yes", l->name);
		tap_eq(l->level, i < 2 ? 1 : 2, "%s: level", l->name);
		tap_eq(l->latency, i < 2 ? 4 : 12, "%s: latency default", l->name);
		tap_eq(l->index, i < 2 ? SIM_INDEX_VIRTUAL : SIM_INDEX_PHYSICAL,
		       "%s: index default", l->name);
	}
	tap_eq(s.lv[0].side, SIM_DATA, "L1d: data side");
	tap_eq(s.lv[1].side, SIM_INSN, "L1i: insn side");
	tap_eq(s.lv[2].side, SIM_UNIFIED, "L2: unified");
	l = &s.lv[3];
	tap_eq(l->kind, SIM_TLB, "DTLB: a TLB");
	tap_eq(l->side, SIM_DATA, "DTLB: data side");
	tap_eq(l->level, 1, "DTLB: level 1");
	tap_eq(l->entries, 64, "DTLB: entries");
	tap_eq(l->assoc, 4, "DTLB: assoc");
	tap_eq(l->page, 4 * K, "DTLB: page");
	tap_eq(l->latency, 8, "DTLB: miss penalty default");
	tap_eq(l->policy, SIM_LRU, "DTLB: policy default");
	tap_eq(l->counter, 1, "DTLB: counter default");
	tap_eq(s.mem_latency, 200, "MEM latency default");
	tap_ok(s.noise == 0, "noise 0");
	tap_eq(s.seed, 1, "seed 1");
	tap_eq(s.pages_random, 0, "contiguous pages");
	tap_eq(s.map_page, 4096, "map_page 4096");
	tap_ok(s.preset[0] == '\0', "no preset");
}

/* Every element with only its first key given: the rest are defaults. */
static void test_defaults(void)
{
	static const struct {
		const char *name;
		uint64_t size;		/* or entries */
		unsigned assoc, latency, level;
		enum sim_side side;
	} want[] = {
		{ "L1d",  32 * K,  8,  4, 1, SIM_DATA },
		{ "L1i",  32 * K,  8,  4, 1, SIM_INSN },
		{ "L2d", 256 * K,  8, 12, 2, SIM_DATA },
		{ "L2i", 256 * K,  8, 12, 2, SIM_INSN },
		{ "L3",    8 * M, 16, 40, 3, SIM_UNIFIED },
		{ "L4",   64 * M, 16, 80, 4, SIM_UNIFIED },
		{ "DTLB",     64,  4,  8, 1, SIM_DATA },
		{ "ITLB",     64,  4,  8, 1, SIM_INSN },
		{ "STLB",   1024,  8, 30, 2, SIM_UNIFIED },
	};
	struct sim_spec s;
	char err[SIM_ERR_LEN] = "";
	size_t i;
	int rc;

	rc = parse("L1d:latency=4;L1i:latency=4;L2d:latency=12;L2i:latency=12;"
		   "L3:latency=40;L4:latency=80;DTLB:latency=8;ITLB:latency=8;"
		   "STLB:latency=30", &s, err);
	tap_eq(rc, 0, "all-defaults machine parses (%s)", err);
	tap_eq(s.n, 9, "all-defaults machine: 9 levels");
	for (i = 0; i < sizeof want / sizeof want[0] && i < (size_t)s.n; i++) {
		const struct sim_level_spec *l = &s.lv[i];
		int tlb = want[i].name[1] == 'T';

		tap_ok(!strcmp(l->name, want[i].name), "level %zu is %s (got %s)",
		       i, want[i].name, l->name);
		tap_eq(tlb ? l->entries : l->size, want[i].size, "%s: default size/entries", l->name);
		tap_eq(l->assoc, want[i].assoc, "%s: default assoc", l->name);
		tap_eq(l->latency, want[i].latency, "%s: default latency", l->name);
		tap_eq(l->level, want[i].level, "%s: level", l->name);
		tap_eq(l->side, want[i].side, "%s: side", l->name);
		tap_eq(l->policy, SIM_LRU, "%s: default policy", l->name);
		tap_eq(l->counter, 1, "%s: default counter", l->name);
		if (tlb) {
			tap_eq(l->page, 4 * K, "%s: default page", l->name);
		} else {
			tap_eq(l->line, 64, "%s: default line", l->name);
			tap_eq(l->write_allocate, 1, "%s: default write", l->name);
			tap_eq(l->inclusion, SIM_NINE, "%s: default inclusion", l->name);
			tap_eq(l->index, l->level == 1 ? SIM_INDEX_VIRTUAL : SIM_INDEX_PHYSICAL,
			       "%s: default index", l->name);
		}
	}

	rc = parse("L1:size=32K;L2:size=256K;TLB:entries=64;MEM:latency=200", &s, err);
	tap_eq(rc, 0, "unified L1, L2, TLB parse (%s)", err);
	tap_ok(level(&s, "L1") && level(&s, "L1")->side == SIM_UNIFIED &&
	       level(&s, "L1")->level == 1, "L1: unified level 1");
	tap_ok(level(&s, "TLB") && level(&s, "TLB")->side == SIM_UNIFIED &&
	       level(&s, "TLB")->level == 1 && level(&s, "TLB")->assoc == 4,
	       "TLB: unified level 1, 4-way");
}

static void test_keys(void)
{
	struct sim_spec s;
	char err[SIM_ERR_LEN] = "";
	const struct sim_level_spec *l;
	int rc;

	rc = parse("L1:size=64K,line=128,assoc=2,policy=plru,write=noallocate,"
		   "inclusion=nine,latency=3,counter=no,index=physical;"
		   "L2:size=2M,line=128,assoc=16,policy=fifo,inclusion=exclusive,latency=20;"
		   "L3:size=12M,assoc=12,policy=random,inclusion=inclusive,index=virtual;"
		   "TLB:entries=128,assoc=8,page=2M,policy=plru,latency=25,counter=no;"
		   "STLB:entries=512,assoc=4,page=4K,policy=fifo;"
		   "MEM:latency=300", &s, err);
	tap_eq(rc, 0, "every key parses (%s)", err);
	l = level(&s, "L1");
	tap_ok(l && l->size == 64 * K && l->line == 128 && l->assoc == 2 &&
	       l->policy == SIM_PLRU && !l->write_allocate &&
	       l->inclusion == SIM_NINE && l->latency == 3 && !l->counter &&
	       l->index == SIM_INDEX_PHYSICAL, "L1: every cache key stored");
	l = level(&s, "L2");
	tap_ok(l && l->size == 2 * M && l->line == 128 && l->assoc == 16 &&
	       l->policy == SIM_FIFO && l->inclusion == SIM_EXCLUSIVE &&
	       l->latency == 20 && l->counter, "L2: keys stored");
	l = level(&s, "L3");
	tap_ok(l && l->size == 12 * M && l->assoc == 12 && l->policy == SIM_RANDOM &&
	       l->inclusion == SIM_INCLUSIVE && l->index == SIM_INDEX_VIRTUAL,
	       "L3: keys stored");
	l = level(&s, "TLB");
	tap_ok(l && l->entries == 128 && l->assoc == 8 && l->page == 2 * M &&
	       l->policy == SIM_PLRU && l->latency == 25 && !l->counter,
	       "TLB: every TLB key stored");
	l = level(&s, "STLB");
	tap_ok(l && l->entries == 512 && l->assoc == 4 && l->policy == SIM_FIFO &&
	       l->level == 2, "STLB: keys stored, level 2");
	tap_eq(s.mem_latency, 300, "MEM:latency stored in mem_latency");
	tap_eq(s.n, 5, "MEM is not a level");
	tap_ok(!strcmp(s.lv[0].name, "L1") && !strcmp(s.lv[1].name, "L2") &&
	       !strcmp(s.lv[2].name, "L3") && !strcmp(s.lv[3].name, "TLB") &&
	       !strcmp(s.lv[4].name, "STLB"), "levels sorted: caches, then TLBs");

	/* Given in reverse: sorted data, insn, unified; caches before TLBs. */
	rc = parse("STLB:entries=512;ITLB:entries=32;DTLB:entries=32;L3:size=8M;"
		   "L2i:size=256K;L2d:size=256K;L1i:size=32K;L1d:size=32K", &s, err);
	tap_eq(rc, 0, "reverse order parses (%s)", err);
	{
		static const char *const order[] = {
			"L1d", "L1i", "L2d", "L2i", "L3", "DTLB", "ITLB", "STLB"
		};
		int ok = s.n == 8;

		for (int i = 0; ok && i < 8; i++)
			ok = !strcmp(s.lv[i].name, order[i]);
		tap_ok(ok, "sorted L1d L1i L2d L2i L3 DTLB ITLB STLB");
	}
}

static void test_sizes(void)
{
	static const struct {
		const char *text;
		uint64_t want;
	} rows[] = {
		{ "32768", 32 * K }, { "32K", 32 * K }, { "32k", 32 * K },
		{ "32KB", 32 * K }, { "32kb", 32 * K }, { "32KiB", 32 * K },
		{ "32kib", 32 * K }, { "32768B", 32 * K }, { "32768b", 32 * K },
		{ "1M", M }, { "1MB", M }, { "1MiB", M }, { "1m", M },
		{ "0.5M", 512 * K }, { "1.25M", 1310720 }, { "1.5m", 1536 * K },
		{ "1.50000000000000000000000000000000000M", 1536 * K },
		{ ".5M", 512 * K }, { "48.0K", 48 * K }, { "0.03125K", 32 },
		{ "1G", 1024 * M }, { "1GB", 1024 * M }, { "1GiB", 1024 * M },
		{ "1T", 1024 * 1024 * M }, { "1TiB", 1024 * 1024 * M },
		{ "0000000000000000000000000064", 64 },
		{ " 32K ", 32 * K }, { " \t32K\t ", 32 * K },
	};
	struct sim_spec s;
	char err[SIM_ERR_LEN], text[128];
	size_t i;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		int rc;

		snprintf(text, sizeof text, "L1:size=%s,line=32,assoc=1", rows[i].text);
		err[0] = '\0';
		rc = parse(text, &s, err);
		tap_ok(rc == 0 && s.n == 1 && s.lv[0].size == rows[i].want,
		       "size=%s is %llu bytes (%s)", rows[i].text,
		       (unsigned long long)rows[i].want, err);
	}
	tap_eq(parse("L1:size=32K;DTLB:page=2M", &s, err), 0, "page=2M parses");
	tap_eq(level(&s, "DTLB")->page, 2 * M, "page=2M stored");
	tap_eq(parse("L1:size=32K;DTLB:page=1K", &s, err), 0, "page=1K (the minimum) parses");
	tap_eq(parse("L1:line=8,size=32K", &s, err), 0, "line=8 (the minimum) parses");
	tap_eq(parse("L1:line=64B", &s, err), 0, "line=64B parses");
}

static void test_case_and_blanks(void)
{
	struct sim_spec a, b;
	char err[SIM_ERR_LEN] = "";
	int ra, rb;

	ra = parse("L1d:size=16K,assoc=4,policy=plru;L1i:size=16K;DTLB:assoc=full,counter=no", &a, err);
	rb = parse("  l1D : SIZE = 16k , Assoc=4 ,POLICY=PLRU ;\tl1I:Size=16KIB;"
		   " dtlb:ASSOC=Full,Counter=NO ", &b, err);
	tap_ok(ra == 0 && rb == 0 && spec_eq(&a, &b),
	       "names, keys, words and suffixes are case-insensitive; blanks ignored (%s)", err);
	tap_ok(rb == 0 && !strcmp(b.lv[0].name, "L1d") && !strcmp(b.lv[2].name, "DTLB"),
	       "canonical spelling stored");
	ra = parse("PII-233", &a, err);
	tap_ok(ra == 0 && !strcmp(a.preset, "pii-233"), "preset names are case-insensitive");
	ra = parse("  pii-233 ; L2 : size = 1M ", &a, err);
	tap_ok(ra == 0 && level(&a, "L2")->size == M, "blanks around a preset and override");
	tap_ok(sim_preset_find("PENTIUM4") && !strcmp(sim_preset_find("PENTIUM4")->name, "pentium4"),
	       "sim_preset_find is case-insensitive");
	tap_ok(!sim_preset_find("nosuch") && !sim_preset_find(NULL) && !sim_preset_find(""),
	       "sim_preset_find: unknown, NULL, empty");
}

static void test_full(void)
{
	struct sim_spec s;
	char err[SIM_ERR_LEN] = "";
	const struct sim_level_spec *l;
	int rc;

	rc = parse("L1:size=4K,line=64,assoc=full,policy=plru;TLB:entries=48,assoc=full", &s, err);
	tap_eq(rc, 0, "fully associative cache and TLB parse (%s)", err);
	l = level(&s, "L1");
	tap_ok(l && l->full && l->assoc == 64, "L1 full: assoc = size/line = 64");
	l = level(&s, "TLB");
	tap_ok(l && l->full && l->assoc == 48, "TLB full: assoc = entries = 48");
	/* full is computed after all keys, whatever their order. */
	rc = parse("L1:assoc=full,line=32,size=8K", &s, err);
	tap_ok(rc == 0 && s.lv[0].full && s.lv[0].assoc == 256,
	       "assoc=full before size and line: 256 ways (%s)", err);
	/* An override keeps full and assoc follows the new geometry. */
	rc = parse("usparc-1;DTLB:entries=32", &s, err);
	l = level(&s, "DTLB");
	tap_ok(rc == 0 && l && l->full && l->assoc == 32 && l->page == 8 * K && !l->counter,
	       "usparc-1;DTLB:entries=32: still full, 32 ways, 8K pages, N/C (%s)", err);
	rc = parse("r10k-225;TLB:entries=128", &s, err);
	l = level(&s, "TLB");
	tap_ok(rc == 0 && l && l->full && l->assoc == 128, "r10k-225;TLB:entries=128: 128 ways");
	rc = parse("r10k-225;TLB:assoc=4", &s, err);
	l = level(&s, "TLB");
	tap_ok(rc == 0 && l && !l->full && l->assoc == 4, "an override can make a full TLB 4-way");
	rc = parse("pii-233;L2:assoc=full", &s, err);
	l = level(&s, "L2");
	tap_ok(rc == 0 && l && l->full && l->assoc == 512 * K / 32,
	       "pii-233;L2:assoc=full: 16384 ways");
	rc = parse("L1:size=1G,line=64,assoc=full", &s, err);
	tap_ok(rc == 0 && s.lv[0].assoc == 1u << 24, "full with 1<<24 lines is the limit (%s)", err);
}

static void test_presets(void)
{
	const struct sim_preset *p;
	struct sim_spec s, t;
	char err[SIM_ERR_LEN], text[2048], desc[256];
	int count = 0;

	for (p = sim_presets; p->name; p++) {
		int rc, ok = 1;

		count++;
		err[0] = '\0';
		rc = parse(p->name, &s, err);
		tap_eq(rc, 0, "preset %s parses (%s)", p->name, err);
		if (rc)
			continue;
		tap_ok(!strcmp(s.preset, p->name), "preset %s: preset field set", p->name);
		tap_ok(strlen(p->name) < sizeof s.preset, "preset %s: name fits", p->name);
		tap_ok(p->description && strlen(p->description) > 10, "preset %s: described", p->name);
		tap_eq(parse(p->spec, &t, err), 0, "preset %s: its spec text parses alone", p->name);
		t.preset[0] = '\0';
		memcpy(t.preset, s.preset, sizeof t.preset);
		tap_ok(spec_eq(&s, &t), "preset %s: same machine by name and by text", p->name);
		tap_ok(round_trips(&s, text, sizeof text), "preset %s round-trips as '%s'",
		       p->name, text);
		tap_ok(!strcmp(text, p->name), "preset %s formats as its name", p->name);
		/* The full text of the machine, without the preset name. */
		s.preset[0] = '\0';
		tap_ok(round_trips(&s, text, sizeof text), "preset %s as elements: '%s'",
		       p->name, text);
		for (int i = 0; i < s.n; i++) {
			desc[0] = '\0';
			sim_level_describe(&s.lv[i], desc, sizeof desc);
			ok = ok && !strncmp(desc, s.lv[i].name, strlen(s.lv[i].name)) &&
			     !strchr(desc, '\n');
		}
		tap_ok(ok, "preset %s: every level described", p->name);
	}
	tap_ok(count >= 14, "%d presets", count);

	tap_eq(parse("pii-233;L2:size=1M;L3:size=4M,latency=30;MEM:latency=150", &s, err), 0,
	       "preset with overrides and an added level parses (%s)", err);
	tap_ok(!strcmp(s.preset, "pii-233"), "overridden preset keeps its name");
	tap_ok(level(&s, "L2")->size == M && level(&s, "L2")->assoc == 4 &&
	       level(&s, "L2")->line == 32, "override keeps the preset's other L2 keys");
	tap_ok(level(&s, "L1d")->size == 16 * K, "other levels from the preset");
	tap_ok(level(&s, "L3") && level(&s, "L3")->size == 4 * M &&
	       level(&s, "L3")->assoc == 16 && level(&s, "L3")->latency == 30,
	       "added L3 gets defaults for keys not given");
	tap_eq(s.mem_latency, 150, "MEM override");
	tap_ok(round_trips(&s, text, sizeof text), "overridden preset round-trips");
	tap_ok(!strcmp(text, "pii-233;L2:size=1M;L3:size=4M,latency=30;MEM:latency=150"),
	       "overridden preset formats as preset + differences: '%s'", text);
	tap_eq(parse("pii-233;L2:size=512K", &s, err), 0, "override with the preset's own value");
	sim_spec_format(&s, text, sizeof text);
	tap_ok(!strcmp(text, "pii-233"), "no difference: formats as the name ('%s')", text);
	tap_eq(parse("p5-133;L1d:write=allocate", &s, err), 0, "p5-133 with write-allocate L1d");
	sim_spec_format(&s, text, sizeof text);
	tap_ok(!strcmp(text, "p5-133;L1d:write=allocate"), "formats as '%s'", text);
}

static void test_format_describe(void)
{
	struct sim_spec s;
	char err[SIM_ERR_LEN], text[512], desc[256];

	parse("L1d:size=16K,assoc=4,line=32;L1i:size=16K,assoc=4,line=32;"
	      "L2:size=512K,assoc=4,line=32;DTLB:entries=64,assoc=4,page=4K", &s, err);
	sim_spec_format(&s, text, sizeof text);
	tap_ok(!strcmp(text, "L1d:size=16K,line=32,assoc=4;L1i:size=16K,line=32,assoc=4;"
			     "L2:size=512K,line=32,assoc=4;DTLB:entries=64"),
	       "canonical text: only what differs from the defaults ('%s')", text);
	parse("L1:size=32K;L2:size=1M,prefetch=2", &s, err);
	sim_spec_format(&s, text, sizeof text);
	tap_ok(!strcmp(text, "L1:size=32K;L2:size=1M,prefetch=2"), "prefetch formats as given ('%s')", text);
	parse("L1:size=32K;L3:size=4M,REGION=Yes;L2:size=1M,region=no", &s, err);
	sim_spec_format(&s, text, sizeof text);
	tap_ok(!strcmp(text, "L1:size=32K;L2:size=1M;L3:size=4M,region=yes"),
	       "region formats as yes, and no (the default) not at all ('%s')", text);
	parse(" l1 : SIZE=32k ", &s, err);
	sim_spec_format(&s, text, sizeof text);
	tap_ok(!strcmp(text, "L1:size=32K"), "default L1 formats as 'L1:size=32K' ('%s')", text);
	parse("L1:size=1.25M,line=64,assoc=4;MEM:latency=99", &s, err);
	sim_spec_format(&s, text, sizeof text);
	tap_ok(!strcmp(text, "L1:size=1280K,assoc=4;MEM:latency=99"), "'%s'", text);
	parse("L1:size=1000000,line=64,assoc=full", &s, err);
	sim_spec_format(&s, text, sizeof text);
	tap_ok(!strcmp(text, "L1:size=1000000,assoc=full"), "'%s'", text);

	/* A short buffer is cut, terminated, never overrun (ASan). */
	memset(text, 'x', sizeof text);
	sim_spec_format(&s, text, 7);
	tap_ok(!strcmp(text, "L1:siz"), "format truncates to the buffer ('%s')", text);
	sim_spec_format(&s, text, 0);
	sim_spec_format(NULL, text, sizeof text);
	tap_ok(text[0] == '\0', "format of NULL is empty");

	parse("pii-233", &s, err);
	desc[0] = '\0';
	sim_level_describe(level(&s, "L1d"), desc, sizeof desc);
	tap_ok(!strcmp(desc, "L1d  16 KiB, 4-way, 32 B lines, lru, write-allocate, latency 4, virtual index"),
	       "describe L1d: '%s'", desc);
	desc[0] = '\0';
	sim_level_describe(level(&s, "DTLB"), desc, sizeof desc);
	tap_ok(!strcmp(desc, "DTLB 64 entries, 4-way, 4 KiB pages, lru, miss penalty 8, N/C (no counter)"),
	       "describe DTLB: '%s'", desc);
	parse("p5-133", &s, err);
	desc[0] = '\0';
	sim_level_describe(level(&s, "L2"), desc, sizeof desc);
	tap_ok(!strcmp(desc, "L2   256 KiB, direct-mapped, 32 B lines, lru, write-allocate, latency 12, physical index, N/C (no counter)"),
	       "describe N/C L2: '%s'", desc);
	desc[0] = '\0';
	sim_level_describe(level(&s, "L1d"), desc, sizeof desc);
	tap_has(desc, "no-write-allocate", "describe no-write-allocate");
	parse("opteron240", &s, err);
	strcpy(desc, "> ");
	sim_level_describe(level(&s, "L2"), desc, sizeof desc);
	tap_ok(!strcmp(desc, "> L2   1 MiB, 16-way, 64 B lines, lru, write-allocate, exclusive, latency 12, physical index"),
	       "describe appends; exclusive shown: '%s'", desc);
	parse("p5-133;L2:index=hashed", &s, err);
	desc[0] = '\0';
	sim_level_describe(level(&s, "L2"), desc, sizeof desc);
	tap_has(desc, "hashed index", "describe a hashed index");
	parse("usparc-1;L2:size=4K,assoc=full", &s, err);
	desc[0] = '\0';
	sim_level_describe(level(&s, "L2"), desc, sizeof desc);
	tap_has(desc, "4 KiB, fully associative (64 lines), 64 B lines", "describe full cache");
	desc[0] = '\0';
	sim_level_describe(level(&s, "ITLB"), desc, sizeof desc);
	tap_ok(!strcmp(desc, "ITLB 64 entries, fully associative, 8 KiB pages, lru, miss penalty 8, N/C (no counter)"),
	       "describe full TLB: '%s'", desc);
	parse("zen5-like", &s, err);
	desc[0] = '\0';
	sim_level_describe(level(&s, "L2"), desc, sizeof desc);
	tap_has(desc, "inclusive, latency 14", "describe inclusive");
	memset(desc, 'x', sizeof desc);
	desc[0] = '\0';
	sim_level_describe(level(&s, "L2"), desc, 10);
	tap_ok(strlen(desc) == 9, "describe truncates to the buffer");
}

/* {spec, substring of the message, line}: each must fail. */
static const struct bad {
	const char *spec;
	const char *msg;
	int line;
} bad[] = {
	{ "", "--sim: empty spec", __LINE__ },
	{ " \t ", "--sim: empty spec", __LINE__ },
	{ "nosuch", "--sim: 'nosuch': not a preset and not an element list (see amp --list-presets)", __LINE__ },
	{ "L9:size=1K", "--sim: 'L9': unknown element (expected L1d L1i L1 L2 L2d L2i L3 L4 DTLB ITLB STLB TLB MEM)", __LINE__ },
	{ "L1:size=32K;;L2:size=1M", "--sim: empty element", __LINE__ },
	{ "L1:size=32K;", "--sim: empty element", __LINE__ },
	{ ";L1:size=32K", "--sim: empty element", __LINE__ },
	{ "L1d:size=16K;L1i:size=16K;L1d:size=8K", "--sim: L1d: element given twice", __LINE__ },
	{ "L1:size=32K;MEM:latency=5;mem:latency=6", "--sim: MEM: element given twice", __LINE__ },
	{ "L1:size=32K;L1 \n:size=1", "--sim: L1: element given twice", __LINE__ },
	{ "L1:size", "--sim: L1: 'size' without '=VALUE'", __LINE__ },
	{ "L1:size=", "--sim: L1: size=: empty value", __LINE__ },
	{ "L1:size=  ", "--sim: L1: size=: empty value", __LINE__ },
	{ "L1:", "--sim: L1: no KEY=VALUE after ':'", __LINE__ },
	{ "L1:size=32K,", "--sim: L1: empty KEY=VALUE", __LINE__ },
	{ "L1:,size=32K", "--sim: L1: empty KEY=VALUE", __LINE__ },
	{ "L1:=32K", "--sim: L1: '=32K': no key before '='", __LINE__ },
	{ ":size=1", "--sim: ':size=1': no element name before ':'", __LINE__ },
	{ "L2", "--sim: L2: expected L2:KEY=VALUE", __LINE__ },
	{ "L1:size=32K;junk", "--sim: 'junk': not an element", __LINE__ },
	{ "L1:size=32K;pii-233", "--sim: 'pii-233': a preset can only come first", __LINE__ },
	{ "pii-233;p5-133", "--sim: 'p5-133': a preset can only come first", __LINE__ },
	{ "pii-233:size=1", "--sim: 'pii-233': unknown element", __LINE__ },
	{ "L1:foo=1", "--sim: L1: 'foo': unknown key (expected size line assoc policy write inclusion latency counter index prefetch region)", __LINE__ },
	{ "L1:size=32K;DTLB:foo=1", "--sim: DTLB: 'foo': unknown key (expected entries assoc page policy latency counter)", __LINE__ },
	{ "L1:size=32K;DTLB:line=64", "--sim: DTLB: key 'line' does not apply to a TLB", __LINE__ },
	{ "L1:size=32K;DTLB:index=physical", "--sim: DTLB: key 'index' does not apply to a TLB", __LINE__ },
	{ "L1:size=32K;STLB:inclusion=nine", "--sim: STLB: key 'inclusion' does not apply to a TLB", __LINE__ },
	{ "L1:entries=64", "--sim: L1: key 'entries' does not apply to a cache", __LINE__ },
	{ "L1:page=4K", "--sim: L1: key 'page' does not apply to a cache", __LINE__ },
	{ "L1:size=32K;MEM:size=1K", "--sim: MEM: key 'size' does not apply to MEM (only 'latency')", __LINE__ },
	{ "L1:size=32K,SIZE=64K", "--sim: L1: key 'size' given twice", __LINE__ },
	{ "L1:assoc=full,assoc=4", "--sim: L1: key 'assoc' given twice", __LINE__ },
	{ "L1:size=32K;L2:assoc=x", "--sim: L2: assoc=x: expected an integer or 'full'", __LINE__ },
	{ "L1:assoc=4.0", "--sim: L1: assoc=4.0: expected an integer or 'full'", __LINE__ },
	{ "L1:size=99999999999999999999", "--sim: L1: size=99999999999999999999: above the limit of 1 TiB", __LINE__ },
	{ "L1:size=18446744073709551616K", "--sim: L1: size=18446744073709551616K: above the limit", __LINE__ },
	{ "L1:size=16777216T", "--sim: L1: size=16777216T: above the limit", __LINE__ },
	{ "L1:size=2T", "--sim: L1: size=2T: above the limit of 1 TiB", __LINE__ },
	{ "L1:size=1025G", "--sim: L1: size=1025G: above the limit of 1 TiB", __LINE__ },
	{ "L1:size=0", "--sim: L1: size=0: must be at least 1", __LINE__ },
	{ "L1:size=0.0K", "--sim: L1: size=0.0K: must be at least 1", __LINE__ },
	{ "L1:size=-32K", "--sim: L1: size=-32K: negative values are not allowed", __LINE__ },
	{ "L1:assoc=0", "--sim: L1: assoc=0: must be at least 1", __LINE__ },
	{ "L1:assoc=-1", "--sim: L1: assoc=-1: negative values are not allowed", __LINE__ },
	{ "L1:assoc=99999999999999999999999", "--sim: L1: assoc=99999999999999999999999: above the limit of 16777216", __LINE__ },
	{ "L1:assoc=16777217", "--sim: L1: assoc=16777217: above the limit", __LINE__ },
	{ "L1:latency=0", "--sim: L1: latency=0: must be at least 1", __LINE__ },
	{ "L1:latency=-4", "--sim: L1: latency=-4: negative values are not allowed", __LINE__ },
	{ "L1:latency=1000001", "--sim: L1: latency=1000001: above the limit", __LINE__ },
	{ "L1:latency=1.5", "--sim: L1: latency=1.5: expected an integer", __LINE__ },
	{ "L1:latency=4c", "--sim: L1: latency=4c: expected an integer", __LINE__ },
	{ "L1:size=32K;MEM:latency=0", "--sim: MEM: latency=0: must be at least 1", __LINE__ },
	{ "L1:size=32K;DTLB:entries=0", "--sim: DTLB: entries=0: must be at least 1", __LINE__ },
	{ "L1:size=32K;DTLB:entries=16777217", "--sim: DTLB: entries=16777217: above the limit", __LINE__ },
	{ "L1:size=32K;DTLB:entries=64K", "--sim: DTLB: entries=64K: expected an integer", __LINE__ },
	{ "L1:line=4", "--sim: L1: line=4: must be at least 8", __LINE__ },
	{ "L1:line=0", "--sim: L1: line=0: must be at least 8", __LINE__ },
	{ "L1:line=48", "--sim: L1: line=48 is not a power of two", __LINE__ },
	{ "L1:line=2G", "--sim: L1: line=2G: above the limit of 1 GiB", __LINE__ },
	{ "L1:size=1.3K", "--sim: L1: size=1.3K is not a whole number of bytes", __LINE__ },
	{ "L1:size=1.5", "--sim: L1: size=1.5 is not a whole number of bytes", __LINE__ },
	{ "L1:size=1.0000000000000000000000000000001K", "--sim: L1: size=1.0000000000000000000000... is not a whole number", __LINE__ },
	{ "L1:size=16Q", "--sim: L1: size=16Q: expected a size in bytes", __LINE__ },
	{ "L1:size=K", "--sim: L1: size=K: expected a size in bytes", __LINE__ },
	{ "L1:size=.K", "--sim: L1: size=.K: expected a size in bytes", __LINE__ },
	{ "L1:size=1 6K", "--sim: L1: size=1 6K: expected a size in bytes", __LINE__ },
	{ "L1:size=16KK", "--sim: L1: size=16KK: expected a size in bytes", __LINE__ },
	{ "L1:size=1e3", "--sim: L1: size=1e3: expected a size in bytes", __LINE__ },
	{ "L1:size=0x100", "--sim: L1: size=0x100: expected a size in bytes", __LINE__ },
	{ "L1:size=32K\x01", "--sim: L1: size=32K\\x01: expected a size in bytes", __LINE__ },
	{ "L1:size=100000", "--sim: L1: size=100000 is not a multiple of line*assoc (64*8=512)", __LINE__ },
	{ "L1:size=32K;L2:size=100000", "--sim: L2: size=100000 is not a multiple of line*assoc (64*8=512)", __LINE__ },
	{ "L1:size=1K,assoc=32", "--sim: L1: size=1K is smaller than line*assoc (64*32=2048): no sets", __LINE__ },
	{ "L1:size=32,line=64,assoc=1", "--sim: L1: size=32 is smaller than line*assoc (64*1=64): no sets", __LINE__ },
	{ "L1:size=1000,assoc=full", "--sim: L1: size=1000 is not a multiple of line (64)", __LINE__ },
	{ "L1:size=2G,line=64,assoc=full", "--sim: L1: assoc=full: 33554432 lines, above the limit of 16777216 ways", __LINE__ },
	{ "L1:size=48K,assoc=12,policy=plru", "--sim: L1: policy=plru needs a power-of-two associativity (assoc=12)", __LINE__ },
	{ "L1:size=48K,assoc=full,policy=plru", "--sim: L1: policy=plru needs a power-of-two associativity (assoc=768, fully associative)", __LINE__ },
	{ "L1:policy=mru", "--sim: L1: policy=mru: expected lru|plru|fifo|random", __LINE__ },
	{ "L1:write=back", "--sim: L1: write=back: expected noallocate|allocate", __LINE__ },
	{ "L1:inclusion=maybe", "--sim: L1: inclusion=maybe: expected nine|inclusive|exclusive", __LINE__ },
	{ "L1:counter=maybe", "--sim: L1: counter=maybe: expected no|yes", __LINE__ },
	{ "L1:index=both", "--sim: L1: index=both: expected virtual|physical|hashed", __LINE__ },
	{ "L1:inclusion=exclusive", "--sim: L1: inclusion=exclusive is meaningless on a level-1 cache", __LINE__ },
	{ "L1:size=32K;L2:prefetch=65", "--sim: L2: prefetch=65: above the limit of 64", __LINE__ },
	{ "L1:size=32K;L2:inclusion=exclusive,prefetch=1", "--sim: L2: prefetch=1 on an exclusive level: its lines come only from the level above", __LINE__ },
	{ "L1:size=32K;L2:inclusion=exclusive,region=yes", "--sim: L2: region=yes on an exclusive level: its lines come only from the level above", __LINE__ },
	{ "L1:size=32K;L2:region=1", "--sim: L2: region=1: expected no|yes", __LINE__ },
	{ "L1:size=32K;DTLB:region=yes", "--sim: DTLB: key 'region' does not apply to a TLB", __LINE__ },
	{ "L1d:size=16K;L1i:inclusion=inclusive", "--sim: L1i: inclusion=inclusive is meaningless on a level-1 cache", __LINE__ },
	{ "L1:size=32K;DTLB:page=3K", "--sim: DTLB: page=3K is not a power of two", __LINE__ },
	{ "L1:size=32K;DTLB:page=512", "--sim: DTLB: page=512: must be at least 1 KiB", __LINE__ },
	{ "L1:size=32K;DTLB:page=2T", "--sim: DTLB: page=2T: above the limit of 1 TiB", __LINE__ },
	{ "L1:size=32K;DTLB:entries=60,assoc=8", "--sim: DTLB: entries=60 is not a multiple of assoc (8)", __LINE__ },
	{ "L1:size=32K;DTLB:entries=2,assoc=4", "--sim: DTLB: entries=2 is smaller than assoc (4): no sets", __LINE__ },
	{ "L1:size=32K;ITLB:entries=48,assoc=full,policy=plru", "--sim: ITLB: policy=plru needs a power-of-two associativity (assoc=48, fully associative)", __LINE__ },
	{ "L1d:size=16K", "--sim: L1d: a split level 1 needs L1i too (use L1 for a unified L1)", __LINE__ },
	{ "L1i:size=16K;L2:size=1M", "--sim: L1i: a split level 1 needs L1d too (use L1 for a unified L1)", __LINE__ },
	{ "L1:size=32K;L1d:size=16K", "--sim: L1: a unified L1 excludes L1d and L1i (L1d also given)", __LINE__ },
	{ "L1:size=32K;L2:size=1M;L2i:size=1M", "--sim: L2: a unified L2 excludes L2d and L2i (L2i also given)", __LINE__ },
	{ "L1d:size=16K;L1i:size=16K;L2d:size=1M", "--sim: L2d: a split level 2 needs L2i too (use L2 for a unified L2)", __LINE__ },
	{ "L1:size=32K;L2d:size=1M;L2i:size=1M", "--sim: L2d: a split level 2 below a unified L1 is not supported", __LINE__ },
	{ "L2:size=1M", "--sim: no level-1 cache (give L1d and L1i, or L1)", __LINE__ },
	{ "DTLB:entries=64", "--sim: no level-1 cache", __LINE__ },
	{ "MEM:latency=100", "--sim: no level-1 cache", __LINE__ },
	{ "L1:size=32K;L3:size=8M", "--sim: L3: no level-2 cache above it (cache levels must be contiguous)", __LINE__ },
	{ "L1:size=32K;L2:size=1M;L4:size=64M", "--sim: L4: no level-3 cache above it", __LINE__ },
	{ "L1:size=32K;TLB:entries=64;ITLB:entries=64", "--sim: TLB: a unified TLB excludes DTLB and ITLB (ITLB also given)", __LINE__ },
	{ "L1:size=32K;STLB:entries=1024", "--sim: STLB: a second-level TLB needs a level-1 TLB", __LINE__ },
	{ "pii-233;L1:size=32K", "--sim: L1: a unified L1 excludes L1d and L1i", __LINE__ },
	{ "pii-233;L2:size=100000", "--sim: L2: size=100000 is not a multiple of line*assoc (32*4=128)", __LINE__ },
	{ "pii-233;L2d:size=1M", "--sim: L2: a unified L2 excludes L2d and L2i (L2d also given)", __LINE__ },
	{ "pii-233;L2:size=1M;L2:size=2M", "--sim: L2: element given twice", __LINE__ },
	{ "pii-233;TLB:entries=64", "--sim: TLB: a unified TLB excludes DTLB and ITLB", __LINE__ },
	{ "usparc-1;DTLB:entries=48,policy=plru", "--sim: DTLB: policy=plru needs a power-of-two associativity (assoc=48, fully associative)", __LINE__ },
	{ "r10k-225;TLB:assoc=3", "--sim: TLB: entries=64 is not a multiple of assoc (3)", __LINE__ },
	{ "pii-233;L2:foo", "--sim: L2: 'foo': unknown key", __LINE__ },
	{ "L1:size=32K;L\xc3\xa9:size=1", "--sim: 'L\\xc3\\xa9': unknown element", __LINE__ },
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "--sim: 'aaaaaaaaaaaaaaaaaaaaaaaa...': not a preset", __LINE__ },
};

static void test_bad(void)
{
	struct sim_spec s;
	char err[SIM_ERR_LEN];
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc;

		memset(err, 0, sizeof err);
		rc = parse(bad[i].spec, &s, err);
		if (!tap_ok(rc == -1 && strstr(err, bad[i].msg) && !strchr(err, '\n'),
			    "bad spec (line %d) rejected", bad[i].line))
			printf("#   rc %d, message \"%s\"\n#   wanted \"%s\"\n", rc, err, bad[i].msg);
	}
}

static void test_err_buffers(void)
{
	struct sim_spec s;
	char err[8];

	tap_eq(sim_spec_parse("nosuch", &s, NULL, 0), -1, "NULL err buffer");
	memset(err, 'x', sizeof err);
	tap_eq(sim_spec_parse("nosuch", &s, err, 1), -1, "1-byte err buffer");
	tap_ok(err[0] == '\0' && err[1] == 'x', "1-byte err buffer: empty, untouched past it");
	memset(err, 'x', sizeof err);
	sim_spec_parse("nosuch", &s, err, sizeof err);
	tap_ok(!strcmp(err, "--sim: "), "short err buffer: cut and terminated ('%s')", err);
	memset(err, 'x', sizeof err);
	sim_spec_parse("nosuch", &s, err, 4);
	tap_ok(!memcmp(err, "--s", 4) && err[4] == 'x', "tiny err buffer: terminated within len");
	tap_eq(sim_spec_parse(NULL, &s, NULL, 0), -1, "NULL spec text");
	tap_eq(sim_spec_parse("pii-233", NULL, NULL, 0), -1, "NULL spec");
}

/* xorshift64*: a fixed sequence, the same on every machine. */
static uint64_t rnd(uint64_t *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return *st * 0x2545F4914F6CDD1Dull;
}

static unsigned pick(uint64_t *st, unsigned n)
{
	return (unsigned)(rnd(st) % n);
}

#define PICK(st, a) ((a)[pick(st, sizeof (a) / sizeof (a)[0])])

/* Random text for one element: some keys in random order and case. */
static void random_elem(uint64_t *st, char *buf, size_t len, const char *name, int tlb, int l1)
{
	static const char *const csize[] = { "8K", "16K", "32K", "48K", "64K", "0.5M", "1M", "1.5M", "6M", "8m", "1280KiB" };
	static const char *const line[] = { "8", "16", "32", "64", "128", "256" };
	static const char *const assoc[] = { "1", "2", "3", "4", "8", "12", "16", "full", "FULL" };
	static const char *const entries[] = { "16", "32", "48", "64", "96", "1024" };
	static const char *const page[] = { "1K", "4K", "8k", "2M", "4KiB" };
	static const char *const policy[] = { "lru", "plru", "fifo", "random", "LRU" };
	static const char *const yn[] = { "yes", "no" };
	static const char *const write[] = { "allocate", "noallocate" };
	static const char *const incl[] = { "nine", "inclusive", "exclusive" };
	static const char *const index[] = { "virtual", "physical", "hashed" };
	const char *kv[10];
	char tmp[10][40];
	int n = 0, i;

	if (tlb) {
		if (pick(st, 2)) snprintf(tmp[n], 40, "entries=%s", PICK(st, entries)), n++;
		if (pick(st, 2)) snprintf(tmp[n], 40, "assoc=%s", PICK(st, assoc)), n++;
		if (pick(st, 2)) snprintf(tmp[n], 40, "page=%s", PICK(st, page)), n++;
	} else {
		if (pick(st, 2)) snprintf(tmp[n], 40, "size=%s", PICK(st, csize)), n++;
		if (pick(st, 2)) snprintf(tmp[n], 40, "line=%s", PICK(st, line)), n++;
		if (pick(st, 2)) snprintf(tmp[n], 40, "assoc=%s", PICK(st, assoc)), n++;
		if (pick(st, 4) == 0) snprintf(tmp[n], 40, "write=%s", PICK(st, write)), n++;
		if (!l1 && pick(st, 3) == 0) snprintf(tmp[n], 40, "inclusion=%s", PICK(st, incl)), n++;
		if (pick(st, 4) == 0) snprintf(tmp[n], 40, "index=%s", PICK(st, index)), n++;
	}
	if (pick(st, 3) == 0) snprintf(tmp[n], 40, "policy=%s", PICK(st, policy)), n++;
	if (pick(st, 3) == 0) snprintf(tmp[n], 40, "latency=%u", 1 + pick(st, 300)), n++;
	if (pick(st, 4) == 0) snprintf(tmp[n], 40, "counter=%s", PICK(st, yn)), n++;
	if (!n) snprintf(tmp[n], 40, "%s", tlb ? "entries=64" : "size=32K"), n++;
	for (i = 0; i < n; i++)
		kv[i] = tmp[i];
	for (i = n - 1; i > 0; i--) {	/* shuffle */
		int j = (int)pick(st, (unsigned)i + 1);
		const char *t = kv[i];

		kv[i] = kv[j];
		kv[j] = t;
	}
	snprintf(buf, len, "%s:", name);
	for (i = 0; i < n; i++) {
		size_t at = strlen(buf);

		snprintf(buf + at, len - at, "%s%s%s", i ? (pick(st, 4) ? "," : " , ") : "",
			 kv[i], pick(st, 5) ? "" : " ");
	}
}

/* Random well-formed machines, most of them valid: every valid one
 * must survive format -> parse unchanged. */
static void test_random_round_trip(void)
{
	uint64_t st = 0x5eed5eed12345678ull;
	int valid = 0, trips = 0, msgs = 0, tries = 4000;

	for (int t = 0; t < tries; t++) {
		char text[1024] = "", el[200], out[2048], err[SIM_ERR_LEN];
		struct sim_spec s;
		int split = pick(&st, 2), ncache = 1 + (int)pick(&st, 4), tlbs = (int)pick(&st, 4);
		const char *names[12];
		int tlb[12], l1[12], n = 0;

		if (pick(&st, 4) == 0) {
			const struct sim_preset *p = sim_presets;
			int np = 0;

			while (p[np].name)
				np++;
			snprintf(text, sizeof text, "%s", p[pick(&st, (unsigned)np)].name);
			/* Override levels that most presets have. */
			if (pick(&st, 2)) names[n] = "L2", tlb[n] = 0, l1[n++] = 0;
			if (pick(&st, 2)) names[n] = "L1d", tlb[n] = 0, l1[n++] = 1;
			if (pick(&st, 3) == 0) names[n] = "MEM", tlb[n] = 2, l1[n++] = 0;
		} else {
			if (split)
				names[n] = "L1d", tlb[n] = 0, l1[n++] = 1, names[n] = "L1i", tlb[n] = 0, l1[n++] = 1;
			else
				names[n] = "L1", tlb[n] = 0, l1[n++] = 1;
			if (ncache > 1) {
				if (split && pick(&st, 3) == 0)
					names[n] = "L2d", tlb[n] = 0, l1[n++] = 0, names[n] = "L2i", tlb[n] = 0, l1[n++] = 0;
				else
					names[n] = "L2", tlb[n] = 0, l1[n++] = 0;
			}
			if (ncache > 2) names[n] = "L3", tlb[n] = 0, l1[n++] = 0;
			if (ncache > 3) names[n] = "L4", tlb[n] = 0, l1[n++] = 0;
			if (tlbs == 1) names[n] = "DTLB", tlb[n] = 1, l1[n++] = 0;
			if (tlbs == 2) names[n] = "DTLB", tlb[n] = 1, l1[n++] = 0, names[n] = "ITLB", tlb[n] = 1, l1[n++] = 0;
			if (tlbs == 3) names[n] = "TLB", tlb[n] = 1, l1[n++] = 0;
			if (tlbs && pick(&st, 2)) names[n] = "STLB", tlb[n] = 1, l1[n++] = 0;
			if (pick(&st, 3) == 0) names[n] = "MEM", tlb[n] = 2, l1[n++] = 0;
		}
		for (int i = n - 1; i > 0; i--) {	/* any order */
			int j = (int)pick(&st, (unsigned)i + 1);
			const char *tn = names[i];
			int tt = tlb[i], tl = l1[i];

			names[i] = names[j], tlb[i] = tlb[j], l1[i] = l1[j];
			names[j] = tn, tlb[j] = tt, l1[j] = tl;
		}
		for (int i = 0; i < n; i++) {
			size_t at = strlen(text);

			if (tlb[i] == 2)
				snprintf(el, sizeof el, "MEM:latency=%u", 1 + pick(&st, 1000));
			else
				random_elem(&st, el, sizeof el, names[i], tlb[i], l1[i]);
			snprintf(text + at, sizeof text - at, "%s%s", at ? ";" : "", el);
		}
		if (sim_spec_parse(text, &s, err, sizeof err) == 0) {
			valid++;
			if (round_trips(&s, out, sizeof out))
				trips++;
			else if (valid - trips <= 3)
				tap_diag("no round trip: '%s' -> '%s'", text, out);
			s.preset[0] = '\0';	/* and as a plain element list */
			if (!round_trips(&s, out, sizeof out)) {
				trips--;
				tap_diag("no round trip without preset: '%s' -> '%s'", text, out);
			}
		} else if (!strncmp(err, "--sim: ", 7) && !strchr(err, '\n')) {
			msgs++;
		}
	}
	tap_diag("%d of %d random machines valid", valid, tries);
	tap_ok(valid >= tries / 5, "enough random machines are valid (%d)", valid);
	tap_eq(trips, valid, "every valid random machine round-trips through sim_spec_format");
	tap_eq(msgs, tries - valid, "every invalid one has a one-line --sim: message");
}

/* Mutated specs: 0 or -1, never a crash or UB (ASan/UBSan), and a
 * proper message whenever -1. */
static void test_garbage(void)
{
	static const char alphabet[] = ";:,=.-+ \t0123456789KMGTkmgtBiLlDdIiTLBSMEfulpr";
	uint64_t st = 0xdeadbeefcafef00dull;
	const char *seeds[64];
	int nseeds = 0, bad_rc = 0, bad_msg = 0, bad_trip = 0, ok = 0;
	const struct sim_preset *p;

	for (p = sim_presets; p->name && nseeds < 60; p++) {
		seeds[nseeds++] = p->name;
		seeds[nseeds++] = p->spec;
	}
	seeds[nseeds++] = "L1d:size=16K,assoc=4,line=32;L1i:size=16K,assoc=4,line=32;"
			  "L2:size=512K,assoc=4,line=32;DTLB:entries=64,assoc=4,page=4K";
	seeds[nseeds++] = "pii-233;L2:size=1.25M,assoc=full;MEM:latency=99";

	for (int t = 0; t < 20000; t++) {
		char text[600], err[SIM_ERR_LEN], out[2048];
		struct sim_spec s;
		size_t n;
		int rc, edits = 1 + (int)pick(&st, 6);

		snprintf(text, sizeof text, "%s", seeds[pick(&st, (unsigned)nseeds)]);
		n = strlen(text);
		for (int e = 0; e < edits; e++) {
			size_t at = n ? pick(&st, (unsigned)n) : 0;
			char c = pick(&st, 3) ? PICK(&st, alphabet) : (char)(1 + pick(&st, 255));

			switch (pick(&st, 5)) {
			case 0:		/* replace */
				if (n)
					text[at] = c;
				break;
			case 1:		/* insert */
				if (n + 2 < sizeof text) {
					memmove(text + at + 1, text + at, n - at + 1);
					text[at] = c;
					n++;
				}
				break;
			case 2:		/* delete */
				if (n) {
					memmove(text + at, text + at + 1, n - at);
					n--;
				}
				break;
			case 3:		/* truncate */
				text[at] = '\0';
				n = at;
				break;
			case 4:		/* repeat a digit run: overflow */
				if (n + 25 < sizeof text) {
					memmove(text + at + 20, text + at, n - at + 1);
					memset(text + at, '9', 20);
					n += 20;
				}
				break;
			}
		}
		memset(err, 0, sizeof err);
		rc = sim_spec_parse(text, &s, err, sizeof err);
		if (rc != 0 && rc != -1)
			bad_rc++;
		else if (rc == -1 && (strncmp(err, "--sim: ", 7) || strlen(err) <= 7 ||
				      strchr(err, '\n')))
			bad_msg++;
		else if (rc == 0 && !round_trips(&s, out, sizeof out))
			bad_trip++;
		ok += rc == 0;
	}
	tap_diag("%d of 20000 mutated specs still valid", ok);
	tap_eq(bad_rc, 0, "mutated specs: 0 or -1");
	tap_eq(bad_msg, 0, "mutated specs: every -1 has a one-line --sim: message");
	tap_eq(bad_trip, 0, "mutated specs: every valid one round-trips");

	/* Very long input. */
	{
		static char big[100000];
		char err[SIM_ERR_LEN];
		struct sim_spec s;

		memset(big, 'L', sizeof big - 1);
		tap_eq(sim_spec_parse(big, &s, err, sizeof err), -1, "100 KB of 'L' rejected");
		tap_ok(strlen(err) < SIM_ERR_LEN, "long input: bounded message");
		for (size_t i = 0; i + 1 < sizeof big; i++)
			big[i] = ";:,="[i % 4];
		tap_eq(sim_spec_parse(big, &s, err, sizeof err), -1, "100 KB of separators rejected");
	}
}

int main(void)
{
	test_issue_example();
	test_defaults();
	test_keys();
	test_sizes();
	test_case_and_blanks();
	test_full();
	test_presets();
	test_format_describe();
	test_bad();
	test_err_buffers();
	test_random_round_trip();
	test_garbage();
	return tap_done();
}
