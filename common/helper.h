/*
 * Helper processes: privilege separation as OpenSSH and OpenBSD's daemons
 * do it.  prof-sample's main process parses what sampled processes
 * control (ELF files, perf maps, stack bytes) and holds no privilege once
 * sampling starts; the few things that still need privilege are done, on
 * request, by small processes forked before the drop, each confined to its
 * one job, that parse nothing but fixed-size requests.
 *
 * A request is one message on a SOCK_SEQPACKET socket, its reply another,
 * either optionally carrying one descriptor.  A helper that does not reply
 * in time (a FUSE server that never answers its open, say) is killed and
 * the main process goes on without it: it can make prof-sample lose
 * frames, never stall the capture.  prof-symbolize, which needs no
 * privilege, has one helper for the same reason: its file reader.
 */
#ifndef PROF_HELPER_H
#define PROF_HELPER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct helper {
	const char *name; /* for messages: "file opener" */
	pid_t pid;
	int sock; /* -1: not running (never started, exited or killed) */
	int timeout_ms;
};

/* Forks a helper.  The child closes every descriptor but its socket and
 * stderr, ignores SIGINT, SIGTERM and SIGPIPE (a Ctrl-C is the main
 * process's to handle; the helper ends when the main process closes the
 * socket), calls confine(arg), and if that succeeds answers requests with
 * serve(sock, arg) until the socket closes.  If the main process dies, the
 * helper is killed with it, unless finishes_alone: then serve() reads the
 * end of its socket, which the kernel closes with the main process, and
 * may finish its work (a file renamed into place) before it returns.
 * Returns false, with a message, if the helper could not start. */
bool helper_spawn(struct helper *h, const char *name, bool (*confine)(void *arg),
		  void (*serve)(int sock, void *arg), void *arg, bool finishes_alone);

/* Sends a request (with fd_in, or -1) and waits for its reply of exactly
 * replen bytes (with a descriptor in *fd_out, or -1, if fd_out is given).
 * False if the helper is not running, or failed to answer in time: it is
 * then killed, with a message (and reaped if it can die). */
bool helper_call(struct helper *h, const void *req, size_t reqlen, int fd_in, void *rep,
		 size_t replen, int *fd_out);

/* Closes the socket and reaps the helper. */
void helper_stop(struct helper *h);

/* Kills the helper and reaps it, quietly: for helpers that are started
 * again when needed.  One waiting on a FUSE server that read its request
 * and never answers cannot die until the server answers or goes: its pid
 * is returned, for the caller to reap later (waitpid WNOHANG); else 0. */
pid_t helper_kill(struct helper *h);

/* For serve(): one message of at most len bytes and its descriptor (or -1
 * in *fd); returns its length, 0 when the main process has gone. */
ssize_t helper_recv(int sock, void *buf, size_t len, int *fd);
bool helper_send(int sock, const void *buf, size_t len, int fd);

/* The same with up to 16 descriptors, in order: at most max are taken
 * (their number in *nfds), any others closed. */
ssize_t helper_recv_fds(int sock, void *buf, size_t len, int *fds, size_t max, size_t *nfds);
bool helper_send_fds(int sock, const void *buf, size_t len, const int *fds, size_t nfds);

#endif
