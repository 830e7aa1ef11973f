#include "opener.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "diag.h"
#include "privileges.h"

struct open_request {
	uint32_t pid, reserved;
	uint64_t start, end;
};

struct open_reply {
	int32_t err; /* 0, with a descriptor; else an errno value */
	uint32_t reserved;
	struct opened_file info;
};

/* The executable mapping of a regular file that holds address addr in pid,
 * from the kernel's /proc/PID/maps: its range and inode; 0 if there is
 * none.  The range an mmap event gave may have been split or merged with a
 * neighbour since (the ELF loader trims its first mapping, the kernel
 * merges adjacent ones): the mapping that holds its start is the one.
 * Lines are in address order: the search stops past addr. */
static uint64_t exec_mapping_at(uint32_t pid, uint64_t addr, uint64_t *start, uint64_t *end)
{
	char path[64], line[512];
	uint64_t ino = 0;
	bool whole = true;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, inode;
		unsigned int major, minor;
		char perms[8];
		/* The tail of a line longer than the buffer (a long path) is
		 * not the start of a line. */
		bool at_start = whole;
		whole = strchr(line, '\n') != NULL;
		if (!at_start || sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &lo, &hi, perms, &off,
					&major, &minor, &inode) != 7)
			continue;
		if (lo > addr)
			break;
		if (addr < hi) {
			if (perms[2] == 'x' && inode) {
				ino = inode;
				*start = lo;
				*end = hi;
			}
			break;
		}
	}
	fclose(f);
	return ino;
}

/* Opens without side effects first (O_PATH: no device is opened, no FUSE
 * server asked to open), checks the file and its file system, and only
 * then, on a local one, opens it for reading, through the descriptor so
 * that it is the same file.  A file elsewhere is given as the O_PATH
 * descriptor, for a helper that may be killed to open and copy. */
static int open_mapped(const struct open_request *rq, struct open_reply *rp)
{
	char path[96];
	uint64_t lo, hi, ino = exec_mapping_at(rq->pid, rq->start, &lo, &hi);
	struct statx stx;
	struct stat st;
	int pfd, fd;

	if (!ino)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64, rq->pid, lo,
		 hi);
	if ((pfd = open(path, O_PATH | O_CLOEXEC)) < 0)
		return -errno;
	/* DONT_SYNC: a FUSE server is not asked, the cached attributes do. */
	if (statx(pfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
		  STATX_TYPE | STATX_MODE | STATX_INO | STATX_UID | STATX_GID | STATX_SIZE |
			  STATX_CTIME | STATX_MNT_ID,
		  &stx) != 0 ||
	    !S_ISREG(stx.stx_mode) || stx.stx_ino != ino) {
		close(pfd);
		return -EINVAL;
	}
	rp->info = (struct opened_file){
		.dev = makedev(stx.stx_dev_major, stx.stx_dev_minor),
		.ino = stx.stx_ino,
		.size = stx.stx_size,
		.uid = stx.stx_uid,
		.gid = stx.stx_gid,
		.mode = stx.stx_mode,
		.ctime_ns = (uint64_t)stx.stx_ctime.tv_sec * 1000000000u + stx.stx_ctime.tv_nsec,
	};
	if (stx.stx_mask & STATX_MNT_ID)
		rp->info.fs = local_fs(rq->pid, stx.stx_mnt_id);
	if (rp->info.fs.kind != FS_LOCAL)
		return pfd;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != ino) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static void serve(int sock, void *arg)
{
	struct open_request rq;
	int fd_in;

	(void)arg;
	for (;;) {
		ssize_t n = helper_recv(sock, &rq, sizeof(rq), &fd_in);
		struct open_reply rp = { 0 };
		int fd;

		if (fd_in >= 0)
			close(fd_in);
		if (n <= 0)
			return;
		fd = n == sizeof(rq) ? open_mapped(&rq, &rp) : -EINVAL;
		rp.err = fd < 0 ? -fd : 0;
		if (!helper_send(sock, &rp, sizeof(rp), fd >= 0 ? fd : -1))
			return;
		if (fd >= 0)
			close(fd);
	}
}

static bool confine(void *arg)
{
	static const int caps[] = { CAP_DAC_READ_SEARCH, CAP_SYS_PTRACE, CAP_CHECKPOINT_RESTORE };

	(void)arg;
	return keep_only(caps, sizeof(caps) / sizeof(caps[0]), true);
}

bool opener_start(struct opener *o)
{
	*o = (struct opener){ 0 };
	return helper_spawn(&o->h, "file opener", confine, serve, NULL, false);
}

void opener_stop(struct opener *o)
{
	helper_stop(&o->h);
}

int opener_open(struct opener *o, uint32_t pid, uint64_t start, uint64_t end,
		struct opened_file *info)
{
	struct open_request rq = { .pid = pid, .start = start, .end = end };
	struct open_reply rp;
	int fd;

	if (!helper_call(&o->h, &rq, sizeof(rq), -1, &rp, sizeof(rp), &fd))
		return -1;
	if (rp.err || fd < 0) {
		if (fd >= 0)
			close(fd);
		o->refused++;
		errno = rp.err ? rp.err : EIO;
		return -1;
	}
	o->served++;
	*info = rp.info;
	return fd;
}
