/* vendor.h - what the vendor says: the caches and TLBs the system
 * reports (sysfs) and the processor describes (CPUID leaves 2, 4, 0x18
 * on Intel; 0x80000005, 0x80000006, 0x8000001D on AMD), and the table
 * that sets them beside what amp measured.  Reported values are only
 * ever a column beside a measurement, never a measurement. */
#ifndef AMP_VENDOR_H
#define AMP_VENDOR_H

#include <stdint.h>
#include <stdio.h>
#include "report.h"

#define AMP_VENDOR_MAX 16
#define AMP_VENDOR_NOTES 8

/* A TLB as CPUID describes it. */
struct amp_reported_tlb {
	char name[8];           /* DTLB ITLB STLB ITLB2 (amp's level names) */
	uint64_t page;          /* smallest page size it holds, bytes */
	char pages[32];         /* every page size, e.g. "4K 2M" */
	unsigned entries;
	unsigned ways;          /* 0 = fully associative */
	char leaf[16];          /* where it came from */
};

struct amp_vendor {
	/* Where CPUID came from: the instruction or a dump (AMP_CPUID_DUMP). */
	char cpuid_source[160];
	char vendor[16];
	unsigned family, model;
	int hypervisor;         /* CPUID.1:ECX[31] */
	struct amp_reported_cache cache[AMP_VENDOR_MAX];
	int ncache;
	struct amp_reported_tlb tlb[AMP_VENDOR_MAX];
	int ntlb;
	unsigned prefetch_bytes; /* leaf 2 descriptor 0xF0/0xF1: 64 or 128 */
	/* Facts about the leaves: hidden, empty, or only legacy ones. */
	char notes[AMP_VENDOR_NOTES][AMP_REASON_LEN];
	int nnotes;
	char missing[AMP_REASON_LEN]; /* why there is no CPUID view at all */
};

/* Fills v from CPUID: the instruction, or the dump file named by
 * AMP_CPUID_DUMP (lines "0xLEAF 0xSUB: eax=0x.. ebx=0x.. ecx=0x.. edx=0x..",
 * the format of `cpuid -r -1`).  0, or -1 with v->missing set. */
int amp_vendor_cpuid(struct amp_vendor *v);
/* The same from a dump file's path (tests). */
int amp_vendor_cpuid_file(struct amp_vendor *v, const char *path);
/* Writes this CPU's leaves in the dump format (for fixtures); 0, or -1
 * when this is not an x86 CPU. */
int amp_cpuid_dump(FILE *out);

/* The caches as a library reports them (vendor_lib.c): PAPI's hardware
 * info, hwloc's topology (AMP_HWLOC_XML: from a saved one). */
#define AMP_LIBVIEWS 2          /* papi, hwloc: the table's columns */
/* Appends a cache to tab[0..*n-1] (at most AMP_VENDOR_MAX, none of size
 * 0): sets from size, line and ways (0 when either is unknown).
 * Returns it, or NULL when it was not added. */
struct amp_reported_cache *amp_reported_cache_add(struct amp_reported_cache *tab, int *n, int level,
						  const char *type, uint64_t size, uint64_t line, unsigned ways);

struct amp_libview {
	char name[8];
	char source[160];
	struct amp_reported_cache cache[AMP_VENDOR_MAX];
	int ncache;
	char missing[AMP_REASON_LEN]; /* "not built (...)", or why none */
};
int amp_vendor_papi(struct amp_libview *v);
int amp_vendor_hwloc(struct amp_libview *v);

/* One row of measured against reported. */
enum amp_verdict { AMP_AGREE, AMP_DIFFER, AMP_NOT_MEASURED, AMP_NOT_REPORTED };
extern const char *const amp_verdict_names[];
struct amp_compare_row {
	char level[8];          /* L1d L1i L2 L3 DTLB ... */
	const char *param;      /* "size", "line", "ways", "entries", "page" */
	int has_sysfs, has_cpuid, has_measured;
	int64_t sysfs, cpuid, measured;
	int has_lib[AMP_LIBVIEWS];  /* the libraries' columns (papi, hwloc) */
	int64_t lib[AMP_LIBVIEWS];
	char measured_how[48];  /* "counters", "timing", "timing (effective)" */
	enum amp_verdict verdict;
	char why[AMP_REASON_LEN]; /* for a disagreement, when amp can tell */
};
#define AMP_COMPARE_MAX 64
struct amp_compare {
	struct amp_compare_row row[AMP_COMPARE_MAX];
	int n, ndiffer;
};

/* Builds the table from r (its sysfs column, its measured hierarchy and
 * sweep) and v (may be NULL: no CPUID column). */
void amp_compare_build(const struct amp_report *r, const struct amp_vendor *v, struct amp_compare *t);
void amp_compare_text(const struct amp_report *r, const struct amp_vendor *v,
		      const struct amp_compare *t, FILE *out);
void amp_compare_json(const struct amp_vendor *v, const struct amp_compare *t, FILE *out);
/* The same with the libraries' sources (papi, hwloc; NULL: not read). */
void amp_compare_json_libs(const struct amp_vendor *v, const struct amp_compare *t, const struct amp_libview *libs,
			   FILE *out);

#endif
