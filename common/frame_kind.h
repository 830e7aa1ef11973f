/*
 * Frame kinds, as FlameGraph's annotations mark them at the end of a
 * folded frame's name (docs/FORMATS.md section 3): "_[k]" kernel, "_[j]"
 * JIT, "_[i]" inlined, "_[w]" waker, "_[p]" Python; a name without one is
 * user code.
 * prof-fold writes them (--kernel, --jit, --inline), prof-svg colours and
 * names frames by them.
 */
#ifndef PROF_FRAME_KIND_H
#define PROF_FRAME_KIND_H

#include <stddef.h>

enum frame_kind {
	KIND_USER,
	KIND_KERNEL,
	KIND_JIT,
	KIND_INLINED,
	KIND_WAKER,
	KIND_PYTHON,
	KIND_COUNT
};

#define FRAME_KIND_SUFFIX_LEN 4

/* "_[k]" and so on; "" for KIND_USER. */
const char *frame_kind_suffix(enum frame_kind k);

/* The kind of a frame name; *shown_len is the length without the
 * annotation. */
enum frame_kind frame_kind_of(const char *name, size_t len, size_t *shown_len);

/* Writes k's annotation at out (room for FRAME_KIND_SUFFIX_LEN bytes);
 * returns its length. */
size_t frame_kind_put(char *out, enum frame_kind k);

#endif
