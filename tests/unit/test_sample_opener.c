/*
 * The file opener (prof-sample/privsep/opener.c) against what a local user can put
 * in front of it: it serves the file another user's process maps
 * executable, in a directory only that user may enter, even deleted, by
 * any address the mapping holds; and nothing else: not that process's
 * other mappings (a secret it reads), not where nothing is mapped, not a
 * process that has gone.
 *
 * Needs root, as prof-sample does: the opener keeps root's capabilities
 * to reach other users' processes.
 */
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "opener.h"
#include "unit.h"

#define USER 4242

struct range {
	uint64_t start, end;
};

/* The victim: another user's process holding an executable mapping of a
 * program in its 0700 home, a second one of a file it then deleted, and a
 * read-only mapping of a secret. */
struct victim {
	pid_t pid;
	char home[64];
	struct range code, deleted, secret;
	struct stat code_st, secret_st;
};

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ssize_t n;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	close(in);
	close(out);
}

static struct range map_file(const char *path, int prot)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	void *p;

	if (fd < 0 || fstat(fd, &st) != 0)
		_exit(1);
	p = mmap(NULL, (size_t)st.st_size, prot, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		_exit(1);
	return (struct range){ (uint64_t)p, (uint64_t)p + (((uint64_t)st.st_size + 4095) & ~4095ull) };
}

static bool start_victim(struct victim *v)
{
	char path[128];
	int fds[2];

	snprintf(v->home, sizeof(v->home), "/tmp/opener-test-%d", (int)getpid());
	if (mkdir(v->home, 0700) != 0 || pipe(fds) != 0)
		return false;
	snprintf(path, sizeof(path), "%s/app", v->home);
	copy_file("/bin/true", path, 0700);
	snprintf(path, sizeof(path), "%s/old", v->home);
	copy_file("/bin/true", path, 0700);
	snprintf(path, sizeof(path), "%s/secret", v->home);
	copy_file("/etc/hostname", path, 0600);
	if (chown(v->home, USER, USER) != 0)
		return false;
	for (const char *f = "app\0old\0secret\0"; *f; f += strlen(f) + 1) {
		snprintf(path, sizeof(path), "%s/%s", v->home, f);
		if (chown(path, USER, USER) != 0)
			return false;
	}
	v->pid = fork();
	if (v->pid == 0) {
		struct range r[3];
		close(fds[0]);
		if (setgroups(0, NULL) != 0 || setresgid(USER, USER, USER) != 0 ||
		    setresuid(USER, USER, USER) != 0)
			_exit(1);
		snprintf(path, sizeof(path), "%s/app", v->home);
		r[0] = map_file(path, PROT_READ | PROT_EXEC);
		snprintf(path, sizeof(path), "%s/old", v->home);
		r[1] = map_file(path, PROT_READ | PROT_EXEC);
		unlink(path);
		snprintf(path, sizeof(path), "%s/secret", v->home);
		r[2] = map_file(path, PROT_READ);
		if (write(fds[1], r, sizeof(r)) != sizeof(r))
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	struct range r[3];
	bool ok = read(fds[0], r, sizeof(r)) == sizeof(r);
	close(fds[0]);
	v->code = r[0];
	v->deleted = r[1];
	v->secret = r[2];
	snprintf(path, sizeof(path), "%s/app", v->home);
	stat(path, &v->code_st);
	snprintf(path, sizeof(path), "%s/secret", v->home);
	stat(path, &v->secret_st);
	return ok;
}

static void stop_victim(struct victim *v)
{
	char cmd[128];

	if (v->pid > 0) {
		kill(v->pid, SIGKILL);
		waitpid(v->pid, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", v->home);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", v->home);
}

TEST(serves_executable_mappings_and_nothing_else)
{
	struct victim v = { 0 };
	struct opener o;
	struct opened_file info;
	char buf[4];
	int fd;

	if (geteuid() != 0)
		SKIP("needs root");
	local_fs_init();
	CHECK(start_victim(&v));
	CHECK(opener_start(&o));

	/* Another user's program, in a directory only it may enter. */
	fd = opener_open(&o, (uint32_t)v.pid, v.code.start, v.code.end, &info);
	CHECK(fd >= 0);
	CHECK_INT(info.ino, v.code_st.st_ino);
	/* Whose it is, and on what: a local file system, read here. */
	CHECK_INT(info.uid, USER);
	CHECK_INT(info.fs.kind, FS_LOCAL);
	CHECK(info.fs.owners_true);
	CHECK(fd >= 0 && pread(fd, buf, 4, 0) == 4 && memcmp(buf, "\177ELF", 4) == 0);
	if (fd >= 0)
		close(fd);
	/* Deleted since it was mapped. */
	fd = opener_open(&o, (uint32_t)v.pid, v.deleted.start, v.deleted.end, &info);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);

	/* Any address the mapping holds (the kernel may have split or
	 * merged the range an event gave): the same file. */
	fd = opener_open(&o, (uint32_t)v.pid, v.code.start + 4096, v.code.end, &info);
	CHECK(fd >= 0);
	CHECK_INT(info.ino, v.code_st.st_ino);
	if (fd >= 0)
		close(fd);

	/* Not executable: a secret the process reads. */
	CHECK_INT(opener_open(&o, (uint32_t)v.pid, v.secret.start, v.secret.end, &info), -1);
	/* No mapping there at all. */
	CHECK_INT(opener_open(&o, (uint32_t)v.pid, 0x1000, 0x2000, &info), -1);
	CHECK_INT(opener_open(&o, (uint32_t)v.pid, 0, ~0ull, &info), -1);
	/* A process that has gone. */
	pid_t gone = v.pid;
	stop_victim(&v);
	v.pid = 0;
	CHECK_INT(opener_open(&o, (uint32_t)gone, v.code.start, v.code.end, &info), -1);
	CHECK_INT(o.served, 3);
	CHECK_INT(o.refused, 4);
	/* Still serving after all that. */
	CHECK(o.h.sock >= 0);
	opener_stop(&o);
}

TEST(a_stopped_opener_refuses_without_waiting)
{
	struct opener o;
	struct opened_file info;

	if (geteuid() != 0)
		SKIP("needs root");
	CHECK(opener_start(&o));
	kill(o.h.pid, SIGKILL);
	CHECK_INT(opener_open(&o, (uint32_t)getpid(), 0, 4096, &info), -1);
	CHECK_INT(o.h.sock, -1);
	CHECK_INT(opener_open(&o, (uint32_t)getpid(), 0, 4096, &info), -1);
	opener_stop(&o);
}

/* Waits for path to exist, up to 5 s. */
static bool appears(const char *path)
{
	for (int i = 0; i < 500; i++) {
		if (access(path, F_OK) == 0)
			return true;
		usleep(10000);
	}
	return false;
}

TEST(a_file_on_a_stopped_fuse_server_is_given_unopened)
{
	char src[64], mnt[80], app[128], cmd[512];
	struct opened_file info;
	struct opener o;
	struct range code;
	pid_t server, user;
	int fds[2], fd;

	if (geteuid() != 0)
		SKIP("needs root");
	if (system("command -v bindfs >/dev/null") != 0)
		SKIP("bindfs is not installed (.ci/setup installs it)");
	snprintf(src, sizeof(src), "/tmp/opener-fuse-%d", (int)getpid());
	snprintf(mnt, sizeof(mnt), "%s.mnt", src);
	snprintf(app, sizeof(app), "%s/app", src);
	CHECK(mkdir(src, 0755) == 0 && mkdir(mnt, 0755) == 0);
	copy_file("/bin/true", app, 0755);
	if ((server = fork()) == 0) {
		execlp("bindfs", "bindfs", "-f", "-o", "allow_other", src, mnt, (char *)NULL);
		_exit(127);
	}
	snprintf(app, sizeof(app), "%s/app", mnt);
	CHECK(appears(app));
	CHECK(pipe(fds) == 0);
	if ((user = fork()) == 0) {
		code = map_file(app, PROT_READ | PROT_EXEC);
		if (write(fds[1], &code, sizeof(code)) != sizeof(code))
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	CHECK(read(fds[0], &code, sizeof(code)) == sizeof(code));
	close(fds[0]);
	/* Its server stops answering: a read, even an open, would wait. */
	kill(server, SIGSTOP);
	local_fs_init();
	CHECK(opener_start(&o));
	fd = opener_open(&o, (uint32_t)user, code.start, code.end, &info);
	CHECK(fd >= 0);
	CHECK_INT(info.fs.kind, FS_FUSE);
	CHECK_INT(info.fs.fuse_owner, 0);
	CHECK(fd >= 0 && (fcntl(fd, F_GETFL) & O_PATH));
	/* Answered, not killed for its silence. */
	CHECK(o.h.sock >= 0);
	if (fd >= 0)
		close(fd);
	opener_stop(&o);
	kill(user, SIGKILL);
	waitpid(user, NULL, 0);
	/* bindfs unmounts on SIGTERM. */
	kill(server, SIGCONT);
	kill(server, SIGTERM);
	waitpid(server, NULL, 0);
	snprintf(cmd, sizeof(cmd), "umount %s 2>/dev/null; rm -rf %s %s", mnt, src, mnt);
	if (system(cmd) != 0)
		printf("# could not clean %s up\n", mnt);
}
