/* curve.h - BlackjackBench's analyses of a benchmark's curve (section 4):
 * monotonicity enforcement, first step and biggest relative step.  Pure
 * functions over arrays, so the tests feed them synthetic noisy curves. */
#ifndef AMP_CURVE_H
#define AMP_CURVE_H

/* Monotonicity enforcement (4.1): y[i] = min over j >= i of y[j], so
 * noise that dips a point below the later ones is removed and the curve
 * never decreases. */
void amp_curve_monotone(double *y, int n);

/* Relative increase of step i: (y[i+1] - y[i]) / y[i] (0 when y[i] <= 0). */
double amp_curve_rel_step(const double *y, int i);

/* First step (4.2.1): the first i whose relative increase exceeds both
 * the average relative increase over the curve and min_rel (0: the
 * paper's rule alone; a floor keeps a flat noisy curve from showing a
 * step).  -1 when there is none. */
int amp_curve_first_step(const double *y, int n, double min_rel);

/* Biggest relative step (4.2.2): the i with the largest relative
 * increase, if that exceeds min_rel; -1 otherwise. */
int amp_curve_biggest_step(const double *y, int n, double min_rel);

/* The live-range curve's first spill, on a monotone curve: its first
 * step (4.2.1) of AMP_CURVE_SPILL_MIN or more.  Not the biggest step
 * (4.2.2): where stores forward to loads at no latency (memory renaming,
 * AMD Zen 2 and later) a spill costs throughput only, about as much per
 * spilled variable at the first spill as at the later ones, and the
 * compiler spills several variables at once further up, so a later
 * step is often the biggest.  Below the floor: the plateau's noise and
 * the slight rise of a loop counter moved to memory.  -1 when none. */
#define AMP_CURVE_SPILL_MIN 0.12
int amp_curve_spill_step(const double *y, int n);

#endif
