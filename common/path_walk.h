/*
 * Walking a path a mount at a time, for the file reader (file_reader.h),
 * so that it always knows which file system it is asking: a lookup on a
 * FUSE mount waits for its server, which its user may stop, and then the
 * reader is killed and the mount it was asking must be known to give it
 * up.  Mount points and symbolic links can take a path anywhere, so the
 * text of a path does not say it.
 *
 * Within one mount the kernel walks as far as it can in one call
 * (openat2's RESOLVE_NO_XDEV, which stops at the mount's edge, symbolic
 * links included).  Where the path leaves the mount it is walked one name
 * at a time: a mount point is crossed without asking the file system
 * mounted there anything, and a symbolic link is read where it is and its
 * text walked in its place, a mount at a time again.  Links in /proc (a
 * process's root, its map_files) lead where their text does not say, and
 * ask nothing of a file system to follow: the kernel follows them.
 */
#ifndef PROF_PATH_WALK_H
#define PROF_PATH_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* The mount a walk is asking (statx's mnt_id, 0 if unknown), as process
 * pid sees it (0: the walker).  Shared memory: the walker is killed when
 * it stalls, and the one who killed it reads here what kept it waiting. */
struct walk_asking {
	uint64_t mnt_id;
	uint32_t pid;
};

struct walk_rules {
	const uint64_t *dead; /* mounts never to be asked */
	size_t ndead;
	bool local_only; /* ask only mounts that local_fs() calls local or the kernel's */
	struct walk_asking *asking; /* set before each mount is asked, if not NULL */
};

/* An O_PATH descriptor of path (absolute, or from the working directory),
 * its last name not followed if it is a symbolic link and flags hold
 * O_NOFOLLOW (the link itself is given).  *pid: the process into whose
 * mounts the walk went through /proc/PID/root (or cwd), for local_fs(); 0
 * if none.  -1 with errno set: ETIMEDOUT if the walk would ask a dead
 * mount, EREMOTE if local_only and it would ask one that is not local, or
 * what the kernel said. */
int path_walk(const char *path, int flags, const struct walk_rules *rules, uint32_t *pid);

/* Whether the file system of a file may be asked under the rules (to
 * look a name up in it, to read it), from what statx said of the file
 * (with AT_STATX_DONT_SYNC: asking nothing) as process pid (0: the caller)
 * sees it; errno as path_walk() if not.  Notes it as being asked if so. */
bool walk_may_ask(const struct walk_rules *rules, const struct statx *stx, uint32_t pid);

#endif
