/* trace.h - what happens while amp measures, as events: a phase starts,
 * a module takes on a level, a vote begins, a plan's misses are counted
 * or its time taken, a walk's miss rate comes back, a vote is cast, a
 * parameter is decided.  Observers (the progress line, --explain, the
 * --curves recorder) subscribe; with none, an event costs one test. */
#ifndef AMP_TRACE_H
#define AMP_TRACE_H

#include <stdint.h>
#include "measure.h"

enum amp_trace_kind {
	AMP_TR_PHASE,       /* name: a phase of the run begins */
	AMP_TR_MODULE,      /* module takes on lv */
	AMP_TR_VOTE_BEGIN,  /* param of lv: votes to come */
	AMP_TR_COUNT,       /* plan counted: misses over accesses */
	AMP_TR_TIMED,       /* timed walk of `lines`: excess ticks, rate */
	AMP_TR_WALK,        /* cyclic walk: lines, stride, rate */
	AMP_TR_VOTE,        /* vote number `vote`: value, or failed (text) */
	AMP_TR_DECIDED,     /* param of lv decided: result */
	AMP_TR_SWEEP,       /* latency sweep point: region bytes of stride
			       (the largest), excess = ticks per load */
	AMP_TR_POINT,       /* a module's own curve: its control variable
			       x (xname) against what it measured, y
			       (yname); y_decides: the decision reads on y */
};

struct amp_trace_ev {
	enum amp_trace_kind kind;
	const char *name;                 /* phase name */
	const struct amp_module *module;  /* the module at work (NULL: none) */
	const struct amp_level *lv;
	const char *param;                /* the parameter being voted on */
	const char *plan;                 /* plan name (COUNT) */
	const char *method;               /* "counters" or "timing" */
	uint64_t lines, stride, region, accesses;
	int evict;                        /* WALK: with evictors of the level above */
	double misses, excess, rate;
	unsigned vote, votes;
	int failed;
	int64_t value;
	const char *text;                 /* a failed vote's reason; TIMED: what the walk is compared with */
	const struct amp_param *result;   /* DECIDED */
	const char *xname, *yname;        /* POINT: CSV column names */
	const char *xlabel, *ylabel;      /* POINT: chart axes, with units */
	double x, y;
	int y_decides;
};

typedef void (*amp_trace_fn)(const struct amp_trace_ev *e, void *arg);

/* At most a few observers; 0, or -1 when full. */
int amp_trace_subscribe(amp_trace_fn fn, void *arg);
void amp_trace_clear(void);
int amp_tracing(void);
/* Sends e to every observer, filling in the module and parameter at work. */
void amp_trace(struct amp_trace_ev *e);
/* The module at work and the parameter being voted on (measure.c). */
void amp_trace_set_module(const struct amp_module *m);
/* The module set last (NULL: none). */
const struct amp_module *amp_trace_module(void);
/* The level of the last module event (NULL: none). */
const struct amp_level *amp_trace_level(void);
void amp_trace_set_param(const char *param);
const char *amp_trace_param(void);
/* A POINT of lv's curve, when anyone listens: x (column xname, axis
 * xlabel) against y; y_decides when the decision is read on y. */
void amp_trace_point(const struct amp_level *lv, const char *method, const char *xname, const char *xlabel,
		     double x, const char *yname, const char *ylabel, double y, int y_decides);
/* A COUNT: the misses a plan's measured passes cost (counted, or
 * estimated from time), when anyone listens. */
void amp_trace_count(const struct amp_plan *p, const char *method, double misses);

#endif
