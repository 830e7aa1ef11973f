/*
 * The statistics of a difference of shares (common/share_diff.c): Student's
 * t quantiles against published tables, the batches a profile is cut into,
 * the share and its variance on counts worked by hand, and what an
 * interval calls a change.
 */
#include <math.h>

#include "share_diff.h"
#include "unit.h"

#define NEAR(a, b, tol) CHECK(fabs((a) - (b)) <= (tol))

TEST(t_quantiles)
{
	/* Two-sided tail, degrees of freedom, the tables' quantile. */
	static const double table[][3] = {
		{ 0.05, 10, 2.228139 },	 { 0.01, 29, 2.756386 }, { 0.001, 20, 3.849516 },
		{ 0.001, 30, 3.645959 }, { 0.01, 10, 3.169273 }, { 0.002, 10, 4.143700 },
		{ 0.001, 10, 4.586894 }, { 0.0001, 30, 4.482 },	 { 0.05, INFINITY, 1.959964 },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		NEAR(t_critical(table[i][0], table[i][1]), table[i][2], 1e-3);
	/* Wider with fewer degrees of freedom, and with a smaller tail. */
	CHECK(t_critical(0.01, 10) > t_critical(0.01, 30));
	CHECK(t_critical(0.001, 30) > t_critical(0.01, 30));
}

/* Slot starts first_ms, first_ms + 10, ... (n of them), each twice. */
static size_t slots(uint64_t *v, uint64_t first_ms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[2 * i] = v[2 * i + 1] = (first_ms + 10 * i) * 1000000;
	return 2 * n;
}

TEST(batches)
{
	static uint64_t v[1200];
	struct batching b;

	/* 600 slots of 10 ms from 1 s: 30 batches of 200 ms. */
	batching_plan(&b, v, slots(v, 1000, 600), 10000000);
	CHECK_INT(b.n, 30);
	CHECK_INT(b.nslots, 600);
	CHECK_INT(b.span_ns, 200000000);
	CHECK_INT(batching_of(&b, 1000000000), 0);
	CHECK_INT(batching_of(&b, 1199999999), 0);
	CHECK_INT(batching_of(&b, 1200000000), 1);
	CHECK_INT(batching_of(&b, 6990000000ull), 29);
	/* Fewer slots, fewer batches; too few, or none, none. */
	batching_plan(&b, v, slots(v, 0, 20), 10000000);
	CHECK_INT(b.n, 10);
	batching_plan(&b, v, slots(v, 0, 15), 10000000);
	CHECK_INT(b.n, 0);
	batching_plan(&b, v, 0, 10000000);
	CHECK_INT(b.n, 0);
}

TEST(share_and_variance)
{
	/* The same share in every batch: no variance. */
	double c1[] = { 1, 2, 3, 4 }, n1[] = { 10, 20, 30, 40 };
	struct share s = share_estimate(c1, n1, 4);
	NEAR(s.p, 0.1, 1e-15);
	NEAR(s.var, 0, 1e-18);
	CHECK_INT(s.df, 3);
	/* By hand: p = 6/40; residuals c - p n = 4 - 1.5, 0 - 1.5, 1 - 1.5,
	 * 1 - 1.5; var = 4/3 * (6.25 + 2.25 + 0.25 + 0.25) / 1600. */
	double c2[] = { 4, 0, 1, 1 }, n2[] = { 10, 10, 10, 10 };
	s = share_estimate(c2, n2, 4);
	NEAR(s.p, 0.15, 1e-15);
	NEAR(s.var, 4.0 / 3 * 9.0 / 1600, 1e-15);
}

TEST(changes)
{
	struct share a = { 0.30, 1e-4, 29 }, b = { 0.34, 1e-4, 29 }, c = { 0.305, 1e-4, 29 };
	struct share_change r = share_compare(a, b, 1);

	/* +4 points, standard error 1.41 points, t(0.01, ~58) ~ 2.66. */
	NEAR(r.delta, 0.04, 1e-15);
	CHECK(r.significant && r.lo > 0 && r.hi > r.delta);
	NEAR(r.hi - r.delta, r.delta - r.lo, 1e-15);
	NEAR((r.hi - r.lo) / 2 / sqrt(2e-4), t_critical(SHARE_ALPHA, 58), 1e-9);
	/* +0.5 points: within noise; its interval holds it. */
	r = share_compare(a, c, 1);
	CHECK(!r.significant && r.lo < 0 && r.hi > 0.005);
	/* Many frames compared: wider intervals, and +4 points no longer
	 * tells. */
	r = share_compare(a, b, 100000);
	CHECK(!r.significant);
	/* No batches: no interval. */
	struct share none = { 0.3, 0, 0 };
	r = share_compare(none, b, 1);
	CHECK(!r.significant && isinf(r.hi));
}
