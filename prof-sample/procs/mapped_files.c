#include "mapped_files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "diag.h"
#include "mapping.h"

#define DELETED " (deleted)"

/* A failure (the process gone, a mapping being replaced) is not tried
 * again for the same process sooner: the unwinder asks at every sample. */
#define RETRY_NS (50 * 1000000ull)

/* The keys of byid:
 *   'i' device inode     every file whose identity is known, under
 *                        fstat's device and /proc's where they differ;
 *   'b' build-id         system files only (see mapped_files.h);
 *   'p' build-id path    files opened by path, for the mappings of
 *                        processes that have gone: nothing else names them.
 * The longest is a 'p' key. */
#define KEY_MAX (1 + BUILD_ID_MAX + PATH_MAX)

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
	mf->byserial = htab_new();
	mf->max_fds = open_files_budget();
}

void mapped_files_free(struct mapped_files *mf)
{
	file_reader_free(mf->reader);
	for (size_t i = 0; i < mf->n; i++) {
		if (mf->all[i]->fd >= 0)
			close(mf->all[i]->fd);
		free(mf->all[i]);
	}
	free(mf->all);
	htab_free(mf->byid);
	htab_free(mf->byserial);
}

static size_t inode_key(uint64_t dev, uint64_t ino, char *key)
{
	key[0] = 'i';
	memcpy(key + 1, &dev, sizeof(dev));
	memcpy(key + 1 + sizeof(dev), &ino, sizeof(ino));
	return 1 + sizeof(dev) + sizeof(ino);
}

static size_t build_id_key(const uint8_t *id, size_t len, char *key)
{
	key[0] = 'b';
	memcpy(key + 1, id, len);
	return 1 + len;
}

/* 0 if the path does not fit. */
static size_t path_key(const struct mapping *m, char *key)
{
	size_t n = strlen(m->path);

	if (n >= PATH_MAX)
		return 0;
	key[0] = 'p';
	key[1] = (char)m->build_id_len;
	memcpy(key + 2, m->build_id, m->build_id_len);
	memcpy(key + 2 + m->build_id_len, m->path, n);
	return 2 + m->build_id_len + n;
}

static struct mapped_file *lookup(struct mapped_files *mf, const char *key, size_t len)
{
	struct htab_entry *e = len ? htab_find(mf->byid, key, len) : NULL;

	if (!e)
		return NULL;
	((struct mapped_file *)e->val.p)->used = mf->sweeps;
	return e->val.p;
}

static void index_as(struct mapped_files *mf, struct mapped_file *f, const char *key, size_t len)
{
	if (len)
		htab_upsert(mf->byid, key, len, NULL)->val.p = f;
}

enum file_trust mapped_file_trust(const struct mapped_file *f)
{
	uint32_t owner;

	if (!f->opened)
		return TRUST_UNKNOWN;
	if (f->fs.kind == FS_FUSE)
		owner = f->fs.fuse_owner; /* its server says all the rest */
	else if (f->fs.owners_true && !(f->mode & S_IWOTH) &&
		 !(f->uid == 0 && (f->mode & S_IWGRP) && f->gid != 0))
		owner = f->uid;
	else
		return TRUST_UNKNOWN;
	return owner == 0 ? TRUST_SYSTEM : TRUST_USER;
}

uint32_t mapped_file_owner(const struct mapped_file *f)
{
	return f->fs.kind == FS_FUSE ? f->fs.fuse_owner : f->uid;
}

/* Known by every identity it has: its inode (fstat's), the mapping's
 * (/proc may name the device otherwise), and its build-id if it is a
 * system file. */
static void index_file(struct mapped_files *mf, struct mapped_file *f, const struct mapping *m)
{
	char key[KEY_MAX];

	if (f->ino)
		index_as(mf, f, key, inode_key(f->dev, f->ino, key));
	if (m && m->inode && (!f->ino || m->inode == f->ino))
		index_as(mf, f, key, inode_key(m->dev, m->inode, key));
	if (f->build_id_len && mapped_file_trust(f) == TRUST_SYSTEM)
		index_as(mf, f, key, build_id_key(f->build_id, f->build_id_len, key));
}

/* The file a live process's mapping m is: by its inode, else by its
 * build-id if that is a system file's. */
static struct mapped_file *find(struct mapped_files *mf, const struct mapping *m)
{
	char key[KEY_MAX];
	struct mapped_file *f = NULL;

	if (m->inode)
		f = lookup(mf, key, inode_key(m->dev, m->inode, key));
	if (!f && m->build_id_len)
		f = lookup(mf, key, build_id_key(m->build_id, m->build_id_len, key));
	return f;
}

static struct mapped_file *add(struct mapped_files *mf, const struct mapping *m)
{
	struct mapped_file *f = xcalloc(1, sizeof(*f));

	mf->all = xreserve(mf->all, &mf->cap, mf->n + 1, sizeof(*mf->all));
	mf->all[mf->n++] = f;
	f->fd = -1;
	f->used = mf->sweeps;
	f->serial = ++mf->serials;
	f->want_ino = m->inode;
	f->build_id_len = m->build_id_len;
	memcpy(f->build_id, m->build_id, m->build_id_len);
	index_file(mf, f, m);
	return f;
}

/* Whether fd is the file f must be (the mapping's build-id, the inode
 * /proc gave: the address may hold another file since); takes its
 * identity if so. */
static bool accept(struct mapped_file *f, int fd, const struct opened_file *info)
{
	uint8_t id[BUILD_ID_MAX];
	size_t len = fd_build_id(fd, id);

	if (f->build_id_len && (len != f->build_id_len || memcmp(id, f->build_id, len) != 0))
		return false;
	if (f->want_ino && info->ino != f->want_ino)
		return false;
	f->opened = true;
	f->dev = info->dev;
	f->ino = info->ino;
	f->uid = info->uid;
	f->gid = info->gid;
	f->mode = info->mode;
	f->build_id_len = (uint8_t)len;
	memcpy(f->build_id, id, len);
	return true;
}

/* Keeps fd as f's, within the budget of descriptors. */
static void keep(struct mapped_files *mf, struct mapped_file *f, int fd)
{
	if (f->fd < 0 && mf->open_fds < mf->max_fds) {
		f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		mf->open_fds += f->fd >= 0;
	}
}

static int failed(struct mapped_files *mf, struct mapped_file *f, uint32_t pid)
{
	f->failed_pid = pid;
	f->failed_ns = monotonic_ns();
	mf->unreadable++;
	return -1;
}

/* f's own descriptor again, or -1 (errno EINPROGRESS) while it is coming. */
static int reuse(struct mapped_file *f)
{
	if (f->given_up)
		return -1;
	if (f->pending) {
		errno = EINPROGRESS;
		return -1;
	}
	return f->fd >= 0 ? fcntl(f->fd, F_DUPFD_CLOEXEC, 0) : -1;
}

static int pend(struct mapped_files *mf, struct mapped_file *f)
{
	f->pending = true;
	htab_upsert(mf->byserial, &f->serial, sizeof(f->serial), NULL)->val.p = f;
	errno = EINPROGRESS;
	return -1;
}

/* Through the opener, which reaches the file the process maps wherever it
 * is: the same file as one known already is that one. */
static int by_opener(struct mapped_files *mf, uint32_t pid, const struct mapping *m,
		     struct mapped_file **file, int fd, const struct opened_file *info)
{
	char key[KEY_MAX];
	struct mapped_file *f = *file, *same = lookup(mf, key, inode_key(info->dev, info->ino, key));

	if (same && same != f) {
		*file = f = same;
		index_file(mf, f, m);
		if (f->fd >= 0 || f->pending || f->given_up) {
			close(fd);
			return reuse(f);
		}
	} else if (!same && f && f->opened && f->ino != info->ino) {
		/* Another file with a system file's build-id: its own. */
		f = NULL;
	}
	if (!f)
		*file = f = add(mf, m);
	f->fs = info->fs;
	if (info->fs.kind != FS_LOCAL) {
		/* Not to be read here: the reader copies it. */
		if (!mf->reader) {
			close(fd);
			return failed(mf, f, pid);
		}
		f->dev = info->dev;
		f->ino = info->ino;
		index_file(mf, f, m);
		file_reader_copy(mf->reader, f->serial, fd);
		return pend(mf, f);
	}
	if (f->opened ? info->ino != f->ino : !accept(f, fd, info)) {
		mf->mismatched++;
		close(fd);
		return failed(mf, f, pid);
	}
	keep(mf, f, fd);
	mf->opened_privileged++;
	index_file(mf, f, m);
	return fd;
}

/* By its path, by the reader: only a file that can be told to be the
 * mapped one, and not a deleted one (the path is another file's). */
static int by_path(struct mapped_files *mf, uint32_t pid, const struct mapping *m,
		   struct mapped_file **file)
{
	char key[KEY_MAX];
	size_t n = strlen(m->path), k = strlen(DELETED), klen = path_key(m, key);
	struct mapped_file *f = *file, *known = lookup(mf, key, klen);

	if (known)
		*file = f = known;
	if (known && (known->fd >= 0 || known->pending || known->given_up))
		return reuse(known);
	if ((n >= k && strcmp(m->path + n - k, DELETED) == 0) || (!m->inode && !m->build_id_len) ||
	    !klen) {
		if (f)
			failed(mf, f, pid);
		return -1;
	}
	if (!f)
		*file = f = add(mf, m);
	if (f->failed_ns && monotonic_ns() - f->failed_ns < RETRY_NS)
		return -1;
	index_as(mf, f, key, klen);
	file_reader_open(mf->reader, f->serial, m->path, 0);
	return pend(mf, f);
}

int mapped_files_open(struct mapped_files *mf, uint32_t pid, const struct mapping *m,
		      struct mapped_file **file)
{
	struct mapped_file *f = find(mf, m);
	struct opened_file info;
	int fd = -1;

	if (file)
		*file = f;
	if (f && (f->fd >= 0 || f->pending || f->given_up))
		return reuse(f);
	/* Failed for this process (or for any, 0: by the reader) just now. */
	if ((f && (f->failed_pid == pid || !f->failed_pid) && f->failed_ns &&
	     monotonic_ns() - f->failed_ns < RETRY_NS) ||
	    m->path[0] != '/')
		return -1;
	if (mf->opener && (fd = opener_open(mf->opener, pid, m->start, m->end, &info)) >= 0) {
		fd = by_opener(mf, pid, m, &f, fd, &info);
		if (file)
			*file = f;
		return fd;
	}
	if (mf->reader) {
		fd = by_path(mf, pid, m, &f);
		if (file)
			*file = f;
		return fd;
	}
	return f ? failed(mf, f, pid) : -1;
}

/* The reader's answer for file serial r->tag. */
static void brought(void *ctx, const struct read_result *r)
{
	struct mapped_files *mf = ctx;
	struct htab_entry *e = htab_find(mf->byserial, &r->tag, sizeof(r->tag));
	struct mapped_file *f = e ? e->val.p : NULL;
	struct opened_file info = r->info;

	if (!f) {
		if (r->fd >= 0)
			close(r->fd);
		return;
	}
	htab_remove(mf->byserial, &r->tag, sizeof(r->tag));
	f->pending = false;
	mf->epoch++;
	/* A file system that kept the reader waiting is not asked again;
	 * after three, no file system that is not local is. */
	f->given_up = r->err == ETIMEDOUT || r->err == EREMOTE;
	/* A copy's file system is the one the opener saw. */
	if (f->fs.kind != FS_UNKNOWN)
		info.fs = f->fs;
	if (r->fd < 0 || !accept(f, r->fd, &info)) {
		mf->mismatched += r->fd >= 0;
		if (r->fd >= 0)
			close(r->fd);
		failed(mf, f, 0);
		return;
	}
	f->fs = info.fs;
	if (info.fs.kind == FS_LOCAL)
		mf->opened_by_path++;
	else
		mf->copied++;
	keep(mf, f, r->fd);
	close(r->fd);
	index_file(mf, f, NULL);
}

void mapped_files_start_reader(struct mapped_files *mf)
{
	if (!mf->reader)
		mf->reader = file_reader_new(brought, mf);
}

void mapped_files_poll(struct mapped_files *mf, int settle_ms)
{
	if (mf->reader)
		file_reader_poll(mf->reader, settle_ms);
}

void mapped_files_identify(struct mapped_files *mf, uint32_t pid, struct mapping *m)
{
	struct mapped_file *f;
	int fd;

	if (m->path[0] != '/')
		return;
	fd = mapped_files_open(mf, pid, m, &f);
	if (fd >= 0)
		close(fd);
	if (!f || !f->opened)
		return;
	if (!m->build_id_len) {
		m->build_id_len = f->build_id_len;
		memcpy(m->build_id, f->build_id, f->build_id_len);
	}
	if (!m->inode) {
		m->dev = f->dev;
		m->inode = f->ino;
	}
	if (mapped_file_trust(f) != TRUST_UNKNOWN) {
		m->trusted = true;
		m->owner = mapped_file_owner(f);
	}
}

void mapped_files_touch(struct mapped_files *mf, const struct mapping *m)
{
	char key[KEY_MAX];

	if (!find(mf, m))
		lookup(mf, key, path_key(m, key));
}

static bool idle(const struct mapped_files *mf, const struct mapped_file *f)
{
	return !f->pending && mf->sweeps - f->used >= MAPPED_FILES_IDLE;
}

/* A key of an idle file: the file itself is let go of after. */
static bool idle_key(struct htab_entry *e, void *arg)
{
	return idle(arg, e->val.p);
}

void mapped_files_sweep(struct mapped_files *mf)
{
	size_t kept = 0;

	/* Every key of an idle file first (a file has several), then the
	 * file. */
	htab_remove_if(mf->byid, idle_key, mf);
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
