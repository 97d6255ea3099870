/* cpu_sys.c - execution contexts, SMT pairs, the scheduler's time slot
 * and the locality tree (see cpu_sys.h); the analyses first, then the
 * thread benchmarks, then the report's sections. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpu_sys.h"
#include "timer.h"
#include "timing.h"
#include "util.h"

const char *const amp_work_names[AMP_WORK_KINDS] = { "integer", "float", "memory" };

#define DEFAULT_BUDGET_S 15.0
#define CTX_UNIT_NS 20000000ULL    /* one thread's work for the context curves */
#define SMT_UNIT_NS 10000000ULL
#define SMT_SLOWDOWN 1.5           /* both threads on one core: near 2 */
#define SLOT_RUN_NS 600000000ULL   /* how long the oversubscribed threads run */
#define SLOT_THRESHOLD_NS 20000    /* BlackjackBench's 20 us: far above a loop turn */
/* A virtual machine's exits and the host's interrupts take the thread
 * away for tens of microseconds, often: more often than slots end.
 * Gaps this short are counted but are not candidates for the slot. */
#define SLOT_MODE_FLOOR_MS 0.2
#define SLOT_MAX_GAPS 4096
#define SLOT_MIN_GAPS 10
#define GAP_MODE_WIDTH 0.1
#define CLIQUE_MIN_RATIO 1.2       /* faster pairs this much above the slowest: a clique */
#define CTX_REPS 5
#define CTX_CHUNKS 256           /* a thread's work in chunks (about 80 us), each timed */
/* Threads running together at full speed: their chunks take about one
 * alone's time; sharing a core's unit, about twice; a preempted chunk
 * takes a time slot longer.  Halfway between the first two. */
#define CTX_TOGETHER_MAX 1.5
#define CTX_RETRY_NS 1000000000ULL /* per kind: more tries for the next thread count */
#define SMT_REPS 5

/* ---- the analyses ---- */

double amp_ctx_together(const uint64_t *start, const uint64_t *end, int nth, int nchunks, double solo)
{
	double best = 0;

	if (nth < 1 || nchunks < 1 || solo <= 0)
		return 0;
	/* Every chunk's start is a candidate instant; at it, each thread's
	 * chunk that covers it (chunks of a thread are in time order). */
	for (int i = 0; i < nth * nchunks; i++) {
		uint64_t at = start[i];
		double worst = 0;
		int all = 1;

		for (int t = 0; t < nth && all; t++) {
			int lo = 0, hi = nchunks - 1, k = -1;

			while (lo <= hi) {     /* the last chunk of t starting at or before `at` */
				int mid = (lo + hi) / 2;

				if (start[t * nchunks + mid] <= at) {
					k = mid;
					lo = mid + 1;
				} else {
					hi = mid - 1;
				}
			}
			if (k < 0 || end[t * nchunks + k] < at)
				all = 0;
			else if ((double)(end[t * nchunks + k] - start[t * nchunks + k]) > worst)
				worst = (double)(end[t * nchunks + k] - start[t * nchunks + k]);
		}
		if (all && (!best || worst < best))
			best = worst;
	}
	/* Never all running at once: one after the other, as on one context. */
	return best ? best / solo : (double)nth;
}

int amp_ctx_count(const double *y, int n, double limit)
{
	int m = 0;

	while (m < n && y[m] > 0 && y[m] <= limit)
		m++;
	return m;
}

double amp_gap_mode(double *gaps, int n, double rel_width, double floor)
{
	int best_i = -1, best_j = -1, lo = 0;

	if (n <= 0)
		return 0;
	qsort(gaps, (size_t)n, sizeof *gaps, amp_cmp_double);
	while (lo < n && gaps[lo] < floor)
		lo++;
	if (lo == n)
		return 0;
	for (int i = lo, j = lo; i < n; i++) {
		if (j < i)
			j = i;
		while (j + 1 < n && gaps[j + 1] <= gaps[i] * (1 + rel_width))
			j++;
		if (best_i < 0 || j - i > best_j - best_i) {
			best_i = i;
			best_j = j;
		}
	}
	return gaps[(best_i + best_j) / 2];
}

#define MAX_PAIRS (AMP_CPUSYS_MAX_CPUS * (AMP_CPUSYS_MAX_CPUS - 1) / 2)

static int find_root(int *up, int i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

/* Median bandwidth of the pairs inside `cpus` (0 for a single CPU). */
static double clique_median(int n, const double *m, uint64_t cpus)
{
	static double v[MAX_PAIRS];
	int k = 0;

	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if ((cpus >> i & 1) && (cpus >> j & 1))
				v[k++] = m[i * n + j];
	return amp_median(v, (size_t)k);
}

/* Splits the clique `cpus` by the pair values m (n x n) at one block
 * size; returns the number of sub-cliques written to comp (1: none). */
static int split_clique(int n, const double *m, uint64_t cpus, uint64_t *comp)
{
	static double sorted[MAX_PAIRS], fast[MAX_PAIRS], slow[MAX_PAIRS];
	static int first[MAX_PAIRS], last[MAX_PAIRS];
	int up[AMP_CPUSYS_MAX_CPUS], np = 0, nf = 0, ns = 0, runs, ncomp = 0;
	double slow_max;

	comp[0] = cpus;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if ((cpus >> i & 1) && (cpus >> j & 1))
				sorted[np++] = m[i * n + j];
	if (np < 2)
		return 1;
	qsort(sorted, (size_t)np, sizeof *sorted, amp_cmp_double);
	runs = amp_qt_runs(sorted, np, first, last, MAX_PAIRS);
	if (runs < 2 || first[0] != 0)
		return 1;
	/* The slowest cluster is the traffic between sub-cliques. */
	slow_max = sorted[last[0]];
	for (int i = 0; i < np; i++) {
		if (sorted[i] > slow_max)
			fast[nf++] = sorted[i];
		else
			slow[ns++] = sorted[i];
	}
	if (amp_median(fast, (size_t)nf) < CLIQUE_MIN_RATIO * amp_median(slow, (size_t)ns))
		return 1;
	for (int i = 0; i < n; i++)
		up[i] = i;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if ((cpus >> i & 1) && (cpus >> j & 1) && m[i * n + j] > slow_max)
				up[find_root(up, i)] = find_root(up, j);
	for (int i = 0; i < n; i++) {
		uint64_t group = 0;

		if (!(cpus >> i & 1) || find_root(up, i) != i)
			continue;
		for (int j = 0; j < n; j++)
			if ((cpus >> j & 1) && find_root(up, j) == i)
				group |= 1ULL << j;
		comp[ncomp++] = group;
	}
	return ncomp;
}

int amp_clique_tree(int n, int nblocks, const uint64_t *block, const double *bw,
		    struct amp_locality_node *node, int max)
{
	int start[AMP_CPUSYS_MAX_NODES], nn = 1;

	if (n < 1 || n > AMP_CPUSYS_MAX_CPUS || nblocks < 1 || max < 1)
		return 0;
	if (max > AMP_CPUSYS_MAX_NODES)
		max = AMP_CPUSYS_MAX_NODES;
	memset(&node[0], 0, sizeof node[0]);
	node[0].cpus = n == 64 ? ~0ULL : (1ULL << n) - 1;
	node[0].parent = -1;
	node[0].block = block[nblocks - 1];
	node[0].gbs = clique_median(n, bw + (size_t)(nblocks - 1) * n * n, node[0].cpus);
	start[0] = nblocks - 1;
	/* Breadth first: a node's children are analysed from the block that
	 * told them apart downwards. */
	for (int k = 0; k < nn; k++)
		for (int b = start[k]; b >= 0; b--) {
			const double *m = bw + (size_t)b * n * n;
			uint64_t comp[AMP_CPUSYS_MAX_CPUS];
			int nc = split_clique(n, m, node[k].cpus, comp);

			if (nc < 2)
				continue;
			for (int c = 0; c < nc && nn < max; c++, nn++) {
				node[nn].cpus = comp[c];
				node[nn].parent = k;
				node[nn].depth = node[k].depth + 1;
				node[nn].block = block[b];
				node[nn].gbs = clique_median(n, m, comp[c]);
				start[nn] = b;
			}
			break;
		}
	return nn;
}

/* ---- threads ---- */

struct team {
	pthread_barrier_t bar;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int go;                    /* 1: every thread exists; -1: give up */
	void (*fn)(struct amp_team_member *);
};

void amp_team_sync(struct amp_team_member *m)
{
	pthread_barrier_wait(&((struct team *)m->team)->bar);
}

static void *team_thread(void *p)
{
	struct amp_team_member *m = p;
	struct team *t = m->team;
	int go;

	if (m->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(m->cpu, &set);
		m->pin_errno = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	}
	/* The gate opens once every thread exists (or shuts if one could
	 * not be made); the barrier then starts them together. */
	pthread_mutex_lock(&t->mu);
	while (!t->go)
		pthread_cond_wait(&t->cv, &t->mu);
	go = t->go;
	pthread_mutex_unlock(&t->mu);
	if (go < 0)
		return NULL;
	pthread_barrier_wait(&t->bar);
	m->start_ns = amp_now_ns();
	t->fn(m);
	m->end_ns = amp_now_ns();
	return NULL;
}

uint64_t amp_team_run(int n, const int *cpu, void (*fn)(struct amp_team_member *), void *arg,
		      struct amp_team_member *m, char *err, size_t len)
{
	pthread_t th[AMP_CPUSYS_MAX_THREADS * 2];
	struct team t;
	uint64_t first = UINT64_MAX, last = 0;
	int started = 0, rc = 0;

	if (n < 1 || n > (int)(sizeof th / sizeof th[0])) {
		snprintf(err, len, "%d threads: out of range", n);
		return 0;
	}
	t.fn = fn;
	t.go = 0;
	if (pthread_barrier_init(&t.bar, NULL, (unsigned)n) != 0) {
		snprintf(err, len, "pthread_barrier_init failed");
		return 0;
	}
	pthread_mutex_init(&t.mu, NULL);
	pthread_cond_init(&t.cv, NULL);
	for (int i = 0; i < n; i++) {
		memset(&m[i], 0, sizeof m[i]);
		m[i].index = i;
		m[i].cpu = cpu ? cpu[i] : -1;
		m[i].arg = arg;
		m[i].team = &t;
	}
	for (; started < n; started++) {
		rc = pthread_create(&th[started], NULL, team_thread, &m[started]);
		if (rc != 0)
			break;
	}
	pthread_mutex_lock(&t.mu);
	t.go = rc ? -1 : 1;
	pthread_cond_broadcast(&t.cv);
	pthread_mutex_unlock(&t.mu);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&t.bar);
	pthread_cond_destroy(&t.cv);
	pthread_mutex_destroy(&t.mu);
	if (rc != 0) {
		snprintf(err, len, "cannot start thread %d of %d: %s", started + 1, n, strerror(rc));
		return 0;
	}
	for (int i = 0; i < n; i++) {
		if (m[i].start_ns < first)
			first = m[i].start_ns;
		if (m[i].end_ns > last)
			last = m[i].end_ns;
	}
	return last > first ? last - first : 1;
}

/* ---- the work of one execution context ---- */

/* 1, read where the compiler cannot see it, so the loops below cannot be
 * simplified (BlackjackBench: divisions on variables that stay 1). */
static volatile uint64_t one_volatile = 1;
static volatile uint64_t sink_u;
static volatile double sink_d;

static void int_work(uint64_t iters)
{
	uint64_t d = one_volatile, e = d - 1;
	uint64_t a = 1000003 * d, b = a + 2, c = a + 4, f = a + 6;

	for (uint64_t i = 0; i < iters; i++) {
		a = a / d + e;
		b = b / d + e;
		c = c / d + e;
		f = f / d + e;
	}
	sink_u = a + b + c + f;
}

static void float_work(uint64_t iters)
{
	double d = (double)one_volatile, e = d - 1.0;
	double a = 1.5 * d, b = 2.5 * d, c = 3.5 * d, f = 4.5 * d;

	for (uint64_t i = 0; i < iters; i++) {
		a = a / d + e;
		b = b / d + e;
		c = c / d + e;
		f = f / d + e;
	}
	sink_d = a + b + c + f;
}

#define CHASE_BYTES (16 << 10)     /* fits every L1 data cache */
#define CHASE_LINE 64

/* Pointer chasing around a random cycle of the lines of a block that
 * fits L1: memory work that the memory system itself does not limit. */
static void **chase_setup(uint64_t seed)
{
	enum { LINES = CHASE_BYTES / CHASE_LINE };
	uint64_t order[LINES];
	struct amp_rng rng;
	char *buf;

	if (posix_memalign((void **)&buf, 4096, CHASE_BYTES) != 0)
		return NULL;
	for (int i = 0; i < LINES; i++)
		order[i] = (uint64_t)i;
	amp_rng_seed(&rng, seed);
	amp_shuffle(order + 1, LINES - 1, &rng);
	for (int i = 0; i < LINES; i++)
		*(void **)(buf + order[i] * CHASE_LINE) = buf + order[(i + 1) % LINES] * CHASE_LINE;
	return (void **)buf;
}

static void **chase(void **p, uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++)
		p = (void **)*p;
	sink_u = (uint64_t)(uintptr_t)p;
	return p;
}

static void memory_work(uint64_t iters, uint64_t seed)
{
	void **buf = chase_setup(seed);

	if (buf) {
		chase(buf, iters);
		free(buf);
	}
}

struct work_job {
	enum amp_work kind;
	uint64_t iters;
	/* Where not NULL: the work in CTX_CHUNKS chunks, each one's start
	 * and end (ns) at [thread * CTX_CHUNKS + chunk]. */
	uint64_t *chunk_start, *chunk_end;
};

static void do_work(enum amp_work kind, uint64_t iters, uint64_t seed)
{
	switch (kind) {
	case AMP_WORK_INT:
		int_work(iters);
		break;
	case AMP_WORK_FLOAT:
		float_work(iters);
		break;
	default:
		memory_work(iters, seed);
		break;
	}
}

static void work_member(struct amp_team_member *m)
{
	const struct work_job *j = m->arg;
	uint64_t seed = 0x5eed + (uint64_t)m->index, per = j->iters / CTX_CHUNKS + 1;
	void **buf = NULL, **p = NULL;

	if (!j->chunk_start) {
		do_work(j->kind, j->iters, seed);
		m->result = (double)(amp_now_ns() - m->start_ns);
		return;
	}
	if (j->kind == AMP_WORK_MEMORY && !(p = buf = chase_setup(seed)))
		return;
	for (int c = 0; c < CTX_CHUNKS; c++) {
		int at = m->index * CTX_CHUNKS + c;

		j->chunk_start[at] = amp_now_ns();
		if (buf)
			p = chase(p, per);
		else
			do_work(j->kind, per, seed);
		j->chunk_end[at] = amp_now_ns();
	}
	free(buf);
	m->result = (double)(amp_now_ns() - m->start_ns);
}

/* Iterations that take one thread about unit_ns here: the fastest of a
 * few runs (a run the OS interrupted takes longer, never shorter). */
static uint64_t calibrate(enum amp_work kind, uint64_t unit_ns)
{
	uint64_t iters = 1 << 12, best = 0;

	for (;;) {
		for (int r = 0; r < 5; r++) {
			uint64_t t0 = amp_now_ns(), dt;

			do_work(kind, iters, 1);
			dt = amp_now_ns() - t0;
			if (!best || dt < best)
				best = dt;
		}
		if (best >= unit_ns / 16 || iters >= (1ULL << 40))
			return (uint64_t)((double)iters * (double)unit_ns / (double)(best ? best : 1));
		iters *= 4;
		best = 0;
	}
}

/* ---- execution contexts (BlackjackBench 3.4) ---- */

static void measure_contexts(struct amp_cpusys *s, enum amp_work kind, uint64_t deadline)
{
	static uint64_t start[AMP_CPUSYS_MAX_THREADS * CTX_CHUNKS], end[AMP_CPUSYS_MAX_THREADS * CTX_CHUNKS];
	struct amp_contexts *c = &s->ctx[kind];
	struct amp_team_member m[AMP_CPUSYS_MAX_THREADS];
	struct work_job job = { kind, calibrate(kind, CTX_UNIT_NS), start, end };
	int max_m = 2 * s->ncpus < AMP_CPUSYS_MAX_THREADS ? 2 * s->ncpus : AMP_CPUSYS_MAX_THREADS;
	double best[AMP_CPUSYS_MAX_THREADS] = { 0 }, solo = 0;
	char err[AMP_REASON_LEN];
	int count, n = max_m < 3 ? 3 : max_m;
	uint64_t retry_until;

	/* Unpinned threads: the OS spreads them as it would an
	 * application's.  The repetitions go round the whole curve, so a
	 * burst of other load spoils one point of a round, not a point.
	 * A point is not the team's wall time (other programs on the CPUs
	 * stretch it as much as a missing context does) but the chunks'
	 * times at the best instant all M threads were running. */
	for (int r = 0; r < CTX_REPS; r++)
		for (int nth = 1; nth <= n; nth++) {
			double y;

			if (!amp_team_run(nth, NULL, work_member, &job, m, err, sizeof err)) {
				amp_num_unknown(&c->count, "%s", err);
				return;
			}
			if (nth == 1)
				for (int k = 0; k < CTX_CHUNKS; k++)
					if (!solo || (double)(end[k] - start[k]) < solo)
						solo = (double)(end[k] - start[k]);
			y = amp_ctx_together(start, end, nth, CTX_CHUNKS, solo);
			if (!best[nth - 1] || y < best[nth - 1])
				best[nth - 1] = y;
			if (amp_now_ns() > deadline && nth == n)
				r = CTX_REPS;
		}
	/* One more thread than the count so far, again, for a while: on a
	 * busy machine the moments all of them run are rare.  A retry can
	 * only find a moment that happened; with more threads than
	 * contexts there is none to find.  No more threads than CPUs can
	 * run at once, so a count of every CPU needs no retry. */
	retry_until = amp_now_ns() + CTX_RETRY_NS;
	while ((count = amp_ctx_count(best, n, CTX_TOGETHER_MAX)) > 0 && count < s->ncpus &&
	       amp_now_ns() < retry_until) {
		double y;

		if (!amp_team_run(count + 1, NULL, work_member, &job, m, err, sizeof err))
			break;
		y = amp_ctx_together(start, end, count + 1, CTX_CHUNKS, solo);
		if (y < best[count])
			best[count] = y;
	}
	c->n = n;
	for (int i = 0; i < n; i++)
		c->norm[i] = best[i];
	count = amp_ctx_count(c->norm, c->n, CTX_TOGETHER_MAX);
	if (count > 0 && count < c->n)
		amp_num_set(&c->count, count);
	else
		amp_num_unknown(&c->count, "%d threads ran together at %.2f times one alone", c->n,
				c->norm[c->n - 1]);
}

/* ---- SMT pairs (X-Ray 3.6) ---- */

/* The slowdown of the pair a, b running `kind` together: each thread's
 * time against its CPU's time alone, measured just before, the worse of
 * the two; the best of the repetitions (other load only slows). */
static double pair_slowdown(int a, int b, enum amp_work kind, uint64_t iters, char *err, size_t len)
{
	struct work_job job = { kind, iters, NULL, NULL };
	struct amp_team_member m[2], one;
	int cpus[2] = { a, b };
	double best = 0;

	for (int r = 0; r < SMT_REPS; r++) {
		double alone[2], worst = 0;

		for (int k = 0; k < 2; k++) {
			if (!amp_team_run(1, &cpus[k], work_member, &job, &one, err, len))
				return 0;
			alone[k] = one.result;
		}
		if (!amp_team_run(2, cpus, work_member, &job, m, err, len))
			return 0;
		for (int k = 0; k < 2; k++)
			if (m[k].result / alone[k] > worst)
				worst = m[k].result / alone[k];
		if (!best || worst < best)
			best = worst;
	}
	return best;
}

static void measure_smt(struct amp_cpusys *s, uint64_t deadline)
{
	uint64_t iters[2] = { calibrate(AMP_WORK_INT, SMT_UNIT_NS), calibrate(AMP_WORK_FLOAT, SMT_UNIT_NS) };
	int max_pairs = (int)(sizeof s->smt / sizeof s->smt[0]);
	char err[AMP_REASON_LEN];

	s->smt_total = s->ncpus * (s->ncpus - 1) / 2;
	if (!s->pinned) {
		snprintf(s->smt_reason, sizeof s->smt_reason, "threads cannot be pinned to CPUs (%s)", s->pin_reason);
		return;
	}
	s->npairs_smt = 0;
	for (int i = 0; i < s->ncpus; i++)
		for (int j = i + 1; j < s->ncpus; j++) {
			struct amp_smt_pair *p = &s->smt[s->npairs_smt];

			if (s->npairs_smt == max_pairs || amp_now_ns() > deadline) {
				snprintf(s->smt_reason, sizeof s->smt_reason,
					 "%d of %d pairs tested within the time budget", s->npairs_smt, s->smt_total);
				return;
			}
			p->a = s->cpu[i];
			p->b = s->cpu[j];
			for (int k = 0; k < 2; k++) {
				p->slowdown[k] = pair_slowdown(p->a, p->b, (enum amp_work)k, iters[k], err, sizeof err);
				if (!p->slowdown[k]) {
					snprintf(s->smt_reason, sizeof s->smt_reason, "%s", err);
					return;
				}
			}
			/* Two threads of one core share its units: both kinds
			 * slow down (one alone is more likely other load). */
			p->shared = p->slowdown[0] >= SMT_SLOWDOWN && p->slowdown[1] >= SMT_SLOWDOWN;
			s->npairs_smt++;
		}
	s->smt_known = 1;
}

/* ---- scheduler time slot (BlackjackBench 3.6) ---- */

struct slot_job {
	uint64_t run_ticks, threshold_ticks;
	double ticks_per_ms;
	int ngaps[AMP_CPUSYS_MAX_THREADS * 2], nruns[AMP_CPUSYS_MAX_THREADS * 2];
	double *gaps, *runs;       /* SLOT_MAX_GAPS per thread */
};

static void slot_member(struct amp_team_member *m)
{
	struct slot_job *j = m->arg;
	double *gaps = j->gaps + (size_t)m->index * SLOT_MAX_GAPS;
	double *runs = j->runs + (size_t)m->index * SLOT_MAX_GAPS;
	uint64_t t0 = amp_ticks(), prev = t0, now, run_start = 0;
	uint64_t floor = (uint64_t)(SLOT_MODE_FLOOR_MS * j->ticks_per_ms);
	int n = 0, nr = 0;

	/* A turn of this loop takes tens of ns; a gap above the threshold is
	 * time the thread did not run.  Between two gaps of a slot's kind
	 * (above the floor) the thread ran uninterrupted: its own slot (the
	 * first run started with the loop, not with a slot). */
	while ((now = amp_ticks()) - t0 < j->run_ticks) {
		if (now - prev > j->threshold_ticks && n < SLOT_MAX_GAPS) {
			gaps[n++] = (double)(now - prev) / j->ticks_per_ms;
			if (now - prev >= floor) {
				if (run_start)
					runs[nr++] = (double)(prev - run_start) / j->ticks_per_ms;
				run_start = now;
			}
		}
		prev = now;
	}
	j->ngaps[m->index] = n;
	j->nruns[m->index] = nr;
}

static void measure_slot(struct amp_cpusys *s)
{
	struct slot_job job;
	struct amp_team_member m[AMP_CPUSYS_MAX_THREADS * 2];
	int cpus[AMP_CPUSYS_MAX_THREADS * 2], nth, total = 0;
	double tpns = amp_timer()->ticks_per_ns;
	char err[AMP_REASON_LEN];

	/* Two threads on one CPU; unpinned, two per CPU (as in the paper). */
	if (s->pinned) {
		nth = 2;
		s->slot_cpu = cpus[0] = cpus[1] = s->cpu[s->ncpus - 1];
	} else {
		nth = 2 * s->ncpus < AMP_CPUSYS_MAX_THREADS * 2 ? 2 * s->ncpus : AMP_CPUSYS_MAX_THREADS * 2;
		s->slot_cpu = -1;
	}
	memset(&job, 0, sizeof job);
	job.run_ticks = (uint64_t)(SLOT_RUN_NS * tpns);
	job.threshold_ticks = (uint64_t)(SLOT_THRESHOLD_NS * tpns);
	job.ticks_per_ms = tpns * 1e6;
	job.gaps = malloc(sizeof(double) * SLOT_MAX_GAPS * (size_t)nth);
	job.runs = malloc(sizeof(double) * SLOT_MAX_GAPS * (size_t)nth);
	if (!job.gaps || !job.runs) {
		amp_num_unknown(&s->slot_ms, "out of memory");
		amp_num_unknown(&s->slot_run_ms, "out of memory");
		free(job.gaps);
		free(job.runs);
		return;
	}
	if (!amp_team_run(nth, s->pinned ? cpus : NULL, slot_member, &job, m, err, sizeof err)) {
		amp_num_unknown(&s->slot_ms, "%s", err);
		amp_num_unknown(&s->slot_run_ms, "%s", err);
		free(job.gaps);
		free(job.runs);
		return;
	}
	/* Pool every thread's gaps, and runs. */
	for (int i = 0, nr = 0; i < nth; i++) {
		memmove(job.gaps + total, job.gaps + (size_t)i * SLOT_MAX_GAPS, sizeof(double) * (size_t)job.ngaps[i]);
		total += job.ngaps[i];
		memmove(job.runs + nr, job.runs + (size_t)i * SLOT_MAX_GAPS, sizeof(double) * (size_t)job.nruns[i]);
		nr += job.nruns[i];
		s->slot_runs = nr;
	}
	if (s->slot_runs < SLOT_MIN_GAPS)
		amp_num_unknown(&s->slot_run_ms, "only %d uninterrupted runs between gaps above %.1f ms", s->slot_runs,
				SLOT_MODE_FLOOR_MS);
	else
		amp_num_set(&s->slot_run_ms, amp_gap_mode(job.runs, s->slot_runs, GAP_MODE_WIDTH, SLOT_MODE_FLOOR_MS));
	free(job.runs);
	s->slot_gaps = 0;
	for (int i = 0; i < total; i++)
		s->slot_gaps += job.gaps[i] >= SLOT_MODE_FLOOR_MS;
	if (s->slot_gaps < SLOT_MIN_GAPS)
		amp_num_unknown(&s->slot_ms, "only %d gaps above %.1f ms in %.1f s: the threads were hardly interleaved",
				s->slot_gaps, SLOT_MODE_FLOOR_MS, SLOT_RUN_NS / 1e9);
	else
		amp_num_set(&s->slot_ms, amp_gap_mode(job.gaps, total, GAP_MODE_WIDTH, SLOT_MODE_FLOOR_MS));
	free(job.gaps);
}

/* ---- sizes ---- */

static const uint64_t fixed_sizes[] = { 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20,
					64 << 20, 256 << 20 };
static const uint64_t fixed_blocks[] = { 16 << 10, 256 << 10, 4 << 20, 64 << 20 };

/* Working sets inside each measured level (half its capacity, above the
 * level before) and one in main memory. */
static void choose_sizes(struct amp_cpusys *s, const struct amp_cpusys_opts *o)
{
	uint64_t prev = 0, mem;

	s->nbw = 0;
	s->nblocks = 0;
	if (o->nlevels <= 0) {
		for (size_t i = 0; i < sizeof fixed_sizes / sizeof fixed_sizes[0]; i++)
			s->bw[s->nbw++].bytes = fixed_sizes[i];
		for (size_t i = 0; i < sizeof fixed_blocks / sizeof fixed_blocks[0]; i++)
			s->block[s->nblocks++] = fixed_blocks[i];
		return;
	}
	for (int i = 0; i < o->nlevels && s->nbw < AMP_CPUSYS_MAX_WS - 1 &&
			s->nblocks < AMP_CPUSYS_MAX_BLOCKS - 1; i++) {
		uint64_t c = o->level_bytes[i], ws = c / 2 > prev ? c / 2 : (prev + c) / 2;

		if (c <= prev)
			continue;
		ws &= ~4095ULL;
		if (ws < 4096)
			ws = 4096;
		snprintf(s->bw[s->nbw].level, sizeof s->bw[s->nbw].level, "L%d", s->nbw + 1);
		s->bw[s->nbw++].bytes = ws;
		s->block[s->nblocks++] = ws;
		prev = c;
	}
	mem = 4 * prev > (64ULL << 20) ? 4 * prev : (64ULL << 20);
	if (mem > (1ULL << 30))
		mem = 1ULL << 30;
	snprintf(s->bw[s->nbw].level, sizeof s->bw[s->nbw].level, "memory");
	s->bw[s->nbw++].bytes = mem;
	/* Pair traffic through memory: enough beyond the last level. */
	s->block[s->nblocks++] = 2 * prev > (64ULL << 20) ? 2 * prev : (64ULL << 20);
}

/* ---- the whole part ---- */

static void phase(struct amp_cpusys *s, const struct amp_cpusys_opts *o, const char *name, uint64_t *t)
{
	uint64_t now = amp_now_ns();

	if (s->nphases < (int)(sizeof s->phase / sizeof s->phase[0])) {
		s->phase[s->nphases].name = name;
		s->phase[s->nphases].seconds = (double)(now - *t) / 1e9;
		s->nphases++;
	}
	if (o->phase_done)
		o->phase_done(o->phase_arg, name);
	*t = now;
}

/* The CPUs to use: the ones asked for, or every one the process may run
 * on (the caller may have pinned itself to one: widen first). */
static int choose_cpus(struct amp_cpusys *s, const struct amp_cpusys_opts *o, cpu_set_t *set, char *err,
		       size_t len)
{
	CPU_ZERO(set);
	if (o->ncpus > 0) {
		for (int i = 0; i < o->ncpus && i < AMP_CPUSYS_MAX_CPUS; i++) {
			if (o->cpus[i] < 0 || o->cpus[i] >= CPU_SETSIZE) {
				snprintf(err, len, "CPU %d: out of range", o->cpus[i]);
				return -1;
			}
			CPU_SET(o->cpus[i], set);
		}
		if (sched_setaffinity(0, sizeof *set, set) < 0) {
			snprintf(err, len, "cannot run on the CPUs asked for: %s", strerror(errno));
			return -1;
		}
	} else {
		long conf = sysconf(_SC_NPROCESSORS_CONF);

		for (long c = 0; c < conf && c < CPU_SETSIZE; c++)
			CPU_SET((int)c, set);
		/* The kernel keeps the CPUs this process is allowed (cpuset). */
		if (sched_setaffinity(0, sizeof *set, set) < 0 || sched_getaffinity(0, sizeof *set, set) < 0)
			sched_getaffinity(0, sizeof *set, set);
	}
	s->ncpus = 0;
	for (int c = 0; c < CPU_SETSIZE && s->ncpus < AMP_CPUSYS_MAX_CPUS; c++)
		if (CPU_ISSET(c, set))
			s->cpu[s->ncpus++] = c;
	if (!s->ncpus) {
		snprintf(err, len, "no CPU to run on");
		return -1;
	}
	return 0;
}

static void probe_pinning(struct amp_cpusys *s, const cpu_set_t *all)
{
	s->pinned = 1;
	for (int i = 0; i < s->ncpus; i++) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(s->cpu[i], &one);
		if (sched_setaffinity(0, sizeof one, &one) < 0) {
			s->pinned = 0;
			snprintf(s->pin_reason, sizeof s->pin_reason, "sched_setaffinity to CPU %d: %s", s->cpu[i],
				 strerror(errno));
			break;
		}
	}
	sched_setaffinity(0, sizeof *all, all);
}

void amp_cpusys_unknown(struct amp_cpusys *s, const char *why)
{
	memset(s, 0, sizeof *s);
	for (int k = 0; k < AMP_WORK_KINDS; k++)
		amp_num_unknown(&s->ctx[k].count, "%s", why);
	snprintf(s->smt_reason, sizeof s->smt_reason, "%s", why);
	amp_num_unknown(&s->slot_ms, "%s", why);
	amp_num_unknown(&s->slot_run_ms, "%s", why);
	s->slot_cpu = -1;
	snprintf(s->loc_reason, sizeof s->loc_reason, "%s", why);
	snprintf(s->bw_reason, sizeof s->bw_reason, "%s", why);
	snprintf(s->pin_reason, sizeof s->pin_reason, "%s", why);
}

static void measure_locality(struct amp_cpusys *s, uint64_t deadline)
{
	static double flat[AMP_CPUSYS_MAX_BLOCKS * AMP_CPUSYS_MAX_CPUS * AMP_CPUSYS_MAX_CPUS];
	char err[AMP_REASON_LEN];
	int n = s->ncpus, total = n * (n - 1) / 2, done;

	if (!s->pinned) {
		snprintf(s->loc_reason, sizeof s->loc_reason, "threads cannot be pinned to CPUs (%s)", s->pin_reason);
		return;
	}
	done = n > 1 ? amp_cpusys_pairs(s, deadline, err, sizeof err) : 0;
	if (done < 0) {
		snprintf(s->loc_reason, sizeof s->loc_reason, "%s", err);
		return;
	}
	if (done < total) {
		snprintf(s->loc_reason, sizeof s->loc_reason, "%d of %d pairs measured within the time budget",
			 done, total);
		return;
	}
	for (int b = 0; b < s->nblocks; b++)
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				flat[((size_t)b * n + i) * n + j] = s->pair_gbs[b][i][j];
	s->nnodes = amp_clique_tree(n, s->nblocks, s->block, flat, s->node, AMP_CPUSYS_MAX_NODES);
	s->loc_known = s->nnodes > 0;
	if (!s->loc_known)
		snprintf(s->loc_reason, sizeof s->loc_reason, "no pair data");
}

int amp_cpusys_measure(struct amp_cpusys *s, const struct amp_cpusys_opts *o, char *err, size_t len)
{
	uint64_t t0 = amp_now_ns(), t = t0, budget, deadline;
	cpu_set_t old, all;
	int i;

	amp_cpusys_unknown(s, "not measured");
	s->pin_reason[0] = '\0';
	budget = (uint64_t)((o->budget_s > 0 ? o->budget_s : DEFAULT_BUDGET_S) * 1e9);
	deadline = t0 + budget;
	if (sched_getaffinity(0, sizeof old, &old) < 0) {
		snprintf(err, len, "sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	if (choose_cpus(s, o, &all, err, len) < 0) {
		sched_setaffinity(0, sizeof old, &old);
		return -1;
	}
	probe_pinning(s, &all);
	choose_sizes(s, o);

	/* Each benchmark gets a share of the budget; the ones that grow
	 * with the square of the CPU count stop at theirs. */
	for (int k = 0; k < AMP_WORK_KINDS; k++)
		measure_contexts(s, (enum amp_work)k, t0 + budget / 5);
	phase(s, o, "cpu contexts", &t);
	measure_smt(s, t + budget / 10);
	phase(s, o, "cpu smt pairs", &t);
	measure_slot(s);
	phase(s, o, "cpu time slot", &t);
	measure_locality(s, t + budget / 4);
	phase(s, o, "cpu locality", &t);
	for (i = 0; i < s->nbw && amp_now_ns() < deadline; i++)
		amp_cpusys_bandwidth(s, &s->bw[i]);
	for (; i < s->nbw; i++)
		for (int k = 0; k < 3; k++) {
			amp_num_unknown(&s->bw[i].one[k], "the time budget was spent");
			amp_num_unknown(&s->bw[i].all[k], "the time budget was spent");
		}
	phase(s, o, "cpu bandwidth", &t);
	sched_setaffinity(0, sizeof old, &old);
	return 0;
}

/* ---- the report ---- */

static const char *const bw_ops[3] = { "read", "write", "copy" };

static void text_num(FILE *out, const struct amp_num *n, const char *fmt)
{
	if (n->known)
		fprintf(out, fmt, n->value);
	else
		fprintf(out, "unknown (%s)", n->reason);
}

/* The CPUs of mask: "{0,1}" in text, "[0, 1]" in JSON. */
static void print_cpus(FILE *out, const struct amp_cpusys *s, uint64_t mask, const char *brackets,
		       const char *comma)
{
	const char *sep = "";

	fputc(brackets[0], out);
	for (int i = 0; i < s->ncpus; i++)
		if (mask >> i & 1) {
			fprintf(out, "%s%d", sep, s->cpu[i]);
			sep = comma;
		}
	fputc(brackets[1], out);
}

void amp_cpusys_emit_text(const struct amp_cpusys *s, FILE *out)
{
	char b1[32];

	if (!s->ncpus) {
		/* Nothing ran: one reason for every value. */
		fprintf(out, "\nCPU: not measured (%s)\n", s->pin_reason);
		return;
	}
	fprintf(out, "\nCPU (threads and the timer):\n  CPUs:               ");
	for (int i = 0; i < s->ncpus; i++)
		fprintf(out, "%s%d", i ? "," : "", s->cpu[i]);
	fprintf(out, s->pinned ? " (threads pinned)\n" : " (threads not pinned: %s)\n", s->pin_reason);
	fprintf(out, "  Execution contexts: (M threads at their best moment together, time over one alone, M = 1, 2, ...)\n");
	for (int k = 0; k < AMP_WORK_KINDS; k++) {
		fprintf(out, "    %-8s ", amp_work_names[k]);
		text_num(out, &s->ctx[k].count, "%.0f");
		for (int i = 0; i < s->ctx[k].n; i++)
			fprintf(out, "%s%.2f", i ? " " : "   [", s->ctx[k].norm[i]);
		fprintf(out, "%s\n", s->ctx[k].n ? "]" : "");
	}
	fprintf(out, "  SMT pairs:          ");
	if (s->smt_known) {
		int any = 0;

		for (int i = 0; i < s->npairs_smt; i++)
			if (s->smt[i].shared) {
				fprintf(out, "%s%d+%d", any ? ", " : "", s->smt[i].a, s->smt[i].b);
				any = 1;
			}
		fprintf(out, "%s (%d pair%s tested", any ? "" : "none", s->npairs_smt, s->npairs_smt == 1 ? "" : "s");
		for (int i = 0; i < s->npairs_smt && i < 8; i++)
			fprintf(out, "; %d+%d slowdown integer %.2f, float %.2f", s->smt[i].a, s->smt[i].b,
				s->smt[i].slowdown[0], s->smt[i].slowdown[1]);
		fprintf(out, ")\n");
	} else {
		fprintf(out, "unknown (%s)\n", s->smt_reason);
	}
	fprintf(out, "  Scheduler slot:     ");
	text_num(out, &s->slot_ms, "%.2f ms");
	if (s->slot_ms.known)
		fprintf(out, " (mode of %d gaps, %s)", s->slot_gaps,
			s->slot_cpu >= 0 ? "two threads on one CPU" : "two threads per CPU, unpinned");
	fprintf(out, "\n                      a thread's own runs between gaps: ");
	text_num(out, &s->slot_run_ms, "%.2f ms");
	if (s->slot_ms.known && s->slot_run_ms.known && s->slot_ms.value > 1.5 * s->slot_run_ms.value)
		fprintf(out, "\n                      (gaps of %.0f runs: other programs share the CPU)",
			s->slot_ms.value / s->slot_run_ms.value);
	fprintf(out, "\n  Locality tree:      ");
	if (s->loc_known) {
		fprintf(out, "(producer-consumer, one-way GB/s between two CPUs)\n");
		for (int k = 0; k < s->nnodes; k++) {
			const struct amp_locality_node *nd = &s->node[k];

			fprintf(out, "    %*s", 2 * nd->depth, "");
			print_cpus(out, s, nd->cpus, "{}", ",");
			fprintf(out, " %s %s", nd->parent < 0 ? "every CPU; at block" : "clique at block",
				amp_fmt_size(nd->block, b1, sizeof b1));
			if (nd->gbs > 0)
				fprintf(out, ", %.1f GB/s inside", nd->gbs);
			fprintf(out, "\n");
		}
		fprintf(out, "    pair          ");
		for (int b = 0; b < s->nblocks; b++)
			fprintf(out, " %9s", amp_fmt_size(s->block[b], b1, sizeof b1));
		fprintf(out, "\n");
		for (int i = 0; i < s->ncpus; i++)
			for (int j = i + 1; j < s->ncpus && i < 8; j++) {
				fprintf(out, "    %3d+%-3d       ", s->cpu[i], s->cpu[j]);
				for (int b = 0; b < s->nblocks; b++)
					fprintf(out, " %9.1f", s->pair_gbs[b][i][j]);
				fprintf(out, "\n");
			}
	} else {
		fprintf(out, "unknown (%s)\n", s->loc_reason);
	}
	fprintf(out, "  Bandwidth (GB/s):   ");
	if (!s->nbw) {
		fprintf(out, "unknown (%s)\n", s->bw_reason);
		return;
	}
	fprintf(out, "%-8s %10s   %-23s  %s\n", "level", "set", "one core: read write copy",
		"all cores: read write copy");
	for (int i = 0; i < s->nbw; i++) {
		const struct amp_bw_point *p = &s->bw[i];

		fprintf(out, "                      %-8s %10s  ", p->level[0] ? p->level : "-",
			amp_fmt_size(p->bytes, b1, sizeof b1));
		for (int k = 0; k < 6; k++) {
			const struct amp_num *n = k < 3 ? &p->one[k] : &p->all[k - 3];

			fprintf(out, k == 3 ? "       " : " ");
			if (n->known)
				fprintf(out, "%6.1f", n->value);
			else
				fprintf(out, "%6s", "?");
		}
		fprintf(out, "\n");
	}
	for (int i = 0; i < s->nbw; i++)
		if (!s->bw[i].one[0].known || !s->bw[i].all[0].known) {
			fprintf(out, "    ?: %s\n", !s->bw[i].one[0].known ? s->bw[i].one[0].reason : s->bw[i].all[0].reason);
			break;
		}
}

static void json_num(FILE *out, const char *key, const struct amp_num *n)
{
	if (n->known) {
		fprintf(out, "\"%s\": %.6g", key, n->value);
	} else {
		fprintf(out, "\"%s\": null, \"%s_reason\": ", key, key);
		amp_json_string(out, n->reason);
	}
}

static void json_node(FILE *out, const struct amp_cpusys *s, int k, int indent)
{
	const struct amp_locality_node *nd = &s->node[k];
	int nchild = 0;

	fprintf(out, "{\"cpus\": ");
	print_cpus(out, s, nd->cpus, "[]", ", ");
	fprintf(out, ", \"block\": %llu, \"gbs\": ", (unsigned long long)nd->block);
	if (nd->gbs > 0)
		fprintf(out, "%.6g", nd->gbs);
	else
		fputs("null", out);
	fputs(", \"children\": [", out);
	for (int c = k + 1; c < s->nnodes; c++)
		if (s->node[c].parent == k) {
			fprintf(out, "%s\n%*s", nchild++ ? "," : "", indent + 2, "");
			json_node(out, s, c, indent + 2);
		}
	fputs("]}", out);
}

void amp_cpusys_json_members(const struct amp_cpusys *s, FILE *out)
{
	fputs(",\n    \"cpus\": [", out);
	for (int i = 0; i < s->ncpus; i++)
		fprintf(out, "%s%d", i ? ", " : "", s->cpu[i]);
	fprintf(out, "], \"pinned\": %s", s->pinned ? "true" : "false");
	if (!s->pinned) {
		fputs(", \"pinned_reason\": ", out);
		amp_json_string(out, s->pin_reason);
	}
	fputs(",\n    \"execution_contexts\": {", out);
	for (int k = 0; k < AMP_WORK_KINDS; k++) {
		fputs(k ? ", " : "", out);
		json_num(out, amp_work_names[k], &s->ctx[k].count);
	}
	fputs(", \"normalised_time\": {", out);
	for (int k = 0; k < AMP_WORK_KINDS; k++) {
		fprintf(out, "%s\"%s\": [", k ? ", " : "", amp_work_names[k]);
		for (int i = 0; i < s->ctx[k].n; i++)
			fprintf(out, "%s%.4g", i ? ", " : "", s->ctx[k].norm[i]);
		fputs("]", out);
	}
	fputs("}}", out);
	fputs(",\n    \"smt_pairs\": ", out);
	if (s->smt_known) {
		int any = 0;

		fputs("[", out);
		for (int i = 0; i < s->npairs_smt; i++)
			if (s->smt[i].shared)
				fprintf(out, "%s[%d, %d]", any++ ? ", " : "", s->smt[i].a, s->smt[i].b);
		fputs("]", out);
	} else {
		fputs("null, \"smt_pairs_reason\": ", out);
		amp_json_string(out, s->smt_reason);
	}
	fputs(", \"smt_slowdown\": [", out);
	for (int i = 0; i < s->npairs_smt; i++)
		fprintf(out, "%s{\"cpus\": [%d, %d], \"integer\": %.4g, \"float\": %.4g}", i ? ", " : "",
			s->smt[i].a, s->smt[i].b, s->smt[i].slowdown[0], s->smt[i].slowdown[1]);
	fputs("]", out);
	fputs(",\n    ", out);
	json_num(out, "scheduler_slot_ms", &s->slot_ms);
	fprintf(out, ", \"scheduler_slot_gaps\": %d, ", s->slot_gaps);
	json_num(out, "scheduler_run_ms", &s->slot_run_ms);
	fputs(",\n    \"locality\": ", out);
	if (s->loc_known) {
		fputs("{\"tree\": ", out);
		json_node(out, s, 0, 6);
		fputs(",\n      \"block_sizes\": [", out);
		for (int b = 0; b < s->nblocks; b++)
			fprintf(out, "%s%llu", b ? ", " : "", (unsigned long long)s->block[b]);
		fputs("], \"pairs\": [", out);
		for (int i = 0, first = 1; i < s->ncpus; i++)
			for (int j = i + 1; j < s->ncpus; j++, first = 0) {
				fprintf(out, "%s\n        {\"cpus\": [%d, %d], \"gbs\": [", first ? "" : ",", s->cpu[i],
					s->cpu[j]);
				for (int b = 0; b < s->nblocks; b++)
					fprintf(out, "%s%.4g", b ? ", " : "", s->pair_gbs[b][i][j]);
				fputs("]}", out);
			}
		fputs("]}", out);
	} else {
		fputs("null, \"locality_reason\": ", out);
		amp_json_string(out, s->loc_reason);
	}
	fputs(",\n    \"bandwidth\": ", out);
	if (!s->nbw) {
		fputs("null, \"bandwidth_reason\": ", out);
		amp_json_string(out, s->bw_reason);
		return;
	}
	fprintf(out, "{\"unit\": \"GB/s\", \"all_cores_threads\": %d, \"points\": [", s->ncpus);
	for (int i = 0; i < s->nbw; i++) {
		const struct amp_bw_point *p = &s->bw[i];

		fprintf(out, "%s\n      {\"level\": ", i ? "," : "");
		if (p->level[0])
			amp_json_string(out, p->level);
		else
			fputs("null", out);
		fprintf(out, ", \"working_set\": %llu", (unsigned long long)p->bytes);
		for (int w = 0; w < 2; w++) {
			fprintf(out, ", \"%s\": {", w ? "all_cores" : "one_core");
			for (int k = 0; k < 3; k++) {
				fputs(k ? ", " : "", out);
				json_num(out, bw_ops[k], w ? &p->all[k] : &p->one[k]);
			}
			fputs("}", out);
		}
		fputs("}", out);
	}
	fputs("]}", out);
}
