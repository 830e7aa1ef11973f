/*
 * The keeper of the build-id cache: the helper process that writes it
 * (build_id_cache.h has the rest).  It is forked before prof-sample gives
 * up its privileges, chroots into the cache directory and gives up every
 * capability: it can create, touch and delete files there and nowhere
 * else, and parses nothing but fixed-size requests.
 *
 * A build-id names content, and anyone can give their file any build-id:
 * an entry is kept for the user who controls the file it was made from,
 * in that user's part of the cache, and found only by a request for the
 * same user.  Root's part is DIR/.build-id, a debug directory as gdb reads
 * one; another user's is DIR/users/UID/.build-id (docs/FORMATS.md, 5).
 */
#ifndef PROF_SAMPLE_CACHE_KEEPER_H
#define PROF_SAMPLE_CACHE_KEEPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "helper.h"

/* Starts the keeper of dir (created 0700 if missing; it must belong to
 * the user and be private to them), bounded to limit bytes.  False, with
 * a message, if it cannot. */
bool cache_keeper_start(struct helper *h, const char *dir, uint64_t limit);

/* prof-sample --build-id-cache-list and --build-id-cache-prune, in this
 * process, which is confined as the keeper is: deletes the least recently
 * used entries until dir holds at most limit bytes, then writes what is
 * left to list (unless NULL), least recently used first, one
 * "LAST-USED BYTES PATH" line each, and says the total on stderr. */
bool cache_keeper_tend(const char *dir, uint64_t limit, FILE *list);

/* Whether owner's part of the cache has an entry for build-id id (and
 * it is then kept as used by this capture).  -1 if the keeper is gone. */
int cache_keeper_has(struct helper *h, uint32_t owner, const uint8_t *id, size_t len);

/* Stores the image open as fd as owner's entry for id: 0, *bytes its
 * size; else -errno (-ENOSPC, -EFBIG: over the limit; -EIO: the keeper is
 * gone). */
int cache_keeper_put(struct helper *h, uint32_t owner, const uint8_t *id, size_t len, int fd,
		     uint64_t *bytes);

#endif
