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

#include "fuzz_file.h"
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
	const char *dir = fuzz_file_in_dir("perf-1.map", data, size);
	struct perf_map_cursor c = { 0 };
	int calls = 0;

	while (perf_map_read(dir, 1, getuid(), &c, add, NULL) == PERF_MAP_READ && c.more)
		if (++calls > 1000)
			abort();
	if ((uint64_t)c.offset > size)
		abort();
	return 0;
}
