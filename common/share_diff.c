#include "share_diff.h"

#include "sort.h"

#include <math.h>
#include <stdlib.h>

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

void batching_plan(struct batching *b, uint64_t *starts, size_t n_starts, uint64_t slot_ns)
{
	size_t nslots = 0, n;
	uint64_t span;

	b->n = 0;
	if (!n_starts)
		return;
	sort_array(starts, n_starts, sizeof(*starts), cmp_u64);
	for (size_t i = 0; i < n_starts; i++)
		nslots += !i || starts[i] != starts[i - 1];
	n = nslots / 2 < SHARE_BATCHES ? nslots / 2 : SHARE_BATCHES;
	span = starts[n_starts - 1] - starts[0] + slot_ns;
	b->nslots = nslots;
	b->first_ns = starts[0];
	b->n = n >= SHARE_BATCHES_MIN ? n : 0;
	b->span_ns = b->n ? span / b->n + (span % b->n != 0) : 0;
}

size_t batching_of(const struct batching *b, uint64_t start_ns)
{
	size_t j = start_ns > b->first_ns ? (start_ns - b->first_ns) / b->span_ns : 0;

	return j < b->n ? j : b->n - 1;
}

struct share share_estimate(const double *c, const double *n, size_t nb)
{
	struct share s = { 0, 0, nb ? nb - 1 : 0 };
	double C = 0, N = 0, ss = 0;

	for (size_t j = 0; j < nb; j++)
		C += c[j], N += n[j];
	if (!(N > 0) || nb < 2)
		return s;
	s.p = C / N;
	for (size_t j = 0; j < nb; j++) {
		double r = c[j] - s.p * n[j];
		ss += r * r;
	}
	s.var = (double)nb / (double)(nb - 1) * ss / (N * N);
	return s;
}

/* The normal's upper quantile for tail mass q (two-sided alpha = 2q), by
 * bisection on erfc: exact to the double, and called a few times. */
static double z_upper(double q)
{
	double lo = 0, hi = 40;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (0.5 * erfc(mid / sqrt(2)) > q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double t_critical(double alpha, double df)
{
	double z = z_upper(alpha / 2), z2 = z * z, v = df;

	if (!(df > 0) || isinf(df))
		return z;
	/* Cornish and Fisher's expansion of Student's t in the normal's
	 * quantile, to the fourth power of 1/df: within 1e-3 of the tables'
	 * quantiles from 10 degrees of freedom, for two-sided tails of 0.05
	 * to 1e-4 (tests/unit/test_common_share_diff.c). */
	double g1 = z * (z2 + 1) / 4;
	double g2 = z * ((5 * z2 + 16) * z2 + 3) / 96;
	double g3 = z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384;
	double g4 = z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160;
	return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

struct share_change share_compare(struct share before, struct share after, size_t m)
{
	struct share_change r = { after.p - before.p, 0, 0, false };
	double var = before.var + after.var, df, t;

	if (!before.df || !after.df || m == 0) {
		r.lo = -INFINITY, r.hi = INFINITY;
		return r;
	}
	/* Welch and Satterthwaite's degrees of freedom. */
	df = var > 0 ? var * var / (before.var * before.var / (double)before.df +
				    after.var * after.var / (double)after.df)
		     : (double)(before.df < after.df ? before.df : after.df);
	t = t_critical(SHARE_ALPHA / (double)m, df);
	r.lo = r.delta - t * sqrt(var);
	r.hi = r.delta + t * sqrt(var);
	r.significant = r.lo > 0 || r.hi < 0;
	return r;
}
