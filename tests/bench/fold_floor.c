/*
 * The floor under prof-fold's time on a perf script: what reading it and
 * a little of the least work any folder does take, with prof-fold's own
 * line reader, so that `make bench` can say how far above it prof-fold is.
 *
 *   fold_floor lines FILE    read, and split into lines
 *   fold_floor keys FILE     and each frame line's key (what follows its
 *                            address) found and hashed
 *   fold_floor stacks FILE   and each key's hash looked up in a table of
 *                            ids (hashes trusted: no bytes compared), each
 *                            sample's ids hashed and counted
 *
 * Nothing is named, tidied, sorted or written: prints what it counted.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ascii.h"
#include "diag.h"
#include "line_reader.h"

#define KEY_SLOTS (1u << 15) /* as prof-fold's frame cache */
#define STACK_SLOTS (1u << 20)
#define DEPTH_MAX 4096

int main(int argc, char **argv)
{
	static uint64_t key_hash[KEY_SLOTS], stack_hash[STACK_SLOTS];
	static uint32_t key_id[KEY_SLOTS], stack_count[STACK_SLOTS], ids[DEPTH_MAX];
	int level = argc == 3 ? (!strcmp(argv[1], "lines") ? 0 : !strcmp(argv[1], "keys") ? 1 :
				 !strcmp(argv[1], "stacks") ? 2 : -1) : -1;
	uint64_t lines = 0, sum = 0, stacks = 0;
	uint32_t next_id = 1;
	size_t len, depth = 0, addr, end;
	struct line_reader r;
	const char *s;
	int fd;

	if (level < 0)
		errx(EXIT_USAGE, "usage: fold_floor lines|keys|stacks FILE");
	if ((fd = open(argv[2], O_RDONLY)) < 0)
		err(EXIT_USAGE, "%s", argv[2]);
	lr_init(&r, fd, argv[2]);
	while ((s = lr_next(&r, &len))) {
		lines++;
		if (level == 0)
			continue;
		if (len >= 32 && s[0] == '\t' && ascii_indent_and_address(s, &addr, &end)) {
			uint64_t h = XXH3_64bits(s + end, len - end);
			uint32_t k = (uint32_t)h & (KEY_SLOTS - 1);
			sum += h;
			if (level == 1)
				continue;
			if (key_hash[k] != h) {
				key_hash[k] = h;
				key_id[k] = next_id++;
			}
			if (depth < DEPTH_MAX)
				ids[depth++] = key_id[k];
		} else if (depth) {
			if (level == 2) {
				uint64_t h = XXH3_64bits(ids, depth * sizeof(*ids));
				uint32_t k = (uint32_t)h & (STACK_SLOTS - 1);
				while (stack_hash[k] && stack_hash[k] != h)
					k = (k + 1) & (STACK_SLOTS - 1);
				stacks += !stack_hash[k];
				stack_hash[k] = h;
				stack_count[k]++;
			}
			depth = 0;
		}
	}
	lr_finish(&r);
	printf("%llu lines, key hashes summing to %llu, %llu stacks\n", (unsigned long long)lines,
	       (unsigned long long)sum, (unsigned long long)stacks);
	return 0;
}
