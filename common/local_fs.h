/*
 * Which file system a file is on, and so what may hold up a read of it,
 * and who chooses its content.  A read from a FUSE file waits for its
 * server, which any user may run and stop (with user_allow_other, on a
 * file root's processes map); a read from NFS waits for the network.
 * prof-sample's main process must never wait so, or the capture stalls
 * with it, uninterruptibly: it reads a file itself only when it is on a
 * local file system, a disk's or memory's, and has any other copied by a
 * helper it can kill (file_reader.h).
 *
 * The file system comes from the file's mount (statx's mnt_id, asked with
 * AT_STATX_DONT_SYNC: no server is asked) and the mounts of the process
 * that maps it (/proc/PID/mountinfo, written by the kernel).  An overlay
 * counts as local only in a mount namespace the host made: a user may
 * mount one in a user namespace of theirs, over FUSE.
 */
#ifndef PROF_LOCAL_FS_H
#define PROF_LOCAL_FS_H

#include <stdbool.h>
#include <stdint.h>

enum fs_kind {
	FS_UNKNOWN, /* the mount could not be found: neither read nor trusted */
	FS_LOCAL,   /* a disk's or memory's, mounted by the host */
	FS_FUSE,    /* served by the process of the user who mounted it */
	FS_OTHER,   /* a network's, or a user's overlay */
	FS_KERNEL,  /* the kernel's own (/proc, /sys): nothing to read files
		       from, but a path may lead through */
};

struct fs_info {
	enum fs_kind kind;
	/* FS_FUSE: the user who mounted it (its user_id=), whose server
	 * says what every file holds and who owns it. */
	uint32_t fuse_owner;
	/* The files' owners are who they say (FS_LOCAL, or a network file
	 * system the host mounted); not in an overlay a user made, whose
	 * lower layer may be a FUSE server's. */
	bool owners_true;
};

/* Notes the user namespace of the calling process, the host's: called
 * once, at start-up, before any helper is forked. */
void local_fs_init(void);

/* What mount mnt_id is, as process pid (0: the caller) sees it. */
struct fs_info local_fs(uint32_t pid, uint64_t mnt_id);

/* The same for the file open as fd, in the caller's mounts. */
struct fs_info local_fs_fd(int fd);

/* The same for the file open as fd, in pid's mounts (0: the caller's),
 * remembered by the mount's unique id where the kernel has them (6.8):
 * mountinfo is read once per mount, not once per file. */
struct fs_info local_fs_of(int fd, uint32_t pid);

#endif
