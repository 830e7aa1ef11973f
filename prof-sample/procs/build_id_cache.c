#include "build_id_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build_id.h"
#include "cache_keeper.h"
#include "clock.h"
#include "debug_image.h"
#include "diag.h"
#include "elf_bounded.h"
#include "local_fs.h"
#include "mapped_files.h"
#include "mapping.h"
#include "stream.h"

/* An image keeps its DWARF up to this size (and an eighth of the cache):
 * past it, symbols only; the DWARF is then for debuginfod to serve.  A
 * whole image is at most MAX_IMAGE and an eighth of the cache: one file
 * must not push out the rest of it, and the main process builds the image
 * in memory (a memfd) before the keeper may refuse it. */
#define MAX_DWARF (64ull << 20)
#define MAX_IMAGE (256ull << 20)
struct pending {
	uint32_t pid;
	struct mapping m;
	bool absent; /* the keeper said it has no entry for it */
};


/* --- the main process's side -------------------------------------------- */

bool build_id_cache_start(struct build_id_cache *c, const char *dir, uint64_t limit)
{
	memset(c, 0, sizeof(*c));
	c->keeper.sock = -1;
	/* The host's debug files, looked up by name in that directory only
	 * (root's, on a local file system: nothing a user chose). */
	c->debug_dir = open("/usr/lib/debug/.build-id", O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	c->lim.max_dwarf = limit / 8 < MAX_DWARF ? limit / 8 : MAX_DWARF;
	c->lim.max_image = limit / 8 < MAX_IMAGE ? limit / 8 : MAX_IMAGE;
	c->seen = htab_new();
	return cache_keeper_start(&c->keeper, dir, limit);
}

static void free_pending(struct pending *p)
{
	free(p->m.path);
}

void build_id_cache_stop(struct build_id_cache *c)
{
	helper_stop(&c->keeper);
	if (c->debug_dir >= 0)
		close(c->debug_dir);
	c->debug_dir = -1;
	for (size_t i = c->next; i < c->nqueue; i++)
		free_pending(&c->queue[i]);
	free(c->queue);
	htab_free(c->seen);
	c->queue = NULL;
	c->seen = NULL;
}

/* The seen set's key: the build-id, then whose part of the cache. */
static size_t seen_key(const struct mapping *m, uint8_t *key)
{
	memcpy(key, m->build_id, m->build_id_len);
	memcpy(key + m->build_id_len, &m->owner, sizeof(m->owner));
	return m->build_id_len + sizeof(m->owner);
}

void build_id_cache_offer(struct build_id_cache *c, uint32_t pid, const struct mapping *m)
{
	uint8_t key[BUILD_ID_MAX + sizeof(uint32_t)];
	bool created;

	if (!c || !c->seen || c->keeper.sock < 0 || m->build_id_len < 2 || m->path[0] != '/')
		return;
	/* Who controls the file decides whose part of the cache it goes to:
	 * a file that cannot be told is not kept for anyone. */
	if (!m->trusted) {
		c->stats.untold++;
		return;
	}
	htab_upsert(c->seen, key, seen_key(m, key), &created);
	if (!created)
		return;
	c->queue = xreserve(c->queue, &c->cap, c->nqueue + 1, sizeof(*c->queue));
	c->queue[c->nqueue] = (struct pending){ .pid = pid, .m = *m };
	c->queue[c->nqueue++].m.path = xstrdup(m->path);
}

/* The best source of the image: for a system file, the host's own debug
 * file for the build-id (the distribution's -dbg package: full symbols,
 * DWARF); else, and failing that, the mapped file itself, whose mode is
 * then in *mode.  -1 with errno EINPROGRESS while the file reader has it. */
static int image_source(struct build_id_cache *c, struct mapped_files *files,
			const struct pending *p, uint32_t *mode)
{
	char hex[2 * BUILD_ID_MAX + 1], rel[2 * BUILD_ID_MAX + 16];
	uint8_t id[BUILD_ID_MAX];
	struct mapped_file *file;
	int fd;

	build_id_hex(p->m.build_id, p->m.build_id_len, hex);
	snprintf(rel, sizeof(rel), "%.2s/%s.debug", hex, hex + 2);
	if (p->m.owner == 0 && c->debug_dir >= 0 && (fd = open_regular_at(c->debug_dir, rel, 0)) >= 0) {
		if (local_fs_fd(fd).kind == FS_LOCAL && fd_build_id(fd, id) == p->m.build_id_len &&
		    memcmp(id, p->m.build_id, p->m.build_id_len) == 0)
			return fd;
		close(fd);
	}
	fd = mapped_files_open(files, p->pid, &p->m, &file);
	if (fd >= 0)
		*mode = file->mode;
	return fd;
}

/* Stores p's file; false if the file reader has it yet: to try later. */
static bool store(struct build_id_cache *c, struct mapped_files *files, struct pending *p)
{
	struct image_stats ist;
	enum image_result r = IMAGE_NOT_ELF;
	uint64_t bytes;
	uint32_t mode = 0;
	int src, image, present, err;

	if (!p->absent && (present = cache_keeper_has(&c->keeper, p->m.owner, p->m.build_id,
						       p->m.build_id_len)) != 0) {
		c->stats.present += present == 1;
		return true;
	}
	p->absent = true;
	if ((src = image_source(c, files, p, &mode)) < 0) {
		if (errno == EINPROGRESS)
			return false;
		/* Its process gone before the file was opened: the next
		 * process to map it may still be there. */
		uint8_t key[BUILD_ID_MAX + sizeof(uint32_t)];
		htab_remove(c->seen, key, seen_key(&p->m, key));
		c->stats.failed++;
		return true;
	}
	image = memfd_create("prof-debug-image", MFD_CLOEXEC);
	Elf *elf = image >= 0 ? elf_begin_bounded(src) : NULL;
	if (elf)
		r = debug_image_write(elf, src, image, &c->lim,
				      &(struct image_origin){ .owner = p->m.owner,
							      .mode = mode,
							      .dev = p->m.dev,
							      .ino = p->m.inode,
							      .path = p->m.path },
				      &ist);
	elf_end(elf);
	close(src);
	if (r == IMAGE_WRITTEN && (ist.too_large || ist.holes))
		c->stats.cut++;
	if (r == IMAGE_NO_SYMBOLS)
		c->stats.useless++;
	else if (r != IMAGE_WRITTEN)
		c->stats.failed++;
	else if ((err = cache_keeper_put(&c->keeper, p->m.owner, p->m.build_id, p->m.build_id_len,
					 image, &bytes)) == 0) {
		c->stats.stored++;
		c->stats.bytes += bytes;
	} else if (err == -ENOSPC || err == -EFBIG) {
		c->stats.full++;
	} else {
		c->stats.failed++;
	}
	if (image >= 0)
		close(image);
	return true;
}

void build_id_cache_work(struct build_id_cache *c, struct mapped_files *files, uint64_t budget_ns)
{
	uint64_t start;
	size_t later = c ? c->next : 0; /* files the reader has yet, moved down */

	if (!c || c->next == c->nqueue)
		return;
	start = monotonic_ns();
	while (c->next < c->nqueue) {
		struct pending *p = &c->queue[c->next++];
		if (c->keeper.sock >= 0 && !store(c, files, p)) {
			c->queue[later++] = *p;
			continue;
		}
		free_pending(p);
		if (budget_ns && monotonic_ns() - start >= budget_ns)
			break;
	}
	/* What is left after the files kept for later: closed up behind them. */
	memmove(&c->queue[later], &c->queue[c->next], (c->nqueue - c->next) * sizeof(*c->queue));
	c->nqueue = later + (c->nqueue - c->next);
	c->next = 0;
	c->stats.ns += monotonic_ns() - start;
}

void build_id_cache_touch(struct build_id_cache *c, struct mapped_files *files)
{
	for (size_t i = c ? c->next : 0; c && i < c->nqueue; i++)
		mapped_files_touch(files, &c->queue[i].m);
}
