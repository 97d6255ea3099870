/* measure.c - the shared machinery of the measurement modules: levels,
 * counting misses of a plan, cyclic walks, AMP's voting loop, and the
 * driver that runs every module on every level. */
#include "config.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
#include <unistd.h>
#include "measure.h"
#include "sim.h"
#include "timer.h"
#include "timing.h"
#include "trace.h"

/* A timed run lasts at least this long (20 us: 2000 timer resolutions). */
#define T_MIN_NS 20000.0

const char *const amp_method_names[] = { "counters", "timing" };
const char *const amp_policy_names[] = { "lru", "plru", "fifo", "random", "unknown" };
const char *const amp_inclusion_names[] = { "nine", "inclusive", "exclusive" };
const struct amp_param_field amp_param_fields[AMP_NPARAMS] = {
	{ "line", AMP_FILLS(line) },
	{ "associativity", AMP_FILLS(assoc) },
	{ "way size", AMP_FILLS(way) },
	{ "size", AMP_FILLS(size) },
	{ "effective size", AMP_FILLS(effective_size) },
	{ "write allocation", AMP_FILLS(write_allocate) },
	{ "replacement", AMP_FILLS(replacement) },
	{ "inclusion", AMP_FILLS(inclusion) },
	{ "split/unified", AMP_FILLS(unified) },
};

double amp_level_confidence(const struct amp_level *lv)
{
	double conf = 1;

	for (int i = 0; i < AMP_NPARAMS; i++) {
		const struct amp_param *p = amp_level_param(lv, i);

		if (p->known && p->confidence < conf)
			conf = p->confidence;
	}
	return conf;
}

void amp_ctx_init(struct amp_ctx *c, const struct amp_host *host, const struct amp_backend_ops *backend,
		  unsigned reps, unsigned votes, uint64_t seed)
{
	memset(c, 0, sizeof *c);
	c->host = host;
	c->backend = backend;
	c->reps = reps;
	c->votes = votes;
	c->seed = seed;
	c->min_confidence = 0.5;
	c->method = AMP_METHOD_COUNTERS;
	amp_rng_seed(&c->rng, seed ^ 0x74696d696e67ULL);
	if (host && host->sim) {
		c->page = sim_get_spec(host->sim)->map_page;
	} else {
		long pg = sysconf(_SC_PAGESIZE);

		c->page = pg > 0 ? (uint64_t)pg : 4096;
	}
	if (backend == &amp_backend_timer)
		amp_ctx_timing(c);
}

void amp_ctx_timing(struct amp_ctx *c)
{
	c->method = AMP_METHOD_TIMING;
	if (c->host && !c->host->sim)
		c->t_min_ticks = T_MIN_NS * amp_timer()->ticks_per_ns;
}

/* Walks produce at least this many accesses per measurement, so counts
 * are in the hundreds (AMP 2.2: never rely on a handful of misses). */
#define MIN_MEASURED_ACCESSES 512
/* A cyclic walk thrashes when at least this share of its accesses miss.
 * One line too many thrashes an LRU or FIFO set completely but a random
 * one only by about 2/ways (6% at 32 ways); interference alone stays
 * well below 1% once the minimum over repetitions is taken. */
#define THRASH_RATE 0.02
/* By timing, a share of the latency gap to the level below: one line
 * too many costs about the whole gap under LRU, jitter a few percent.
 * Data walks take less: a set that is not LRU misses only part of the
 * time with one line too many (13 lines 4 KiB apart in the 12-way L1d
 * of an Intel family 6 model 207 guest: a share of 0.50-0.59, while 12
 * lines read 0.06 at most).  Code walks are judged against their
 * fastest layout and vary far more (timing.c). */
#define THRASH_RATE_TIMING 0.8
#define THRASH_RATE_TIMING_DATA 0.3
/* By timing, a data walk that misses at all: a random set one line over
 * its ways misses 2/ways or less of its accesses (15% at 12 ways, 12% at
 * 16); walks that fit read 0.06 at most on the Intel guest.  Only walks
 * next to an answer of the 0.3 rule are judged so (mod_assoc.c). */
#define MISS_RATE_TIMING_DATA 0.1

void amp_param_unknown(struct amp_param *p, const char *fmt, ...)
{
	va_list ap;

	p->known = 0;
	p->value = 0;
	va_start(ap, fmt);
	vsnprintf(p->reason, sizeof p->reason, fmt, ap);
	va_end(ap);
}

int amp_geometry_failed(const struct amp_level *lv, const struct amp_param *p)
{
	const struct amp_param *geometry[] = { &lv->line, &lv->assoc, &lv->way, &lv->size, &lv->effective_size };

	for (size_t i = 0; i < sizeof geometry / sizeof geometry[0]; i++)
		if (p == geometry[i])
			return !p->known && p->failed;
	return 0;
}

void amp_param_derived(struct amp_param *p, int64_t value, const struct amp_param *from)
{
	*p = *from;
	p->value = value;
	p->nvotes = 0;
	p->accesses = 0;
}

void amp_param_measured(struct amp_param *p, int64_t value, const char *method)
{
	memset(p, 0, sizeof *p);
	p->known = 1;
	p->value = value;
	p->confidence = 1;
	p->method = method;
}

uint64_t amp_nearest_line(const struct amp_level *lv)
{
	for (; lv; lv = lv->above)
		if (amp_param_conclusive(&lv->line))
			return (uint64_t)lv->line.value;
	return 0;
}

uint64_t amp_nearest_line_or_64(const struct amp_level *lv)
{
	uint64_t line = amp_nearest_line(lv);

	return line ? line : 64;
}

const struct amp_level *amp_level_top(const struct amp_level *lv)
{
	while (lv->above)
		lv = lv->above;
	return lv;
}

const struct amp_level *amp_spread_above(const struct amp_level *lv)
{
	for (const struct amp_level *a = lv->above; a; a = a->above)
		if (!a->way.known || (uint64_t)a->way.value > (uint64_t)lv->way.value)
			return a;
	return NULL;
}

uint64_t amp_set_lines_region(const struct amp_level *lv, uint64_t unit, int npush)
{
	uint64_t region = 0;

	for (int i = 0; i < lv->nset_lines; i++)
		region = lv->set_lines[i] + unit > region ? lv->set_lines[i] + unit : region;
	for (int i = 0; i < npush; i++)
		region = lv->set_pushers[i] + unit > region ? lv->set_pushers[i] + unit : region;
	return region;
}

int amp_set_pushed_plan(struct amp_plan *p, const char *name, const struct amp_level *lv, enum amp_op op,
			char *err, size_t len)
{
	uint64_t unit = amp_nearest_line_or_64(lv);
	int fs, ss, ps = 0;

	amp_plan_init(p, name, amp_set_lines_region(lv, unit, lv->nset_pushers));
	p->arena = amp_set_frames(lv);
	fs = amp_plan_add_seq(p, lv->set_lines, (size_t)lv->nset_lines);
	ss = amp_plan_add_seq(p, lv->set_lines, (size_t)lv->thrash_ways);
	if (lv->nset_pushers)
		ps = amp_plan_add_seq(p, lv->set_pushers, (size_t)lv->nset_pushers);
	if (fs < 0 || ss < 0 || ps < 0) {
		amp_plan_free(p);
		snprintf(err, len, "%s: out of memory for a plan", lv->name);
		return -1;
	}
	amp_plan_add_pass(p, fs, AMP_OP_FLUSH, 1, 0);
	if (lv->nset_pushers)
		amp_plan_add_pass(p, ps, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(p, ss, op, 1, 0);
	if (lv->nset_pushers)
		amp_plan_add_pass(p, ps, AMP_OP_TOUCH, 2, 0);
	amp_plan_add_pass(p, ss, AMP_OP_TOUCH, 1, 1);
	return 0;
}

const struct amp_arena *amp_set_frames(const struct amp_level *lv)
{
	return lv->set_arena.base ? &lv->set_arena : NULL;
}

const struct amp_level *amp_find_l1i(const struct amp_ctx *c)
{
	for (int i = 0; i < c->nlv; i++)
		if (c->lv[i].kind == AMP_KIND_CACHE && c->lv[i].side == AMP_SIDE_INSN && c->lv[i].level == 1)
			return &c->lv[i];
	return NULL;
}

const struct amp_level *amp_level_below(const struct amp_ctx *c, const struct amp_level *lv)
{
	for (int i = 0; i < c->nlv; i++)
		if (c->lv[i].above == lv && c->lv[i].kind == lv->kind)
			return &c->lv[i];
	return NULL;
}

void amp_size_derived(struct amp_level *lv, int64_t size, const struct amp_param *ways,
		      const struct amp_param *way)
{
	amp_param_derived(&lv->size, size, way);
	if (ways->confidence < way->confidence)
		lv->size.confidence = ways->confidence;
	lv->size.accesses = ways->accesses + way->accesses;
}

void amp_nap(const struct amp_ctx *c, long ns)
{
	const struct timespec pause = { ns / 1000000000L, ns % 1000000000L };

	if (!c->host->sim)
		nanosleep(&pause, NULL); /* let the spell pass */
}

void amp_spell_pause(const struct amp_ctx *c)
{
	amp_nap(c, AMP_SPELL_PAUSE_NS);
}

void amp_param_set_aside(struct amp_param *p, unsigned measurements, uint64_t accesses, const char *why)
{
	if (!p->failed)
		snprintf(p->first_failure, sizeof p->first_failure, "%s", why);
	p->failed += measurements;
	p->accesses += accesses;
}

/* Whether the latency sweep's effective size can bound `size` bytes of
 * lv: data caches by timing, where the sweep found one. */
static int sweep_bounds(const struct amp_level *lv, int64_t size)
{
	return lv->method == AMP_METHOD_TIMING && lv->side == AMP_SIDE_DATA && lv->kind == AMP_KIND_CACHE &&
	       lv->effective_size.known && lv->effective_size.value > 0 && size > 0;
}

int64_t amp_short_of_sweep(const struct amp_level *lv, int64_t size)
{
	int64_t held = size;

	if (!sweep_bounds(lv, size))
		return 0;
	for (const struct amp_level *up = lv->above; up; up = up->above)
		held += up->size.known ? up->size.value : up->effective_size.value;
	/* Over twice as much is no level's plateau alone: one the sweep
	 * merged with the level below, or prefetchers serving the chase
	 * (a simulated L2 of 1 MiB with 2 lines prefetched on each side of
	 * a miss held 76 MiB at its latency). */
	if (held >= lv->effective_size.value * (1 - AMP_SWEEP_MARGIN) || 2 * held < lv->effective_size.value)
		return 0;
	return lv->effective_size.value - held;
}

int amp_past_sweep(const struct amp_ctx *c, const struct amp_level *lv, int64_t ways, int64_t size)
{
	if (!sweep_bounds(lv, size) || ways < AMP_PAST_SWEEP_WAYS || !amp_level_below(c, lv))
		return 0;
	return (double)size > AMP_PAST_SWEEP * (double)lv->effective_size.value;
}

enum amp_op amp_level_op(const struct amp_level *lv)
{
	return lv->side == AMP_SIDE_INSN ? AMP_OP_IFETCH : AMP_OP_LOAD;
}

int amp_count(struct amp_ctx *c, const struct amp_plan *p, enum amp_event ev,
	      double *misses, char *err, size_t len)
{
	struct amp_cset set;
	struct amp_run_result res;
	int rc;

	if (amp_cset_open(&set, c->backend, c->host, &ev, 1, err, len) < 0)
		return -1;
	rc = amp_run(p, c->host, &set, c->reps, &res, err, len);
	amp_cset_close(&set);
	if (rc < 0)
		return -1;
	c->accesses += amp_plan_accesses(p, 0) * res.reps;
	*misses = (double)res.min[0] - (double)c->overhead[ev];
	if (*misses < 0)
		*misses = 0;
	amp_trace_count(p, "counters", *misses);
	return 0;
}

int amp_count_mean(struct amp_ctx *c, const struct amp_plan *p, enum amp_event ev, double *misses, char *err,
		   size_t len)
{
	unsigned reps = c->reps ? c->reps : 1;
	double one;
	int rc = 0;

	*misses = 0;
	c->reps = 1;
	for (unsigned r = 0; r < reps && rc == 0; r++) {
		rc = amp_count(c, p, ev, &one, err, len);
		*misses += one / reps;
	}
	c->reps = reps;
	return rc;
}

/* The smallest line of the levels above lv: an evictor must fall in
 * the test line's own piece of that size (a 128-byte line here is two
 * lines of a 64-byte L1d, in two of its sets). */
static uint64_t piece_above(const struct amp_level *lv)
{
	uint64_t piece = (uint64_t)lv->above->line.value;

	for (const struct amp_level *a = lv->above; a; a = a->above)
		if (a->line.known && a->line.value >= 8 && (uint64_t)a->line.value < piece)
			piece = (uint64_t)a->line.value;
	return piece >= 8 ? piece : 8;
}

uint64_t amp_evictor_visits(const struct amp_level *lv)
{
	return piece_above(lv) / 8;
}

/* Random replacement above: a fill evicts a given line of its set with
 * chance 1/ways, so a line stays there through e fresh fills with chance
 * (1 - 1/ways)^e.  That many fills per test access leave one access in
 * RANDOM_LEAK above; beyond FRESH_EVICTORS_MAX a test costs too much. */
#define RANDOM_LEAK 1e-3
#define FRESH_EVICTORS_MAX 512

int amp_replaces_at_random(const struct amp_level *lv)
{
	return amp_param_conclusive(&lv->replacement) && lv->replacement.value == AMP_POLICY_RANDOM;
}

int amp_spares_overflow(const struct amp_level *lv)
{
	return lv->overflow_share > 0 && lv->overflow_share < AMP_FULL_OVERFLOW_SHARE;
}

uint64_t amp_evictors_fresh(const struct amp_level *lv)
{
	uint64_t e = 0;

	for (const struct amp_level *a = lv->above; a; a = a->above) {
		uint64_t need;

		if (!amp_replaces_at_random(a))
			continue;
		need = a->thrash_ways > 1 ? (uint64_t)ceil(log(RANDOM_LEAK) / log(1 - 1.0 / a->thrash_ways)) : 1;
		e = need > e ? need : e;
	}
	if (e && e < (uint64_t)lv->above->thrash_ways)
		e = (uint64_t)lv->above->thrash_ways;
	return e > FRESH_EVICTORS_MAX ? UINT64_MAX : e;
}

uint64_t amp_evictors_plain(const struct amp_level *lv)
{
	uint64_t e = 0;

	for (const struct amp_level *a = lv->above; a; a = a->above)
		if (a->thrash_ways > 0 && (uint64_t)a->thrash_ways > e)
			e = (uint64_t)a->thrash_ways;
	return e;
}

/* Fresh evictors of one test access lie in blocks of `far` bytes, each
 * holding the odd multiples of the step below far. */
static uint64_t fresh_blocks(const struct amp_level *lv, uint64_t e, uint64_t far)
{
	uint64_t per = far / (2 * amp_evictor_step(lv)) ? far / (2 * amp_evictor_step(lv)) : 1;

	return (e + per - 1) / per;
}

uint64_t amp_fresh_evicted_region(const struct amp_level *lv, uint64_t n, uint64_t far)
{
	return far * (2 + n * fresh_blocks(lv, amp_evictors_fresh(lv), far));
}

/* Lines that push one line out of the level above between two test
 * accesses: they share its set there (odd multiples of its way size W_j
 * away) but never the tested set of this level, once W_k >= 2 W_j.  A
 * pointer chain visits each word once per walk, so each evictor line is
 * revisited through its other words of the test line's piece (see
 * piece_above), and groups of them sit at another multiple of the huge
 * stride when the words run out.  Fresh (a random level above): e lines
 * of their own per test access, each used once, in blocks of `far`.
 * The walk: each test line, then its e evictors (*per_test), in a fresh
 * array of n * (1 + e) offsets (NULL: out of memory). */
static uint64_t *evicted_offsets(const struct amp_level *lv, const uint64_t *test, uint64_t n, uint64_t base,
				 uint64_t far, uint64_t fresh, uint64_t *per_test)
{
	const struct amp_level *up = lv->above;
	uint64_t wj = amp_evictor_step(lv), unit = (uint64_t)up->line.value;
	uint64_t piece = piece_above(lv), visits = fresh ? 1 : piece / 8;
	uint64_t e = fresh ? fresh : amp_evictors_plain(lv), total = n * (1 + e), k = 0;
	uint64_t per = far / (2 * wj) ? far / (2 * wj) : 1, blocks = fresh ? fresh_blocks(lv, e, far) : 1;
	uint64_t *off = malloc(total * sizeof *off);

	*per_test = e;
	if (!off)
		return NULL;
	/* Test words may span this level's longer line. */
	if (lv->line.known && (uint64_t)lv->line.value > unit)
		unit = (uint64_t)lv->line.value;
	for (uint64_t i = 0; i < n; i++) {
		/* Consecutive test accesses share a group (its lines are soon
		 * done with); each evictor sits in the test word's piece. */
		uint64_t group = i / visits, word = test[i] % unit / piece * piece + (i % visits) * 8;

		off[k++] = test[i];
		/* Odd multiples of W_j from the test lines' common base: the
		 * same upper set, never one of lv's tested sets (W_k >= 2 W_j
		 * and every test stride a power-of-two multiple of 2 W_j). */
		for (uint64_t m = 1; m <= e; m++)
			off[k++] = fresh ? far * (1 + group * blocks + (m - 1) / per) + base - base % unit +
						   (2 * ((m - 1) % per) + 1) * wj + word
					 : far + group * far + base - base % unit + (2 * m - 1) * wj + word;
	}
	return off;
}

static int add_evicted(struct amp_plan *p, const struct amp_level *lv, const uint64_t *test, uint64_t n,
		       uint64_t base, uint64_t far, uint64_t fresh)
{
	uint64_t e, *off = evicted_offsets(lv, test, n, base, far, fresh, &e);
	int seq;

	if (!off)
		return -1;
	seq = amp_plan_add_seq(p, off, n * (1 + e));
	free(off);
	return seq;
}

int amp_plan_add_evicted(struct amp_plan *p, const struct amp_level *lv, const uint64_t *test,
			 uint64_t n, uint64_t base, uint64_t far)
{
	return add_evicted(p, lv, test, n, base, far, 0);
}

int amp_plan_add_fresh_evicted(struct amp_plan *p, const struct amp_level *lv, const uint64_t *test,
			       uint64_t n, uint64_t base, uint64_t far)
{
	return add_evicted(p, lv, test, n, base, far, amp_evictors_fresh(lv));
}

int amp_strides_mislead(const struct amp_ctx *c, const struct amp_level *lv)
{
	return lv->sets_by_experiment && (!lv->way.known || (uint64_t)lv->way.value > c->page);
}

int amp_param_conclusive(const struct amp_param *p)
{
	return p->known && !p->inconclusive;
}

int amp_region_half(const struct amp_level *lv, uint64_t *half, uint64_t *above, char *why, size_t len)
{
	uint64_t unit;

	if (!amp_param_conclusive(&lv->size)) {
		snprintf(why, len, "needs the size first (%s)", lv->size.reason);
		return -1;
	}
	if (!amp_param_conclusive(&lv->line) || lv->line.value <= 0) {
		snprintf(why, len, "needs the line first (%s)", lv->line.reason);
		return -1;
	}
	unit = (uint64_t)lv->line.value;
	*half = (uint64_t)lv->size.value / 2 / unit * unit;
	if (*half < unit) {
		snprintf(why, len, "a region of half the level holds no whole line");
		return -1;
	}
	*above = 0;
	for (const struct amp_level *a = lv->above; a; a = a->above) {
		if (!a->measurable || !amp_param_conclusive(&a->size)) {
			snprintf(why, len, "needs the size of %s above it first (%s)", a->name,
				 a->measurable ? a->size.reason : a->nc_reason);
			return -1;
		}
		*above += (uint64_t)a->size.value;
	}
	return 0;
}

uint64_t amp_evictor_step(const struct amp_level *lv)
{
	uint64_t wj = (uint64_t)lv->above->way.value;

	/* Odd multiples must also land on other lines of this level. */
	if (lv->line.known && (uint64_t)lv->line.value > wj)
		wj = (uint64_t)lv->line.value;
	return wj;
}

uint64_t amp_evictors_per_set(const struct amp_level *lv)
{
	uint64_t sets = (uint64_t)lv->way.value / (2 * amp_evictor_step(lv));

	return sets ? (amp_evictors_plain(lv) + sets - 1) / sets : UINT64_MAX;
}

int amp_evictors_usable(const struct amp_level *lv)
{
	const struct amp_level *up = lv->above;

	if (!up || !up->measurable || !up->line.known || !up->way.known)
		return 0;
	return up->thrash_ways > 0;
}

/* Counts lv's misses over p's sequence seq of n lines (-1: it could not
 * be built), flushed, primed twice then walked for enough accesses;
 * frees p.  The flush matters: lines an earlier walk left in a FIFO
 * level above keep their old order there and hit in a walk that
 * should miss (25 lines 64 KiB apart in a 24-way LRU L2 under a 20-way
 * FIFO L1d, after the same walk 32 KiB apart: 0.49 a line, not 1). */
static int count_cyclic_warmed(struct amp_ctx *c, const struct amp_level *lv, struct amp_plan *p, int seq,
			       uint64_t n, unsigned warm, double *rate, char *err, size_t len)
{
	unsigned walks = (unsigned)((MIN_MEASURED_ACCESSES + n - 1) / n);
	enum amp_op op = amp_level_op(lv);
	double misses;
	int rc;

	if (seq < 0) {
		snprintf(err, len, "out of memory for a walk of %llu lines", (unsigned long long)n);
		amp_plan_free(p);
		return -1;
	}
	amp_plan_add_pass(p, seq, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(p, seq, op, warm, 0);
	amp_plan_add_pass(p, seq, op, walks, 1);
	rc = amp_count(c, p, lv->ev, &misses, err, len);
	amp_plan_free(p);
	if (rc < 0)
		return -1;
	*rate = misses / (double)(n * walks);
	return 0;
}

/* Two walks warm the caches: enough where lines of walks before leave
 * an LRU or FIFO set within one (a random one: amp_offsets_rate_settled). */
static int count_cyclic(struct amp_ctx *c, const struct amp_level *lv, struct amp_plan *p, int seq,
			uint64_t n, double *rate, char *err, size_t len)
{
	return count_cyclic_warmed(c, lv, p, seq, n, 2, rate, err, len);
}

/* Counters, where evictors would overflow this level's other sets: the
 * test lines (their stride a multiple of the evictor step, so all in
 * one set above) and then m pushers, lines of that set above at odd
 * multiples of the step (other sets here, m / sets of them in each, no
 * more than its ways), so every test line leaves the level above before
 * its next turn (the walk overflows that set, whatever its policy) and
 * only this level can hold it.  Cheaper in room than evictors: m lines
 * for the whole walk, not the ways above for every few test lines. */
static int pushed_rate_walk(struct amp_ctx *c, const struct amp_level *lv, uint64_t base, uint64_t stride,
			    uint64_t n, uint64_t m, uint64_t far, double *rate, char *err, size_t len)
{
	uint64_t step = amp_evictor_step(lv), sets = (uint64_t)lv->way.value / (2 * step);
	uint64_t *off = malloc((n + m) * sizeof *off);
	struct amp_plan p;
	int seq = -1;

	amp_plan_init(&p, "cyclic", far * (2 + m / sets) + 64);
	p.huge = lv->kind == AMP_KIND_CACHE;
	if (off) {
		for (uint64_t i = 0; i < n; i++)
			off[i] = base + i * stride;
		for (uint64_t j = 0; j < m; j++)
			off[n + j] = far * (1 + j / sets) + base + (2 * (j % sets) + 1) * step;
		seq = amp_plan_add_seq(&p, off, (size_t)(n + m));
		free(off);
	}
	return count_cyclic(c, lv, &p, seq, n, rate, err, len);
}

static int cyclic_rate_walk(struct amp_ctx *c, const struct amp_level *lv, uint64_t base,
			    uint64_t stride, uint64_t n, int evict, uint64_t far_unit, double *rate,
			    char *err, size_t len)
{
	uint64_t far = far_unit * (n + 1); /* past every test line, a multiple of W */
	uint64_t *test;
	struct amp_plan p;
	int rc, seq = -1;

	if (evict && !amp_evictors_usable(lv))
		evict = 0;
	if (lv->method == AMP_METHOD_TIMING || !evict) {
		uint64_t *off = malloc(n * sizeof *off);

		if (!off) {
			snprintf(err, len, "out of memory for a walk of %llu lines", (unsigned long long)n);
			return -1;
		}
		for (uint64_t i = 0; i < n; i++)
			off[i] = base + i * stride;
		rc = amp_offsets_rate(c, lv, off, n, base + stride * (n - 1) + 64, rate, err, len);
		free(off);
		return rc;
	}
	/* Counters with evictors from here on. */
	if (lv->way.known && lv->thrash_ways > 0) {
		/* Evictors share this level's other sets; once its geometry is
		 * known, walks whose evictors would overflow them take
		 * pushers instead, or are refused. */
		uint64_t step = amp_evictor_step(lv), visits = amp_evictor_visits(lv);
		uint64_t groups = (n + visits - 1) / visits;
		uint64_t sets = (uint64_t)lv->way.value / (2 * step);

		/* The fullest set holds amp_evictors_per_set of each group
		 * (a 5-way L2 of a 4 KiB way under a 20-way L1d of a 128 B
		 * way: 2 of each of 3 groups, where an even spread fitted,
		 * and its sets overflowed). */
		if (sets == 0 || groups * amp_evictors_per_set(lv) > (uint64_t)lv->thrash_ways) {
			/* 2 x the ways above + 2 where they fit; at least
			 * enough that the walk overflows the set above. */
			uint64_t above = amp_evictors_plain(lv), m = 2 * above + 2;

			if (m > sets * (uint64_t)lv->thrash_ways)
				m = sets * (uint64_t)lv->thrash_ways;
			if (sets == 0 || stride % step || n + m <= above + 1) {
				snprintf(err, len, "%s: too few sets to hold the lines that evict %llu test lines from %s",
					 lv->name, (unsigned long long)n, lv->above->name);
				return -1;
			}
			return pushed_rate_walk(c, lv, base, stride, n, m, far, rate, err, len);
		}
	}
	amp_plan_init(&p, "cyclic", 2 * far + far * n + 64);
	p.huge = lv->kind == AMP_KIND_CACHE; /* lower caches are physically indexed */
	test = malloc(n * sizeof *test);
	if (test) {
		for (uint64_t i = 0; i < n; i++)
			test[i] = base + i * stride;
		seq = amp_plan_add_evicted(&p, lv, test, n, base, far);
		free(test);
	}
	return count_cyclic(c, lv, &p, seq, n, rate, err, len);
}

int amp_evictors_alone_rate(struct amp_ctx *c, const struct amp_level *lv, uint64_t base, uint64_t stride,
			    uint64_t n, uint64_t far_unit, double *rate, char *err, size_t len)
{
	uint64_t far = far_unit * (n + 1), e, k = 0, *test, *off;
	int rc;

	*rate = 0;
	/* Only the walks that take cyclic_rate_walk's plain evictors
	 * before the way is known (after it, their sets are checked
	 * there). */
	if (lv->method == AMP_METHOD_TIMING || !amp_evictors_usable(lv) || (lv->way.known && lv->thrash_ways > 0))
		return 0;
	test = malloc(n * sizeof *test);
	for (uint64_t i = 0; test && i < n; i++)
		test[i] = base + i * stride;
	off = test ? evicted_offsets(lv, test, n, base, far, 0, &e) : NULL;
	if (!off) {
		free(test);
		snprintf(err, len, "out of memory for a walk of %llu lines", (unsigned long long)n);
		return -1;
	}
	free(test);
	for (uint64_t i = 0; i < n * (1 + e); i++)
		if (i % (1 + e))
			off[k++] = off[i];
	rc = k ? amp_offsets_rate(c, lv, off, k, 2 * far + far * n + 64, rate, err, len) : 0;
	free(off);
	*rate = *rate * (double)k / (double)n;
	return rc;
}

int amp_offsets_rate(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off, uint64_t n,
		     uint64_t region, double *rate, char *err, size_t len)
{
	return amp_offsets_rate_flushed(c, lv, off, n, NULL, 0, region, NULL, rate, err, len);
}

int amp_offsets_rate_flushed(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off,
			     uint64_t n, const uint64_t *flush, uint64_t nflush, uint64_t region,
			     const struct amp_arena *a, double *rate, char *err, size_t len)
{
	return amp_offsets_rate_settled(c, lv, off, n, flush, nflush, region, a, 2, rate, err, len);
}

int amp_offsets_rate_settled(struct amp_ctx *c, const struct amp_level *lv, const uint64_t *off,
			     uint64_t n, const uint64_t *flush, uint64_t nflush, uint64_t region,
			     const struct amp_arena *a, unsigned warm, double *rate, char *err, size_t len)
{
	struct amp_plan p;
	int seq;

	if (lv->method == AMP_METHOD_TIMING)
		return amp_timing_rate(c, lv, off, n, region, rate, err, len);
	for (uint64_t i = 0; i < nflush; i++)
		if (flush[i] + 64 > region)
			region = flush[i] + 64;
	amp_plan_init(&p, "cyclic", region);
	p.huge = lv->kind == AMP_KIND_CACHE;
	p.arena = a;
	if (nflush) {
		int fseq = amp_plan_add_seq(&p, flush, (size_t)nflush);

		if (fseq < 0 || amp_plan_add_pass(&p, fseq, AMP_OP_FLUSH, 1, 0) < 0) {
			snprintf(err, len, "out of memory for a walk of %llu lines", (unsigned long long)n);
			amp_plan_free(&p);
			return -1;
		}
	}
	seq = amp_plan_add_seq(&p, off, (size_t)n);
	return count_cyclic_warmed(c, lv, &p, seq, n, warm, rate, err, len);
}

/* The walk, and its rate to the observers. */
static int cyclic_rate_walk(struct amp_ctx *c, const struct amp_level *lv, uint64_t base,
			    uint64_t stride, uint64_t n, int evict, uint64_t far_unit, double *rate,
			    char *err, size_t len);

int amp_cyclic_rate_ex(struct amp_ctx *c, const struct amp_level *lv, uint64_t base,
		       uint64_t stride, uint64_t n, int evict, uint64_t far_unit, double *rate,
		       char *err, size_t len)
{
	int rc = cyclic_rate_walk(c, lv, base, stride, n, evict, far_unit, rate, err, len);

	if (rc == 0)
		amp_trace_walk(lv, n, stride, evict, *rate);
	return rc;
}

void amp_trace_walk(const struct amp_level *lv, uint64_t n, uint64_t stride, int evict, double rate)
{
	struct amp_trace_ev e = { .kind = AMP_TR_WALK, .lv = lv, .lines = n, .stride = stride,
				  .evict = evict, .rate = rate, .method = amp_method_names[lv->method] };

	if (amp_tracing())
		amp_trace(&e);
}

int amp_cyclic_rate(struct amp_ctx *c, const struct amp_level *lv, uint64_t base,
		    uint64_t stride, uint64_t n, double *rate, char *err, size_t len)
{
	return amp_cyclic_rate_ex(c, lv, base, stride, n, 0, 0, rate, err, len);
}

int amp_thrashes(const struct amp_level *lv, double rate)
{
	if (lv->method != AMP_METHOD_TIMING)
		return rate >= THRASH_RATE;
	return rate >= (lv->side == AMP_SIDE_INSN ? THRASH_RATE_TIMING : THRASH_RATE_TIMING_DATA);
}

int amp_misses_some(const struct amp_level *lv, double rate)
{
	if (lv->method != AMP_METHOD_TIMING || lv->side == AMP_SIDE_INSN)
		return amp_thrashes(lv, rate);
	return rate >= MISS_RATE_TIMING_DATA;
}

/* The parameter a vote decides: lv's field that `out` is, or (a
 * module's own working copy) the module at work. */
static void vote_begin(const struct amp_level *lv, const struct amp_param *out, unsigned nv)
{
	struct amp_trace_ev e = { .kind = AMP_TR_VOTE_BEGIN, .lv = lv, .votes = nv,
				  .method = amp_method_names[lv->method] };

	amp_trace_set_param(NULL);
	for (int i = 0; i < AMP_NPARAMS; i++)
		if ((const char *)out == (const char *)lv + amp_param_fields[i].offset)
			amp_trace_set_param(amp_param_fields[i].name);
	amp_trace(&e);
}

static void vote_cast(const struct amp_level *lv, unsigned v, unsigned nv, int failed, int64_t value,
		      const char *why)
{
	struct amp_trace_ev e = { .kind = AMP_TR_VOTE, .lv = lv, .vote = v, .votes = nv,
				  .failed = failed, .value = value, .text = why };

	amp_trace(&e);
}

static int vote_decide(struct amp_ctx *c, struct amp_level *lv, struct amp_param *out, unsigned nv,
		       unsigned failed, const char *first_err);

/* Whether `agree` votes of `asked` may decide: more than a quarter of
 * them, and more than one where three or more were asked (at the test
 * matrices' 3 votes one search that ended among two that failed once
 * decided: an exclusive 32-way L3 under an exclusive 24-way L2 read 33
 * ways, three random levels' 12-way L3 14 or 15). */
static int votes_enough(unsigned agree, unsigned asked)
{
	return 4 * agree > asked && (agree > 1 || asked < 3);
}

/* Votes first..last-1 into out, after the failures it already counts
 * (out->failed, out->first_failure: none from amp_vote, the earlier
 * rounds' from amp_vote_more), then the decision over all of them.
 * Once the votes left up to `horizon` (the last vote a later round may
 * reach; at least `last`) could not make the votes that
 * vote_decide asks for, they are not taken: each failed search of L2's
 * ways costs seconds on a busy guest.  Counting to this round's last
 * alone left votes untaken that a later round would have wanted: 18 of
 * L2's 32 searches ran where all failed. */
static int vote_range(struct amp_ctx *c, struct amp_level *lv, amp_vote_fn fn, struct amp_param *out,
		      unsigned first, unsigned last, unsigned horizon)
{
	uint64_t before = c->accesses;
	char err[AMP_REASON_LEN], first_err[AMP_REASON_LEN];
	unsigned failed = out->failed;
	int rc;

	snprintf(first_err, sizeof first_err, "%s", out->first_failure);
	out->known = 0;
	out->inconclusive = 0;
	out->reason[0] = 0;

	if (amp_tracing())
		vote_begin(lv, out, last);
	for (unsigned v = first; v < last; v++) {
		int64_t value;

		if (!votes_enough((unsigned)out->nvotes + horizon - v, horizon))
			break;
		/* A failed measurement casts no vote (it says nothing about
		 * the value); only when every one fails is the value unknown. */
		if (fn(c, lv, v, &value, err, sizeof err) < 0) {
			if (!failed++)
				snprintf(first_err, sizeof first_err, "%s", err);
			if (amp_tracing())
				vote_cast(lv, v, last, 1, 0, err);
			continue;
		}
		if (amp_tracing())
			vote_cast(lv, v, last, 0, value, NULL);
		out->votes[out->nvotes++] = value;
	}
	rc = vote_decide(c, lv, out, last, failed, first_err);
	out->accesses += c->accesses - before;
	if (amp_tracing()) {
		struct amp_trace_ev e = { .kind = AMP_TR_DECIDED, .lv = lv, .result = out, .votes = last };

		amp_trace(&e);
		amp_trace_set_param(NULL);
	}
	return rc;
}

static unsigned votes_of(const struct amp_ctx *c)
{
	return c->votes > AMP_MAX_VOTES ? AMP_MAX_VOTES : c->votes;
}

/* The horizon asked for, within [last, AMP_MAX_VOTES]. */
static unsigned horizon_of(unsigned last, unsigned horizon)
{
	if (horizon > AMP_MAX_VOTES)
		horizon = AMP_MAX_VOTES;
	return horizon > last ? horizon : last;
}

int amp_vote_toward(struct amp_ctx *c, struct amp_level *lv, amp_vote_fn fn, struct amp_param *out,
		    unsigned horizon)
{
	unsigned nv = votes_of(c);

	memset(out, 0, sizeof *out);
	out->method = amp_method_names[lv->method];
	return vote_range(c, lv, fn, out, 0, nv, horizon_of(nv, horizon));
}

int amp_vote(struct amp_ctx *c, struct amp_level *lv, amp_vote_fn fn, struct amp_param *out)
{
	return amp_vote_toward(c, lv, fn, out, 0);
}

int amp_vote_more(struct amp_ctx *c, struct amp_level *lv, amp_vote_fn fn, struct amp_param *out,
		  unsigned horizon)
{
	unsigned nv = votes_of(c), last = 2 * nv > AMP_MAX_VOTES ? AMP_MAX_VOTES : 2 * nv;

	if (last <= nv || (unsigned)out->nvotes > nv)
		return out->known && !out->inconclusive ? 0 : out->known ? 1 : -1;
	return vote_range(c, lv, fn, out, nv, last, horizon_of(last, horizon));
}

/* The decision: the most common vote and its share of the votes cast.
 * Failed measurements cast none: an eviction-set search that loses its
 * set in a busy spell says nothing about the ways.  On this project's
 * Zen 4 and Zen 5 guests every L2 search that ended voted the true ways
 * (8, 16), yet half to most of them failed, and counted against the
 * answer they left it inconclusive in 2 runs of 3.  So that a few
 * lucky votes among many failures do not decide, the answer also needs
 * more than a quarter of the votes asked for (votes_enough). */
static int vote_decide(struct amp_ctx *c, struct amp_level *lv, struct amp_param *out, unsigned nv,
		       unsigned failed, const char *first_err)
{
	char not_taken[64] = "";
	unsigned skipped = nv - (unsigned)out->nvotes - failed; /* in this round or an earlier one */
	int best = -1, best_count = 0;

	out->failed = failed;
	snprintf(out->first_failure, sizeof out->first_failure, "%s", failed ? first_err : "");
	if (!out->nvotes) {
		amp_param_unknown(out, "%s", first_err);
		out->method = amp_method_names[lv->method];
		return -1;
	}
	/* The most common vote; ties go to the earliest. */
	for (int i = 0; i < out->nvotes; i++) {
		int count = 0;

		for (int j = 0; j < out->nvotes; j++)
			count += out->votes[j] == out->votes[i];
		if (count > best_count) {
			best = i;
			best_count = count;
		}
	}
	out->known = 1;
	out->value = out->votes[best];
	out->confidence = (double)best_count / out->nvotes;
	if (out->confidence < c->min_confidence) {
		out->inconclusive = 1;
		snprintf(out->reason, sizeof out->reason, "votes split: %d of %d cast agree%s%s", best_count,
			 out->nvotes, failed ? "; a failed measurement: " : "", failed ? first_err : "");
		return 1;
	}
	if (!votes_enough((unsigned)best_count, nv)) {
		out->inconclusive = 1;
		if (skipped)
			snprintf(not_taken, sizeof not_taken, ", %u not taken (they could not decide)", skipped);
		snprintf(out->reason, sizeof out->reason,
			 "too few votes: %d of %u measurements voted %lld, %u failed%s; the first: %s", best_count, nv,
			 (long long)out->value, failed, not_taken, first_err);
		return 1;
	}
	return 0;
}

/* The levels amp looks for, each named by the counter of its misses. */
static const struct level_desc {
	const char *name;
	enum amp_level_kind kind;
	enum amp_level_side side;
	int level;
	enum amp_event ev, alt;  /* alt: counter to use when ev is absent */
	int always_listed;       /* shown as N/C when it has no counter */
	const char *above;
} level_table[] = {
	{ "L1d", AMP_KIND_CACHE, AMP_SIDE_DATA, 1, AMP_EV_L1D_MISS, AMP_EV_L1D_MISS, 1, NULL },
	{ "L1i", AMP_KIND_CACHE, AMP_SIDE_INSN, 1, AMP_EV_L1I_MISS, AMP_EV_L1I_MISS, 1, NULL },
	{ "L2", AMP_KIND_CACHE, AMP_SIDE_DATA, 2, AMP_EV_L2D_MISS, AMP_EV_L2_MISS, 1, "L1d" },
	{ "L3", AMP_KIND_CACHE, AMP_SIDE_DATA, 3, AMP_EV_L3_MISS, AMP_EV_L3_MISS, 0, "L2" },
	{ "L4", AMP_KIND_CACHE, AMP_SIDE_DATA, 4, AMP_EV_L4_MISS, AMP_EV_L4_MISS, 0, "L3" },
	{ "DTLB", AMP_KIND_TLB, AMP_SIDE_DATA, 1, AMP_EV_DTLB_MISS, AMP_EV_DTLB_MISS, 1, NULL },
	{ "ITLB", AMP_KIND_TLB, AMP_SIDE_INSN, 1, AMP_EV_ITLB_MISS, AMP_EV_ITLB_MISS, 1, NULL },
	{ "STLB", AMP_KIND_TLB, AMP_SIDE_DATA, 2, AMP_EV_STLB_MISS, AMP_EV_STLB_MISS, 0, "DTLB" },
	{ "ITLB2", AMP_KIND_TLB, AMP_SIDE_INSN, 2, AMP_EV_ITLB_WALK, AMP_EV_ITLB_WALK, 0, "ITLB" },
};

int amp_level_name_valid(const char *name)
{
	for (size_t i = 0; i < sizeof level_table / sizeof level_table[0]; i++)
		if (strcasecmp(name, level_table[i].name) == 0)
			return 1;
	return 0;
}

static struct amp_level *find_level(struct amp_ctx *c, const char *name)
{
	for (int i = 0; i < c->nlv; i++)
		if (strcasecmp(c->lv[i].name, name) == 0)
			return &c->lv[i];
	return NULL;
}

static void select_levels(struct amp_ctx *c, const char *only)
{
	for (int i = 0; i < c->nlv; i++) {
		struct amp_level *lv = &c->lv[i];

		if (!only || strcasecmp(lv->name, only) == 0)
			for (struct amp_level *a = lv; a; a = a->above)
				a->selected = 1;
	}
}

int amp_levels_discover(struct amp_ctx *c, const char *only, char *err, size_t len)
{
	size_t nt = sizeof level_table / sizeof level_table[0];
	int known = 0;

	for (size_t i = 0; i < nt; i++)
		known |= only && strcasecmp(only, level_table[i].name) == 0;
	if (only && !known) {
		snprintf(err, len, "option '--level': unknown level '%s' (expected L1d, L1i, L2, L3, L4, DTLB, ITLB, STLB or ITLB2)",
			 only);
		return -1;
	}
	c->nlv = 0;
	for (size_t i = 0; i < nt; i++) {
		const struct level_desc *d = &level_table[i];
		struct amp_level *lv = &c->lv[c->nlv];
		char what[AMP_REASON_LEN], alt_what[AMP_REASON_LEN];
		int has = c->backend->event_info(c->host, d->ev, what, sizeof what);
		enum amp_event ev = d->ev;

		if (!has && d->alt != d->ev &&
		    c->backend->event_info(c->host, d->alt, alt_what, sizeof alt_what)) {
			has = 1;
			ev = d->alt;
		}
		/* Timing lists the cache levels the sweep found, and the TLBs. */
		if (c->method == AMP_METHOD_TIMING ? d->kind == AMP_KIND_CACHE && d->level > c->sweep_caches &&
							     !d->always_listed
						   : !has && !d->always_listed)
			continue;
		memset(lv, 0, sizeof *lv);
		snprintf(lv->name, sizeof lv->name, "%s", d->name);
		lv->kind = d->kind;
		lv->side = d->side;
		lv->level = d->level;
		lv->ev = ev;
		lv->measurable = has;
		if (!has)
			snprintf(lv->nc_reason, sizeof lv->nc_reason, "no %s counter (N/C): %s",
				 amp_event_table[d->ev].name, what);
		lv->above = d->above ? find_level(c, d->above) : NULL;
		c->nlv++;
	}
	select_levels(c, only);
	return 0;
}

int amp_levels_timing(struct amp_ctx *c, const char *only, const struct amp_sweep *sw, char *err,
		      size_t len)
{
	/* The last cluster is main memory only when the sweep reached it. */
	int ncache = sw->reached_memory ? sw->nclusters - 1 : sw->nclusters;

	c->sweep_caches = ncache;
	if (amp_levels_discover(c, only, err, len) < 0)
		return -1;
	for (int i = 0; i < c->nlv; i++) {
		struct amp_level *lv = &c->lv[i];
		int k = lv->level - 1; /* its cluster */

		lv->method = AMP_METHOD_TIMING;
		lv->measurable = 0;
		if (lv->side == AMP_SIDE_INSN) {
			/* The code sweep and the TLB sweep with jumps fill these
			 * (insn_timing.c). */
			snprintf(lv->nc_reason, sizeof lv->nc_reason,
				 "the instruction side is timed only when every level or an instruction level is asked for");
			continue;
		}
		if (lv->kind == AMP_KIND_TLB) {
			snprintf(lv->nc_reason, sizeof lv->nc_reason, "the TLB sweep runs only when every level or a TLB is asked for");
			continue;
		}
		if (k >= ncache) {
			snprintf(lv->nc_reason, sizeof lv->nc_reason, "the latency sweep shows %d cache level%s",
				 ncache, ncache == 1 ? "" : "s");
			continue;
		}
		if (k + 1 >= sw->nclusters) {
			snprintf(lv->nc_reason, sizeof lv->nc_reason,
				 "the latency sweep (up to %llu KiB) did not reach the level below it",
				 (unsigned long long)(sw->n ? sw->size[sw->n - 1] >> 10 : 0));
			continue;
		}
		lv->measurable = 1;
		lv->hit_ticks = sw->cl[k].ticks;
		lv->next_ticks = sw->cl[k + 1].ticks;
		amp_param_measured(&lv->effective_size, (int64_t)sw->size[sw->cl[k].fits], "timing");
		/* Modules that measure them by time fill them in. */
		amp_param_unknown(&lv->replacement, AMP_WHY_REPLACEMENT_TIMING);
		if (lv->level == 1)
			amp_param_unknown(&lv->inclusion, "nothing above it");
		else
			amp_param_unknown(&lv->inclusion, AMP_WHY_INCLUSION_TIMING);
	}
	/* Of the levels timing does not reach, only L1 (as N/C) and the
	 * level-1 TLBs and the STLB (the TLB sweeps may fill them) stay in
	 * the report. */
	for (int i = 0; i < c->nlv; i++)
		if (!c->lv[i].measurable)
			c->lv[i].selected = c->lv[i].selected &&
					    ((c->lv[i].kind == AMP_KIND_CACHE && c->lv[i].level == 1) ||
					     c->lv[i].kind == AMP_KIND_TLB);
	return 0;
}

int amp_measure_overhead(struct amp_ctx *c, char *err, size_t len)
{
	for (int i = 0; i < c->nlv; i++) {
		struct amp_level *lv = &c->lv[i];
		struct amp_run_result res;

		if (!lv->measurable || !lv->selected)
			continue;
		if (amp_event_overhead(c->backend, c->host, lv->ev, c->reps, &res, err, len) < 0)
			return -1;
		c->overhead[lv->ev] = (int64_t)res.min[0];
	}
	return 0;
}

static void mark_nc(struct amp_level *lv)
{
	for (int i = 0; i < AMP_NPARAMS; i++)
		amp_param_unknown(amp_level_param(lv, i), "%s", lv->nc_reason);
}

/* The frames of the set lines mod_evset.c kept (real machine), once
 * the modules that use them (replacement, write) are done. */
static void release_set_frames(struct amp_ctx *c)
{
	for (int i = 0; i < c->nlv; i++)
		amp_arena_close(&c->lv[i].set_arena);
}

static unsigned module_bit(const struct amp_module *mod)
{
	unsigned m = 0;

	while (amp_modules[m] && amp_modules[m] != mod)
		m++;
	return 1u << m;
}

/* mod's run on lv, its own wall time (less the modules it ran) a step. */
static int run_timed(struct amp_ctx *c, const struct amp_module *mod, struct amp_level *lv, char *why, size_t len)
{
	uint64_t t0 = amp_now_ns(), outer_nested = c->nested_ns, total;
	int rc;

	c->nested_ns = 0;
	rc = mod->run(c, lv, why, len);
	total = amp_now_ns() - t0;
	amp_step_add(c, lv->name, mod->name, total - c->nested_ns);
	c->nested_ns = outer_nested + total;
	return rc;
}

void amp_run_module(struct amp_ctx *c, const struct amp_module *mod, struct amp_level *lv)
{
	/* Run from inside another module's run: that one is announced
	 * again after it. */
	const struct amp_module *outer = amp_trace_module();
	const struct amp_level *outer_lv = amp_trace_level();
	char why[AMP_REASON_LEN];

	if (!lv->measurable || !lv->selected || (lv->modules_run & module_bit(mod)) ||
	    !(mod->kinds & (1u << lv->kind)) || (mod->applies && !mod->applies(c, lv)))
		return;
	lv->modules_run |= module_bit(mod);
	if (!mod->supported(c, lv, why, sizeof why)) {
		/* A refusal in words becomes each parameter's reason. */
		for (int k = 0; k < AMP_MODULE_MAX_FILLS && mod->fills[k]; k++)
			amp_param_unknown((struct amp_param *)((char *)lv + mod->fills[k]), "%s", why);
		return;
	}
	if (amp_tracing()) {
		struct amp_trace_ev e = { .kind = AMP_TR_MODULE, .module = mod, .lv = lv,
					  .method = amp_method_names[lv->method] };

		amp_trace_set_module(mod);
		amp_trace(&e);
	}
	/* A module that cannot run (memory bound, mmap or an executable
	 * mapping refused) leaves its parameters unknown with the reason;
	 * the others still run. */
	if (run_timed(c, mod, lv, why, sizeof why) < 0)
		for (int k = 0; k < AMP_MODULE_MAX_FILLS && mod->fills[k]; k++) {
			struct amp_param *pa = (struct amp_param *)((char *)lv + mod->fills[k]);

			if (!pa->known)
				amp_param_unknown(pa, "%s", why);
		}
	amp_trace_set_module(outer);
	if (outer && outer_lv && amp_tracing()) {
		struct amp_trace_ev e = { .kind = AMP_TR_MODULE, .module = outer, .lv = outer_lv,
					  .method = amp_method_names[outer_lv->method] };

		amp_trace(&e);
	}
}

void amp_step_add(struct amp_ctx *c, const char *level, const char *what, uint64_t ns)
{
	int i = 0;

	while (i < c->nsteps && !(strcmp(c->steps[i].level, level) == 0 && strcmp(c->steps[i].what, what) == 0))
		i++;
	if (i == c->nsteps) {
		if (c->nsteps == AMP_MAX_STEPS)
			return;
		c->steps[c->nsteps++] = (struct amp_step_time){ level, what, 0 };
	}
	c->steps[i].seconds += (double)ns / 1e9;
}

static int longer_step(const void *x, const void *y)
{
	double a = ((const struct amp_step_time *)x)->seconds, b = ((const struct amp_step_time *)y)->seconds;

	return a < b ? 1 : a > b ? -1 : 0;
}

void amp_steps_print(const struct amp_ctx *c, FILE *out, const char *prefix, double least)
{
	struct amp_step_time s[AMP_MAX_STEPS];
	double rest = 0;
	int n = c->nsteps, nrest = 0;

	memcpy(s, c->steps, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, longer_step);
	for (int i = 0; i < n; i++) {
		if (s[i].seconds >= least) {
			fprintf(out, "%s  %-5s %-18s %7.2f s\n", prefix, s[i].level, s[i].what, s[i].seconds);
		} else {
			rest += s[i].seconds;
			nrest++;
		}
	}
	if (nrest)
		fprintf(out, "%s  %d more under %.2f s: %.2f s in all\n", prefix, nrest, least, rest);
}

int amp_characterise_through(struct amp_ctx *c, const char *last, char *err, size_t len)
{
	for (int i = 0; i < c->nlv; i++)
		if (!c->lv[i].measurable)
			mark_nc(&c->lv[i]);
	for (int m = 0; amp_modules[m]; m++) {
		const struct amp_module *mod = amp_modules[m];

		for (int i = 0; i < c->nlv; i++)
			amp_run_module(c, mod, &c->lv[i]);
		if (last && strcmp(mod->name, last) == 0) {
			release_set_frames(c);
			return 0;
		}
	}
	release_set_frames(c);
	if (last) {
		snprintf(err, len, "no module named %s", last);
		return -1;
	}
	return 0;
}

int amp_characterise(struct amp_ctx *c, char *err, size_t len)
{
	return amp_characterise_through(c, NULL, err, len);
}

int amp_applies_with_counters(const struct amp_ctx *c, const struct amp_level *lv)
{
	return lv->method == AMP_METHOD_COUNTERS;
}
