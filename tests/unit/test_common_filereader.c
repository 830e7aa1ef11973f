/*
 * The file reader (common/file_reader.c) as prof-symbolize uses it, one
 * path at a time, against FUSE servers that stop answering: a local file is
 * given as it is, a FUSE file as a copy; a stopped server costs one
 * timeout, after which nothing on its mount is asked again; after three,
 * only local file systems are; and a link at the end of a path is
 * followed only when asked.
 *
 * The FUSE tests need root (bindfs with allow_other), as CI has.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "file_reader.h"
#include "unit.h"

static char tmp[64];

static void make_tmp(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/filereader-%d", (int)getpid());
	CHECK(mkdir(tmp, 0755) == 0);
}

static void remove_tmp(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "for m in %s/*.mnt; do umount -l \"$m\" 2>/dev/null; done; rm -rf %s", tmp, tmp);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmp);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

/* The first bytes fd reads, as a string. */
static const char *content(int fd)
{
	static char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

TEST(a_local_file_is_given_as_it_is_and_only_a_regular_one)
{
	struct file_reader *r = file_reader_new(NULL, NULL);
	struct opened_file info;
	struct stat st, got;
	char path[128], link[128];
	int fd;

	make_tmp();
	snprintf(path, sizeof(path), "%s/file", tmp);
	write_file(path, "local");
	snprintf(link, sizeof(link), "%s/link", tmp);
	CHECK(symlink(path, link) == 0);
	CHECK(stat(path, &st) == 0);
	fd = file_reader_open_wait(r, path, 0, &info);
	CHECK(fd >= 0);
	CHECK_INT(info.fs.kind, FS_LOCAL);
	CHECK_INT(info.ino, st.st_ino);
	CHECK(fd >= 0 && fstat(fd, &got) == 0 && got.st_ino == st.st_ino);
	CHECK_STR(content(fd), "local");
	close(fd);
	/* A link at the end only when asked to follow it. */
	CHECK_INT(file_reader_open_wait(r, link, 0, &info), -1);
	CHECK_INT(errno, EINVAL);
	fd = file_reader_open_wait(r, link, FILE_READER_FOLLOW, &info);
	CHECK(fd >= 0);
	CHECK_INT(info.ino, st.st_ino);
	close(fd);
	/* Not a FIFO (an open would wait for a writer), nor a directory. */
	snprintf(path, sizeof(path), "%s/fifo", tmp);
	CHECK(mkfifo(path, 0644) == 0);
	CHECK_INT(file_reader_open_wait(r, path, 0, &info), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(file_reader_open_wait(r, tmp, 0, &info), -1);
	CHECK_INT(errno, EINVAL);
	snprintf(path, sizeof(path), "%s/none", tmp);
	CHECK_INT(file_reader_open_wait(r, path, 0, &info), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(file_reader_stats(r)->stalled, 0);
	CHECK_INT(file_reader_stats(r)->started, 1);
	file_reader_free(r);
	remove_tmp();
}

struct server {
	char src[96], mnt[96];
	pid_t pid;
};

/* A bindfs mount of a new directory holding the files "app" and "other". */
static bool serve(struct server *s, const char *name)
{
	char path[160];

	snprintf(s->src, sizeof(s->src), "%s/%s", tmp, name);
	snprintf(s->mnt, sizeof(s->mnt), "%s/%s.mnt", tmp, name);
	CHECK(mkdir(s->src, 0755) == 0 && mkdir(s->mnt, 0755) == 0);
	snprintf(path, sizeof(path), "%s/app", s->src);
	write_file(path, name);
	snprintf(path, sizeof(path), "%s/other", s->src);
	write_file(path, name);
	if ((s->pid = fork()) == 0) {
		execlp("bindfs", "bindfs", "-f", "-o", "allow_other", s->src, s->mnt, (char *)NULL);
		_exit(127);
	}
	snprintf(path, sizeof(path), "%s/app", s->mnt);
	for (int i = 0; i < 500; i++) {
		if (access(path, F_OK) == 0)
			return true;
		usleep(10000);
	}
	return false;
}

static void unserve(struct server *s)
{
	char cmd[200];

	if (s->pid <= 0)
		return;
	/* bindfs unmounts on SIGTERM. */
	kill(s->pid, SIGCONT);
	kill(s->pid, SIGTERM);
	waitpid(s->pid, NULL, 0);
	snprintf(cmd, sizeof(cmd), "umount %s 2>/dev/null", s->mnt);
	if (system(cmd) != 0) {
		/* Unmounted already. */
	}
	s->pid = 0;
}

/* path's file, as the reader opens it: its first bytes, or the errno. */
static const char *open_as(struct file_reader *r, const char *path, unsigned how,
			   enum fs_kind *kind)
{
	static char result[64];
	struct opened_file info;
	int fd = file_reader_open_wait(r, path, how, &info);

	if (fd < 0)
		return strerror(errno);
	snprintf(result, sizeof(result), "%s", content(fd));
	*kind = info.fs.kind;
	close(fd);
	return result;
}

TEST(a_stopped_fuse_server_costs_one_timeout_and_three_only_local_files)
{
	struct server s[4] = { 0 };
	struct file_reader *r;
	enum fs_kind kind = FS_UNKNOWN;
	char path[160], link[160], local[160];
	const struct file_reader_stats *st;

	if (geteuid() != 0)
		SKIP("needs root");
	if (system("command -v bindfs >/dev/null") != 0)
		SKIP("bindfs is not installed (.ci/setup installs it)");
	make_tmp();
	r = file_reader_new(NULL, NULL);
	st = file_reader_stats(r);
	CHECK(serve(&s[0], "a") && serve(&s[1], "b") && serve(&s[2], "c") && serve(&s[3], "d"));
	/* Answering: a copy of the file. */
	snprintf(path, sizeof(path), "%s/app", s[0].mnt);
	CHECK_STR(open_as(r, path, 0, &kind), "a");
	CHECK_INT(kind, FS_FUSE);
	/* Stopped: one timeout for the mount, then nothing on it is asked,
	 * by any path that leads there, and nothing else is held up. */
	kill(s[0].pid, SIGSTOP);
	snprintf(path, sizeof(path), "%s/other", s[0].mnt);
	CHECK_STR(open_as(r, path, 0, &kind), strerror(ETIMEDOUT));
	CHECK_INT(st->stalled, 1);
	snprintf(path, sizeof(path), "%s/app", s[0].mnt);
	CHECK_STR(open_as(r, path, 0, &kind), strerror(ETIMEDOUT));
	snprintf(link, sizeof(link), "%s/to-a", tmp);
	CHECK(symlink(path, link) == 0);
	CHECK_STR(open_as(r, link, FILE_READER_FOLLOW, &kind), strerror(ETIMEDOUT));
	snprintf(path, sizeof(path), "/proc/self/root%s/other", s[0].mnt);
	CHECK_STR(open_as(r, path, 0, &kind), strerror(ETIMEDOUT));
	CHECK_INT(st->stalled, 1);
	snprintf(path, sizeof(path), "%s/app", s[1].mnt);
	CHECK_STR(open_as(r, path, 0, &kind), "b");
	/* In one request with a file on the stopped mount, another file
	 * is had, and the stopped mount not waited for again. */
	{
		char p0[160], p1[160];
		const char *pa[1] = { p0 }, *pb[1] = { p1 };
		unsigned none = 0;
		struct file_places g[2] = { { .paths = pa, .how = &none, .n = 1 },
					    { .paths = pb, .how = &none, .n = 1 } };
		snprintf(p0, sizeof(p0), "%s/app", s[0].mnt);
		snprintf(p1, sizeof(p1), "%s/other", s[1].mnt);
		file_reader_open_groups(r, g, 2);
		CHECK_INT(g[0].fd, -1);
		CHECK(g[1].fd >= 0);
		CHECK_STR(g[1].fd >= 0 ? content(g[1].fd) : "", "b");
		if (g[1].fd >= 0)
			close(g[1].fd);
		CHECK_INT(st->stalled, 1);
	}
	snprintf(local, sizeof(local), "%s/local", tmp);
	write_file(local, "local");
	CHECK_STR(open_as(r, local, 0, &kind), "local");
	CHECK_INT(kind, FS_LOCAL);
	/* Two more: then only local file systems are asked. */
	kill(s[1].pid, SIGSTOP);
	kill(s[2].pid, SIGSTOP);
	{
		/* A file answered before the stall, in the same request, is
		 * had all the same. */
		char p1[160];
		const char *pa[1] = { local }, *pb[1] = { p1 };
		unsigned none = 0;
		struct file_places g[2] = { { .paths = pa, .how = &none, .n = 1 },
					    { .paths = pb, .how = &none, .n = 1 } };
		snprintf(p1, sizeof(p1), "%s/other", s[1].mnt);
		file_reader_open_groups(r, g, 2);
		CHECK(g[0].fd >= 0);
		CHECK_STR(g[0].fd >= 0 ? content(g[0].fd) : "", "local");
		if (g[0].fd >= 0)
			close(g[0].fd);
		CHECK_INT(g[1].fd, -1);
		CHECK_INT(st->stalled, 2);
	}
	snprintf(path, sizeof(path), "%s/other", s[2].mnt);
	CHECK_STR(open_as(r, path, 0, &kind), strerror(ETIMEDOUT));
	CHECK_INT(st->stalled, 3);
	snprintf(path, sizeof(path), "%s/app", s[3].mnt);
	CHECK_STR(open_as(r, path, 0, &kind), strerror(EREMOTE));
	CHECK_STR(open_as(r, local, 0, &kind), "local");
	CHECK_INT(st->stalled, 3);
	/* A reader per stall, and the first. */
	CHECK_INT(st->started, 4);
	file_reader_free(r);
	for (int i = 0; i < 4; i++)
		unserve(&s[i]);
	remove_tmp();
}

TEST(several_files_in_one_request_each_the_first_place_that_holds_it)
{
	struct file_reader *r = file_reader_new(NULL, NULL);
	char a[3][128], b[2][128];
	const char *pa[3] = { a[0], a[1], a[2] }, *pb[2] = { b[0], b[1] };
	unsigned how[3] = { 0, 0, 0 };
	int erra[3] = { 0 }, errb[2] = { 0 };
	struct file_places g[2] = { { .paths = pa, .how = how, .n = 3, .err = erra },
				    { .paths = pb, .how = how, .n = 2, .err = errb } };

	make_tmp();
	snprintf(a[0], sizeof(a[0]), "%s/none", tmp);
	snprintf(a[1], sizeof(a[1]), "%s", tmp); /* a directory */
	snprintf(a[2], sizeof(a[2]), "%s/second", tmp);
	snprintf(b[0], sizeof(b[0]), "%s/first", tmp);
	snprintf(b[1], sizeof(b[1]), "%s/second", tmp);
	write_file(a[2], "second");
	write_file(b[0], "first");
	file_reader_open_groups(r, g, 2);
	CHECK_INT(g[0].which, 2);
	CHECK(g[0].fd >= 0);
	CHECK_STR(content(g[0].fd), "second");
	CHECK_INT(erra[0], ENOENT);
	CHECK_INT(erra[1], EINVAL);
	CHECK_INT(g[1].which, 0);
	CHECK(g[1].fd >= 0);
	CHECK_STR(content(g[1].fd), "first");
	close(g[0].fd);
	close(g[1].fd);
	/* None of them. */
	unlink(a[2]);
	unlink(b[0]);
	unlink(b[1]);
	file_reader_open_groups(r, g, 2);
	CHECK_INT(g[0].which, 3);
	CHECK_INT(g[0].fd, -1);
	CHECK_INT(erra[2], ENOENT);
	CHECK_INT(g[1].which, 2);
	CHECK_INT(g[1].fd, -1);
	/* One reader, one request each time. */
	CHECK_INT(file_reader_stats(r)->started, 1);
	file_reader_free(r);
	remove_tmp();
}

TEST(only_local_files_when_asked)
{
	struct server s = { 0 };
	struct file_reader *r;
	enum fs_kind kind = FS_UNKNOWN;
	char path[160];

	if (geteuid() != 0)
		SKIP("needs root");
	if (system("command -v bindfs >/dev/null") != 0)
		SKIP("bindfs is not installed (.ci/setup installs it)");
	make_tmp();
	r = file_reader_new(NULL, NULL);
	CHECK(serve(&s, "a"));
	snprintf(path, sizeof(path), "%s/app", s.mnt);
	CHECK_STR(open_as(r, path, FILE_READER_LOCAL, &kind), strerror(EREMOTE));
	CHECK_STR(open_as(r, path, 0, &kind), "a");
	CHECK_INT(file_reader_stats(r)->stalled, 0);
	file_reader_free(r);
	unserve(&s);
	remove_tmp();
}
