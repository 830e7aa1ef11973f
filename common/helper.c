#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"

/* Long enough for an open on a slow network file system, short enough
 * that the rings (sized for 100 ms of samples) lose only that much. */
#define HELPER_TIMEOUT_MS 1000
#define HELPER_SOCK 3

/* In the child: nothing of the main process's but the socket and stderr
 * (not the capture, the BPF objects, the perf events). */
static void child_fds(int sock)
{
	int null = open("/dev/null", O_RDWR);

	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
	    dup2(sock, HELPER_SOCK) < 0)
		_exit(1);
	if (close_range(HELPER_SOCK + 1, ~0u, 0) != 0) {
		for (int fd = HELPER_SOCK + 1; fd < 65536; fd++)
			close(fd);
	}
}

bool helper_spawn(struct helper *h, const char *name, bool (*confine)(void *arg),
		  void (*serve)(int sock, void *arg), void *arg, bool finishes_alone)
{
	int sv[2];
	pid_t parent = getpid();

	*h = (struct helper){ .name = name, .pid = -1, .sock = -1, .timeout_ms = HELPER_TIMEOUT_MS };
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		warn("%s: socketpair", name);
		return false;
	}
	fflush(stderr);
	h->pid = fork();
	if (h->pid < 0) {
		warn("%s: fork", name);
		close(sv[0]);
		close(sv[1]);
		return false;
	}
	if (h->pid == 0) {
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		child_fds(sv[1]);
		if (!confine(arg))
			_exit(1);
		/* After confine(): a change of credentials clears it.  The
		 * socket is the main process's only copy (its descriptor is
		 * close-on-exec, and other helpers close what they inherit),
		 * so one that finishes alone still ends with it. */
		if (!finishes_alone &&
		    (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent))
			_exit(1);
		serve(HELPER_SOCK, arg);
		_exit(0);
	}
	close(sv[1]);
	h->sock = sv[0];
	return true;
}

/* Kills h's process and reaps it if it dies within 10 ms.  It may not: a
 * request a FUSE server has read and never answers waits uninterruptibly,
 * SIGKILL or not, until the server answers or goes.  The main process
 * must not wait with it.  Returns the pid left to reap, or 0. */
static pid_t stop(struct helper *h, const char *why)
{
	pid_t pid = h->pid;

	if (why)
		warnx("%s: %s; going on without it", h->name, why);
	if (h->sock >= 0)
		close(h->sock);
	h->sock = -1;
	h->pid = -1;
	if (pid <= 0)
		return 0;
	kill(pid, SIGKILL);
	for (int i = 0; i < 10; i++) {
		if (waitpid(pid, NULL, WNOHANG) != 0)
			return 0;
		usleep(1000);
	}
	return pid;
}

pid_t helper_kill(struct helper *h)
{
	return stop(h, NULL);
}

void helper_stop(struct helper *h)
{
	if (h->sock >= 0)
		close(h->sock);
	h->sock = -1;
	/* It exits when it reads the end of its socket. */
	if (h->pid > 0)
		waitpid(h->pid, NULL, 0);
	h->pid = -1;
}

/* Up to this many descriptors go with one message. */
#define MAX_FDS 16

bool helper_send_fds(int sock, const void *buf, size_t len, const int *fds, size_t nfds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(MAX_FDS * sizeof(int))];
	} ctl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds > MAX_FDS)
		return false;
	if (nfds) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len;
}

bool helper_send(int sock, const void *buf, size_t len, int fd)
{
	return helper_send_fds(sock, buf, len, &fd, fd >= 0);
}

ssize_t helper_recv_fds(int sock, void *buf, size_t len, int *fds, size_t max, size_t *nfds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(MAX_FDS * sizeof(int))];
	} ctl;
	struct iovec iov = { buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	ssize_t n;

	*nfds = 0;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); n >= 0 && c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(sizeof(int)))
			continue;
		/* Past what the caller takes, descriptors are closed. */
		int got_n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (int i = 0; i < got_n; i++) {
			int got;
			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*nfds < max)
				fds[(*nfds)++] = got;
			else
				close(got);
		}
	}
	if (n >= 0 && (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		while (*nfds)
			close(fds[--*nfds]);
		errno = EMSGSIZE;
		return -1;
	}
	return n;
}

ssize_t helper_recv(int sock, void *buf, size_t len, int *fd)
{
	size_t nfds;
	ssize_t n = helper_recv_fds(sock, buf, len, fd, 1, &nfds);

	if (!nfds)
		*fd = -1;
	return n;
}

bool helper_call(struct helper *h, const void *req, size_t reqlen, int fd_in, void *rep,
		 size_t replen, int *fd_out)
{
	struct pollfd p = { .fd = h->sock, .events = POLLIN };
	int fd = -1, ready;
	ssize_t n;

	if (fd_out)
		*fd_out = -1;
	if (h->sock < 0)
		return false;
	if (!helper_send(h->sock, req, reqlen, fd_in)) {
		stop(h, "exited");
		return false;
	}
	do
		ready = poll(&p, 1, h->timeout_ms);
	while (ready < 0 && errno == EINTR);
	if (ready <= 0) {
		stop(h, "no answer in time");
		return false;
	}
	n = helper_recv(h->sock, rep, replen, &fd);
	if (n != (ssize_t)replen) {
		if (fd >= 0)
			close(fd);
		stop(h, n <= 0 ? "exited" : "bad reply");
		return false;
	}
	if (fd_out)
		*fd_out = fd;
	else if (fd >= 0)
		close(fd);
	return true;
}
