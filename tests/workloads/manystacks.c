/*
 * Many distinct stacks: recursion to a depth that cycles through 1..400,
 * burning a little at the bottom, so a sampler sees hundreds of different
 * stacks per second.  Runs for argv[1] seconds (default 5).
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

__attribute__((noinline)) void descend(int depth)
{
	if (depth > 0) {
		descend(depth - 1);
		sink++;
		return;
	}
	for (int i = 0; i < 20000; i++)
		sink += (unsigned long)i;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5.0;
	struct timespec start, now;
	int depth = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		descend(depth);
		depth = (depth + 1) % 400;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 <
		 seconds);
	return 0;
}
