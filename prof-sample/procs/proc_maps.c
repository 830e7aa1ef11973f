#include "proc_maps.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysmacros.h>

bool proc_maps_read(uint32_t pid, void (*fn)(void *ctx, const struct mapping *m), void *ctx)
{
	char name[64], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%" PRIu32 "/maps", pid);
	f = fopen(name, "r");
	if (!f)
		return false;
	while ((n = getline(&line, &cap, f)) > 0) {
		unsigned long long start, end, pgoff, inode;
		unsigned int major, minor;
		char perms[8];
		int path_at = 0;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
			   &major, &minor, &inode, &path_at) < 7)
			continue;
		if (perms[2] != 'x')
			continue;
		fn(ctx, &(struct mapping){
				.start = start,
				.end = end,
				.pgoff = pgoff,
				.dev = makedev(major, minor),
				.inode = inode,
				.path = line + path_at,
			});
	}
	free(line);
	fclose(f);
	return true;
}

uint32_t proc_tgid(uint32_t tid)
{
	char name[64], line[256];
	unsigned int tgid = tid;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%" PRIu32 "/status", tid);
	f = fopen(name, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	if (f)
		fclose(f);
	return tgid;
}
