/*
 * Frame kinds, from FlameGraph's name annotations: "_[k]" kernel, "_[j]"
 * JIT, "_[i]" inlined, "_[w]" waker; anything else is user code.
 */
#ifndef PROF_SVG_FRAME_KIND_H
#define PROF_SVG_FRAME_KIND_H

#include <stddef.h>

enum frame_kind { KIND_USER, KIND_KERNEL, KIND_JIT, KIND_INLINED, KIND_WAKER, KIND_COUNT };

/* The kind of a frame name; *shown_len is the length without the
 * annotation. */
static inline enum frame_kind frame_kind_of(const char *s, size_t len, size_t *shown_len)
{
	*shown_len = len;
	if (len < 4 || s[len - 4] != '_' || s[len - 3] != '[' || s[len - 1] != ']')
		return KIND_USER;
	switch (s[len - 2]) {
	case 'k': *shown_len = len - 4; return KIND_KERNEL;
	case 'j': *shown_len = len - 4; return KIND_JIT;
	case 'i': *shown_len = len - 4; return KIND_INLINED;
	case 'w': *shown_len = len - 4; return KIND_WAKER;
	}
	return KIND_USER;
}

#endif
