/*
 * Code with neither frame pointers nor call-frame information (see the
 * Makefile): no unwinder can know spin's callers, so --unwind=dwarf must
 * stop at spin and count the sample as truncated rather than guess.
 * Runs for argv[1] seconds (default 5).
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned sink;

__attribute__((noinline)) unsigned spin(unsigned n)
{
	unsigned x = n;

	for (unsigned i = 0; i < n; i++)
		x = x * 1103515245u + 12345u;
	return x;
}

__attribute__((noinline)) unsigned outer(unsigned n)
{
	unsigned r = spin(n);

	sink += r;
	return r + 1;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5.0;
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		sink += outer(3000000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 <
		 seconds);
	return 0;
}
