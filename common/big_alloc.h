/*
 * Arrays that may grow large (hash tables, arenas, node arrays): mapped
 * by the kernel directly past a size, in transparent huge pages past a
 * quarter of one.  New bytes are zero.
 *
 * A page fault costs microseconds in a VM, and a 4 KiB page holds little:
 * prof-fold spent a tenth of its time on a busy host's capture faulting in
 * its tables a page at a time.  One huge page takes one fault.  Small
 * arrays, of which prof-sample keeps hundreds (a table per process), stay
 * on the heap, where a page holds many.  (Under AddressSanitizer the rest
 * of a mapping past an array's end is poisoned: an overflow is seen there
 * as on the heap.)
 */
#ifndef PROF_BIG_ALLOC_H
#define PROF_BIG_ALLOC_H

#include <stddef.h>

/* size bytes, zero. */
void *big_zalloc(size_t size);
/* p, of old bytes, grown to size (no smaller), the new bytes zero; it may
 * move.  p NULL with old 0 is big_zalloc(size). */
void *big_zrealloc(void *p, size_t old, size_t size);
/* Frees p, of size bytes (as allocated or last grown to). */
void big_free(void *p, size_t size);

#endif
