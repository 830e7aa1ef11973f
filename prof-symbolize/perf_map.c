#include "perf_map.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

enum perf_map_result perf_map_load(const char *dir, uint32_t pid, perf_map_add_fn *add, void *ctx)
{
	char path[PATH_MAX], proc[64], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct stat st, ps;
	FILE *f;
	int fd;

	snprintf(proc, sizeof(proc), "/proc/%" PRIu32, pid);
	if (stat(proc, &ps) != 0)
		return PERF_MAP_ABSENT;
	snprintf(path, sizeof(path), "%s/perf-%" PRIu32 ".map", dir ? dir : "/tmp", pid);
	/* O_NOFOLLOW and fstat on the opened file: the owner checked is the
	 * owner of what is read. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return PERF_MAP_ABSENT;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != ps.st_uid && st.st_uid != 0) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return PERF_MAP_REFUSED;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		unsigned long long start, size;
		int name_at = 0;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (sscanf(line, "%llx %llx %n", &start, &size, &name_at) < 2 || !name_at)
			continue;
		add(ctx, start, size, line + name_at, (size_t)(n - name_at));
	}
	free(line);
	fclose(f);
	return PERF_MAP_LOADED;
}
