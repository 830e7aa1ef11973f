/*
 * Which names of a cgroup v2 path the host's cgroup manager made, and so
 * may be believed (docs/FORMATS.md section 1, CGROUP's trusted).  A cgroup
 * delegated to someone (a user@UID.service, a service with Delegate=yes, a
 * container's scope) is theirs below: they name its cgroups anything,
 * another service's or container's name included.  The path alone cannot
 * tell; the cgroup file system can, while the cgroups exist.
 */
#ifndef PROF_SAMPLE_CGROUP_TRUST_H
#define PROF_SAMPLE_CGROUP_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "htab.h"

struct cgroup_trust {
	int root; /* the hierarchy's root directory, or -1: none known */
	/* Inodes of the cgroups found marked trusted.delegate, which only
	 * privilege can read: after prof-sample gives it up, cgroups seen
	 * before are still known delegated. */
	struct htab *marked;
	/* path -> its names trusted, for the next process in the same
	 * cgroup: most share theirs with others (a host's thousands of
	 * processes at the start, in a few cgroups). */
	struct htab *checked;
};

/* Opens the root of the cgroup v2 hierarchy as prof-sample's cgroup
 * namespace sees it (the paths of /proc/PID/cgroup start there), from a
 * cgroup2 mount of it; false, with t->root -1, if there is none. */
bool cgroup_trust_open(struct cgroup_trust *t);

/* The same on a directory already open (taken over), for the tests. */
void cgroup_trust_init(struct cgroup_trust *t, int root);

void cgroup_trust_close(struct cgroup_trust *t);

/* How many names of path (len bytes, absolute, as /proc/PID/cgroup gives
 * it), from the root, the host's manager made: those up to the first
 * delegated cgroup, itself included (whoever could write its parent, root
 * alone, named it), and none past one that cannot be checked (gone,
 * unreadable, or past a "..": outside prof-sample's cgroup namespace).
 * 0 when t knows no hierarchy.  A path is checked once until
 * cgroup_trust_forget(), for the other processes in the same cgroup. */
uint16_t cgroup_trust_names(struct cgroup_trust *t, const char *path, size_t len);

/* Forgets the paths checked (not the cgroups seen marked): at each drain,
 * so that no answer is older than one interval. */
void cgroup_trust_forget(struct cgroup_trust *t);

/* Whether line, one of /proc/self/mountinfo without its newline, is a
 * cgroup2 mount of the hierarchy's root as this cgroup namespace sees it;
 * if so *point is its mount point, unescaped in place. */
bool cgroup_trust_mount_line(char *line, char **point);

#endif
