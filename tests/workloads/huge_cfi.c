/*
 * A program whose call-frame information names register 130,000,000, for
 * which libdw would make room: 1 GiB, zeroed, at each row it computes in
 * the function (cfi_check.h).  main runs, N times (default 250), 5 ms on
 * the CPU and a 20 ms sleep, each inside that function's frame, so that
 * both on-CPU samples and blocks are walked through it.
 *
 *   huge_cfi [N]
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Calls f(n) with the register named (DW_CFA_offset_extended, register
 * 130,000,000 as ULEB128, offset 1) in the rows around the call. */
void in_huge_frame(void (*f)(long), long n);

__asm__(".text\n"
	".globl in_huge_frame\n"
	".type in_huge_frame, @function\n"
	"in_huge_frame:\n"
	".cfi_startproc\n"
	"push %rbp\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_offset %rbp, -16\n"
	"mov %rdi, %rax\n"
	"mov %rsi, %rdi\n"
	".cfi_escape 0x05, 0x80, 0xc9, 0xfe, 0x3d, 0x01\n"
	"call *%rax\n"
	"pop %rbp\n"
	".cfi_adjust_cfa_offset -8\n"
	"ret\n"
	".cfi_endproc\n"
	".size in_huge_frame, .-in_huge_frame\n");

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void work(long n)
{
	for (long i = 0; i < n; i++) {
		double end = now() + 0.005;
		while (now() < end)
			;
		usleep(20000);
	}
}

int main(int argc, char **argv)
{
	in_huge_frame(work, argc > 1 ? atol(argv[1]) : 250);
	return 0;
}
