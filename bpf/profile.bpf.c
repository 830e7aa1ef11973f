// SPDX-License-Identifier: GPL-2.0
/*
 * On-CPU stack sampling, attached to a cpu-clock perf event on each sampled
 * CPU.  One program per sample source (prof-sample/source.h), sharing the
 * target filter; prof-sample loads only the one it uses:
 *
 * - sample_fp (--unwind=fp) counts (thread, name, kernel stack, user stack)
 *   tuples in a hash map and stores each distinct stack once, keyed by a
 *   64-bit hash of its frames, for prof-sample to drain.
 * - sample_dwarf (--unwind=dwarf) sends each sample's kernel stack, user
 *   registers and user stack bytes through a ring buffer, for prof-sample
 *   to unwind.
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
const volatile __u32 stack_copy_size = PROF_DEFAULT_STACK_COPY;

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

/* --unwind=dwarf: samples with their registers and stack bytes; sized by
 * prof-sample. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} raw_samples SEC(".maps");

/* One per CPU, indexed by CPU: a per-CPU array's values are limited to
 * 32 KiB, a sample may need 70.  A perf-event program does not nest on
 * its CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct raw_sample);
} raw_scratch SEC(".maps");

STACK_MAP(stacks0);
STACK_MAP(stacks1);
COUNT_MAP(counts0);
COUNT_MAP(counts1);

static __always_inline void count(enum prof_counter c)
{
	__sync_fetch_and_add(&counters[c], 1);
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
	h = prof_stack_key(st->ip, st->nr, kernel);
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

#define PF_KTHREAD 0x00200000

#if defined(__TARGET_ARCH_x86)
/* x86-64's struct pt_regs is ABI: 21 words, r15 first.  The perf-event
 * context starts with one, and can only be read a word at a time at
 * constant offsets, so both it and the registers saved on kernel entry are
 * read as words. */
struct regs_words {
	__u64 word[21];
};
enum { W_R15, W_R14, W_R13, W_R12, W_BP, W_BX, W_R11, W_R10, W_R9, W_R8, W_AX,
       W_CX, W_DX, W_SI, W_DI, W_ORIG_AX, W_IP, W_CS, W_FLAGS, W_SP, W_SS };

/* pt_regs order to DWARF order. */
static __always_inline void dwarf_order(__u64 *regs, const __u64 *w)
{
	static const __u8 from[PROF_NR_UREGS] = {
		W_AX, W_DX, W_CX, W_BX, W_SI, W_DI, W_BP, W_SP, W_R8,
		W_R9, W_R10, W_R11, W_R12, W_R13, W_R14, W_R15, W_IP,
	};

	for (int i = 0; i < PROF_NR_UREGS; i++)
		regs[i] = w[from[i]];
}

/* The user registers: those interrupted if the sample hit user mode, else
 * those saved on entry to the kernel.  False for kernel threads. */
static __always_inline bool user_regs(struct bpf_perf_event_data *ctx, __u64 *regs)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct regs_words *in = (const struct regs_words *)ctx;
	struct regs_words w;

	if (task->flags & PF_KTHREAD)
		return false;
	if ((in->word[W_CS] & 3) == 3) {
		for (int i = 0; i < 21; i++)
			w.word[i] = in->word[i];
	} else if (bpf_probe_read_kernel(&w, sizeof(w), (void *)bpf_task_pt_regs(task))) {
		return false;
	}
	dwarf_order(regs, w.word);
	return true;
}
#else
/* Other architectures' registers are not laid out for the unwinder yet:
 * prof-sample refuses --unwind=dwarf there, and never loads sample_dwarf. */
static __always_inline bool user_regs(struct bpf_perf_event_data *ctx, __u64 *regs)
{
	return false;
}
#endif

/* Copies user memory from sp up, page by page so that a stack shallower
 * than stack_copy_size is copied up to its top (the next page is not
 * mapped) instead of not at all.  Returns the bytes copied. */
static __always_inline __u32 copy_stack(__u8 *buf, __u64 sp)
{
	__u64 len = 0, limit = stack_copy_size;

	if (limit > PROF_MAX_STACK_COPY)
		limit = PROF_MAX_STACK_COPY;
	for (int i = 0; i <= PROF_MAX_STACK_COPY / PROF_PAGE; i++) {
		__u64 addr = sp + len;
		__u64 chunk = PROF_PAGE - (addr & (PROF_PAGE - 1));

		if (len >= limit)
			break;
		if (chunk > limit - len)
			chunk = limit - len;
		/* Bounds the verifier can follow: [0, page] and below the
		 * maximum, whatever it made of the lines above. */
		chunk &= 2 * PROF_PAGE - 1;
		if (chunk > PROF_PAGE)
			chunk = PROF_PAGE;
		if (bpf_probe_read_user(buf + (len & (PROF_MAX_STACK_COPY - 1)), chunk,
					(void *)addr))
			break;
		len += chunk;
	}
	return len < PROF_MAX_STACK_COPY ? len : PROF_MAX_STACK_COPY;
}

static __always_inline int send_raw(struct bpf_perf_event_data *ctx, struct sample_key *key)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct raw_sample *rs = bpf_map_lookup_elem(&raw_scratch, &cpu);
	__u64 size;
	long n;

	if (!rs)
		return 0;
	rs->pid = key->pid;
	rs->tid = key->tid;
	__builtin_memcpy(rs->comm, key->comm, sizeof(rs->comm));
	rs->flags = 0;
	rs->kstack_nr = 0;
	rs->stack_len = 0;
	if (kernel_stacks) {
		n = bpf_get_stack(ctx, rs->kstack, sizeof(rs->kstack), 0);
		rs->kstack_nr = n > 0 ? n / sizeof(__u64) : 0;
	}
	if (user_stacks && user_regs(ctx, rs->regs)) {
		rs->flags = PROF_RAW_USER;
		rs->stack_len = copy_stack(rs->stack, rs->regs[PROF_UREG_SP]);
	}
	size = PROF_RAW_HEADER + (rs->stack_len & (2 * PROF_MAX_STACK_COPY - 1));
	if (size > sizeof(*rs))
		return 0;
	if (bpf_ringbuf_output(&raw_samples, rs, size, 0))
		count(PROF_LOST_RING);
	return 0;
}

/* Whether the sample is one of the targets'; if so, counts it and fills
 * in key's thread and name. */
static __always_inline bool wanted(struct sample_key *key)
{
	__u64 id = bpf_get_current_pid_tgid();

	key->pid = id >> 32;
	key->tid = (__u32)id;
	if (key->tid == 0 && !include_idle)
		return false;
	if (filter_pids && !bpf_map_lookup_elem(&pids, &key->pid))
		return false;
	if (filter_tids && !bpf_map_lookup_elem(&tids, &key->tid))
		return false;
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroups, 0) != 1)
		return false;
	count(PROF_SEEN);
	bpf_get_current_comm(key->comm, sizeof(key->comm));
	return true;
}

SEC("perf_event")
int sample_fp(struct bpf_perf_event_data *ctx)
{
	struct sample_key key = {};

	if (!wanted(&key))
		return 0;
	if (active)
		return record(ctx, &stacks1, &counts1, &key);
	return record(ctx, &stacks0, &counts0, &key);
}

SEC("perf_event")
int sample_dwarf(struct bpf_perf_event_data *ctx)
{
	struct sample_key key = {};

	if (!wanted(&key))
		return 0;
	return send_raw(ctx, &key);
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
