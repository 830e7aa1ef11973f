/*
 * Comparing a folded stack with the one before it, as sorted input is
 * read: frame_tree.c merges on it, sorted_frames.c draws on it.
 */
#ifndef PROF_SVG_STACK_ORDER_H
#define PROF_SVG_STACK_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* How many leading bytes a and b share: eight at a time, as sorted
 * stacks share hundreds. */
static inline size_t stack_common_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen, same = 0;
	uint64_t x, y;

	for (; same + 8 <= n; same += 8) {
		memcpy(&x, a + same, 8);
		memcpy(&y, b + same, 8);
		if (x != y)
			break;
	}
	while (same < n && a[same] == b[same])
		same++;
	return same;
}

/* Whether a's frame that first differs from b's, at byte same (inside
 * both frames, which begin at one offset), sorts after b's in bytewise
 * order of names: a frame that ends there (at ';' or the end of its
 * stack) sorts first.  Both cannot end there, or the frame would be
 * shared. */
static inline bool stack_sorts_after(const char *a, size_t alen, const char *b, size_t blen,
				     size_t same)
{
	int na = same < alen && a[same] != ';' ? (unsigned char)a[same] : -1;
	int nb = same < blen && b[same] != ';' ? (unsigned char)b[same] : -1;

	return na > nb;
}

#endif
