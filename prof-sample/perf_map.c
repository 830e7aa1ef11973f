#include "perf_map.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum perf_map_status perf_map_read(struct cap_writer *w, uint32_t pid, uid_t uid, off_t *offset)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct stat st;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", pid);
	/* O_NOFOLLOW and fstat on the opened file: the owner checked is the
	 * owner of what is read. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return PERF_MAP_NONE;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_uid != uid && st.st_uid != 0)) {
		close(fd);
		return PERF_MAP_REFUSED;
	}
	if (st.st_size <= *offset || !(f = fdopen(fd, "r"))) {
		close(fd);
		return PERF_MAP_READ;
	}
	fseeko(f, *offset, SEEK_SET);
	while ((n = getline(&line, &cap, f)) > 0) {
		unsigned long long start, size;
		int name_at = 0;

		/* A line still being written is read next time. */
		if (line[n - 1] != '\n')
			break;
		*offset += n;
		line[--n] = '\0';
		if (sscanf(line, "%llx %llx %n", &start, &size, &name_at) < 2 || !name_at)
			continue;
		capw_jsym(w, pid, start, size, line + name_at, (size_t)(n - name_at));
	}
	free(line);
	fclose(f);
	return PERF_MAP_READ;
}
