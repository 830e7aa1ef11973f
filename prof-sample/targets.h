/*
 * What to sample: the whole system, or processes (-p), threads (-t), a
 * cgroup (--cgroup), some CPUs (-C), or a command and its descendants.
 */
#ifndef PROF_SAMPLE_TARGETS_H
#define PROF_SAMPLE_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile_bpf;

struct targets {
	uint32_t *pids, *tids;
	size_t npids, ntids;
	bool *cpus; /* NULL: every online CPU */
	int ncpus;  /* size of cpus */
	const char *cgroup;
	int cgroup_fd;
	int *pidfds; /* one per -p process, -1 where pidfd_open failed */
};

/* Parsers for the option arguments; each exits EXIT_USAGE naming a bad
 * value. */
void targets_add_pids(struct targets *t, const char *list);
void targets_add_tids(struct targets *t, const char *list);
void targets_set_cpus(struct targets *t, const char *list);

/* Exits EXIT_USAGE naming the first PID or TID that does not exist, a
 * thread that no -p process has (-p and -t together could never match it),
 * or a cgroup that cannot be opened.  Holds a pidfd to each -p process. */
void targets_check(struct targets *t);

/* True when -p or -t named the targets and every one of them has exited:
 * the capture is over, as perf record -p's is.  Needs no privilege. */
bool targets_gone(const struct targets *t);

/* Sets the skeleton's filter flags; call before load. */
void targets_configure(const struct targets *t, struct profile_bpf *skel);

/* Fills the BPF filter maps; false with a message on error. */
bool targets_install(const struct targets *t, struct profile_bpf *skel);

/* Samples pid from its exec on (the command, forked by prof-sample) and,
 * through the fork tracepoint, its descendants. */
bool targets_follow(struct profile_bpf *skel, uint32_t pid);

/* Parses a CPU list ("0-3,7") into a bitmap of max entries; false if bad. */
bool parse_cpu_list(const char *list, bool *cpus, int max);

void targets_free(struct targets *t);

#endif
