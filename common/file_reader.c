#include "file_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
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
#include "clock.h"
#include "file_reader_wire.h"

/* Readers killed while waiting on a FUSE server that read their request
 * cannot die before it answers or goes.  Past this many such, no more are
 * started: a user stopping servers must not fill the process table. */
#define MAX_STUCK 4

struct queued {
	uint64_t tag;
	uint32_t op;
	unsigned how;
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
	struct progress *progress; /* shared with the reader */
	uint64_t dead[FILE_READER_MAX_STALLS];
	size_t ndead;
	bool local_only; /* FILE_READER_MAX_STALLS stalls: only local file systems */
	struct file_reader_stats st;
};

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
	r->progress = mmap(NULL, sizeof(*r->progress), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r->progress == MAP_FAILED)
		err(EXIT_USAGE, "file reader: mmap");
	return r;
}

static void count(struct file_reader *r, int fd, int err, const struct opened_file *info)
{
	r->st.given_up += err == ETIMEDOUT;
	if (fd < 0)
		r->st.failed++;
	else if (info->fs.kind != FS_LOCAL)
		r->st.copied++;
	else
		r->st.opened++;
}

/* The queued request q is done: its file is fd (or none: err). */
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
	count(r, fd, err, &res.info);
	if (r->done)
		r->done(r->ctx, &res);
	else if (fd >= 0)
		close(fd);
}

void file_reader_free(struct file_reader *r)
{
	if (!r)
		return;
	/* Idle, it waits on nothing but its socket, and ends when it reads
	 * the end of it: waited for, so that no reader outlives its caller
	 * (a service manager would see one).  A bounded wait after SIGKILL
	 * was not enough: an ASan build's exit, on a busy host, takes longer. */
	if (!r->in_flight && r->h.pid > 0)
		helper_stop(&r->h);
	kill_reader(r);
	for (size_t i = r->in_flight ? r->head - 1 : r->head; i < r->n; i++) {
		if (r->q[i].fd >= 0)
			close(r->q[i].fd);
		free(r->q[i].path);
	}
	munmap(r->progress, sizeof(*r->progress));
	free(r->q);
	free(r);
}

static void enqueue(struct file_reader *r, const struct queued *q)
{
	/* Done with entries move out of the way when nothing is in flight. */
	if (!r->in_flight && r->head == r->n)
		r->head = r->n = 0;
	r->q = xreserve(r->q, &r->cap, r->n + 1, sizeof(*r->q));
	r->q[r->n++] = *q;
	send_next(r);
}

void file_reader_copy(struct file_reader *r, uint64_t tag, int pfd)
{
	enqueue(r, &(struct queued){ .tag = tag, .op = OP_COPY, .fd = pfd });
}

void file_reader_open(struct file_reader *r, uint64_t tag, const char *path, unsigned how)
{
	enqueue(r, &(struct queued){ .tag = tag, .op = OP_OPEN, .how = how, .fd = -1,
				     .path = xstrdup(path) });
}

/* Fills the request's header: its op, its tag, and what holds for all. */
static void request_header(struct file_reader *r, struct read_request *rq, uint32_t op,
			   uint64_t tag, bool waited)
{
	rq->tag = tag;
	rq->op = op;
	rq->npaths = rq->len = 0;
	rq->ndead = (uint32_t)r->ndead;
	rq->cpu = waited ? sched_getcpu() : -1;
	memcpy(rq->dead, r->dead, sizeof(rq->dead));
}

/* Adds path to an OP_OPEN request, in run (0 or 1: runs next to each
 * other differ); false if it is full.  A path longer than a path can be is
 * sent empty: no file has that name. */
static bool request_path(struct file_reader *r, struct read_request *rq, const char *path,
			 unsigned how, uint8_t run)
{
	size_t k = strnlen(path, PATH_MAX);

	if (k == PATH_MAX)
		k = 0;
	if (rq->npaths == FILE_READER_MAX_PATHS)
		return false;
	memcpy(rq->paths + rq->len, path, k);
	rq->paths[rq->len + k] = '\0';
	rq->len += (uint32_t)k + 1;
	rq->how[rq->npaths] = (uint8_t)(how | (r->local_only ? FILE_READER_LOCAL : 0));
	rq->run[rq->npaths++] = run;
	return true;
}

static bool send_request(struct file_reader *r, const struct read_request *rq, int fd)
{
	memset(r->progress, 0, sizeof(*r->progress));
	if (!helper_send(r->h.sock, rq, offsetof(struct read_request, paths) + rq->len, fd)) {
		kill_reader(r);
		return false;
	}
	r->sent_ns = monotonic_ns();
	return true;
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
	if (!helper_spawn(&r->h, "file reader", file_reader_confine, file_reader_serve, r->progress, false)) {
		r->failed_starts++;
		return false;
	}
	r->failed_starts = 0;
	r->st.started++;
	return true;
}

void file_reader_start(struct file_reader *r)
{
	start(r);
}

/* Sends the next request, if any and none is in flight. */
static void send_next(struct file_reader *r)
{
	static struct read_request rq;

	while (!r->in_flight && r->head < r->n) {
		struct queued *q = &r->q[r->head++];
		if (!start(r)) {
			finish(r, q, -1, EAGAIN, NULL);
			continue;
		}
		request_header(r, &rq, q->op, q->tag, false);
		if (q->op == OP_OPEN)
			request_path(r, &rq, q->path, q->how, 0);
		else
			rq.how[0] = r->local_only ? FILE_READER_LOCAL : 0;
		if (!send_request(r, &rq, q->fd)) {
			finish(r, q, -1, EIO, NULL);
			continue;
		}
		r->in_flight = true;
	}
}

/* After a stall: the mount the reader was asking when it was killed (it
 * asks nothing more, dead or held in the kernel) is not asked again.  Not
 * the kernel's (a lookup in /proc may wait on a process's locks, not on a
 * server) nor a local one (no user can hold it up; giving up the root
 * would give up everything): only that file is given up then. */
static void give_up_mount(struct file_reader *r)
{
	uint64_t mnt_id = __atomic_load_n(&r->progress->asking.mnt_id, __ATOMIC_RELAXED);
	uint32_t pid = __atomic_load_n(&r->progress->asking.pid, __ATOMIC_RELAXED);
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
	static struct read_reply rp;
	struct pollfd p = { .fd = r->h.sock, .events = POLLIN };
	struct queued *q = &r->q[r->head - 1];
	int fd = -1, ready;
	size_t nfds;
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
	n = helper_recv_fds(r->h.sock, &rp, sizeof(rp), &fd, 1, &nfds);
	r->in_flight = false;
	if (n != (ssize_t)(offsetof(struct read_reply, run) + sizeof(rp.run[0])) ||
	    rp.tag != q->tag || rp.nruns != 1 || (nfds == 1) != (rp.run[0].err == 0)) {
		if (nfds)
			close(fd);
		kill_reader(r);
		finish(r, q, -1, EIO, NULL);
		return;
	}
	if (rp.run[0].err) {
		finish(r, q, -1, rp.run[0].err, NULL);
		return;
	}
	finish(r, q, fd, 0, &rp.run[0].info);
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

/* One request for the places of the files not found yet, from where
 * each got to (from[j]), and its answer.  If it does not come (a path
 * that was not done with in time: its reader is killed), that path is
 * given up and the other runs asked again.  False if no reader could
 * start. */
static bool ask(struct file_reader *r, struct file_places *g, size_t ng, size_t *from)
{
	static struct read_request rq;
	static struct read_reply reply;
	uint32_t grp[FILE_READER_MAX_PATHS], idx[FILE_READER_MAX_PATHS];

	uint8_t parity = 0;

	if (!start(r))
		return false;
	request_header(r, &rq, OP_OPEN, 0, true);
	for (size_t j = 0; j < ng; j++) {
		if (g[j].fd >= 0 || from[j] >= g[j].n)
			continue;
		for (size_t i = from[j]; i < g[j].n; i++) {
			grp[rq.npaths] = (uint32_t)j;
			idx[rq.npaths] = (uint32_t)i;
			if (!request_path(r, &rq, g[j].paths[i], g[j].how[i], parity))
				goto full;
		}
		parity ^= 1;
	}
full:
	if (!send_request(r, &rq, -1)) {
		/* Gone: its first path is given up, the rest asked again. */
		if (g[grp[0]].err)
			g[grp[0]].err[idx[0]] = EIO;
		from[grp[0]]++;
		return true;
	}
	/* The answer, or what the reader did before it was killed: each path
	 * has FILE_READER_TIMEOUT_MS. */
	struct pollfd pfd = { .fd = r->h.sock, .events = POLLIN };
	int fds[FILE_READER_MAX_PATHS], ready;
	size_t nfds = 0, used = 0;
	uint32_t was_at = 0, at_now;
	ssize_t n = -1;
	for (;;) {
		do
			ready = poll(&pfd, 1, FILE_READER_TIMEOUT_MS);
		while (ready < 0 && errno == EINTR);
		at_now = __atomic_load_n(&r->progress->at, __ATOMIC_RELAXED);
		if (ready != 0 || at_now == was_at)
			break;
		was_at = at_now;
	}
	if (ready > 0)
		n = helper_recv_fds(r->h.sock, &reply, sizeof(reply), fds, FILE_READER_MAX_PATHS,
				    &nfds);
	uint32_t nruns = 0;
	for (uint32_t k = 0; k < rq.npaths; k++)
		nruns += !k || grp[k] != grp[k - 1];
	if (n != (ssize_t)(offsetof(struct read_reply, run) + nruns * sizeof(reply.run[0])) ||
	    reply.nruns != nruns) {
		/* None: the path it was at is given up (it stalled, or the
		 * reader died on it), and the runs it had answered are
		 * asked again with the rest. */
		uint32_t at = __atomic_load_n(&r->progress->at, __ATOMIC_RELAXED);
		int err = ready == 0 ? ETIMEDOUT : EIO;
		while (nfds)
			close(fds[--nfds]);
		if (ready == 0)
			r->st.stalled++;
		kill_reader(r);
		if (ready == 0)
			give_up_mount(r);
		if (at >= rq.npaths)
			at = 0;
		for (uint32_t i = at; i > 0 && grp[i - 1] == grp[at]; i--) {
			int e = __atomic_load_n(&r->progress->err[i - 1], __ATOMIC_RELAXED);
			if (g[grp[at]].err)
				g[grp[at]].err[idx[i - 1]] = e;
			count(r, -1, e, NULL);
		}
		if (g[grp[at]].err)
			g[grp[at]].err[idx[at]] = err;
		count(r, -1, err, NULL);
		from[grp[at]] = idx[at] + 1;
		return true;
	}
	for (uint32_t k = 0, run = 0, run_end; k < rq.npaths; k = run_end, run++) {
		struct file_places *p = &g[grp[k]];
		struct run_answer *a = &reply.run[run];
		for (run_end = k; run_end < rq.npaths && grp[run_end] == grp[k]; run_end++)
			;
		uint32_t at = a->err == 0 && a->which >= k && a->which < run_end && used < nfds
				      ? a->which
				      : run_end;
		for (uint32_t i = k; i < at; i++) {
			int e = __atomic_load_n(&r->progress->err[i], __ATOMIC_RELAXED);
			if (p->err)
				p->err[idx[i]] = e;
			count(r, -1, e, NULL);
		}
		if (at < run_end) {
			p->fd = fds[used++];
			p->which = idx[at];
			p->info = a->info;
			count(r, p->fd, 0, &a->info);
		}
		from[grp[k]] = p->fd >= 0 ? p->n : idx[run_end - 1] + 1;
	}
	while (used < nfds)
		close(fds[used++]);
	return true;
}

void file_reader_open_groups(struct file_reader *r, struct file_places *g, size_t ng)
{
	size_t *from = xcalloc(ng + 1, sizeof(*from));
	bool more = true;

	/* What prof-sample queued comes first. */
	while (file_reader_busy(r))
		file_reader_poll(r, FILE_READER_TIMEOUT_MS);
	for (size_t j = 0; j < ng; j++) {
		g[j].fd = -1;
		g[j].which = g[j].n;
	}
	while (more) {
		more = false;
		for (size_t j = 0; j < ng; j++)
			more = more || (g[j].fd < 0 && from[j] < g[j].n);
		if (more && !ask(r, g, ng, from)) {
			for (size_t j = 0; j < ng; j++)
				for (; g[j].fd < 0 && from[j] < g[j].n; from[j]++)
					if (g[j].err)
						g[j].err[from[j]] = EAGAIN;
			more = false;
		}
	}
	free(from);
}

int file_reader_open_first(struct file_reader *r, const char *const *paths, const unsigned *how,
			   size_t n, size_t *which, int *err, struct opened_file *info)
{
	struct file_places p = { .paths = paths, .how = how, .n = n, .err = err };

	file_reader_open_groups(r, &p, 1);
	*which = p.which;
	if (p.fd >= 0)
		*info = p.info;
	return p.fd;
}

int file_reader_open_wait(struct file_reader *r, const char *path, unsigned how,
			  struct opened_file *info)
{
	size_t which;
	int err = EIO, fd = file_reader_open_first(r, &path, &how, 1, &which, &err, info);

	if (fd < 0)
		errno = err;
	return fd;
}
