/*
 * Types shared by profile.bpf.c and prof-sample: the count-map key, the
 * stored stack, and the indexes of the loss counters.
 */
#ifndef PROF_BPF_PROFILE_H
#define PROF_BPF_PROFILE_H

#define PROF_COMM_LEN 16
/* The kernel's default kernel.perf_event_max_stack. */
#define PROF_MAX_STACK 127
/* Kernel stack hashes have the top bit set, user stack hashes clear, so
 * the drain knows which stacks need kernel symbols. */
#define PROF_KERNEL_STACK (1ull << 63)

struct sample_key {
	__u32 pid;
	__u32 tid;
	__u64 kstack; /* hash of the kernel stack, 0 if none */
	__u64 ustack; /* hash of the user stack, 0 if none */
	char comm[PROF_COMM_LEN];
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
	PROF_NR_COUNTERS,
};

#endif
