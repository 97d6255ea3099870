/* vendor_cpuid.c - the caches and TLBs as CPUID describes them: Intel
 * leaves 2 (descriptors), 4 (deterministic cache parameters) and 0x18
 * (TLBs); AMD leaves 0x80000005/0x80000006 (legacy L1, L2, L3, TLBs) and
 * 0x8000001D (cache topology).  From the instruction or from a dump, so
 * that the tests read saved machines.  Field layouts: Intel SDM vol. 2A
 * (CPUID), AMD APM vol. 3 appendix E. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "vendor.h"

#define MAX_DUMP 512

struct leaf_regs {
	unsigned leaf, sub, r[4]; /* eax ebx ecx edx */
};

/* Where the registers come from: a dump's table, or the instruction. */
struct cpuid_src {
	const struct leaf_regs *dump;
	int ndump;
};

static void query(const struct cpuid_src *s, unsigned leaf, unsigned sub, unsigned r[4])
{
	memset(r, 0, 4 * sizeof r[0]);
	if (s->dump) {
		for (int i = 0; i < s->ndump; i++)
			if (s->dump[i].leaf == leaf && s->dump[i].sub == sub) {
				memcpy(r, s->dump[i].r, 4 * sizeof r[0]);
				return;
			}
		/* A dump lists a leaf without sub-leaves once, as sub-leaf 0. */
		for (int i = 0; i < s->ndump; i++)
			if (s->dump[i].leaf == leaf && sub == 0) {
				memcpy(r, s->dump[i].r, 4 * sizeof r[0]);
				return;
			}
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
#endif
}

static void note(struct amp_vendor *v, const char *fmt, const char *arg)
{
	if (v->nnotes < AMP_VENDOR_NOTES)
		snprintf(v->notes[v->nnotes++], AMP_REASON_LEN, fmt, arg);
}

struct amp_reported_cache *amp_reported_cache_add(struct amp_reported_cache *tab, int *n, int level,
						  const char *type, uint64_t size, uint64_t line, unsigned ways)
{
	struct amp_reported_cache *c;

	if (*n >= AMP_VENDOR_MAX || size == 0)
		return NULL;
	c = &tab[(*n)++];
	memset(c, 0, sizeof *c);
	c->level = level;
	snprintf(c->type, sizeof c->type, "%s", type);
	c->size = size;
	c->line = line;
	c->ways = ways;
	c->sets = line && ways ? (unsigned)(size / line / ways) : 0;
	return c;
}

/* CPUID's ways 0 is fully associative: one set. */
static struct amp_reported_cache *add_cache(struct amp_vendor *v, int level, const char *type,
					    uint64_t size, uint64_t line, unsigned ways)
{
	struct amp_reported_cache *c = amp_reported_cache_add(v->cache, &v->ncache, level, type, size, line, ways);

	if (c && line && !ways)
		c->sets = 1;
	return c;
}

static void add_tlb(struct amp_vendor *v, const char *name, uint64_t page, const char *pages,
		    unsigned entries, unsigned ways, const char *leaf)
{
	struct amp_reported_tlb *t;

	if (v->ntlb >= AMP_VENDOR_MAX || entries == 0)
		return;
	t = &v->tlb[v->ntlb++];
	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "%s", name);
	t->page = page;
	snprintf(t->pages, sizeof t->pages, "%s", pages);
	t->entries = entries;
	t->ways = ways;
	snprintf(t->leaf, sizeof t->leaf, "%s", leaf);
}

static const char *const type_names[] = { "", "data", "instruction", "unified" };

/* Intel leaf 4 and AMD leaf 0x8000001D share one layout. */
static int deterministic_caches(struct amp_vendor *v, const struct cpuid_src *s, unsigned leaf)
{
	int found = 0;

	for (unsigned sub = 0; sub < 16; sub++) {
		unsigned r[4], type, level, ways, parts, line, sets;
		struct amp_reported_cache *c;

		query(s, leaf, sub, r);
		type = r[0] & 0x1f;
		if (type == 0 || type > 3)
			break;
		level = (r[0] >> 5) & 0x7;
		ways = ((r[1] >> 22) & 0x3ff) + 1;
		parts = ((r[1] >> 12) & 0x3ff) + 1;
		line = (r[1] & 0xfff) + 1;
		sets = r[2] + 1;
		c = add_cache(v, (int)level, type_names[type], (uint64_t)ways * parts * line * sets, line,
			      (r[0] >> 9) & 1 ? 0 : ways);
		if (c) {
			c->sets = sets;
			snprintf(c->shared_with, sizeof c->shared_with, "%u logical CPUs",
				 ((r[0] >> 14) & 0xfff) + 1);
		}
		found++;
	}
	return found;
}

/* Leaf 2's one-byte descriptors (SDM table 3-12): only those amp knows;
 * 0xFF sends to leaf 4, 0xFE to leaf 0x18. */
static const struct descriptor {
	unsigned char code;
	char what;              /* 'c' cache, 't' TLB, 'p' prefetch */
	int level;
	const char *type;       /* cache type or TLB name */
	unsigned kib_or_entries, ways, line_or_page_kib;
} descriptors[] = {
	{ 0x01, 't', 1, "ITLB", 32, 4, 4 },
	{ 0x03, 't', 1, "DTLB", 64, 4, 4 },
	{ 0x0a, 'c', 1, "data", 8, 2, 32 },
	{ 0x0c, 'c', 1, "data", 16, 4, 32 },
	{ 0x0d, 'c', 1, "data", 16, 4, 64 },
	{ 0x2c, 'c', 1, "data", 32, 8, 64 },
	{ 0x30, 'c', 1, "instruction", 32, 8, 64 },
	{ 0x7d, 'c', 2, "unified", 2048, 8, 64 },
	{ 0x80, 'c', 2, "unified", 512, 8, 64 },
	{ 0x86, 'c', 2, "unified", 512, 4, 64 },
	{ 0x87, 'c', 2, "unified", 1024, 8, 64 },
	{ 0xb5, 't', 1, "ITLB", 64, 8, 4 },
	{ 0xb6, 't', 1, "ITLB", 128, 8, 4 },
	{ 0xc3, 't', 2, "STLB", 1536, 6, 4 },
	{ 0xd0, 'c', 3, "unified", 512, 4, 64 },
	{ 0xf0, 'p', 0, NULL, 64, 0, 0 },
	{ 0xf1, 'p', 0, NULL, 128, 0, 0 },
};

/* caches: whether to take leaf 2's cache descriptors (leaf 4 is empty). */
static void leaf2(struct amp_vendor *v, const struct cpuid_src *s, int caches, int *use18)
{
	unsigned r[4];
	char unknown[AMP_REASON_LEN] = "";
	size_t used = 0;

	query(s, 2, 0, r);
	for (int reg = 0; reg < 4; reg++) {
		if (r[reg] & 0x80000000u)
			continue; /* bit 31 set: this register holds no descriptors */
		for (int b = reg == 0 ? 1 : 0; b < 4; b++) { /* AL is a count, not a descriptor */
			unsigned char d = (unsigned char)(r[reg] >> (8 * b));
			size_t k;

			if (d == 0)
				continue;
			if (d == 0xff)
				continue; /* "see leaf 4" */
			if (d == 0xfe) {
				*use18 = 1;
				continue;
			}
			for (k = 0; k < sizeof descriptors / sizeof descriptors[0]; k++)
				if (descriptors[k].code == d)
					break;
			if (k == sizeof descriptors / sizeof descriptors[0]) {
				used += snprintf(unknown + used, used < sizeof unknown ? sizeof unknown - used : 0,
						 " 0x%02x", d);
				continue;
			}
			if (descriptors[k].what == 'p')
				v->prefetch_bytes = descriptors[k].kib_or_entries;
			else if (descriptors[k].what == 'c' && caches)
				add_cache(v, descriptors[k].level, descriptors[k].type,
					  (uint64_t)descriptors[k].kib_or_entries << 10,
					  descriptors[k].line_or_page_kib, descriptors[k].ways);
			else
				add_tlb(v, descriptors[k].type, 4096, "4K", descriptors[k].kib_or_entries,
					descriptors[k].ways, "leaf 2");
		}
	}
	if (unknown[0])
		note(v, "leaf 2 descriptors amp has no table entry for:%s", unknown);
}

/* Intel leaf 0x18: one sub-leaf per TLB (and page-size group). */
static int leaf18(struct amp_vendor *v, const struct cpuid_src *s)
{
	unsigned r[4], max;
	int found = 0;

	query(s, 0x18, 0, r);
	max = r[0] > 31 ? 31 : r[0];
	for (unsigned sub = 0; sub <= max; sub++) {
		unsigned type, level, ways, sets;
		static const char *const page_names[] = { "4K", "2M", "4M", "1G" };
		static const uint64_t page_bytes[] = { 4096, 2u << 20, 4u << 20, 1u << 30 };
		char pages[32] = "";
		uint64_t smallest = 0;
		size_t used = 0;

		query(s, 0x18, sub, r);
		type = r[3] & 0x1f;
		if (type == 0)
			continue;
		level = (r[3] >> 5) & 0x7;
		ways = r[1] >> 16;
		sets = r[2];
		for (int b = 0; b < 4; b++)
			if (r[1] & (1u << b)) {
				used += snprintf(pages + used, sizeof pages - used, "%s%s", used ? " " : "",
						 page_names[b]);
				if (!smallest)
					smallest = page_bytes[b];
			}
		/* Type 1 data, 2 instruction, 3 unified, 4 load-only, 5
		 * store-only.  A unified second level is the instruction
		 * side's too (ITLB2). */
		add_tlb(v, level >= 2 ? (type == 2 ? "ITLB2" : "STLB") : type == 2 ? "ITLB" : "DTLB", smallest, pages,
			ways * sets, (r[3] >> 8) & 1 ? 0 : ways, "leaf 0x18");
		if (level >= 2 && type == 3)
			add_tlb(v, "ITLB2", smallest, pages, ways * sets, (r[3] >> 8) & 1 ? 0 : ways, "leaf 0x18");
		found++;
	}
	return found;
}

/* AMD's 4-bit associativity code of leaf 0x80000006 (APM table E-4);
 * 0 where the code gives no number: 9 sends the reader to 0x8000001D,
 * 7 is reserved. */
static unsigned amd_assoc(unsigned code, unsigned entries_or_lines, int *fully)
{
	static const unsigned ways[16] = { 0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0 };

	*fully = code == 0xf;
	if (code == 0xf)
		return entries_or_lines;
	return ways[code & 0xf];
}

/* An L2 or L3 from 0x80000006: its ways unknown where the code names none. */
static void add_amd_legacy_cache(struct amp_vendor *v, int level, uint64_t size, unsigned line, unsigned code)
{
	struct amp_reported_cache *c;
	unsigned ways;
	int fully;

	ways = amd_assoc(code, line ? (unsigned)(size / line) : 0, &fully);
	c = add_cache(v, level, "unified", size, line, fully ? 0 : ways);
	if (c && !fully && !ways) {
		c->ways_unknown = 1;
		c->sets = 0;
		if (code == 9)
			note(v, "0x80000006 sends %s's associativity to 0x8000001D, which is hidden",
			     level == 2 ? "L2" : "L3");
	}
}

/* AMD 0x80000005 and 0x80000006: legacy caches (when 0x8000001D is
 * hidden) and the TLBs, which only these leaves describe. */
static void amd_legacy(struct amp_vendor *v, const struct cpuid_src *s, unsigned max_ext, int caches)
{
	unsigned r[4];
	int fully;

	if (max_ext >= 0x80000005) {
		query(s, 0x80000005, 0, r);
		/* L1: size KiB [31:24], ways [23:16] (0xFF full), line [7:0]. */
		if (caches) {
			unsigned w;

			w = (r[2] >> 16) & 0xff;
			add_cache(v, 1, "data", (uint64_t)(r[2] >> 24) << 10, r[2] & 0xff, w == 0xff ? 0 : w);
			w = (r[3] >> 16) & 0xff;
			add_cache(v, 1, "instruction", (uint64_t)(r[3] >> 24) << 10, r[3] & 0xff, w == 0xff ? 0 : w);
		}
		/* L1 TLBs for 4 KiB pages: EBX data [31:16], instruction [15:0]. */
		add_tlb(v, "DTLB", 4096, "4K", (r[1] >> 16) & 0xff,
			((r[1] >> 24) & 0xff) == 0xff ? 0 : (r[1] >> 24) & 0xff, "0x80000005");
		add_tlb(v, "ITLB", 4096, "4K", r[1] & 0xff,
			((r[1] >> 8) & 0xff) == 0xff ? 0 : (r[1] >> 8) & 0xff, "0x80000005");
	}
	if (max_ext >= 0x80000006) {
		unsigned ways, entries;

		query(s, 0x80000006, 0, r);
		/* L2 TLB for 4 KiB pages: EBX data assoc [31:28], entries [27:16]. */
		entries = (r[1] >> 16) & 0xfff;
		ways = amd_assoc(r[1] >> 28, entries, &fully);
		add_tlb(v, "STLB", 4096, "4K", entries, fully ? 0 : ways, "0x80000006");
		/* The L2 ITLB for 4 KiB pages: EBX assoc [15:12], entries [11:0]. */
		entries = r[1] & 0xfff;
		ways = amd_assoc((r[1] >> 12) & 0xf, entries, &fully);
		add_tlb(v, "ITLB2", 4096, "4K", entries, fully ? 0 : ways, "0x80000006");
		if (caches) {
			/* L2: ECX size KiB [31:16]; L3: EDX size 512 KiB [31:18];
			 * both assoc code [15:12], line [7:0]. */
			add_amd_legacy_cache(v, 2, (uint64_t)(r[2] >> 16) << 10, r[2] & 0xff, (r[2] >> 12) & 0xf);
			add_amd_legacy_cache(v, 3, (uint64_t)(r[3] >> 18) * (512u << 10), r[3] & 0xff,
					     (r[3] >> 12) & 0xf);
		}
	}
}

static int decode(struct amp_vendor *v, const struct cpuid_src *s)
{
	unsigned r[4], max, max_ext, base_family;

	query(s, 0, 0, r);
	max = r[0];
	memcpy(v->vendor, &r[1], 4);
	memcpy(v->vendor + 4, &r[3], 4);
	memcpy(v->vendor + 8, &r[2], 4);
	v->vendor[12] = '\0';
	if (!v->vendor[0]) {
		snprintf(v->missing, sizeof v->missing, "CPUID leaf 0 names no vendor");
		return -1;
	}
	query(s, 1, 0, r);
	base_family = (r[0] >> 8) & 0xf;
	v->family = base_family == 0xf ? base_family + ((r[0] >> 20) & 0xff) : base_family;
	v->model = (r[0] >> 4) & 0xf;
	if (base_family == 0x6 || base_family == 0xf)
		v->model |= ((r[0] >> 16) & 0xf) << 4;
	v->hypervisor = (r[2] >> 31) & 1;
	query(s, 0x80000000, 0, r);
	max_ext = r[0] >= 0x80000000 && r[0] < 0x80000100 ? r[0] : 0;

	if (strcmp(v->vendor, "GenuineIntel") == 0) {
		int use18 = 0, n4 = 0;

		if (max >= 4 && (n4 = deterministic_caches(v, s, 4)) == 0)
			note(v, "%s", "leaf 4 is empty (a hypervisor hiding it?)");
		if (max >= 2)
			leaf2(v, s, n4 == 0, &use18);
		if (max >= 0x18) {
			if (leaf18(v, s) == 0)
				note(v, "%s", "leaf 0x18 (TLBs) is empty: a hypervisor hides it");
		} else if (use18) {
			note(v, "%s", "leaf 2 sends TLBs to leaf 0x18, beyond the highest leaf");
		}
		return 0;
	}
	if (strcmp(v->vendor, "AuthenticAMD") == 0 || strcmp(v->vendor, "HygonGenuine") == 0) {
		int topo = 0;

		if (max_ext >= 0x80000001) {
			query(s, 0x80000001, 0, r);
			topo = (r[2] >> 22) & 1; /* TopologyExtensions */
		}
		if (topo && max_ext >= 0x8000001d && deterministic_caches(v, s, 0x8000001d) > 0) {
			amd_legacy(v, s, max_ext, 0);
		} else {
			note(v, "%s", topo ? "0x8000001D is empty (a hypervisor hiding it?); caches from the legacy leaves"
					   : "no TopologyExtensions: 0x8000001D is hidden; caches from the legacy leaves");
			amd_legacy(v, s, max_ext, 1);
		}
		if (max >= 4) {
			query(s, 4, 0, r);
			if ((r[0] & 0x1f) == 0)
				note(v, "%s", "leaf 4 is empty (AMD describes caches in 0x8000001D)");
		}
		return 0;
	}
	snprintf(v->missing, sizeof v->missing, "amp reads cache leaves of Intel and AMD only (vendor %s)",
		 v->vendor);
	return -1;
}

static void finish(struct amp_vendor *v)
{
	if (v->hypervisor)
		note(v, "%s", "CPUID.1:ECX[31]: a hypervisor; it may hide or rewrite leaves");
	if (v->ncache == 0 && !v->missing[0])
		snprintf(v->missing, sizeof v->missing, "CPUID describes no caches");
}

int amp_vendor_cpuid_file(struct amp_vendor *v, const char *path)
{
	static struct leaf_regs table[MAX_DUMP];
	struct cpuid_src s = { table, 0 };
	char line[256];
	FILE *f = fopen(path, "r");
	int rc;

	memset(v, 0, sizeof *v);
	snprintf(v->cpuid_source, sizeof v->cpuid_source, "CPUID dump %s", path);
	if (!f) {
		snprintf(v->missing, sizeof v->missing, "cannot read the CPUID dump %s", path);
		return -1;
	}
	while (fgets(line, sizeof line, f) && s.ndump < MAX_DUMP) {
		struct leaf_regs *e = &table[s.ndump];

		if (sscanf(line, " %x %x: eax=%x ebx=%x ecx=%x edx=%x", &e->leaf, &e->sub, &e->r[0],
			   &e->r[1], &e->r[2], &e->r[3]) == 6)
			s.ndump++;
	}
	fclose(f);
	if (s.ndump == 0) {
		snprintf(v->missing, sizeof v->missing, "%s has no CPUID lines (format of `cpuid -r -1`)", path);
		return -1;
	}
	rc = decode(v, &s);
	finish(v);
	return rc;
}

int amp_vendor_cpuid(struct amp_vendor *v)
{
	const char *dump = getenv("AMP_CPUID_DUMP");
	struct cpuid_src s = { NULL, 0 };
	int rc;

	if (dump && *dump)
		return amp_vendor_cpuid_file(v, dump);
	memset(v, 0, sizeof *v);
	snprintf(v->cpuid_source, sizeof v->cpuid_source, "CPUID instruction");
#if defined(__x86_64__) || defined(__i386__)
	rc = decode(v, &s);
	finish(v);
	return rc;
#else
	(void)s;
	(void)rc;
	snprintf(v->missing, sizeof v->missing, "no CPUID instruction on this architecture");
	return -1;
#endif
}

int amp_cpuid_dump(FILE *out)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned r[4], max, max_ext;
	struct cpuid_src s = { NULL, 0 };

	query(&s, 0, 0, r);
	max = r[0] > 0x40 ? 0x40 : r[0];
	fprintf(out, "CPU:\n");
	for (unsigned leaf = 0; leaf <= max; leaf++)
		for (unsigned sub = 0; sub < (leaf == 4 || leaf == 0x18 ? 8u : 1u); sub++) {
			query(&s, leaf, sub, r);
			fprintf(out, "   0x%08x 0x%02x: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x\n", leaf, sub,
				r[0], r[1], r[2], r[3]);
		}
	query(&s, 0x80000000, 0, r);
	max_ext = r[0] >= 0x80000000 && r[0] < 0x80000040 ? r[0] : 0x80000000;
	for (unsigned leaf = 0x80000000; leaf <= max_ext; leaf++)
		for (unsigned sub = 0; sub < (leaf == 0x8000001d ? 8u : 1u); sub++) {
			query(&s, leaf, sub, r);
			fprintf(out, "   0x%08x 0x%02x: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x\n", leaf, sub,
				r[0], r[1], r[2], r[3]);
		}
	return 0;
#else
	return -1;
#endif
}
