/*
 * Splits its CPU time between three functions in the ratio 1:2:3, by the
 * amount of identical work each does (not by time, which sampling would
 * distort): share_one ~16.7%, share_two ~33.3%, share_three ~50%.
 * Runs for argv[1] seconds (default 5).
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
	struct timespec start, now;
	const unsigned long unit = 200000;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		share_one(unit);
		share_two(2 * unit);
		share_three(3 * unit);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 <
		 seconds);
	return 0;
}
