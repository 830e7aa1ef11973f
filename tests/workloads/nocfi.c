/*
 * Code without call-frame information (see the Makefile): what
 * --unwind=dwarf does where CFI does not say how to find the callers.
 *
 *   nocfi [SECONDS] [decoy]   built without frame pointers either: no
 *                             unwinder can know spin's callers, so the walk
 *                             must stop at spin and count the sample as
 *                             truncated rather than guess.  With "decoy",
 *                             spin_decoy() runs instead, with rbp pointing
 *                             at a stack word that holds a code address
 *                             (outer's first byte) which no call returns
 *                             to: a frame pointer in appearance only.
 *   nocfi_fp [SECONDS]        the same code built with frame pointers, as
 *                             a runtime's hand-written code (V8's builtins)
 *                             keeps them: walked by frame pointer to main.
 *
 * Runs for SECONDS (default 5).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
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

#ifndef KEEP_FRAME_POINTER
/* rbp, a general register here, holds frame: a saved rbp of 0 and, above
 * it, where a return address would be, outer's entry. */
__attribute__((noinline)) unsigned spin_decoy(unsigned n, long *frame)
{
	register long *fp asm("rbp") = frame;
	unsigned x = n;

	for (unsigned i = 0; i < n; i++) {
		asm volatile("" : "+r"(fp));
		x = x * 1103515245u + 12345u;
	}
	return x;
}
#endif

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5.0;
	struct timespec start, now;
#ifndef KEEP_FRAME_POINTER
	bool decoy = argc > 2 && strcmp(argv[2], "decoy") == 0;
	long frame[2] = { 0, (long)outer };
#endif

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
#ifndef KEEP_FRAME_POINTER
		if (decoy)
			sink += spin_decoy(3000000, frame);
		else
#endif
			sink += outer(3000000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 <
		 seconds);
	return 0;
}
