#include "perf_map.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stream.h"

static void parse_line(const char *s, size_t len, struct perf_map_cursor *c, perf_map_add_fn *add,
		       void *ctx)
{
	char line[PERF_MAP_MAX_LINE + 1];
	unsigned long long start, size;
	int name_at = 0;

	memcpy(line, s, len);
	line[len] = '\0';
	if (sscanf(line, "%llx %llx %n", &start, &size, &name_at) < 2 || !name_at) {
		c->skipped++;
		return;
	}
	add(ctx, start, size, line + name_at, len - (size_t)name_at);
}

enum perf_map_status perf_map_read(const char *dir, uint32_t pid, uid_t owner,
				   struct perf_map_cursor *c, perf_map_add_fn *add, void *ctx)
{
	char path[PATH_MAX];
	enum perf_map_status st;
	int fd;

	snprintf(path, sizeof(path), "%s/perf-%" PRIu32 ".map", dir ? dir : "/tmp", pid);
	/* Not through a link. */
	if ((fd = open_regular(path, O_NOFOLLOW)) < 0)
		return errno == EINVAL ? PERF_MAP_REFUSED : PERF_MAP_NONE;
	st = perf_map_read_fd(fd, owner, c, add, ctx);
	close(fd);
	return st;
}

enum perf_map_status perf_map_read_fd(int fd, uid_t owner, struct perf_map_cursor *c,
				      perf_map_add_fn *add, void *ctx)
{
	char buf[2 * PERF_MAP_MAX_LINE];
	size_t have = 0, total = 0;
	struct stat st;
	off_t at = c->offset;

	/* The owner checked is the owner of what is read. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_uid != owner && st.st_uid != 0))
		return PERF_MAP_REFUSED;
	c->more = false;
	while (st.st_size > at + (off_t)have) {
		if (total >= PERF_MAP_MAX_READ) {
			c->more = true;
			break;
		}
		ssize_t n = pread(fd, buf + have, sizeof(buf) - have, at + (off_t)have);
		if (n <= 0)
			break;
		have += (size_t)n;
		total += (size_t)n;
		size_t pos = 0;
		char *nl;
		while (pos < have && (nl = memchr(buf + pos, '\n', have - pos))) {
			size_t len = (size_t)(nl - (buf + pos));
			if (c->skipping)
				c->skipping = false; /* the end of a line too long */
			else
				parse_line(buf + pos, len, c, add, ctx);
			pos += len + 1;
		}
		/* What is left has no end yet: kept for later, unless it is
		 * longer than any line may be. */
		if (!c->skipping && have - pos >= PERF_MAP_MAX_LINE) {
			c->skipped++;
			c->skipping = true;
		}
		if (c->skipping)
			pos = have;
		memmove(buf, buf + pos, have - pos);
		at += (off_t)pos;
		have -= pos;
	}
	c->offset = at;
	return PERF_MAP_READ;
}

bool perf_map_owner(uint32_t pid, uid_t *uid)
{
	char path[64], line[256];
	unsigned int real, effective;
	bool ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u %u", &real, &effective) == 2) {
			*uid = effective;
			ok = true;
			break;
		}
	if (f)
		fclose(f);
	return ok;
}
