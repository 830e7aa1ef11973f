/*
 * What a cgroup path says about the process in it, for a profile's labels
 * (docs/FORMATS.md section 6): the container it runs in and its systemd
 * unit.  The path is untrusted (cgroups may be delegated to users): both
 * only ever return a part of it that has the expected shape, and only
 * from its first `trusted` names, those the capture says the sampled
 * host's cgroup manager made (CAP_CGROUP_ALL: a capture that did not say).
 */
#ifndef PROF_SYMBOLIZE_CGROUP_LABELS_H
#define PROF_SYMBOLIZE_CGROUP_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The container id of path (64 lowercase hex digits) into id, which holds
 * 65 bytes; false if the path names no container. */
#define CONTAINER_ID_LEN 64
bool cgroup_container_id(const char *path, uint32_t trusted, char id[CONTAINER_ID_LEN + 1]);

/* The systemd unit of path: a pointer to its last component ending in
 * .service or .scope, of *len bytes; NULL if there is none.  Neither
 * looks past the trusted names, nor below a user@UID.service component,
 * whose cgroups that user names: its unit is then user@UID.service. */
const char *cgroup_systemd_unit(const char *path, uint32_t trusted, size_t *len);

#endif
