#include "held_stacks.h"

#include <bpf/bpf.h>

uint32_t held_stack_id(struct recorder *rec, int fd, uint64_t key, enum cap_loss_cause lost)
{
	struct stack_trace st;
	uint32_t id, nr;

	if (!key)
		return 0;
	id = recorder_stack_id(rec, key);
	if (id)
		return id;
	if (bpf_map_lookup_elem(fd, &key, &st) != 0) {
		recorder_loss(rec, lost, 1);
		return 0;
	}
	nr = st.nr < PROF_MAX_STACK ? (uint32_t)st.nr : PROF_MAX_STACK;
	return recorder_held_stack(rec, key, (const uint64_t *)st.ip, nr);
}

void held_stacks_wakers(struct recorder *rec, int fd, struct taken_sample *s)
{
	const struct sample_key *k = s->key;

	for (uint32_t i = 0; i < k->nwakers && i < PROF_MAX_WAKERS; i++) {
		s->waker_kstack[i] = held_stack_id(rec, fd, k->wakers[i].kstack, CAP_LOSS_WAKER_STACK);
		s->waker_ustack[i] = held_stack_id(rec, fd, k->wakers[i].ustack, CAP_LOSS_WAKER_STACK);
	}
}
