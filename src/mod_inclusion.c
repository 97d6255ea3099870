/* mod_inclusion.c - how a cache level relates to the level above it on
 * the data side (inclusive, exclusive or neither: NINE), and the own
 * share of an exclusive level, which assoc saw together with the levels
 * above (X-Ray 4.4: C1+C2).
 *
 * The tests follow one line X per set over S sets at once (hundreds of
 * misses in all); every other line is new after a flush, so it misses
 * everywhere exactly once, whatever the policy, and drops out of a
 * difference of two plans.  "Lines of X's set here" are X plus odd
 * multiples of W (this level's way size): in X's set here and in every
 * level above whose W divides W, never in X's set of a level below.
 *
 *  - Exclusive: cyclic walks of T lines (T = ways as this level's counter
 *    sees them), each line pushed out of the level above after its
 *    access (amp_plan_add_evicted).  NINE or inclusive: the T lines fit
 *    here.  Exclusive: only T minus the ways above are its own: thrash.
 *    Needs W >= 2 W above (the pushers must miss X's set here).
 *  - Inclusive: X is kept above by touching it every g lines (g + 1 fit a
 *    set there) while lines of X's set here stream past; when this level
 *    evicts X an inclusive one takes it from above too, and the next
 *    touch misses above.  A control plan streams its lines one way size
 *    above further (same sets above, another set here), so back-
 *    invalidation is the only difference; its count also tells whether X
 *    was kept at all (not under FIFO above: then the bypass test runs).
 *  - Bypass: when W here is below 2 W above every data line of X's set
 *    here passes X's set above, so lines that skip it do the work: data
 *    lines when W above >= 2 W here, else instruction lines through L1i
 *    into a unified level.  X, bypass lines, X: its last touch misses
 *    above only under inclusion.  X, bypass lines, lines that push X out
 *    above, X: it hits here only under exclusion (it came down as a
 *    victim; NINE and inclusive ones lost it to the bypass lines).  X,
 *    pushers, instruction lines, X checks first that instruction lines
 *    reach this level at all.
 *
 * An exclusive level's own ways are T - T_up and its own size those ways
 * times its own W (assoc measured max(W, W above); when that equals W
 * above, own_way_vote looks for a smaller one); its effective size adds
 * the effective size of the level above.  Others: effective size = size.
 *
 * Limits: exclusion is only told with the level above's line size (the
 * simulator's victims of other sizes, and the line module, see the line
 * of the level above).  A split level whose way size is below twice the
 * one above: unknown.  Fewer than MIN_SETS sets below the smallest way
 * size involved (POWER3's 4-set L1d): each plan is counted again, after
 * its own flush, until MIN_SETS experiments stand behind a count.  Random replacement above
 * may leave the bypass tests unknown.  An inclusive level with fewer ways
 * than the one above also masks that one's assoc (back-invalidation). */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure.h"
#include "util.h"

extern const struct amp_module amp_module_replacement;

#define HUGE_STRIDE (1ULL << 30)  /* the evicted walk: one set of every level */
#define MAX_SETS 128              /* experiments per plan */
#define MIN_SETS 8
#define MAX_GROUPS (AMP_PLAN_MAX_SEQ - 1) /* line groups between touches of X */
#define CODE_SPAN (1ULL << 26)    /* jumps must reach (aarch64: +-128 MiB) */

enum method { M_NONE, M_EVICT, M_RETOUCH, M_BYPASS_DATA, M_BYPASS_CODE };

/* One pass over every experiment: X, or n new data or instruction lines
 * per experiment at X + shift + odd multiples of mult. */
enum phase_kind { PH_X, PH_DATA, PH_CODE };
struct phase {
	enum phase_kind kind;
	uint64_t n, shift, mult;
};

/* Where the experiments sit: X_j = base_j, j < s. */
struct layout {
	uint64_t unit;  /* the largest line involved */
	uint64_t nbase; /* bases below the smallest way size involved */
	uint64_t first; /* this vote's first base */
	uint64_t s;     /* experiments */
	uint64_t repeat; /* plans counted per measurement: MIN_SETS experiments at least */
};

/* How each question is asked of a level (see choose()). */
struct methods {
	enum method excl, incl;
	enum method bypass;         /* lines that bypass X's set above, if any */
	uint64_t shift;             /* data bypass lines: X's line offset moved this far */
	uint64_t g, r;              /* re-touch: lines between touches, groups */
	char why[AMP_REASON_LEN];   /* why a question cannot be asked */
};

static uint64_t w_of(const struct amp_level *lv)
{
	return (uint64_t)lv->way.value;
}

static int level_known(const struct amp_level *a)
{
	return a->measurable && a->line.known && a->way.known && !a->way.inconclusive &&
	       a->thrash_ways > 0 && amp_is_pow2(w_of(a));
}

/* Lines one set of the levels above lv holds at most: X, touched every
 * that many minus one misses, never leaves them all at once. */
static uint64_t ways_above(const struct amp_level *lv)
{
	uint64_t t = 0;

	for (const struct amp_level *a = lv->above; a; a = a->above)
		if ((uint64_t)a->thrash_ways > t)
			t = (uint64_t)a->thrash_ways;
	return t;
}

/* Instruction lines that overflow X's set here whatever L1i keeps,
 * twice over (random replacement here loses X too, only later). */
static uint64_t code_lines(const struct amp_ctx *c, const struct amp_level *lv)
{
	const struct amp_level *l1i = amp_find_l1i(c);
	uint64_t ti = l1i && l1i->thrash_ways > 0 ? (uint64_t)l1i->thrash_ways
						   : (uint64_t)lv->thrash_ways;

	return 2 * (uint64_t)lv->thrash_ways + ti;
}

static int code_usable(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len)
{
	const struct amp_level *up = lv->above;

	if (up->level != 1 || up->side != AMP_SIDE_DATA) {
		snprintf(why, len, "instruction lines pass %s too", up->name);
		return 0;
	}
	if ((2 * code_lines(c, lv) + 1) * w_of(lv) > CODE_SPAN) {
		snprintf(why, len, "its way size is too large for jumps between instruction lines");
		return 0;
	}
	return 1;
}

/* The re-touch test: X touched every g lines (g + 1 fit a set above),
 * r groups of them overflow X's set here, twice where the plan allows
 * (random replacement here evicts X too, only later). */
static int retouch_shape(const struct amp_level *lv, struct methods *m, char *why, size_t len)
{
	const struct amp_level *up = lv->above;
	uint64_t tl = (uint64_t)lv->thrash_ways, ta = ways_above(lv);

	if (w_of(lv) % (2 * w_of(up))) {
		snprintf(why, len, "its way size is below twice %s's", up->name);
		return -1;
	}
	if (ta < 2) {
		snprintf(why, len, "the levels above hold one line per set: none keeps a line while others pass");
		return -1;
	}
	/* It may lose X to any miss: test and control then differ by chance. */
	if (amp_replaces_at_random(up)) {
		snprintf(why, len, "%s above replaces at random: no line stays there for sure while others pass", up->name);
		return -1;
	}
	m->g = ta - 1;
	if ((tl + m->g) / m->g > MAX_GROUPS) {
		snprintf(why, len, "%llu ways here need more than %d touches of a line kept above",
			 (unsigned long long)tl, MAX_GROUPS);
		return -1;
	}
	m->r = (2 * tl + m->g - 1) / m->g;
	if (m->r > MAX_GROUPS)
		m->r = MAX_GROUPS;
	return 0;
}

uint64_t amp_offset_bypass(const struct amp_level *lv)
{
	uint64_t half = (uint64_t)lv->line.value / 2;

	if (!lv->line.known)
		return 0;
	for (const struct amp_level *a = lv->above; a; a = a->above)
		if (!a->line.known || (uint64_t)a->line.value > half || !a->way.known || w_of(a) < 2 * half)
			return 0;
	return half;
}

static void choose(const struct amp_ctx *c, const struct amp_level *lv, struct methods *m)
{
	uint64_t wl = w_of(lv), wu = w_of(lv->above);
	char why_r[AMP_REASON_LEN], why_c[AMP_REASON_LEN] = "";
	int code = code_usable(c, lv, why_c, sizeof why_c);

	memset(m, 0, sizeof *m);
	if (wu % (2 * wl) == 0)
		m->bypass = M_BYPASS_DATA;
	else if ((m->shift = amp_offset_bypass(lv)))
		m->bypass = M_BYPASS_DATA;
	else if (code)
		m->bypass = M_BYPASS_CODE;
	m->excl = wl % (2 * wu) == 0 && amp_evictors_usable(lv) ? M_EVICT : m->bypass;
	m->incl = retouch_shape(lv, m, why_r, sizeof why_r) == 0 ? M_RETOUCH : m->bypass;
	if (m->incl == M_NONE)
		snprintf(m->why, sizeof m->why, "%s, no data line bypasses %s's set and %s",
			 why_r, lv->above->name, why_c);
	if (m->excl == M_NONE)
		snprintf(m->why, sizeof m->why,
			 "the way size (%llu) is below twice %s's (%llu) and no line bypasses its set (%s)",
			 (unsigned long long)wl, lv->above->name, (unsigned long long)wu, why_c);
}

/* Bases stay below every way size involved, so each experiment has its
 * own set in every level and the lines of one never meet another's. */
static void layout_init(struct layout *l, const struct amp_level *lv, unsigned v)
{
	uint64_t wmin = w_of(lv);

	l->unit = (uint64_t)lv->line.value;
	for (const struct amp_level *a = lv->above; a; a = a->above) {
		if (a->line.known && (uint64_t)a->line.value > l->unit)
			l->unit = (uint64_t)a->line.value;
		if (a->way.known && w_of(a) < wmin)
			wmin = w_of(a);
	}
	/* A way above shorter than a line here (a fully associative level
	 * above, or a long line here): one experiment at a time. */
	l->nbase = wmin >= l->unit ? wmin / l->unit : 1;
	l->s = l->nbase < MAX_SETS ? l->nbase : MAX_SETS;
	l->first = (uint64_t)v * l->s % l->nbase;
	/* Few sets: the same experiments again, after a flush of their own. */
	l->repeat = l->s < MIN_SETS ? (MIN_SETS + l->s - 1) / l->s : 1;
}

/* Experiments behind one measurement. */
static double experiments(const struct layout *l)
{
	return (double)(l->s * l->repeat);
}

static uint64_t base_of(const struct layout *l, uint64_t j)
{
	return (l->first + j) % l->nbase * l->unit;
}

/* Phase f's offsets over every experiment into off (its data lines
 * from slot on); returns how many. */
static uint64_t phase_offsets(const struct layout *l, const struct phase *f, uint64_t slot, uint64_t *off)
{
	uint64_t k = 0;

	for (uint64_t j = 0; j < l->s; j++) {
		uint64_t b = base_of(l, j);

		if (f->kind == PH_X)
			off[k++] = b;
		else
			for (uint64_t m = 0; m < f->n; m++)
				off[k++] = b + f->shift + (2 * (slot + m) + 1) * f->mult;
	}
	return k;
}

/* The same phases as one touched walk (data only): no chain, so X comes
 * back as often as the phases want, beyond the sequences a plan holds
 * (the re-touch through L1 touches X every one or two lines). */
static int build_walk(struct amp_plan *p, const struct layout *l, const struct phase *ph, int nph, int last)
{
	uint64_t slot = 0, top = 0, n = 0, k = 0, *off;
	int seq;

	amp_plan_init(p, "inclusion, one walk", 1);
	p->huge = 1;
	for (int i = 0; i < nph; i++)
		n += l->s * (ph[i].kind == PH_X ? 1 : ph[i].n);
	if (!(off = malloc(n * sizeof *off)))
		return -1;
	for (int i = 0; i < nph && (last || i < nph - 1); i++) {
		k += phase_offsets(l, &ph[i], slot, off + k);
		if (ph[i].kind == PH_DATA)
			slot += ph[i].n;
	}
	for (uint64_t m = 0; m < k; m++)
		top = off[m] > top ? off[m] : top;
	seq = amp_plan_add_seq(p, off, k);
	free(off);
	if (seq < 0 || amp_plan_add_pass(p, AMP_PLAN_WHOLE_REGION, AMP_OP_FLUSH, 1, 0) < 0 ||
	    amp_plan_add_pass(p, seq, AMP_OP_TOUCH, 1, 1) < 0)
		return -1;
	p->region = top + l->unit;
	return 0;
}

/* Plan: flush, then the phases, all measured (the last one left out
 * unless `last`).  Every data line is new (slot), so it misses once
 * everywhere; X is one sequence walked by every X phase. */
static int build(struct amp_plan *p, const struct layout *l, const struct phase *ph, int nph,
		 int last)
{
	uint64_t slot = 0, top = 0;
	int xseq = -1;

	amp_plan_init(p, "inclusion", 1);
	p->huge = 1; /* lower caches are physically indexed */
	if (amp_plan_add_pass(p, AMP_PLAN_WHOLE_REGION, AMP_OP_FLUSH, 1, 0) < 0)
		return -1;
	for (int i = 0; i < nph && (last || i < nph - 1); i++) {
		const struct phase *f = &ph[i];
		uint64_t per = f->kind == PH_X ? 1 : f->n, k = 0, *off;
		/* Instruction lines have their own address space. */
		uint64_t s0 = f->kind == PH_CODE ? 0 : slot;
		enum amp_op op = f->kind == PH_CODE ? AMP_OP_IFETCH : AMP_OP_LOAD;
		int seq;

		if (f->kind == PH_X && xseq >= 0) {
			if (amp_plan_add_pass(p, xseq, AMP_OP_LOAD, 1, 1) < 0)
				return -1;
			continue;
		}
		off = malloc(l->s * per * sizeof *off);
		if (!off)
			return -1;
		k = phase_offsets(l, f, s0, off);
		for (uint64_t m = 0; m < k; m++)
			if (off[m] > top)
				top = off[m];
		seq = amp_plan_add_seq(p, off, k);
		free(off);
		if (seq < 0 || amp_plan_add_pass(p, seq, op, 1, 1) < 0)
			return -1;
		if (f->kind == PH_X)
			xseq = seq;
		else if (f->kind == PH_DATA)
			slot += f->n;
	}
	p->region = top + l->unit;
	return 0;
}

static int measure(struct amp_ctx *c, const struct layout *l, const struct phase *ph, int nph,
		   int last, int walk, enum amp_event ev, double *misses, char *err, size_t len)
{
	struct amp_plan p;
	int rc = 0;

	if ((walk ? build_walk(&p, l, ph, nph, last) : build(&p, l, ph, nph, last)) < 0) {
		amp_plan_free(&p);
		snprintf(err, len, "out of memory for an inclusion plan");
		return -1;
	}
	*misses = 0;
	for (uint64_t r = 0; r < l->repeat; r++) {
		double once;

		rc = amp_count(c, &p, ev, &once, err, len);
		if (rc < 0)
			break;
		*misses += once;
	}
	amp_plan_free(&p);
	return rc;
}

/* Misses of ev per experiment that the last phase (a touch of X) adds. */
static int last_touch(struct amp_ctx *c, const struct layout *l, const struct phase *ph, int nph,
		      enum amp_event ev, double *per, char *err, size_t len)
{
	double with, without;

	if (measure(c, l, ph, nph, 1, 0, ev, &with, err, len) < 0 ||
	    measure(c, l, ph, nph, 0, 0, ev, &without, err, len) < 0)
		return -1;
	*per = (with - without) / experiments(l);
	return 0;
}

/* The phases of the bypass tests: X, then lines that overflow X's set
 * here without passing X's set above. */
static void bypass_lines(const struct amp_ctx *c, const struct amp_level *lv, int code, uint64_t shift,
			struct phase *f)
{
	f->shift = code ? 0 : shift;
	f->mult = w_of(lv);
	if (code) {
		f->kind = PH_CODE;
		f->n = code_lines(c, lv);
	} else {
		f->kind = PH_DATA;
		f->n = 2 * (uint64_t)lv->thrash_ways + (uint64_t)lv->above->thrash_ways;
	}
}

/* Lines that push X out of the level above (its set there and here):
 * twice its ways (random replacement), but fewer than T here, so that
 * under exclusion the victims after X leave it in this level's own ways. */
static struct phase pushers(const struct amp_level *lv)
{
	uint64_t wl = w_of(lv), wu = w_of(lv->above), tu = (uint64_t)lv->above->thrash_ways;
	uint64_t n = 2 * tu < (uint64_t)lv->thrash_ways ? 2 * tu : (uint64_t)lv->thrash_ways - 1;
	struct phase f = { PH_DATA, n > tu ? n : tu, 0, wl > wu ? wl : wu };

	return f;
}

/* Whether instruction lines reach this level: X pushed down from L1d,
 * then instruction lines through X's set here; X misses here only if
 * they took its place. */
static int code_reaches(struct amp_ctx *c, struct amp_level *lv, const struct layout *l,
			char *err, size_t len)
{
	struct phase ph[4] = { { PH_X, 0, 0, 0 } };
	uint64_t wl = w_of(lv), wu = w_of(lv->above), fresh = amp_evictors_fresh(lv);
	double d;

	ph[1] = pushers(lv);
	/* Under a random L1d its pushers (fewer than the ways here) leave X
	 * there now and then (13% with 11 of them in a 6-way one): fresh
	 * lines of its set out of X's set here push it out for sure. */
	if (fresh && fresh != UINT64_MAX && wl % (2 * wu) == 0)
		ph[1] = (struct phase){ PH_DATA, fresh, wu, wl };
	bypass_lines(c, lv, 1, 0, &ph[2]);
	ph[3] = ph[0];
	if (last_touch(c, l, ph, 4, lv->ev, &d, err, len) < 0)
		return -1;
	if (d < 0.5) {
		snprintf(err, len, "instruction lines did not take a data line's place in %s (a split level, or random replacement in %s?), and its way size leaves no data-only test",
			 lv->name, lv->above->name);
		return -1;
	}
	return 0;
}

/* Exclusive: T lines, each pushed out of the level above, thrash.
 * Under a level above that replaces at random T may read a line or two
 * over this level's ways (walks without evictors hit there now and
 * then): then T less half the ways above must thrash too, as they do
 * where T holds all of the ways above (a NINE 12-way L3 under a random
 * 10-way L2 read 13 and exclusive, 3 ways of its own, in 3 of 6 runs). */
static int excl_evict(struct amp_ctx *c, struct amp_level *lv, unsigned v, int *yes,
		      char *err, size_t len)
{
	uint64_t base = (uint64_t)lv->line.value * (v % 64), t = (uint64_t)lv->thrash_ways;
	uint64_t half_up = amp_param_conclusive(&lv->above->assoc) ? (uint64_t)lv->above->assoc.value / 2 : 0;
	double rate;

	if (amp_evictors_fresh(lv) && half_up && t > half_up + 1) /* some level above is random */
		t -= half_up;
	if (amp_cyclic_rate_ex(c, lv, base, HUGE_STRIDE, t, 1, HUGE_STRIDE, &rate, err, len) < 0)
		return -1;
	*yes = amp_thrashes(lv, rate);
	return 0;
}

/* Exclusive: X, lines past X's set here, X pushed out above, X again:
 * it hits here only if it came down as a victim. */
static int excl_bypass(struct amp_ctx *c, struct amp_level *lv, const struct layout *l, int code,
		       uint64_t shift, int *yes, char *err, size_t len)
{
	struct phase ph[4] = { { PH_X, 0, 0, 0 } };
	double d;

	if (code && code_reaches(c, lv, l, err, len) < 0)
		return -1;
	bypass_lines(c, lv, code, shift, &ph[1]);
	ph[2] = pushers(lv);
	ph[3] = ph[0];
	if (last_touch(c, l, ph, 4, lv->ev, &d, err, len) < 0)
		return -1;
	*yes = d < 0.5;
	return 0;
}

/* Inclusive: X, lines past X's set here, X again: it misses above only
 * if this level took it from there. */
static int incl_bypass(struct amp_ctx *c, struct amp_level *lv, const struct layout *l, int code,
		       uint64_t shift, int checked, int *yes, char *err, size_t len)
{
	struct phase ph[3] = { { PH_X, 0, 0, 0 } };
	double d;

	bypass_lines(c, lv, code, shift, &ph[1]);
	ph[2] = ph[0];
	if (last_touch(c, l, ph, 3, lv->above->ev, &d, err, len) < 0)
		return -1;
	*yes = d >= 0.5;
	/* "Not inclusive" means something only if the lines got here. */
	if (!*yes && code && !checked && code_reaches(c, lv, l, err, len) < 0)
		return -1;
	return 0;
}

/* Inclusive: X kept above while lines of its set here stream past,
 * against a control whose lines sit one way size above further (same
 * sets above, another set here).  *yes is -1 when the control shows X
 * was not kept (FIFO or random replacement above): then only a miss
 * more in the test says something. */
/* The re-touch test's phases: X, then r times g lines of X's set here
 * (and pushers, where given) and X again (ph holds 2 r + 1, 3 r + 1
 * with pushers); with X kept (L1's misses through L1, the level
 * above's otherwise) test against control, whose lines lie one way of
 * the level above further (the same sets above, another here).  Cold:
 * X once, every line once; a kept X adds nothing.  *yes 1, 0, or -1
 * where the control shows X was not kept. */
static int retouch_verdict(struct amp_ctx *c, const struct amp_level *lv, const struct layout *l,
			   struct phase *ph, uint64_t r, uint64_t g, const struct phase *push, int walk,
			   enum amp_event ev, int *yes, char *err, size_t len)
{
	double cold = experiments(l) * (1 + (double)(r * (g + (push ? push->n : 0)))), test, control;
	int n = 0;

	ph[n++] = (struct phase){ PH_X, 0, 0, 0 };
	for (uint64_t k = 0; k < r; k++) {
		ph[n++] = (struct phase){ PH_DATA, g, 0, w_of(lv) };
		if (push)
			ph[n++] = *push;
		ph[n++] = ph[0];
	}
	if (measure(c, l, ph, n, 1, walk, ev, &test, err, len) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (ph[i].kind == PH_DATA)
			ph[i].shift = w_of(lv->above);
	if (measure(c, l, ph, n, 1, walk, ev, &control, err, len) < 0)
		return -1;
	if ((test - control) / experiments(l) >= 0.5)
		*yes = 1;
	else
		*yes = (control - cold) / experiments(l) < 0.25 ? 0 : -1;
	return 0;
}

/* Fresh lines that push X out of a random L1 above the level above
 * before each touch, so that every touch reaches that level and keeps X
 * there (under a random L1 X stayed in it through a group with some
 * chance, and the level above, never touched, let it go): odd multiples
 * of L1's way from X (its set there; another set in the level above,
 * whose way is at least twice L1's, and here).  0 where none are
 * needed or none can do. */
static uint64_t l1_pushers(const struct amp_level *lv)
{
	const struct amp_level *up = lv->above, *top = amp_level_top(lv);
	uint64_t e;

	if (up == top || !amp_replaces_at_random(top) || !level_known(top) || w_of(up) % (2 * w_of(top)))
		return 0;
	e = amp_evictors_fresh(up);
	return e == UINT64_MAX ? 0 : e;
}

static int incl_retouch(struct amp_ctx *c, struct amp_level *lv, const struct layout *l,
			const struct methods *m, int *yes, char *err, size_t len)
{
	uint64_t e = l1_pushers(lv);
	struct phase push = { PH_DATA, e, 0, e ? w_of(amp_level_top(lv)) : 0 }, *ph;
	int rc;

	/* With pushers, one walk: more groups than a plan has sequences. */
	if (!(ph = malloc((3 * m->r + 1) * sizeof *ph))) {
		snprintf(err, len, "out of memory for an inclusion plan");
		return -1;
	}
	rc = retouch_verdict(c, lv, l, ph, m->r, m->g, e ? &push : NULL, e != 0, lv->above->ev, yes, err, len);
	free(ph);
	return rc;
}

/* Whether L1 can keep X for a level below L2 whose level above cannot
 * (FIFO or random there): L1 LRU (or two-way tree PLRU) with two ways
 * or more, and no level between inclusive (it would take X from L1 when
 * it drops it itself). */
static int l1_keeps(const struct amp_level *lv)
{
	const struct amp_level *top = amp_level_top(lv);

	if (!lv->above || !lv->above->above || top->thrash_ways < 2 || !amp_param_conclusive(&top->replacement) ||
	    !(top->replacement.value == AMP_POLICY_LRU ||
	      (top->replacement.value == AMP_POLICY_PLRU && top->thrash_ways == 2)) ||
	    w_of(lv) % (2 * w_of(lv->above)))
		return 0;
	for (const struct amp_level *a = lv->above; a != top; a = a->above)
		if (!amp_param_conclusive(&a->inclusion) || a->inclusion.value == AMP_INCL_INCLUSIVE)
			return 0;
	return 1;
}

/* Inclusive, through L1 (l1_keeps): X touched every L1 ways - 1 lines of
 * its set here, twice this level's ways of them, in one walk; L1's
 * misses against the control's (its lines one way of the level above
 * further: the same sets above, another here).  *yes as incl_retouch. */
static int incl_retouch_l1(struct amp_ctx *c, struct amp_level *lv, const struct layout *l, int *yes,
			   char *err, size_t len)
{
	const struct amp_level *top = amp_level_top(lv);
	uint64_t g = (uint64_t)top->thrash_ways - 1, r = (2 * (uint64_t)lv->thrash_ways + g - 1) / g;
	struct phase *ph = malloc((2 * r + 1) * sizeof *ph);
	int rc;

	if (!ph) {
		snprintf(err, len, "out of memory for an inclusion plan");
		return -1;
	}
	rc = retouch_verdict(c, lv, l, ph, r, g, NULL, 1, top->ev, yes, err, len);
	free(ph);
	return rc;
}

/* Whether the stale test (incl_stale) can run: the level above replaces
 * first in, first out with two ways or more, its way at most half this
 * level's (its pushers miss X's set here), and no level above is random
 * or has a larger way (the pushers take X out of each). */
static int stale_usable(const struct amp_level *lv)
{
	const struct amp_level *up = lv->above;

	if (!amp_param_conclusive(&up->replacement) || up->replacement.value != AMP_POLICY_FIFO ||
	    up->thrash_ways < 2 || w_of(lv) % (2 * w_of(up)))
		return 0;
	for (const struct amp_level *a = up; a; a = a->above)
		if (amp_replaces_at_random(a) || !a->way.known || w_of(a) > w_of(up))
			return 0;
	return 1;
}

/* Inclusive, under a FIFO level above (touches keep nothing there): X
 * made an old line here but a new one above.  X, a way fewer than the
 * ways here of its set here (the set fills), pushers of X's sets above
 * out of its set here (X leaves every level above), X again (a hit
 * here, a new line above), then a way fewer than the ways above of its
 * set here: X stays above, and a FIFO level here evicts it first, a
 * random one now and then, an LRU one never.  The test's last touch of
 * X misses above only where an inclusive level took it from there; the
 * control pushes X out above again and reloads it, which tells how
 * often X left this level at all.  *yes as retouch_verdict. */
static int incl_stale(struct amp_ctx *c, struct amp_level *lv, const struct layout *l, int *yes, char *err,
		      size_t len)
{
	const struct amp_level *up = lv->above;
	uint64_t wl = w_of(lv), wu = w_of(up), ta = ways_above(lv);
	struct phase ph[7] = {
		{ PH_X, 0, 0, 0 },
		{ PH_DATA, (uint64_t)lv->thrash_ways - 1, 0, wl },
		{ PH_DATA, ta, 0, wu },
		{ PH_X, 0, 0, 0 },
		{ PH_DATA, (uint64_t)up->thrash_ways - 1, 0, wl },
		{ PH_X, 0, 0, 0 },
		{ PH_X, 0, 0, 0 },
	};
	double test, left;

	if (last_touch(c, l, ph, 6, up->ev, &test, err, len) < 0)
		return -1;
	ph[5] = ph[2];
	if (last_touch(c, l, ph, 7, lv->ev, &left, err, len) < 0)
		return -1;
	*yes = left < 0.25 ? -1 : test >= left / 2;
	return 0;
}

/* Votes of this level so far whose exclusion test said no. */
static _Thread_local unsigned exclusion_ruled_out;

static int incl_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
		     char *err, size_t len)
{
	struct methods m;
	struct layout l;
	int yes = 0, stale = 0;

	choose(c, lv, &m);
	layout_init(&l, lv, v);
	if (m.excl == M_EVICT) {
		if (excl_evict(c, lv, v, &yes, err, len) < 0)
			return -1;
	} else if (excl_bypass(c, lv, &l, m.excl == M_BYPASS_CODE, m.shift, &yes, err, len) < 0) {
		return -1;
	}
	if (yes) {
		*value = AMP_INCL_EXCLUSIVE;
		return 0;
	}
	exclusion_ruled_out++;
	if (m.incl == M_RETOUCH && incl_retouch(c, lv, &l, &m, &yes, err, len) < 0)
		return -1;
	if (m.incl == M_NONE || (m.incl == M_RETOUCH && yes < 0 && m.bypass == M_NONE)) {
		/* The level above cannot keep X: L1 may. */
		if (l1_keeps(lv)) {
			if (incl_retouch_l1(c, lv, &l, &yes, err, len) < 0)
				return -1;
			if (yes >= 0) {
				*value = yes ? AMP_INCL_INCLUSIVE : AMP_INCL_NINE;
				return 0;
			}
		}
		/* Or FIFO there makes X new above but old here. */
		stale = stale_usable(lv);
		if (stale) {
			if (incl_stale(c, lv, &l, &yes, err, len) < 0)
				return -1;
			if (yes >= 0) {
				*value = yes ? AMP_INCL_INCLUSIVE : AMP_INCL_NINE;
				return 0;
			}
		}
		if (m.incl == M_NONE)
			snprintf(err, len, "not exclusive, but cannot tell inclusive from NINE: %s%s", m.why,
				 stale ? "; a line new above but old here stayed here through the ways above (LRU or tree PLRU here?)" : "");
		else
			snprintf(err, len, "not exclusive; %s did not keep a line touched every %llu misses there (FIFO or random replacement?), and no line bypasses its set%s",
				 lv->above->name, (unsigned long long)m.g,
				 stale ? "; a line new above but old here stayed here through the ways above (LRU or tree PLRU here?)" : "");
		return -1;
	}
	if (m.incl != M_RETOUCH || yes < 0) {
		if (incl_bypass(c, lv, &l, m.bypass == M_BYPASS_CODE, m.shift, m.excl == M_BYPASS_CODE, &yes,
				err, len) < 0)
			return -1;
	}
	*value = yes ? AMP_INCL_INCLUSIVE : AMP_INCL_NINE;
	return 0;
}

static int incl_supported(const struct amp_ctx *c, const struct amp_level *lv, char *why,
			  size_t len)
{
	const struct amp_level *up = lv->above;
	struct methods m;

	if (lv->level == 1)
		return 1; /* nothing above it: run says so, and sets its effective size */
	/* Decided on its eviction sets (mod_evset.c), whose way size may
	 * have failed after: run sizes it.  (Refused here, an exclusive L2
	 * under a random 3-way L1d lost its "exclusive", and the write
	 * module then read "allocate", undecidable for it.) */
	if (amp_strides_mislead(c, lv) && lv->inclusion.known)
		return 1;
	if (amp_param_conclusive(&lv->way) && !amp_is_pow2(w_of(lv))) {
		snprintf(why, len, "its %lld sets are no power of two, and these tests place lines by power-of-two strides",
			 (long long)(w_of(lv) / (uint64_t)lv->line.value));
		return 0;
	}
	if (!lv->assoc.known || lv->assoc.inconclusive || !level_known(lv)) {
		snprintf(why, len, "needs the associativity and way size first");
		return 0;
	}
	if (!up) {
		snprintf(why, len, "no level above it on the data side");
		return 0;
	}
	if (amp_strides_mislead(c, lv))
		return 1; /* decided on its eviction sets (mod_evset.c); run sizes it */
	if (!level_known(up)) {
		snprintf(why, len, "needs the ways and way size of %s first", up->name);
		return 0;
	}
	if (lv->fully_associative) {
		snprintf(why, len, "fully associative: no sets to repeat the test over");
		return 0;
	}
	choose(c, lv, &m);
	if (m.excl == M_NONE) {
		snprintf(why, len, "cannot tell exclusion: %s", m.why);
		return 0;
	}
	return 1;
}

static void effective_is_size(struct amp_level *lv)
{
	if (lv->size.known && !lv->size.inconclusive)
		amp_param_derived(&lv->effective_size, lv->size.value, &lv->size);
	else
		amp_param_unknown(&lv->effective_size, "needs the size first");
}

/* An exclusive level seen with the level above through one stride W
 * that is also the way size above may have a smaller way of its own.
 * Lines s < W apart fill W_up/s sets above and max(1, W_own/s) here:
 * (W_up/s) T_up + own + 1 of them thrash iff W_own <= s, so W_own is
 * twice the largest s at which they fit. */
static int own_way_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
			char *err, size_t len)
{
	const struct amp_level *up = lv->above;
	uint64_t unit = (uint64_t)lv->line.value, wu = w_of(up), tu = (uint64_t)up->thrash_ways;
	uint64_t own = (uint64_t)(lv->thrash_ways - up->thrash_ways), s;
	uint64_t base = unit * (v % 64);
	double rate;

	if ((uint64_t)up->line.value > unit)
		unit = (uint64_t)up->line.value;
	for (s = w_of(lv) / 2; s >= unit; s /= 2) {
		if (amp_cyclic_rate(c, lv, base, s, wu / s * tu + own + 1, &rate, err, len) < 0)
			return -1;
		if (!amp_thrashes(lv, rate))
			break;
	}
	*value = (int64_t)(2 * s);
	return 0;
}

/* An exclusive level's counter saw it together with the levels above:
 * its own ways are what the level above does not account for. */
static void own_share(struct amp_ctx *c, struct amp_level *lv)
{
	const struct amp_level *up = lv->above;
	int64_t tu = up->thrash_ways, own = lv->thrash_ways - tu, w = lv->way.value, above;
	char why[AMP_REASON_LEN] = "";

	if (own < 1)
		snprintf(why, sizeof why, "exclusive, but its counter saw no more ways than %s's: its own share is unknown",
			 up->name);
	else if (w % up->way.value)
		snprintf(why, sizeof why, "exclusive, seen together with %s, whose way size does not divide this level's: its own share is unknown",
			 up->name);
	if (why[0]) {
		amp_param_unknown(&lv->assoc, "%s", why);
		amp_param_unknown(&lv->size, "%s", why);
		amp_param_unknown(&lv->effective_size, "%s", why);
		return;
	}
	lv->assoc.value = own;
	for (int i = 0; i < lv->assoc.nvotes; i++)
		if (lv->assoc.votes[i] > tu)
			lv->assoc.votes[i] -= tu;
	if (w == up->way.value) {
		struct amp_param way;

		amp_vote(c, lv, own_way_vote, &way);
		if (!way.known || way.inconclusive) {
			snprintf(why, sizeof why, "exclusive: its own way size is unknown (%s)", way.reason);
			amp_param_unknown(&lv->size, "%s", why);
			amp_param_unknown(&lv->effective_size, "%s", why);
			lv->way = way;
			return;
		}
		if (way.value != w) {
			lv->way = way;
			w = way.value;
			lv->fully_associative = w == lv->line.value;
		} else {
			lv->way.accesses += way.accesses;
		}
	}
	lv->size.value = own * w;
	if (lv->way.confidence < lv->size.confidence)
		lv->size.confidence = lv->way.confidence;
	above = up->effective_size.known ? up->effective_size.value : up->size.value;
	amp_param_derived(&lv->effective_size, own * w + above, &lv->size);
	if (lv->inclusion.confidence < lv->effective_size.confidence)
		lv->effective_size.confidence = lv->inclusion.confidence;
}

/* Virtual strides miss its sets: mod_evset.c decided the inclusion on
 * eviction sets, and an exclusive level's own ways there. */
static void size_from_evsets(struct amp_level *lv)
{
	const struct amp_level *up = lv->above;
	int64_t above = up->effective_size.known ? up->effective_size.value : up->size.value;

	if (!amp_param_conclusive(&lv->inclusion))
		amp_param_unknown(&lv->effective_size, "needs the inclusion first (%s)", lv->inclusion.reason);
	else if (lv->inclusion.value != AMP_INCL_EXCLUSIVE)
		effective_is_size(lv);
	else if (!amp_param_conclusive(&lv->size))
		amp_param_unknown(&lv->effective_size, "needs the size first");
	else
		amp_param_derived(&lv->effective_size, lv->size.value + above, &lv->size);
}

static int incl_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	if (lv->level == 1) {
		amp_param_unknown(&lv->inclusion, "nothing above it");
		effective_is_size(lv);
		return 0;
	}
	if (amp_strides_mislead(c, lv)) {
		size_from_evsets(lv);
		return 0;
	}
	/* The re-touch test keeps a line above: not in a random level (nor,
	 * through L1, in L1 unless it is LRU). */
	amp_run_module(c, &amp_module_replacement, lv->above);
	amp_run_module(c, &amp_module_replacement, &c->lv[amp_level_top(lv) - c->lv]);
	exclusion_ruled_out = 0;
	amp_vote(c, lv, incl_vote, &lv->inclusion);
	/* Inclusive or NINE, unknown which: the size is all its own. */
	lv->not_exclusive = 2 * exclusion_ruled_out > c->votes;
	if (!lv->inclusion.known || lv->inclusion.inconclusive) {
		if (lv->not_exclusive)
			effective_is_size(lv);
		else
			amp_param_unknown(&lv->effective_size, "needs the inclusion first (%s)",
					  lv->inclusion.reason);
	}
	else if (lv->inclusion.value == AMP_INCL_EXCLUSIVE)
		own_share(c, lv);
	else
		effective_is_size(lv);
	return 0;
}

const struct amp_module amp_module_inclusion = {
	.name = "inclusion",
	.summary = "inclusion relative to the level above (NINE, inclusive, exclusive) and an exclusive level's own share",
	.kinds = 1u << AMP_KIND_CACHE,
	.fills = { AMP_FILLS(inclusion), AMP_FILLS(effective_size) },
	.applies = amp_applies_with_counters,
	.supported = incl_supported,
	.run = incl_run,
};
