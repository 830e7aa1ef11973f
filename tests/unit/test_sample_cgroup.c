/* proc_cgroup_line on what /proc/PID/cgroup may hold: the unified
 * hierarchy's line is taken, v1 hierarchies' and anything malformed or too
 * long are not; and proc_cgroup_read on this process and a gone one.
 * cgroup_trust: the cgroup2 mounts it takes, and which names of a path it
 * believes, on a tree of directories owned and marked as a host's
 * manager and its delegatees leave cgroups. */
#include "unit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "capture.h"
#include "cgroup_trust.h"
#include "proc_cgroup.h"

static bool parse(const char *line, size_t len, const char **path, size_t *n)
{
	return proc_cgroup_line(line, len, path, n);
}

TEST(unified_line_taken)
{
	const char *line = "0::/system.slice/nginx.service", *path;
	size_t n;

	CHECK(parse(line, strlen(line), &path, &n));
	CHECK_STR(str(path, n), "/system.slice/nginx.service");
	CHECK(parse("0::/", 4, &path, &n));
	CHECK_STR(str(path, n), "/");
	/* Bytes a delegated cgroup's owner chose are kept as they are. */
	line = "0::/user.slice/\xff\x1b[31m:x: y";
	CHECK(parse(line, strlen(line), &path, &n));
	CHECK_STR(str(path, n), "/user.slice/\xff\x1b[31m:x: y");
}

TEST(other_lines_refused)
{
	static const char *const bad[] = {
		"",
		"0::",			/* no path */
		"0:",
		"1:name=systemd:/user.slice", /* a v1 hierarchy */
		"12:cpu,cpuacct:/",
		"0:cpu:/x",		/* the unified hierarchy has no controllers listed */
		"10::/x",		/* not hierarchy 0 */
		"0::relative",		/* not absolute */
		" 0::/x",
	};
	const char *path;
	size_t n;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(!parse(bad[i], strlen(bad[i]), &path, &n));
	/* A NUL inside the line is not a path's. */
	CHECK(!parse("0::/a\0b", 7, &path, &n));
}

TEST(longest_path_taken_longer_refused)
{
	size_t max = CAP_CGROUP_PATH_MAX;
	char *line = malloc(max + 5);
	const char *path;
	size_t n;

	memcpy(line, "0::", 3);
	memset(line + 3, 'a', max + 1);
	line[3] = '/';
	CHECK(parse(line, 3 + max, &path, &n));
	CHECK_INT(n, max);
	CHECK(!parse(line, 3 + max + 1, &path, &n));
	free(line);
}

TEST(read_self_and_gone)
{
	char *mine;

	mine = proc_cgroup_read((uint32_t)getpid());
	/* A host with only v1 hierarchies has no line to read. */
	if (mine)
		CHECK(mine[0] == '/');
	free(mine);
	/* Beyond pid_max: no such process. */
	CHECK(proc_cgroup_read(UINT32_MAX - 1) == NULL);
}

TEST(mountinfo_cgroup2_root_mounts)
{
	char a[] = "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw";
	char b[] = "29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev shared:4 master:1 - cgroup2 cgroup2 "
		   "rw,nsdelegate,memory_recursiveprot";
	char c[] = "51 40 0:37 / /tmp/a\\040b\\134c\\012d rw - cgroup2 none rw";
	/* Not the root of the hierarchy as this namespace sees it, not
	 * cgroup v2, or not a line mountinfo writes. */
	char d[] = "52 40 0:37 /system.slice /srv/cg rw - cgroup2 cgroup2 rw";
	char e[] = "53 40 0:37 /.. /srv/cg rw - cgroup2 cgroup2 rw";
	char f[] = "31 29 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu";
	char g[] = "60 1 0:50 / /srv/cgroup2 rw - tmpfs cgroup2 rw";
	char h[] = "61 1 0:50 / - cgroup2 cgroup2 rw";
	char i[] = "";
	char *point;

	CHECK(cgroup_trust_mount_line(a, &point));
	CHECK_STR(point, "/sys/fs/cgroup/unified");
	CHECK(cgroup_trust_mount_line(b, &point));
	CHECK_STR(point, "/sys/fs/cgroup");
	CHECK(cgroup_trust_mount_line(c, &point));
	CHECK_STR(point, "/tmp/a b\\c\nd");
	CHECK(!cgroup_trust_mount_line(d, &point));
	CHECK(!cgroup_trust_mount_line(e, &point));
	CHECK(!cgroup_trust_mount_line(f, &point));
	CHECK(!cgroup_trust_mount_line(g, &point));
	CHECK(!cgroup_trust_mount_line(h, &point));
	CHECK(!cgroup_trust_mount_line(i, &point));
}

/* A tree of directories standing for cgroups, made as a host's manager
 * and its delegatees make them: root's own, one chowned to a user (as
 * systemd delegates to a service's user, who then makes what they like
 * in it), one marked delegated by root alone (a container's scope). */
static char tree[64];

static void make(const char *rel, mode_t mode, uid_t uid)
{
	char p[256];

	snprintf(p, sizeof(p), "%s%s", tree, rel);
	CHECK(mkdir(p, mode) == 0 && chmod(p, mode) == 0 && chown(p, uid, uid) == 0);
}

static void mark(const char *rel, const char *xattr, bool on)
{
	char p[256];

	snprintf(p, sizeof(p), "%s%s", tree, rel);
	CHECK(on ? setxattr(p, xattr, "1", 1, 0) == 0 : removexattr(p, xattr) == 0);
}

static uint16_t names(struct cgroup_trust *t, const char *path)
{
	return cgroup_trust_names(t, path, strlen(path));
}

TEST(names_the_host_made)
{
	struct cgroup_trust t;

	if (geteuid() != 0)
		SKIP("needs root (chown, trusted xattrs)");
	snprintf(tree, sizeof(tree), "/tmp/prof-cgroup-trust.XXXXXX");
	CHECK(mkdtemp(tree) != NULL);
	make("/system.slice", 0755, 0);
	make("/system.slice/nginx.service", 0755, 0);
	make("/system.slice/build.service", 0755, 4242);
	make("/system.slice/build.service/sshd.service", 0755, 4242);
	make("/system.slice/open.service", 0777, 0);
	make("/system.slice/open.service/x.service", 0755, 4242);
	make("/system.slice/group.service", 0775, 0);
	make("/system.slice/group.service/x.service", 0755, 0);
	make("/system.slice/docker-1.scope", 0755, 0);
	make("/system.slice/docker-1.scope/sshd.service", 0755, 0);
	make("/system.slice/docker-1.scope/cron.service", 0755, 0);
	make("/system.slice/libpod-2.scope", 0755, 0);
	make("/system.slice/libpod-2.scope/sshd.service", 0755, 0);
	make("/system.slice/libpod-2.scope/cron.service", 0755, 0);
	mark("/system.slice/docker-1.scope", "trusted.delegate", true);
	mark("/system.slice/libpod-2.scope", "user.delegate", true);
	cgroup_trust_init(&t, open(tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC));

	CHECK_INT(names(&t, "/"), 0);
	CHECK_INT(names(&t, "/system.slice"), 1);
	CHECK_INT(names(&t, "/system.slice/nginx.service"), 2);
	/* Up to the delegated cgroup, which its parent's owner named. */
	CHECK_INT(names(&t, "/system.slice/build.service/sshd.service"), 2);
	CHECK_INT(names(&t, "/system.slice/open.service/x.service"), 2);
	CHECK_INT(names(&t, "/system.slice/group.service/x.service"), 2);
	CHECK_INT(names(&t, "/system.slice/docker-1.scope/sshd.service"), 2);
	CHECK_INT(names(&t, "/system.slice/libpod-2.scope/sshd.service"), 2);
	CHECK_INT(names(&t, "/system.slice/nginx.service/gone/x"), 2);
	/* Not names of a cgroup below the root. */
	CHECK_INT(names(&t, "/system.slice/../system.slice/nginx.service"), 1);
	CHECK_INT(names(&t, "/system.slice/./nginx.service"), 1);
	CHECK_INT(names(&t, "/system.slice//nginx.service"), 1);
	CHECK_INT(names(&t, "/../x"), 0);
	CHECK_INT(names(&t, "system.slice"), 0);
	CHECK_INT(cgroup_trust_names(&t, "/system.slice/nginx.service", 14), 1);

	/* A mark seen while it could be read is remembered when it no longer
	 * can (after privilege is given up): here, removed; for a path not
	 * checked before.  One anyone may read is read again. */
	mark("/system.slice/docker-1.scope", "trusted.delegate", false);
	CHECK_INT(names(&t, "/system.slice/docker-1.scope/cron.service"), 2);
	mark("/system.slice/libpod-2.scope", "user.delegate", false);
	CHECK_INT(names(&t, "/system.slice/libpod-2.scope/cron.service"), 3);
	/* A path is checked again once forgotten (at the next drain). */
	CHECK_INT(names(&t, "/system.slice/libpod-2.scope/sshd.service"), 2);
	cgroup_trust_forget(&t);
	CHECK_INT(names(&t, "/system.slice/libpod-2.scope/sshd.service"), 3);
	cgroup_trust_close(&t);

	/* Within a delegated root (prof-sample in a container), none. */
	{
		char p[256];
		snprintf(p, sizeof(p), "%s/system.slice/build.service", tree);
		cgroup_trust_init(&t, open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
		CHECK_INT(names(&t, "/sshd.service"), 0);
		cgroup_trust_close(&t);
	}
	cgroup_trust_init(&t, -1);
	CHECK_INT(names(&t, "/system.slice"), 0);
	cgroup_trust_close(&t);
	{
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
		CHECK(system(cmd) == 0);
	}
}
