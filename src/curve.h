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

#endif
