#include "stream.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"

static bool is_std(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

const char *input_name(const char *path)
{
	return is_std(path) ? "<stdin>" : path;
}

FILE *input_open(const char *path)
{
	struct stat st;
	FILE *f;

	if (is_std(path)) {
		/* A Ctrl-C reaches every process of a pipeline.  The capture
		 * stops at its source, prof-sample, which then ends its
		 * output; a stage reading a pipe finishes with what came
		 * through it, rather than dying with its output half
		 * written. */
		if (fstat(STDIN_FILENO, &st) == 0 && S_ISFIFO(st.st_mode))
			signal(SIGINT, SIG_IGN);
		return stdin;
	}
	f = fopen(path, "r");
	if (!f)
		err(EXIT_USAGE, "%s", path);
	return f;
}

/* A capture may hold what is on any process's stack (--keep-stack-bytes)
 * and is written by root: it is made 0600, never through a symbolic link,
 * and never into a file someone else owns (a file another user created in
 * /tmp first would give them what root writes into it). */
static FILE *private_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
	struct stat st;
	FILE *f;

	if (fd < 0) {
		/* ELOOP, or EACCES for another user's link in a sticky
		 * directory: say what it is. */
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			errx(EXIT_USAGE, "%s: is a symbolic link; refusing to write through it", path);
		err(EXIT_USAGE, "%s", path);
	}
	if (fstat(fd, &st) != 0)
		err(EXIT_USAGE, "%s", path);
	/* A pipe or /dev/null is the caller's own choice. */
	if (S_ISREG(st.st_mode)) {
		if (st.st_uid != geteuid())
			errx(EXIT_USAGE, "%s: belongs to another user; refusing to write into it",
			     path);
		if (ftruncate(fd, 0) != 0 || ((st.st_mode & 077) && fchmod(fd, 0600) != 0))
			err(EXIT_USAGE, "%s", path);
	}
	if (!(f = fdopen(fd, "w")))
		err(EXIT_USAGE, "%s", path);
	return f;
}

FILE *output_open(const char *path, bool binary)
{
	FILE *f = stdout;

	if (!is_std(path)) {
		f = binary ? private_open(path) : fopen(path, "w");
		if (!f)
			err(EXIT_USAGE, "%s", path);
	}
	if (binary && isatty(fileno(f)))
		errx(EXIT_USAGE, "refusing to write binary output to a terminal "
				 "(redirect it or use -o FILE)");
	return f;
}

bool output_flush(FILE *f, const char *path)
{
	if (fflush(f) == 0)
		return true;
	if (errno == EPIPE)
		warnx("%s: closed by its reader", is_std(path) ? "<stdout>" : path);
	else
		warn("%s: write error", is_std(path) ? "<stdout>" : path);
	return false;
}

bool output_close(FILE *f, const char *path)
{
	const char *name = is_std(path) ? "<stdout>" : path;
	int failed = fflush(f) != 0 || ferror(f);
	int saved = errno;

	if (fclose(f) != 0 && !failed) {
		failed = 1;
		saved = errno;
	}
	if (failed) {
		errno = saved ? saved : EIO;
		warn("%s: write error", name);
		return false;
	}
	return true;
}

int open_regular(const char *path, int extra_flags)
{
	return open_regular_at(AT_FDCWD, path, extra_flags);
}

int open_regular_at(int dirfd, const char *path, int extra_flags)
{
	int pfd = openat(dirfd, path, O_PATH | O_CLOEXEC | (extra_flags & O_NOFOLLOW)), fd;
	char self[64];
	struct stat st;

	/* O_PATH opens nothing: no device driver, FIFO or FUSE server sees
	 * an open until the type is known to be a regular file.  The file is
	 * then opened through that descriptor, so it is the one checked. */
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(pfd);
		errno = EINVAL;
		return -1;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (extra_flags & ~O_NOFOLLOW));
	if (fd < 0 && errno == ENOENT) /* no /proc: the path once more */
		fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | extra_flags);
	close(pfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}
