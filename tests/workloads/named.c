/*
 * A thread that names itself (prctl(PR_SET_NAME), as any program may, with
 * any bytes) and spins for argv[2] seconds (default 2).  For the tests of
 * what a name can do to the line formats and to terminals.
 */
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

volatile unsigned long sink;

__attribute__((noinline)) void named_spin(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i * i;
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 2 ? atoi(argv[2]) : 2);

	if (argc > 1)
		prctl(PR_SET_NAME, argv[1], 0, 0, 0);
	while (time(NULL) < end)
		named_spin();
	return 0;
}
