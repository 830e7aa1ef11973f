/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --off-cpu and --wall: blocks timed at the scheduler's switches and
 * counted, or sent with their stacks, when they end.
 */
#ifndef PROF_BPF_OFFCPU_BPF_H
#define PROF_BPF_OFFCPU_BPF_H

/* Whether the ring has room for a raw sample now: only a guess, as other
 * CPUs reserve too, but one that keeps a storm's blocks from being lost
 * to it when they have something else to be counted with. */
static __always_inline bool ring_has_room(void)
{
	__u64 size = bpf_ringbuf_query(&raw_samples, BPF_RB_RING_SIZE);
	__u64 used = bpf_ringbuf_query(&raw_samples, BPF_RB_AVAIL_DATA);

	return used < size && size - used >= 2 * (PROF_RAW_HEADER + stack_room() + PROF_PAGE);
}

/* Sends a pending block (dwarf) from its thread's context, with the user
 * stack bytes if the thread is still where it blocked (same user stack
 * pointer and instruction: the same system call).  When it has gone on,
 * or the ring is full, the block is counted with the stack walked at its
 * switch-out instead, if there is one, else sent without a user stack. */
static __always_inline void send_pending(void *ctx, struct block *b)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	bool same = BPF_CORE_READ(regs, sp) == b->sp && BPF_CORE_READ(regs, ip) == b->ip;

	b->pending = 0;
	if (b->fallback && (!same || !ring_has_room())) {
		b->key.ustack = b->fallback;
		count(PROF_BLOCK_FALLBACK);
		count_key(active_counts(), &b->key, b->weight);
		return;
	}
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
	key = counted_in_maps(b) ? new_key(SLOT_TP) : &b->key;
	if (!key)
		return;
	__builtin_memset(key, 0, sizeof(*key));
	key->pid = BPF_CORE_READ(next, tgid);
	key->tid = BPF_CORE_READ(next, pid);
	BPF_CORE_READ_STR_INTO(&key->comm, next, comm);
	key->kind = PROF_OFF_CPU;
	key->kstack = b->kstack;
	key->ustack = b->ustack;
	stamp(key, now, weight);
	if (wakeup_depth)
		add_wakers(next, key, b->start);
	b->start = 0;
	count(PROF_SEEN);
	if (!counted_in_maps(b)) {
		b->weight = weight;
		b->pending = 1;
		return;
	}
	count_key(active_counts(), key, weight);
}

/* Starts prev's block, in prev's context (its last block sent). */
static __always_inline void start_block(void *ctx, struct task_struct *prev, __u64 now)
{
	struct block *b = bpf_task_storage_get(&blocks, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!b) {
		count(PROF_LOST_SWITCH);
		return;
	}
	b->kstack = kernel_stacks ? store_stack(ctx, &held_stacks, true, PROF_LOST_KSTACK, SLOT_TP)
				  : 0;
	b->ustack = b->fallback = 0;
	if (user_stacks && !unwind_dwarf) {
		b->ustack = store_stack(ctx, &held_stacks, false, PROF_LOST_USTACK, SLOT_TP);
	} else if (user_stacks) {
		/* A Python thread's frames come with the stack copy. */
		if (!py_thread(BPF_CORE_READ(prev, tgid)))
			b->ustack = store_whole_user_stack(ctx, &held_stacks, SLOT_TP, &b->fallback);
		if (!b->ustack) {
			struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(prev);
			b->sp = BPF_CORE_READ(regs, sp);
			b->ip = BPF_CORE_READ(regs, ip);
		}
	}
	b->start = b->began = now;
	b->adopted = 0;
}

/* Runs in prev's context, before the switch.  A thread switched out while
 * runnable (preempted, yielding) is not blocked. */
SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	struct block *b;

	end_block(next, now);
	/* prev's last block, if it waits for its stack copy, first: one
	 * place that sends, which the verifier checks once (it took a
	 * third of the program's load time at each). */
	b = bpf_task_storage_get(&blocks, prev, 0, 0);
	if (b && b->pending)
		send_pending(ctx, b);
	if (!preempt && (blocked_in(task_state(prev)) & block_states) &&
	    is_target(id >> 32, (__u32)id))
		start_block(ctx, prev, now);
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

#endif
