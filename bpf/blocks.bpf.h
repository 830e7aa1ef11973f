/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Off-CPU time: what a thread's block is, and which states count.
 */
#ifndef PROF_BPF_BLOCKS_BPF_H
#define PROF_BPF_BLOCKS_BPF_H

/* Off-CPU: which blocks count, and how many wakers to name. */
const volatile __u64 min_block_ns = 1000;
const volatile __u64 max_block_ns = 0;
const volatile __u32 block_states = 3; /* bit 0 S, bit 1 D */
const volatile __u32 wakeup_depth = 0;

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
	/* dwarf, a block to be copied: its user stack as walked at the
	 * switch-out (the tables' walk cut short, or frame pointers), held,
	 * for the block to be counted with if the copy cannot be made. */
	__u64 fallback;
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

/* Whether b is counted in the count maps when it ends, with its stacks
 * held, rather than sent with a copy of its user stack: every block with
 * --unwind=fp; with dwarf, one whose user stack the unwind tables walked
 * whole at the switch-out (the only way a dwarf block has one). */
static __always_inline bool counted_in_maps(const struct block *b)
{
	return !unwind_dwarf || b->ustack;
}

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

#endif
