/*
 * What to sample: the whole system, or the processes named with -p.
 */
#ifndef PROF_SAMPLE_TARGETS_H
#define PROF_SAMPLE_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct targets {
	uint32_t *pids;
	size_t npids;
};

/* Adds a comma-separated list of PIDs; exits EXIT_USAGE on a bad one. */
void targets_add_pids(struct targets *t, const char *list);

/* Exits EXIT_USAGE naming the first PID that does not exist. */
void targets_check(const struct targets *t);

/* Puts the PIDs into the BPF filter map; false with a message on error. */
bool targets_install(const struct targets *t, int map_fd);

void targets_free(struct targets *t);

#endif
