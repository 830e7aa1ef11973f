/*
 * The path walker of the file reader (common/path_walk.c) against the
 * kernel's own walk: every path reaches the file open(2) reaches, through
 * mount points, symbolic links absolute and relative, "..", /proc's links
 * to a process's root; a mount given up is never asked, and the mount
 * being asked is told.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "local_fs.h"
#include "path_walk.h"
#include "unit.h"

static char dir[64];

static void make_tree(void)
{
	char p[PATH_MAX];

	snprintf(dir, sizeof(dir), "/tmp/pathwalk-%d", (int)getpid());
	mkdir(dir, 0755);
	snprintf(p, sizeof(p), "%s/sub", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sub/file", dir);
	close(open(p, O_WRONLY | O_CREAT, 0644));
	snprintf(p, sizeof(p), "%s/rel", dir);
	CHECK(symlink("sub/file", p) == 0);
	snprintf(p, sizeof(p), "%s/abs", dir);
	CHECK(symlink("/proc/self/root/usr/bin/env", p) == 0);
	snprintf(p, sizeof(p), "%s/updir", dir);
	CHECK(symlink("sub/../sub", p) == 0);
	snprintf(p, sizeof(p), "%s/loop", dir);
	CHECK(symlink("loop", p) == 0);
	snprintf(p, sizeof(p), "%s/toproc", dir);
	CHECK(symlink("/proc", p) == 0);
}

static void remove_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
}

/* Whether the walk reaches what stat(2) (or lstat, nofollow) reaches. */
static bool same_as_kernel(const char *path, bool nofollow)
{
	struct walk_rules w = { 0 };
	struct stat want, got;
	uint32_t pid;
	int fd = path_walk(path, nofollow ? O_NOFOLLOW : 0, &w, &pid);
	bool same;

	if (fd < 0) {
		printf("#   %s: %s\n", path, strerror(errno));
		return false;
	}
	same = (nofollow ? lstat(path, &want) : stat(path, &want)) == 0 && fstat(fd, &got) == 0 &&
	       want.st_dev == got.st_dev && want.st_ino == got.st_ino;
	if (!same)
		printf("#   %s: not the file the kernel reaches\n", path);
	close(fd);
	return same;
}

TEST(a_walk_reaches_what_the_kernel_reaches)
{
	char p[PATH_MAX], here[PATH_MAX];

	make_tree();
	CHECK(same_as_kernel("/usr/bin/env", false));
	CHECK(same_as_kernel("/proc/self/root/usr/bin/env", false));
	CHECK(same_as_kernel("/proc/self/root/proc/self/root/etc/passwd", false));
	CHECK(same_as_kernel("/proc/self/exe", false));
	CHECK(same_as_kernel("/proc/../proc/self/root/etc/../etc/passwd", false));
	CHECK(same_as_kernel("/dev/shm/", false));
	CHECK(same_as_kernel("//usr//bin/./env", false));
	snprintf(p, sizeof(p), "%s/rel", dir);
	CHECK(same_as_kernel(p, false));
	CHECK(same_as_kernel(p, true));
	snprintf(p, sizeof(p), "%s/abs", dir);
	CHECK(same_as_kernel(p, false));
	snprintf(p, sizeof(p), "%s/updir/file", dir);
	CHECK(same_as_kernel(p, false));
	snprintf(p, sizeof(p), "%s/toproc/self/root%s/sub/file", dir, dir);
	CHECK(same_as_kernel(p, false));
	snprintf(p, sizeof(p), "/proc/self/root%s/abs", dir);
	CHECK(same_as_kernel(p, false));
	/* From the working directory. */
	CHECK(getcwd(here, sizeof(here)) != NULL);
	CHECK(chdir(dir) == 0);
	CHECK(same_as_kernel("rel", false));
	CHECK(same_as_kernel("sub/file", false));
	CHECK(chdir(here) == 0);
	remove_tree();
}

TEST(a_walk_refuses_what_the_kernel_refuses)
{
	struct walk_rules w = { 0 };
	char p[PATH_MAX + 16];
	uint32_t pid;

	make_tree();
	snprintf(p, sizeof(p), "%s/loop", dir);
	CHECK_INT(path_walk(p, 0, &w, &pid), -1);
	CHECK_INT(errno, ELOOP);
	snprintf(p, sizeof(p), "%s/sub/file/more", dir);
	CHECK_INT(path_walk(p, 0, &w, &pid), -1);
	CHECK_INT(errno, ENOTDIR);
	snprintf(p, sizeof(p), "%s/none/file", dir);
	CHECK_INT(path_walk(p, 0, &w, &pid), -1);
	CHECK_INT(errno, ENOENT);
	memset(p, 'a', sizeof(p) - 1);
	p[sizeof(p) - 1] = '\0';
	CHECK_INT(path_walk(p, 0, &w, &pid), -1);
	CHECK_INT(errno, ENAMETOOLONG);
	remove_tree();
}

TEST(a_walk_says_whose_mounts_it_went_into)
{
	struct walk_rules w = { 0 };
	char p[64];
	uint32_t pid = 1;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/root/etc/passwd", (int)getpid());
	fd = path_walk(p, 0, &w, &pid);
	CHECK(fd >= 0);
	CHECK_INT(pid, getpid());
	close(fd);
	fd = path_walk("/etc/passwd", 0, &w, &pid);
	CHECK(fd >= 0);
	CHECK_INT(pid, 0);
	close(fd);
}

TEST(a_mount_given_up_is_never_asked_and_the_one_asked_is_told)
{
	struct walk_asking asking = { 0 };
	struct statx root, proc;
	uint64_t dead;
	struct walk_rules w = { .dead = &dead, .ndead = 1, .asking = &asking };
	uint32_t pid;
	int fd;

	local_fs_init();
	CHECK(statx(AT_FDCWD, "/", AT_STATX_DONT_SYNC, STATX_MNT_ID, &root) == 0);
	CHECK(statx(AT_FDCWD, "/proc", AT_STATX_DONT_SYNC, STATX_MNT_ID, &proc) == 0);
	/* The last mount asked for /etc/passwd is the root's. */
	dead = 0;
	fd = path_walk("/proc/self/root/etc/passwd", 0, &w, &pid);
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(asking.mnt_id, root.stx_mnt_id);
	/* /proc given up: nothing through it, the rest as before. */
	dead = proc.stx_mnt_id;
	CHECK_INT(path_walk("/proc/self/root/etc/passwd", 0, &w, &pid), -1);
	CHECK_INT(errno, ETIMEDOUT);
	CHECK_INT(asking.mnt_id, root.stx_mnt_id);
	fd = path_walk("/etc/passwd", 0, &w, &pid);
	CHECK(fd >= 0);
	close(fd);
	/* The root given up: nothing at all. */
	dead = root.stx_mnt_id;
	CHECK_INT(path_walk("/etc/passwd", 0, &w, &pid), -1);
	CHECK_INT(errno, ETIMEDOUT);
	/* Local ones only: the root and /proc are. */
	w.ndead = 0;
	w.local_only = true;
	fd = path_walk("/proc/self/root/etc/passwd", 0, &w, &pid);
	CHECK(fd >= 0);
	close(fd);
}
