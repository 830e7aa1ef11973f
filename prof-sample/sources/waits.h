/*
 * Waits in progress (--off-cpu, --wall): the scheduler's programs see a
 * block from its switch-out to its switch-in.  A thread already blocked
 * when the capture starts is taken on then, and every block still going on
 * when a file ends (the capture's, or a --rotate file's) is counted up to
 * that moment in that file: a thread stuck for the whole capture shows
 * where it is stuck, for the whole capture.
 */
#ifndef PROF_SAMPLE_WAITS_H
#define PROF_SAMPLE_WAITS_H

#include <stdbool.h>

struct profile_bpf;

/* Takes on the targets' threads blocked now.  False, with a message, if
 * the kernel's task iterator could not be read. */
bool waits_adopt(struct profile_bpf *skel);

/* Counts every block in progress up to now, in the count maps or ring
 * being filled; the rest of each goes on.  False, with a message, if the
 * iterator could not be read. */
bool waits_cut(struct profile_bpf *skel);

#endif
