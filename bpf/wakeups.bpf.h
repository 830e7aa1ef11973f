/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --wakeups: the chain of wakers each thread was last woken by, left on
 * it by the waker, and added to its block when the block ends.
 */
#ifndef PROF_BPF_WAKEUPS_BPF_H
#define PROF_BPF_WAKEUPS_BPF_H

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

/* The user stack of an exiting thread, walked as its exit begins:
 * exit_mm() takes its memory before the wakeups its exit makes (its
 * parent's, in wait(); the readers of the pipes it closes), whose walks
 * then find no stack to read.  Since Linux 6.16 the tracepoint comes
 * before exit_mm(), for programs such as this one; before, it came after,
 * and the wakers' walks go as far as they can. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64); /* in held_stacks */
} exit_ustacks SEC(".maps");

SEC("tp_btf/sched_process_exit")
int BPF_PROG(offcpu_exit, struct task_struct *p)
{
	struct task_struct *me = bpf_get_current_task_btf();
	__u64 *u;

	if (!user_stacks || (me->flags & PF_KTHREAD) || !me->mm)
		return 0;
	u = bpf_task_storage_get(&exit_ustacks, me, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (u)
		*u = store_user_stack(ctx, &held_stacks, PROF_LOST_WSTACK, SLOT_TP);
	return 0;
}

/* The waker's user stack: walked now, unless its exit has taken it (then
 * the walk goes no further than the system call). */
static __always_inline __u64 waker_ustack(void *ctx, struct task_struct *me)
{
	__u64 *u = NULL;

	if (!me->mm && (me->flags & PF_EXITING))
		u = bpf_task_storage_get(&exit_ustacks, me, 0, 0);
	if (u && *u)
		return *u;
	return store_user_stack(ctx, &held_stacks, PROF_LOST_WSTACK, SLOT_TP);
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
	c->wakers[0].ustack = user_stacks && !irq ? waker_ustack(ctx, me) : 0;
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

#endif
