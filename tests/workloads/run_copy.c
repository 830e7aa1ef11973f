/*
 * Code run from a file mapped by hand, as a JIT or a loader of its own
 * maps code: the file is a copy of this program (its ELF type may have
 * been changed, to a relocatable object's say), mapped whole, readable
 * and executable, and spin() is run from there for SECONDS.
 *
 *   run_copy FILE [SECONDS]
 *
 * spin() uses no data and calls nothing, so its bytes run wherever they
 * are mapped: the copy's spin() lies at the offset in the file where this
 * program's own does.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) unsigned spin(unsigned n)
{
	unsigned x = n;

	for (unsigned i = 0; i < n; i++)
		x = x * 1103515245u + 12345u;
	return x;
}

/* Where spin() lies in this program's file: its mapping's offset, from
 * /proc/self/maps. */
static long spin_offset(void)
{
	uintptr_t at = (uintptr_t)spin, lo, hi;
	unsigned long long off;
	char line[512], perms[8];
	FILE *maps = fopen("/proc/self/maps", "r");

	while (maps && fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx %7s %llx", &lo, &hi, perms, &off) == 4 && at >= lo &&
		    at < hi) {
			fclose(maps);
			return (long)(at - lo + off);
		}
	fprintf(stderr, "run_copy: spin() is in no mapping\n");
	exit(1);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct stat st;
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	double end = now() + (argc > 2 ? atof(argv[2]) : 5);
	unsigned (*copy)(unsigned);
	volatile unsigned sink;
	char *p;

	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "usage: run_copy FILE [SECONDS]\n");
		return 2;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("run_copy: mmap");
		return 1;
	}
	copy = (unsigned (*)(unsigned))(void *)(p + spin_offset());
	while (now() < end)
		sink = copy(1000000);
	(void)sink;
	return 0;
}
