/*
 * The sampling clock: one cpu-clock perf event per online CPU, each with
 * the BPF program attached.
 */
#ifndef PROF_SAMPLE_PERF_EVENTS_H
#define PROF_SAMPLE_PERF_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct bpf_link;
struct bpf_program;

struct sample_clock {
	uint32_t freq;	   /* samples per second, or 0 */
	uint64_t period;   /* ns between samples when freq is 0 */
	bool user, kernel; /* sample in user mode, in kernel mode */
	const bool *cpus;  /* CPUs to sample (NULL: every online CPU) */
	int ncpus;	   /* size of cpus */
};

struct perf_events {
	int ncpus;     /* possible CPUs: the size of the arrays */
	int nattached; /* CPUs sampled */
	int *fds;
	struct bpf_link **links;
};

/* Opens the events and attaches prog to each.  Returns 0, or a negative
 * errno with a message printed. */
int perf_events_attach(struct perf_events *pe, struct bpf_program *prog,
		       const struct sample_clock *clock);
void perf_events_detach(struct perf_events *pe);

#endif
