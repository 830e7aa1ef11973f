/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Waits in progress: threads already blocked when the capture starts,
 * and blocks still going on when a file ends, found by a task iterator.
 */
#ifndef PROF_BPF_WAITS_BPF_H
#define PROF_BPF_WAITS_BPF_H

/* A block is seen by the off-CPU programs only from its switch-out to its
 * switch-in; a thread already blocked when the capture starts, or still
 * blocked when a file ends, would be missed or put off.  prof-sample reads
 * this task iterator at the start (waits_mode PROF_WAITS_ADOPT) and at the
 * end of each file (PROF_WAITS_CUT).  It sleeps: it reads other threads'
 * user memory (bpf_copy_from_user_task). */
__u32 waits_mode = 0;

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

/* A frame-pointer walk of another thread's user stack. */
struct task_fp_walk {
	struct task_struct *t;
	__u64 fp;
	__u32 slot, n;
};

/* One frame up: false when the walk ends. */
static long task_fp_step(__u32 i, void *arg)
{
	struct task_fp_walk *w = arg;
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &w->slot);
	__u64 frame[2], k = (__u64)i + 1;

	if (!st || !w->fp || k >= PROF_MAX_STACK ||
	    bpf_copy_from_user_task(frame, sizeof(frame), (void *)w->fp, w->t, 0) || !frame[1])
		return 1;
	st->ip[k] = frame[1];
	w->n = k + 1;
	if (frame[0] <= w->fp)
		return 1;
	w->fp = frame[0];
	return 0;
}

/* t's user stack by frame pointer, held: bpf_get_stack walks only the
 * current thread's.  The same walk as the kernel's for the current one
 * (perf_callchain_user): the interrupted address, then each frame's
 * return address, while frames go up the stack.  A bpf_loop, not an
 * unrolled loop: that took 0.1 s of verifying at each start. */
static __always_inline __u64 hold_task_ustack(struct task_struct *t, const __u64 *regs)
{
	struct task_fp_walk w = { .t = t, .fp = regs[PROF_UREG_FP], .slot = SLOT_ITER, .n = 1 };
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &w.slot);

	if (!st)
		return 0;
	st->ip[0] = regs[PROF_UREG_IP];
	bpf_loop(PROF_MAX_STACK - 1, task_fp_step, &w, 0);
	st->nr = w.n;
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
	b->ustack = b->fallback = 0;
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
	stamp(key, now, weight);
	key->pid = BPF_CORE_READ(t, tgid);
	key->tid = BPF_CORE_READ(t, pid);
	BPF_CORE_READ_STR_INTO(&key->comm, t, comm);
	key->kind = PROF_OFF_CPU;
	key->kstack = b->kstack;
	key->ustack = b->ustack;
	count(PROF_SEEN);
	count(PROF_CUT_WAITS);
	if (counted_in_maps(b)) {
		count_key(active_counts(), key, weight);
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

#endif
