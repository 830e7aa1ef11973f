#include "file_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "helper.h"
#include "local_fs.h"
#include "path_walk.h"

enum { OP_COPY = 1, OP_OPEN = 2 };

/* Readers killed while waiting on a FUSE server that read their request
 * cannot die before it answers or goes.  Past this many such, no more are
 * started: a user stopping servers must not fill the process table. */
#define MAX_STUCK 4

struct read_request {
	uint64_t tag;
	uint32_t op, how, len, ndead;
	uint64_t dead[FILE_READER_MAX_STALLS]; /* mounts not to ask */
	char path[PATH_MAX];		       /* OP_OPEN: len bytes, then a NUL */
};

struct read_reply {
	uint64_t tag;
	int32_t err;
	uint32_t reserved;
	struct opened_file info;
};

struct queued {
	uint64_t tag;
	uint32_t op, how;
	int fd;	     /* OP_COPY: the O_PATH descriptor */
	char *path;  /* OP_OPEN */
	bool waited; /* by file_reader_open_wait() */
};

struct file_reader {
	struct helper h;
	file_reader_done *done;
	void *ctx;
	struct queued *q; /* q[head..n) waiting, q[head - 1] in flight if busy */
	size_t head, n, cap;
	bool in_flight;
	uint64_t sent_ns;
	unsigned failed_starts; /* in a row: past a few, no more are tried */
	pid_t stuck[MAX_STUCK]; /* killed, and not dead yet */
	size_t nstuck;
	bool said_stuck;
	struct walk_asking *asking; /* shared with the reader */
	uint64_t dead[FILE_READER_MAX_STALLS];
	size_t ndead;
	bool local_only; /* FILE_READER_MAX_STALLS stalls: only local file systems */
	bool waiting;	 /* for the answer in waited */
	struct read_result waited;
	struct file_reader_stats st;
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- the reader, in its own process ------------------------------------- */

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

	if (statx(pfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MNT_ID, &stx) != 0 ||
	    !S_ISREG(stx.stx_mode)) {
		close(pfd);
		return -EINVAL;
	}
	if (!walk_may_ask(w, &stx, pid)) {
		close(pfd);
		return -errno;
	}
	if (may_give && (stx.stx_mask & STATX_MNT_ID))
		info->fs = local_fs(pid, stx.stx_mnt_id);
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

static int serve_one(const struct read_request *rq, size_t len, int fd_in,
		     struct walk_asking *asking, struct opened_file *info)
{
	struct walk_rules w = { .dead = rq->dead, .ndead = rq->ndead,
				.local_only = rq->how & FILE_READER_LOCAL, .asking = asking };
	uint32_t pid;
	int pfd;

	if (rq->ndead > FILE_READER_MAX_STALLS)
		return -EINVAL;
	if (rq->op == OP_COPY && fd_in >= 0) {
		if ((pfd = fcntl(fd_in, F_DUPFD_CLOEXEC, 0)) < 0)
			return -errno;
		return serve_file(pfd, 0, false, &w, info);
	}
	if (rq->op == OP_OPEN && rq->len < PATH_MAX &&
	    len == offsetof(struct read_request, path) + rq->len + 1 && rq->path[rq->len] == '\0') {
		pfd = path_walk(rq->path, rq->how & FILE_READER_FOLLOW ? 0 : O_NOFOLLOW, &w, &pid);
		return pfd < 0 ? -errno : serve_file(pfd, pid, true, &w, info);
	}
	return -EINVAL;
}

static void serve(int sock, void *arg)
{
	static struct read_request rq;
	int fd_in;

	for (;;) {
		ssize_t n = helper_recv(sock, &rq, sizeof(rq), &fd_in);
		struct read_reply rp = { .tag = rq.tag };
		int fd;

		if (n <= 0) {
			if (fd_in >= 0)
				close(fd_in);
			return;
		}
		fd = (size_t)n >= offsetof(struct read_request, path)
			     ? serve_one(&rq, (size_t)n, fd_in, arg, &rp.info)
			     : -EINVAL;
		if (fd_in >= 0)
			close(fd_in);
		rp.tag = rq.tag;
		rp.err = fd < 0 ? -fd : 0;
		if (!helper_send(sock, &rp, sizeof(rp), fd >= 0 ? fd : -1))
			return;
		if (fd >= 0)
			close(fd);
	}
}

/* As unprivileged as the process that started it already.  Its stderr
 * goes too: a reader that a server holds past its kill keeps what it has
 * open, and a pipe that stays open keeps its reader waiting (a shell's
 * $(...), the next stage of a pipeline). */
static bool confine(void *arg)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)arg;
	if (null < 0 || dup2(null, STDERR_FILENO) < 0)
		return false;
	close(null);
	return true;
}

/* --- the main process's side -------------------------------------------- */

static void send_next(struct file_reader *r);
static void kill_reader(struct file_reader *r);

struct file_reader *file_reader_new(file_reader_done *done, void *ctx)
{
	struct file_reader *r = xcalloc(1, sizeof(*r));

	r->h.sock = -1;
	r->h.pid = -1;
	r->done = done;
	r->ctx = ctx;
	r->asking = mmap(NULL, sizeof(*r->asking), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r->asking == MAP_FAILED)
		err(EXIT_USAGE, "file reader: mmap");
	return r;
}

static void finish(struct file_reader *r, struct queued *q, int fd, int err,
		   const struct opened_file *info)
{
	struct read_result res = { .tag = q->tag, .fd = fd, .err = err };

	if (info)
		res.info = *info;
	if (q->fd >= 0)
		close(q->fd);
	free(q->path);
	q->fd = -1;
	q->path = NULL;
	r->st.given_up += err == ETIMEDOUT;
	if (fd < 0)
		r->st.failed++;
	else if (info && info->fs.kind != FS_LOCAL)
		r->st.copied++;
	else
		r->st.opened++;
	if (q->waited) {
		r->waited = res;
		r->waiting = false;
	} else if (r->done) {
		r->done(r->ctx, &res);
	} else if (fd >= 0) {
		close(fd);
	}
}

void file_reader_free(struct file_reader *r)
{
	if (!r)
		return;
	kill_reader(r);
	for (size_t i = r->in_flight ? r->head - 1 : r->head; i < r->n; i++) {
		if (r->q[i].fd >= 0)
			close(r->q[i].fd);
		free(r->q[i].path);
	}
	munmap(r->asking, sizeof(*r->asking));
	free(r->q);
	free(r);
}

static void enqueue(struct file_reader *r, const struct queued *q)
{
	/* Done with entries move out of the way when nothing is in flight. */
	if (!r->in_flight && r->head == r->n)
		r->head = r->n = 0;
	r->q = xreserve(r->q, &r->cap, r->n + 1, sizeof(*r->q));
	r->q[r->n] = *q;
	r->q[r->n++].path = q->path ? xstrdup(q->path) : NULL;
	send_next(r);
}

void file_reader_copy(struct file_reader *r, uint64_t tag, int pfd)
{
	enqueue(r, &(struct queued){ .tag = tag, .op = OP_COPY, .fd = pfd });
}

void file_reader_open(struct file_reader *r, uint64_t tag, const char *path, unsigned how)
{
	enqueue(r, &(struct queued){ .tag = tag, .op = OP_OPEN, .how = how, .fd = -1,
				     .path = (char *)path });
}

int file_reader_open_wait(struct file_reader *r, const char *path, unsigned how,
			  struct opened_file *info)
{
	r->waiting = true;
	enqueue(r, &(struct queued){ .op = OP_OPEN, .how = how, .fd = -1, .path = (char *)path,
				     .waited = true });
	while (r->waiting)
		file_reader_poll(r, FILE_READER_TIMEOUT_MS);
	if (r->waited.fd < 0) {
		errno = r->waited.err ? r->waited.err : EIO;
		return -1;
	}
	*info = r->waited.info;
	return r->waited.fd;
}

/* Kills the reader; one that cannot die yet is remembered, to reap. */
static void kill_reader(struct file_reader *r)
{
	pid_t pid = helper_kill(&r->h);

	if (pid > 0 && r->nstuck < MAX_STUCK)
		r->stuck[r->nstuck++] = pid;
}

static void reap_stuck(struct file_reader *r)
{
	for (size_t i = 0; i < r->nstuck;)
		if (waitpid(r->stuck[i], NULL, WNOHANG) != 0)
			r->stuck[i] = r->stuck[--r->nstuck];
		else
			i++;
}

static bool start(struct file_reader *r)
{
	if (r->h.sock >= 0)
		return true;
	reap_stuck(r);
	if (r->nstuck >= MAX_STUCK) {
		if (!r->said_stuck)
			warnx("file reader: %d readers wait on file systems that do not answer; files "
			      "not on a local file system stay unresolved until they do",
			      MAX_STUCK);
		r->said_stuck = true;
		return false;
	}
	if (r->failed_starts >= 3)
		return false;
	if (!helper_spawn(&r->h, "file reader", confine, serve, r->asking, false)) {
		r->failed_starts++;
		return false;
	}
	r->failed_starts = 0;
	r->st.started++;
	return true;
}

/* Sends the next request, if any and none is in flight. */
static void send_next(struct file_reader *r)
{
	static struct read_request rq;

	while (!r->in_flight && r->head < r->n) {
		struct queued *q = &r->q[r->head++];
		size_t len = offsetof(struct read_request, path);
		if (!start(r)) {
			finish(r, q, -1, EAGAIN, NULL);
			continue;
		}
		rq.tag = q->tag;
		rq.op = q->op;
		rq.how = q->how | (r->local_only ? FILE_READER_LOCAL : 0);
		rq.ndead = (uint32_t)r->ndead;
		memcpy(rq.dead, r->dead, sizeof(rq.dead));
		rq.len = 0;
		if (q->path) {
			rq.len = (uint32_t)strnlen(q->path, PATH_MAX - 1);
			memcpy(rq.path, q->path, rq.len);
			rq.path[rq.len] = '\0';
			len += rq.len + 1;
		}
		*r->asking = (struct walk_asking){ 0 };
		if (!helper_send(r->h.sock, &rq, len, q->fd)) {
			kill_reader(r);
			finish(r, q, -1, EIO, NULL);
			continue;
		}
		r->in_flight = true;
		r->sent_ns = monotonic_ns();
	}
}

/* After a stall: the mount the reader was asking when it was killed (it
 * asks nothing more, dead or held in the kernel) is not asked again.  Not
 * the kernel's (a lookup in /proc may wait on a process's locks, not on a
 * server) nor a local one (no user can hold it up; giving up the root
 * would give up everything): only that file is given up then. */
static void give_up_mount(struct file_reader *r)
{
	uint64_t mnt_id = __atomic_load_n(&r->asking->mnt_id, __ATOMIC_RELAXED);
	uint32_t pid = __atomic_load_n(&r->asking->pid, __ATOMIC_RELAXED);
	enum fs_kind kind = mnt_id ? local_fs(pid, mnt_id).kind : FS_LOCAL;

	if (kind != FS_LOCAL && kind != FS_KERNEL && r->ndead < FILE_READER_MAX_STALLS)
		r->dead[r->ndead++] = mnt_id;
	if (r->st.stalled >= FILE_READER_MAX_STALLS && !r->local_only) {
		r->local_only = true;
		warnx("file reader: %d times a file system did not answer in %d s: only local file "
		      "systems are read from now on",
		      FILE_READER_MAX_STALLS, FILE_READER_TIMEOUT_MS / 1000);
	}
}

/* The answer to the request in flight, if it has come within wait_ms. */
static void take_answer(struct file_reader *r, int wait_ms)
{
	struct pollfd p = { .fd = r->h.sock, .events = POLLIN };
	struct queued *q = &r->q[r->head - 1];
	struct read_reply rp;
	int fd = -1, ready;
	ssize_t n;

	do
		ready = poll(&p, 1, wait_ms);
	while (ready < 0 && errno == EINTR);
	if (ready == 0) {
		if (monotonic_ns() - r->sent_ns < FILE_READER_TIMEOUT_MS * 1000000ull)
			return;
		/* Waiting on a file system that does not answer: it is
		 * killed (SIGKILL ends a wait on a FUSE server) with it. */
		r->st.stalled++;
		kill_reader(r);
		give_up_mount(r);
		r->in_flight = false;
		finish(r, q, -1, ETIMEDOUT, NULL);
		return;
	}
	n = helper_recv(r->h.sock, &rp, sizeof(rp), &fd);
	r->in_flight = false;
	if (n != (ssize_t)sizeof(rp) || rp.tag != q->tag) {
		if (fd >= 0)
			close(fd);
		kill_reader(r);
		finish(r, q, -1, EIO, NULL);
		return;
	}
	if (rp.err || fd < 0) {
		if (fd >= 0)
			close(fd);
		finish(r, q, -1, rp.err ? rp.err : EIO, NULL);
		return;
	}
	finish(r, q, fd, 0, &rp.info);
}

void file_reader_poll(struct file_reader *r, int settle_ms)
{
	uint64_t until = monotonic_ns() + (uint64_t)settle_ms * 1000000u;

	for (;;) {
		send_next(r);
		if (!r->in_flight)
			return;
		uint64_t now = monotonic_ns();
		int wait_ms = settle_ms && now < until ? (int)((until - now) / 1000000u) + 1 : 0;
		take_answer(r, wait_ms);
		/* Not answered yet, and not to be waited for. */
		if (r->in_flight && (!settle_ms || monotonic_ns() >= until))
			return;
	}
}

bool file_reader_busy(const struct file_reader *r)
{
	return r && (r->in_flight || r->head < r->n);
}

const struct file_reader_stats *file_reader_stats(const struct file_reader *r)
{
	return &r->st;
}
