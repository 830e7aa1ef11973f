#include "cache_keeper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build_id.h"
#include "diag.h"
#include "htab.h"
#include "privileges.h"
#include "sort.h"

/* Temporary files older than this were left by a capture that died. */
#define STALE_TMP_SECS 3600
/* "users/4294967295/.build-id/xx/", a build-id's hex and ".debug", and
 * room. */
#define ENTRY_MAX 256
/* The layout this keeper writes.  The first (version 1, no file) kept
 * every user's files in one debug directory, by build-id alone: a user
 * could plant symbols for root's files there.  Its entries are deleted. */
#define LAYOUT_FILE ".layout"
#define LAYOUT "2\n"

enum { OP_HAS = 1, OP_PUT = 2 };

struct cache_request {
	uint32_t op, idlen, owner, reserved;
	uint8_t id[BUILD_ID_MAX];
};

struct cache_reply {
	int32_t status; /* HAS: 1 there, 0 not; PUT: 0 stored, or -errno */
	uint32_t reserved;
	uint64_t bytes;
};

struct entry {
	char rel[ENTRY_MAX]; /* its path in the cache; "" once deleted */
	uint64_t size;
	int64_t mtime;
	bool touched; /* needed by the running capture: never pruned by it */
};

struct keeper {
	const char *dir;
	uint64_t limit, total;
	struct entry *e; /* oldest first */
	size_t n, cap;
	struct htab *byrel; /* rel -> index in e */
	int lock;
};

/* The debug directory of owner's part of the cache. */
static void part_dir(uint32_t owner, char *buf, size_t size)
{
	if (owner)
		snprintf(buf, size, "users/%" PRIu32 "/.build-id", owner);
	else
		snprintf(buf, size, ".build-id");
}

static void entry_path(uint32_t owner, const char *hex, char *buf, size_t size)
{
	char part[64];

	part_dir(owner, part, sizeof(part));
	snprintf(buf, size, "%s/%.2s/%s.debug", part, hex, hex + 2);
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return n > 0;
}

static bool is_decimal(const char *s)
{
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return *s && *s != '0' && strlen(s) <= 10;
}

static struct entry *add_entry(struct keeper *k, const char *rel, uint64_t size, int64_t mtime)
{
	struct entry *e;

	k->e = xreserve(k->e, &k->cap, k->n + 1, sizeof(*k->e));
	e = &k->e[k->n];
	*e = (struct entry){ .size = size, .mtime = mtime };
	snprintf(e->rel, sizeof(e->rel), "%s", rel);
	htab_upsert(k->byrel, rel, strlen(rel), NULL)->val.u = k->n++;
	k->total += size;
	return e;
}

static struct entry *find_entry(struct keeper *k, const char *rel)
{
	struct htab_entry *h = htab_find(k->byrel, rel, strlen(rel));

	return h && k->e[h->val.u].rel[0] ? &k->e[h->val.u] : NULL;
}

static int by_mtime(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* The entries of one part, part/xx/yyyy.debug; removes what dead
 * captures left half-written. */
static void scan_part(struct keeper *k, const char *part)
{
	DIR *top = opendir(part);
	struct dirent *d;
	time_t now = time(NULL);

	while (top && (d = readdir(top))) {
		char sub[ENTRY_MAX];
		DIR *dir;
		struct dirent *f;
		if (strlen(d->d_name) != 2 || !is_hex(d->d_name, 2))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", part, d->d_name);
		if (!(dir = opendir(sub)))
			continue;
		while ((f = readdir(dir))) {
			size_t len = strlen(f->d_name);
			struct stat st;
			char rel[2 * ENTRY_MAX + 256];
			if (fstatat(dirfd(dir), f->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
			    !S_ISREG(st.st_mode))
				continue;
			if (f->d_name[0] == '.' && len > 4 && strcmp(f->d_name + len - 4, ".tmp") == 0) {
				if (now - st.st_mtime > STALE_TMP_SECS)
					unlinkat(dirfd(dir), f->d_name, 0);
				continue;
			}
			if (len <= 6 || len - 6 > 2 * BUILD_ID_MAX - 2 ||
			    strcmp(f->d_name + len - 6, ".debug") != 0 || !is_hex(f->d_name, len - 6))
				continue;
			snprintf(rel, sizeof(rel), "%s/%s", sub, f->d_name);
			add_entry(k, rel, (uint64_t)st.st_size, st.st_mtime);
		}
		closedir(dir);
	}
	if (top)
		closedir(top);
}

/* Reads what the cache holds, every part, oldest first. */
static void scan(struct keeper *k)
{
	DIR *users = opendir("users");
	struct dirent *d;

	scan_part(k, ".build-id");
	while (users && (d = readdir(users))) {
		char part[64];
		if (!is_decimal(d->d_name))
			continue;
		snprintf(part, sizeof(part), "users/%s/.build-id", d->d_name);
		scan_part(k, part);
	}
	if (users)
		closedir(users);
	sort_array(k->e, k->n, sizeof(*k->e), by_mtime);
	for (size_t i = 0; i < k->n; i++)
		htab_upsert(k->byrel, k->e[i].rel, strlen(k->e[i].rel), NULL)->val.u = i;
}

/* Deletes what dir holds (entries and their directories, one level
 * down: the first layout's), never following a link. */
static void remove_tree(const char *dir)
{
	DIR *top = opendir(dir);
	struct dirent *d;

	while (top && (d = readdir(top))) {
		struct stat st;
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0 ||
		    fstatat(dirfd(top), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int fd = openat(dirfd(top), d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
			DIR *sub = fd >= 0 ? fdopendir(fd) : NULL;
			struct dirent *f;
			while (sub && (f = readdir(sub)))
				if (strcmp(f->d_name, ".") != 0 && strcmp(f->d_name, "..") != 0)
					unlinkat(dirfd(sub), f->d_name, 0);
			if (sub)
				closedir(sub);
			else if (fd >= 0)
				close(fd);
			unlinkat(dirfd(top), d->d_name, AT_REMOVEDIR);
		} else {
			unlinkat(dirfd(top), d->d_name, 0);
		}
	}
	if (top)
		closedir(top);
	rmdir(dir);
}

/* A cache of the first layout: no entry of it can be told to come from a
 * file its owner controls, and each is taken for root's; all go. */
static void upgrade(struct keeper *k)
{
	char have[8] = "";
	int fd = open(LAYOUT_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t n = read(fd, have, sizeof(have) - 1);
		have[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	if (strcmp(have, LAYOUT) == 0)
		return;
	if (access(".build-id", F_OK) == 0)
		warnx("build-id cache %s: its entries, of a layout that did not say whose files they "
		      "came from, are deleted",
		      k->dir);
	remove_tree(".build-id");
	fd = open(LAYOUT_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, LAYOUT, strlen(LAYOUT)) != (ssize_t)strlen(LAYOUT))
			warn("build-id cache %s/%s", k->dir, LAYOUT_FILE);
		close(fd);
	}
}

/* Deletes the least recently used entries the capture does not need
 * until the cache holds at most target bytes. */
static void prune(struct keeper *k, uint64_t target)
{
	char path[ENTRY_MAX];

	for (size_t i = 0; i < k->n && k->total > target; i++) {
		struct entry *e = &k->e[i];
		if (!e->rel[0] || e->touched)
			continue;
		if (unlink(e->rel) != 0 && errno != ENOENT)
			continue;
		k->total -= e->size;
		snprintf(path, sizeof(path), "%s", e->rel);
		e->rel[0] = '\0';
		/* Its directory too, once empty. */
		*strrchr(path, '/') = '\0';
		rmdir(path);
	}
}

static int has(struct keeper *k, const char *rel)
{
	struct stat st;
	struct entry *e;

	if (stat(rel, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	/* Used again: it moves to the young end. */
	utimensat(AT_FDCWD, rel, NULL, 0);
	if (!(e = find_entry(k, rel)))
		e = add_entry(k, rel, (uint64_t)st.st_size, (int64_t)time(NULL));
	e->touched = true;
	return 1;
}

static int copy_in(int from, const char *tmp, uint64_t size)
{
	char buf[65536];
	uint64_t off = 0;
	int to = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (to < 0)
		return -errno;
	while (off < size) {
		size_t want = size - off < sizeof(buf) ? (size_t)(size - off) : sizeof(buf);
		ssize_t n = pread(from, buf, want, (off_t)off);
		if (n <= 0 || write(to, buf, (size_t)n) != n) {
			int e = n < 0 ? errno : EIO;
			close(to);
			unlink(tmp);
			return -e;
		}
		off += (uint64_t)n;
	}
	if (close(to) != 0) {
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

/* mkdir -p of a relative path in the cache, every directory private. */
static int make_parents(const char *rel)
{
	char path[ENTRY_MAX];

	snprintf(path, sizeof(path), "%s", rel);
	for (char *p = strchr(path, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

static int put(struct keeper *k, const char *rel, int fd, uint64_t *bytes)
{
	char tmp[ENTRY_MAX + 32];
	struct stat st;
	int err;

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return -EINVAL;
	*bytes = (uint64_t)st.st_size;
	if (*bytes > k->limit)
		return -EFBIG;
	if (k->total + *bytes > k->limit)
		prune(k, k->limit - *bytes);
	if (k->total + *bytes > k->limit)
		return -ENOSPC;
	if ((err = make_parents(rel)) != 0)
		return err;
	/* Beside the entry, hidden, named for this keeper. */
	const char *base = strrchr(rel, '/') + 1;
	snprintf(tmp, sizeof(tmp), "%.*s.%s.%d.tmp", (int)(base - rel), rel, base, (int)getpid());
	if ((err = copy_in(fd, tmp, *bytes)) != 0)
		return err;
	if (rename(tmp, rel) != 0) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	struct entry *e = find_entry(k, rel);
	if (e) {
		k->total -= e->size;
		e->rel[0] = '\0';
	}
	add_entry(k, rel, *bytes, (int64_t)time(NULL))->touched = true;
	return 0;
}

static void serve(int sock, void *arg)
{
	struct keeper *k = arg;
	struct cache_request rq;
	int fd;

	for (;;) {
		ssize_t n = helper_recv(sock, &rq, sizeof(rq), &fd);
		struct cache_reply rp = { .status = -EINVAL };
		char hex[2 * BUILD_ID_MAX + 1], rel[ENTRY_MAX];

		if (n <= 0) {
			if (fd >= 0)
				close(fd);
			return;
		}
		if (n == sizeof(rq) && rq.idlen >= 2 && rq.idlen <= BUILD_ID_MAX) {
			build_id_hex(rq.id, rq.idlen, hex);
			entry_path(rq.owner, hex, rel, sizeof(rel));
			/* Another capture may share the cache. */
			flock(k->lock, LOCK_EX);
			if (rq.op == OP_HAS)
				rp.status = has(k, rel);
			else if (rq.op == OP_PUT)
				rp.status = put(k, rel, fd, &rp.bytes);
			flock(k->lock, LOCK_UN);
		}
		if (fd >= 0)
			close(fd);
		if (!helper_send(sock, &rp, sizeof(rp), -1))
			return;
	}
}

/* mkdir -p, the last component private. */
static bool make_dirs(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(path))
		return false;
	memcpy(path, dir, n + 1);
	for (char *p = path + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;
			*p = '\0';
			if (mkdir(path, c ? 0755 : 0700) != 0 && errno != EEXIST)
				return false;
			if (!(*p = c))
				return true;
		}
	}
}

static bool confine(void *arg)
{
	struct keeper *k = arg;
	struct stat st;
	int fd;

	umask(022);
	if (!make_dirs(k->dir) || (fd = open(k->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		warn("build-id cache %s", k->dir);
		return false;
	}
	/* What every capture trusts must be the user's alone, and so must
	 * what it holds: the symbols of files only their owners may read
	 * (a systemd CacheDirectory= is 0755 unless told otherwise). */
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		warnx("build-id cache %s: must belong to the user running prof-sample and be "
		      "private to them (chmod 700): it holds the symbols of files only their owners "
		      "may read",
		      k->dir);
		close(fd);
		return false;
	}
	umask(077);
	if (fchdir(fd) != 0) {
		close(fd);
		return false;
	}
	close(fd);
	/* Root keeps only the cache in reach.  Another user (running
	 * prof-sample with capabilities) may not chroot, and has nothing to
	 * confine: what it can write is its own. */
	if (chroot(".") == 0) {
		if (chdir("/") != 0)
			return false;
	} else if (geteuid() == 0) {
		warn("build-id cache %s: chroot", k->dir);
		return false;
	}
	if (!keep_only(NULL, 0, false))
		return false;
	if ((k->lock = open(".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		warn("build-id cache %s/.lock", k->dir);
		return false;
	}
	k->byrel = htab_new();
	flock(k->lock, LOCK_EX);
	upgrade(k);
	scan(k);
	prune(k, k->limit);
	flock(k->lock, LOCK_UN);
	return true;
}

/* In a child of its own, as the keeper: confined to the cache, scanned,
 * pruned to the limit, and then it lists it. */
static int tend(const char *dir, uint64_t limit, FILE *list)
{
	struct keeper k = { .dir = dir, .limit = limit, .lock = -1 };
	uint64_t n = 0;

	if (!confine(&k))
		return EXIT_USAGE;
	for (size_t i = 0; i < k.n; i++) {
		const struct entry *e = &k.e[i];
		char when[32];
		struct tm tm;
		time_t t = (time_t)e->mtime;
		if (!e->rel[0])
			continue;
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", localtime_r(&t, &tm));
		if (list)
			fprintf(list, "%s %12" PRIu64 " %s/%s\n", when, e->size, dir, e->rel);
		n++;
	}
	warnx("build-id cache %s: %" PRIu64 " entries, %.1f MiB of a %.1f MiB limit", dir, n,
	      (double)k.total / (1 << 20), (double)limit / (1 << 20));
	if (list && (fflush(list) != 0 || ferror(list))) {
		warn("standard output");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

bool cache_keeper_tend(const char *dir, uint64_t limit, FILE *list)
{
	int status;
	pid_t pid;

	/* Not this process: a chrooted one has no /proc, and nothing that
	 * runs at its exit (a sanitizer's leak check) may need it. */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		warn("fork");
		return false;
	}
	if (pid == 0) {
		status = tend(dir, limit, list);
		fflush(NULL);
		_exit(status);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			warn("waitpid");
			return false;
		}
	return WIFEXITED(status) && WEXITSTATUS(status) == EXIT_OK;
}

bool cache_keeper_start(struct helper *h, const char *dir, uint64_t limit)
{
	struct keeper k = { .dir = dir, .limit = limit, .lock = -1 };

	/* k is the child's copy from here on. */
	return helper_spawn(h, "build-id cache", confine, serve, &k, false);
}

static bool call(struct helper *h, uint32_t op, uint32_t owner, const uint8_t *id, size_t len,
		 int fd, struct cache_reply *rp)
{
	struct cache_request rq = { .op = op, .idlen = (uint32_t)len, .owner = owner };

	if (len > BUILD_ID_MAX)
		return false;
	memcpy(rq.id, id, len);
	return helper_call(h, &rq, sizeof(rq), fd, rp, sizeof(*rp), NULL);
}

int cache_keeper_has(struct helper *h, uint32_t owner, const uint8_t *id, size_t len)
{
	struct cache_reply rp;

	return call(h, OP_HAS, owner, id, len, -1, &rp) ? rp.status == 1 : -1;
}

int cache_keeper_put(struct helper *h, uint32_t owner, const uint8_t *id, size_t len, int fd,
		     uint64_t *bytes)
{
	struct cache_reply rp;

	if (!call(h, OP_PUT, owner, id, len, fd, &rp))
		return -EIO;
	*bytes = rp.bytes;
	return rp.status;
}
