/* curve.c - BlackjackBench's curve analyses (section 4). */
#include "curve.h"

void amp_curve_monotone(double *y, int n)
{
	for (int i = n - 2; i >= 0; i--)
		if (y[i + 1] < y[i])
			y[i] = y[i + 1];
}

double amp_curve_rel_step(const double *y, int i)
{
	return y[i] > 0 ? (y[i + 1] - y[i]) / y[i] : 0;
}

int amp_curve_first_step(const double *y, int n, double min_rel)
{
	double avg = 0;

	if (n < 2)
		return -1;
	/* The mean of many small (noise) and a few large (real) steps lies
	 * between the two: the threshold that tells them apart. */
	for (int i = 0; i < n - 1; i++)
		avg += amp_curve_rel_step(y, i);
	avg /= n - 1;
	for (int i = 0; i < n - 1; i++) {
		double d = amp_curve_rel_step(y, i);

		if (d > avg && d > min_rel)
			return i;
	}
	return -1;
}

int amp_curve_biggest_step(const double *y, int n, double min_rel)
{
	int best = -1;
	double best_d = min_rel;

	for (int i = 0; i < n - 1; i++) {
		double d = amp_curve_rel_step(y, i);

		if (d > best_d) {
			best_d = d;
			best = i;
		}
	}
	return best;
}

int amp_curve_spill_step(const double *y, int n)
{
	return amp_curve_first_step(y, n, AMP_CURVE_SPILL_MIN);
}
