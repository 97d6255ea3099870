/* mod_replace.c - replacement policy of caches and TLBs (AMP 3.5): lru,
 * tree plru, fifo or random.
 *
 * AMP fills a set, touches all its lines but one again, brings in one
 * more and looks which line left: a deterministic policy always evicts
 * the same one, random replacement any.  Here a round in one set of `a`
 * ways (as the level's counter sees them) is
 *   a fresh lines w0..w(a-1)  after a misses into a full set, lru, plru
 *                             and fifo hold exactly these lines, in a
 *                             state that owes nothing to what came before
 *   retouches rho of them     hits for every deterministic policy
 *   one more fresh line       evicts the policy's victim
 *   one probe                 of the line hypothesis h names as victim
 * and one plan per hypothesis runs such rounds over many sets.  Every
 * line is cold when a plan starts, so under a deterministic policy T the
 * plan of h misses once per distinct line, plus once per round iff
 * h == T.  Random replacement also loses retouched lines: every plan
 * then shows unexplained misses.  rho is chosen when the plans are built,
 * with tiny models of one set, so that the hypotheses' victims differ
 * pairwise and random replacement (a Monte Carlo of the model) stands
 * clear of every deterministic answer.  Tree plru needs a power-of-two
 * number of ways and is lru itself at two.
 *
 * Each test access must reach the level: below another level, evictors
 * push every test line out of the level above.  A counter that sees more
 * ways than the level above has may see an exclusive pair (a victim cache
 * and the level above it, one structure of their summed ways): when the
 * summed ways thrash with evictors, the pair is tested as one, without
 * them: random replacement shows, but a deterministic answer is the
 * pair's (lru above lru or fifo is lru; other pairs fit no answer), and
 * the level's own is unknown: a hit moves the line up, so lru and fifo
 * evict alike in a victim level.  Under a random level a reused evictor
 * (or the test line) stays there with some chance: every test access
 * then gets fresh evictors, used once (amp_evictors_fresh); an
 * exclusive pair under a random L1 is read against models of the pair
 * (pair_models).  Undecided, with the reason: direct-mapped levels, an
 * exclusive pair under another random level (it looks random), a found
 * set under a random level of a way over half a page (no fresh line
 * shares its set yet misses this level's), and one with no more ways
 * than the level above and a way under twice its way (no evictor can
 * single out its sets).
 */
#include "config.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "measure.h"
#include "timing.h"
#include "util.h"

#define MAX_WAYS 4096        /* a round costs about 2a accesses */
#define MAX_RHO 24           /* retouches per round (level-1 noise grows with them) */
#define TRIES 64             /* candidate rho per length */
#define ROUNDS_MIN 32        /* rounds per plan: one probe miss each */
#define ROUNDS_MAX 128
#define PLAN_BUDGET (1u << 14) /* measured accesses per plan, evictors included */
#define MC_ROUNDS 512        /* rounds of random replacement in the model */
#define TOL 0.4              /* a deterministic answer: every plan within this of 0 or 1 */
#define RANDOM_MIN 0.5       /* random: every plan at least this many unexplained misses per round */
#define PAIR_FIT 0.15       /* a pair model fits: every plan within this of its mean (and 3 se) */
#define RANDOM_CLEAR 0.7     /* plan time: random's mean minus 3 sd of a plan's mean */
#define FRESH_POOL_TURNS 4   /* pool lines per fresh line an access takes: a line's leak is then
			      * the single one's to this power (at least the second: FRESH_POOL_LEAST) */
#define FRESH_POOL_LEAST 2
#define FRESH_POOL_MAX 2048
#define FRESH_POOL_TRIES 4   /* candidate lines per pool line (a few colours share the set) */
#define JOIN_MISSES 0.25     /* misses per walk: a line joined the tested set */

/* ---- one set: lru, fifo (lists oldest first), tree plru, random ---- */

struct model {
	enum amp_policy_id pol;
	int ways, depth, nvalid;
	int *tag;               /* way -> line id, -1 empty */
	int *where;             /* line id -> way, -1 absent */
	int *prev, *next;       /* lru/fifo: ways from oldest (head) to newest */
	int head, tail;
	uint8_t *tree;          /* plru: node i (1..ways-1) as the simulator keeps it */
	struct amp_rng rng;
	int nids;               /* line ids where[] holds */
	/* An exclusive pair (pair_access): this level, random, in `own` of
	 * its ways, below `up`, the level above with its known policy. */
	struct model *up;
	int own;
};

/* Line ids of a round: 0..a-1 fill the set beforehand, a+i is w_i, 2a the
 * fresh line that forces the eviction. */
#define W_ID(a, i) ((a) + (i))
#define N_ID(a) (2 * (a))

static void model_free(struct model *m)
{
	free(m->tag);
	free(m->where);
	free(m->prev);
	free(m->next);
	free(m->tree);
}

static void model_reset(struct model *m)
{
	for (int i = 0; i < m->ways; i++)
		m->tag[i] = -1;
	for (int i = 0; i < m->nids; i++)
		m->where[i] = -1;
	memset(m->tree, 0, (size_t)m->ways + 1);
	m->nvalid = 0;
	m->head = m->tail = -1;
	if (m->up)
		model_reset(m->up);
}

/* A set of `ways` for line ids below `ids`. */
static int model_init_ids(struct model *m, enum amp_policy_id pol, int ways, size_t ids, uint64_t seed)
{
	size_t w = (size_t)ways;

	memset(m, 0, sizeof *m);
	m->pol = pol;
	m->ways = ways;
	m->nids = (int)ids;
	while ((1 << m->depth) < ways)
		m->depth++;
	m->tag = malloc(w * sizeof *m->tag);
	m->where = malloc(ids * sizeof *m->where);
	m->prev = malloc(w * sizeof *m->prev);
	m->next = malloc(w * sizeof *m->next);
	m->tree = malloc(w + 1);
	amp_rng_seed(&m->rng, seed);
	if (!m->tag || !m->where || !m->prev || !m->next || !m->tree) {
		model_free(m);
		return -1;
	}
	model_reset(m);
	return 0;
}

static int model_init(struct model *m, enum amp_policy_id pol, int ways, uint64_t seed)
{
	return model_init_ids(m, pol, ways, 2 * (size_t)ways + 1, seed);
}

static void list_unlink(struct model *m, int w)
{
	if (m->prev[w] >= 0)
		m->next[m->prev[w]] = m->next[w];
	else
		m->head = m->next[w];
	if (m->next[w] >= 0)
		m->prev[m->next[w]] = m->prev[w];
	else
		m->tail = m->prev[w];
}

static void list_push(struct model *m, int w)
{
	m->prev[w] = m->tail;
	m->next[w] = -1;
	if (m->tail >= 0)
		m->next[m->tail] = w;
	else
		m->head = w;
	m->tail = w;
}

static void plru_touch(struct model *m, int way)
{
	int node = 1;

	for (int d = m->depth - 1; d >= 0; d--) {
		int dir = (way >> d) & 1;

		m->tree[node] = (uint8_t)!dir; /* point away from the way just used */
		node = 2 * node + dir;
	}
}

static int plru_victim(const struct model *m)
{
	int node = 1, way = 0;

	for (int d = 0; d < m->depth; d++) {
		int dir = m->tree[node];

		way = 2 * way + dir;
		node = 2 * node + dir;
	}
	return way;
}

static int pair_access(struct model *m, int id, int *out);

/* The way a full set of `ways` gives up, by its policy (taken off the
 * lru/fifo list). */
static int policy_victim(struct model *m, int ways)
{
	int w;

	if (m->pol == AMP_POLICY_LRU || m->pol == AMP_POLICY_FIFO) {
		w = m->head;
		list_unlink(m, w);
		return w;
	}
	if (m->pol == AMP_POLICY_PLRU)
		return plru_victim(m);
	return (int)amp_rng_below(&m->rng, (uint64_t)ways);
}

/* Way w just filled: the newest. */
static void policy_fill(struct model *m, int w)
{
	if (m->pol == AMP_POLICY_LRU || m->pol == AMP_POLICY_FIFO)
		list_push(m, w);
	else if (m->pol == AMP_POLICY_PLRU)
		plru_touch(m, w);
}

/* Accesses line id: 1 on a miss (the evicted id, or -1, in *out). */
static int model_access(struct model *m, int id, int *out)
{
	int w = m->where[id], old;

	if (m->up)
		return pair_access(m, id, out);
	*out = -1;
	if (w >= 0) {
		if (m->pol == AMP_POLICY_LRU) {
			list_unlink(m, w);
			list_push(m, w);
		} else if (m->pol == AMP_POLICY_PLRU) {
			plru_touch(m, w);
		}
		return 0;
	}
	if (m->nvalid < m->ways)
		w = m->nvalid++; /* empty ways first, in way order (nothing is ever invalidated) */
	else
		w = policy_victim(m, m->ways);
	old = m->tag[w];
	if (old >= 0)
		m->where[old] = -1;
	m->tag[w] = id;
	m->where[id] = w;
	policy_fill(m, w);
	*out = old;
	return 1;
}

/* An exclusive pair: a line comes here only as the level above's
 * victim, and a hit here moves it up (its way here empties, and the
 * victim above takes one: an empty one first, in way order, else one by
 * this level's policy, as the simulated machine does).  A hit here never
 * reorders a line in place, so lru and fifo evict alike.  1 where the
 * line missed both; *out: the line the pair lost. */
static int pair_access(struct model *m, int id, int *out)
{
	int here = m->where[id], victim, way = -1;

	*out = -1;
	if (m->up->where[id] >= 0)
		return model_access(m->up, id, &victim);
	if (here >= 0) {
		m->tag[here] = -1;
		m->where[id] = -1;
		if (m->pol == AMP_POLICY_LRU || m->pol == AMP_POLICY_FIFO)
			list_unlink(m, here);
	}
	model_access(m->up, id, &victim);
	if (victim < 0)
		return here < 0;
	for (int k = 0; k < m->own && way < 0; k++)
		if (m->tag[k] < 0)
			way = k;
	if (way < 0) {
		way = policy_victim(m, m->own);
		*out = m->tag[way];
		m->where[*out] = -1;
	}
	m->tag[way] = victim;
	m->where[victim] = way;
	policy_fill(m, way);
	return here < 0;
}

/* One round from a set full of older lines; probe < 0: none.  Returns
 * the misses beyond the a + 1 fresh lines; *victim: the w index the
 * fresh line evicted (-1: an older line); *probed: whether the probe
 * missed. */
static int model_round(struct model *m, const int *rho, int nrho, int probe, int *victim, int *probed)
{
	int a = m->ways, extra = 0, out;

	model_reset(m);
	for (int i = 0; i < a; i++)
		model_access(m, i, &out);
	for (int i = 0; i < a; i++)
		model_access(m, W_ID(a, i), &out);
	for (int j = 0; j < nrho; j++)
		extra += model_access(m, W_ID(a, rho[j]), &out);
	model_access(m, N_ID(a), &out);
	*victim = out >= a && out < N_ID(a) ? out - a : -1;
	*probed = probe >= 0 && model_access(m, W_ID(a, probe), &out);
	return extra + *probed;
}

/* ---- the design of one level's plans ---- */

struct design {
	int a, npol, evict, combined;
	enum amp_policy_id pol[3];
	int victim[3];          /* w index each hypothesis names as evicted */
	int rho[MAX_RHO], nrho;
	uint64_t line, unit;    /* line (page) of the level; unit of the vote's base */
	uint64_t delta, stride; /* between the sets used; between the lines of one set */
	uint64_t avail;         /* sets reachable */
	uint64_t per_access;    /* accesses per test access (evictors included) */
	uint64_t fresh;         /* evictors of their own per test access (a random level above) */
	uint64_t sets, rounds;  /* per plan */
	uint64_t max_lines;     /* timing: distinct lines a plan may touch (0: any) */
	/* Counters, sets by experiment: rounds on the level's set lines, in
	 * groups of a + 1 taken in turn; every test access must leave the
	 * levels above on its own (no evictors): at least `above` other
	 * lines of their set between two accesses of a line. */
	int found_set, above;
	uint64_t groups;
	/* Half lines (found sets, amp_offset_bypass): each access may go to
	 * either half of its line, `half` bytes apart: the same line here,
	 * other lines in other sets above.  parts is 1 or 2; the retouches'
	 * and each hypothesis' probe's half (reaches_level picks them). */
	int parts;
	uint64_t half;
	int rho_part[MAX_RHO], probe_part[3];
	int push;               /* pushers walked before each access (L1 as many ways) */
	/* Found set under a random level above: `fresh` lines before each
	 * access, each used once, at other offsets of the pages below
	 * fresh_region, fresh_step apart (in the random levels' set, never
	 * in this level's tested one). */
	uint64_t fresh_step, fresh_region;
	/* A random L1 above of a way over half a page: the fresh lines lie
	 * at the set lines' own page offset in other pages (a multiple of
	 * that way apart: L1's set), each found out of this level's tested
	 * set by its misses, and taken in turn (a line comes back only
	 * after all the others, long gone from L1 by then). */
	uint64_t pool[FRESH_POOL_MAX], npool;
	/* An exclusive pair under a level of known policy: random here,
	 * modelled as such a pair (pair_design), stands clear of every
	 * deterministic answer; its unexplained misses per round. */
	int pair_random;
	double pair_mean[3];
	/* An exclusive pair under a random level (pair_models): each
	 * policy's model of the pair, its plans' means and standard errors,
	 * and how far random's stands from the others' at the least. */
	int npm;                /* 0: no pair models */
	enum amp_policy_id pm_pol[3];
	double pm[3][3], pm_se[3][3], pm_apart;
	double rand_mean[3];    /* random replacement's unexplained misses per round */
	double rand_probe[3];   /* of them the probe's */
	double last_e[3];       /* the last vote's */
};
static _Thread_local struct design design;

static void size_plans(struct design *d, int nrho)
{
	uint64_t per_round = (uint64_t)(d->a + nrho + 2) * d->per_access;
	uint64_t total = PLAN_BUDGET / per_round;

	/* A round brings a + 1 lines, and a set's fill a more. */
	if (d->max_lines && total > d->max_lines / (2 * (uint64_t)d->a + 1))
		total = d->max_lines / (2 * (uint64_t)d->a + 1);

	if (total < ROUNDS_MIN)
		total = ROUNDS_MIN;
	if (total > ROUNDS_MAX)
		total = ROUNDS_MAX;
	d->sets = d->avail < total ? d->avail : total;
	d->rounds = (total + d->sets - 1) / d->sets;
}

/* Whether rho sets the hypotheses' victims apart pairwise; fills victim[]. */
static int victims_apart(struct design *d, struct model *det, const int *rho, int nrho)
{
	for (int h = 0; h < d->npol; h++) {
		int probed;

		if (model_round(&det[h], rho, nrho, -1, &d->victim[h], &probed) != 0 || d->victim[h] < 0)
			return 0; /* cannot happen: retouches hit, the victim is a w */
		for (int g = 0; g < h; g++)
			if (d->victim[g] == d->victim[h])
				return 0;
	}
	return 1;
}

/* Monte Carlo of plan h's rounds on model m (random somewhere): the
 * unexplained misses per round, their standard deviation, and the
 * share of rounds whose probe missed. */
static void plan_model(const struct design *d, struct model *m, const int *rho, int nrho, int h, double *mean,
		       double *sd, double *probe)
{
	double sum = 0, sq = 0, probes = 0;
	int v, probed;

	for (int t = 0; t < MC_ROUNDS; t++) {
		double x = model_round(m, rho, nrho, d->victim[h], &v, &probed);

		probes += probed;
		sum += x;
		sq += x * x;
	}
	*mean = sum / MC_ROUNDS;
	*sd = sqrt(fmax(sq / MC_ROUNDS - *mean * *mean, 0));
	*probe = probes / MC_ROUNDS;
}

/* Whether per-plan values p[] (standard errors se[]) stand clear of
 * every deterministic pattern (1 in its own plan, 0 elsewhere), three
 * standard errors beyond the tolerance. */
static int clear_of_policies(const struct design *d, const double *p, const double *se)
{
	for (int t = 0; t < d->npol; t++) {
		double far = 0;

		for (int h = 0; h < d->npol; h++)
			far = fmax(far, fabs(p[h] - (h == t)) - 3 * se[h]);
		if (far <= TOL)
			return 0;
	}
	return 1;
}

/* Whether random replacement stays clear of every deterministic answer:
 * each plan's unexplained misses per round, less three standard errors
 * of a plan's mean, at least RANDOM_CLEAR. */
static int random_clear(struct design *d, struct model *rnd, const int *rho, int nrho)
{
	double rounds = (double)(d->sets * d->rounds), se[3];

	for (int h = 0; h < d->npol; h++) {
		double mean, sd;

		plan_model(d, rnd, rho, nrho, h, &mean, &sd, &d->rand_probe[h]);
		d->rand_mean[h] = mean;
		if (mean - 3 * sd / sqrt(rounds) < RANDOM_CLEAR)
			return 0;
		se[h] = sqrt(d->rand_probe[h] * (1 - d->rand_probe[h]) / rounds);
	}
	/* On a found set the plans are read against a base, by their probes
	 * alone: random's probe misses must then stand clear of every
	 * deterministic pattern. */
	return !d->found_set || clear_of_policies(d, d->rand_probe, se);
}

static int occurrences(const int *v, int n, int x)
{
	int k = 0;

	for (int j = 0; j < n; j++)
		k += v[j] == x;
	return k;
}

/* Accesses of a round since entry x's last, up to seq[n - 1], counting
 * distinct entries of x's part only (entries are line * parts + part:
 * each part has its own sets above); -1: x is new.  stamp (indexed by
 * entry) holds marks below `mark`. */
static int others_since(const int *seq, int n, int parts, int x, int *stamp, int mark)
{
	int others = 0, q;

	for (q = n - 1; q >= 0 && seq[q] != x; q--)
		if (seq[q] % parts == x % parts && stamp[seq[q]] != mark) {
			stamp[seq[q]] = mark;
			others++;
		}
	return q < 0 ? -1 : others;
}

#define NEW_PART (1 << 30) /* others_since of an entry new in the round */

/* The entry for an access of line x after seq[0..n-1]: the part away
 * longest (a new one first); *others: how long (NEW_PART: new). */
static int pick_part(const struct design *d, const int *seq, int n, int x, int *stamp, int *mark, int *others)
{
	int best = x * d->parts;

	*others = -2;
	for (int p = 0; p < d->parts; p++) {
		int o = others_since(seq, n, d->parts, x * d->parts + p, stamp, (*mark)++);

		if (o < 0)
			o = NEW_PART;
		if (o > *others) {
			*others = o;
			best = x * d->parts + p;
		}
	}
	return best;
}

/* A set found by experiment: whether every retouch and every probe of
 * a round comes after at least d->above other lines of its part (so it
 * missed the levels above, whose one set all the round's lines share,
 * under lru, fifo and tree plru: a stream of misses evicts a line after
 * as many misses as the set has ways).  The fill and the fresh line
 * are the first half; a retouch or probe takes the part away longest
 * (recorded in rho_part and probe_part).  A half first used in a round
 * was last used `groups` rounds before: the other groups' rounds pass
 * as many lines of that part as this one in between. */
static int reaches_level(struct design *d, const int *rho, int nrho)
{
	int seq[MAX_WAYS + MAX_RHO + 2], stamp[2 * (MAX_WAYS + 1)], part[MAX_RHO + 4], n = 0, mark = 0;
	int used = 0, first[MAX_RHO + 4], nseen = 0;

	memset(stamp, -1, 2 * ((size_t)d->a + 1) * sizeof *stamp);
	for (int i = 0; i < d->a; i++)
		seq[n++] = i * d->parts;
	for (int j = 0; j <= nrho; j++) {
		/* Every retouch, then the fresh line (new, the first half). */
		int x = j < nrho ? rho[j] : d->a, others = NEW_PART;

		seq[n] = j < nrho ? pick_part(d, seq, n, x, stamp, &mark, &others) : x * d->parts;
		if (others < d->above)
			return 0;
		part[j] = seq[n] % d->parts;
		first[j] = others == NEW_PART && part[j] > 0;
		n++;
	}
	for (int h = 0; h < d->npol; h++) {
		int others, e = pick_part(d, seq, n, d->victim[h], stamp, &mark, &others);

		if (others < d->above)
			return 0;
		part[nrho + 1 + h] = e % d->parts;
		first[nrho + 1 + h] = others == NEW_PART && e % d->parts > 0;
	}
	/* Second-half lines of a round's retouches (each new there once),
	 * and the check of first uses there: since the line's use a round
	 * of its group before, the other groups' rounds passed as many,
	 * and this round those retouched there before it. */
	for (int j = 0; j < nrho; j++)
		used += first[j];
	for (int j = 0; j < nrho + 1 + d->npol; j++) {
		if (!first[j])
			continue;
		if ((uint64_t)used * (d->groups - 1) + (uint64_t)(j < nrho ? nseen : used) < (uint64_t)d->above)
			return 0;
		nseen += j < nrho;
	}
	for (int j = 0; j < nrho; j++)
		d->rho_part[j] = part[j];
	for (int h = 0; h < d->npol; h++)
		d->probe_part[h] = part[nrho + 1 + h];
	return 1;
}

/* A found set's retouches, drawn one by one among the lines away long
 * enough for reaches_level (each at most `most` times): 0, or -1 where
 * at some step no line is. */
static int reachable_lines(const struct design *d, struct amp_rng *rng, int *cand, int n, int most)
{
	int seq[MAX_WAYS + MAX_RHO], stamp[2 * (MAX_WAYS + 1)], ready[MAX_WAYS], entry[MAX_WAYS];
	int len = 0, mark = 0;

	for (int i = 0; i < d->a; i++)
		seq[len++] = i * d->parts;
	memset(stamp, -1, 2 * ((size_t)d->a + 1) * sizeof *stamp);
	for (int j = 0; j < n; j++) {
		int nready = 0, pick, others;

		for (int i = 0; i < d->a; i++) {
			int e = pick_part(d, seq, len, i, stamp, &mark, &others);

			if (occurrences(cand, j, i) < most && others >= d->above) {
				entry[nready] = e;
				ready[nready++] = i;
			}
		}
		if (!nready)
			return -1;
		pick = (int)amp_rng_below(rng, (uint64_t)nready);
		cand[j] = ready[pick];
		seq[len++] = entry[pick];
	}
	return 0;
}

/* A found set's retouches, the other draw: n distinct lines in
 * ascending order, w0 first, the others drawn (try 0: w0..w(n-1)).  In
 * that order each retouch follows every line after it, as reaches_level
 * wants, and wide sets find orders this way that the line-by-line draw
 * misses. */
static void ascending_lines(const struct design *d, struct amp_rng *rng, int *cand, int n, int t)
{
	int picked = 1;

	cand[0] = 0;
	for (int i = 1; i < d->a && picked < n; i++)
		if (t == 0 || amp_rng_below(rng, (uint64_t)(d->a - i)) < (uint64_t)(n - picked))
			cand[picked++] = i;
}

/* Picks the shortest rho (each line retouched at most `most` times) that
 * sets the victims apart and random replacement clear of them. */
static int choose_rho(struct design *d, int most, char *why, size_t len)
{
	struct model det[3], rnd;
	struct amp_rng rng;
	int ok = 0, built = 0, cand[MAX_RHO];
	int maxlen = d->a * most < MAX_RHO ? d->a * most : MAX_RHO;

	for (built = 0; built < d->npol; built++)
		if (model_init(&det[built], d->pol[built], d->a, 0) < 0)
			break;
	if (built < d->npol || model_init(&rnd, AMP_POLICY_RANDOM, d->a, 0x7265706c ^ (uint64_t)d->a) < 0) {
		while (built--)
			model_free(&det[built]);
		snprintf(why, len, "out of memory for models of a %d-way set", d->a);
		return -1;
	}
	amp_rng_seed(&rng, 0x72686f ^ (uint64_t)d->a);
	for (int n = 1; n <= maxlen && !ok; n++) {
		size_plans(d, n);
		for (int t = 0; t < TRIES && !ok; t++) {
			int has_w0 = 0;

			/* Random lines, each at most `most` times, w0 among them
			 * (else lru and fifo would both evict w0). */
			if (d->found_set) {
				if (t % 2 == 0 && n <= d->a)
					ascending_lines(d, &rng, cand, n, t / 2);
				else if (reachable_lines(d, &rng, cand, n, most) < 0)
					continue;
				if (!occurrences(cand, n, 0))
					continue;
				has_w0 = 1;
			}
			for (int j = 0; j < n && !d->found_set; j++) {
				int i;

				do
					i = (int)amp_rng_below(&rng, (uint64_t)d->a);
				while (occurrences(cand, j, i) >= most);
				cand[j] = i;
				has_w0 |= i == 0;
			}
			if (!has_w0) {
				cand[amp_rng_below(&rng, (uint64_t)n)] = 0;
				if (occurrences(cand, n, 0) > most)
					continue;
			}
			if (!victims_apart(d, det, cand, n) || (d->found_set && !reaches_level(d, cand, n)) ||
			    !random_clear(d, &rnd, cand, n))
				continue;
			memcpy(d->rho, cand, (size_t)n * sizeof cand[0]);
			d->nrho = n;
			ok = 1;
		}
	}
	for (int h = 0; h < d->npol; h++)
		model_free(&det[h]);
	model_free(&rnd);
	if (!ok)
		snprintf(why, len, "no retouch order of up to %d accesses sets the policies of a %d-way set apart",
			 maxlen, d->a);
	return ok ? 0 : -1;
}

/* ---- the plans ---- */

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Lines (pages) the plan touches: each misses once, cold. */
static uint64_t distinct_lines(const struct amp_seq *s, uint64_t line, uint64_t *tmp)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		tmp[i] = s->off[i] / line;
	qsort(tmp, s->n, sizeof *tmp, cmp_u64);
	for (size_t i = 0; i < s->n; i++)
		n += i == 0 || tmp[i] != tmp[i - 1];
	return n;
}

/* Line i of a round (a: the fresh one), at its next word (wrapping in
 * lines of fewer words than visits: a repeated word reads the same). */
static uint64_t visit(const struct design *d, uint64_t round_base, int *uses, int i)
{
	return round_base + (uint64_t)i * d->stride + 8 * ((uint64_t)uses[i]++ % (d->line / 8));
}

/* The timing warm-up: test[n-1] down to test[0], then the fill lines
 * (one access per visit: a line's repeats cost no more).  The sequence
 * index, or -1. */
static int warm_seq(struct amp_plan *p, const uint64_t *fill, uint64_t nfill, const uint64_t *test, uint64_t n)
{
	uint64_t *w = malloc((n + nfill) * sizeof *w);
	int seq;

	if (!w)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		w[i] = test[n - 1 - i];
	memcpy(w + n, fill, nfill * sizeof *fill);
	seq = amp_plan_add_seq(p, w, (size_t)(n + nfill));
	free(w);
	return seq;
}

/* Fresh line `slot` of a found-set plan: page slot / per_page, the
 * set lines' page offset moved by a multiple of fresh_step. */
static uint64_t fresh_line(const struct design *d, uint64_t page, uint64_t off, uint64_t slot)
{
	uint64_t per_page = page / d->fresh_step - 1;

	return slot / per_page * page + (off + (1 + slot % per_page) * d->fresh_step) % page;
}

/* One access of a found-set round at test[k], after the pushers or the
 * fresh lines where there are (found_set_design); returns the next k. */
static uint64_t found_access(const struct design *d, const struct amp_level *lv, uint64_t page, uint64_t *test,
			     uint64_t k, uint64_t *slot, uint64_t line)
{
	memcpy(test + k, lv->set_pushers, (size_t)d->push * sizeof *test);
	k += (uint64_t)d->push;
	for (uint64_t i = 0; i < d->fresh; i++, (*slot)++)
		test[k++] = d->npool ? d->pool[*slot % d->npool] : fresh_line(d, page, line % page, *slot);
	test[k++] = line;
	return k;
}

/* The plan of hypothesis h (h < 0: the base, whose probe is the fresh
 * line again) on a set found by experiment: the level's
 * set lines in groups of a + 1, round r on group r mod groups (a line
 * is back after groups - 1 rounds of a + 1 misses each: under lru, plru
 * and fifo long gone), the set filled first with the last group.  The
 * walks are touched, not chased: a line comes back round after round,
 * more often than it has words for a chain, and with counters (this
 * path's only method) no chain is needed. */
static int build_found_plan(const struct amp_ctx *c, const struct design *d, const struct amp_level *lv, int h,
			    struct amp_plan *p, char *err, size_t len)
{
	uint64_t page = c->page;
	uint64_t a = (uint64_t)d->a, n = d->rounds * (a + (uint64_t)d->nrho + 2) * (1 + (uint64_t)d->push + d->fresh);
	uint64_t k = 0, slot = 0, region = 0, *test = malloc(n * sizeof *test);
	const uint64_t *last = lv->set_lines + (d->groups - 1) * (a + 1);
	int fs, ts;

	if (!test) {
		snprintf(err, len, "%s: out of memory for a plan of %llu accesses", lv->name, (unsigned long long)n);
		return -1;
	}
	for (uint64_t r = 0; r < d->rounds; r++) {
		const uint64_t *g = lv->set_lines + r % d->groups * (a + 1);

		for (uint64_t i = 0; i < a; i++)
			k = found_access(d, lv, page, test, k, &slot, g[i]);
		for (int j = 0; j < d->nrho; j++)
			k = found_access(d, lv, page, test, k, &slot, g[d->rho[j]] ^ (uint64_t)d->rho_part[j] * d->half);
		k = found_access(d, lv, page, test, k, &slot, g[a]);
		k = found_access(d, lv, page, test, k, &slot,
				 h < 0 ? g[a] : g[d->victim[h]] ^ (uint64_t)d->probe_part[h] * d->half);
	}
	region = amp_set_lines_region(lv, d->line, d->push);
	if (d->fresh_region > region)
		region = d->fresh_region;
	for (uint64_t i = 0; i < d->npool; i++)
		region = d->pool[i] + d->line > region ? d->pool[i] + d->line : region;
	amp_plan_init(p, "replacement", region);
	p->arena = amp_set_frames(lv);
	fs = amp_plan_add_seq(p, last, (size_t)a);
	ts = amp_plan_add_seq(p, test, (size_t)n);
	free(test);
	if (fs < 0 || ts < 0) {
		amp_plan_free(p);
		snprintf(err, len, "%s: out of memory for a plan of %llu accesses", lv->name, (unsigned long long)n);
		return -1;
	}
	amp_plan_add_pass(p, AMP_PLAN_WHOLE_REGION, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(p, fs, AMP_OP_TOUCH, 1, 0);
	amp_plan_add_pass(p, ts, AMP_OP_TOUCH, 1, 1);
	return 0;
}

/* The plan of hypothesis h from offset base (h < 0: the timing base,
 * whose probe is the fresh line again, a hit): per set, a lines that fill
 * it (cold, so they reach the level unaided; not measured), then the
 * measured rounds; a line's repeated visits use its next words. */
static int build_plan(const struct design *d, const struct amp_level *lv, int h, uint64_t base,
		      struct amp_plan *p, uint64_t *cold, char *err, size_t len)
{
	uint64_t a = (uint64_t)d->a, per_set = d->rounds * (a + (uint64_t)d->nrho + 2);
	uint64_t n = per_set * d->sets, k = 0, top = 0, region, far = 0;
	uint64_t *test = malloc(n * sizeof *test), *fill = malloc(a * d->sets * sizeof *fill);
	uint64_t *tmp = NULL;
	int *uses = malloc(((size_t)a + 1) * sizeof *uses);
	int seq = -1;

	if (!test || !fill || !uses)
		goto oom;
	for (uint64_t s = 0; s < d->sets; s++) {
		uint64_t sb = base + s * d->delta;

		for (uint64_t i = 0; i < a; i++)
			fill[s * a + i] = sb + i * d->stride;
		for (uint64_t r = 0; r < d->rounds; r++) {
			/* Round r's lines follow the fill lines: a + r(a + 1) on. */
			uint64_t rb = sb + (a + r * (a + 1)) * d->stride;

			memset(uses, 0, ((size_t)a + 1) * sizeof *uses);
			for (uint64_t i = 0; i < a; i++)
				test[k++] = visit(d, rb, uses, (int)i);
			for (int j = 0; j < d->nrho; j++)
				test[k++] = visit(d, rb, uses, d->rho[j]);
			test[k++] = visit(d, rb, uses, d->a);
			test[k++] = visit(d, rb, uses, h < 0 ? d->a : d->victim[h]);
		}
	}
	for (uint64_t i = 0; i < n; i++)
		top = test[i] > top ? test[i] : top;
	if (d->evict) {
		uint64_t w = (uint64_t)lv->way.value;

		far = (top / w + 1) * w; /* past every test line, a multiple of W */
		region = d->fresh ? amp_fresh_evicted_region(lv, n, far) : far * (n + 2);
	} else {
		region = top + d->line;
	}
	amp_plan_init(p, "replacement", region);
	p->huge = lv->kind == AMP_KIND_CACHE; /* lower caches are physically indexed */
	if (amp_plan_add_seq(p, fill, (size_t)(a * d->sets)) < 0)
		goto oom_plan;
	seq = d->fresh ? amp_plan_add_fresh_evicted(p, lv, test, n, base, far)
	      : d->evict ? amp_plan_add_evicted(p, lv, test, n, base, far)
			 : amp_plan_add_seq(p, test, (size_t)n);
	if (seq < 0)
		goto oom_plan;
	if (lv->method == AMP_METHOD_TIMING) {
		/* By timing a cold line must cost this level's miss only: all
		 * lines are walked first, in reverse, into the level below
		 * (which holds them: max_lines), the fill lines last, so they
		 * are what this level holds when the rounds start. */
		int warm = warm_seq(p, fill, a * d->sets, test, n);

		if (warm < 0)
			goto oom_plan;
		amp_plan_add_pass(p, warm, AMP_OP_TOUCH, 1, 0);
	} else {
		amp_plan_add_pass(p, AMP_PLAN_WHOLE_REGION, AMP_OP_FLUSH, 1, 0);
	}
	amp_plan_add_pass(p, 0, amp_level_op(lv), 1, 0);
	amp_plan_add_pass(p, seq, amp_level_op(lv), 1, 1);
	if (cold) {
		tmp = malloc(p->seq[seq].n * sizeof *tmp);
		if (!tmp)
			goto oom_plan;
		*cold = distinct_lines(&p->seq[seq], d->line, tmp);
		free(tmp);
	}
	free(test);
	free(fill);
	free(uses);
	return 0;
oom_plan:
	amp_plan_free(p);
oom:
	free(test);
	free(fill);
	free(uses);
	snprintf(err, len, "%s: out of memory for a plan of %llu accesses", lv->name,
		 (unsigned long long)n);
	return -1;
}

/* The misses of plan h (h < 0: the timing base) from offset base,
 * counted or from time; *cold (may be NULL): the plan's distinct lines. */
static int plan_misses(struct amp_ctx *c, struct amp_level *lv, int h, uint64_t base, double *misses,
		       uint64_t *cold, char *err, size_t len)
{
	struct amp_plan p;
	int rc;

	if ((design.found_set ? build_found_plan(c, &design, lv, h, &p, err, len)
			      : build_plan(&design, lv, h, base, &p, cold, err, len)) < 0)
		return -1;
	/* On a found set, the mean of the counts: the plans are compared
	 * with the base by differences, and under random replacement the
	 * minima of counts that vary run to run scatter (a random 4-way L2
	 * read 0.06 to 0.68 where its model said 0.30 to 0.45). */
	if (lv->method == AMP_METHOD_TIMING)
		rc = amp_timing_misses(c, lv, &p, misses, err, len);
	else if (design.found_set)
		rc = amp_count_mean(c, &p, lv->ev, misses, err, len);
	else
		rc = amp_count(c, &p, lv->ev, misses, err, len);
	amp_plan_free(&p);
	return rc;
}

/* The pair model (pair_models) whose plan means the misses e[] fit,
 * each within PAIR_FIT of its mean and three of its standard errors;
 * the nearest where several do.  Its policy, or unknown. */
static int pair_fit(const struct design *d, const double *e, int64_t *value)
{
	double best = INFINITY;

	*value = AMP_POLICY_UNKNOWN;
	for (int k = 0; k < d->npm; k++) {
		double off = 0;
		int fits = 1;

		for (int h = 0; h < d->npol; h++) {
			off = fmax(off, fabs(e[h] - d->pm[k][h]));
			fits = fits && fabs(e[h] - d->pm[k][h]) <= PAIR_FIT + 3 * d->pm_se[k][h];
		}
		if (fits && off < best) {
			best = off;
			*value = d->pm_pol[k];
		}
	}
	return 0;
}

/* One vote: the unexplained misses per round of each hypothesis' plan,
 * matched against 1 for the true policy's plan and 0 for the others.
 * Counted, beyond the plan's cold misses.  By timing, beyond the base
 * plan's (the same rounds, the probe a sure hit): a miss count from time
 * is off by a few per cent of the plan's accesses (hit and miss costs
 * differ from the sweep's), more than a miss per round, but alike in
 * plans that differ only in their probes.  So by timing each plan shows
 * its probe's misses only; random replacement then shows a share of
 * probes missing in every plan (the model's, at least half of it). */
static int replace_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value,
			char *err, size_t len)
{
	struct design *d = &design;
	double e[3], rounds = (double)(d->sets * d->rounds), base_misses = 0, misses, sum_e = 0, sum_p = 0;
	uint64_t base, cold = 0;
	int timing = lv->method == AMP_METHOD_TIMING, random = 1;
	/* Against a base plan: by timing, and on a found set, whose lines
	 * come back round after round (under random replacement some are
	 * still there: fewer cold misses than a + 1 a round). */
	int paired = timing || d->found_set;

	/* Each vote starts elsewhere: other sets, or another set above. */
	if (d->evict)
		base = (uint64_t)v * d->unit % (uint64_t)lv->above->way.value;
	else
		base = (uint64_t)v * d->sets % d->avail * d->delta;
	if (paired && plan_misses(c, lv, -1, base, &base_misses, NULL, err, len) < 0)
		return -1;
	for (int h = 0; h < d->npol; h++) {
		if (plan_misses(c, lv, h, base, &misses, paired ? NULL : &cold, err, len) < 0)
			return -1;
		e[h] = (misses - (paired ? base_misses : (double)cold)) / rounds;
		d->last_e[h] = e[h];
		/* Against a base, random: every plan near the model's share
		 * (below it by half the share, or by five binomial standard
		 * errors of the rounds where the share is small: a fifo plan's
		 * 0.10 of a random 16-way L2 read 0.03 to 0.19).  A found
		 * set's lines come back round after round, so its rounds are
		 * not independent, and the bound is eight such errors (a
		 * random 32-way L3's fifo plan read 0.015 to 0.363 in 8 votes
		 * against 0.193, whose binomial error is 0.035); its plans
		 * together must then still show half the misses random
		 * predicts.  By timing, only the plans together are held to
		 * that: a plan's time scatters by more than its binomial
		 * error (a simulated random 16-way L1d, noise 0.01: fifo
		 * plans read -0.13 to 0.20 in 3 votes of 33, beside lru and
		 * plru plans near 0.6, and 2 runs of 11 read no policy). */
		if (paired) {
			double p = d->rand_probe[h], se = sqrt(p * (1 - p) / rounds);
			double low = timing ? -INFINITY : p - fmax(p / 2, (d->found_set ? 8 : 5) * se);

			random = random && p > 0 && e[h] >= low && e[h] <= p + TOL;
			sum_e += e[h];
			sum_p += p;
		} else if (d->pair_random) {
			random = random && e[h] >= d->pair_mean[h] / 2 && e[h] <= d->pair_mean[h] + TOL;
		} else {
			random = random && e[h] >= RANDOM_MIN;
		}
	}
	if (paired && sum_e < sum_p / 2)
		random = 0;
	if (d->npm)
		return pair_fit(d, e, value);
	for (int t = 0; t < d->npol; t++) {
		double worst = 0, level = 0;

		/* By timing every plan may carry the same offset (a probe's
		 * miss costs more than the sweep's gap: 0.3 to 0.6 per round
		 * in every plan on the Zen 5 guest), so the others' lowest
		 * stands for 0: T's plan one miss per round above it. */
		if (timing) {
			level = INFINITY;
			for (int h = 0; h < d->npol; h++)
				if (h != t)
					level = fmin(level, e[h]);
		}
		for (int h = 0; h < d->npol; h++)
			worst = fmax(worst, fabs(e[h] - level - (h == t)));
		if (worst <= TOL) {
			*value = d->pol[t];
			return 0;
		}
	}
	*value = random ? AMP_POLICY_RANDOM : AMP_POLICY_UNKNOWN;
	return 0;
}

/* With counters every level; by timing L1d, whose misses cost the gap to
 * L2 (below L1 a test access would go through the level above). */
static int replace_applies(const struct amp_ctx *c, const struct amp_level *lv)
{
	return lv->method == AMP_METHOD_COUNTERS ||
	       (lv->kind == AMP_KIND_CACHE && lv->level == 1 && lv->side == AMP_SIDE_DATA);
}

/* By timing, the lines a plan may touch: a quarter of the level below
 * (its effective size), so that every cold line is a hit there. */
static uint64_t timed_max_lines(const struct amp_ctx *c, const struct amp_level *lv)
{
	const struct amp_level *below = amp_level_below(c, lv);

	if (!below || !amp_param_conclusive(&below->effective_size))
		return 0;
	return (uint64_t)below->effective_size.value / 4 / (uint64_t)lv->line.value;
}

/* An exclusive level right under L1 whose pair with it evicts in lru
 * order: the pair keeps the most recent lines of a set, as many as
 * their summed ways (L1's victims come down in order of use, and a hit
 * below moves a line up), so a line leaves both after that many others
 * of its set.  Those ways, or 0. */
static int lru_pair_ways(const struct amp_level *a)
{
	if (!a->pair_order_known || a->pair_order != AMP_POLICY_LRU || !a->above || a->above->above ||
	    !amp_param_conclusive(&a->assoc) || !amp_param_conclusive(&a->above->assoc))
		return 0;
	return (int)(a->assoc.value + a->above->assoc.value);
}

/* Sets by experiment: whether the rounds can run on the level's set
 * lines (groups of ways + 1, two at least) with no evictors: every level
 * above must hold them all in one set of its own (its way no larger),
 * so that lines in between push a line out of it, and none be
 * exclusive (but one in an lru pair: lru_pair_ways). */
static int found_set_usable(const struct amp_level *lv, char *why, size_t len)
{
	if (lv->nset_lines < 2 * (lv->thrash_ways + 1)) {
		snprintf(why, len, "its sets came from eviction sets, which kept %d lines of one set (the rounds need %d)",
			 lv->nset_lines, 2 * (lv->thrash_ways + 1));
		return 0;
	}
	/* Lines of one set here lie in one set of each level above whose
	 * way divides this one's (with pushers below L2 too: mod_evset.c),
	 * so lines in between push a line out of those. */
	if (amp_spread_above(lv)) {
		snprintf(why, len, "its sets came from eviction sets, whose lines fall in many sets of %s above it (its way is larger): nothing gets every test access past it",
			 amp_spread_above(lv)->name);
		return 0;
	}
	for (const struct amp_level *a = lv->above; a; a = a->above) {
		/* Pushers of more lines than the pair holds push each line
		 * past it (an L3 under an exclusive L2: mod_evset.c); so do
		 * as many other lines of the set as the pair's summed ways
		 * where it evicts in lru order (lru_pair_ways). */
		if (a->above && amp_param_conclusive(&a->inclusion) && a->inclusion.value == AMP_INCL_EXCLUSIVE &&
		    lv->nset_pushers <= a->thrash_ways && !lru_pair_ways(a)) {
			snprintf(why, len, "its sets came from eviction sets, and %s above is exclusive: a line between two accesses may sit there or in %s, which the rounds on the set's lines do not model",
				 a->name, a->above->name);
			return 0;
		}
	}
	return 1;
}

/* ---- an exclusive level whose sets came with pushers ----
 *
 * No more ways than L1 above it: a line comes here only as L1's victim
 * (the pushers push it out) and leaves when hit (it moves up).  Nothing
 * here is used in place, so lru, fifo and tree plru all evict the line
 * that came down first; random replacement any.  Round r on group
 * r mod groups of its set lines (a + 1 of them): each line after the
 * pushers (so the one before goes down here, the newest victim), then
 * the probe.  The probe of the first line down misses in every round
 * in order, with chance 1 - (1 - 1/a)^a at random; of the second never
 * in order, 1 - (1 - 1/a)^(a - 1) at random; the base's probe, the
 * last line, never.  The probe goes down at the next round's start,
 * before its first line: the oldest there, whatever the policy. */
struct victim_rounds {
	int a, push;
	uint64_t groups, rounds;
	double at_random[2]; /* probe misses per round at random: first, second */
	double last[2];      /* the last vote's */
};
static _Thread_local struct victim_rounds victim_rounds;

/* An exclusive level whose sets came with pushers: victim rounds only. */
static int victim_level(const struct amp_level *lv)
{
	return lv->nset_pushers && amp_param_conclusive(&lv->inclusion) && lv->inclusion.value == AMP_INCL_EXCLUSIVE;
}

static int victim_rounds_usable(const struct amp_ctx *c, const struct amp_level *lv)
{
	const struct amp_level *up = lv->above;

	return lv->method == AMP_METHOD_COUNTERS && amp_strides_mislead(c, lv) && up && !amp_evictors_fresh(lv) &&
	       amp_param_conclusive(&lv->assoc) && lv->assoc.value >= 2 && lv->nset_pushers >= up->thrash_ways &&
	       (uint64_t)lv->nset_lines >= 2 * ((uint64_t)lv->assoc.value + 1);
}

static int build_victim_plan(const struct amp_level *lv, int probe, unsigned v, struct amp_plan *p, char *err,
			     size_t len)
{
	const struct victim_rounds *d = &victim_rounds;
	uint64_t a = (uint64_t)d->a, n = d->rounds * (a + 2) * (1 + (uint64_t)d->push), k = 0;
	uint64_t *test = malloc(n * sizeof *test);
	int ts;

	if (!test) {
		snprintf(err, len, "%s: out of memory for a plan of %llu accesses", lv->name, (unsigned long long)n);
		return -1;
	}
	for (uint64_t r = 0; r < d->rounds; r++) {
		const uint64_t *g = lv->set_lines + (r + v) % d->groups * (a + 1);

		for (uint64_t i = 0; i <= a + 1; i++) {
			memcpy(test + k, lv->set_pushers, (size_t)d->push * sizeof *test);
			k += (uint64_t)d->push;
			test[k++] = g[i <= a ? i : probe < 0 ? a : (uint64_t)probe];
		}
	}
	amp_plan_init(p, "replacement, victims", amp_set_lines_region(lv, (uint64_t)lv->line.value, d->push));
	p->arena = amp_set_frames(lv);
	ts = amp_plan_add_seq(p, test, (size_t)n);
	free(test);
	if (ts < 0) {
		amp_plan_free(p);
		snprintf(err, len, "%s: out of memory for a plan of %llu accesses", lv->name, (unsigned long long)n);
		return -1;
	}
	amp_plan_add_pass(p, AMP_PLAN_WHOLE_REGION, AMP_OP_FLUSH, 1, 0);
	amp_plan_add_pass(p, ts, AMP_OP_TOUCH, 1, 1);
	return 0;
}

static int victim_misses(struct amp_ctx *c, struct amp_level *lv, int probe, unsigned v, double *misses,
			 char *err, size_t len)
{
	struct amp_plan p;
	int rc;

	if (build_victim_plan(lv, probe, v, &p, err, len) < 0)
		return -1;
	rc = amp_count_mean(c, &p, lv->ev, misses, err, len);
	amp_plan_free(&p);
	return rc;
}

/* One vote: the probes' misses per round against the base's; in order
 * (1 and 0), or at random (each within half its chance below and TOL
 * above it). */
static int victim_vote(struct amp_ctx *c, struct amp_level *lv, unsigned v, int64_t *value, char *err,
		       size_t len)
{
	struct victim_rounds *d = &victim_rounds;
	double base, m, e[2];
	int random = 1;

	if (victim_misses(c, lv, -1, v, &base, err, len) < 0)
		return -1;
	for (int h = 0; h < 2; h++) {
		double q = d->at_random[h];

		if (victim_misses(c, lv, h, v, &m, err, len) < 0)
			return -1;
		e[h] = (m - base) / (double)d->rounds;
		d->last[h] = e[h];
		random = random && e[h] >= q / 2 && e[h] <= q + TOL;
	}
	if (fabs(e[0] - 1) <= TOL && fabs(e[1]) <= TOL)
		*value = AMP_POLICY_FIFO; /* in order: lru, fifo and plru alike */
	else
		*value = random ? AMP_POLICY_RANDOM : AMP_POLICY_UNKNOWN;
	return 0;
}

static int victim_run(struct amp_ctx *c, struct amp_level *lv)
{
	struct victim_rounds *d = &victim_rounds;

	memset(d, 0, sizeof *d);
	d->a = (int)lv->assoc.value;
	d->push = lv->above->thrash_ways;
	d->groups = (uint64_t)lv->nset_lines / ((uint64_t)d->a + 1);
	d->rounds = ROUNDS_MAX;
	d->at_random[0] = 1 - pow(1 - 1.0 / d->a, d->a);
	d->at_random[1] = 1 - pow(1 - 1.0 / d->a, d->a - 1);
	amp_vote(c, lv, victim_vote, &lv->replacement);
	if (!lv->replacement.known || lv->replacement.inconclusive || lv->replacement.value == AMP_POLICY_RANDOM)
		return 0;
	if (lv->replacement.value == AMP_POLICY_FIFO) {
		/* In the order they came down: below an lru level, the
		 * order of use (the pair evicts as lru). */
		lv->pair_order_known = 1;
		lv->pair_order = amp_param_conclusive(&lv->above->replacement) &&
					 lv->above->replacement.value == AMP_POLICY_LRU
				 ? AMP_POLICY_LRU : AMP_POLICY_FIFO;
		amp_param_unknown(&lv->replacement,
				  "exclusive (it holds what %s evicts, and a hit moves the line up): its own order of use never shows; lines leave it in the order they came down (lru, fifo and tree plru alike)",
				  lv->above->name);
	} else
		amp_param_unknown(&lv->replacement,
				  "the misses fit no policy: probe misses per round %.2f/%.2f of the first and second line down (in order: 1 and 0; random: %.2f and %.2f)",
				  d->last[0], d->last[1], d->at_random[0], d->at_random[1]);
	return 0;
}

static int replace_supported(const struct amp_ctx *c, const struct amp_level *lv, char *why, size_t len)
{
	if (!lv->assoc.known || lv->assoc.inconclusive || !lv->way.known || lv->way.inconclusive ||
	    lv->thrash_ways < 1) {
		snprintf(why, len, "needs the associativity and way size first");
		return 0;
	}
	if (victim_level(lv)) {
		/* Its sets came with pushers, which send each line back here
		 * as the newest victim: the rounds would see only that; the
		 * victim rounds tell random from in-order only. */
		if (victim_rounds_usable(c, lv))
			return 1;
		snprintf(why, len, "exclusive (it holds what %s evicts, and a hit moves the line up): its own order of use never shows",
			 lv->above->name);
		return 0;
	}
	if (amp_strides_mislead(c, lv) && !found_set_usable(lv, why, len))
		return 0; /* strides would probe lines of many sets: no policy fits */
	if (lv->thrash_ways == 1) {
		snprintf(why, len, "direct-mapped: no choice to make");
		return 0;
	}
	if (lv->thrash_ways > MAX_WAYS) {
		snprintf(why, len, "%d ways: more than the %d a set may have to be filled round by round",
			 lv->thrash_ways, MAX_WAYS);
		return 0;
	}
	if (lv->line.value < 8) {
		snprintf(why, len, "a %lld-byte %s holds no whole word", (long long)lv->line.value,
			 lv->kind == AMP_KIND_TLB ? "page" : "line");
		return 0;
	}
	if (!amp_is_pow2((uint64_t)lv->way.value) || !amp_is_pow2((uint64_t)lv->line.value)) {
		snprintf(why, len, "needs a power-of-two way size and line (its sets: %lld)",
			 (long long)(lv->way.value / lv->line.value));
		return 0;
	}
	if (lv->method == AMP_METHOD_TIMING &&
	    timed_max_lines(c, lv) < ROUNDS_MIN * (2 * (uint64_t)lv->thrash_ways + 1)) {
		snprintf(why, len, "by timing its cold lines must hit the level below, which holds too few of them (its effective size%s)",
			 amp_level_below(c, lv) ? "" : ": no level below measured");
		return 0;
	}
	if (lv->above && !amp_evictors_usable(lv)) {
		snprintf(why, len, "the level above (%s) is not characterised: nothing gets the test accesses past it",
			 lv->above->name);
		return 0;
	}
	return 1;
}

/* Whether an exclusive pair of lv and the level above can be read
 * against models of the pair (pair_models): counted, under a random L1. */
static int pair_modelled(const struct amp_level *lv)
{
	return lv->method == AMP_METHOD_COUNTERS && lv->above && !lv->above->above &&
	       amp_replaces_at_random(lv->above);
}

/* Evict from the level above, or test an exclusive pair as one: 0, or
 * -1 with the parameter unknown. */
static int choose_reach(struct amp_ctx *c, struct amp_level *lv, struct design *d, uint64_t *cost)
{
	const struct amp_level *up = lv->above;
	uint64_t wk = (uint64_t)lv->way.value, wj, reach;
	char err[AMP_REASON_LEN];
	double rate;

	d->unit = d->line;
	if (!up)
		return 0;
	/* Bases of test lines: whole lines of both levels. */
	if ((uint64_t)up->line.value > d->unit)
		d->unit = (uint64_t)up->line.value;
	/* A random level above keeps a reused evictor or a test line with
	 * some chance: every test access gets fresh evictors of its own. */
	d->fresh = amp_evictors_fresh(lv);
	if (d->fresh == UINT64_MAX) {
		amp_param_unknown(&lv->replacement,
				  "a level above replaces at random with so many ways that pushing each test line out of it takes more evictors than a test can afford: nothing makes every test access reach this level");
		return -1;
	}
	/* Evictors sit at odd multiples of the step (the way above, or this
	 * level's line where that is longer), test sets at even ones. */
	wj = amp_evictor_step(lv);
	reach = wk >= 2 * wj ? wk / (2 * wj) : 0; /* sets of lv one set above covers, evictors aside */
	if (d->a > up->thrash_ways) {
		uint64_t before = c->accesses;
		int rc;

		/* More ways than above: an exclusive pair, if the summed ways
		 * no longer fit once the level above holds none of them (with
		 * no evictor to try, assumed: the fit of the answer decides). */
		if (!reach) {
			d->combined = 1;
			return 0;
		}
		rc = amp_cyclic_rate_ex(c, lv, 0, wk, (uint64_t)d->a, 1, wk, &rate, err, sizeof err);
		*cost += c->accesses - before;
		if (rc < 0) {
			amp_param_unknown(&lv->replacement, "%s", err);
			return -1;
		}
		if (amp_thrashes(lv, rate)) {
			if (d->fresh && !pair_modelled(lv)) {
				/* The pair's rounds run without evictors, and
				 * the random level above makes any pair look
				 * random. */
				amp_param_unknown(&lv->replacement,
						  "an exclusive pair under a level that replaces at random: the pair looks random whatever this level does");
				return -1;
			}
			d->fresh = 0; /* the pair's rounds run without evictors */
			d->combined = 1;
			return 0;
		}
	} else if (!reach) {
		amp_param_unknown(&lv->replacement,
				  "its way size (%lld B) is under twice the one of %s above: no evictor reaches it",
				  (long long)wk, up->name);
		return -1;
	} else if (!d->fresh && amp_evictors_per_set(lv) > (uint64_t)d->a) {
		/* Levels above that hold more of a set than this level's ways
		 * (an exclusive chain of 28 over a 20-way L4 whose way is
		 * twice L3's): the evictors of a test line overflow the
		 * sets of this level they share, and their misses would read
		 * as random replacement. */
		amp_param_unknown(&lv->replacement,
				  "too few sets to hold the lines that evict a test line from %s: %llu of them in %llu set%s of %lld ways here",
				  up->name, (unsigned long long)amp_evictors_plain(lv), (unsigned long long)reach, reach == 1 ? "" : "s",
				  (long long)d->a);
		return -1;
	}
	d->evict = 1;
	d->delta = 2 * wj;
	d->stride = wk;
	d->avail = reach;
	d->per_access = 1 + (d->fresh ? d->fresh : amp_evictors_plain(lv));
	return 0;
}

/* The walk before (fresh_pool_design's), flushed before the next. */
struct walked {
	uint64_t *off, n;
};

/* Which of g[0..k-1] may join d->pool (up to `want`): walked with its
 * ways of set lines and the pool so far, a group that misses here holds
 * a line of the tested set, or overflows another set with the pool (k
 * is no more than its ways, so the group alone overflows none); it is
 * then halved where `halve`.  So the pool fits this level: its lines
 * hit here, and what a plan counts is its test lines' misses.  The
 * lines of the walk before are flushed first (under random replacement
 * one of the set left behind would make the next walk miss). */
static int sort_fresh(struct amp_ctx *c, struct amp_level *lv, struct design *d, struct walked *w,
		      const uint64_t *g, uint64_t k, uint64_t want, int halve, char *err, size_t len)
{
	uint64_t a = (uint64_t)d->a, n = a + d->npool + k, region = 0, *walk;
	double rate;
	int rc;

	if (!k || d->npool >= want)
		return 0;
	walk = malloc((n + w->n) * sizeof *walk);
	if (!walk) {
		snprintf(err, len, "%s: out of memory for a walk of %llu lines", lv->name, (unsigned long long)n);
		return -1;
	}
	memcpy(walk, lv->set_lines, a * sizeof *walk);
	memcpy(walk + a, d->pool, d->npool * sizeof *walk);
	memcpy(walk + a + d->npool, g, k * sizeof *g);
	if (w->n)
		memcpy(walk + n, w->off, w->n * sizeof *walk); /* the flush: this walk, then the one before */
	for (uint64_t i = 0; i < n + w->n; i++)
		region = walk[i] + d->line > region ? walk[i] + d->line : region;
	rc = amp_offsets_rate_flushed(c, lv, walk, n, walk, n + w->n, region, amp_set_frames(lv), &rate, err, len);
	free(w->off);
	w->off = walk;
	w->n = n;
	if (rc < 0)
		return -1;
	if (rate * (double)n < JOIN_MISSES) {
		for (uint64_t i = 0; i < k && d->npool < want; i++)
			d->pool[d->npool++] = g[i];
		return 0;
	}
	if (k == 1 || !halve)
		return 0;
	if (sort_fresh(c, lv, d, w, g, k / 2, want, halve, err, len) < 0)
		return -1;
	return sort_fresh(c, lv, d, w, g + k / 2, k - k / 2, want, halve, err, len);
}

/* A random L1 above a found set, of a way over half a page: no line of
 * its set lies at another offset of a page.  The fresh lines then lie
 * at the set lines' own offset in other pages, a multiple of its way
 * apart (L1 is indexed by virtual address), and those that fit this
 * level out of its tested set (sort_fresh: the frames' colours are
 * unknown) are taken in turn, FRESH_POOL_TURNS times as many as an
 * access takes where so many fit.
 * 0, or -1 with the parameter unknown. */
static int fresh_pool_design(struct amp_ctx *c, struct amp_level *lv, struct design *d, uint64_t step)
{
	const struct amp_arena *arena = amp_set_frames(lv);
	uint64_t apart = step, off, want = FRESH_POOL_TURNS * d->fresh, limit, tried = 0, g[AMP_SET_LINES_MAX], k = 0;
	uint64_t group = (uint64_t)d->a < AMP_SET_LINES_MAX ? (uint64_t)d->a : AMP_SET_LINES_MAX;
	struct walked w = { NULL, 0 };
	char err[AMP_REASON_LEN];
	int rc = 0;

	for (const struct amp_level *a = lv->above; a; a = a->above)
		if (amp_replaces_at_random(a) && 2 * (uint64_t)a->way.value > c->page && a->level != 1) {
			amp_param_unknown(&lv->replacement,
					  "a level above replaces at random, and its way is over half a page (lines of its set at other page offsets would be needed; %s is physically indexed): nothing makes every test access reach this level",
					  a->name);
			return -1;
		}
	while (apart % c->page)
		apart += step; /* the same page offset: the same L1 set, whatever the frame */
	off = lv->set_lines[0] % apart;
	for (int i = 0; i < lv->nset_lines; i++)
		if (lv->set_lines[i] % apart != off) {
			amp_param_unknown(&lv->replacement,
					  "a level above replaces at random, and its way is over half a page: its set lines lie in several of its sets, so no fresh line shares the set of each: nothing makes every test access reach this level");
			return -1;
		}
	if (want > FRESH_POOL_MAX) {
		amp_param_unknown(&lv->replacement,
				  "a level above replaces at random, and its way is over half a page: the %llu fresh lines in turn that push a line out of it are more than %d: nothing makes every test access reach this level",
				  (unsigned long long)want, FRESH_POOL_MAX);
		return -1;
	}
	limit = arena ? arena->size / apart : UINT64_MAX;
	d->npool = 0;
	/* Until `want`, or FRESH_POOL_TRIES candidates per line wanted; with
	 * the least kept, the first group that does not join whole ends it
	 * (the level's other sets are filling up). */
	for (uint64_t j = 0; j < limit && d->npool < want && tried < FRESH_POOL_TRIES * want; j++) {
		uint64_t x = off + j * apart;

		if (amp_contains(lv->set_lines, (uint64_t)lv->nset_lines, x) ||
		    amp_contains(lv->set_pushers, (uint64_t)lv->nset_pushers, x))
			continue;
		g[k++] = x;
		tried++;
		if (k == group || d->npool + k >= want) {
			uint64_t kept = d->npool, least = FRESH_POOL_LEAST * d->fresh;

			if ((rc = sort_fresh(c, lv, d, &w, g, k, want, kept < least, err, sizeof err)) < 0) {
				amp_param_unknown(&lv->replacement, "%s", err);
				break;
			}
			if (kept >= least && d->npool < kept + k && d->npool < want)
				break;
			k = 0;
		}
	}
	free(w.off);
	if (rc < 0)
		return -1;
	if (d->npool < FRESH_POOL_LEAST * d->fresh) {
		amp_param_unknown(&lv->replacement,
				  "a level above replaces at random, and its way is over half a page: %llu of %llu lines at its set lines' page offset fit it out of its tested set (%llu wanted): nothing makes every test access reach this level",
				  (unsigned long long)d->npool, (unsigned long long)tried,
				  (unsigned long long)(FRESH_POOL_LEAST * d->fresh));
		return -1;
	}
	return 0;
}

/* A random level above a found set: fresh lines must share its set (a
 * multiple of its way apart) yet not this level's tested one (another
 * page offset, this level's line or more apart; or where its way is
 * over half a page, fresh_pool_design).  0, or -1 with the parameter
 * unknown. */
static int fresh_design(struct amp_ctx *c, struct amp_level *lv, struct design *d, uint64_t *cost)
{
	const struct amp_arena *arena = amp_set_frames(lv);
	uint64_t step = d->line, accesses, pages;

	for (const struct amp_level *a = lv->above; a; a = a->above)
		if (amp_replaces_at_random(a) && (uint64_t)a->way.value > step)
			step = (uint64_t)a->way.value;
	if (d->fresh == UINT64_MAX) {
		amp_param_unknown(&lv->replacement,
				  "a level above replaces at random, and pushing a line out of it takes more lines than a test can afford: nothing makes every test access reach this level");
		return -1;
	}
	if (2 * step > c->page) {
		uint64_t before = c->accesses;
		int rc = fresh_pool_design(c, lv, d, step);

		*cost += c->accesses - before;
		return rc;
	}
	d->fresh_step = step;
	/* Each access's fresh lines once, in as many pages as they need. */
	accesses = (uint64_t)ROUNDS_MAX * ((uint64_t)d->a + MAX_RHO + 2) * d->fresh;
	pages = (accesses + c->page / step - 2) / (c->page / step - 1);
	d->fresh_region = pages * c->page;
	if (arena && arena->size < d->fresh_region) {
		amp_param_unknown(&lv->replacement,
				  "a level above replaces at random, and the fresh lines that push each test line out of it need %llu pages, more than its eviction sets' %llu",
				  (unsigned long long)pages, (unsigned long long)(arena->size / c->page));
		return -1;
	}
	return 0;
}

/* Counters, below L2: whether `push` pushers take a set line out of
 * every level above, not only out of L1: a walk of one set line and
 * the pushers then misses the level right above on each walk.  An
 * exclusive pair's pushers are picked by L2's misses, and a line of
 * L1's set alone passes for one of L2's set there (it takes one of
 * L1's ways from a walk that fills the pair, mod_evset.c): such
 * pushers leave the line in L2, where a retouch or probe just after
 * its last use hits (a FIFO L3 under an exclusive 24-way L2 of a 32-way
 * pair read no policy: its victim, retouched late, never reached L3). */
static int pushers_clear_above(struct amp_ctx *c, const struct amp_level *lv, const struct design *d, int push,
			       int *clear, char *err, size_t len)
{
	uint64_t walk[AMP_MAX_CONG + 1], n = (uint64_t)push + 1;
	double rate;

	walk[0] = lv->set_lines[0];
	memcpy(walk + 1, lv->set_pushers, (size_t)push * sizeof *walk);
	if (amp_offsets_rate_flushed(c, lv->above, walk, n, walk, n, amp_set_lines_region(lv, d->line, push),
				     amp_set_frames(lv), &rate, err, len) < 0)
		return -1;
	*clear = rate * (double)n >= 0.5;
	return 0;
}

/* Ways of the levels between L1 and lv that keep a line (not random):
 * their own, without L1's. */
static int ways_below_l1(const struct amp_level *lv)
{
	int most = 0;

	for (const struct amp_level *a = lv->above; a && a->level > 1; a = a->above)
		if (!amp_replaces_at_random(a) && a->assoc.value > most)
			most = (int)a->assoc.value;
	return most;
}

/* Rounds on the level's set lines (found_set_usable): no evictors; the
 * lines between two accesses of one must outnumber the ways above (of
 * a random level above: fresh lines of its set before each access). */
static int found_set_design(struct amp_ctx *c, struct amp_level *lv, struct design *d, uint64_t *cost)
{
	const struct amp_level *up = lv->above;

	d->fresh = amp_evictors_fresh(lv);
	if (d->fresh && fresh_design(c, lv, d, cost) < 0)
		return -1;
	d->found_set = 1;
	for (const struct amp_level *a = up; a; a = a->above) {
		int pair = lru_pair_ways(a);

		if (!amp_replaces_at_random(a))
			d->above = a->thrash_ways > d->above ? a->thrash_ways : d->above;
		d->above = pair > d->above ? pair : d->above;
	}
	d->groups = (uint64_t)lv->nset_lines / ((uint64_t)d->a + 1);
	d->unit = d->line;
	d->avail = 1;
	/* 1 with pushers or fresh lines too: random's probes need as many
	 * rounds to stand clear (a plan costs 1 + push + fresh times as
	 * much). */
	d->per_access = 1;
	if (lv->nset_pushers && d->above) {
		/* No more ways than L1: the set's lines alone would stay
		 * there; `above` pushers before each access miss L1 in a
		 * row and take the line before out of it. */
		if (d->above > lv->nset_pushers) {
			amp_param_unknown(&lv->replacement, "%d pushers, fewer than %s's %d ways", lv->nset_pushers,
					  up->name, d->above);
			return -1;
		}
		d->push = d->above;
		d->above = 0;
		if (up->level > 1 && !amp_replaces_at_random(up)) {
			uint64_t before = c->accesses;
			char why[AMP_REASON_LEN];
			int clear;

			if (pushers_clear_above(c, lv, d, d->push, &clear, why, sizeof why) < 0) {
				amp_param_unknown(&lv->replacement, "%s", why);
				return -1;
			}
			*cost += c->accesses - before;
			/* Out of L1 only: the set's lines must pass the
			 * ways below it between two uses of one. */
			if (!clear)
				d->above = ways_below_l1(lv);
		}
	}
	return 0;
}

/* Where no retouch order of a found set reaches this level (ways above
 * near its own: each retouch would have to be the line used longest
 * ago, and lru, plru and fifo evict alike), the other half of a line
 * may: where every line above is at most half a line here
 * (amp_offset_bypass), a half lies in other sets above.  The set lines
 * must share their offset in a line, so their halves share sets above. */
static int halves_usable(const struct amp_level *lv, struct design *d)
{
	uint64_t half = amp_offset_bypass(lv);

	if (!d->found_set || !d->above || !half || d->groups < 2)
		return 0;
	for (int i = 1; i < lv->nset_lines; i++)
		if (lv->set_lines[i] % d->line != lv->set_lines[0] % d->line)
			return 0;
	d->parts = 2;
	d->half = half;
	return 1;
}

/* Plan means of this level's policy `pol` in an exclusive pair under
 * the level above (`up` ways, policy `above_pol`): the unexplained
 * misses per round of each plan and their standard errors over the
 * plans' rounds.  0, or -1 (out of memory). */
static int pair_means(const struct design *d, enum amp_policy_id pol, enum amp_policy_id above_pol, int up,
		      double *mean, double *se)
{
	double rounds = (double)(d->sets * d->rounds);
	struct model here, above;

	if (model_init(&here, pol, d->a, 0x70616972 ^ (uint64_t)d->a) < 0)
		return -1;
	if (model_init_ids(&above, above_pol, up, 2 * (size_t)d->a + 1, 0x61626f76 ^ (uint64_t)up) < 0) {
		model_free(&here);
		return -1;
	}
	here.up = &above;
	here.own = d->a - up;
	for (here.depth = 0; (1 << here.depth) < here.own; here.depth++)
		;
	for (int h = 0; h < d->npol; h++) {
		double probe;

		plan_model(d, &here, d->rho, d->nrho, h, &mean[h], &se[h], &probe);
		se[h] /= sqrt(rounds);
	}
	here.up = NULL;
	model_free(&here);
	model_free(&above);
	return 0;
}

/* An exclusive pair under a random level above (a 2-way random L1d over
 * a 4-way L2): every plan's misses are shares whatever this level does,
 * so each policy here is a model of the pair, and a vote reads the one
 * its misses fit.  The models: ordered (lru and fifo, which a victim
 * level cannot tell apart), tree plru where its own ways are a power of
 * two over 2, and random.  Only random is an answer (an ordered level's
 * own order never shows), and only where its model stands apart from
 * each ordered one (pm_apart > 0: in some plan by more than three
 * standard errors of each mean). */
static int pair_models(struct design *d, const struct amp_level *lv)
{
	int up = lv->above->thrash_ways, own = d->a - up, r;

	d->npm = 0;
	d->pm_pol[d->npm++] = AMP_POLICY_FIFO;
	if (own > 2 && amp_is_pow2((uint64_t)own))
		d->pm_pol[d->npm++] = AMP_POLICY_PLRU;
	d->pm_pol[d->npm++] = AMP_POLICY_RANDOM;
	for (int k = 0; k < d->npm; k++)
		if (pair_means(d, d->pm_pol[k], AMP_POLICY_RANDOM, up, d->pm[k], d->pm_se[k]) < 0)
			return -1;
	r = d->npm - 1;
	d->pm_apart = INFINITY;
	for (int k = 0; k < r; k++) {
		double far = 0;

		for (int h = 0; h < d->npol; h++)
			far = fmax(far, fabs(d->pm[r][h] - d->pm[k][h]) - 3 * (d->pm_se[r][h] + d->pm_se[k][h]));
		d->pm_apart = fmin(d->pm_apart, far);
	}
	return 0;
}

/* An exclusive pair tested as one (d->combined) under a level of known
 * order: random replacement here does not make the pair a random set of
 * its summed ways (the level above keeps its order, and only its
 * victims come here; a pair of a 3-way LRU L1d over a random 2-way L2
 * read 1.02 and 0.49 unexplained misses a round in the lru and fifo
 * plans, where a random 5-way set has at least 0.5 in each).  So
 * random's misses are read against a model of that pair, where it
 * stands clear of every deterministic answer (three standard errors
 * beyond the tolerance).  Under a random level above every answer is a
 * share: see pair_models. */
static int pair_design(struct design *d, const struct amp_level *lv)
{
	const struct amp_level *up = lv->above;
	double se[3];

	if (!d->combined || !up || !amp_param_conclusive(&up->replacement) ||
	    up->replacement.value == AMP_POLICY_UNKNOWN || up->thrash_ways < 1 || up->thrash_ways >= d->a)
		return 0;
	if (up->replacement.value == AMP_POLICY_RANDOM)
		/* Only rounds without evictors, counted, under L1. */
		return d->fresh || !pair_modelled(lv) ? 0 : pair_models(d, lv);
	if (pair_means(d, AMP_POLICY_RANDOM, (enum amp_policy_id)up->replacement.value, up->thrash_ways,
		       d->pair_mean, se) < 0)
		return -1;
	if (!clear_of_policies(d, d->pair_mean, se))
		return 0;
	d->pair_random = 1;
	return 0;
}

/* By timing: whether the walk one line over the ways missed as random
 * replacement does, about 2/(ways + 1) of its accesses (the simulated
 * machine: 0.38 at 4 ways, 0.20 at 8, 0.14 at 12, 0.11 at 16), within
 * these factors; Intel's 12-way L1d misses about half. */
#define RANDOM_SHARE_LOW 0.5
#define RANDOM_SHARE_HIGH 1.6

static int random_share(const struct amp_level *lv, int ways)
{
	double share = 2.0 / (ways + 1);

	return lv->overflow_share >= RANDOM_SHARE_LOW * share && lv->overflow_share <= RANDOM_SHARE_HIGH * share;
}

static int replace_run(struct amp_ctx *c, struct amp_level *lv, char *err, size_t len)
{
	struct design *d = &design;
	char why[AMP_REASON_LEN];
	uint64_t cost = 0;
	int most;

	if (victim_level(lv))
		return victim_run(c, lv); /* replace_supported: victim_rounds_usable */
	memset(d, 0, sizeof *d);
	d->parts = 1;
	d->a = lv->thrash_ways;
	if (lv->method == AMP_METHOD_TIMING)
		d->max_lines = timed_max_lines(c, lv);
	d->line = (uint64_t)lv->line.value;
	/* Tree plru: power-of-two ways only, and the same as lru at two. */
	d->pol[d->npol++] = AMP_POLICY_LRU;
	if (d->a > 2 && amp_is_pow2((uint64_t)d->a))
		d->pol[d->npol++] = AMP_POLICY_PLRU;
	d->pol[d->npol++] = AMP_POLICY_FIFO;
	if ((amp_strides_mislead(c, lv) ? found_set_design(c, lv, d, &cost) : choose_reach(c, lv, d, &cost)) < 0) {
		lv->replacement.method = amp_method_names[lv->method];
		lv->replacement.accesses = cost;
		return 0;
	}
	if (!d->evict && !d->found_set) {
		uint64_t wk = (uint64_t)lv->way.value;

		d->delta = d->unit;
		d->stride = wk;
		d->avail = wk / d->unit;
		/* A pair: each of its sets in a set of its own above too. */
		if (d->combined && (uint64_t)lv->above->way.value / d->unit < d->avail)
			d->avail = (uint64_t)lv->above->way.value / d->unit;
		d->per_access = 1;
	}
	if (d->avail < 1)
		d->avail = 1;
	most = d->line / 8 > 4 ? (int)(d->line / 8) - 2 : 2;
	/* Retouches per line: words enough for each its own, at least two
	 * (short lines reuse words, see visit()). */
	if (choose_rho(d, most, why, sizeof why) < 0 && (!halves_usable(lv, d) || choose_rho(d, most, why, sizeof why) < 0)) {
		amp_param_unknown(&lv->replacement, "%s", why);
		lv->replacement.method = amp_method_names[lv->method];
		lv->replacement.accesses = cost;
		return 0;
	}
	size_plans(d, d->nrho);
	if (pair_design(d, lv) < 0) {
		amp_param_unknown(&lv->replacement, "out of memory for a model of a %d-way pair", d->a);
		lv->replacement.method = amp_method_names[lv->method];
		return 0;
	}
	if (d->npm && d->pm_apart <= 0) {
		amp_param_unknown(&lv->replacement,
				  "an exclusive pair under a level that replaces at random: the pair looks random whatever this level does (its models differ by under 3 standard errors)");
		lv->replacement.method = amp_method_names[lv->method];
		lv->replacement.accesses = cost;
		return 0;
	}
	amp_vote(c, lv, replace_vote, &lv->replacement);
	lv->replacement.accesses += cost;
	if (lv->replacement.known && lv->replacement.value == AMP_POLICY_UNKNOWN) {
		char names[32] = "", e[96] = "";

		for (int h = 0; h < d->npol; h++) {
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", h ? "/" : "",
				 amp_policy_names[d->pol[h]]);
			snprintf(e + strlen(e), sizeof e - strlen(e), "%s%.2f", h ? "/" : "", d->last_e[h]);
		}
		if (d->npm) {
			char m[128] = "";

			for (int k = 0; k < d->npm; k++) {
				snprintf(m + strlen(m), sizeof m - strlen(m), "%s%s ", k ? "; " : "",
					 amp_policy_names[d->pm_pol[k]]);
				for (int h = 0; h < d->npol; h++)
					snprintf(m + strlen(m), sizeof m - strlen(m), "%s%.2f", h ? "/" : "", d->pm[k][h]);
			}
			amp_param_unknown(&lv->replacement,
					  "the misses fit no policy: extra misses per round %s in the %s probes (under random %s: %s)",
					  e, names, lv->above->name, m);
		} else if (lv->method == AMP_METHOD_TIMING) {
			double sum_p = 0;

			for (int h = 0; h < d->npol; h++)
				sum_p += d->rand_probe[h];
			amp_param_unknown(&lv->replacement,
					  "the misses fit no policy: probe misses per round %s in the %s plans, from time (a policy: 1 in its own, 0 elsewhere; random: each at most its model's share + %.2f, %.2f in all at least)",
					  e, names, TOL, sum_p / 2);
		} else if (d->found_set)
			amp_param_unknown(&lv->replacement,
					  "the misses fit no policy: probe misses per round %s in the %s plans (a policy: 1 in its own, 0 elsewhere; random: %.2f to %.2f everywhere)",
					  e, names, d->rand_probe[0] / 2, d->rand_probe[0] + TOL);
		else if (d->pair_random) {
			char m[96] = "";

			for (int h = 0; h < d->npol; h++)
				snprintf(m + strlen(m), sizeof m - strlen(m), "%s%.2f", h ? "/" : "", d->pair_mean[h]);
			amp_param_unknown(&lv->replacement,
					  "the misses fit no policy: extra misses per round %s in the %s probes (a policy: 1 in its own, 0 elsewhere; random in this pair: near %s)",
					  e, names, m);
		} else
			amp_param_unknown(&lv->replacement,
					  "the misses fit no policy: extra misses per round %s in the %s probes (a policy: 1 in its own, 0 elsewhere; random: 0.5 or more everywhere)",
					  e, names);
	} else if (amp_param_conclusive(&lv->replacement) && lv->replacement.value != AMP_POLICY_RANDOM &&
		   d->npm) {
		/* Under a random level the pair has no order to pass on. */
		amp_param_unknown(&lv->replacement,
				  "exclusive (it holds what %s evicts, and a hit moves the line up): its own order of use never shows (under random %s the misses fit an ordered policy here, not random)",
				  lv->above->name, lv->above->name);
	} else if (amp_param_conclusive(&lv->replacement) && lv->replacement.value != AMP_POLICY_RANDOM &&
		   (d->combined || (amp_param_conclusive(&lv->inclusion) &&
				    lv->inclusion.value == AMP_INCL_EXCLUSIVE))) {
		/* A victim level: a line that hits here moves up and leaves,
		 * so nothing here is ever used again in place; lru and fifo
		 * evict alike, and the order seen is the pair's; under a
		 * random level above (rounds with fresh evictors) the pair has
		 * none. */
		if (amp_replaces_at_random(lv->above))
			amp_param_unknown(&lv->replacement,
					  "exclusive (it holds what %s evicts, and a hit moves the line up): its own order of use never shows (its lines leave in the order they came down)",
					  lv->above->name);
		else {
			lv->pair_order_known = 1;
			lv->pair_order = (enum amp_policy_id)lv->replacement.value;
			amp_param_unknown(&lv->replacement,
					  "exclusive (it holds what %s evicts, and a hit moves the line up): its own order of use never shows; the pair evicts as %s",
					  lv->above->name, amp_policy_names[lv->replacement.value]);
		}
	} else if (amp_param_conclusive(&lv->replacement) && lv->replacement.value != AMP_POLICY_RANDOM &&
		   amp_spares_overflow(lv)) {
		/* lru, tree plru and fifo all miss every access of a cyclic
		 * walk one line over the ways.  Random's own share: its
		 * rounds, one eviction in `ways` among noise, can read lru
		 * where ways are many (a random 12-way L1d with noise read
		 * lru in 2 rounds of 3, its walk missing 0.14).  Another
		 * share is a policy that spares some of them (Intel's L1d:
		 * 13 lines 4 KiB apart in its 12 ways missed about half the
		 * time), which answered rounds like lru here. */
		if (random_share(lv, d->a)) {
			snprintf(lv->replacement.reason, sizeof lv->replacement.reason,
				 "random: a cyclic walk of %d lines, one more than its ways, missed %.2f of its accesses, near random replacement's 2/%d (lru, plru and fifo miss them all; the rounds read %s)",
				 d->a + 1, lv->overflow_share, d->a + 1, amp_policy_names[lv->replacement.value]);
			lv->replacement.value = AMP_POLICY_RANDOM;
		} else
			amp_param_unknown(&lv->replacement,
					  "a cyclic walk of %d lines, one more than its ways, missed only %.2f of its accesses, where lru, plru and fifo miss them all: a policy amp does not model (the rounds read %s)",
					  d->a + 1, lv->overflow_share, amp_policy_names[lv->replacement.value]);
	} else if (amp_param_conclusive(&lv->replacement) && d->a == 2 &&
		   lv->replacement.value == AMP_POLICY_LRU) {
		snprintf(lv->replacement.reason, sizeof lv->replacement.reason,
			 "2 ways: tree plru evicts as lru does");
	}
	return 0;
}

const struct amp_module amp_module_replacement = {
	.name = "replacement",
	.summary = "replacement policy (lru, tree plru, fifo, random) from which line one more line evicts",
	.kinds = 1u << AMP_KIND_CACHE | 1u << AMP_KIND_TLB,
	.fills = { AMP_FILLS(replacement) },
	.applies = replace_applies,
	.supported = replace_supported,
	.run = replace_run,
};
