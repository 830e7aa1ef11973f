// SPDX-License-Identifier: GPL-2.0
/*
 * On-CPU stack sampling: attached to a cpu-clock perf event on each sampled
 * CPU, it counts (thread, name, kernel stack, user stack) tuples in a hash
 * map and stores each distinct stack once, keyed by a 64-bit hash of its
 * frames, for prof-sample to drain.
 *
 * Stacks are kept in a plain hash map rather than a STACK_TRACE map: the
 * latter has one bucket per entry and fails (-EEXIST) when two different
 * stacks hash to the same bucket, which measured here loses about one stack
 * per 200 distinct ones at 99 Hz, and more as the rate grows.  A 64-bit hash
 * key makes such a collision practically impossible, so the only stack loss
 * left is a full map, which is counted.
 *
 * The maps are double-buffered.  prof-sample flips `active` at each drain
 * and then reads and empties the idle set while this program fills the
 * other.  A perf-event program runs to completion with preemption disabled,
 * so once the flip is visible no writer is left on the idle set: the drain
 * loses no count between read and delete, and it can clear the idle stack
 * map every interval.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "profile.h"

#define EFAULT 14
#define EEXIST 17

const volatile bool filter_pids = false;
const volatile bool filter_tids = false;
const volatile bool filter_cgroup = false;
const volatile bool include_idle = false;
const volatile bool kernel_stacks = true;
const volatile bool user_stacks = true;

/* Written by prof-sample (mmaped .bss): which map set is being filled. */
__u32 active = 0;
/* Totals since the start; prof-sample reads deltas. */
__u64 counters[PROF_NR_COUNTERS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroups SEC(".maps");

/* Scratch space for one stack: too big for the 512-byte BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_trace);
} scratch SEC(".maps");

#define STACK_MAP(name)                                                    \
	struct {                                                           \
		__uint(type, BPF_MAP_TYPE_HASH);                           \
		__uint(max_entries, 16384);                                \
		__type(key, __u64);                                        \
		__type(value, struct stack_trace);                         \
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

/* FNV-1a over the frames, then a 64-bit finalizer (from MurmurHash3) so
 * that the low bits, which pick the hash-map bucket, depend on every
 * frame. */
static __always_inline __u64 hash_stack(const struct stack_trace *st)
{
	__u64 h = 0xcbf29ce484222325ull;

	for (int i = 0; i < PROF_MAX_STACK; i++) {
		if (i >= st->nr)
			break;
		h = (h ^ st->ip[i]) * 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* Stores the current kernel or user stack; returns its hash, or 0 when the
 * sample has none (a kernel thread has no user stack, a sample in user mode
 * no kernel stack) or it could not be stored (counted as lost). */
static __always_inline __u64 store_stack(void *ctx, void *stacks, bool kernel)
{
	__u32 zero = 0;
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &zero);
	long n, err;
	__u64 h;

	if (!st)
		return 0;
	n = bpf_get_stack(ctx, st->ip, sizeof(st->ip), kernel ? 0 : BPF_F_USER_STACK);
	if (n <= 0)
		return 0;
	st->nr = n / sizeof(__u64);
	h = hash_stack(st);
	h = kernel ? h | PROF_KERNEL_STACK : h & ~PROF_KERNEL_STACK;
	if (!h)
		h = 1;
	/* Most samples repeat a stack already stored this interval: a lookup
	 * of the 8-byte key is much cheaper than copying 1 KB to find out. */
	if (bpf_map_lookup_elem(stacks, &h))
		return h;
	err = bpf_map_update_elem(stacks, &h, st, BPF_NOEXIST);
	if (err && err != -EEXIST) {
		count(kernel ? PROF_LOST_KSTACK : PROF_LOST_USTACK);
		return 0;
	}
	return h;
}

static __always_inline int record(void *ctx, void *stacks, void *counts, struct sample_key *key)
{
	static const __u64 one = 1;
	__u64 *val;
	long err;

	if (kernel_stacks)
		key->kstack = store_stack(ctx, stacks, true);
	if (user_stacks)
		key->ustack = store_stack(ctx, stacks, false);

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
	if (filter_tids && !bpf_map_lookup_elem(&tids, &key.tid))
		return 0;
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroups, 0) != 1)
		return 0;
	count(PROF_SEEN);
	bpf_get_current_comm(key.comm, sizeof(key.comm));

	if (active)
		return record(ctx, &stacks1, &counts1, &key);
	return record(ctx, &stacks0, &counts0, &key);
}

/* With -- COMMAND, children of sampled processes are sampled too: added to
 * the filter in the fork itself, before the child can run. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (ptgid != ctgid && bpf_map_lookup_elem(&pids, &ptgid))
		bpf_map_update_elem(&pids, &ctgid, &one, BPF_ANY);
	return 0;
}

/* A sampled process that exits leaves the filter, so a new process that
 * reuses its PID is not sampled by mistake. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(forget_exit, struct task_struct *task)
{
	__u32 pid = BPF_CORE_READ(task, pid), tgid = BPF_CORE_READ(task, tgid);

	if (pid == tgid)
		bpf_map_delete_elem(&pids, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
