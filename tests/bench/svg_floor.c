/*
 * The floor under prof-svg's time on sorted folded stacks: reading them
 * with prof-svg's line reader and parser, comparing each stack with the
 * one before, finding the ends of its new frames and summing the counts
 * of every frame by prefix, as the stream does (sorted_frames.c); no name
 * kept, no frame recorded, nothing drawn.  `make bench` says how far
 * above it prof-svg is.
 *
 *   svg_floor FILE
 *
 * Prints the frames it counted and their counts' sum.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "folded.h"
#include "line_reader.h"
#include "stack_order.h"

struct open_frame {
	size_t end;	/* where it ends in the stack */
	double start;	/* the counts read before it began */
};

int main(int argc, char **argv)
{
	struct open_frame *path = NULL;
	size_t npath = 0, path_cap = 0, prev_len = 0, prev_cap = 0, len;
	double total = 0, counted = 0;
	uint64_t frames = 0;
	struct line_reader r;
	char *prev = NULL;
	const char *s;
	int fd;

	if (argc != 2)
		errx(EXIT_USAGE, "usage: svg_floor FILE");
	if ((fd = open(argv[1], O_RDONLY)) < 0)
		err(EXIT_USAGE, "%s", argv[1]);
	lr_init(&r, fd, argv[1]);
	while ((s = lr_next(&r, &len))) {
		struct folded_line l;
		size_t same, lo = 0, hi;
		if (folded_parse(s, len, 1, &l) != FOLDED_STACK)
			continue;
		same = stack_common_bytes(s, l.stack_len, prev, prev_len);
		/* The frames shared: those that end within the same bytes. */
		for (hi = npath; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2, e = path[mid].end;
			if (e <= same && (e < same || e == l.stack_len || s[e] == ';'))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; npath > lo; npath--)
			counted += total - path[npath - 1].start;
		for (size_t b = npath ? path[npath - 1].end + 1 : 0; b <= l.stack_len && l.stack_len;) {
			const char *semi = memchr(s + b, ';', l.stack_len - b);
			size_t e = semi ? (size_t)(semi - s) : l.stack_len;
			path = xreserve(path, &path_cap, npath + 1, sizeof(*path));
			path[npath++] = (struct open_frame){ e, total };
			frames++;
			b = e + 1;
		}
		total += folded_count_double(&l.count[0]);
		if (l.stack_len > prev_cap)
			prev = xrealloc(prev, prev_cap = 2 * l.stack_len);
		memcpy(prev + same, s + same, l.stack_len - same);
		prev_len = l.stack_len;
	}
	for (; npath; npath--)
		counted += total - path[npath - 1].start;
	lr_finish(&r);
	printf("%llu frames, their counts summing to %.0f\n", (unsigned long long)frames, counted);
	free(path);
	free(prev);
	return 0;
}
