#include "build_id_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build_id.h"
#include "debug_image.h"
#include "diag.h"
#include "elf_bounded.h"
#include "mapped_files.h"
#include "privileges.h"
#include "processes.h"
#include "stream.h"

/* An image keeps its DWARF up to this size (and an eighth of the cache):
 * past it, symbols only; the DWARF is then for debuginfod to serve.  A
 * whole image is at most MAX_IMAGE and an eighth of the cache: one file
 * must not push out the rest of it, and the main process builds the image
 * in memory (a memfd) before the keeper may refuse it. */
#define MAX_DWARF (64ull << 20)
#define MAX_IMAGE (256ull << 20)
/* Temporary files older than this were left by a capture that died. */
#define STALE_TMP_SECS 3600

enum { OP_HAS = 1, OP_PUT = 2 };

struct cache_request {
	uint32_t op, idlen;
	uint8_t id[BUILD_ID_MAX];
};

struct cache_reply {
	int32_t status; /* HAS: 1 there, 0 not; PUT: 0 stored, or -errno */
	uint32_t reserved;
	uint64_t bytes;
};

struct pending {
	uint32_t pid;
	struct mapping m;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- the keeper, in its chroot ------------------------------------------ */

struct entry {
	char hex[2 * BUILD_ID_MAX + 1]; /* "" once deleted */
	uint64_t size;
	int64_t mtime;
	bool touched; /* needed by the running capture: never pruned by it */
};

struct keeper {
	const char *dir;
	uint64_t limit, total;
	struct entry *e; /* oldest first */
	size_t n, cap;
	struct htab *byhex; /* hex -> index in e */
	int lock;
};

static void entry_path(const char *hex, char *buf, size_t size)
{
	snprintf(buf, size, ".build-id/%.2s/%s.debug", hex, hex + 2);
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return n > 0;
}

static struct entry *add_entry(struct keeper *k, const char *hex, uint64_t size, int64_t mtime)
{
	struct htab_entry *h;

	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 256;
		k->e = xreallocarray(k->e, k->cap, sizeof(*k->e));
	}
	struct entry *e = &k->e[k->n];
	*e = (struct entry){ .size = size, .mtime = mtime };
	snprintf(e->hex, sizeof(e->hex), "%s", hex);
	h = htab_upsert(k->byhex, hex, strlen(hex), NULL);
	h->val.u = k->n++;
	k->total += size;
	return e;
}

static struct entry *find_entry(struct keeper *k, const char *hex)
{
	struct htab_entry *h = htab_find(k->byhex, hex, strlen(hex));

	return h && k->e[h->val.u].hex[0] ? &k->e[h->val.u] : NULL;
}

static int by_mtime(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* Reads what the cache holds: every .build-id/xx/yyyy.debug, oldest
 * first; removes what dead captures left half-written. */
static void scan(struct keeper *k)
{
	DIR *top = opendir(".build-id");
	struct dirent *d;
	time_t now = time(NULL);

	while (top && (d = readdir(top))) {
		char sub[64];
		DIR *dir;
		struct dirent *f;
		if (strlen(d->d_name) != 2 || !is_hex(d->d_name, 2))
			continue;
		snprintf(sub, sizeof(sub), ".build-id/%s", d->d_name);
		if (!(dir = opendir(sub)))
			continue;
		while ((f = readdir(dir))) {
			size_t len = strlen(f->d_name);
			struct stat st;
			char hex[2 * BUILD_ID_MAX + 1];
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
			snprintf(hex, sizeof(hex), "%s%.*s", d->d_name, (int)(len - 6), f->d_name);
			add_entry(k, hex, (uint64_t)st.st_size, st.st_mtime);
		}
		closedir(dir);
	}
	if (top)
		closedir(top);
	if (k->n)
		qsort(k->e, k->n, sizeof(*k->e), by_mtime);
	for (size_t i = 0; i < k->n; i++)
		htab_upsert(k->byhex, k->e[i].hex, strlen(k->e[i].hex), NULL)->val.u = i;
}

/* Deletes the least recently used entries the capture does not need
 * until the cache holds at most target bytes. */
static void prune(struct keeper *k, uint64_t target)
{
	char path[256];

	for (size_t i = 0; i < k->n && k->total > target; i++) {
		struct entry *e = &k->e[i];
		if (!e->hex[0] || e->touched)
			continue;
		entry_path(e->hex, path, sizeof(path));
		if (unlink(path) != 0 && errno != ENOENT)
			continue;
		k->total -= e->size;
		e->hex[0] = '\0';
		/* Its directory too, once empty. */
		*strrchr(path, '/') = '\0';
		rmdir(path);
	}
}

static int has(struct keeper *k, const char *hex)
{
	char path[256];
	struct stat st;
	struct entry *e;

	entry_path(hex, path, sizeof(path));
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	/* Used again: it moves to the young end. */
	utimensat(AT_FDCWD, path, NULL, 0);
	if (!(e = find_entry(k, hex)))
		e = add_entry(k, hex, (uint64_t)st.st_size, (int64_t)time(NULL));
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

static int put(struct keeper *k, const char *hex, int fd, uint64_t *bytes)
{
	char path[256], tmp[300];
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
	snprintf(path, sizeof(path), ".build-id/%.2s", hex);
	if ((mkdir(".build-id", 0700) != 0 && errno != EEXIST) || (mkdir(path, 0700) != 0 && errno != EEXIST))
		return -errno;
	entry_path(hex, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), ".build-id/%.2s/.%s.%d.tmp", hex, hex + 2, (int)getpid());
	if ((err = copy_in(fd, tmp, *bytes)) != 0)
		return err;
	if (rename(tmp, path) != 0) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	struct entry *e = find_entry(k, hex);
	if (e) {
		k->total -= e->size;
		e->hex[0] = '\0';
	}
	add_entry(k, hex, *bytes, (int64_t)time(NULL))->touched = true;
	return 0;
}

static void keeper_serve(int sock, void *arg)
{
	struct keeper *k = arg;
	struct cache_request rq;
	int fd;

	for (;;) {
		ssize_t n = helper_recv(sock, &rq, sizeof(rq), &fd);
		struct cache_reply rp = { .status = -EINVAL };
		char hex[2 * BUILD_ID_MAX + 1];

		if (n <= 0) {
			if (fd >= 0)
				close(fd);
			return;
		}
		if (n == sizeof(rq) && rq.idlen >= 2 && rq.idlen <= BUILD_ID_MAX) {
			build_id_hex(rq.id, rq.idlen, hex);
			/* Another capture may share the cache. */
			flock(k->lock, LOCK_EX);
			if (rq.op == OP_HAS)
				rp.status = has(k, hex);
			else if (rq.op == OP_PUT)
				rp.status = put(k, hex, fd, &rp.bytes);
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

static bool keeper_confine(void *arg)
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
	k->byhex = htab_new();
	flock(k->lock, LOCK_EX);
	scan(k);
	prune(k, k->limit);
	flock(k->lock, LOCK_UN);
	return true;
}

/* --- the main process's side -------------------------------------------- */

bool build_id_cache_start(struct build_id_cache *c, const char *dir, uint64_t limit)
{
	struct keeper k = { .dir = dir, .limit = limit, .lock = -1 };

	memset(c, 0, sizeof(*c));
	c->keeper.sock = -1;
	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	c->lim.max_dwarf = limit / 8 < MAX_DWARF ? limit / 8 : MAX_DWARF;
	c->lim.max_image = limit / 8 < MAX_IMAGE ? limit / 8 : MAX_IMAGE;
	c->seen = htab_new();
	/* k is the child's copy from here on. */
	return helper_spawn(&c->keeper, "build-id cache", keeper_confine, keeper_serve, &k, false);
}

static void free_pending(struct pending *p)
{
	free(p->m.path);
}

void build_id_cache_stop(struct build_id_cache *c)
{
	helper_stop(&c->keeper);
	for (size_t i = c->next; i < c->nqueue; i++)
		free_pending(&c->queue[i]);
	free(c->queue);
	htab_free(c->seen);
	c->queue = NULL;
	c->seen = NULL;
}

void build_id_cache_offer(struct build_id_cache *c, uint32_t pid, const struct mapping *m)
{
	bool created;

	if (!c || !c->seen || c->keeper.sock < 0 || m->build_id_len < 2 || m->path[0] != '/')
		return;
	htab_upsert(c->seen, m->build_id, m->build_id_len, &created);
	if (!created)
		return;
	if (c->nqueue == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->queue = xreallocarray(c->queue, c->cap, sizeof(*c->queue));
	}
	c->queue[c->nqueue] = (struct pending){ .pid = pid, .m = *m };
	c->queue[c->nqueue++].m.path = xstrdup(m->path);
}

static bool call(struct build_id_cache *c, uint32_t op, const struct mapping *m, int fd,
		 struct cache_reply *rp)
{
	struct cache_request rq = { .op = op, .idlen = m->build_id_len };

	memcpy(rq.id, m->build_id, m->build_id_len);
	return helper_call(&c->keeper, &rq, sizeof(rq), fd, rp, sizeof(*rp), NULL);
}

/* The best source of the image: the host's own debug file for the
 * build-id (the distribution's -dbg package: full symbols, DWARF), else
 * the mapped file itself. */
static int image_source(struct mapped_files *files, const struct pending *p)
{
	char hex[2 * BUILD_ID_MAX + 1], path[4200];
	uint8_t id[BUILD_ID_MAX];
	int fd;

	build_id_hex(p->m.build_id, p->m.build_id_len, hex);
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if ((fd = open_regular(path, 0)) >= 0) {
		if (fd_build_id(fd, id) == p->m.build_id_len &&
		    memcmp(id, p->m.build_id, p->m.build_id_len) == 0)
			return fd;
		close(fd);
	}
	return mapped_files_open(files, p->pid, &p->m, NULL);
}

static void store(struct build_id_cache *c, struct mapped_files *files, const struct pending *p)
{
	struct cache_reply rp;
	struct image_stats ist;
	enum image_result r = IMAGE_NOT_ELF;
	int src, image;

	if (!call(c, OP_HAS, &p->m, -1, &rp))
		return;
	if (rp.status == 1) {
		c->stats.present++;
		return;
	}
	if ((src = image_source(files, p)) < 0) {
		/* Its process gone before the file was opened: the next
		 * process to map it may still be there. */
		htab_remove(c->seen, p->m.build_id, p->m.build_id_len);
		c->stats.failed++;
		return;
	}
	image = memfd_create("prof-debug-image", MFD_CLOEXEC);
	Elf *elf = image >= 0 ? elf_begin_bounded(src) : NULL;
	if (elf)
		r = debug_image_write(elf, src, image, &c->lim, &ist);
	elf_end(elf);
	close(src);
	if (r == IMAGE_WRITTEN && (ist.too_large || ist.holes))
		c->stats.cut++;
	if (r == IMAGE_NO_SYMBOLS)
		c->stats.useless++;
	else if (r != IMAGE_WRITTEN)
		c->stats.failed++;
	else if (call(c, OP_PUT, &p->m, image, &rp) && rp.status == 0) {
		c->stats.stored++;
		c->stats.bytes += rp.bytes;
	} else if (rp.status == -ENOSPC || rp.status == -EFBIG) {
		c->stats.full++;
	} else {
		c->stats.failed++;
	}
	if (image >= 0)
		close(image);
}

void build_id_cache_work(struct build_id_cache *c, struct mapped_files *files, uint64_t budget_ns)
{
	uint64_t start;

	if (!c || c->next == c->nqueue)
		return;
	start = now_ns();
	while (c->next < c->nqueue) {
		struct pending *p = &c->queue[c->next++];
		if (c->keeper.sock >= 0)
			store(c, files, p);
		free_pending(p);
		if (budget_ns && now_ns() - start >= budget_ns)
			break;
	}
	if (c->next == c->nqueue)
		c->next = c->nqueue = 0;
	c->stats.ns += now_ns() - start;
}

void build_id_cache_touch(struct build_id_cache *c, struct mapped_files *files)
{
	for (size_t i = c ? c->next : 0; c && i < c->nqueue; i++)
		mapped_files_touch(files, &c->queue[i].m);
}
