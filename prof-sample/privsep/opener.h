/*
 * The file opener: the one part of prof-sample that keeps privilege once
 * sampling starts.  For the main process (which runs as nobody) it opens
 * the file that a process maps executable, as that process sees it:
 * through /proc/PID/map_files, which reaches the very file mapped even if
 * it is in another mount namespace, deleted, or under a directory only its
 * owner may enter.
 *
 * It runs as nobody with three capabilities, the least that map_files
 * needs for another user's process: CAP_SYS_PTRACE (to read its maps and
 * follow its map_files links), CAP_CHECKPOINT_RESTORE (map_files' own
 * check) and CAP_DAC_READ_SEARCH (to read the file).  It takes no path
 * from its requests: a request names a process and an address, and the
 * opener serves it only if the kernel's /proc/PID/maps shows an executable
 * mapping of a regular file there, and the file it opened is that one
 * (same inode).  So a main process taken over by a
 * hostile file can read through it only files some process is running
 * code from at that moment, never /etc/shadow or another user's documents.
 */
#ifndef PROF_SAMPLE_OPENER_H
#define PROF_SAMPLE_OPENER_H

#include <stdbool.h>
#include <stdint.h>

#include "file_reader.h"
#include "helper.h"

struct opener {
	struct helper h;
	uint64_t served, refused; /* requests answered with a file, or not */
};

/* Starts the opener; must run while prof-sample still has the capabilities
 * above.  False (with a message) if it could not: files are then opened
 * by path only, without privilege. */
bool opener_start(struct opener *o);
void opener_stop(struct opener *o);

/* The file process pid maps executable at address start (end is the end
 * of the range it was seen mapped at; the kernel may have split or merged
 * it since), opened read-only if it is on a local file system, else as
 * O_PATH (a FUSE server asked to open the file could keep the opener
 * waiting); what it is in *info.  -1 if no executable file mapping holds
 * start (any more) or the opener is not running. */
int opener_open(struct opener *o, uint32_t pid, uint64_t start, uint64_t end,
		struct opened_file *info);

#endif
