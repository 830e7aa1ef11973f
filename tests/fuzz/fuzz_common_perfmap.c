/*
 * libFuzzer target: the perf-map reader both programs use
 * (common/perf_map.c) on mutated maps, read in bounded calls until done, as
 * prof-symbolize reads a live map; every name handed over must be within
 * the line bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_map.h"

static volatile uint64_t sink;

static void add(void *ctx, uint64_t start, uint64_t size, const char *name, size_t len)
{
	(void)ctx;
	if (len > PERF_MAP_MAX_LINE)
		abort();
	sink += start + size;
	for (size_t i = 0; i < len; i++)
		sink += (uint8_t)name[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64], path[96];
	struct perf_map_cursor c = { 0 };
	FILE *f;
	int calls = 0;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz-perfmap-%d", (int)getpid());
		mkdir(dir, 0700);
		snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	}
	if (!(f = fopen(path, "w")) || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	while (perf_map_read(dir, 1, getuid(), &c, add, NULL) == PERF_MAP_READ && c.more)
		if (++calls > 1000)
			abort();
	if ((uint64_t)c.offset > size)
		abort();
	return 0;
}
