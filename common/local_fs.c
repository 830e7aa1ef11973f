#include "local_fs.h"

#include <fcntl.h>
#include <inttypes.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* A user may make 100,000 mounts in a namespace of theirs: past this much
 * of its mountinfo the mount is taken not to be local. */
#define MAX_MOUNTINFO (1u << 20)

/* Served by a disk or by memory: no user can make a read wait. */
static const char *const local_types[] = {
	"ext2",	 "ext3",  "ext4",   "xfs",     "btrfs",	  "f2fs",    "jfs",  "reiserfs",
	"vfat",	 "msdos", "exfat",  "ntfs3",   "iso9660", "udf",     "squashfs", "erofs",
	"tmpfs", "ramfs", "zfs",    "bcachefs", "nilfs2", "hfsplus", "devtmpfs",
};

/* Served by the kernel itself. */
static const char *const kernel_types[] = { "proc", "sysfs" };

static dev_t host_userns_dev;
static ino_t host_userns_ino;

void local_fs_init(void)
{
	struct stat st;

	if (stat("/proc/self/ns/user", &st) == 0) {
		host_userns_dev = st.st_dev;
		host_userns_ino = st.st_ino;
	}
}

/* Mount mnt_id's line of pid's mountinfo into *line (NUL-terminated, the
 * caller frees it); false if it is not there.  A line is "ID PARENT
 * MAJ:MIN ROOT POINT OPTIONS [TAGS] - TYPE SOURCE SUPER". */
static bool mount_line(uint32_t pid, uint64_t mnt_id, char **line)
{
	char path[64];
	size_t cap = 0, read_so_far = 0;
	ssize_t n;
	bool found = false;
	FILE *f;

	*line = NULL;
	if (pid)
		snprintf(path, sizeof(path), "/proc/%" PRIu32 "/mountinfo", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/mountinfo");
	if (!(f = fopen(path, "re")))
		return false;
	while (read_so_far < MAX_MOUNTINFO && (n = getline(line, &cap, f)) > 0) {
		unsigned long long id;
		read_so_far += (size_t)n;
		if (sscanf(*line, "%llu ", &id) == 1 && id == mnt_id) {
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

/* Whether pid's mount namespace belongs to the host's user namespace: only
 * then were its mounts made by the host's root (a namespace a user made is
 * theirs, and so are the mounts they made in it). */
static bool host_mount_ns(uint32_t pid)
{
	char path[64];
	struct stat st;
	int ns, owner;
	bool host;

	if (!pid)
		return true;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/ns/mnt", pid);
	if ((ns = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	owner = ioctl(ns, NS_GET_USERNS);
	close(ns);
	if (owner < 0)
		return false;
	host = fstat(owner, &st) == 0 && st.st_dev == host_userns_dev && st.st_ino == host_userns_ino;
	close(owner);
	return host;
}

static bool is_one_of(const char *type, const char *const *types, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(type, types[i]) == 0)
			return true;
	return false;
}

struct fs_info local_fs(uint32_t pid, uint64_t mnt_id)
{
	struct fs_info fs = { .kind = FS_UNKNOWN };
	char type[64], *line, *dash, *opt;
	unsigned int uid;

	/* A mount id names one mount, in one namespace: if it is in ours,
	 * the host's, it is that one (a chrooted process's mountinfo does
	 * not show the mounts above its root); else it is in pid's. */
	if (mount_line(0, mnt_id, &line)) {
		pid = 0;
	} else if (!pid || (free(line), !mount_line(pid, mnt_id, &line))) {
		free(line);
		return fs;
	}
	if (!(dash = strstr(line, " - ")) || sscanf(dash + 3, "%63s", type) != 1) {
		free(line);
		return fs;
	}
	if (is_one_of(type, local_types, sizeof(local_types) / sizeof(local_types[0])) ||
	    (strcmp(type, "overlay") == 0 && host_mount_ns(pid))) {
		fs.kind = FS_LOCAL;
		fs.owners_true = true;
	} else if (is_one_of(type, kernel_types, sizeof(kernel_types) / sizeof(kernel_types[0]))) {
		fs.kind = FS_KERNEL;
	} else if (strcmp(type, "fuse") == 0 || strcmp(type, "fuseblk") == 0 ||
		   strncmp(type, "fuse.", 5) == 0) {
		/* The last field, the super options, holds user_id=. */
		if ((opt = strstr(dash, "user_id=")) && sscanf(opt, "user_id=%u", &uid) == 1 &&
		    (opt[-1] == ' ' || opt[-1] == ',')) {
			fs.kind = FS_FUSE;
			fs.fuse_owner = uid;
		}
	} else {
		fs.kind = FS_OTHER;
		fs.owners_true = strcmp(type, "overlay") != 0 && host_mount_ns(pid);
	}
	free(line);
	return fs;
}

/* A mount's unique id (Linux 6.8), never given to another mount, unlike
 * its mount id. */
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x4000u
#endif

/* What mounts were found to be, by unique id: a mount's type and
 * namespace never change. */
#define KNOWN_MOUNTS 64
static struct {
	uint64_t id;
	struct fs_info fs;
} known[KNOWN_MOUNTS];
static size_t nknown, next_known;

struct fs_info local_fs_of(int fd, uint32_t pid)
{
	struct statx stx;
	struct fs_info fs;
	uint64_t unique = 0;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID_UNIQUE, &stx) == 0 &&
	    (stx.stx_mask & STATX_MNT_ID_UNIQUE)) {
		unique = stx.stx_mnt_id;
		for (size_t i = 0; i < nknown; i++)
			if (known[i].id == unique)
				return known[i].fs;
	}
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID, &stx) != 0 ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return (struct fs_info){ .kind = FS_UNKNOWN };
	fs = local_fs(pid, stx.stx_mnt_id);
	/* Not found is not known: pid may not be where the mount is. */
	if (unique && fs.kind != FS_UNKNOWN) {
		known[next_known] = (typeof(known[0])){ unique, fs };
		next_known = (next_known + 1) % KNOWN_MOUNTS;
		nknown += nknown < KNOWN_MOUNTS;
	}
	return fs;
}

struct fs_info local_fs_fd(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID, &stx) != 0 ||
	    !(stx.stx_mask & STATX_MNT_ID))
		return (struct fs_info){ .kind = FS_UNKNOWN };
	return local_fs(0, stx.stx_mnt_id);
}
