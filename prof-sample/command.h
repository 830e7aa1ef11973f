/*
 * prof-sample -- COMMAND: start the command stopped at the exec, so that
 * its PID is in the filter before it runs a single instruction of its own.
 */
#ifndef PROF_SAMPLE_COMMAND_H
#define PROF_SAMPLE_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

struct command {
	pid_t pid;
	int go_fd;   /* closing it lets the child exec */
	int exec_fd; /* the child's errno arrives here if its exec fails */
	bool exited;
	bool exec_failed; /* it said why itself: nothing else is to be said */
	int status; /* wait status once exited */
};

/* Forks a child that waits, then execs argv.  When the capture goes to
 * stdout, the command's stdout is redirected to stderr.  Exits EXIT_USAGE
 * on error. */
void command_spawn(struct command *c, char **argv, bool stdout_is_capture);

/* Lets the child exec; it reports a failed exec itself and exits 127. */
void command_start(struct command *c);

/* Reaps the child if it has exited; true once it has. */
bool command_done(struct command *c);

/* Waits for the child to exit, as a shell would, and reaps it. */
void command_wait(struct command *c);

/* Kills the child if it has not been started (prof-sample failed). */
void command_abort(struct command *c);

/* The command's exit status as a shell reports it (128 + signal). */
int command_exit_status(const struct command *c);

#endif
