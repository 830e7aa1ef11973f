/*
 * The file reader's process (file_reader.h): it opens paths a mount at a
 * time and copies files not on a local file system, for a caller that
 * kills it when a file system does not answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "file_reader_wire.h"
#include "helper.h"
#include "local_fs.h"

/* A copy of fd's first size bytes in a memfd sealed against change: the
 * main process maps it, and a file that shrank under a mapping would
 * fault it. */
static int copy_of(int fd, uint64_t size)
{
	int m = memfd_create("prof-file-copy", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	off_t at = 0;

	if (m < 0)
		return -errno;
	while ((uint64_t)at < size) {
		ssize_t n = sendfile(m, fd, &at, (size_t)(size - (uint64_t)at));
		if (n <= 0) {
			int err = n < 0 ? errno : EIO;
			close(m);
			return -err;
		}
	}
	if (fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		close(m);
		return -EIO;
	}
	return m;
}

static void describe(const struct stat *st, struct opened_file *info)
{
	info->dev = st->st_dev;
	info->ino = st->st_ino;
	info->size = (uint64_t)st->st_size;
	info->uid = st->st_uid;
	info->gid = st->st_gid;
	info->mode = st->st_mode;
	info->ctime_ns = (uint64_t)st->st_ctim.tv_sec * 1000000000u + (uint64_t)st->st_ctim.tv_nsec;
}

/* The file O_PATH descriptor pfd leads to (taken), its file system asked
 * only if the rules allow: the file itself if it is on a local file system
 * and may_give, else a copy.  pid: whose mounts it is in, for local_fs(). */
static int serve_file(int pfd, uint32_t pid, bool may_give, const struct walk_rules *w,
		      struct opened_file *info)
{
	struct statx stx;
	struct stat st;
	char self[64];
	int fd, copy;

	if (statx(pfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MNT_ID,
		  &stx) != 0 ||
	    !S_ISREG(stx.stx_mode)) {
		close(pfd);
		return -EINVAL;
	}
	if (!walk_may_ask(w, &stx, pid)) {
		close(pfd);
		return -errno;
	}
	if (may_give)
		info->fs = local_fs_of(pfd, pid);
	/* Through the descriptor: the file walked to, or the opener checked. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	describe(&st, info);
	if (may_give && info->fs.kind == FS_LOCAL)
		return fd;
	if ((uint64_t)st.st_size > FILE_READER_MAX_COPY) {
		close(fd);
		return -EFBIG;
	}
	copy = copy_of(fd, (uint64_t)st.st_size);
	close(fd);
	return copy;
}

/* The file at path, walked to as how says. */
static int open_path(const char *path, unsigned how, struct walk_rules *w,
		     struct opened_file *info)
{
	uint32_t pid;
	int pfd;

	w->local_only = how & FILE_READER_LOCAL;
	pfd = path_walk(path, how & FILE_READER_FOLLOW ? 0 : O_NOFOLLOW, w, &pid);
	return pfd < 0 ? -errno : serve_file(pfd, pid, true, w, info);
}

/* Answers each run of an OP_OPEN request in turn, in *rp: the first of
 * its paths that can be opened, or none; why each path was not, in
 * progress->err.  The files' descriptors in fds, *nfds of them. */
static bool serve_paths(const struct read_request *rq, size_t len, struct progress *progress,
			struct read_reply *rp, int *fds, size_t *nfds)
{
	struct walk_rules w = { .dead = rq->dead, .ndead = rq->ndead, .asking = &progress->asking };
	const char *path[FILE_READER_MAX_PATHS], *at = rq->paths;
	const char *end = rq->paths + (len - offsetof(struct read_request, paths));

	for (uint32_t i = 0; i < rq->npaths; i++) {
		const char *nul = memchr(at, '\0', (size_t)(end - at));
		if (!nul)
			return false;
		path[i] = at;
		at = nul + 1;
	}
	for (uint32_t i = 0, run_end; i < rq->npaths; i = run_end) {
		struct run_answer *a = &rp->run[rp->nruns++];
		int fd = -EINVAL;
		for (run_end = i; run_end < rq->npaths && rq->run[run_end] == rq->run[i]; run_end++)
			;
		*a = (struct run_answer){ .which = run_end };
		for (uint32_t k = i; k < run_end; k++) {
			__atomic_store_n(&progress->at, k, __ATOMIC_RELAXED);
			if ((fd = open_path(path[k], rq->how[k], &w, &a->info)) >= 0) {
				a->which = k;
				fds[(*nfds)++] = fd;
				break;
			}
			__atomic_store_n(&progress->err[k], -fd, __ATOMIC_RELAXED);
		}
		a->err = fd < 0 ? -fd : 0;
	}
	return true;
}

/* Runs where the caller waits for it, if it does: it gives up its CPU
 * to the reader as it waits, and a reader woken there starts at once,
 * where one woken on an idle CPU waits for it to wake up (five times the
 * round trip, measured in a virtual machine).  Anywhere it may, if not. */
static void follow(int cpu, const cpu_set_t *anywhere)
{
	static int on = -1;
	cpu_set_t one;

	if (cpu == on || cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&one);
	if (cpu >= 0)
		CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), cpu >= 0 ? &one : anywhere) == 0)
		on = cpu;
}

void file_reader_serve(int sock, void *arg)
{
	static struct read_request rq;
	static struct read_reply rp;
	struct progress *progress = arg;
	int fd_in, fds[FILE_READER_MAX_PATHS];
	cpu_set_t anywhere;

	if (sched_getaffinity(0, sizeof(anywhere), &anywhere) != 0)
		CPU_ZERO(&anywhere);
	for (;;) {
		ssize_t n = helper_recv(sock, &rq, sizeof(rq), &fd_in);
		struct walk_rules w = { .dead = rq.dead, .ndead = rq.ndead,
					.local_only = rq.how[0] & FILE_READER_LOCAL,
					.asking = &progress->asking };
		bool valid = n >= (ssize_t)offsetof(struct read_request, paths) &&
			     rq.ndead <= FILE_READER_MAX_STALLS &&
			     rq.npaths <= FILE_READER_MAX_PATHS;
		size_t nfds = 0;
		int pfd;

		if (n <= 0) {
			if (fd_in >= 0)
				close(fd_in);
			return;
		}
		memset(&rp, 0, offsetof(struct read_reply, run) + sizeof(rp.run[0]));
		rp.tag = rq.tag;
		if (valid && rq.op == OP_OPEN && rq.npaths &&
		    (size_t)n == offsetof(struct read_request, paths) + rq.len &&
		    serve_paths(&rq, (size_t)n, progress, &rp, fds, &nfds)) {
			/* answered */
		} else if (valid && rq.op == OP_COPY && fd_in >= 0) {
			/* A copy of the file the opener checked, through the
			 * descriptor it gave. */
			int fd = (pfd = fcntl(fd_in, F_DUPFD_CLOEXEC, 0)) < 0
					 ? -errno
					 : serve_file(pfd, 0, false, &w, &rp.run[0].info);
			rp.nruns = 1;
			rp.run[0].err = fd < 0 ? -fd : 0;
			if (fd >= 0)
				fds[nfds++] = fd;
		} else {
			while (nfds)
				close(fds[--nfds]);
			rp.nruns = 1;
			rp.run[0] = (struct run_answer){ .err = EINVAL };
		}
		if (fd_in >= 0)
			close(fd_in);
		bool sent = helper_send_fds(sock, &rp,
					    offsetof(struct read_reply, run) +
						    rp.nruns * sizeof(rp.run[0]),
					    fds, nfds);
		while (nfds)
			close(fds[--nfds]);
		if (!sent)
			return;
		if (CPU_COUNT(&anywhere))
			follow(rq.cpu, &anywhere);
	}
}

/* As unprivileged as the process that started it already.  Its stderr
 * goes too: a reader that a server holds past its kill keeps what it has
 * open, and a pipe that stays open keeps its reader waiting (a shell's
 * $(...), the next stage of a pipeline). */
bool file_reader_confine(void *arg)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)arg;
	if (null < 0 || dup2(null, STDERR_FILENO) < 0)
		return false;
	close(null);
	return true;
}
