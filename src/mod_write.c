/* mod_write.c - write allocation of data caches (AMP 3.4).
 *
 * After a flush, store to every line of a region that fits the level,
 * then load the lines back: a write-allocate level took them on the
 * stores, so the loads hit it; a no-write-allocate level did not, so
 * each line misses once (a quarter of a miss per line or more counts:
 * an adjacent-line prefetcher hides up to half the misses).  Lines are
 * visited page by page in a random order (no stride for a prefetcher),
 * the same for both passes.
 *
 * Below level 1 the loads must reach the level.  The region is then
 * several times what the levels above hold together: between the store
 * of a line and its load every set above sees that many times its ways
 * of other lines, so the line has left them (all but a few per cent
 * under random replacement, every one under LRU, FIFO or tree PLRU).
 * It is also at most half the level, so it fits there without a single
 * eviction.  When every level above is known to be no-write-allocate
 * the stores never filled them, and any region that fits will do.  Each
 * level is read through its own counter, so the policies of the levels
 * come out independently of each other.
 *
 * An exclusive level is never filled on the way up; it holds what the
 * level above evicts, written or not.  Its answer says whether written
 * data ends up in it, which the level above decides: below a
 * write-allocate level it reads "allocate", below a no-write-allocate
 * one "no-alloc".  So the module declines a level known to be
 * exclusive, and one below level 1 whose inclusion is unknown (it may be
 * exclusive), unless its sets came from eviction sets (whose checks
 * refuse an exclusive level) or the inclusion test ruled exclusion out
 * without telling inclusive from NINE. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "measure.h"
#include "timing.h"
#include "util.h"

#define BLOCK 4096      /* visited together: a page of lines */
#define REACH 4         /* region: up to this many times the levels above */
#define REACH_MIN 2     /* below it, random replacement keeps too many lines */
#define MISS_SHARE 0.25 /* misses per line: no-write-allocate at or above */


/* Bytes of the region to write and read back; 0, or -1 with why. */
static int write_region(const struct amp_ctx *c, const struct amp_level *lv, uint64_t *bytes, char *why,
			size_t len)
{
	uint64_t unit = (uint64_t)lv->line.value, half, above;
	int filled_above = 0;
	char sz[2][32];

	if (amp_region_half(lv, &half, &above, why, len) < 0)
		return -1;
	/* Only a level known not to allocate on writes stays empty. */
	for (const struct amp_level *a = lv->above; a; a = a->above)
		if (!amp_param_conclusive(&a->write_allocate) || a->write_allocate.value != 0)
			filled_above = 1;
	/* REACH times the levels above pushes lines out of them; more would
	 * only cost accesses. */
	*bytes = above && half > REACH * above ? REACH * above / unit * unit : half;
	if (filled_above && half < REACH_MIN * above) {
		snprintf(why, len, "half of it (%s) is less than %d times what the levels above hold (%s): "
			 "lines written there cannot be pushed out of them while staying here",
			 amp_fmt_size(half, sz[0], sizeof sz[0]), REACH_MIN,
			 amp_fmt_size(above, sz[1], sizeof sz[1]));
		return -1;
	}
	/* Scattered frames: pages of one colour share sets, and more of
	 * them than the ways would evict stored lines.  As many pages as
	 * the ways always fit. */
	if (c && amp_strides_mislead(c, lv) && *bytes > (uint64_t)lv->thrash_ways * c->page) {
		uint64_t fits = (uint64_t)lv->thrash_ways * c->page;

		if (filled_above) {
			snprintf(why, len, "its sets came from eviction sets (scattered frames), and a region of %s that pushes lines out of the levels above could overflow one of them (%llu pages fit for sure)",
				 amp_fmt_size(*bytes, sz[0], sizeof sz[0]), (unsigned long long)lv->thrash_ways);
			return -1;
		}
		*bytes = fits / unit * unit;
	}
	return 0;
}

/* Flush the region, walk it once with `first` (unmeasured), then load
 * it once (measured); misses of lv per line of the loads. */
static int misses_after(struct amp_ctx *c, struct amp_level *lv, uint64_t bytes, uint64_t seed,
			enum amp_op first, double *per_line, char *err, size_t len)
{
	uint64_t unit = (uint64_t)lv->line.value, n = bytes / unit;
	struct amp_plan p;
	double misses;
	int rc, seq;

	amp_plan_init(&p, first == AMP_OP_STORE ? "write" : "write, loads first", bytes);
	p.huge = 1; /* lower caches are physically indexed */
	seq = amp_plan_add_block_cycle(&p, unit, (size_t)n, BLOCK / unit, seed);
	if (seq < 0) {
		snprintf(err, len, "%s: out of memory for %llu lines", lv->name, (unsigned long long)n);
		amp_plan_free(&p);
		return -1;
	}
	amp_plan_add_pass(&p, AMP_PLAN_WHOLE_REGION, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(&p, seq, first, 1, 0);
	amp_plan_add_pass(&p, seq, AMP_OP_LOAD, 1, 1);
	rc = c->method == AMP_METHOD_TIMING ? amp_timing_misses(c, lv, &p, &misses, err, len)
					    : amp_count(c, &p, lv->ev, &misses, err, len);
	amp_plan_free(&p);
	if (rc == 0)
		*per_line = misses / (double)n;
	return rc;
}

/* Lines of one set here must share a set of every level above: 1 (with
 * why) where a level above has a larger way (or an unknown one). */
static int spread_refused(const struct amp_level *lv, char *why, size_t len)
{
	const struct amp_level *a = amp_spread_above(lv);

	if (a)
		snprintf(why, len, "the lines of a set of it fall in many sets of %s above it (its way is larger)",
			 a->name);
	return a != NULL;
}

/* Counters, a level whose sets came from eviction sets (mod_evset.c
 * kept lines of one set, and pushers where a level above has as many
 * ways) and too small beside the levels above for the region: its ways
 * of the set's lines are stored, the pushers walked twice (lines of the
 * set above, none of this one: they push the stored lines out above and
 * leave them here), and the lines loaded in the order stored.  Lines
 * of one set here lie in one set of every level above whose way is no
 * larger, so where there are no pushers the loads, more than the ways
 * above, push each other out there.  The level above's misses count
 * the loads that got here (at least half of them must), this level's
 * those it did not hold: half of those or more, no-write-allocate.
 * Every line of the set kept is flushed first, so the stores find
 * empty ways (random replacement would otherwise evict some of them). */
static int set_lines_usable(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len)
{
	if (c->method != AMP_METHOD_COUNTERS || lv->thrash_ways < 1 ||
	    lv->nset_lines < lv->thrash_ways || !lv->way.known || !lv->above->measurable) {
		snprintf(why, len, "no set of it kept from its eviction sets");
		return 0;
	}
	if (spread_refused(lv, why, len))
		return 0;
	for (const struct amp_level *a = lv->above; a && !lv->nset_pushers; a = a->above)
		if (a->thrash_ways >= lv->thrash_ways) {
			snprintf(why, len, "%s above has as many ways and no pushers were found", a->name);
			return 0;
		}
	return 1;
}

/* Counters, sets predicted by strides (contiguous frames): the same test
 * on lines a way apart, which share a set here and in every level above
 * whose way is no larger.  Pushers, where a level above has as many
 * ways: lines a way of the widest such level apart that are not a way
 * apart here (its set, another set here).  Lines of the set over four
 * times the level are flushed first (stale lines of the set there would
 * evict stored ones under random replacement).  *set: lv with those
 * lines; 1, or 0 with why. */
static _Thread_local struct amp_level stride_lv; /* too big for the stack */

static int stride_set(const struct amp_ctx *c, const struct amp_level *lv, struct amp_level *set, char *why,
		      size_t len)
{
	uint64_t way = (uint64_t)lv->way.value, push_way = 0, w = (uint64_t)lv->thrash_ways, want = 0, above = 0;

	if (c->method != AMP_METHOD_COUNTERS || amp_strides_mislead(c, lv)) {
		snprintf(why, len, "no set of it kept from its eviction sets");
		return 0;
	}
	if (!amp_param_conclusive(&lv->way) || lv->thrash_ways < 1 || !lv->above || !lv->above->measurable) {
		snprintf(why, len, "one of its sets by strides needs its ways and way size");
		return 0;
	}
	if (spread_refused(lv, why, len))
		return 0;
	for (const struct amp_level *a = lv->above; a; a = a->above) {
		if (a->thrash_ways >= lv->thrash_ways || amp_replaces_at_random(a)) {
			push_way = (uint64_t)a->way.value > push_way ? (uint64_t)a->way.value : push_way;
			want = (uint64_t)a->thrash_ways + 2 > want ? (uint64_t)a->thrash_ways + 2 : want;
		}
		above += (uint64_t)a->thrash_ways;
	}
	/* Under a random level (amp_evictors_fresh) pushers that the levels
	 * above hold between them hit there and push nothing out: twice as
	 * many as those hold, as many as a set keeps at most. */
	if (amp_evictors_fresh(lv) && 2 * above + 2 > want)
		want = 2 * above + 2 < AMP_MAX_CONG ? 2 * above + 2 : AMP_MAX_CONG;
	*set = *lv;
	set->nset_lines = 0;
	for (uint64_t i = 0; i < 4 * w && i < AMP_SET_LINES_MAX; i++)
		set->set_lines[set->nset_lines++] = i * way;
	set->nset_pushers = 0;
	/* None where the widest way above is this level's own. */
	for (uint64_t j = 1; push_way && j <= 2 * want * (way / push_way + 1) &&
			     (uint64_t)set->nset_pushers < want && set->nset_pushers < AMP_MAX_CONG; j++)
		if ((j * push_way) % way)
			set->set_pushers[set->nset_pushers++] = j * push_way;
	if ((uint64_t)set->nset_pushers < want) {
		snprintf(why, len, "%llu pushers wanted, %d found", (unsigned long long)want, set->nset_pushers);
		return 0;
	}
	memset(&set->set_arena, 0, sizeof set->set_arena);
	return 1;
}

/* The level whose set the one-set test uses: lv, with the lines of its
 * eviction sets, or lv with lines by strides (stride_lv); NULL with why. */
static const struct amp_level *one_set(const struct amp_ctx *c, const struct amp_level *lv, char *why,
				       size_t len)
{
	if (lv->sets_by_experiment)
		return set_lines_usable(c, lv, why, len) ? lv : NULL;
	return stride_set(c, lv, &stride_lv, why, len) ? &stride_lv : NULL;
}

static int set_write_vote(struct amp_ctx *c, const struct amp_level *lv, int64_t *value, char *err, size_t len)
{
	uint64_t w = (uint64_t)lv->thrash_ways;
	double here, reached;
	struct amp_plan p;
	int rc;

	if (amp_set_pushed_plan(&p, "write, one set", lv, AMP_OP_STORE, err, len) < 0)
		return -1;
	if (!lv->sets_by_experiment)
		p.huge = 1; /* strides predict the sets (stride_set) */
	rc = amp_count_mean(c, &p, lv->ev, &here, err, len);
	if (rc == 0)
		rc = amp_count_mean(c, &p, lv->above->ev, &reached, err, len);
	amp_plan_free(&p);
	if (rc < 0)
		return -1;
	if (reached < (double)w / 2) {
		snprintf(err, len, "%s: %.1f of %llu loads of its set's lines got past %s", lv->name, reached,
			 (unsigned long long)w, lv->above->name);
		return -1;
	}
	*value = here / reached < 0.5; /* 1: the stores allocated */
	return 0;
}

/* By timing the walk after the stores is compared with the walk after
 * loads of the same lines, which every cache allocates: on a real
 * machine a single walk over lines just brought in from memory costs
 * more than a steady walk over them (measured here: about twice an L1
 * hit per access on AMD Zen 5 in a KVM guest), whatever the stores did. */
static int write_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		      char *err, size_t len)
{
	uint64_t bytes;
	double stored, loaded = 0;
	char why[AMP_REASON_LEN];

	if (write_region(c, lv, &bytes, why, sizeof why) < 0) {
		const struct amp_level *set = one_set(c, lv, why, sizeof why);

		if (set)
			return set_write_vote(c, set, value, err, len);
		snprintf(err, len, "%s", why);
		return -1;
	}
	if (misses_after(c, lv, bytes, c->seed + v, AMP_OP_STORE, &stored, err, len) < 0)
		return -1;
	if (c->method == AMP_METHOD_TIMING &&
	    misses_after(c, lv, bytes, c->seed + v, AMP_OP_LOAD, &loaded, err, len) < 0)
		return -1;
	*value = stored - loaded < MISS_SHARE; /* 1: the stores allocated */
	return 0;
}

/* Below level 1, inclusion unknown and exclusion not ruled out: by the
 * inclusion test, or by eviction sets that found the ways (their checks
 * refuse an exclusive level; a search that found none refused nothing:
 * an exclusive L2 under a random 3-way L1d read "allocate" from one set
 * on the simulated machine). */
static int may_be_exclusive(const struct amp_level *lv)
{
	return lv->level > 1 && !amp_param_conclusive(&lv->inclusion) && !lv->not_exclusive &&
	       !(lv->sets_by_experiment && amp_param_conclusive(&lv->assoc));
}

static int declined_maybe_exclusive(const struct amp_level *lv, char *why, size_t len)
{
	snprintf(why, len, "may be exclusive, whose write policy is undecidable (inclusion unknown: %s)",
		 lv->inclusion.reason);
	return 0;
}

static int write_supported(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len)
{
	uint64_t bytes;

	if (lv->side != AMP_SIDE_DATA) {
		snprintf(why, len, "an instruction cache takes no stores");
		return 0;
	}
	if (amp_param_conclusive(&lv->inclusion) && lv->inclusion.value == AMP_INCL_EXCLUSIVE) {
		snprintf(why, len, "undecidable: an exclusive level holds what the level above evicts, "
			 "written or not, so whether stores allocate is the level above's policy");
		return 0;
	}
	if (write_region(c, lv, &bytes, why, len) < 0) {
		char other[AMP_REASON_LEN];
		size_t used = strlen(why);

		if (one_set(c, lv, other, sizeof other))
			return may_be_exclusive(lv) ? declined_maybe_exclusive(lv, why, len) : 1;
		if (amp_param_conclusive(&lv->size)) /* the region was refused, not its size unknown */
			snprintf(why + used, len > used ? len - used : 0, "; on one set: %s", other);
		return 0;
	}
	return may_be_exclusive(lv) ? declined_maybe_exclusive(lv, why, len) : 1;
}

static int write_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	amp_vote(c, lv, write_vote, &lv->write_allocate);
	return 0;
}

const struct amp_module amp_module_write = {
	.name = "write",
	.summary = "write allocation: whether loads after stores to uncached lines hit the level",
	.kinds = 1u << AMP_KIND_CACHE,
	.fills = { AMP_FILLS(write_allocate) },
	.supported = write_supported,
	.run = write_run,
};
