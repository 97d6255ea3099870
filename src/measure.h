/* measure.h - what the measurement modules share: the levels being
 * characterised, the parameters with their votes, the context (backend,
 * repetitions, votes, counter overhead), the miss-counting primitive and
 * AMP's voting loop (section 2.2). */
#ifndef AMP_MEASURE_H
#define AMP_MEASURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "counters.h"
#include "plan.h"
#include "util.h"

#define AMP_MAX_VOTES 64
#define AMP_MAX_HIER 12

struct amp_level;

/* One measured parameter. */
struct amp_param {
	int known;              /* value is meaningful */
	int64_t value;
	char reason[AMP_REASON_LEN]; /* why unknown, or why inconclusive */
	const char *method;     /* "counters" or "timing" */
	double confidence;      /* share of the votes cast that the answer got */
	int inconclusive;       /* confidence below the threshold, or too few votes */
	int nvotes;             /* votes cast */
	unsigned failed;        /* measurements that failed (cast no vote) */
	char first_failure[AMP_REASON_LEN]; /* the first one's reason */
	int64_t votes[AMP_MAX_VOTES];
	uint64_t accesses;      /* accesses the measurement cost, all votes */
};

enum amp_level_kind { AMP_KIND_CACHE, AMP_KIND_TLB };
enum amp_method { AMP_METHOD_COUNTERS, AMP_METHOD_TIMING };
extern const char *const amp_method_names[]; /* indexed by amp_method */
#define AMP_MAX_CONG 128
#define AMP_SET_LINES_MAX (2 * AMP_MAX_CONG)
enum amp_level_side { AMP_SIDE_DATA, AMP_SIDE_INSN };
enum amp_policy_id { AMP_POLICY_LRU, AMP_POLICY_PLRU, AMP_POLICY_FIFO, AMP_POLICY_RANDOM,
		     AMP_POLICY_UNKNOWN };
enum amp_inclusion_id { AMP_INCL_NINE, AMP_INCL_INCLUSIVE, AMP_INCL_EXCLUSIVE };

/* Every parameter of a level, by name and place, in report order. */
#define AMP_NPARAMS 9
struct amp_param_field {
	const char *name;
	size_t offset;  /* in struct amp_level */
};
extern const struct amp_param_field amp_param_fields[AMP_NPARAMS];
#define amp_level_param(lv, i) \
	((struct amp_param *)((char *)(lv) + amp_param_fields[i].offset))
/* The lowest confidence among lv's known parameters (1 when none). */
double amp_level_confidence(const struct amp_level *lv);
extern const char *const amp_policy_names[];    /* indexed by amp_policy_id */
extern const char *const amp_inclusion_names[]; /* indexed by amp_inclusion_id */

/* A cache or TLB level amp characterises, named by the counter that
 * sees its misses. */
struct amp_level {
	char name[8];           /* L1d L1i L2 L3 L4 DTLB ITLB STLB ITLB2 */
	enum amp_level_kind kind;
	enum amp_level_side side; /* which accesses probe it (loads or fetches) */
	int level;              /* 1..4 */
	enum amp_event ev;      /* the counter of its misses */
	enum amp_method method; /* how its parameters are measured */
	int measurable;         /* 0: neither counter nor timing reaches it (N/C) */
	char nc_reason[AMP_REASON_LEN];
	/* Timing: ticks of an access this level serves, and of one that
	 * misses it (served by the next level); the sweep's largest working
	 * set at this latency is its effective_size. */
	double hit_ticks, next_ticks;
	int selected;           /* asked for (--level) or needed by one asked for */
	struct amp_level *above; /* the level above on the same side */

	struct amp_param line;  /* cache: line size; TLB: page size (bytes) */
	struct amp_param assoc; /* ways; fully associative: lines/entries */
	struct amp_param way;   /* bytes one way covers (sets x line; TLB: sets x page) */
	struct amp_param size;  /* cache: own capacity (bytes); TLB: entries */
	struct amp_param effective_size; /* exclusive: own plus the levels above */
	struct amp_param write_allocate; /* 1 or 0 */
	struct amp_param replacement;    /* amp_policy_id */
	struct amp_param inclusion;      /* amp_inclusion_id */
	struct amp_param unified;        /* 1 unified, 0 this side only */
	int fully_associative;
	/* The inclusion test ruled exclusion out in most votes, whether or
	 * not it told inclusive from NINE (mod_inclusion.c). */
	int not_exclusive;
	int thrash_ways;        /* lines that fit one set, as seen by its counter */
	/* An exclusive level whose rounds read a deterministic order: the
	 * order its pair with the level above evicts in (its own does not
	 * show; mod_replace.c). */
	int pair_order_known;
	enum amp_policy_id pair_order;
	/* Timing, data L1: the share of its accesses that a cyclic walk of
	 * ways + 1 lines a way apart misses (the least of a few sets; 0:
	 * not measured).  lru, tree plru and fifo miss every access of it. */
	double overflow_share;
	/* Counters: virtual strides did not predict this physically
	 * indexed level's sets (scattered page frames), so eviction sets
	 * found by experiment decide its geometry (mod_evset.c). */
	int sets_by_experiment;
	/* ...and then lines of one of its sets (offsets at one page offset,
	 * one per page), for the tests that place lines in a set by strides
	 * elsewhere (mod_replace.c, mod_write.c). */
	uint64_t set_lines[AMP_SET_LINES_MAX];
	int nset_lines;
	/* ...and where L1 above has as many ways: lines of L1's set out of
	 * that set, walked before each test access so it leaves L1. */
	uint64_t set_pushers[AMP_MAX_CONG];
	int nset_pushers;
	/* Real machine: the frames those lines were found on (mapped until
	 * every module is done: replacement and write use them). */
	struct amp_arena set_arena;
	char code[320];         /* timing path: which code or accesses ran (the TLBs, the instruction side) */
	unsigned modules_run;   /* bit m: amp_modules[m] ran on it (amp_run_module) */
};

/* A quiet gate's state (timing, real machine; amp_quiet_look in
 * timing.h): its reference's fastest time so far (0: none yet), the
 * time it may still spend waiting for quiet (ns), when its last nap
 * began (amp_now_ns(); 0: not waiting), and when it last found quiet
 * (gates that look only now and then). */
struct amp_quiet {
	double fastest;
	uint64_t wait_left;
	uint64_t nap_since;
	uint64_t looked_at;
};

/* Build-time code for the instruction side (ctx insn_blocks): the jump
 * chains compiled into amp (synth/codechain.h, x86-64 and aarch64), or
 * the I-cache paper's blocks of adds (synth/blocks.h, any compiler). */
enum { AMP_BLOCKS_CHAINS = 1, AMP_BLOCKS_ADDS = 2 };

#define AMP_MAX_STEPS 128
struct amp_step_time {
	const char *level, *what;
	double seconds;
};

struct amp_ctx {
	const struct amp_host *host;
	const struct amp_backend_ops *backend;
	unsigned reps, votes;
	uint64_t seed;
	double min_confidence;  /* below: inconclusive */
	int64_t overhead[AMP_EV_COUNT]; /* counter API overhead per event */
	uint64_t accesses;      /* every access issued so far */
	enum amp_method method; /* counters, or timing when none are usable */
	double t_min_ticks;     /* timing: a measured run lasts at least this */
	uint64_t page;          /* the system's page size (bytes) */
	int sweep_caches;       /* timing: cache levels the sweep found */
	struct amp_rng rng;     /* timing: where walks start (seeded) */
	/* Timing, real machine: jumps per code line of instruction walks
	 * (an op cache in front of the L1i then overflows far below it;
	 * insn_timing.c); 0 or 1: one. */
	unsigned fetch_jumps;
	/* Timing: timed walks back their region with huge pages (set
	 * while eviction sets are searched; mod_evset.c). */
	int huge_walks;
	/* Instruction side through build-time code (executable mappings
	 * refused; L1i capacity only): AMP_BLOCKS_CHAINS or AMP_BLOCKS_ADDS;
	 * 0: run-time code. */
	int insn_blocks;
	/* Timing: an op cache found in front of the L1i (an edge of the code
	 * sweep that moves with the jumps per line); entries 0: none seen. */
	struct {
		double entries;
		uint64_t bytes;         /* code it covered at fetch_jumps per line */
		char method[200];
	} opcache;
	/* Timing, real machine: the quiet gate of code walks (timing.c). */
	struct amp_quiet code_quiet;
	/* ... and of eviction tests (timing.c amp_timing_evicted), whose
	 * budget each eviction-set search sets (mod_evset.c). */
	struct amp_quiet evict_quiet;
	struct amp_level lv[AMP_MAX_HIER];
	int nlv;
	/* Wall time per module and level (a module run from inside
	 * another counts apart from it) and per sweep: -v prints them. */
	struct amp_step_time steps[AMP_MAX_STEPS];
	int nsteps;
	uint64_t nested_ns;     /* of modules run inside the one running */
};

/* Adds ns of wall time to the step (level, what): names that outlive c. */
void amp_step_add(struct amp_ctx *c, const char *level, const char *what, uint64_t ns);
/* Prints c's steps of at least `least` seconds, longest first, then the
 * rest in one line, each line after `prefix`. */
void amp_steps_print(const struct amp_ctx *c, FILE *out, const char *prefix, double least);

/* Fills c's settings (the rest zero; min_confidence one half). */
void amp_ctx_init(struct amp_ctx *c, const struct amp_host *host, const struct amp_backend_ops *backend,
		  unsigned reps, unsigned votes, uint64_t seed);

/* Switches c to the timing path (even on a backend with counters). */
void amp_ctx_timing(struct amp_ctx *c);

/* Misses counted by ev over plan's measured passes: the minimum over
 * ctx->reps runs, minus the API overhead.  0, or -1 with err. */
int amp_count(struct amp_ctx *c, const struct amp_plan *p, enum amp_event ev,
	      double *misses, char *err, size_t len);
/* The same, the mean over ctx->reps runs instead: for counts that noise
 * may lower as well as raise (a line noise dropped above comes back
 * here), and for differences of counts under random replacement, whose
 * minima scatter. */
int amp_count_mean(struct amp_ctx *c, const struct amp_plan *p, enum amp_event ev, double *misses, char *err,
		   size_t len);

/* Miss rate per access of `n` lines `stride` bytes apart (from offset
 * `base`), walked cyclically: primed twice, then measured over enough
 * walks for hundreds of accesses; the access kind is lv's side. */
int amp_cyclic_rate(struct amp_ctx *c, const struct amp_level *lv, uint64_t base,
		    uint64_t stride, uint64_t n, double *rate, char *err, size_t len);

/* Miss rate per access of the lines at off[0..n-1] (in a region of
 * `region` bytes) walked cyclically in that order, as amp_cyclic_rate:
 * counted, or by timing (amp_timing_rate) on the timing path. */
int amp_offsets_rate(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off, uint64_t n,
		     uint64_t region, double *rate, char *err, size_t len);

/* The same after flushing the lines at flush[0..nflush-1] (counters
 * only; timing ignores them): a level with random replacement keeps
 * lines of an earlier walk for many walks, and would count them.  On
 * arena a (NULL: a fresh mapping), so that the walks of an eviction-set
 * search see the same frames. */
int amp_offsets_rate_flushed(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off,
			     uint64_t n, const uint64_t *flush, uint64_t nflush, uint64_t region,
			     const struct amp_arena *a, double *rate, char *err, size_t len);

/* The same after `warm` walks uncounted (amp_offsets_rate_flushed: 2):
 * lines of walks before that were not flushed leave a random set only
 * as its victims, one in ways at a time. */
int amp_offsets_rate_settled(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off,
			     uint64_t n, const uint64_t *flush, uint64_t nflush, uint64_t region,
			     const struct amp_arena *a, unsigned warm, double *rate, char *err, size_t len);

/* The same, optionally with lines between the test accesses that evict
 * each test line from the level above (so a level above with more ways
 * cannot hide this one); the evictors live beyond the test lines, at
 * multiples of far_unit (the largest stride tried). */
int amp_cyclic_rate_ex(struct amp_ctx *c, const struct amp_level *lv, uint64_t base,
		       uint64_t stride, uint64_t n, int evict, uint64_t far_unit, double *rate,
		       char *err, size_t len);
/* Counters: misses of lv per test line in a walk of only the evictors
 * that amp_cyclic_rate_ex would put between n test lines while lv's way
 * is unknown (0 where it would take none, and once the way is known:
 * cyclic_rate_walk then places them, or pushers, by the way): where
 * they overflow a set of lv themselves (all in few of its sets), a walk
 * with them misses whatever the test lines do. */
int amp_evictors_alone_rate(struct amp_ctx *c, const struct amp_level *lv, uint64_t base, uint64_t stride,
			    uint64_t n, uint64_t far_unit, double *rate, char *err, size_t len);
/* Tells the observers of a cyclic walk's rate (amp_cyclic_rate_ex does). */
void amp_trace_walk(const struct amp_level *lv, uint64_t n, uint64_t stride, int evict, double rate);
/* Adds to p a sequence visiting test[0..n-1] in order, each followed by
 * lines that evict it from the level above (same set there, never lv's
 * set of it): every test access then reaches lv.  The test lines must be
 * `base` plus multiples of a power of two >= 2 W_j (W_j: the way size of
 * the level above), i.e. all in one set there.  Evictors live at and
 * beyond offset `far` (a multiple of lv's way size, past every test
 * offset; the region must be at least far * (n + 2)).  Test offsets may
 * repeat a line through its different 8-byte words (a chain visits each
 * word once).  Returns the sequence index or -1.  Needs
 * amp_evictors_usable(lv). */
int amp_plan_add_evicted(struct amp_plan *p, const struct amp_level *lv, const uint64_t *test,
			 uint64_t n, uint64_t base, uint64_t far);
/* The same where a level above replaces at random (amp_evictors_fresh):
 * each test access followed by lines of its own, used once, so every
 * one misses there; the region must be amp_fresh_evicted_region(). */
int amp_plan_add_fresh_evicted(struct amp_plan *p, const struct amp_level *lv, const uint64_t *test,
			       uint64_t n, uint64_t base, uint64_t far);
uint64_t amp_fresh_evicted_region(const struct amp_level *lv, uint64_t n, uint64_t far);
/* Fresh evictors per test access that push a line out of every random
 * level above but for one access in a thousand (at least the ways of
 * the level right above); 0 where none above is random, UINT64_MAX
 * where that would take more than a test can afford. */
uint64_t amp_evictors_fresh(const struct amp_level *lv);
/* Reused evictors per test access (amp_plan_add_evicted): the most
 * ways of any level above, not only the one right above: under an L1d
 * of more ways than L2's, L2's ways' worth of them stayed in L1d, never
 * reached L2, and left the test line there (an exclusive 6-way L3
 * under a 3-way L2 and a 4-way L1d read NINE). */
uint64_t amp_evictors_plain(const struct amp_level *lv);
/* Whether lv is known to replace at random (conclusively). */
int amp_replaces_at_random(const struct amp_level *lv);
/* By timing: a cyclic walk one line over the ways (mod_assoc.c
 * overflow_share) that misses less than this share of its accesses
 * keeps some of its lines: none of lru, tree plru, fifo (a full thrash
 * reads 1.1 to 1.3 on real L1s, whose misses cost a little more than
 * the sweep's gap). */
#define AMP_FULL_OVERFLOW_SHARE 0.8
/* Whether lv's walk one line over its ways, timed, spared some lines
 * (its overflow share is below AMP_FULL_OVERFLOW_SHARE). */
int amp_spares_overflow(const struct amp_level *lv);
/* Test accesses one group of evictor lines serves (their words within
 * the smallest line above). */
uint64_t amp_evictor_visits(const struct amp_level *lv);
/* Why timing leaves a level's replacement and inclusion unknown where
 * no module measures them by time. */
#define AMP_WHY_REPLACEMENT_TIMING "needs miss counters (by timing, only L1d's replacement is measured)"
#define AMP_WHY_INCLUSION_TIMING "needs miss counters (by timing, only L2's inclusion is measured, on its eviction sets)"
/* Whether a level's sets came from eviction sets and its way is larger
 * than a page (within one, any frame's lines fall as the offsets say):
 * lines a way size apart then share no set, and tests that place lines
 * by strides run on the eviction sets instead. */
int amp_strides_mislead(const struct amp_ctx *c, const struct amp_level *lv);
/* Known and not inconclusive. */
int amp_param_conclusive(const struct amp_param *p);
/* Half of lv in whole lines, and what the levels above it hold (bytes);
 * 0, or -1 with why (a size not known yet).  Regions that must leave the
 * levels above yet stay in lv are sized from these. */
int amp_region_half(const struct amp_level *lv, uint64_t *half, uint64_t *above, char *why, size_t len);
/* Spacing of the evictors: the way size above (or this level's line,
 * when larger); the way size here must be at least twice it. */
uint64_t amp_evictor_step(const struct amp_level *lv);
/* The most of one group of evictors (the ways above) that share one set
 * of lv (way size known): they wrap round the odd multiples of the step,
 * over lv's way / (2 x step) sets; UINT64_MAX where that is none. */
uint64_t amp_evictors_per_set(const struct amp_level *lv);
/* Whether the level above is known well enough to evict from it. */
int amp_evictors_usable(const struct amp_level *lv);

/* Whether a cyclic walk thrashes lv (its miss rate is well above what
 * interference alone gives; timing is noisier than counting). */
int amp_thrashes(const struct amp_level *lv, double rate);

/* Whether a walk misses at all: as amp_thrashes, but by timing a data
 * walk that misses a tenth of the gap (a random set one line over its
 * ways misses that little). */
int amp_misses_some(const struct amp_level *lv, double rate);

/* Whether eviction sets of `plain` lines found without pushers fit an
 * exclusive level of `ways` ways under a level of `above` ways: they
 * hold its ways and L1's (L1 passes its victims on), at least its ways
 * and half of L1's (mod_evset.c). */
int amp_exclusive_fits(uint64_t plain, uint64_t ways, uint64_t above);

/* The reload threshold of moved page-offset classes: midway between
 * the class's own reload and the class half a page away (or the hit,
 * where that costs more); -1 where those are within a quarter of the
 * gap (the class evicts by size, not by set). */
int amp_class_threshold(double hit, double miss, double far, double gap, double *threshold);

/* An access pair's second access d bytes after its first, costing
 * `second` ticks, against `beyond` (what missing this level costs at
 * least): 1 where it missed this level (the pairs' edge), 0 where it
 * found its line, -1 where the walks were disturbed: a pair within one
 * line of the level above (above_line; 0: none known) shares that line,
 * which the first access brought, so its second can only hit. */
int amp_pair_missed(uint64_t d, uint64_t above_line, double second, double beyond);

/* The line below L2 from page-offset classes whose edge passed the line
 * above and access pairs (mod_block.c): prefetchers only push either
 * edge up, so pairs decide where they agree with the classes or read
 * the line above (a pair one line above apart paid the level below: no
 * prefetcher brought it, and a longer line would have held it).  0 with
 * *line, or -1 where they disagree otherwise. */
int amp_class_line(int64_t classes, int64_t pairs, int64_t above_line, int64_t *line);

/* Half of lv's line, where moving a line by it puts it in another set
 * of every level above (their lines at most that long, their ways at
 * least a line here) but leaves it in its line here: lines so moved
 * bypass the sets above (mod_inclusion.c, and on eviction sets
 * mod_evset.c).  0 where not. */
uint64_t amp_offset_bypass(const struct amp_level *lv);

/* One vote: a value from one measurement (vote number v seeds anything
 * random).  0, or -1 with err. */
typedef int (*amp_vote_fn)(struct amp_ctx *c, struct amp_level *lv, unsigned v,
			   int64_t *value, char *err, size_t len);

/* AMP's voting loop: ctx->votes votes; the answer is the most common
 * vote, its share the confidence; fills out (method "counters").
 * Returns 0 (conclusive), 1 (inconclusive: below min_confidence) or -1
 * (a vote failed: out is unknown with the reason). */
int amp_vote(struct amp_ctx *c, struct amp_level *lv, amp_vote_fn fn, struct amp_param *out);
/* amp_vote where rounds of amp_vote_more may follow, up to `horizon`
 * votes in all (within AMP_MAX_VOTES): votes are left untaken only
 * once no round up to it could decide.  amp_vote is this with none. */
int amp_vote_toward(struct amp_ctx *c, struct amp_level *lv, amp_vote_fn fn, struct amp_param *out,
		    unsigned horizon);
/* After amp_vote: as many votes again (numbers ctx->votes up, within
 * AMP_MAX_VOTES), decided over all of them, with a horizon as
 * amp_vote_toward's (0: this round's last); returns as amp_vote. */
int amp_vote_more(struct amp_ctx *c, struct amp_level *lv, amp_vote_fn fn, struct amp_param *out,
		  unsigned horizon);

void amp_param_unknown(struct amp_param *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* An instruction cache whose thrash tests' size (ways x way) lies more
 * than a quarter off its capacity search's (effective size, even an
 * inconclusive one): its ways, way, size and line are marked
 * inconclusive, the capacity stands (mod_icache.c). */
void amp_icache_geometry_check(struct amp_level *lv);

/* Whether p, one of lv's line, associativity, way size, size or
 * effective size, was left unknown after measurements that all failed:
 * a failed measurement (exit status 1), as on the PVM Zen 5 guest, where
 * busy spells failed every vote of L3's line, or every I-cache capacity
 * search, and the run exited 0.  Behaviours are not counted: their
 * votes also fail where the geometry rules the test out (an L2 with
 * fewer ways than L1d above it cannot show inclusion). */
int amp_geometry_failed(const struct amp_level *lv, const struct amp_param *p);

void amp_param_derived(struct amp_param *p, int64_t value, const struct amp_param *from);
/* A value measured once, outside the voting loop (a sweep's). */
void amp_param_measured(struct amp_param *p, int64_t value, const char *method);
/* The first level of lv's side (L1d, L1i, DTLB...). */
const struct amp_level *amp_level_top(const struct amp_level *lv);
/* The first level above lv whose way is unknown or larger than lv's
 * (lines of one set of lv then fall in many sets there), or NULL:
 * lines of one set of lv lie in one set of every level above. */
const struct amp_level *amp_spread_above(const struct amp_level *lv);
/* The region that holds lv's kept set lines and its first npush
 * pushers (mod_evset.c), each `unit` bytes long. */
uint64_t amp_set_lines_region(const struct amp_level *lv, uint64_t unit, int npush);
/* A plan on lv's kept set: its lines and pushers flushed, its first
 * thrash_ways lines given `op` (unmeasured), the pushers walked twice,
 * those lines loaded again (measured).  0, or -1 with err. */
int amp_set_pushed_plan(struct amp_plan *p, const char *name, const struct amp_level *lv, enum amp_op op,
			char *err, size_t len);
/* Real machine: the frames lv's eviction-set search ran on and its kept
 * set lines lie on (a fresh mapping would bring other frames, and other
 * sets); NULL on the simulated machine, whose frames stay put. */
const struct amp_arena *amp_set_frames(const struct amp_level *lv);
/* The level-1 instruction cache of c's hierarchy, or NULL. */
const struct amp_level *amp_find_l1i(const struct amp_ctx *c);
/* The level of lv's kind right below lv in c (whose hits lv's misses
 * cost), or NULL. */
const struct amp_level *amp_level_below(const struct amp_ctx *c, const struct amp_level *lv);
/* The line of lv or, where it is not known, of the nearest level above
 * it that knows its own; 0 when none does (lv may be NULL). */
uint64_t amp_nearest_line(const struct amp_level *lv);
/* The same, or 64 B where no level knows its line (a size to plan by). */
uint64_t amp_nearest_line_or_64(const struct amp_level *lv);
/* lv's size (bytes or entries) derived from its ways and way size: the
 * lower confidence of the two, their accesses together. */
void amp_size_derived(struct amp_level *lv, int64_t size, const struct amp_param *ways,
		      const struct amp_param *way);
/* Data by timing: a round of L1d's measurements read in a neighbour's
 * busy spell (mod_assoc.c, mod_block.c) is measured again after this
 * pause, at most this many times. */
#define AMP_SPELL_TRIES 3
#define AMP_SPELL_PAUSE_NS 500000000L
/* That pause, on a real machine (the simulated one has no spell to
 * wait out); amp_nap, one of ns nanoseconds likewise. */
void amp_spell_pause(const struct amp_ctx *c);
void amp_nap(const struct amp_ctx *c, long ns);
/* Measurements of p set aside after the fact (rounds read in a busy
 * spell): they count as failed, with `why` as the first failure unless
 * one came before, and their accesses in p's. */
void amp_param_set_aside(struct amp_param *p, unsigned measurements, uint64_t accesses, const char *why);
/* Data by timing: how far `size` bytes, with what the levels above lv
 * hold, fall short of what the latency sweep held at lv's latency, in
 * bytes; 0 where they do not by more than AMP_SWEEP_MARGIN of it, where
 * the sweep held over twice as much (not this level's plateau alone),
 * or where there is nothing to compare.  A cache holds at least that: a size
 * below it was read while another thread held ways (mod_assoc.c), or
 * noise made lines join an eviction set (mod_evset.c). */
#define AMP_SWEEP_MARGIN (1.0 / 16)
int64_t amp_short_of_sweep(const struct amp_level *lv, int64_t size);
/* Data by timing, a level of at least AMP_PAST_SWEEP_WAYS ways with
 * another cache level below it in c: whether `size` bytes are over
 * AMP_PAST_SWEEP times what the latency sweep held at lv's latency.
 * Past its effective size the sweep met the level below's latency; a
 * private cache of many ways holds most of its size there (on this
 * project's Zen 5 guest L2's 1 MiB, 16 ways, held 608 to 880 KiB), so
 * a size that far past it was read wrong (the same guest's eviction
 * sets read a 128 KiB way for 64 in one run of eight, "2 MiB").  Fewer
 * ways lose more to conflicts on scattered frames: a simulated 4-way
 * L2 of 256 KiB on random pages held 88 KiB. */
#define AMP_PAST_SWEEP 2.5
#define AMP_PAST_SWEEP_WAYS 8
int amp_past_sweep(const struct amp_ctx *c, const struct amp_level *lv, int64_t ways, int64_t size);

/* The plan operation that probes lv (loads or instruction fetches). */
enum amp_op amp_level_op(const struct amp_level *lv);

/* Whether name is a level amp knows (L1d L1i L2 L3 L4 DTLB ITLB STLB ITLB2). */
int amp_level_name_valid(const char *name);
/* Finds the levels the backend can count on host; a level named in
 * `only` (e.g. "L2", NULL for all) and the levels above it are selected.
 * 0, or -1 with err (unknown level name). */
int amp_levels_discover(struct amp_ctx *c, const char *only, char *err, size_t len);
struct amp_sweep;
/* The timing path's levels: L1d, L2... from the sweep's clusters (each
 * with its latency, the next one's, and its effective size), the
 * instruction side as not reached; `only` as for amp_levels_discover.
 * 0, or -1 with err. */
int amp_levels_timing(struct amp_ctx *c, const char *only, const struct amp_sweep *sw, char *err,
		      size_t len);
/* Measures the counter API overhead for every event of every level. */
int amp_measure_overhead(struct amp_ctx *c, char *err, size_t len);
/* Runs every module on every selected level, in module-table order. */
int amp_characterise(struct amp_ctx *c, char *err, size_t len);
/* The same, stopping after the module named `last` (for tests). */
int amp_characterise_through(struct amp_ctx *c, const char *last, char *err, size_t len);
struct amp_module;
/* Runs mod on lv unless it ran there already (a module may need a later
 * one's answer for the level above: inclusion needs to know whether the
 * level above replaces at random); its parameters are left unknown with
 * the reason where it does not apply or cannot run. */
void amp_run_module(struct amp_ctx *c, const struct amp_module *mod, struct amp_level *lv);

/* Modules: one file each, one descriptor each, listed in modules.c. */
#define AMP_MODULE_MAX_FILLS 4
#define AMP_FILLS(field) offsetof(struct amp_level, field)
struct amp_module {
	const char *name;
	const char *summary;
	unsigned kinds;         /* 1 << amp_level_kind */
	size_t fills[AMP_MODULE_MAX_FILLS]; /* the parameters it sets (AMP_FILLS), 0 ends */
	/* Whether it is lv's module for these parameters at all (another
	 * module may be, for another method); NULL: always. */
	int (*applies)(const struct amp_ctx *c, const struct amp_level *lv);
	/* 1 when it can run on lv; otherwise 0 and the reason (which ends
	 * up as the parameter's reason). */
	int (*supported)(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len);
	/* Fills its parameters of lv; 0, or -1 with err (fatal). */
	int (*run)(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len);
};
extern const struct amp_module *const amp_modules[]; /* run order; NULL-terminated */
/* An applies() for modules that need miss counts (timing leaves their
 * parameters with the reason amp_levels_timing gave them). */
int amp_applies_with_counters(const struct amp_ctx *c, const struct amp_level *lv);

#endif
