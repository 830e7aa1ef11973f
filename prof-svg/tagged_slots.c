#include "tagged_slots.h"

#include "big_alloc.h"

uint64_t *slots_resize(uint64_t *slots, size_t nslots, size_t n)
{
	size_t mask = n - 1;
	uint64_t *grown = big_zalloc(n * sizeof(*grown));

	for (size_t i = 0; i < nslots; i++) {
		uint64_t v = slots[i];
		if (!v)
			continue;
		size_t j = slot_home(v, n);
		while (grown[j])
			j = (j + 1) & mask;
		grown[j] = v;
	}
	big_free(slots, nslots * sizeof(*slots));
	return grown;
}
