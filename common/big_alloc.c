#include "big_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "diag.h"

/* Under AddressSanitizer the bytes of a mapping past the array's size are
 * poisoned, so that an overflow is seen here as on the heap, and made
 * clean again before the range is unmapped, for whatever is mapped there
 * next.  Only those: the shadow of the rest is zero, untouched, and
 * writing it would cost an eighth of every array in memory (it took a
 * test's prof-symbolize past its bound of 256 MiB). */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define HUGE_PAGE ((size_t)2 << 20)
/* Arrays this big are mapped, in huge pages: a quarter filled, one costs
 * 128 fewer faults, and at most 1.5 MiB of memory never touched. */
#define HUGE_FROM (HUGE_PAGE / 4)

static void too_big(size_t size)
{
	errx(EXIT_USAGE, "out of memory (%zu bytes)", size);
}

/* The bytes mapped for an array of size bytes (from HUGE_FROM): whole huge
 * pages, as a huge page cannot back the part of a range past its end. */
static size_t mapped_size(size_t size)
{
	return (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

/* Fresh memory for size bytes (from HUGE_FROM) at a huge page boundary:
 * the kernel backs only aligned 2 MiB ranges with huge pages, and mmap
 * aligns nothing. */
static char *map_aligned(size_t size)
{
	size_t span = mapped_size(size) + HUGE_PAGE;
	char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		too_big(size);
	char *a = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (p + span > a + mapped_size(size))
		munmap(a + mapped_size(size), (size_t)(p + span - (a + mapped_size(size))));
	return a;
}

void *big_zalloc(size_t size)
{
	return big_zrealloc(NULL, 0, size);
}

void *big_zrealloc(void *p, size_t old, size_t size)
{
	char *q;

	if (size > SIZE_MAX / 4)
		too_big(size);
	if (size < old)
		size = old;
	if (size < HUGE_FROM) {
		q = p ? xrealloc(p, size ? size : 1) : xcalloc(1, size ? size : 1);
		if (p)
			memset(q + old, 0, size - old);
		return q;
	}
	if (p && old >= HUGE_FROM && mapped_size(old) == mapped_size(size)) {
		UNPOISON((char *)p + old, size - old);
		return p;
	}
	q = map_aligned(size);
	if (p && old >= HUGE_FROM) {
		/* The pages move, not their contents. */
		if (mremap(p, mapped_size(old), mapped_size(old), MREMAP_MAYMOVE | MREMAP_FIXED,
			   q) == MAP_FAILED)
			too_big(size);
		UNPOISON((char *)p + old, mapped_size(old) - old);
	}
	POISON(q + size, mapped_size(size) - size);
	/* After the move: the moved mapping replaced part of the new one,
	 * advice and all. */
	madvise(q, mapped_size(size), MADV_HUGEPAGE);
	if (p && old < HUGE_FROM) {
		memcpy(q, p, old);
		free(p);
	}
	return q;
}

void big_free(void *p, size_t size)
{
	if (!p)
		return;
	if (size < HUGE_FROM)
		free(p);
	else {
		UNPOISON((char *)p + size, mapped_size(size) - size);
		munmap(p, mapped_size(size));
	}
}
