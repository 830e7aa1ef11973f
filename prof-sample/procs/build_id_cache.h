/*
 * Keeping, by build-id, what symbolizing each sampled file needs (its
 * debug-only image, debug_image.c), so that a capture can be symbolized
 * after its processes, their files and their mount namespaces are gone,
 * here or on another host: perf's build-id cache, in the layout of a debug
 * directory (DIR/.build-id/xx/yyyy.debug), which prof-symbolize searches by
 * default and gdb, eu-addr2line and debuginfod read as they are.
 *
 * The main process makes the images (it parses the files, so it must be
 * the unprivileged one); a helper, the keeper, writes them.  The keeper is
 * forked before the privilege drop, chroots into the cache directory and
 * gives up every capability: it can create, touch and delete files there
 * and nowhere else, and parses nothing but fixed-size requests.
 *
 * The cache is bounded: entries are aged by use (each capture touches what
 * it needs), the least recently used are deleted when a new one would pass
 * the limit, and never those the running capture needs: a capture that
 * needs more than the limit stores what fits, and counts the rest.
 *
 * Files are offered as processes are first sampled, and stored from the
 * main loop a few milliseconds at a time, so that storing a host's worth of
 * libraries at the start does not stall the rings; the last are stored
 * when sampling ends.
 */
#ifndef PROF_SAMPLE_BUILD_ID_CACHE_H
#define PROF_SAMPLE_BUILD_ID_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "debug_image.h"
#include "helper.h"
#include "htab.h"

struct mapped_files;
struct mapping;

struct build_id_cache_stats {
	uint64_t stored, present; /* files written, and found there already */
	uint64_t full, failed;	  /* not stored: over the limit, or unreadable */
	uint64_t useless;	  /* not stored: no symbols within the image's limits */
	uint64_t cut;		  /* stored without sections too large or full of holes */
	uint64_t untold;	  /* not offered: who controls the file cannot be told */
	uint64_t bytes;		  /* written */
	uint64_t ns;		  /* spent storing, in the main process */
};

struct build_id_cache {
	struct helper keeper;
	char dir[4096];
	struct image_limits lim; /* of each image */
	struct htab *seen;  /* build-ids offered this capture */
	struct pending *queue;
	size_t nqueue, cap, next;
	int debug_dir; /* /usr/lib/debug/.build-id, or -1 */
	struct build_id_cache_stats stats;
};

/* Starts the keeper for dir (created 0700 if missing; it must belong to
 * the user and not be writable by others), bounded to limit bytes.  False,
 * with a message, if it cannot: the capture then goes on without. */
bool build_id_cache_start(struct build_id_cache *c, const char *dir, uint64_t limit);
void build_id_cache_stop(struct build_id_cache *c);

/* Queues m's file, mapped by pid, unless its build-id was offered before
 * (and not found unreadable since). */
void build_id_cache_offer(struct build_id_cache *c, uint32_t pid, const struct mapping *m);

/* Stores queued files for at most budget_ns (0: all of them). */
void build_id_cache_work(struct build_id_cache *c, struct mapped_files *files, uint64_t budget_ns);

/* Counts the queued files as asked for, so that files keeps them open
 * until they are stored (their processes may have gone). */
void build_id_cache_touch(struct build_id_cache *c, struct mapped_files *files);

#endif
