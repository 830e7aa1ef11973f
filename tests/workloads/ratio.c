/*
 * Splits its CPU time between three functions in the ratio 1:2:3, by the
 * amount of identical work each does (not by time, which sampling would
 * distort): share_one ~16.7%, share_two ~33.3%, share_three ~50%.
 * Runs for argv[1] seconds (default 5); argv[2] multiplies share_two's work
 * (default 1: 1.1 makes it 10% slower, its share then 2.2/6.2).
 *
 * A round is short (about 0.1 ms at -O0) and its length varies at random:
 * a round of fixed length near the sampling period (it was 0.9-1.0 ms at
 * 999 Hz) puts sample after sample at the same point of it, and the shares
 * a run sees then wander by twice what sampling alone explains.
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

#define WORK(name)                                         \
	__attribute__((noinline)) void name(unsigned long n) \
	{                                                    \
		for (unsigned long i = 0; i < n; i++)        \
			sink += i ^ (i >> 3);                \
	}

WORK(share_one)
WORK(share_two)
WORK(share_three)

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5.0;
	double slower = argc > 2 ? atof(argv[2]) : 1.0;
	struct timespec start, now;
	unsigned long seed = 0x9e3779b97f4a7c15ul;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		unsigned long unit = 10000 + seed % 20000;

		share_one(unit);
		share_two((unsigned long)(2 * unit * slower));
		share_three(3 * unit);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 <
		 seconds);
	return 0;
}
