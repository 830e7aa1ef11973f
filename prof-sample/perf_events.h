/*
 * The sampling clock: one cpu-clock perf event per online CPU, each with
 * the BPF program attached.
 */
#ifndef PROF_SAMPLE_PERF_EVENTS_H
#define PROF_SAMPLE_PERF_EVENTS_H

#include <stdint.h>

struct bpf_link;
struct bpf_program;

struct perf_events {
	int ncpus;
	int *fds;
	struct bpf_link **links;
};

/* Opens the events (freq Hz if non-zero, else every period ns) and attaches
 * prog to each.  Returns 0, or a negative errno with a message printed. */
int perf_events_attach(struct perf_events *pe, struct bpf_program *prog, uint32_t freq,
		       uint64_t period);
void perf_events_detach(struct perf_events *pe);

#endif
