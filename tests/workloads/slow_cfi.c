/*
 * A program whose call-frame information is made to be slow to read: one
 * function of 200,000 rows, each of which libdw computes by interpreting
 * the function's instructions from its start (quadratic: hours).  The
 * function is never called; main sleeps 20 ms N times (default 250), so
 * that an off-CPU capture sees it blocked in main's frames.
 *
 *   slow_cfi [N]
 */
#include <stdlib.h>
#include <unistd.h>

void slow_cfi(void);

__asm__(".text\n"
	".globl slow_cfi\n"
	".type slow_cfi, @function\n"
	"slow_cfi:\n"
	".cfi_startproc\n"
	".rept 100000\n"
	"push %rax\n"
	".cfi_adjust_cfa_offset 8\n"
	"pop %rax\n"
	".cfi_adjust_cfa_offset -8\n"
	".endr\n"
	"ret\n"
	".cfi_endproc\n"
	".size slow_cfi, .-slow_cfi\n");

__attribute__((noinline)) static void wait_a_little(void)
{
	usleep(20000);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 250;

	for (long i = 0; i < n; i++)
		wait_a_little();
	if (argc > 2)
		slow_cfi();
	return 0;
}
