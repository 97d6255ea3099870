/* progress.h - the one-line progress display on standard error (only
 * on a terminal), the --explain narration, and the --curves recorder:
 * observers of the run's trace events (trace.h). */
#ifndef AMP_PROGRESS_H
#define AMP_PROGRESS_H

#include <stdio.h>
#include "report.h"

/* Subscribes the progress line when fd 2 is a terminal (and quiet is
 * 0); returns whether it did. */
int amp_progress_start(int quiet);
/* The phases this run will go through, in order (names as given to
 * amp_progress_phase): the whole run's estimate counts those to come. */
void amp_progress_plan(const char *const *phases, int n);
/* A phase begins (calibration, latency sweep, counters, timing, cpu). */
void amp_progress_phase(const char *name);
/* Clears the line for other output; the next event redraws it. */
void amp_progress_clear(void);
/* Clears the line for good (before the report is printed). */
void amp_progress_stop(void);

/* --explain: narrates each experiment on `out`. */
void amp_explain_start(FILE *out);

/* --curves: records every experiment's measurements; amp_curves_write
 * writes them, and the latency sweep, to dir (created if absent) as
 * CSV and SVG.  0, or -1 with err. */
void amp_curves_start(void);
/* Creates DIR if needed and checks amp can write in it, before any
 * measurement; 0, or -1 with the reason. */
int amp_curves_check(const char *dir, char *err, size_t len);
int amp_curves_write(const char *dir, const struct amp_report *r, char *err, size_t len);
/* Keeps a TLB sweep of the timing path ("dtlb" or "itlb") for
 * amp_curves_write: its entries and page-size curves. */
struct amp_tlb_timing;
void amp_curves_tlb(const char *name, const struct amp_tlb_timing *t);

#endif
