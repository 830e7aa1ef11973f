/*
 * A program with phases at known times, for the capture's timestamps:
 * FIRST seconds on the CPU in phase_one, then SECOND seconds in phase_two,
 * then for BURSTS seconds a burst of BURST_MS milliseconds in burst() at
 * the start of each second, asleep the rest of it.  It writes to stdout
 * when each phase began, in seconds of CLOCK_MONOTONIC since it started.
 * Usage: phases [FIRST SECOND BURST_MS BURSTS]   (1.5 1.5 200 3)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

/* noinline: each phase is a frame of its own in every stack. */
static __attribute__((noinline)) void spin_until(double end)
{
	while (now() < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
}

static __attribute__((noinline)) void phase_one(double end)
{
	spin_until(end);
}

static __attribute__((noinline)) void phase_two(double end)
{
	spin_until(end);
}

static __attribute__((noinline)) void burst(double end)
{
	spin_until(end);
}

int main(int argc, char **argv)
{
	double first = argc > 1 ? atof(argv[1]) : 1.5;
	double second = argc > 2 ? atof(argv[2]) : 1.5;
	double burst_s = (argc > 3 ? atof(argv[3]) : 200) / 1000;
	int bursts = argc > 4 ? atoi(argv[4]) : 3;
	double t0 = now(), t;

	printf("phase_one %.6f\n", 0.0);
	phase_one(t0 + first);
	printf("phase_two %.6f\n", now() - t0);
	phase_two(t0 + first + second);
	for (int i = 0; i < bursts; i++) {
		t = t0 + first + second + i;
		printf("burst %.6f\n", now() - t0);
		fflush(stdout);
		burst(t + burst_s);
		struct timespec rest = { 0, 0 };
		double left = t + 1 - now();
		if (left > 0) {
			rest.tv_sec = (time_t)left;
			rest.tv_nsec = (long)((left - (double)rest.tv_sec) * 1e9);
			nanosleep(&rest, NULL);
		}
	}
	printf("end %.6f\n", now() - t0);
	return 0;
}
