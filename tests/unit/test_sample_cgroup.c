/* proc_cgroup_line on what /proc/PID/cgroup may hold: the unified
 * hierarchy's line is taken, v1 hierarchies' and anything malformed or too
 * long are not; and proc_cgroup_read on this process and a gone one. */
#include "unit.h"

#include "capture.h"
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
