/*
 * Types shared by profile.bpf.c and prof-sample: the count-map key and the
 * indexes of the loss counters.
 */
#ifndef PROF_BPF_PROFILE_H
#define PROF_BPF_PROFILE_H

#define PROF_COMM_LEN 16
/* The kernel's default kernel.perf_event_max_stack. */
#define PROF_MAX_STACK 127

struct sample_key {
	__u32 pid;
	__u32 tid;
	__s32 kstack; /* stack-map id, or a negative errno */
	__s32 ustack;
	char comm[PROF_COMM_LEN];
};

enum prof_counter {
	PROF_SEEN,	   /* samples of the selected targets the program saw */
	PROF_LOST_KSTACK,  /* kernel stack not stored (map full or collision) */
	PROF_LOST_USTACK,  /* user stack not stored */
	PROF_LOST_COUNT,   /* sample dropped: count map full */
	PROF_NR_COUNTERS,
};

#endif
