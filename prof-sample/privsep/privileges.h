/*
 * Giving up privilege: the main process once the BPF program is loaded and
 * attached, and each helper process (helper.c) down to the little its one
 * job needs.
 */
#ifndef PROF_SAMPLE_PRIVILEGES_H
#define PROF_SAMPLE_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>

/* Whether bpf() calls on the map map_fd (already created) work without
 * CAP_BPF.  They do since Linux 6.5, even with
 * kernel.unprivileged_bpf_disabled set: only creating maps and loading
 * programs are checked.  Tried in a child process that gives the
 * capability up. */
bool bpf_maps_work_unprivileged(int map_fd);

/* Gives up every capability (all but CAP_BPF if keep_bpf: the bpf() calls
 * that drain the maps), the bounding set included, becomes the nobody user
 * when running as root, and sets no_new_privs.  Returns false with a
 * message if that fails. */
bool drop_privileges(bool keep_bpf);

/* The same with any set of capabilities kept (effective and permitted),
 * for helper processes; with as_nobody false the user stays what it is.
 * The process is also made non-dumpable, so that nothing running as the
 * same user can ptrace it or read its memory. */
bool keep_only(const int *caps, size_t ncaps, bool as_nobody);

#endif
