/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --unwind=dwarf: the raw sample, with the user registers and a copy of
 * the user stack's bytes, sent through a ring buffer for prof-sample to
 * unwind.
 */
#ifndef PROF_BPF_STACK_COPY_BPF_H
#define PROF_BPF_STACK_COPY_BPF_H

const volatile __u32 stack_copy_size = PROF_DEFAULT_STACK_COPY;
/* --unwind=dwarf: samples go to prof-sample raw, stack bytes and all. */
const volatile bool unwind_dwarf = false;

/* --unwind=dwarf: samples with their registers and stack bytes; sized by
 * prof-sample. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} raw_samples SEC(".maps");

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
	rs->slot = key->slot;
	rs->span = key->span;
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

#endif
