/*
 * Executable mappings of a process, read from /proc when the process is
 * first sampled, with the build-id of each mapped file.
 */
#ifndef PROF_SAMPLE_PROC_MAPS_H
#define PROF_SAMPLE_PROC_MAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "htab.h"

/* Writes a MAP record for every executable mapping of pid.  Build-ids are
 * cached in ids by (device, inode), so a library shared by a thousand
 * processes is read once.  Returns false if /proc/PID/maps is unreadable
 * (the process already exited, most often). */
bool proc_write_maps(struct cap_writer *w, uint32_t pid, struct htab *ids);

/* Frees the cache's values. */
void proc_ids_free(struct htab *ids);

#endif
