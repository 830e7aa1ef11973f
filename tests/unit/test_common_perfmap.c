/*
 * The perf-map reader both programs share (common/perf_map.c), on what a
 * profiled process can write into its map: lines still being written, a
 * line without end (a 4 GB sparse file made prof-sample take 37 s and
 * 4.2 GB), names and numbers that are not, a file of another user, a link,
 * a FIFO.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_map.h"
#include "unit.h"

#define PID 4242

struct got {
	int n;
	uint64_t start[8], size[8];
	char name[8][64];
};

static void add(void *ctx, uint64_t start, uint64_t size, const char *name, size_t len)
{
	struct got *g = ctx;

	if (g->n < 8) {
		g->start[g->n] = start;
		g->size[g->n] = size;
		snprintf(g->name[g->n], sizeof(g->name[0]), "%.*s", (int)len, name);
	}
	g->n++;
}

static char dir[64];

static void map_path(char *path, size_t size)
{
	snprintf(path, size, "%s/perf-%d.map", dir, PID);
}

static void write_map(const char *text, size_t len, const char *mode)
{
	char path[128];
	FILE *f;

	map_path(path, sizeof(path));
	f = fopen(path, mode);
	fwrite(text, 1, len, f);
	fclose(f);
}

static void setup(void)
{
	char path[128];

	snprintf(dir, sizeof(dir), "/tmp/perfmap-test-%d", (int)getpid());
	mkdir(dir, 0700);
	map_path(path, sizeof(path));
	unlink(path);
}

TEST(lines_as_they_are_written)
{
	struct perf_map_cursor c = { 0 };
	struct got g = { 0 };

	setup();
	write_map("1000 20 first\n2000 30 second half", 33, "w");
	CHECK_INT(perf_map_read(dir, PID, getuid(), &c, add, &g), PERF_MAP_READ);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.start[0], 0x1000);
	CHECK_INT(g.size[0], 0x20);
	CHECK_STR(g.name[0], "first");
	/* The line being written is read once it ends. */
	write_map(" done\n3000 40 third\n", 20, "a");
	CHECK_INT(perf_map_read(dir, PID, getuid(), &c, add, &g), PERF_MAP_READ);
	CHECK_INT(g.n, 3);
	CHECK_STR(g.name[1], "second half done");
	CHECK_STR(g.name[2], "third");
	CHECK_INT(c.skipped, 0);
	/* Nothing new: nothing read. */
	CHECK_INT(perf_map_read(dir, PID, getuid(), &c, add, &g), PERF_MAP_READ);
	CHECK_INT(g.n, 3);
}

TEST(a_line_without_end_is_skipped_whatever_its_size)
{
	struct perf_map_cursor c = { 0 };
	struct got g = { 0 };
	char path[128];
	int fd, calls = 0;

	setup();
	write_map("1000 20 before\nno number here\n", 30, "w");
	/* Then 64 MiB of zeros (sparse) without a newline, then a line. */
	map_path(path, sizeof(path));
	fd = open(path, O_WRONLY | O_APPEND);
	CHECK(ftruncate(fd, 30 + (64 << 20)) == 0);
	CHECK(write(fd, "\n2000 30 after\n", 15) == 15);
	close(fd);
	do {
		CHECK_INT(perf_map_read(dir, PID, getuid(), &c, add, &g), PERF_MAP_READ);
		calls++;
	} while (c.more && calls < 100);
	/* Bounded per call: four calls for 64 MiB at 16 MiB each. */
	CHECK(calls >= 4 && calls <= 6);
	CHECK_INT(g.n, 2);
	CHECK_STR(g.name[0], "before");
	CHECK_STR(g.name[1], "after");
	CHECK_INT(c.skipped, 2); /* the malformed line and the endless one */
	CHECK(!c.skipping);
}

TEST(only_a_regular_file_of_the_process_user_or_root)
{
	struct perf_map_cursor c = { 0 };
	struct got g = { 0 };
	char path[128], other[160];

	setup();
	map_path(path, sizeof(path));
	CHECK_INT(perf_map_read(dir, PID, getuid(), &c, add, &g), PERF_MAP_NONE);
	/* A link to a map that would be accepted. */
	snprintf(other, sizeof(other), "%s/real.map", dir);
	FILE *f = fopen(other, "w");
	fputs("1000 20 linked\n", f);
	fclose(f);
	CHECK(symlink(other, path) == 0);
	CHECK_INT(perf_map_read(dir, PID, getuid(), &c, add, &g), PERF_MAP_REFUSED);
	unlink(path);
	/* A FIFO, refused without blocking. */
	CHECK(mkfifo(path, 0600) == 0);
	CHECK_INT(perf_map_read(dir, PID, getuid(), &c, add, &g), PERF_MAP_REFUSED);
	unlink(path);
	/* Owned by someone else than the process's user (or root). */
	write_map("1000 20 foreign\n", 16, "w");
	if (geteuid() == 0) {
		CHECK(chown(path, 4243, 4243) == 0);
		CHECK_INT(perf_map_read(dir, PID, 4242, &c, add, &g), PERF_MAP_REFUSED);
		CHECK(chown(path, 4242, 4242) == 0);
		CHECK_INT(perf_map_read(dir, PID, 4242, &c, add, &g), PERF_MAP_READ);
		CHECK_INT(g.n, 1);
	}
	CHECK_INT(g.n, geteuid() == 0 ? 1 : 0);
	unlink(path);
	unlink(other);
	rmdir(dir);
}
