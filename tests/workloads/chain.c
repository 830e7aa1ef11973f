/*
 * A CPU-bound workload with a known call chain, built with frame pointers:
 * main -> run_workload -> compute -> burn_cpu, where burn_cpu takes nearly
 * all the time.  Runs for argv[1] seconds (default 5).
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

__attribute__((noinline)) void burn_cpu(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void compute(void)
{
	burn_cpu(2000000);
}

__attribute__((noinline)) void run_workload(double seconds)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		compute();
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 <
		 seconds);
}

int main(int argc, char **argv)
{
	run_workload(argc > 1 ? atof(argv[1]) : 5.0);
	return 0;
}
