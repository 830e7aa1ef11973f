/*
 * Shared by the fuzz targets whose code reads a file by its path: the
 * input, written where that code will open it.
 */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The input as a memfd, named /proc/self/fd/N (the same file each call). */
static const char *fuzz_memfd_path(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		fd = memfd_create("fuzz-input", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	return path;
}

/* The input as the file NAME in a directory of this process's own, which
 * is returned. */
static const char *fuzz_file_in_dir(const char *name, const uint8_t *data, size_t size)
{
	static char dir[64];
	char path[128];
	FILE *f;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz-%d", (int)getpid());
		mkdir(dir, 0700);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")) || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	return dir;
}

#endif
