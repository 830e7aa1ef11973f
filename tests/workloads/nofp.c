/*
 * Code as distributions build it: no frame pointers (see the Makefile),
 * only the call-frame information in .eh_frame.  It spends its time at the
 * bottom of a recursion (spin under 24 calls of recurse) and inside libc's
 * qsort calling back into compare, so a frame-pointer walk loses main on
 * nearly every sample and --unwind=dwarf must find it on nearly all.
 * Runs for argv[1] seconds (default 5).
 */
#include <stdlib.h>
#include <time.h>

#define DEPTH 24
#define ELEMENTS 4096

volatile unsigned sink;

__attribute__((noinline)) unsigned spin(unsigned n)
{
	unsigned x = n;

	for (unsigned i = 0; i < n; i++)
		x = x * 1103515245u + 12345u;
	return x;
}

/* Not a tail call: the addition after it keeps every frame on the stack. */
__attribute__((noinline)) unsigned recurse(int depth)
{
	unsigned r;

	if (depth == 0)
		return spin(3000000);
	r = recurse(depth - 1);
	sink += r;
	return r + (unsigned)depth;
}

__attribute__((noinline)) int compare(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) void sort_round(unsigned *v, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = seed >> 8;
	}
	qsort(v, n, sizeof(*v), compare);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5.0;
	static unsigned v[ELEMENTS];
	struct timespec start, now;
	unsigned round = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		sink += recurse(DEPTH);
		for (int i = 0; i < 8; i++)
			sort_round(v, ELEMENTS, ++round);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 <
		 seconds);
	return 0;
}
