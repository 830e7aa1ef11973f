#include "mapped_files.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "processes.h"
#include "stream.h"

#define DELETED " (deleted)"

/* A failure (the process gone, a mapping being replaced) is not tried
 * again for the same process sooner: the unwinder asks at every sample. */
#define RETRY_NS (50 * 1000000ull)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* How many files may stay open: the soft limit raised to the hard one,
 * less a margin for everything else. */
static size_t open_files_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur > 512 ? (size_t)(rl.rlim_cur - 512) : 0;
}

void mapped_files_init(struct mapped_files *mf, struct opener *opener)
{
	memset(mf, 0, sizeof(*mf));
	mf->opener = opener;
	mf->byid = htab_new();
	mf->max_fds = open_files_budget();
}

void mapped_files_free(struct mapped_files *mf)
{
	for (size_t i = 0; i < mf->n; i++) {
		if (mf->all[i]->fd >= 0)
			close(mf->all[i]->fd);
		free(mf->all[i]);
	}
	free(mf->all);
	htab_free(mf->byid);
}

/* Keys: 'b' and the build-id, or 'i', the device and the inode. */
static size_t build_id_key(const uint8_t *id, size_t len, char *key)
{
	key[0] = 'b';
	memcpy(key + 1, id, len);
	return 1 + len;
}

static size_t inode_key(uint64_t dev, uint64_t ino, char *key)
{
	key[0] = 'i';
	memcpy(key + 1, &dev, sizeof(dev));
	memcpy(key + 1 + sizeof(dev), &ino, sizeof(ino));
	return 1 + sizeof(dev) + sizeof(ino);
}

static struct mapped_file *find(struct mapped_files *mf, const struct mapping *m)
{
	char key[1 + BUILD_ID_MAX];
	struct htab_entry *e = NULL;

	if (m->build_id_len)
		e = htab_find(mf->byid, key, build_id_key(m->build_id, m->build_id_len, key));
	if (!e && m->inode)
		e = htab_find(mf->byid, key, inode_key(m->dev, m->inode, key));
	if (!e)
		return NULL;
	((struct mapped_file *)e->val.p)->used = mf->sweeps;
	return e->val.p;
}

static void index_as(struct mapped_files *mf, struct mapped_file *f, const char *key, size_t len)
{
	struct htab_entry *e = htab_upsert(mf->byid, key, len, NULL);

	e->val.p = f;
}

/* Known by every identity it has: the mapping's (which on some file
 * systems names the device differently from fstat) and the file's own. */
static void index_file(struct mapped_files *mf, struct mapped_file *f, const struct mapping *m)
{
	char key[1 + BUILD_ID_MAX];

	if (f->build_id_len)
		index_as(mf, f, key, build_id_key(f->build_id, f->build_id_len, key));
	if (f->ino)
		index_as(mf, f, key, inode_key(f->dev, f->ino, key));
	if (m->inode)
		index_as(mf, f, key, inode_key(m->dev, m->inode, key));
	if (m->build_id_len)
		index_as(mf, f, key, build_id_key(m->build_id, m->build_id_len, key));
}

static struct mapped_file *add(struct mapped_files *mf, const struct mapping *m)
{
	struct mapped_file *f = xcalloc(1, sizeof(*f));

	if (mf->n == mf->cap) {
		mf->cap = mf->cap ? 2 * mf->cap : 64;
		mf->all = xreallocarray(mf->all, mf->cap, sizeof(*mf->all));
	}
	mf->all[mf->n++] = f;
	f->fd = -1;
	f->used = mf->sweeps;
	f->build_id_len = m->build_id_len;
	memcpy(f->build_id, m->build_id, m->build_id_len);
	index_file(mf, f, m);
	return f;
}

/* By path, as nobody: only a file that can be told to be the mapped one. */
static int open_by_path(const struct mapping *m, uint64_t *dev, uint64_t *ino)
{
	size_t n = strlen(m->path), k = strlen(DELETED);
	struct stat st;
	int fd;

	if (m->path[0] != '/' || (n >= k && strcmp(m->path + n - k, DELETED) == 0))
		return -1;
	if (!m->inode && !m->build_id_len)
		return -1;
	if ((fd = open_regular(m->path, O_NOFOLLOW)) < 0)
		return -1;
	if (fstat(fd, &st) != 0 || (m->inode && st.st_ino != m->inode)) {
		close(fd);
		return -1;
	}
	*dev = st.st_dev;
	*ino = st.st_ino;
	return fd;
}

/* Whether fd, opened for m, is the file m maps; fills in f's identity. */
static bool check(struct mapped_file *f, const struct mapping *m, int fd, uint64_t dev,
		  uint64_t ino)
{
	uint8_t id[BUILD_ID_MAX];
	size_t len = fd_build_id(fd, id);

	if (m->build_id_len && (len != m->build_id_len || memcmp(id, m->build_id, len) != 0))
		return false;
	/* The address may hold another file since (mapped anew): the inode
	 * /proc gave tells (the device may be named otherwise). */
	if (m->inode && ino != m->inode)
		return false;
	f->opened = true;
	f->dev = dev;
	f->ino = ino;
	f->build_id_len = (uint8_t)len;
	memcpy(f->build_id, id, len);
	return true;
}

int mapped_files_open(struct mapped_files *mf, uint32_t pid, const struct mapping *m,
		      struct mapped_file **file)
{
	struct mapped_file *f = find(mf, m), *same;
	uint64_t dev = 0, ino = 0;
	bool by_opener = false;
	int fd = -1;

	if (file)
		*file = f;
	if (f && f->fd >= 0)
		return fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	if ((f && f->failed_pid == pid && now_ns() - f->failed_ns < RETRY_NS) || m->path[0] != '/')
		return -1;
	if (mf->opener)
		fd = opener_open(mf->opener, pid, m->start, m->end, &dev, &ino);
	by_opener = fd >= 0;
	if (fd < 0 && mf->by_path)
		fd = open_by_path(m, &dev, &ino);
	/* The same file seen before under another identity (its inode as
	 * fstat tells it, where the mapping gave a build-id). */
	if (fd >= 0 && !f && (same = find(mf, &(struct mapping){ .dev = dev, .inode = ino }))) {
		f = same;
		index_file(mf, f, m);
		if (f->fd >= 0) {
			close(fd);
			fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
		}
	}
	if (!f)
		f = add(mf, m);
	if (file)
		*file = f;
	if (fd >= 0 && (f->opened ? ino != f->ino : !check(f, m, fd, dev, ino))) {
		mf->mismatched++;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		f->failed_pid = pid;
		f->failed_ns = now_ns();
		mf->unreadable++;
		return -1;
	}
	if (f->fd < 0 && mf->open_fds < mf->max_fds) {
		f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		mf->open_fds += f->fd >= 0;
	}
	if (by_opener)
		mf->opened_privileged++;
	else
		mf->opened_by_path++;
	index_file(mf, f, m);
	return fd;
}

void mapped_files_identify(struct mapped_files *mf, uint32_t pid, struct mapping *m)
{
	struct mapped_file *f;
	int fd;

	if (m->build_id_len || m->path[0] != '/')
		return;
	fd = mapped_files_open(mf, pid, m, &f);
	if (fd >= 0)
		close(fd);
	if (f && f->opened) {
		m->build_id_len = f->build_id_len;
		memcpy(m->build_id, f->build_id, f->build_id_len);
	}
}

void mapped_files_prefetch(struct mapped_files *mf, uint32_t pid, const struct mapping *m)
{
	struct mapped_file *f;
	int fd;

	/* Known but not open (an earlier process had gone before it could
	 * be opened): this process may still be there. */
	if (m->path[0] != '/' || ((f = find(mf, m)) && (f->fd >= 0 || f->opened)))
		return;
	fd = mapped_files_open(mf, pid, m, NULL);
	if (fd >= 0)
		close(fd);
}

void mapped_files_touch(struct mapped_files *mf, const struct mapping *m)
{
	find(mf, m);
}

static bool idle(const struct mapped_files *mf, const struct mapped_file *f)
{
	return mf->sweeps - f->used >= MAPPED_FILES_IDLE;
}

void mapped_files_sweep(struct mapped_files *mf)
{
	struct htab_entry *e = htab_entries(mf->byid);
	size_t kept = 0;

	/* Every key of an idle file first (a file has up to four), then the
	 * file. */
	for (size_t i = 0; i < htab_count(mf->byid);) {
		char key[1 + BUILD_ID_MAX]; /* the longest build_id_key() */
		uint32_t len = e[i].len;
		if (!idle(mf, e[i].val.p)) {
			i++;
			continue;
		}
		memcpy(key, e[i].key, len);
		htab_remove(mf->byid, key, len); /* moves the last entry to i */
		e = htab_entries(mf->byid);
	}
	for (size_t i = 0; i < mf->n; i++) {
		struct mapped_file *f = mf->all[i];
		if (!idle(mf, f)) {
			mf->all[kept++] = f;
			continue;
		}
		if (f->fd >= 0) {
			close(f->fd);
			mf->open_fds--;
		}
		free(f);
		mf->released++;
	}
	mf->n = kept;
	mf->sweeps++;
}
