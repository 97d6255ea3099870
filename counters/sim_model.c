/* sim_model.c - the simulated memory hierarchy behind sim.h.
 *
 * What one access does (the tests and amp's algorithms rely on this):
 *
 *  - LOAD and STORE are the data side (statistics index 0), IFETCH the
 *    instruction side (index 1).
 *  - Noise first (spec->noise = p): with probability p the accessed line
 *    is removed from the level-1 cache of its side (interference); with
 *    probability p/1000 a disturbance (a context switch): every level-1
 *    cache and every TLB is emptied and each valid line of the lower
 *    cache levels is invalidated with probability 1/8.  Seeded; p = 0
 *    draws nothing, so the model is exact.
 *  - Translation: the level-1 TLB of the side (DTLB/ITLB, or a unified
 *    TLB), then on its miss the level-2 TLB (STLB) if present.  A TLB
 *    indexes by vpn = va / its page, set = vpn % sets; a TLB that misses
 *    adds its latency (the miss penalty) and is filled (TLBs are
 *    non-inclusive).  A side with no level-1 TLB does no lookups.
 *  - Page map, granule spec->map_page: physical = virtual, or with
 *    pages_random a seeded bijective mix of the low 36 bits of the vpn
 *    (scattered frames that never collide).
 *  - Caches: the path of a side is, per level number 1..4, the split
 *    cache of that side or the unified one.  Lines are identified by
 *    their physical line address at every level; the set comes from the
 *    virtual or the physical address per level (index=), set =
 *    (addr / line) % sets.  The walk adds each looked-up level's latency
 *    and counts accesses and misses per side; past the last level it
 *    adds spec->mem_latency.  A hit updates replacement state.
 *  - Fills, bottom up, of every level above the one that hit (all, when
 *    memory served): a STORE skips no-write-allocate levels; an
 *    exclusive level is never filled on the way up, it takes the victims
 *    of the level(s) directly above it, and a hit there moves the line
 *    up (it leaves the exclusive level when some level above is filled).
 *    Victims of an exclusive level are dropped, or go on into the next
 *    level when that one is exclusive too.  An inclusive level
 *    back-invalidates what it evicts from every level above it (both
 *    halves of a split level).  NINE: neither.  Invalid ways are always
 *    filled before anything is evicted.
 *  - Replacement: LRU, tree PLRU, FIFO (hits do not reorder) and RANDOM
 *    (a seeded stream separate from the noise stream).
 *
 * Data layout, per level: a tag array (physical line address, or vpn for
 * TLBs; all ones when invalid) of sets * ways slots; PLRU adds a bit
 * tree per set (O(log ways)).  Small sets (up to SCAN_MAX ways) are
 * scanned: LRU and FIFO stamp each slot with a per-level clock at use
 * or fill (0 when invalid, so the oldest stamp is also the first invalid
 * way), all in the set's own memory.  Big sets (fully associative
 * levels, up to millions of ways) find a tag through an open-addressing
 * hash; LRU and FIFO keep a circular doubly linked list per set, most
 * recent first with the invalid slots at the tail, so the victim is the
 * tail in O(1); PLRU and RANDOM keep a stack of the set's invalid slots.
 * A one-slot hint per level catches a repeated line before any search.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define NONE UINT32_MAX
#define INVALID UINT64_MAX
#define SCAN_MAX 16
#define MAP_BITS 36
#define MAP_MASK ((UINT64_C(1) << MAP_BITS) - 1)
#define MAP_M1 UINT64_C(0x9E3779B97F4A7C15)
#define MAP_M2 UINT64_C(0xBF58476D1CE4E5B9)
#define HASH_MUL UINT64_C(0x9E3779B97F4A7C15)
#define MAX_SLOTS (UINT64_C(1) << 30)

struct hent {
	uint64_t key;
	uint64_t slot;
};

struct link {
	uint32_t prev, next;
};

/* A region prefetcher's state (see region_observe): one history for
 * the whole machine, as for one load instruction. */
struct region_pf {
	int on;
	int visiting, opening;   /* a page's visit is open; this access opened it */
	uint64_t page;           /* the visit's page */
	int64_t first, next;     /* its opening line, the first other line it went on to (-1 none) */
	int64_t delta;           /* learned: the line after the opening one, in lines (0 none) */
};

struct level {
	int tlb;
	int lnum;
	enum sim_side side;
	enum sim_policy policy;
	int phys, hashed, wa, inclusive, exclusive;
	unsigned latency;
	unsigned prefetch;       /* neighbour lines filled on each side of a miss */
	struct region_pf region; /* a region prefetcher (on: .on) */
	int shift;               /* log2 of the line (page for TLBs) */
	uint32_t ways, sets, nslots;
	uint32_t set_mask;       /* sets - 1 when sets is a power of two */
	int set_bits;            /* bits of a set number (the hashed index) */
	int sets_pow2;
	int depth;               /* PLRU tree depth: log2(ways) */
	int big;                 /* ways > SCAN_MAX: hashed, linked */
	uint64_t *tag;
	uint64_t *stamp;         /* small LRU/FIFO: last use or fill, 0 invalid */
	uint64_t clock;
	struct link *link;       /* big: LRU/FIFO lists (sentinel nslots + set), free stacks */
	uint32_t *free_head;     /* big PLRU/RANDOM: per set */
	uint8_t *plru;           /* PLRU: node i of a set at [set * ways + i] */
	struct hent *hash;       /* big only */
	uint64_t hmask;
	int hshift;
	uint32_t hint;           /* slot of the last line found or filled */
	int nabove;
	int above[SIM_MAX_LEVELS]; /* inclusive: levels it back-invalidates */
	int below[2];            /* next cache level per side, -1 */
	struct sim_level_stats st;
};

struct sim_machine {
	struct sim_spec spec;
	struct level lv[SIM_MAX_LEVELS];
	int cpath[2][4], ncpath[2];
	int tpath[2][2], ntpath[2];
	int map_shift;
	uint64_t map_k0, map_k1;
	uint64_t map_i1, map_i2;  /* inverses of MAP_M1, MAP_M2 */
	uint64_t rng_repl, rng_noise, rng_sibling;
	uint64_t noise_line, noise_storm, sibling_line; /* thresholds on a 64-bit draw */
	int noisy, busy_sibling;
	uint64_t cycles, total, ops[3];
};

/* ---- small helpers ---- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static int is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static int log2u(uint64_t x)
{
	int n = 0;

	while (x > 1) {
		x >>= 1;
		n++;
	}
	return n;
}

/* Inverse of a multiplier modulo 2^64 (Newton; odd a). */
static uint64_t mul_inverse(uint64_t a)
{
	uint64_t x = a;

	for (int i = 0; i < 6; i++)
		x *= 2 - a * x;
	return x;
}

static uint64_t unxorshift(uint64_t x, int s)
{
	uint64_t y = x;

	for (int i = 0; i < MAP_BITS / s + 1; i++)
		y = x ^ (y >> s);
	return y;
}

/* ---- the page map: a keyed bijection on the low MAP_BITS of the vpn ---- */

static uint64_t mix(const struct sim_machine *m, uint64_t x)
{
	x ^= m->map_k0;
	x = (x * MAP_M1) & MAP_MASK;
	x ^= x >> 17;
	x = (x * MAP_M2) & MAP_MASK;
	x ^= x >> 11;
	return x ^ m->map_k1;
}

static uint64_t unmix(const struct sim_machine *m, uint64_t x)
{
	x ^= m->map_k1;
	x = unxorshift(x, 11);
	x = (x * m->map_i2) & MAP_MASK;
	x = unxorshift(x, 17);
	x = (x * m->map_i1) & MAP_MASK;
	return x ^ m->map_k0;
}

static inline uint64_t map_va(const struct sim_machine *m, uint64_t va)
{
	uint64_t vpn, off;

	if (!m->spec.pages_random)
		return va;
	vpn = va >> m->map_shift;
	off = va & ((UINT64_C(1) << m->map_shift) - 1);
	vpn = (vpn & ~MAP_MASK) | mix(m, vpn & MAP_MASK);
	return vpn << m->map_shift | off;
}

static uint64_t unmap_pa(const struct sim_machine *m, uint64_t pa)
{
	uint64_t fpn, off;

	if (!m->spec.pages_random)
		return pa;
	fpn = pa >> m->map_shift;
	off = pa & ((UINT64_C(1) << m->map_shift) - 1);
	fpn = (fpn & ~MAP_MASK) | unmix(m, fpn & MAP_MASK);
	return fpn << m->map_shift | off;
}

/* ---- one level: lookup, replacement, fill, invalidation ---- */

static inline uint32_t set_of(const struct level *l, uint64_t unit)
{
	return l->sets_pow2 ? (uint32_t)(unit & l->set_mask) : (uint32_t)(unit % l->sets);
}

static inline uint64_t hash_home(const struct level *l, uint64_t key)
{
	return (key * HASH_MUL) >> l->hshift;
}

static uint32_t hash_find(const struct level *l, uint64_t key)
{
	uint64_t i = hash_home(l, key);

	for (;;) {
		const struct hent *e = &l->hash[i];

		if (e->key == key)
			return (uint32_t)e->slot;
		if (e->key == INVALID)
			return NONE;
		i = (i + 1) & l->hmask;
	}
}

static void hash_put(struct level *l, uint64_t key, uint32_t slot)
{
	uint64_t i = hash_home(l, key);

	while (l->hash[i].key != INVALID)
		i = (i + 1) & l->hmask;
	l->hash[i].key = key;
	l->hash[i].slot = slot;
}

/* Linear probing delete by backward shift: no tombstones to pile up. */
static void hash_del(struct level *l, uint64_t key)
{
	uint64_t i = hash_home(l, key), j, k;

	while (l->hash[i].key != key) {
		if (l->hash[i].key == INVALID)
			return;
		i = (i + 1) & l->hmask;
	}
	j = i;
	for (;;) {
		j = (j + 1) & l->hmask;
		if (l->hash[j].key == INVALID)
			break;
		k = hash_home(l, l->hash[j].key);
		/* Entry j may stay if its home lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		l->hash[i] = l->hash[j];
		i = j;
	}
	l->hash[i].key = INVALID;
}

static inline uint32_t find(const struct level *l, uint64_t tag, uint32_t set)
{
	const uint64_t *t;

	if (l->tag[l->hint] == tag)
		return l->hint;
	if (l->big)
		return hash_find(l, tag);
	t = l->tag + (size_t)set * l->ways;
	for (uint32_t w = 0; w < l->ways; w++)
		if (t[w] == tag)
			return set * l->ways + w;
	return NONE;
}

static inline void list_unlink(struct level *l, uint32_t x)
{
	struct link *k = l->link;

	k[k[x].prev].next = k[x].next;
	k[k[x].next].prev = k[x].prev;
}

static inline void list_push_front(struct level *l, uint32_t x, uint32_t s)
{
	struct link *k = l->link;
	uint32_t n = k[s].next;

	k[x].next = n;
	k[x].prev = s;
	k[n].prev = x;
	k[s].next = x;
}

static inline void list_push_back(struct level *l, uint32_t x, uint32_t s)
{
	struct link *k = l->link;
	uint32_t p = k[s].prev;

	k[x].prev = p;
	k[x].next = s;
	k[p].next = x;
	k[s].prev = x;
}

static inline int uses_list(const struct level *l)
{
	return l->policy == SIM_LRU || l->policy == SIM_FIFO;
}

static inline void plru_touch(struct level *l, uint32_t set, uint32_t way)
{
	uint8_t *t = l->plru + (size_t)set * l->ways;
	uint32_t node = 1;

	for (int d = l->depth - 1; d >= 0; d--) {
		uint32_t dir = (way >> d) & 1;

		t[node] = (uint8_t)!dir;	/* point away from the way just used */
		node = 2 * node + dir;
	}
}

static uint32_t plru_victim(const struct level *l, uint32_t set)
{
	const uint8_t *t = l->plru + (size_t)set * l->ways;
	uint32_t node = 1, way = 0;

	for (int d = 0; d < l->depth; d++) {
		uint32_t dir = t[node];

		way = 2 * way + dir;
		node = 2 * node + dir;
	}
	return way;
}

static inline void touch(struct level *l, uint32_t slot, uint32_t set)
{
	l->hint = slot;
	if (l->policy == SIM_LRU) {
		if (!l->big) {
			l->stamp[slot] = ++l->clock;
		} else if (l->link[l->nslots + set].next != slot) {
			list_unlink(l, slot);
			list_push_front(l, slot, l->nslots + set);
		}
	} else if (l->policy == SIM_PLRU) {
		plru_touch(l, set, slot - set * l->ways);
	}
}

/* Victim way of a small set: an invalid way first (stamp 0 for LRU and
 * FIFO), else by policy. */
static uint32_t small_victim(struct sim_machine *m, struct level *l, uint32_t base)
{
	uint32_t w, best = 0;

	if (uses_list(l)) {
		const uint64_t *st = l->stamp + base;
		uint64_t oldest = st[0];

		for (w = 1; w < l->ways; w++)
			if (st[w] < oldest) {
				oldest = st[w];
				best = w;
			}
		return best;
	}
	for (w = 0; w < l->ways; w++)
		if (l->tag[base + w] == INVALID)
			return w;
	if (l->policy == SIM_PLRU)
		return plru_victim(l, base / l->ways);
	return (uint32_t)(splitmix(&m->rng_repl) % l->ways);
}

/* Victim slot of a big set: the list tail (invalid slots sit there), a
 * free slot, or by policy. */
static uint32_t big_victim(struct sim_machine *m, struct level *l, uint32_t set)
{
	uint32_t slot, s = l->nslots + set;

	if (uses_list(l)) {
		slot = l->link[s].prev;
		list_unlink(l, slot);
		list_push_front(l, slot, s);
		return slot;
	}
	slot = l->free_head[set];
	if (slot != NONE) {
		l->free_head[set] = l->link[slot].next;
		return slot;
	}
	if (l->policy == SIM_PLRU)
		return set * l->ways + plru_victim(l, set);
	return set * l->ways + (uint32_t)(splitmix(&m->rng_repl) % l->ways);
}

/* Put tag into set; returns the evicted tag, INVALID when a free way took it. */
static uint64_t insert(struct sim_machine *m, struct level *l, uint64_t tag, uint32_t set)
{
	uint32_t slot, base = set * l->ways;
	uint64_t old;

	if (l->big) {
		slot = big_victim(m, l, set);
	} else {
		slot = base + small_victim(m, l, base);
		if (uses_list(l))
			l->stamp[slot] = ++l->clock;
	}
	if (l->policy == SIM_PLRU)
		plru_touch(l, set, slot - base);
	old = l->tag[slot];
	if (l->big) {
		if (old != INVALID)
			hash_del(l, old);
		hash_put(l, tag, slot);
	}
	l->tag[slot] = tag;
	l->hint = slot;
	return old;
}

static void invalidate_slot(struct level *l, uint32_t slot)
{
	uint32_t set = slot / l->ways;

	if (l->tag[slot] == INVALID)
		return;
	if (l->big)
		hash_del(l, l->tag[slot]);
	l->tag[slot] = INVALID;
	if (!l->big) {
		if (uses_list(l))
			l->stamp[slot] = 0;
	} else if (uses_list(l)) {
		list_unlink(l, slot);
		list_push_back(l, slot, l->nslots + set);
	} else {
		l->link[slot].next = l->free_head[set];
		l->free_head[set] = slot;
	}
}

/* An empty level: lists in way order, free stacks popping way 0 first. */
static void reset_level(struct level *l)
{
	for (uint32_t i = 0; i < l->nslots; i++)
		l->tag[i] = INVALID;
	if (l->stamp)
		memset(l->stamp, 0, (size_t)l->nslots * sizeof *l->stamp);
	if (l->plru)
		memset(l->plru, 0, l->nslots);
	l->clock = 0;
	l->hint = 0;
	if (!l->big)
		return;
	for (uint32_t set = 0; set < l->sets; set++) {
		uint32_t base = set * l->ways, s = l->nslots + set;

		if (uses_list(l)) {
			l->link[s].next = l->link[s].prev = s;
			for (uint32_t w = 0; w < l->ways; w++)
				list_push_back(l, base + w, s);
		} else {
			for (uint32_t w = 0; w < l->ways; w++)
				l->link[base + w].next = w + 1 < l->ways ? base + w + 1 : NONE;
			l->free_head[set] = base;
		}
	}
	for (uint64_t i = 0; i <= l->hmask; i++)
		l->hash[i].key = INVALID;
}

/* ---- relations between levels ---- */

static inline uint32_t cache_set(const struct level *l, uint64_t va, uint64_t pa)
{
	uint64_t unit = (l->phys ? pa : va) >> l->shift;

	/* The bits above the set number, mixed (as the many-bit parities
	 * of real slice hashes mix them: a plain XOR fold lined up with the
	 * TLB sweep's strides, which read 1 KiB pages), are XORed into it:
	 * each aligned run of 2^set_bits lines still fills every set once. */
	if (l->hashed)
		unit ^= (unit >> l->set_bits) * UINT64_C(0x9e3779b97f4a7c15) >> (64 - l->set_bits);
	return set_of(l, unit);
}

/* Virtual address of physical address pa where level l indexes by it
 * (only a virtually indexed level needs the costly inverse map). */
static inline uint64_t index_va(const struct sim_machine *m, const struct level *l, uint64_t pa)
{
	return l->phys ? pa : unmap_pa(m, pa);
}

/* Remove the line holding va (physical address pa) from level l, if there. */
static void invalidate_line(struct level *l, uint64_t va, uint64_t pa)
{
	uint32_t slot = find(l, pa >> l->shift, cache_set(l, va, pa));

	if (slot != NONE)
		invalidate_slot(l, slot);
}

/* The same, from the physical address alone. */
static void invalidate_pa(struct sim_machine *m, struct level *l, uint64_t pa)
{
	invalidate_line(l, index_va(m, l, pa), pa);
}

/* Level l (inclusive) lost line tag: take it from every level above. */
static void back_invalidate(struct sim_machine *m, struct level *l, uint64_t tag)
{
	uint64_t pa = tag << l->shift;

	for (int i = 0; i < l->nabove; i++) {
		struct level *a = &m->lv[l->above[i]];
		uint64_t step = UINT64_C(1) << a->shift, end = pa + (UINT64_C(1) << l->shift);

		if (a->shift >= l->shift)
			invalidate_pa(m, a, pa);
		else
			for (uint64_t p = pa; p < end; p += step)
				invalidate_pa(m, a, p);
	}
}

static void evicted(struct sim_machine *m, struct level *l, uint64_t tag, int side);

/* Line tag in set of level l: made recent where it is there, else
 * filled (its victim evicted as side's). */
static void touch_or_fill(struct sim_machine *m, struct level *l, uint64_t tag, uint32_t set, int side)
{
	uint32_t slot = find(l, tag, set);
	uint64_t old;

	if (slot != NONE) {
		touch(l, slot, set);
		return;
	}
	old = insert(m, l, tag, set);
	if (old != INVALID)
		evicted(m, l, old, side);
}

/* Victim tag of level from goes into the exclusive level b below it
 * (where the line sat in both L1d and L1i it is there already: then
 * it is refreshed). */
static void put_victim(struct sim_machine *m, struct level *b, const struct level *from,
		       uint64_t tag, int side)
{
	uint64_t pa = tag << from->shift;

	touch_or_fill(m, b, pa >> b->shift, cache_set(b, index_va(m, b, pa), pa), side);
}

/* What follows an eviction from cache level l. */
static void evicted(struct sim_machine *m, struct level *l, uint64_t tag, int side)
{
	int b = l->below[side];

	if (l->inclusive)
		back_invalidate(m, l, tag);
	if (b >= 0 && m->lv[b].exclusive)
		put_victim(m, &m->lv[b], l, tag, side);
}

/* ---- noise ---- */

static int level1_cache(const struct sim_machine *m, int side)
{
	int c = m->ncpath[side] ? m->cpath[side][0] : -1;

	return c >= 0 && m->lv[c].lnum == 1 ? c : -1;
}

/* A context switch: cold level-1 caches and TLBs, 1/8 of the rest gone. */
static void disturb(struct sim_machine *m)
{
	for (int i = 0; i < m->spec.n; i++) {
		struct level *l = &m->lv[i];

		if (l->tlb || l->lnum == 1) {
			reset_level(l);
			continue;
		}
		for (uint32_t s = 0; s < l->nslots; s++) {
			uint64_t tag = l->tag[s];

			if (tag == INVALID || splitmix(&m->rng_noise) % 8)
				continue;
			invalidate_slot(l, s);
			if (l->inclusive)
				back_invalidate(m, l, tag);
		}
	}
}

static void noise(struct sim_machine *m, uint64_t va, uint64_t pa, int side)
{
	int c;

	if (splitmix(&m->rng_noise) < m->noise_line && (c = level1_cache(m, side)) >= 0) {
		struct level *l = &m->lv[c];
		uint32_t slot = find(l, pa >> l->shift, cache_set(l, va, pa));

		if (slot != NONE)
			invalidate_slot(l, slot);
	}
	if (splitmix(&m->rng_noise) < m->noise_storm)
		disturb(m);
}

/* A busy hardware thread beside ours (spec->sibling = q): with
 * probability q per access it loads a line of its own, which fills the
 * data side's level-1 and level-2 caches (those a core's threads
 * share) as any miss would, taking ways from our lines.  Its own
 * accesses count nowhere (counters count one thread). */
#define SIBLING_BASE (UINT64_C(1) << 56) /* above any address of ours */
#define SIBLING_SPAN (UINT64_C(1) << 26) /* its working set: 64 MiB of lines */

static void sibling(struct sim_machine *m)
{
	uint64_t pa;

	if (splitmix(&m->rng_sibling) >= m->sibling_line)
		return;
	pa = SIBLING_BASE | (splitmix(&m->rng_sibling) & (SIBLING_SPAN - 1));
	for (int k = 0; k < m->ncpath[0]; k++) {
		struct level *l = &m->lv[m->cpath[0][k]];

		if (l->lnum > 2)
			break;
		if (!l->exclusive)
			touch_or_fill(m, l, pa >> l->shift, cache_set(l, pa, pa), 0);
	}
}

/* A sibling's small loop (spec->sibling_ways): its lines, as many as
 * it holds ways, in the set each level-1 and level-2 data cache puts
 * our access in, are touched just before it, so they stay recent there
 * and our lines get the other ways only. */
#define HOT_BASE (UINT64_C(1) << 57) /* above ours and the random sibling's */

static void sibling_loop(struct sim_machine *m, uint64_t va, uint64_t pa)
{
	for (int k = 0; k < m->ncpath[0]; k++) {
		struct level *l = &m->lv[m->cpath[0][k]];
		uint32_t set = cache_set(l, va, pa);

		if (l->lnum > 2)
			break;
		if (l->exclusive)
			continue;
		for (unsigned j = 0; j < m->spec.sibling_ways; j++)
			touch_or_fill(m, l, (HOT_BASE >> l->shift) + (uint64_t)set * m->spec.sibling_ways + j, set, 0);
	}
}

/* The same spell's pages (spec->sibling_tlb_ways) in the set each TLB
 * level puts our page in, touched just before our lookup: our pages
 * get the other ways only.  Their numbers share the set's residue,
 * above any page of ours. */
static void sibling_tlb_loop(struct sim_machine *m, uint64_t va, int side)
{
	for (int k = 0; k < m->ntpath[side]; k++) {
		struct level *l = &m->lv[m->tpath[side][k]];
		uint32_t set = set_of(l, va >> l->shift);
		uint64_t base = (HOT_BASE >> l->shift) / l->sets * l->sets;
		unsigned ways = l->lnum <= 2 ? m->spec.sibling_tlb_ways[l->lnum - 1] : 0;

		for (unsigned j = 0; j < ways; j++) {
			uint64_t vpn = base + (uint64_t)j * l->sets + set;
			uint32_t slot = find(l, vpn, set);

			if (slot != NONE)
				touch(l, slot, set);
			else
				insert(m, l, vpn, set);
		}
	}
}

/* ---- the access ---- */

/* Fills the line at p (physical, within pa's page) into l, unless it
 * is there: silent, no access, miss or cycle is counted, as a PMU's
 * demand-miss events count none. */
static void prefetch_line(struct sim_machine *m, struct level *l, uint64_t va, uint64_t pa, uint64_t p, int side)
{
	uint64_t first = pa / m->spec.map_page * m->spec.map_page, tag = p >> l->shift, old;
	uint32_t set = cache_set(l, va - (pa - first) + (p - first), p);

	if (find(l, tag, set) != NONE)
		return;
	old = insert(m, l, tag, set);
	if (old != INVALID)
		evicted(m, l, old, side);
}

/* A neighbour-line prefetcher: a miss at l also fills the l->prefetch
 * lines on each side of pa there, within pa's page (prefetchers work on
 * physical addresses and stop at page boundaries). */
static void prefetch_around(struct sim_machine *m, struct level *l, uint64_t va, uint64_t pa, int side)
{
	uint64_t line = UINT64_C(1) << l->shift, page = m->spec.map_page;
	uint64_t home = pa >> l->shift << l->shift, first = pa / page * page;

	for (uint64_t d = 1; d <= l->prefetch; d++)
		for (int up = 0; up < 2; up++) {
			if (up ? home + d * line >= first + page : home < first + d * line)
				continue;
			prefetch_line(m, l, va, pa, up ? home + d * line : home - d * line, side);
		}
}

/* A region prefetcher, as recent cores have (AMD's L1 region
 * prefetcher, spatial memory streaming): a visit to a page runs from an
 * access in it after one elsewhere to the next access elsewhere; when a
 * visit ends, the distance from its opening line to the first other
 * line it touched is learned (none if it touched no other), and a miss
 * that opens the next visit also fills the line that distance away. */
static void region_observe(struct sim_machine *m, struct level *l, uint64_t pa)
{
	struct region_pf *r = &l->region;
	uint64_t page = pa / m->spec.map_page;
	int64_t line = (int64_t)((pa % m->spec.map_page) >> l->shift);

	r->opening = !r->visiting || page != r->page;
	if (!r->opening) {
		if (r->next < 0 && line != r->first)
			r->next = line;
		return;
	}
	if (r->visiting)
		r->delta = r->next < 0 ? 0 : r->next - r->first;
	r->visiting = 1;
	r->page = page;
	r->first = line;
	r->next = -1;
}

/* The region prefetcher's fill, on a miss at l (pa, this access). */
static void region_fill(struct sim_machine *m, struct level *l, uint64_t va, uint64_t pa, int side)
{
	const struct region_pf *r = &l->region;
	int64_t lines = (int64_t)(m->spec.map_page >> l->shift), to = r->first + r->delta;

	if (r->opening && r->delta && to >= 0 && to < lines)
		prefetch_line(m, l, va, pa, pa / m->spec.map_page * m->spec.map_page + ((uint64_t)to << l->shift),
			      side);
}

unsigned sim_access(struct sim_machine *m, uint64_t va, enum sim_op op)
{
	int side = op == SIM_IFETCH;
	uint64_t pa = map_va(m, va);
	uint64_t tags[4];
	uint32_t sets[4], hslot = NONE;
	unsigned cyc = 0;
	int k, n, hit, fill_above = 0;

	m->total++;
	if ((unsigned)op < 3)
		m->ops[op]++;
	if (m->noisy)
		noise(m, va, pa, side);
	if (m->busy_sibling)
		sibling(m);
	if (m->spec.sibling_until && m->total > m->spec.sibling_from && m->total <= m->spec.sibling_until) {
		if (m->spec.sibling_ways && side == 0 &&
		    (m->spec.sibling_every <= 1 || m->total % m->spec.sibling_every == 0))
			sibling_loop(m, va, pa);
		if (m->spec.sibling_tlb_ways[0] || m->spec.sibling_tlb_ways[1])
			sibling_tlb_loop(m, va, side);
	}

	for (k = 0; k < m->ntpath[side]; k++) {
		struct level *l = &m->lv[m->tpath[side][k]];
		uint64_t vpn = va >> l->shift;
		uint32_t set = set_of(l, vpn);
		uint32_t slot = find(l, vpn, set);

		l->st.accesses[side]++;
		if (slot != NONE) {
			touch(l, slot, set);
			break;
		}
		l->st.misses[side]++;
		cyc += l->latency;
		insert(m, l, vpn, set);
	}

	n = m->ncpath[side];
	for (k = 0; k < n; k++)
		if (m->lv[m->cpath[side][k]].region.on)
			region_observe(m, &m->lv[m->cpath[side][k]], pa);
	for (hit = 0; hit < n; hit++) {
		struct level *l = &m->lv[m->cpath[side][hit]];

		tags[hit] = pa >> l->shift;
		sets[hit] = cache_set(l, va, pa);
		l->st.accesses[side]++;
		cyc += l->latency;
		hslot = find(l, tags[hit], sets[hit]);
		if (hslot != NONE)
			break;
		l->st.misses[side]++;
	}
	if (hit == n)
		cyc += m->spec.mem_latency;

	for (k = 0; k < hit; k++) {
		const struct level *l = &m->lv[m->cpath[side][k]];

		if (!l->exclusive && (op != SIM_STORE || l->wa))
			fill_above = 1;
	}
	if (hit < n) {
		struct level *l = &m->lv[m->cpath[side][hit]];

		/* An exclusive level hands the line up rather than keep it. */
		if (l->exclusive && fill_above)
			invalidate_slot(l, hslot);
		else
			touch(l, hslot, sets[hit]);
	}
	/* Bottom up: an inclusive level's back-invalidation frees ways above first. */
	for (k = hit - 1; k >= 0; k--) {
		struct level *l = &m->lv[m->cpath[side][k]];
		uint64_t old;

		if (l->exclusive || (op == SIM_STORE && !l->wa))
			continue;
		old = insert(m, l, tags[k], sets[k]);
		if (old != INVALID)
			evicted(m, l, old, side);
		if (l->prefetch)
			prefetch_around(m, l, va, pa, side);
		if (l->region.on)
			region_fill(m, l, va, pa, side);
	}
	m->cycles += cyc;
	return cyc;
}

/* ---- flushes ---- */

/* Last byte of [va, va+len), len > 0, clamped at the top of memory. */
static uint64_t range_last(uint64_t va, uint64_t len)
{
	return len - 1 > UINT64_MAX - va ? UINT64_MAX : va + (len - 1);
}

void sim_flush_range(struct sim_machine *m, uint64_t va, uint64_t len)
{
	uint64_t last;

	if (!len)
		return;
	last = range_last(va, len);
	for (int i = 0; i < m->spec.n; i++) {
		struct level *l = &m->lv[i];
		uint64_t first = va >> l->shift, end = last >> l->shift;

		if (l->tlb)
			continue;
		if (end - first < l->nslots) {
			for (uint64_t u = first;; u++) {
				uint64_t line_va = u << l->shift;

				invalidate_line(l, line_va, map_va(m, line_va));
				if (u == end)
					break;
			}
			continue;
		}
		/* A range larger than the level: look at each line instead. */
		for (uint32_t s = 0; s < l->nslots; s++) {
			uint64_t u;

			if (l->tag[s] == INVALID)
				continue;
			u = unmap_pa(m, l->tag[s] << l->shift) >> l->shift;
			if (u >= first && u <= end)
				invalidate_slot(l, s);
		}
	}
}

void sim_flush_tlb_range(struct sim_machine *m, uint64_t va, uint64_t len)
{
	uint64_t last;

	if (!len)
		return;
	last = range_last(va, len);
	for (int i = 0; i < m->spec.n; i++) {
		struct level *l = &m->lv[i];
		uint64_t first = va >> l->shift, end = last >> l->shift;

		if (!l->tlb)
			continue;
		for (uint32_t s = 0; s < l->nslots; s++)
			if (l->tag[s] != INVALID && l->tag[s] >= first && l->tag[s] <= end)
				invalidate_slot(l, s);
	}
}

void sim_flush_all(struct sim_machine *m)
{
	for (int i = 0; i < m->spec.n; i++)
		reset_level(&m->lv[i]);
}

/* ---- creation ---- */

static int fail(char *err, size_t len, const char *fmt, const char *name)
{
	if (err && len)
		snprintf(err, len, fmt, name);
	return -1;
}

static int setup_level(struct level *l, const struct sim_level_spec *ls, const struct sim_spec *spec,
		       char *err, size_t len)
{
	uint64_t unit, ways, slots, sets;

	memset(l, 0, sizeof *l);
	l->tlb = ls->kind == SIM_TLB;
	l->lnum = ls->level;
	l->side = ls->side;
	l->policy = ls->policy;
	l->latency = ls->latency;
	l->below[0] = l->below[1] = -1;
	if (ls->kind != SIM_CACHE && ls->kind != SIM_TLB)
		return fail(err, len, "%s: unknown kind of level", ls->name);
	if ((unsigned)ls->side > SIM_UNIFIED || (unsigned)ls->policy > SIM_RANDOM ||
	    (unsigned)ls->inclusion > SIM_EXCLUSIVE || (unsigned)ls->index > SIM_INDEX_HASHED)
		return fail(err, len, "%s: a field is out of range", ls->name);
	if (l->tlb) {
		if (ls->level < 1 || ls->level > 2)
			return fail(err, len, "%s: TLB level must be 1 or 2", ls->name);
		unit = ls->page;
		slots = ls->entries;
		ways = ls->full ? ls->entries : ls->assoc;
	} else {
		if (ls->level < 1 || ls->level > 4)
			return fail(err, len, "%s: cache level must be 1..4", ls->name);
		unit = ls->line;
		slots = unit ? ls->size / unit : 0;
		ways = ls->full ? slots : ls->assoc;
		if (unit && ls->size % unit)
			return fail(err, len, "%s: size is not a multiple of the line", ls->name);
		if (spec->pages_random && unit > spec->map_page)
			return fail(err, len, "%s: line larger than the page map granule", ls->name);
		l->phys = ls->index != SIM_INDEX_VIRTUAL;
		l->hashed = ls->index == SIM_INDEX_HASHED;
		l->wa = ls->write_allocate;
		l->inclusive = ls->inclusion == SIM_INCLUSIVE;
		l->exclusive = ls->inclusion == SIM_EXCLUSIVE;
		l->prefetch = unit < spec->map_page ? ls->prefetch : 0;
		l->region.on = unit < spec->map_page && ls->region;
		if (l->exclusive && ls->level == 1)
			return fail(err, len, "%s: an exclusive level-1 cache has nothing above it", ls->name);
	}
	if (!is_pow2(unit))
		return fail(err, len, l->tlb ? "%s: page is not a power of two" :
			    "%s: line is not a power of two", ls->name);
	if (!slots || !ways || slots % ways)
		return fail(err, len, "%s: size is not a whole number of sets", ls->name);
	if (slots > MAX_SLOTS)
		return fail(err, len, "%s: too many lines to simulate", ls->name);
	if (ls->policy == SIM_PLRU && !is_pow2(ways))
		return fail(err, len, "%s: plru needs a power-of-two associativity", ls->name);
	sets = slots / ways;
	l->shift = log2u(unit);
	l->ways = (uint32_t)ways;
	l->sets = (uint32_t)sets;
	l->nslots = (uint32_t)slots;
	l->sets_pow2 = is_pow2(sets);
	l->set_mask = (uint32_t)(sets - 1);
	l->set_bits = sets > 1 ? log2u(sets - 1) + 1 : 1;
	l->depth = log2u(ways);

	l->big = ways > SCAN_MAX;
	l->tag = malloc(slots * sizeof *l->tag);
	if (!l->big && uses_list(l))
		l->stamp = malloc(slots * sizeof *l->stamp);
	if (l->policy == SIM_PLRU)
		l->plru = malloc(slots);
	if (l->big) {
		uint64_t cap = 1;

		while (cap < 2 * slots)
			cap <<= 1;
		l->hash = malloc(cap * sizeof *l->hash);
		l->hmask = cap - 1;
		l->hshift = 64 - log2u(cap);
		l->link = malloc((slots + sets) * sizeof *l->link);
		if (!uses_list(l))
			l->free_head = malloc(sets * sizeof *l->free_head);
	}
	if (!l->tag || (!l->big && uses_list(l) && !l->stamp) ||
	    (l->policy == SIM_PLRU && !l->plru) ||
	    (l->big && (!l->hash || !l->link || (!uses_list(l) && !l->free_head))))
		return fail(err, len, "%s: out of memory", ls->name);
	reset_level(l);
	return 0;
}

static void free_level(struct level *l)
{
	free(l->tag);
	free(l->stamp);
	free(l->link);
	free(l->free_head);
	free(l->plru);
	free(l->hash);
}

void sim_destroy(struct sim_machine *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->spec.n; i++)
		free_level(&m->lv[i]);
	free(m);
}

static int serves(const struct sim_level_spec *ls, int side)
{
	return ls->side == SIM_UNIFIED || (int)ls->side == side;
}

/* The cache and TLB paths of each side, and who is above/below whom. */
static int link_levels(struct sim_machine *m, char *err, size_t len)
{
	const struct sim_spec *sp = &m->spec;

	for (int side = 0; side < 2; side++) {
		for (int lnum = 1; lnum <= 4; lnum++) {
			int found = -1;

			for (int i = 0; i < sp->n; i++) {
				if (sp->lv[i].kind != SIM_CACHE || sp->lv[i].level != lnum ||
				    !serves(&sp->lv[i], side))
					continue;
				if (found >= 0)
					return fail(err, len, "%s: two caches serve one side at its level",
						    sp->lv[i].name);
				found = i;
			}
			if (found >= 0)
				m->cpath[side][m->ncpath[side]++] = found;
		}
		for (int lnum = 1; lnum <= 2; lnum++) {
			int found = -1;

			for (int i = 0; i < sp->n; i++) {
				if (sp->lv[i].kind != SIM_TLB || sp->lv[i].level != lnum ||
				    !serves(&sp->lv[i], side))
					continue;
				if (found >= 0)
					return fail(err, len, "%s: two TLBs serve one side at its level",
						    sp->lv[i].name);
				found = i;
			}
			/* Without a level-1 TLB a side translates nothing. */
			if (found >= 0 && (lnum == 1 || m->ntpath[side]))
				m->tpath[side][m->ntpath[side]++] = found;
		}
		for (int k = 0; k + 1 < m->ncpath[side]; k++)
			m->lv[m->cpath[side][k]].below[side] = m->cpath[side][k + 1];
	}
	for (int i = 0; i < sp->n; i++) {
		struct level *l = &m->lv[i];

		if (l->tlb || !l->inclusive)
			continue;
		for (int j = 0; j < sp->n; j++) {
			const struct level *a = &m->lv[j];

			if (!a->tlb && a->lnum < l->lnum &&
			    (l->side == SIM_UNIFIED || a->side == SIM_UNIFIED || a->side == l->side))
				l->above[l->nabove++] = j;
		}
	}
	return 0;
}

struct sim_machine *sim_create(const struct sim_spec *spec, char *err, size_t len)
{
	struct sim_machine *m;
	uint64_t s;
	double p;

	if (err && len)
		err[0] = '\0';
	if (!spec || spec->n < 0 || spec->n > SIM_MAX_LEVELS) {
		fail(err, len, "%s", "sim: bad number of levels");
		return NULL;
	}
	if (!is_pow2(spec->map_page)) {
		fail(err, len, "%s", "sim: map_page is not a power of two");
		return NULL;
	}
	if (!(spec->noise >= 0 && spec->noise < 1)) {
		fail(err, len, "%s", "sim: noise must be in [0, 1)");
		return NULL;
	}
	if (!(spec->sibling >= 0 && spec->sibling < 1)) {
		fail(err, len, "%s", "sim: sibling must be in [0, 1)");
		return NULL;
	}
	m = calloc(1, sizeof *m);
	if (!m) {
		fail(err, len, "%s", "sim: out of memory");
		return NULL;
	}
	m->spec = *spec;
	for (int i = 0; i < spec->n; i++) {
		m->spec.lv[i].name[sizeof m->spec.lv[i].name - 1] = '\0';
		if (setup_level(&m->lv[i], &m->spec.lv[i], spec, err, len)) {
			for (int j = 0; j <= i; j++)
				free_level(&m->lv[j]);
			free(m);
			return NULL;
		}
	}
	if (link_levels(m, err, len)) {
		sim_destroy(m);
		return NULL;
	}
	m->map_shift = log2u(spec->map_page);
	s = spec->seed ^ UINT64_C(0x6d6170);
	m->map_k0 = splitmix(&s) & MAP_MASK;
	m->map_k1 = splitmix(&s) & MAP_MASK;
	m->map_i1 = mul_inverse(MAP_M1);
	m->map_i2 = mul_inverse(MAP_M2);
	m->rng_repl = spec->seed ^ UINT64_C(0x7265706c61636521);
	m->rng_noise = spec->seed ^ UINT64_C(0x6e6f697365212121);
	p = spec->noise;
	m->noisy = p > 0;
	m->noise_line = (uint64_t)ldexp(p, 64);
	m->noise_storm = (uint64_t)ldexp(p / 1000, 64);
	m->rng_sibling = spec->seed ^ UINT64_C(0x7369626c696e6721);
	m->busy_sibling = spec->sibling > 0;
	m->sibling_line = (uint64_t)ldexp(spec->sibling, 64);
	return m;
}

/* ---- queries ---- */

const struct sim_spec *sim_get_spec(const struct sim_machine *m)
{
	return &m->spec;
}

void sim_get_stats(const struct sim_machine *m, int level, struct sim_level_stats *out)
{
	if (level < 0 || level >= m->spec.n) {
		memset(out, 0, sizeof *out);
		return;
	}
	*out = m->lv[level].st;
}

uint64_t sim_cycles(const struct sim_machine *m)
{
	return m->cycles;
}

uint64_t sim_total_accesses(const struct sim_machine *m)
{
	return m->total;
}

/* Accesses of one kind so far (loads, stores, fetches). */
uint64_t sim_op_count(const struct sim_machine *m, enum sim_op op)
{
	return (unsigned)op < 3 ? m->ops[op] : 0;
}

uint64_t sim_translate(struct sim_machine *m, uint64_t va)
{
	return map_va(m, va);
}
