// SPDX-License-Identifier: GPL-2.0
/*
 * On-CPU stack sampling: attached to a cpu-clock perf event on every CPU,
 * it counts (thread, name, kernel stack, user stack) tuples in a hash map
 * and stores the stacks in a stack-trace map, for prof-sample to drain.
 *
 * The maps are double-buffered.  prof-sample flips `active` at each drain
 * and then reads and empties the idle set while this program fills the
 * other.  A perf-event program runs to completion with preemption disabled,
 * so once the flip is visible no writer is left on the idle set: the drain
 * loses no count between read and delete, and it can clear the idle stack
 * map so stack ids are never reused across intervals (the stale-id problem
 * of a stack map that is never cleared).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "profile.h"

#define EFAULT 14
#define EEXIST 17

const volatile bool filter_pids = false;
const volatile bool include_idle = false;

/* Written by prof-sample (mmaped .bss): which map set is being filled. */
__u32 active = 0;
/* Totals since the start; prof-sample reads deltas. */
__u64 counters[PROF_NR_COUNTERS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

#define STACK_MAP(name)                                                    \
	struct {                                                           \
		__uint(type, BPF_MAP_TYPE_STACK_TRACE);                    \
		__uint(max_entries, 16384);                                \
		__uint(key_size, sizeof(__u32));                           \
		__uint(value_size, PROF_MAX_STACK * sizeof(__u64));        \
	} name SEC(".maps")

#define COUNT_MAP(name)                                                    \
	struct {                                                           \
		__uint(type, BPF_MAP_TYPE_HASH);                           \
		__uint(max_entries, 16384);                                \
		__type(key, struct sample_key);                            \
		__type(value, __u64);                                      \
	} name SEC(".maps")

STACK_MAP(stacks0);
STACK_MAP(stacks1);
COUNT_MAP(counts0);
COUNT_MAP(counts1);

static __always_inline void count(enum prof_counter c)
{
	__sync_fetch_and_add(&counters[c], 1);
}

/* -EFAULT means the sample has no stack of that kind (a kernel thread has
 * no user stack; a sample in user mode has no kernel stack): not a loss. */
static __always_inline __s32 stackid(void *ctx, void *map, __u64 flags, enum prof_counter lost)
{
	long id = bpf_get_stackid(ctx, map, flags);

	if (id < 0 && id != -EFAULT)
		count(lost);
	return id;
}

static __always_inline int record(void *ctx, void *stacks, void *counts, struct sample_key *key)
{
	static const __u64 one = 1;
	__u64 *val;
	long err;

	key->kstack = stackid(ctx, stacks, 0, PROF_LOST_KSTACK);
	key->ustack = stackid(ctx, stacks, BPF_F_USER_STACK, PROF_LOST_USTACK);

	val = bpf_map_lookup_elem(counts, key);
	if (val) {
		__sync_fetch_and_add(val, 1);
		return 0;
	}
	err = bpf_map_update_elem(counts, key, &one, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* Another CPU inserted the same key first. */
		val = bpf_map_lookup_elem(counts, key);
		if (val) {
			__sync_fetch_and_add(val, 1);
			return 0;
		}
	}
	if (err)
		count(PROF_LOST_COUNT);
	return 0;
}

SEC("perf_event")
int do_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sample_key key = {};

	key.pid = id >> 32;
	key.tid = (__u32)id;
	if (key.tid == 0 && !include_idle)
		return 0;
	if (filter_pids && !bpf_map_lookup_elem(&pids, &key.pid))
		return 0;
	count(PROF_SEEN);
	bpf_get_current_comm(key.comm, sizeof(key.comm));

	if (active)
		return record(ctx, &stacks1, &counts1, &key);
	return record(ctx, &stacks0, &counts0, &key);
}

char LICENSE[] SEC("license") = "GPL";
