#include "command.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"

void command_spawn(struct command *c, char **argv, bool stdout_is_capture)
{
	int fds[2], ex[2];
	char byte;

	memset(c, 0, sizeof(*c));
	/* ex is closed by a successful exec, and carries errno otherwise. */
	if (pipe2(fds, O_CLOEXEC) != 0 || pipe2(ex, O_CLOEXEC) != 0)
		err(EXIT_USAGE, "pipe");
	c->pid = fork();
	if (c->pid < 0)
		err(EXIT_USAGE, "fork");
	if (c->pid == 0) {
		close(fds[1]);
		close(ex[0]);
		/* The parent closes its end once the filter is in place. */
		if (read(fds[0], &byte, 1) != 0)
			_exit(127);
		close(fds[0]);
		/* The command must not write into the capture. */
		if (stdout_is_capture && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		int e = errno;
		fprintf(stderr, "prof-sample: %s: %s\n", argv[0], strerror(e));
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[0]);
	close(ex[1]);
	c->go_fd = fds[1];
	c->exec_fd = ex[0];
}

void command_start(struct command *c)
{
	if (c->go_fd > 0) {
		close(c->go_fd);
		c->go_fd = -1;
	}
}

/* The child has been reaped with its status: a failed exec said why. */
static void reaped(struct command *c)
{
	int e;

	c->exited = true;
	/* The child is gone: its end is closed, and the read cannot block. */
	if (c->exec_fd > 0) {
		c->exec_failed = read(c->exec_fd, &e, sizeof(e)) == sizeof(e);
		close(c->exec_fd);
		c->exec_fd = -1;
	}
}

bool command_done(struct command *c)
{
	if (!c->exited && c->pid > 0 && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		reaped(c);
	return c->exited;
}

void command_wait(struct command *c)
{
	pid_t r;

	if (c->exited || c->pid <= 0)
		return;
	while ((r = waitpid(c->pid, &c->status, 0)) < 0 && errno == EINTR)
		;
	if (r == c->pid)
		reaped(c);
}

void command_abort(struct command *c)
{
	if (c->pid > 0 && !c->exited && c->go_fd > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, &c->status, 0);
		c->exited = true;
	}
}

int command_exit_status(const struct command *c)
{
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return EXIT_USAGE;
}
