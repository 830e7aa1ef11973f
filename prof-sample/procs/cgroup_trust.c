#include "cgroup_trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Only root marks cgroups trusted.delegate, so this many is a host's
 * containers and delegated services many times over; past it, more are
 * not remembered (and are believed, once privilege is gone). */
#define MARKED_MAX 65536

/* The answers kept within an interval, in bytes of paths and table: past
 * it they are forgotten and checked again. */
#define CHECKED_BYTES (1u << 20)

void cgroup_trust_init(struct cgroup_trust *t, int root)
{
	t->root = root;
	t->marked = htab_new();
	t->checked = htab_new();
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

bool cgroup_trust_mount_line(char *line, char **point)
{
	/* ID PARENT MAJOR:MINOR ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE
	 * SUPER-OPTIONS: spaces in fields are escaped, so " - " is the
	 * separator.  ROOT is relative to the reader's cgroup namespace, as
	 * /proc/PID/cgroup's paths are. */
	char *sep = strstr(line, " - "), *field[5], *save = NULL;

	if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
		return false;
	*sep = '\0';
	for (int i = 0; i < 5; i++)
		if (!(field[i] = strtok_r(i ? NULL : line, " ", &save)))
			return false;
	if (strcmp(field[3], "/") != 0)
		return false;
	unescape(field[4]);
	*point = field[4];
	return true;
}

/* The mount point is root's, but not necessarily every directory on its
 * way: no symbolic link put there leads elsewhere (kernels before 5.6,
 * without openat2, excepted). */
static int open_point(const char *point)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS };
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, point, &how, sizeof(how));

	return fd < 0 && errno == ENOSYS ? open(point, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : fd;
}

bool cgroup_trust_open(struct cgroup_trust *t)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *point;
	size_t cap = 0;
	ssize_t n;
	int fd = -1;

	while (f && fd < 0 && (n = getline(&line, &cap, f)) > 0) {
		struct statfs fs;
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (!cgroup_trust_mount_line(line, &point))
			continue;
		fd = open_point(point);
		if (fd >= 0 && (fstatfs(fd, &fs) != 0 || fs.f_type != CGROUP2_SUPER_MAGIC)) {
			close(fd);
			fd = -1;
		}
	}
	free(line);
	if (f)
		fclose(f);
	cgroup_trust_init(t, fd);
	return fd >= 0;
}

void cgroup_trust_close(struct cgroup_trust *t)
{
	if (t->root >= 0)
		close(t->root);
	t->root = -1;
	htab_free(t->marked);
	htab_free(t->checked);
	t->marked = t->checked = NULL;
}

static bool has_xattr(int fd, const char *name)
{
	return fgetxattr(fd, name, NULL, 0) >= 0;
}

/* Whether the cgroup open as fd (on the hierarchy's device) is the host
 * manager's own, so that the cgroups in it were named by root alone: no
 * one else may write it, and it is not marked delegated.  systemd chowns
 * a cgroup it delegates to a user (so do container managers for a user
 * namespace's root, and cgroups a user makes are theirs), and since
 * version 251 marks every delegated cgroup with trusted.delegate (a root
 * service's, a container's scope), which privilege alone can read, and
 * later versions with user.delegate too, which anyone can. */
static bool managed(struct cgroup_trust *t, int fd, dev_t dev)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_dev != dev || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return false;
	/* cgroup inode numbers are cgroup ids: never reused while the
	 * system runs. */
	if (has_xattr(fd, "trusted.delegate")) {
		if (htab_count(t->marked) < MARKED_MAX)
			htab_upsert(t->marked, &st.st_ino, sizeof(st.st_ino), NULL);
		return false;
	}
	return !has_xattr(fd, "user.delegate") &&
	       !htab_find(t->marked, &st.st_ino, sizeof(st.st_ino));
}

static uint16_t check(struct cgroup_trust *t, const char *path, size_t len)
{
	const char *c = path + 1, *end = path + len;
	char name[NAME_MAX + 1];
	uint16_t n = 0;
	struct stat st;
	int dir;

	if (t->root < 0 || !len || path[0] != '/' || fstat(t->root, &st) != 0 ||
	    !managed(t, t->root, st.st_dev))
		return 0;
	dir = t->root;
	while (c < end && n < UINT16_MAX) {
		const char *slash = memchr(c, '/', (size_t)(end - c));
		size_t nlen = (size_t)((slash ? slash : end) - c);
		bool ok;
		int sub;

		if (!nlen || nlen > NAME_MAX || (nlen <= 2 && !memcmp(c, "..", nlen)))
			break;
		memcpy(name, c, nlen);
		name[nlen] = '\0';
		sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			break;
		n++;
		ok = managed(t, sub, st.st_dev);
		if (dir != t->root)
			close(dir);
		dir = sub;
		if (!ok || !slash)
			break;
		c = slash + 1;
	}
	if (dir != t->root)
		close(dir);
	return n;
}

void cgroup_trust_forget(struct cgroup_trust *t)
{
	if (!htab_count(t->checked))
		return;
	htab_free(t->checked);
	t->checked = htab_new();
}

uint16_t cgroup_trust_names(struct cgroup_trust *t, const char *path, size_t len)
{
	struct htab_entry *e;
	bool created;

	/* The root has no name; most kernel threads are there. */
	if (t->root < 0 || len <= 1)
		return 0;
	if (htab_bytes(t->checked) > CHECKED_BYTES)
		cgroup_trust_forget(t);
	e = htab_upsert(t->checked, path, len, &created);
	if (created)
		e->val.u = check(t, path, len);
	return (uint16_t)e->val.u;
}
