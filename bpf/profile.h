/*
 * Types shared by profile.bpf.c and prof-sample: the count-map key, the
 * stored stack, and the indexes of the loss counters.
 */
#ifndef PROF_BPF_PROFILE_H
#define PROF_BPF_PROFILE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "python.h"

#define PROF_COMM_LEN 16
/* The kernel's default kernel.perf_event_max_stack. */
#define PROF_MAX_STACK 127
/* Kernel stack hashes have the top bit set, user stack hashes clear, so
 * the drain knows which stacks need kernel symbols. */
#define PROF_KERNEL_STACK (1ull << 63)

/* Most wakers an off-CPU sample names (--wakeup-depth). */
#define PROF_MAX_WAKERS 4

/* A PID's value in the filter: a target, or the command of -- COMMAND
 * between its fork and its exec, when it still runs prof-sample's code
 * under prof-sample's name (perf's enable_on_exec, in effect). */
#define PROF_PID_TARGET 1
#define PROF_PID_AT_EXEC 2

/* A thread that woke another, with its stacks when it did (their hashes,
 * in the held_stacks map). */
struct waker {
	__u32 pid;
	__u32 tid;
	__u64 kstack;
	__u64 ustack;
	char comm[PROF_COMM_LEN];
};

enum prof_kind {
	PROF_ON_CPU = 0,  /* a sample of the clock */
	PROF_OFF_CPU = 1, /* a block: weighted by the nanoseconds switched out */
};

struct sample_key {
	__u32 pid;
	__u32 tid;
	__u64 kstack; /* hash of the kernel stack, 0 if none */
	__u64 ustack; /* hash of the user stack, 0 if none */
	/* When, to the capture's time resolution (stamp()): the slot of
	 * bpf_ktime_get_ns() / slot_ns the sample was taken or the block
	 * ended in, and for a block how many slots before that it began. */
	__u64 slot;
	__u32 span;
	__u32 pad;
	char comm[PROF_COMM_LEN];
	__u32 kind;    /* enum prof_kind */
	__u32 nwakers; /* off-CPU with --wakeups: wakers, nearest first */
	struct waker wakers[PROF_MAX_WAKERS];
};

/* What the count maps hold per key: samples or blocks, and for blocks the
 * nanoseconds they lasted. */
struct sample_value {
	__u64 count;
	__u64 weight;
};

/* What the task iterator waits_in_progress does when prof-sample reads it
 * (its .bss waits_mode): take on the threads of the targets that are
 * blocked when the capture starts, or count every block in progress up to
 * now (at the end of the capture, and of each --rotate file). */
enum prof_waits_mode {
	PROF_WAITS_ADOPT = 1,
	PROF_WAITS_CUT = 2,
};

struct stack_trace {
	__u64 nr;
	__u64 ip[PROF_MAX_STACK];
};

enum prof_counter {
	PROF_SEEN,	   /* samples of the selected targets the program saw */
	PROF_LOST_KSTACK,  /* kernel stack not stored: stack map full */
	PROF_LOST_USTACK,  /* user stack not stored: stack map full */
	PROF_LOST_COUNT,   /* sample dropped: count map full */
	PROF_LOST_RING,	   /* --unwind=dwarf sample dropped: ring buffer full */
	PROF_LOST_SWITCH,  /* a block not timed: no task storage for its start */
	PROF_WAKE_CUT,	   /* blocks whose chain of wakers went deeper than kept */
	PROF_LOST_WSTACK,  /* a waker's stack not stored: its map full */
	PROF_SHORT_BLOCKS, /* blocks not counted: shorter than --min-block */
	PROF_LONG_BLOCKS,  /* blocks not counted: longer than --max-block */
	PROF_LOST_BLOCK_USTACK, /* dwarf: a block's user stack gone before it was copied */
	PROF_ADOPTED_WAITS, /* threads found blocked when the capture started */
	PROF_CUT_WAITS,	    /* pieces of waits in progress at an end of a file */
	PROF_EARLY_TICKS,   /* ticks left out of a target: due before it was switched in */
	PROF_LATE_TICKS,    /* ticks due while a target ran, charged at its switch-out */
	PROF_TABLE_WHOLE,   /* dwarf: blocks' user stacks the unwind tables took whole, */
	PROF_TABLE_CUT,	    /* or not (copied instead), */
	PROF_TABLE_NONE,    /* or had none for (copied instead) */
	PROF_BLOCK_FALLBACK, /* dwarf: blocks whose copy could not be made (the ring
			      * full, the thread gone on), counted with the stack
			      * walked at their switch-out */
	PROF_TABLE_PARENT,   /* walks of a forked child by its parent's tables */
	PROF_NR_COUNTERS,
};

/*
 * --unwind=dwarf: instead of walking frame pointers, the program sends each
 * sample to prof-sample through a ring buffer with the user registers and a
 * copy of the top of the user stack, and prof-sample unwinds it with the
 * call-frame information of the mapped files.
 *
 * The registers are x86-64's DWARF registers 0 to 16, in that order (rax,
 * rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8 to r15, rip), which is also the
 * order libdwfl takes them in.
 */
#define PROF_NR_UREGS 17
#define PROF_UREG_FP 6
#define PROF_UREG_SP 7
#define PROF_UREG_IP 16
/* Largest --stack-size, as perf's (65528): glibc's regex matcher alone
 * keeps 20 KiB on the stack. */
#define PROF_MAX_STACK_COPY 65536
/* The default: four times perf's, because distribution code keeps big
 * buffers on the stack (sort -V 16 KiB, bash's regex matcher 20 KiB) and
 * the callers above them are lost without it.  Measured here: 18 us per
 * sample in the BPF program against 8.5 us for 8 KiB, which is 0.2% of a
 * CPU at 99 Hz. */
#define PROF_DEFAULT_STACK_COPY 32768
/* The capture's default time resolution: FlameScope's heatmap rows are
 * 20 ms at 50 per second; this is twice as fine. */
#define PROF_DEFAULT_SLOT_NS 10000000ull
/* Distinct (thread, stacks, slot of time) per interval the count maps hold
 * by default: 400 threads blocking on a 2-CPU host (perf bench sched
 * messaging -g 10) lost 13% of their blocks to maps of 16384 at 10 ms,
 * none to these. */
#define PROF_DEFAULT_COUNTS 131072
#define PROF_PAGE 4096

/* Set when regs hold user registers (not for kernel threads). */
#define PROF_RAW_USER 1
/* Set when the kernel stack was taken earlier: kstack[0] is its key in
 * held_stacks, and kstack_nr is 0. */
#define PROF_RAW_KSTACK_HELD 2

struct raw_sample {
	__u32 pid;
	__u32 tid;
	char comm[PROF_COMM_LEN];
	__u32 flags;
	__u32 kstack_nr;  /* frames in kstack */
	__u32 stack_len;  /* bytes in stack: user memory from regs[PROF_UREG_SP] up */
	__u32 kind;	  /* enum prof_kind */
	__u64 weight;	  /* off-CPU: nanoseconds switched out */
	__u32 nwakers;
	__u32 span;	  /* sample_key's: when */
	__u64 slot;
	struct waker wakers[PROF_MAX_WAKERS];
	__u64 regs[PROF_NR_UREGS];
	__u64 kstack[PROF_MAX_STACK];
	struct py_stack py; /* a Python thread's frames (python.h) */
	/* stack_len bytes of user stack.  The record has room for the
	 * --stack-size and a page more: the BPF program copies into it in
	 * place, and the slack lets the verifier prove that a page-sized read
	 * at any offset below the stack size stays inside. */
	__u8 stack[];
};

/* The part of a raw_sample before the stack bytes. */
#define PROF_RAW_HEADER ((unsigned long)&((struct raw_sample *)0)->stack)

/* FNV-1a over the frames, then a 64-bit finalizer (from MurmurHash3) so
 * that the low bits, which pick a hash-map bucket, depend on every frame.
 * Shared so that the stacks prof-sample unwinds itself get the same keys as
 * those the BPF program stores. */
static inline __u64 prof_hash_stack(const __u64 *ip, __u64 nr)
{
	__u64 h = 0xcbf29ce484222325ull;

	for (__u32 i = 0; i < PROF_MAX_STACK; i++) {
		if (i >= nr)
			break;
		h = (h ^ ip[i]) * 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* The key a stack is stored under: its hash, top bit set for kernel
 * stacks, never 0 (which means "no stack"). */
static inline __u64 prof_stack_key(const __u64 *ip, __u64 nr, int kernel)
{
	__u64 h = prof_hash_stack(ip, nr);

	h = kernel ? h | PROF_KERNEL_STACK : h & ~PROF_KERNEL_STACK;
	return h ? h : 1;
}

#endif
