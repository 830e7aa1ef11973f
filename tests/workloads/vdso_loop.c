/*
 * Spends its time in the vdso: calls clock_gettime in a loop for argv[1]
 * seconds (default 5), so most samples' leaf frame is vdso code.
 */
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5.0, start = now();

	while (now() - start < seconds)
		;
	return 0;
}
