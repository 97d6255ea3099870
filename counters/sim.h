/* sim.h - the simulated machine: a software memory hierarchy that runs
 * amp's experiment plans, counts misses per level like a PMU and adds up
 * simulated cycles, so every algorithm can be tested against known
 * answers (and taught: --sim=PRESET). */
#ifndef AMP_SIM_H
#define AMP_SIM_H

#include <stddef.h>
#include <stdint.h>

enum sim_kind { SIM_CACHE, SIM_TLB };
enum sim_side { SIM_DATA, SIM_INSN, SIM_UNIFIED };
enum sim_policy { SIM_LRU, SIM_PLRU, SIM_FIFO, SIM_RANDOM };
enum sim_inclusion { SIM_NINE, SIM_INCLUSIVE, SIM_EXCLUSIVE };
/* hashed: physical, with a multiplicative hash of the bits above the set
 * number XORed into it, as sliced last-level caches hash: the lines at
 * one page offset reach every set, not 1/(page/line) of them. */
enum sim_index { SIM_INDEX_VIRTUAL, SIM_INDEX_PHYSICAL, SIM_INDEX_HASHED };
enum sim_op { SIM_LOAD, SIM_STORE, SIM_IFETCH };

#define SIM_MAX_LEVELS 16
#define SIM_ERR_LEN 256

/* One cache or TLB as the spec describes it. */
struct sim_level_spec {
	char name[8];            /* L1d L1i L1 L2 L2d L2i L3 L4 DTLB ITLB STLB TLB */
	enum sim_kind kind;
	enum sim_side side;      /* L1d/DTLB: data, L1i/ITLB: insn, else unified */
	int level;               /* 1..4 for caches, 1..2 for TLBs */
	uint64_t size;           /* caches: bytes */
	unsigned assoc;          /* ways; for full: the number of lines/entries */
	int full;                /* fully associative */
	unsigned line;           /* caches: line size in bytes */
	enum sim_policy policy;
	int write_allocate;      /* caches: 1 allocate, 0 no-write-allocate */
	enum sim_inclusion inclusion; /* relation to the level above */
	unsigned latency;        /* cache: hit latency; TLB: miss penalty (cycles) */
	unsigned entries;        /* TLBs */
	uint64_t page;           /* TLBs: page size in bytes */
	int counter;             /* 0: no miss counter for this level (N/C) */
	enum sim_index index;    /* caches below L1 default to physical */
	unsigned prefetch;       /* caches: neighbour lines filled on each side of a miss */
	int region;              /* caches: a region prefetcher (sim_model.c region_observe) */
};

struct sim_spec {
	struct sim_level_spec lv[SIM_MAX_LEVELS];
	int n;
	unsigned mem_latency;    /* cycles for an access that misses every cache */
	double noise;            /* --sim-noise, 0 <= p < 1 */
	double sibling;          /* --sim-sibling, 0 <= q < 1 */
	/* A busy spell of a sibling running a small loop (tests): from our
	 * access number sibling_from until sibling_until, its own lines
	 * hold sibling_ways ways of every set of the data side's level-1
	 * and level-2 caches (it touches them as often as we access). */
	unsigned sibling_ways;
	/* ... touched only before every sibling_every-th of our accesses
	 * (0, 1: each), so they sometimes age out and a walk one line
	 * under our ways misses part of the time, as on the Zen 5 guest. */
	unsigned sibling_every;
	/* ... and, in the same spell, its pages hold sibling_tlb_ways[k]
	 * ways of every set of the level-(k + 1) TLBs (a core's threads
	 * share them: the Zen 3 guest's STLB and L2 ITLB read half their
	 * entries in some runs), on both sides. */
	unsigned sibling_tlb_ways[2];
	uint64_t sibling_from, sibling_until;
	uint64_t seed;           /* --seed */
	int pages_random;        /* --sim-pages=random: scattered page frames */
	uint64_t map_page;       /* granule of the virtual->physical map (4K) */
	char preset[32];         /* preset name when built from one, else "" */
};

/* Parse SPEC ("pii-233", or "L1d:size=16K,assoc=4;L2:size=512K...", or
 * a preset followed by elements that override it: "pii-233;L2:size=1M").
 * Fills *spec completely (noise 0, seed 1, contiguous pages, map_page
 * 4096, mem_latency from MEM:latency or its default); the caller sets
 * noise/seed/pages_random from their own options afterwards.  Validates
 * geometry; on error returns -1 and err holds one line naming the
 * element and key at fault. */
int sim_spec_parse(const char *text, struct sim_spec *spec, char *err, size_t len);
/* Append a readable one-line description of level lv to the string in
 * buf (start from buf[0] = '\0' for just the description). */
void sim_level_describe(const struct sim_level_spec *lv, char *buf, size_t len);
/* Canonical spec text for spec (re-parses to the same machine); buf of
 * SIM_SPEC_TEXT_LEN bytes always suffices.  On a parse error *spec is
 * left untouched. */
#define SIM_SPEC_TEXT_LEN 2048
void sim_spec_format(const struct sim_spec *spec, char *buf, size_t len);

struct sim_preset {
	const char *name;
	const char *description; /* machine and source (paper table) */
	const char *spec;        /* in the --sim grammar */
};
extern const struct sim_preset sim_presets[];  /* terminated by {NULL} */
const struct sim_preset *sim_preset_find(const char *name);

/* Per-level statistics, indexed like spec->lv. */
struct sim_level_stats {
	uint64_t accesses[2];    /* [0] data side, [1] instruction side */
	uint64_t misses[2];
};

struct sim_machine;

struct sim_machine *sim_create(const struct sim_spec *spec, char *err, size_t len);
void sim_destroy(struct sim_machine *m);
const struct sim_spec *sim_get_spec(const struct sim_machine *m);

/* One access at virtual address va.  Goes through the TLBs of its side,
 * then the caches of its side down to memory, updating statistics and
 * simulated cycles (returned: cycles this access cost). */
unsigned sim_access(struct sim_machine *m, uint64_t va, enum sim_op op);
/* Remove every line of [va, va+len) from every cache level (clflush). */
void sim_flush_range(struct sim_machine *m, uint64_t va, uint64_t len);
/* Drop the translations of [va, va+len) from every TLB (what munmap or
 * mprotect does on a real machine). */
void sim_flush_tlb_range(struct sim_machine *m, uint64_t va, uint64_t len);
/* Empty every cache and TLB (a cold machine). Statistics are kept. */
void sim_flush_all(struct sim_machine *m);
void sim_get_stats(const struct sim_machine *m, int level, struct sim_level_stats *out);
uint64_t sim_cycles(const struct sim_machine *m);
/* Number of accesses of one kind so far (for the LOADS/STORES events). */
uint64_t sim_op_count(const struct sim_machine *m, enum sim_op op);
uint64_t sim_total_accesses(const struct sim_machine *m);
/* Physical address the page map gives va (allocates the frame). */
uint64_t sim_translate(struct sim_machine *m, uint64_t va);

#endif
