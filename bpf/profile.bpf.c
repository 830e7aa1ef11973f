// SPDX-License-Identifier: GPL-2.0
/*
 * On-CPU stack sampling, attached to a cpu-clock perf event on each sampled
 * CPU, and off-CPU time, timed at the scheduler's switches.  One program
 * per sample source (prof-sample/source.h), sharing the target filter;
 * prof-sample loads only the ones it uses:
 *
 * - sample_fp (--unwind=fp) counts (thread, name, kernel stack, user stack)
 *   tuples in a hash map and stores each distinct stack once, keyed by a
 *   64-bit hash of its frames, for prof-sample to drain.
 * - sample_dwarf (--unwind=dwarf) sends each sample's kernel stack, user
 *   registers and user stack bytes through a ring buffer, for prof-sample
 *   to unwind.
 *
 * - offcpu_switch, offcpu_syscall_exit and offcpu_waking (--off-cpu,
 *   --wall) time the blocks of the targets' threads and hand each one over
 *   as sample_fp or sample_dwarf would a sample, weighted by its duration.
 *   They need tracepoints with BTF (tp_btf) only: no tracefs, no kprobes,
 *   no fentry (all three missing on some hosts and in many containers).
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
#include "python.bpf.h"

/* libbpf 1.2's, for Debian 12's 1.1. */
#ifndef bpf_ksym_exists
#define bpf_ksym_exists(sym) (!!&(sym))
#endif

#define EFAULT 14
#define EEXIST 17

const volatile bool filter_pids = false;
const volatile bool filter_tids = false;
const volatile bool filter_cgroup = false;
const volatile bool include_idle = false;
const volatile bool kernel_stacks = true;
const volatile bool user_stacks = true;
const volatile __u32 stack_copy_size = PROF_DEFAULT_STACK_COPY;
/* --unwind=dwarf: samples go to prof-sample raw, stack bytes and all. */
const volatile bool unwind_dwarf = false;
/* Off-CPU: which blocks count, and how many wakers to name. */
const volatile __u64 min_block_ns = 1000;
const volatile __u64 max_block_ns = 0;
const volatile __u32 block_states = 3; /* bit 0 S, bit 1 D */
const volatile __u32 wakeup_depth = 0;
const volatile __u32 nr_cpus = 1;
/* Targeted on-CPU captures: each tick charged to the task that ran when
 * it fell due, not to the one it was delivered in. */
const volatile bool ticks_when_due = false;

/* Scratch slots: a perf-event program runs in NMI and may interrupt a
 * tracepoint program on its CPU, so each has its own. */
#define SLOT_NMI 0
#define SLOT_TP 1
/* The task iterator sleeps (faulting user pages in), and the scheduler's
 * programs run on its CPU meanwhile. */
#define SLOT_ITER 2

/* Written by prof-sample (mmaped .bss): which map set is being filled. */
__u32 active = 0;
/* Written by prof-sample: cleared before the clock's events are closed,
 * after which clock_event's pointers are not to be followed. */
__u32 clock_running = 0;
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

/* When each CPU's current task was switched in (CLOCK_MONOTONIC ns). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} switched_at SEC(".maps");

/* Each CPU's clock: its struct perf_event, noted by the clock's program
 * for the scheduler's, which has no other way to it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} clock_event SEC(".maps");

/* Scratch space for one stack: too big for the 512-byte BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, struct stack_trace);
} scratch SEC(".maps");

/* A thread's block: started when it is switched out in one of
 * block_states, with the stacks it blocks in (taken then, in its own
 * context: nothing else can read them), and ended when it is switched back
 * in.  With --unwind=dwarf the user stack bytes are copied later, in the
 * thread's context again, and only for blocks that count: a copy costs
 * microseconds, and most blocks are shorter than --min-block.  Until then
 * the block is pending.  Task storage follows the thread: nothing to clean
 * up when it exits, no capacity to run out of. */
struct block {
	__u64 start; /* of the time not yet counted, 0 if not blocked */
	__u64 began; /* the switch-out, or when the capture found it blocked */
	__u64 kstack, ustack; /* in held_stacks */
	__u64 ip, sp;	      /* user registers at the switch-out (dwarf) */
	__u64 weight;	      /* of the pending block */
	__u32 pending;
	__u32 adopted; /* blocked before the capture: its length is unknown */
	struct sample_key key; /* of the pending block */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct block);
} blocks SEC(".maps");

/* Who last woke a thread, and who had woken that one, and so on. */
struct wake_chain {
	__u64 time; /* of the wakeup */
	__u32 n;
	__u32 cut; /* the chain went on beyond wakeup_depth */
	struct waker wakers[PROF_MAX_WAKERS];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct wake_chain);
} wake_chains SEC(".maps");

/* Scratch for a chain being built: too big for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wake_chain);
} chain_scratch SEC(".maps");

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

#define COUNT_MAP(name)                                                    \
	struct {                                                           \
		__uint(type, BPF_MAP_TYPE_HASH);                           \
		__uint(max_entries, 16384);                                \
		__type(key, struct sample_key);                            \
		__type(value, struct sample_value);                        \
	} name SEC(".maps")

/* --unwind=dwarf: samples with their registers and stack bytes; sized by
 * prof-sample. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} raw_samples SEC(".maps");

STACK_MAP(stacks0);
STACK_MAP(stacks1);
COUNT_MAP(counts0);
COUNT_MAP(counts1);

static __always_inline void count(enum prof_counter c)
{
	__sync_fetch_and_add(&counters[c], 1);
}

/* Stores st in stacks; returns its hash, or 0 when it could not be stored
 * (counted as lost). */
static __always_inline __u64 keep_stack(void *stacks, struct stack_trace *st, bool kernel,
					enum prof_counter lost)
{
	__u64 h = prof_stack_key(st->ip, st->nr, kernel);
	long err;

	/* Most samples repeat a stack already stored this interval: a lookup
	 * of the 8-byte key is much cheaper than copying 1 KB to find out. */
	if (bpf_map_lookup_elem(stacks, &h))
		return h;
	err = bpf_map_update_elem(stacks, &h, st, BPF_NOEXIST);
	if (err && err != -EEXIST) {
		count(lost);
		return 0;
	}
	return h;
}

/* Stores the current kernel or user stack; returns its hash, or 0 when the
 * sample has none (a kernel thread has no user stack, a sample in user mode
 * no kernel stack) or it could not be stored (counted as lost). */
static __always_inline __u64 store_stack(void *ctx, void *stacks, bool kernel,
					 enum prof_counter lost, __u32 slot)
{
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &slot);
	long n;

	if (!st)
		return 0;
	n = bpf_get_stack(ctx, st->ip, sizeof(st->ip), kernel ? 0 : BPF_F_USER_STACK);
	if (n <= 0)
		return 0;
	st->nr = n / sizeof(__u64);
	return keep_stack(stacks, st, kernel, lost);
}

/* Counts one sample (weight 0) or one block of weight nanoseconds. */
static __always_inline int count_key(void *counts, struct sample_key *key, __u64 weight)
{
	struct sample_value one = { 1, weight }, *val;
	long err;

	val = bpf_map_lookup_elem(counts, key);
	if (val) {
		__sync_fetch_and_add(&val->count, 1);
		__sync_fetch_and_add(&val->weight, weight);
		return 0;
	}
	err = bpf_map_update_elem(counts, key, &one, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* Another CPU inserted the same key first. */
		val = bpf_map_lookup_elem(counts, key);
		if (val) {
			__sync_fetch_and_add(&val->count, 1);
			__sync_fetch_and_add(&val->weight, weight);
			return 0;
		}
	}
	if (err)
		count(PROF_LOST_COUNT);
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

/* The user registers: those interrupted if the sample hit user mode (ctx,
 * NULL when the thread is known to be in the kernel), else those saved on
 * entry to the kernel.  False for kernel threads. */
/* The user registers task saved on entry to the kernel; false for kernel
 * threads. */
static __always_inline bool task_user_regs(struct task_struct *task, __u64 *regs)
{
	struct regs_words w;

	if (BPF_CORE_READ(task, flags) & PF_KTHREAD)
		return false;
	if (bpf_probe_read_kernel(&w, sizeof(w), (void *)bpf_task_pt_regs(task)))
		return false;
	dwarf_order(regs, w.word);
	return true;
}

static __always_inline bool user_regs(struct bpf_perf_event_data *ctx, __u64 *regs)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct regs_words *in = (const struct regs_words *)ctx;
	struct regs_words w;

	if (task->flags & PF_KTHREAD)
		return false;
	if (!in || (in->word[W_CS] & 3) != 3)
		return task_user_regs(task, regs);
	for (int i = 0; i < 21; i++)
		w.word[i] = in->word[i];
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

static __always_inline bool task_user_regs(struct task_struct *task, __u64 *regs)
{
	return false;
}
#endif

/* The bytes of user stack a raw sample has room for: --stack-size, which
 * the verifier sees as a constant (read-only data), so that the ring
 * reservation's size is one. */
static __always_inline __u32 stack_room(void)
{
	return stack_copy_size < PROF_MAX_STACK_COPY ? stack_copy_size : PROF_MAX_STACK_COPY;
}

/* Copies user memory from sp up into buf, which has stack_room() bytes and
 * a page of slack, page by page so that a stack shallower than the room is
 * copied up to its top (the next page is not mapped) instead of not at
 * all.  The memory is the current thread's, or task's (sleepable programs
 * only).  Returns the bytes copied. */
static __always_inline __u32 copy_stack(__u8 *buf, __u64 sp, struct task_struct *task)
{
	__u32 limit = stack_room();
	__u64 len = 0;

	for (int i = 0; i <= PROF_MAX_STACK_COPY / PROF_PAGE; i++) {
		__u64 addr = sp + len;
		__u64 chunk = PROF_PAGE - (addr & (PROF_PAGE - 1));

		/* Also what tells the verifier that len is below the room. */
		if (len >= limit)
			break;
		if (chunk > limit - len)
			chunk = limit - len;
		/* A bound the verifier can follow: [0, page]. */
		chunk &= 2 * PROF_PAGE - 1;
		if (chunk > PROF_PAGE)
			chunk = PROF_PAGE;
		if (task ? bpf_copy_from_user_task(buf + len, chunk, (void *)addr, task, 0)
			 : bpf_probe_read_user(buf + len, chunk, (void *)addr))
			break;
		len += chunk;
	}
	return len < limit ? len : limit;
}

/* ctx is the program's own, for the kernel stack; regs_ctx the perf
 * event's, or NULL where the thread is in the kernel (off-CPU).  The
 * sample is built in its ring reservation: the stack bytes, the bulk of
 * it, are copied once, from the thread's stack to where prof-sample reads
 * them. */
static __always_inline struct raw_sample *new_raw(struct sample_key *key, __u64 weight)
{
	struct raw_sample *rs;

	rs = bpf_ringbuf_reserve(&raw_samples, PROF_RAW_HEADER + stack_room() + PROF_PAGE, 0);
	if (!rs) {
		count(PROF_LOST_RING);
		return NULL;
	}
	rs->pid = key->pid;
	rs->tid = key->tid;
	__builtin_memcpy(rs->comm, key->comm, sizeof(rs->comm));
	rs->flags = 0;
	rs->kstack_nr = 0;
	rs->stack_len = 0;
	rs->kind = key->kind;
	rs->weight = weight;
	rs->nwakers = key->nwakers;
	rs->reserved = 0;
	__builtin_memcpy(rs->wakers, key->wakers, sizeof(rs->wakers));
	rs->py.status = PY_NOT_PYTHON;
	rs->py.nframes = rs->py.nanchors = rs->py.nnew = 0;
	if (key->kstack) {
		/* Taken earlier, and held: its key goes in its place. */
		rs->flags = PROF_RAW_KSTACK_HELD;
		rs->kstack[0] = key->kstack;
	}
	return rs;
}

static __always_inline int send_raw(void *ctx, struct bpf_perf_event_data *regs_ctx,
				    struct sample_key *key, __u64 weight, bool user)
{
	struct raw_sample *rs = new_raw(key, weight);
	long n;

	if (!rs)
		return 0;
	if (!key->kstack && kernel_stacks) {
		n = bpf_get_stack(ctx, rs->kstack, sizeof(rs->kstack), 0);
		rs->kstack_nr = n > 0 ? n / sizeof(__u64) : 0;
	}
	if (user && user_stacks && user_regs(regs_ctx, rs->regs)) {
		rs->flags |= PROF_RAW_USER;
		rs->stack_len = copy_stack(rs->stack, rs->regs[PROF_UREG_SP], NULL);
		py_walk(&rs->py, rs->pid);
	}
	bpf_ringbuf_submit(rs, 0);
	return 0;
}

/* Whether the current thread is one of the targets'. */
static __always_inline bool is_target(__u32 pid, __u32 tid)
{
	if (tid == 0 && !include_idle)
		return false;
	if (filter_pids) {
		__u8 *v = bpf_map_lookup_elem(&pids, &pid);

		if (!v || *v != PROF_PID_TARGET)
			return false;
	}
	if (filter_tids && !bpf_map_lookup_elem(&tids, &tid))
		return false;
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroups, 0) != 1)
		return false;
	return true;
}

static __always_inline void note_switch(__u64 now)
{
	__u32 zero = 0;
	__u64 *at = bpf_map_lookup_elem(&switched_at, &zero);

	if (at)
		*at = now;
}

/* A zeroed key from the per-CPU scratch. */
static __always_inline struct sample_key *new_key(__u32 slot)
{
	struct sample_key *key = bpf_map_lookup_elem(&key_scratch, &slot);

	if (key)
		__builtin_memset(key, 0, sizeof(*key));
	return key;
}

/* 6.2's; absent before, and then ticks go to whoever they land in. */
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym __weak;

/*
 * Targeted captures sample with a clock per CPU, and a tick is delivered
 * some time after it falls due (32 to 65 us on a PVM guest, measured): a
 * tick due in a task's last moments before a switch lands in the next
 * task, in finish_task_switch, where interrupts come back on.  Charged
 * there, the target would be billed for another task's time at a place
 * it never was, and its own last moments would go to the other task.  So
 * the scheduler's program charges a tick that fell due during the
 * outgoing task's run to it, with its stacks at the switch
 * (charge_pending_tick), and the clock's program leaves out a tick due
 * before the current task came in (tick_due_before_switch).
 */
static __always_inline bool tick_due_before_switch(struct bpf_perf_event_data *ctx)
{
	struct bpf_perf_event_data_kern *kctx;
	struct perf_event *event;
	__u32 zero = 0;
	__u64 *at, *ev, due;

	if (!ticks_when_due || !bpf_ksym_exists(bpf_cast_to_kern_ctx))
		return false;
	kctx = bpf_cast_to_kern_ctx(ctx);
	event = BPF_CORE_READ(kctx, event);
	ev = bpf_map_lookup_elem(&clock_event, &zero);
	if (ev)
		*ev = (__u64)event;
	at = bpf_map_lookup_elem(&switched_at, &zero);
	if (!at || !*at)
		return false;
	/* Forwarded only after the program returns: still the due time. */
	due = BPF_CORE_READ(event, hw.hrtimer.node.expires);
	return due && due < *at;
}

#define HRTIMER_STATE_ENQUEUED 0x01

/* In the outgoing task's context, interrupts off, before now becomes the
 * switch time: the CPU's tick that fell due since that task came in and is
 * still to be delivered is the task's, taken here. */
static __always_inline void charge_pending_tick(void *ctx, __u64 now)
{
	struct perf_event *event;
	struct sample_key *key;
	__u64 *at, *ev, id, due;
	__u32 zero = 0;

	if (!ticks_when_due || !*(volatile __u32 *)&clock_running)
		return;
	ev = bpf_map_lookup_elem(&clock_event, &zero);
	at = bpf_map_lookup_elem(&switched_at, &zero);
	if (!ev || !*ev || !at)
		return;
	event = (struct perf_event *)*ev;
	/* Not enqueued: the clock is throttled or stopped, nothing pending. */
	if (!(BPF_CORE_READ(event, hw.hrtimer.state) & HRTIMER_STATE_ENQUEUED))
		return;
	due = BPF_CORE_READ(event, hw.hrtimer.node.expires);
	if (!due || due > now || due < *at)
		return;
	id = bpf_get_current_pid_tgid();
	if (!is_target(id >> 32, (__u32)id))
		return;
	key = new_key(SLOT_TP);
	if (!key)
		return;
	key->pid = id >> 32;
	key->tid = (__u32)id;
	bpf_get_current_comm(key->comm, sizeof(key->comm));
	count(PROF_SEEN);
	count(PROF_LATE_TICKS);
	/* Held, as the stacks of blocks taken here are: prof-sample leaves out
	 * the tracepoint's dispatch to this program at their top. */
	if (kernel_stacks)
		key->kstack = store_stack(ctx, &held_stacks, true, PROF_LOST_KSTACK, SLOT_TP);
	/* In the kernel, switching: the user registers are those saved on
	 * entry. */
	if (unwind_dwarf) {
		send_raw(ctx, NULL, key, 0, true);
		return;
	}
	if (user_stacks)
		key->ustack = store_stack(ctx, active ? (void *)&stacks1 : (void *)&stacks0, false,
					  PROF_LOST_USTACK, SLOT_TP);
	count_key(active ? (void *)&counts1 : (void *)&counts0, key, 0);
}

/* Whether the sample is one of the targets' and their own time; if so,
 * counts it and fills in key's thread and name. */
static __always_inline bool wanted(struct bpf_perf_event_data *ctx, struct sample_key *key)
{
	__u64 id = bpf_get_current_pid_tgid();

	key->pid = id >> 32;
	key->tid = (__u32)id;
	if (!is_target(key->pid, key->tid))
		return false;
	if (tick_due_before_switch(ctx)) {
		count(PROF_EARLY_TICKS);
		return false;
	}
	count(PROF_SEEN);
	bpf_get_current_comm(key->comm, sizeof(key->comm));
	return true;
}

SEC("perf_event")
int sample_fp(struct bpf_perf_event_data *ctx)
{
	struct sample_key *key = new_key(SLOT_NMI);

	if (!key || !wanted(ctx, key))
		return 0;
	if (active)
		return record(ctx, &stacks1, &counts1, key);
	return record(ctx, &stacks0, &counts0, key);
}

SEC("perf_event")
int sample_dwarf(struct bpf_perf_event_data *ctx)
{
	struct sample_key *key = new_key(SLOT_NMI);

	if (!key || !wanted(ctx, key))
		return 0;
	return send_raw(ctx, ctx, key, 0, true);
}

/* --- off-CPU ----------------------------------------------------------- */

#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2

/* Kernels before 5.14 name the field state. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/* The bits of block_states a switched-out thread's state is in: a thread
 * switched out while runnable (preempted) is in none. */
static __always_inline __u32 blocked_in(unsigned int state)
{
	return (state & TASK_INTERRUPTIBLE ? 1 : 0) | (state & TASK_UNINTERRUPTIBLE ? 2 : 0);
}

/* The wakers of a block that ended, from the thread's chain if it was
 * woken during the block. */
static __always_inline void add_wakers(struct task_struct *task, struct sample_key *key,
				       __u64 start)
{
	struct wake_chain *c = bpf_task_storage_get(&wake_chains, task, 0, 0);
	__u32 n;

	if (!c || c->time < start)
		return;
	n = c->n < wakeup_depth ? c->n : wakeup_depth;
	if (n > PROF_MAX_WAKERS)
		n = PROF_MAX_WAKERS;
	for (__u32 i = 0; i < PROF_MAX_WAKERS; i++)
		if (i < n)
			key->wakers[i] = c->wakers[i];
	key->nwakers = n;
	if (c->cut || c->n > n)
		count(PROF_WAKE_CUT);
}

/* Sends a pending block (dwarf) from its thread's context, with the user
 * stack bytes if the thread is still where it blocked (same user stack
 * pointer and instruction: the same system call), else without them. */
static __always_inline void send_pending(void *ctx, struct block *b)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	bool same = BPF_CORE_READ(regs, sp) == b->sp && BPF_CORE_READ(regs, ip) == b->ip;

	b->pending = 0;
	if (!same)
		count(PROF_LOST_BLOCK_USTACK);
	send_raw(ctx, NULL, &b->key, b->weight, same);
}

/* Ends next's block: counted if it lasted as long as asked. */
static __always_inline void end_block(struct task_struct *next, __u64 now)
{
	struct block *b = bpf_task_storage_get(&blocks, next, 0, 0);
	struct sample_key *key;
	__u64 weight;

	if (!b || !b->start)
		return;
	weight = now - b->start;
	/* A block longer than the capture's files is counted in pieces, one
	 * per file (PROF_WAITS_CUT): the bounds are the whole block's. */
	if (!b->adopted && now - b->began < min_block_ns) {
		b->start = 0;
		count(PROF_SHORT_BLOCKS);
		return;
	}
	if (max_block_ns && now - b->began > max_block_ns) {
		b->start = 0;
		count(PROF_LONG_BLOCKS);
		return;
	}
	key = unwind_dwarf ? &b->key : new_key(SLOT_TP);
	if (!key)
		return;
	__builtin_memset(key, 0, sizeof(*key));
	key->pid = BPF_CORE_READ(next, tgid);
	key->tid = BPF_CORE_READ(next, pid);
	BPF_CORE_READ_STR_INTO(&key->comm, next, comm);
	key->kind = PROF_OFF_CPU;
	key->kstack = b->kstack;
	key->ustack = b->ustack;
	if (wakeup_depth)
		add_wakers(next, key, b->start);
	b->start = 0;
	count(PROF_SEEN);
	if (unwind_dwarf) {
		b->weight = weight;
		b->pending = 1;
		return;
	}
	count_key(active ? (void *)&counts1 : (void *)&counts0, key, weight);
}

/* Starts prev's block, in prev's context. */
static __always_inline void start_block(void *ctx, struct task_struct *prev, __u64 now)
{
	struct block *b = bpf_task_storage_get(&blocks, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!b) {
		count(PROF_LOST_SWITCH);
		return;
	}
	if (b->pending)
		send_pending(ctx, b);
	b->kstack = kernel_stacks ? store_stack(ctx, &held_stacks, true, PROF_LOST_KSTACK, SLOT_TP)
				  : 0;
	b->ustack = 0;
	if (user_stacks && !unwind_dwarf) {
		b->ustack = store_stack(ctx, &held_stacks, false, PROF_LOST_USTACK, SLOT_TP);
	} else if (user_stacks) {
		struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(prev);
		b->sp = BPF_CORE_READ(regs, sp);
		b->ip = BPF_CORE_READ(regs, ip);
	}
	b->start = b->began = now;
	b->adopted = 0;
}

/* Targeted on-CPU captures (ticks_when_due): the tick due before the
 * switch to its task, and when the next task came in.  A program of its
 * own, beside offcpu_switch in --wall: together they were too large for
 * the verifier. */
SEC("tp_btf/sched_switch")
int BPF_PROG(oncpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();

	charge_pending_tick(ctx, now);
	note_switch(now);
	return 0;
}

/* Runs in prev's context, before the switch.  A thread switched out while
 * runnable (preempted, yielding) is not blocked. */
SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	struct block *b;

	end_block(next, now);
	if (!preempt && (blocked_in(task_state(prev)) & block_states) &&
	    is_target(id >> 32, (__u32)id)) {
		start_block(ctx, prev, now);
		return 0;
	}
	b = bpf_task_storage_get(&blocks, prev, 0, 0);
	if (b && b->pending)
		send_pending(ctx, b);
	return 0;
}

/* --unwind=dwarf: the system call a thread blocked in returns; its user
 * stack is still the one it blocked with. */
SEC("tp_btf/sys_exit")
int BPF_PROG(offcpu_syscall_exit, struct pt_regs *regs, long ret)
{
	struct block *b = bpf_task_storage_get(&blocks, bpf_get_current_task_btf(), 0, 0);

	if (b && b->pending)
		send_pending(ctx, b);
	return 0;
}

extern bool CONFIG_KASAN __kconfig __weak;

/* Where the stack address below is made a number: a pointer stored in a
 * map and read back is one. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} stack_probe SEC(".maps");

/* Whether the program runs in an interrupt.  x86-64 runs one on the CPU's
 * interrupt stack, not the thread's (THREAD_SIZE: 16 KiB, 32 with KASAN),
 * unless it interrupted user code: then on the thread's, whose entry frame
 * is the interrupt's, with no system call number (orig_ax -1: the timer's
 * and other system vectors'; a device's keeps its vector there, and is
 * not told from a system call).  Where the kernel stack is, ctx tells: a
 * tp_btf program's arguments are in its trampoline's frame (the program's
 * own stack may be a private one, Linux 6.13 on).  The per-CPU preempt
 * count would say it all, but without CONFIG_KALLSYMS_ALL a program
 * cannot find it.  A wakeup from an interrupt (a timer's, a device's, an
 * RCU callback's run as the interrupt ends) is not the work of the thread
 * it happened to interrupt. */
static __always_inline bool in_interrupt(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
	__u64 size = CONFIG_KASAN ? 32768 : 16384, here, base;
	__u32 zero = 0;
	__u64 *slot = bpf_map_lookup_elem(&stack_probe, &zero);

	if (!slot)
		return false;
	*(volatile __u64 *)slot = (__u64)ctx;
	here = *(volatile __u64 *)slot;
	base = (__u64)BPF_CORE_READ(t, stack);
	if (here - base >= size)
		return true;
	return !(t->flags & PF_KTHREAD) && (BPF_CORE_READ(regs, cs) & 3) == 3 &&
	       (long)BPF_CORE_READ(regs, orig_ax) == -1;
}

/* Runs in the waker's context.  The chain it leaves on the wakee: the
 * waker with its stacks now, then the waker's own chain, shifted by one.
 * In an interrupt, the waker is the interrupt: named so, as the idle task
 * (0/0), with its kernel stack and no chain. */
SEC("tp_btf/sched_waking")
int BPF_PROG(offcpu_waking, struct task_struct *p)
{
	struct task_struct *me = bpf_get_current_task_btf();
	struct wake_chain *c, *mine;
	struct block *b;
	__u64 id = bpf_get_current_pid_tgid();
	const char *irq;
	__u32 zero = 0;

	/* A chain deeper than one names the wakers of wakers, which need
	 * not be targets: every wakee's chain is kept then. */
	if (wakeup_depth <= 1) {
		b = bpf_task_storage_get(&blocks, p, 0, 0);
		if (!b || !b->start)
			return 0;
	}
	c = bpf_map_lookup_elem(&chain_scratch, &zero);
	if (!c)
		return 0;
	irq = in_interrupt(ctx) ? "[interrupt]" : NULL;
	c->time = bpf_ktime_get_ns();
	c->cut = 0;
	c->wakers[0].pid = irq ? 0 : id >> 32;
	c->wakers[0].tid = irq ? 0 : (__u32)id;
	if (irq)
		bpf_probe_read_kernel_str(c->wakers[0].comm, sizeof(c->wakers[0].comm), irq);
	else
		bpf_get_current_comm(c->wakers[0].comm, sizeof(c->wakers[0].comm));
	c->wakers[0].kstack = kernel_stacks ? store_stack(ctx, &held_stacks, true, PROF_LOST_WSTACK, SLOT_TP) : 0;
	c->wakers[0].ustack = user_stacks && !irq ? store_stack(ctx, &held_stacks, false, PROF_LOST_WSTACK, SLOT_TP) : 0;
	c->n = 1;
	/* The waker's own chain: followed up to the depth, and counted as
	 * cut beyond it (at depth 1, only a target waker has one). */
	mine = irq ? NULL : bpf_task_storage_get(&wake_chains, me, 0, 0);
	if (mine) {
		for (__u32 i = 0; i + 1 < PROF_MAX_WAKERS; i++) {
			if (i >= mine->n || i + 1 >= wakeup_depth)
				break;
			c->wakers[i + 1] = mine->wakers[i];
			c->n = i + 2;
		}
		c->cut = mine->cut || mine->n + 1 > c->n;
	}
	mine = bpf_task_storage_get(&wake_chains, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (mine)
		__builtin_memcpy(mine, c, sizeof(*c));
	return 0;
}

/* --- waits in progress ------------------------------------------------ */

/* A block is seen by the programs above only from its switch-out to its
 * switch-in; a thread already blocked when the capture starts, or still
 * blocked when a file ends, would be missed or put off.  prof-sample reads
 * this task iterator at the start (waits_mode PROF_WAITS_ADOPT) and at the
 * end of each file (PROF_WAITS_CUT).  It sleeps: it reads other threads'
 * user memory (bpf_copy_from_user_task). */
__u32 waits_mode = 0;
/* -G's cgroup, for threads other than the current one. */
const volatile __u64 target_cgroup_id = 0;

extern struct cgroup *bpf_cgroup_from_id(u64 cgid) __ksym __weak;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym __weak;
extern long bpf_task_under_cgroup(struct task_struct *task, struct cgroup *ancestor) __ksym __weak;

/* is_target, of any thread. */
static __always_inline bool task_is_target(struct task_struct *t)
{
	__u32 pid = BPF_CORE_READ(t, tgid), tid = BPF_CORE_READ(t, pid);
	struct cgroup *cg;
	bool in;

	if (tid == 0)
		return false;
	if (filter_pids) {
		__u8 *v = bpf_map_lookup_elem(&pids, &pid);

		if (!v || *v != PROF_PID_TARGET)
			return false;
	}
	if (filter_tids && !bpf_map_lookup_elem(&tids, &tid))
		return false;
	if (filter_cgroup) {
		/* Linux 6.5: before, no wait in progress is taken on. */
		if (!bpf_ksym_exists(bpf_cgroup_from_id) || !bpf_ksym_exists(bpf_task_under_cgroup))
			return false;
		cg = bpf_cgroup_from_id(target_cgroup_id);
		if (!cg)
			return false;
		in = bpf_task_under_cgroup(t, cg);
		bpf_cgroup_release(cg);
		if (!in)
			return false;
	}
	return true;
}

/* t's kernel stack, held. */
static __always_inline __u64 hold_task_kstack(struct task_struct *t)
{
	__u32 slot = SLOT_ITER;
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &slot);
	long n;

	if (!st)
		return 0;
	n = bpf_get_task_stack(t, st->ip, sizeof(st->ip), 0);
	if (n <= 0)
		return 0;
	st->nr = n / sizeof(__u64);
	return keep_stack(&held_stacks, st, true, PROF_LOST_KSTACK);
}

/* t's user stack by frame pointer, held: bpf_get_stack walks only the
 * current thread's.  The same walk as the kernel's for the current one
 * (perf_callchain_user): the interrupted address, then each frame's
 * return address, while frames go up the stack. */
static __always_inline __u64 hold_task_ustack(struct task_struct *t, const __u64 *regs)
{
	__u32 slot = SLOT_ITER;
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &slot);
	__u64 fp = regs[PROF_UREG_FP], frame[2];
	__u32 n = 1;

	if (!st)
		return 0;
	st->ip[0] = regs[PROF_UREG_IP];
	for (int i = 1; i < PROF_MAX_STACK; i++) {
		if (!fp || bpf_copy_from_user_task(frame, sizeof(frame), (void *)fp, t, 0) ||
		    !frame[1])
			break;
		st->ip[i] = frame[1];
		n = i + 1;
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	st->nr = n;
	return keep_stack(&held_stacks, st, false, PROF_LOST_USTACK);
}

/* Whether t is switched out in one of block_states. */
static __always_inline bool asleep(struct task_struct *t)
{
	return !BPF_CORE_READ(t, on_cpu) && (blocked_in(task_state(t)) & block_states);
}

/* A target thread blocked when the capture starts: its block starts now,
 * with the stacks it is blocked in.  Its length before is unknown, so
 * --min-block does not apply to it. */
static __always_inline void adopt(struct task_struct *t, __u64 now)
{
	__u64 regs[PROF_NR_UREGS];
	struct block *b;

	/* Not on_rq: since Linux 6.12 a thread may sleep still queued (EEVDF's
	 * delayed dequeue). */
	if (!asleep(t) || !task_is_target(t))
		return;
	b = bpf_task_storage_get(&blocks, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!b) {
		count(PROF_LOST_SWITCH);
		return;
	}
	/* Switched out since the programs were attached: theirs. */
	if (b->start || b->pending)
		return;
	b->kstack = kernel_stacks ? hold_task_kstack(t) : 0;
	b->ustack = 0;
	if (user_stacks && task_user_regs(t, regs)) {
		/* With dwarf, the bytes are copied as for any block: from
		 * the thread, once it is back from its system call. */
		if (unwind_dwarf) {
			b->sp = regs[PROF_UREG_SP];
			b->ip = regs[PROF_UREG_IP];
		} else {
			b->ustack = hold_task_ustack(t, regs);
		}
	}
	b->adopted = 1;
	b->start = b->began = now;
	/* Woken meanwhile: its switch-in came before the start was set. */
	if (!asleep(t)) {
		b->start = 0;
		return;
	}
	count(PROF_ADOPTED_WAITS);
}

/* A block in progress at the end of a file: the time since its start (or
 * since the last file's end) is counted now, in this file; the rest is the
 * next file's.  One shorter than --min-block so far is left to its end,
 * and one already longer than --max-block is left to be dropped then. */
static __always_inline void cut(struct task_struct *t, __u64 now)
{
	struct block *b = bpf_task_storage_get(&blocks, t, 0, 0);
	struct raw_sample *rs;
	struct sample_key *key;
	__u64 weight;

	if (!b || !b->start || (!b->adopted && now - b->began < min_block_ns) ||
	    (max_block_ns && now - b->began > max_block_ns))
		return;
	key = new_key(SLOT_ITER);
	if (!key)
		return;
	weight = now - b->start;
	b->start = now;
	key->pid = BPF_CORE_READ(t, tgid);
	key->tid = BPF_CORE_READ(t, pid);
	BPF_CORE_READ_STR_INTO(&key->comm, t, comm);
	key->kind = PROF_OFF_CPU;
	key->kstack = b->kstack;
	key->ustack = b->ustack;
	count(PROF_SEEN);
	count(PROF_CUT_WAITS);
	if (!unwind_dwarf) {
		count_key(active ? (void *)&counts1 : (void *)&counts0, key, weight);
		return;
	}
	rs = new_raw(key, weight);
	if (!rs)
		return;
	if (user_stacks && task_user_regs(t, rs->regs)) {
		rs->flags |= PROF_RAW_USER;
		rs->stack_len = copy_stack(rs->stack, rs->regs[PROF_UREG_SP], t);
	}
	bpf_ringbuf_submit(rs, 0);
}

SEC("iter.s/task")
int waits_in_progress(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	__u64 now = bpf_ktime_get_ns();

	if (!t)
		return 0;
	if (waits_mode == PROF_WAITS_ADOPT)
		adopt(t, now);
	else if (waits_mode == PROF_WAITS_CUT)
		cut(t, now);
	return 0;
}

/* With -- COMMAND, children of sampled processes are sampled too: added to
 * the filter in the fork itself, before the child can run. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 target = PROF_PID_TARGET;

	if (ptgid != ctgid && bpf_map_lookup_elem(&pids, &ptgid))
		bpf_map_update_elem(&pids, &ctgid, &target, BPF_ANY);
	return 0;
}

/* The command becomes a target in its exec, once it runs its own code
 * under its own name. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(command_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	__u8 *v = bpf_map_lookup_elem(&pids, &tgid);

	if (v && *v == PROF_PID_AT_EXEC)
		*v = PROF_PID_TARGET;
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
