/* cpu_bw.c - the benchmarks that move data: producer-consumer bandwidth
 * between two CPUs (BlackjackBench 3.1.4) and read/write/copy bandwidth
 * of a working set for one core and for all of them. */
#include "config.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_sys.h"
#include "memlimit.h"
#include "timer.h"
#include "util.h"

/* Many short repetitions: on a loaded machine a long one is always cut
 * by another program's time slice; the best one of many is not. */
#define REPS 5
#define PC_BYTES (8ULL << 20)      /* one thread's updates per repetition */
#define BW_BYTES (128ULL << 20)    /* one thread's traffic per repetition */

/* 16 bytes: a vector every 64-bit target keeps in a register (SSE2,
 * NEON); wider generic vectors are split, and spilled, without AVX. */
typedef uint64_t vec __attribute__((vector_size(16)));
#define VEC_BYTES ((uint64_t)sizeof(vec))
/* Keeps the compiler from turning a loop into memset/memcpy, whose large
 * copies bypass the caches: the loop is what a program's loop sees. */
#define OPAQUE() __asm__ __volatile__("" ::: "memory")

static volatile uint64_t sink;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* ---- producer-consumer between two CPUs ---- */

struct pc_job {
	uint64_t *buf;
	size_t words;
	unsigned rounds;
	uint64_t start[REPS], end[REPS];
	/* The turn sits alone in its lines: no false sharing with the data. */
	_Alignas(128) int turn;
	char pad[124];
};

static void wait_turn(int *turn, int me)
{
	unsigned spins = 0;

	while (__atomic_load_n(turn, __ATOMIC_ACQUIRE) != me) {
		cpu_relax();
		/* Both threads on one CPU (pinning refused): let the other run. */
		if (++spins % 4096 == 0)
			sched_yield();
	}
}

/* Two threads take turns incrementing every word of the block: each
 * reads and modifies what the other just wrote. */
static void pc_member(struct amp_team_member *m)
{
	struct pc_job *j = m->arg;
	int me = m->index;

	if (me == 0) {
		/* First touch: the block lives in the producer's node. */
		if (posix_memalign((void **)&j->buf, 4096, j->words * sizeof(uint64_t)) != 0)
			j->buf = NULL;
		else
			memset(j->buf, 0, j->words * sizeof(uint64_t));
	}
	amp_team_sync(m);
	if (!j->buf)
		return;
	for (int r = 0; r < REPS; r++) {
		if (me == 0)
			__atomic_store_n(&j->turn, 0, __ATOMIC_RELEASE);
		amp_team_sync(m);
		for (unsigned k = 0; k < j->rounds; k++) {
			uint64_t *p = j->buf;

			wait_turn(&j->turn, me);
			if (me == 0 && k == 0)
				j->start[r] = amp_ticks();
			for (size_t i = 0; i < j->words; i++)
				p[i]++;
			if (me == 1 && k == j->rounds - 1)
				j->end[r] = amp_ticks();
			__atomic_store_n(&j->turn, 1 - me, __ATOMIC_RELEASE);
		}
		amp_team_sync(m);
	}
}

/* One-way GB/s between CPUs a and b for one block size: the bytes the
 * first thread updated over the time both took (BlackjackBench). */
static double pc_pair(int a, int b, uint64_t block, char *err, size_t len)
{
	struct pc_job *j;
	struct amp_team_member m[2];
	int cpus[2] = { a, b };
	double best = 0, tpns = amp_timer()->ticks_per_ns;

	if (posix_memalign((void **)&j, 128, sizeof *j) != 0) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	memset(j, 0, sizeof *j);
	j->words = block / sizeof(uint64_t);
	j->rounds = block >= PC_BYTES ? 2 : (unsigned)(PC_BYTES / block);
	if (amp_memory_reserve("the producer-consumer block", block, err, len) < 0) {
		free(j);
		return -1;
	}
	/* Released once the threads are done: nothing else reserves memory
	 * before the block is freed below, on every path. */
	int ran = amp_team_run(2, cpus, pc_member, j, m, err, len);

	amp_memory_release(block);
	if (!ran) {
		free(j);
		return -1;
	}
	if (!j->buf) {
		snprintf(err, len, "out of memory for a %llu-byte block", (unsigned long long)block);
		free(j);
		return -1;
	}
	if (m[0].pin_errno || m[1].pin_errno) {
		snprintf(err, len, "pthread_setaffinity_np: %s", strerror(m[0].pin_errno ? m[0].pin_errno : m[1].pin_errno));
		free(j->buf);
		free(j);
		return -1;
	}
	for (int r = 0; r < REPS; r++) {
		double ns = (double)(j->end[r] - j->start[r]) / tpns;
		double gbs = ns > 0 ? (double)block * j->rounds / ns : 0;

		if (gbs > best)
			best = gbs;
	}
	free(j->buf);
	free(j);
	return best;
}

int amp_cpusys_pairs(struct amp_cpusys *s, uint64_t deadline_ns, char *err, size_t len)
{
	int done = 0;

	for (int i = 0; i < s->ncpus; i++)
		for (int k = i + 1; k < s->ncpus; k++) {
			if (amp_now_ns() > deadline_ns)
				return done;
			for (int b = 0; b < s->nblocks; b++) {
				double g = pc_pair(s->cpu[i], s->cpu[k], s->block[b], err, len);

				if (g < 0)
					return -1;
				s->pair_gbs[b][i][k] = s->pair_gbs[b][k][i] = g;
			}
			done++;
		}
	return done;
}

/* ---- read, write, copy ---- */

enum { OP_READ, OP_WRITE, OP_COPY, OPS };

struct bw_job {
	uint64_t bytes;            /* each thread's share of the working set */
	unsigned passes;
	int failed;
	uint64_t start[OPS][REPS][AMP_CPUSYS_MAX_CPUS], end[OPS][REPS][AMP_CPUSYS_MAX_CPUS];
};

static uint64_t read_pass(const vec *p, size_t n)
{
	vec a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };

	for (size_t i = 0; i < n; i += 4) {
		a += p[i];
		b += p[i + 1];
		c += p[i + 2];
		d += p[i + 3];
	}
	a += b + c + d;
	return a[0] + a[1];
}

static void write_pass(vec *p, size_t n, uint64_t k)
{
	vec v = { k, k + 1 };

	for (size_t i = 0; i < n; i += 4) {
		p[i] = v;
		p[i + 1] = v;
		p[i + 2] = v;
		p[i + 3] = v;
		OPAQUE();
	}
}

static void copy_pass(vec *dst, const vec *src, size_t n)
{
	for (size_t i = 0; i < n; i += 4) {
		dst[i] = src[i];
		dst[i + 1] = src[i + 1];
		dst[i + 2] = src[i + 2];
		dst[i + 3] = src[i + 3];
		OPAQUE();
	}
}

static void bw_member(struct amp_team_member *m)
{
	struct bw_job *j = m->arg;
	size_t nvec = (size_t)(j->bytes / VEC_BYTES), half = nvec / 2 & ~(size_t)3;
	uint64_t acc = 0;
	vec *buf = NULL;

	/* Each thread touches its own share first: its pages, its node. */
	if (posix_memalign((void **)&buf, 4096, (size_t)j->bytes) != 0)
		j->failed = 1;
	else
		memset(buf, 1, (size_t)j->bytes);
	amp_team_sync(m);
	for (int op = 0; op < OPS; op++)
		for (int r = 0; r < REPS; r++) {
			amp_team_sync(m);
			if (j->failed)
				continue;
			j->start[op][r][m->index] = amp_now_ns();
			for (unsigned k = 0; k < j->passes; k++) {
				if (op == OP_READ)
					acc += read_pass(buf, nvec);
				else if (op == OP_WRITE)
					write_pass(buf, nvec, k);
				else
					copy_pass(buf + half, buf, half);
			}
			j->end[op][r][m->index] = amp_now_ns();
		}
	sink = acc;
	free(buf);
}

/* GB/s of n threads on cpus (NULL: unpinned) over a working set of
 * `bytes` split between them, into out[read, write, copy]. */
static void bw_run(int n, const int *cpus, uint64_t bytes, struct amp_num *out)
{
	struct bw_job *j = calloc(1, sizeof *j);
	struct amp_team_member m[AMP_CPUSYS_MAX_CPUS];
	char err[AMP_REASON_LEN];
	uint64_t share = bytes / (uint64_t)n / (4 * VEC_BYTES) * (4 * VEC_BYTES);

	if (!j) {
		for (int op = 0; op < OPS; op++)
			amp_num_unknown(&out[op], "out of memory");
		return;
	}
	if (share < 8 * VEC_BYTES)
		share = 8 * VEC_BYTES;
	j->bytes = share;
	j->passes = share >= BW_BYTES ? 1 : (unsigned)(BW_BYTES / share);
	/* The threads' buffers count against --max-memory like any plan. */
	if (amp_memory_reserve("the bandwidth benchmark", share * (uint64_t)n, err, sizeof err) < 0) {
		for (int op = 0; op < OPS; op++)
			amp_num_unknown(&out[op], "%s", err);
		free(j);
		return;
	}
	if (!amp_team_run(n, cpus, bw_member, j, m, err, sizeof err) || j->failed) {
		for (int op = 0; op < OPS; op++)
			amp_num_unknown(&out[op], "%s", j->failed ? "out of memory" : err);
		amp_memory_release(share * (uint64_t)n);
		free(j);
		return;
	}
	amp_memory_release(share * (uint64_t)n);
	for (int op = 0; op < OPS; op++) {
		uint64_t best = 0;

		for (int r = 0; r < REPS; r++) {
			uint64_t first = UINT64_MAX, last = 0;

			for (int i = 0; i < n; i++) {
				if (j->start[op][r][i] < first)
					first = j->start[op][r][i];
				if (j->end[op][r][i] > last)
					last = j->end[op][r][i];
			}
			if (last > first && (!best || last - first < best))
				best = last - first;
		}
		/* Copy counts the bytes read and the bytes written. */
		if (best)
			amp_num_set(&out[op], (double)share * j->passes * n / (double)best);
		else
			amp_num_unknown(&out[op], "the timer did not advance");
	}
	free(j);
}

void amp_cpusys_bandwidth(const struct amp_cpusys *s, struct amp_bw_point *p)
{
	int one = s->pinned ? s->cpu[0] : -1;

	bw_run(1, s->pinned ? &one : NULL, p->bytes, p->one);
	bw_run(s->ncpus, s->pinned ? s->cpu : NULL, p->bytes, p->all);
}
