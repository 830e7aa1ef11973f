/*
 * The one way arrays are sorted: qsort, except that an empty array may be
 * a null pointer.  glibc declares qsort's base nonnull even for no element,
 * UBSan stops on it, and tables that learnt nothing (a unit without
 * functions, a capture without kernel symbols) have no array at all.
 */
#ifndef PROF_SORT_H
#define PROF_SORT_H

#include <stdlib.h>

static inline void sort_array(void *base, size_t n, size_t size,
			      int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(base, n, size, cmp);
}

#endif
