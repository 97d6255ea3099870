/* counters.h - amp's middle layer over miss counters (AMP section 2.1).
 *
 * Measurement modules see uniform events (L1D miss, DTLB miss, cycles...)
 * and one small API: open a set of events, start, stop, read deltas,
 * close.  Backends (perf, papi, sim, timer) sit behind one ops struct;
 * the list of backends is an explicit array in counters.c. */
#ifndef AMP_COUNTERS_H
#define AMP_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

enum amp_event {
	AMP_EV_L1D_MISS,
	AMP_EV_L1I_MISS,
	AMP_EV_L2D_MISS,
	AMP_EV_L2I_MISS,
	AMP_EV_L2_MISS,
	AMP_EV_L3_MISS,
	AMP_EV_L4_MISS,
	AMP_EV_DTLB_MISS,
	AMP_EV_STLB_MISS,
	AMP_EV_ITLB_MISS,
	AMP_EV_ITLB_WALK,
	AMP_EV_LOADS,
	AMP_EV_STORES,
	AMP_EV_CYCLES,
	AMP_EV_COUNT
};

struct amp_event_info {
	enum amp_event id;
	const char *name;        /* uniform name, e.g. "L1D_MISS" */
	const char *description; /* for people */
};
extern const struct amp_event_info amp_event_table[AMP_EV_COUNT];
/* Event id from its uniform name (case-insensitive); -1 when unknown. */
int amp_event_lookup(const char *name);

struct sim_machine;

/* What a backend measures: the real host, or a simulated machine. */
struct amp_host {
	struct sim_machine *sim; /* non-NULL: measure this simulated machine */
	/* Access pairs take the way of an architecture without a
	 * cache-flush instruction (mod_block.c pair_buffer; tests). */
	int pairs_unflushed;
};

#define AMP_MAX_SET 16
#define AMP_REASON_LEN 256

/* An open set of events on one backend. */
struct amp_cset {
	const struct amp_backend_ops *ops;
	const struct amp_host *host;
	int n;
	enum amp_event ev[AMP_MAX_SET];
	void *priv; /* backend state */
};

struct amp_backend_ops {
	const char *name;
	const char *summary;  /* one line for --list-backends */
	int priority;         /* higher wins when amp picks a backend */
	int auto_select;      /* 0: only when asked for by name (sim) */
	/* 1 when usable on host; otherwise 0 and why[] says what stops it,
	 * in words a person can act on. */
	int (*probe)(const struct amp_host *host, char *why, size_t len);
	/* 1 when ev can be counted: what[] names what it maps to;
	 * 0 when absent: what[] says why. */
	int (*event_info)(const struct amp_host *host, enum amp_event ev,
			  char *what, size_t len);
	/* The set's host, n and ev[] are filled in; 0 or -1 with err[]. */
	int (*open)(struct amp_cset *set, char *err, size_t len);
	int (*start)(struct amp_cset *set);
	int (*stop)(struct amp_cset *set);
	/* Counts accumulated between start and stop, one per event. */
	int (*read)(struct amp_cset *set, uint64_t *values);
	void (*close)(struct amp_cset *set);
};

/* The backends compiled in, in table order; NULL-terminated. */
extern const struct amp_backend_ops *const amp_backends[];
const struct amp_backend_ops *amp_backend_find(const char *name);
/* Best usable backend that may be auto-selected (timer always is); when
 * host->sim is set, the sim backend.  why[] says why it was chosen. */
const struct amp_backend_ops *amp_backend_choose(const struct amp_host *host,
						 char *why, size_t len);

/* The API measurement modules use.  All return 0 or -1 (with err). */
int amp_cset_open(struct amp_cset *set, const struct amp_backend_ops *ops,
		  const struct amp_host *host, const enum amp_event *ev, int n,
		  char *err, size_t len);
int amp_cset_start(struct amp_cset *set);
int amp_cset_stop(struct amp_cset *set);
int amp_cset_read(struct amp_cset *set, uint64_t *values);
void amp_cset_close(struct amp_cset *set);

/* Individual backends (defined in backend_*.c). */
extern const struct amp_backend_ops amp_backend_perf;
extern const struct amp_backend_ops amp_backend_papi;
extern const struct amp_backend_ops amp_backend_sim;
extern const struct amp_backend_ops amp_backend_timer;

#endif
