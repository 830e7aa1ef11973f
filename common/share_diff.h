/*
 * Whether a frame's share of a profile changed, given sampling noise.
 *
 * A profile is cut into batches of time (its slots, grouped: timed folded
 * stacks, docs/FORMATS.md section 3); a frame's share is the ratio of its
 * count to the total, and its variance is estimated from how that ratio
 * varies between batches (the ratio estimator's linearised variance, as
 * for cluster samples): samples close in time are alike, and batches long
 * against that keep the estimate honest where a binomial model, which
 * takes every sample as independent, is not.  The change of share between
 * two profiles then has a Student t interval (Welch's degrees of freedom),
 * at a confidence corrected for the number of frames compared (Bonferroni),
 * so that two profiles of the same program flag no frame in 99% of pairs.
 * prof-svg --diff colours only such changes; prof-fold --diff gates on them.
 */
#ifndef PROF_SHARE_DIFF_H
#define PROF_SHARE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Batches a profile's time is cut into: enough for the variance to be
 * estimated with some 30 degrees of freedom; fewer when the profile has
 * fewer slots.  Fewer than SHARE_BATCHES_MIN give no interval. */
#define SHARE_BATCHES 30
#define SHARE_BATCHES_MIN 8

/* The family-wise error rate: the chance that a comparison of two
 * profiles of the same program flags any frame.  1%, not the usual 5%:
 * prof-fold --diff gates CI, where one run in twenty failed for nothing
 * would teach its users to ignore it; and the estimator's tails are a
 * little heavier than Student's, so that at 5% a hundred splits of one
 * capture flagged more than five in one CI run of ten. */
#define SHARE_ALPHA 0.01

/* Frames holding less of both profiles are not compared (nor counted in
 * the correction): no sample size in reach tells their changes from
 * noise. */
#define SHARE_MIN 0.001

/* How a profile's slots map to batches: equal spans of time from its
 * first slot's start to its last slot's end. */
struct batching {
	uint64_t first_ns, span_ns;
	size_t n; /* batches; 0 when the profile is too short to have any */
	size_t nslots; /* distinct slots that hold counts */
};

/* The batching of a profile whose counts are in slots of slot_ns that
 * start at starts[0..n) (one per count, in any order: sorted here). */
void batching_plan(struct batching *b, uint64_t *starts, size_t n, uint64_t slot_ns);
/* The batch of the slot that starts at start_ns. */
size_t batching_of(const struct batching *b, uint64_t start_ns);

/* Whether a frame of count c0 of total n0 before, c1 of n1 after, is
 * compared (and counted in the correction). */
static inline bool share_compared(double c0, double n0, double c1, double n1)
{
	return c0 >= SHARE_MIN * n0 || c1 >= SHARE_MIN * n1;
}

/* A frame's share of one profile and the variance of that estimate, from
 * its count c[j] and the total n[j] of each of nb batches. */
struct share {
	double p, var;
	size_t df; /* batches - 1 */
};
struct share share_estimate(const double *c, const double *n, size_t nb);

/* The change of share from before to after, with its interval. */
struct share_change {
	double delta, lo, hi;
	bool significant; /* the interval excludes 0 */
};

/* The change, its interval at confidence 1 - SHARE_ALPHA / m (m frames
 * compared, two-sided). */
struct share_change share_compare(struct share before, struct share after, size_t m);

/* The two-sided critical value of Student's t with df degrees of freedom
 * (df large: the normal's) for a tail mass alpha. */
double t_critical(double alpha, double df);

#endif
