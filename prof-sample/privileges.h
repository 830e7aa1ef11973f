/*
 * Giving up privilege once the BPF program is loaded and attached.
 */
#ifndef PROF_SAMPLE_PRIVILEGES_H
#define PROF_SAMPLE_PRIVILEGES_H

#include <stdbool.h>

/* Keeps only the capabilities draining needs — CAP_BPF (the bpf() calls on
 * the maps already created), CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH
 * (/proc/PID/maps and files of other users' processes),
 * CAP_CHECKPOINT_RESTORE (/proc/PID/map_files) — and, when running as
 * root, becomes the nobody user; sets no_new_privs.  Returns false with a
 * message if that fails. */
bool drop_privileges(void);

#endif
