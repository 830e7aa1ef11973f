/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-CPU samples: the clock's programs, and, for targeted captures, each
 * tick charged to the task that ran when it fell due.
 */
#ifndef PROF_BPF_TICKS_BPF_H
#define PROF_BPF_TICKS_BPF_H

/* Targeted on-CPU captures: each tick charged to the task that ran when
 * it fell due, not to the one it was delivered in. */
const volatile bool ticks_when_due = false;

/* Written by prof-sample: cleared before the clock's events are closed,
 * after which clock_event's pointers are not to be followed. */
__u32 clock_running = 0;

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

static __always_inline void note_switch(__u64 now)
{
	__u32 zero = 0;
	__u64 *at = bpf_map_lookup_elem(&switched_at, &zero);

	if (at)
		*at = now;
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
	stamp(key, due, 0);
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
	count_key(active_counts(), key, 0);
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
	stamp(key, bpf_ktime_get_ns(), 0);
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

#endif
