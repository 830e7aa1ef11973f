#include "proc_cgroup.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "diag.h"

bool proc_cgroup_line(const char *line, size_t len, const char **path, size_t *path_len)
{
	static const char unified[] = "0::";
	size_t n = sizeof(unified) - 1;

	if (len <= n || memcmp(line, unified, n) != 0 || line[n] != '/' ||
	    len - n > CAP_CGROUP_PATH_MAX || memchr(line + n, '\0', len - n))
		return false;
	*path = line + n;
	*path_len = len - n;
	return true;
}

char *proc_cgroup_read(uint32_t pid)
{
	/* The longest line kept, its newline and the NUL; a longer one is
	 * skipped to its end, never taken in pieces. */
	char name[64], line[CAP_CGROUP_PATH_MAX + 8];
	bool at_start = true;
	char *found = NULL;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%" PRIu32 "/cgroup", pid);
	if (!(f = fopen(name, "re")))
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		bool whole = len && line[len - 1] == '\n';
		const char *path;
		size_t path_len;

		if (at_start && whole && proc_cgroup_line(line, len - 1, &path, &path_len))
			found = xstrndup(path, path_len);
		at_start = whole;
	}
	fclose(f);
	return found;
}
