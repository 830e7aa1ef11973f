/*
 * One executable mapping of a process, as the process table learns it and
 * as the files it names are opened, identified and cached: its own header,
 * so that those lower rooms need not include the process table.
 */
#ifndef PROF_SAMPLE_MAPPING_H
#define PROF_SAMPLE_MAPPING_H

#include <stdbool.h>
#include <stdint.h>

#include "build_id.h"

struct mapping {
	uint64_t start, end, pgoff, dev, inode;
	uint8_t build_id_len;
	uint8_t build_id[BUILD_ID_MAX];
	/* Set once the file was read: owner is who controls its content
	 * (mapped_files.h), when that can be told. */
	bool trusted;
	uint32_t owner;
	char *path;
};

#endif
