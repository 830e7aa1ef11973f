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
#include "stream.h"

enum { OP_COPY = 1, OP_OPEN = 2 };

/* Readers killed while waiting on a FUSE server that read their request
 * cannot die before it answers or goes.  Past this many such, no more are
 * started: a user stopping servers must not fill the process table. */
#define MAX_STUCK 4

struct read_request {
	uint64_t tag;
	uint32_t op, len;
	char path[PATH_MAX]; /* OP_OPEN: len bytes, then a NUL */
};

struct read_reply {
	uint64_t tag;
	int32_t err;
	uint32_t reserved;
	struct opened_file info;
};

struct queued {
	uint64_t tag;
	uint32_t op;
	int fd;	    /* OP_COPY: the O_PATH descriptor */
	char *path; /* OP_OPEN */
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
	*info = (struct opened_file){ .dev = st->st_dev,
				      .ino = st->st_ino,
				      .size = (uint64_t)st->st_size,
				      .uid = st->st_uid,
				      .gid = st->st_gid,
				      .mode = st->st_mode };
}

/* The file fd reads: a copy, or with may_give, the file itself if it is
 * on a local file system. */
static int serve_file(int fd, bool may_give, struct opened_file *info)
{
	struct stat st;
	int copy;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	describe(&st, info);
	if (may_give && (info->fs = local_fs_fd(fd)).kind == FS_LOCAL)
		return fd;
	if ((uint64_t)st.st_size > FILE_READER_MAX_COPY) {
		close(fd);
		return -EFBIG;
	}
	copy = copy_of(fd, (uint64_t)st.st_size);
	close(fd);
	return copy;
}

static int serve_one(const struct read_request *rq, size_t len, int fd_in, struct opened_file *info)
{
	char self[64];
	int fd;

	if (rq->op == OP_COPY && fd_in >= 0) {
		/* Through the descriptor: the file the opener checked. */
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd_in);
		fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		return fd < 0 ? -errno : serve_file(fd, false, info);
	}
	if (rq->op == OP_OPEN && len > offsetof(struct read_request, path) && rq->len < PATH_MAX &&
	    len == offsetof(struct read_request, path) + rq->len + 1 && rq->path[rq->len] == '\0') {
		fd = open_regular(rq->path, O_NOFOLLOW);
		return fd < 0 ? -errno : serve_file(fd, true, info);
	}
	return -EINVAL;
}

static void serve(int sock, void *arg)
{
	static struct read_request rq;
	int fd_in;

	(void)arg;
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
			     ? serve_one(&rq, (size_t)n, fd_in, &rp.info)
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

/* Already nobody, without capabilities: what the main process is. */
static bool confine(void *arg)
{
	(void)arg;
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
	if (fd < 0)
		r->st.failed++;
	else if (info && info->fs.kind != FS_LOCAL)
		r->st.copied++;
	else
		r->st.opened++;
	r->done(r->ctx, &res);
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
	free(r->q);
	free(r);
}

static void enqueue(struct file_reader *r, uint64_t tag, uint32_t op, int fd, const char *path)
{
	/* Done with entries move out of the way when nothing is in flight. */
	if (!r->in_flight && r->head == r->n)
		r->head = r->n = 0;
	r->q = xreserve(r->q, &r->cap, r->n + 1, sizeof(*r->q));
	r->q[r->n++] = (struct queued){ .tag = tag, .op = op, .fd = fd,
					 .path = path ? xstrdup(path) : NULL };
	send_next(r);
}

void file_reader_copy(struct file_reader *r, uint64_t tag, int pfd)
{
	enqueue(r, tag, OP_COPY, pfd, NULL);
}

void file_reader_open(struct file_reader *r, uint64_t tag, const char *path)
{
	enqueue(r, tag, OP_OPEN, -1, path);
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
	if (!helper_spawn(&r->h, "file reader", confine, serve, NULL, false)) {
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
		rq.len = 0;
		if (q->path) {
			rq.len = (uint32_t)strnlen(q->path, PATH_MAX - 1);
			memcpy(rq.path, q->path, rq.len);
			rq.path[rq.len] = '\0';
			len += rq.len + 1;
		}
		if (!helper_send(r->h.sock, &rq, len, q->fd)) {
			kill_reader(r);
			finish(r, q, -1, EIO, NULL);
			continue;
		}
		r->in_flight = true;
		r->sent_ns = monotonic_ns();
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
