/*
 * Reading the executable mappings of a live process from /proc/PID/maps.
 */
#ifndef PROF_SAMPLE_PROC_MAPS_H
#define PROF_SAMPLE_PROC_MAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "mapping.h"

/* Calls fn for every executable mapping of pid (without build-id; m->path
 * is valid only during the call).  False if /proc/PID/maps is unreadable:
 * the process exited, most often. */
bool proc_maps_read(uint32_t pid, void (*fn)(void *ctx, const struct mapping *m), void *ctx);

/* The process (thread group) thread tid belongs to; tid itself if unknown. */
uint32_t proc_tgid(uint32_t tid);

#endif
