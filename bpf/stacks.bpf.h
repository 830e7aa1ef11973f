/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stacks and sample keys: the double-buffered maps that count samples by
 * (thread, name, stacks) and hold each distinct stack once, and the held
 * stacks of blocks and wakers, which outlive a drain.
 */
#ifndef PROF_BPF_STACKS_BPF_H
#define PROF_BPF_STACKS_BPF_H

const volatile bool kernel_stacks = true;
const volatile bool user_stacks = true;

/* Scratch space for one stack: too big for the 512-byte BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, struct stack_trace);
} scratch SEC(".maps");

/* Stacks of blocks and of wakers outlive the drain interval they were
 * taken in (a block may last minutes; a chain names the wakeup of a waker
 * that may be older still), so they are not in the double-buffered maps:
 * prof-sample reads the ones a sample names, and the least recently used
 * go when the map is full. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct stack_trace);
} held_stacks SEC(".maps");

/* The key of the sample being built: too big for the BPF stack with a
 * chain of wakers in it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, struct sample_key);
} key_scratch SEC(".maps");

#define STACK_MAP(name)                                                    \
	struct {                                                           \
		__uint(type, BPF_MAP_TYPE_HASH);                           \
		__uint(max_entries, 16384);                                \
		__type(key, __u64);                                        \
		__type(value, struct stack_trace);                         \
	} name SEC(".maps")

/* Not preallocated: with samples dated to 10 ms, a busy host's blocks fill
 * many times the entries they did per interval, and a bound that holds
 * them would cost every capture its memory up front. */
#define COUNT_MAP(name)                                                    \
	struct {                                                           \
		__uint(type, BPF_MAP_TYPE_HASH);                           \
		__uint(map_flags, BPF_F_NO_PREALLOC);                      \
		__uint(max_entries, PROF_DEFAULT_COUNTS);                  \
		__type(key, struct sample_key);                            \
		__type(value, struct sample_value);                        \
	} name SEC(".maps")

STACK_MAP(stacks0);
STACK_MAP(stacks1);
COUNT_MAP(counts0);
COUNT_MAP(counts1);

/* Stores st in stacks; returns its hash, or 0 when it could not be stored
 * (counted as lost). */
static __always_inline __u64 keep_stack(void *stacks, struct stack_trace *st, bool kernel,
					enum prof_counter lost)
{
	__u64 h = prof_stack_key(st->ip, st->nr, kernel);

	/* Most samples repeat a stack already stored this interval: the
	 * lookup of the 8-byte key first is much cheaper than copying 1 KB
	 * to find out. */
	if (!lookup_or_try_init(stacks, &h, st)) {
		count(lost);
		return 0;
	}
	return h;
}

/* Takes the current kernel or user stack into st; false when the sample
 * has none (a kernel thread has no user stack, a sample in user mode no
 * kernel stack). */
static __always_inline bool take_stack(void *ctx, struct stack_trace *st, bool kernel)
{
	long n = bpf_get_stack(ctx, st->ip, sizeof(st->ip), kernel ? 0 : BPF_F_USER_STACK);

	if (n <= 0)
		return false;
	st->nr = n / sizeof(__u64);
	return true;
}

/* Stores the current kernel or user stack; returns its hash, or 0 when the
 * sample has none or it could not be stored (counted as lost). */
static __always_inline __u64 store_stack(void *ctx, void *stacks, bool kernel,
					 enum prof_counter lost, __u32 slot)
{
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &slot);

	if (!st || !take_stack(ctx, st, kernel))
		return 0;
	return keep_stack(stacks, st, kernel, lost);
}

/* The count map being filled this interval (prof-sample drains the other). */
static __always_inline void *active_counts(void)
{
	return active ? (void *)&counts1 : (void *)&counts0;
}

/* Counts one sample (weight 0) or one block of weight nanoseconds. */
static __always_inline int count_key(void *counts, struct sample_key *key, __u64 weight)
{
	static const struct sample_value zero;
	struct sample_value *val = lookup_or_try_init(counts, key, &zero);

	if (!val) {
		count(PROF_LOST_COUNT);
		return 0;
	}
	__sync_fetch_and_add(&val->count, 1);
	__sync_fetch_and_add(&val->weight, weight);
	return 0;
}

/* Counts one sample with the current stacks. */
static __always_inline int record(void *ctx, void *stacks, void *counts, struct sample_key *key)
{
	if (kernel_stacks)
		key->kstack = store_stack(ctx, stacks, true, PROF_LOST_KSTACK, SLOT_NMI);
	if (user_stacks)
		key->ustack = store_stack(ctx, stacks, false, PROF_LOST_USTACK, SLOT_NMI);
	return count_key(counts, key, 0);
}

/* The capture's time resolution, in nanoseconds. */
const volatile __u64 slot_ns = PROF_DEFAULT_SLOT_NS;

/* Dates a sample taken at now, or a block of weight nanoseconds that ended
 * at now. */
static __always_inline void stamp(struct sample_key *key, __u64 now, __u64 weight)
{
	__u64 began = weight < now ? now - weight : 0;

	key->slot = now / slot_ns;
	key->span = (__u32)(key->slot - began / slot_ns);
}

/* A zeroed key from the per-CPU scratch. */
static __always_inline struct sample_key *new_key(__u32 slot)
{
	struct sample_key *key = bpf_map_lookup_elem(&key_scratch, &slot);

	if (key)
		__builtin_memset(key, 0, sizeof(*key));
	return key;
}

#endif
