#include "path_walk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "local_fs.h"

/* Symbolic links followed in one walk, as many as the kernel follows. */
#define MAX_LINKS 40

/* Before Linux 5.6 there is no openat2: every name is walked alone. */
static bool no_openat2;

bool walk_may_ask(const struct walk_rules *w, const struct statx *stx, uint32_t pid)
{
	uint64_t mnt_id = stx->stx_mask & STATX_MNT_ID ? stx->stx_mnt_id : 0;

	for (size_t i = 0; mnt_id && i < w->ndead; i++) {
		if (w->dead[i] == mnt_id) {
			errno = ETIMEDOUT;
			return false;
		}
	}
	/* Without mount ids (before Linux 5.8) nothing can be told. */
	if (w->local_only) {
		enum fs_kind kind = mnt_id ? local_fs(pid, mnt_id).kind : FS_UNKNOWN;
		if (kind != FS_LOCAL && kind != FS_KERNEL) {
			errno = EREMOTE;
			return false;
		}
	}
	if (w->asking) {
		__atomic_store_n(&w->asking->mnt_id, mnt_id, __ATOMIC_RELAXED);
		__atomic_store_n(&w->asking->pid, pid, __ATOMIC_RELAXED);
	}
	return true;
}

/* Whether the directory open as dir may be asked to look a name up; stx
 * is what statx said of it, if it was asked already. */
static bool may_ask_dir(const struct walk_rules *w, int dir, struct statx *stx, uint32_t pid)
{
	/* DONT_SYNC: its mount is known without asking its file system. */
	if (!stx->stx_mask &&
	    statx(dir, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MNT_ID, stx) != 0)
		stx->stx_mask = 0;
	return walk_may_ask(w, stx, pid);
}

/* The root, held open for every walk: most paths start there, and most of
 * them on its mount. */
static int root = -1;
static struct statx root_stx;

static bool have_root(void)
{
	if (root < 0 && (root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0 &&
	    statx(root, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MNT_ID,
		  &root_stx) != 0)
		root_stx.stx_mask = 0;
	return root >= 0;
}

/* The walk goes on from fd: the directory it was at is let go of. */
static void move_to(int *cur, struct statx *stx, int fd, const struct statx *fd_stx)
{
	if (*cur >= 0 && *cur != root)
		close(*cur);
	*cur = fd;
	*stx = fd == root ? root_stx : fd_stx ? *fd_stx : (struct statx){ 0 };
}

/* The walk ends at cur: a descriptor of the caller's. */
static int ended_at(int cur)
{
	return cur == root ? fcntl(root, F_DUPFD_CLOEXEC, 0) : cur;
}

/* path from dir, as far as it stays on dir's mount; EXDEV where it leaves
 * it, through a mount point, a symbolic link or "..". */
static int within_mount(int dir, const char *path, int flags)
{
	struct open_how how = { .flags = (uint64_t)(O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW)),
				.resolve = RESOLVE_NO_XDEV };
	int fd;

	if (no_openat2) {
		errno = EXDEV;
		return -1;
	}
	fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS) {
		no_openat2 = true;
		errno = EXDEV;
	}
	return fd;
}

static bool on_proc(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC;
}

static uint32_t pid_named(const char *name)
{
	char *end;
	unsigned long pid = strtoul(name, &end, 10);

	return name[0] >= '1' && name[0] <= '9' && !*end && pid <= UINT32_MAX ? (uint32_t)pid : 0;
}

int path_walk(const char *path, int flags, const struct walk_rules *w, uint32_t *pid)
{
	char rest[PATH_MAX], target[PATH_MAX], *p = rest;
	size_t len = strlen(path);
	uint32_t proc_pid = 0; /* the walk is in /proc/PID */
	int cur = -1, fd, links = 0, err;
	struct statx stx, cur_stx;

	*pid = 0;
	if (!len || len >= sizeof(rest)) {
		errno = len ? ENAMETOOLONG : ENOENT;
		return -1;
	}
	memcpy(rest, path, len + 1);
	if (!have_root())
		return -1;
	if (path[0] == '/')
		move_to(&cur, &cur_stx, root, NULL);
	else if ((cur = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	else
		cur_stx.stx_mask = 0;
	for (;;) {
		while (*p == '/')
			p++;
		if (!may_ask_dir(w, cur, &cur_stx, *pid))
			goto fail;
		if (!*p)
			return ended_at(cur); /* a directory: "/", or a name and a slash */
		if ((fd = within_mount(cur, p, flags)) >= 0) {
			move_to(&cur, &cur_stx, fd, NULL);
			return cur;
		}
		if (errno != EXDEV)
			goto fail;
		/* The next name alone: one that leaves the mount, or leads to
		 * a link that does. */
		char *name = p, *slash = strchr(p, '/');
		bool last = !slash;
		if (slash)
			*slash = '\0';
		p = slash ? slash + 1 : p + strlen(p);
		if (strcmp(name, ".") == 0)
			continue;
		/* O_DIRECTORY, as the kernel walks a name with more after it:
		 * an automount point is mounted. */
		fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | (last ? 0 : O_DIRECTORY));
		if (fd < 0 && errno == ENOTDIR && !last)
			fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			goto fail;
		if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MNT_ID,
			  &stx) != 0) {
			close(fd);
			goto fail;
		}
		if (!S_ISLNK(stx.stx_mode)) {
			uint32_t named = pid_named(name);
			if (strcmp(name, "..") == 0)
				proc_pid = 0;
			else if (named && on_proc(cur))
				proc_pid = named;
			move_to(&cur, &cur_stx, fd, &stx);
			if (last)
				return cur;
			if (!S_ISDIR(stx.stx_mode)) {
				errno = ENOTDIR;
				goto fail;
			}
			continue;
		}
		if (last && (flags & O_NOFOLLOW)) {
			move_to(&cur, &cur_stx, fd, &stx);
			return cur; /* the link itself, for its caller to refuse */
		}
		if (++links > MAX_LINKS) {
			close(fd);
			errno = ELOOP;
			goto fail;
		}
		if (on_proc(cur)) {
			/* A jump to a process's root or file, or to a name in
			 * /proc: the kernel's to follow, asking no file system. */
			close(fd);
			fd = openat(cur, name, O_PATH | O_CLOEXEC | (last ? 0 : O_DIRECTORY));
			if (fd < 0)
				goto fail;
			if (proc_pid)
				*pid = proc_pid;
			proc_pid = 0;
			move_to(&cur, &cur_stx, fd, NULL);
			if (last)
				return cur;
			continue;
		}
		ssize_t n = readlinkat(fd, "", target, sizeof(target));
		close(fd);
		if (n <= 0 || (size_t)n >= sizeof(target)) {
			errno = n < 0 ? errno : n ? ENAMETOOLONG : ENOENT;
			goto fail;
		}
		/* The rest of the path is the link's text, then what followed
		 * the link; an absolute one starts again from the root (ours,
		 * as the kernel does it, even in another process's root). */
		size_t tail = strlen(p), sep = last ? 0 : 1;
		if ((size_t)n + sep + tail >= sizeof(rest)) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memmove(rest + n + sep, p, tail + 1);
		memcpy(rest, target, (size_t)n);
		if (sep)
			rest[n] = '/';
		p = rest;
		if (target[0] == '/') {
			move_to(&cur, &cur_stx, root, NULL);
			*pid = proc_pid = 0;
		}
	}
fail:
	err = errno;
	if (cur != root)
		close(cur);
	errno = err;
	return -1;
}
