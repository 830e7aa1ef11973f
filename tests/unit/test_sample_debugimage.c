/*
 * The debug-only images of the build-id cache (prof-sample/procs/debug_image.c)
 * against files a local user makes: a section that claims gigabytes which
 * are a hole in the file, oversized sections, an image budget too small
 * for the symbols.  Each is planned from the headers and left out without
 * being read; what is kept is what symbolizing needs.  The files are this
 * test program (built with -g: symbols and DWARF) as tests/workloads/
 * elf_sparse rewrites it.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "debug_image.h"
#include "unit.h"

static const struct image_limits roomy = { .max_image = 256u << 20, .max_dwarf = 64u << 20 };

/* This program with section `name` made a hole of `size` bytes, in a
 * temporary file (the caller unlinks it); NULL if it could not be made. */
static const char *sparse_copy(const char *name, const char *size)
{
	static char path[64], tool[4096], self[4096];
	const char *dir = getenv("PROF_WORKLOADS");
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int fd;

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	snprintf(tool, sizeof(tool), "%s/elf_sparse", dir ? dir : "build/workloads");
	/* Run by hand from elsewhere, say so rather than fail on a NULL. */
	if (access(tool, X_OK) != 0) {
		printf("# %s: not there (set PROF_WORKLOADS to the workloads' directory)\n", tool);
		return NULL;
	}
	strcpy(path, "/tmp/unit-image.XXXXXX");
	if ((fd = mkstemp(path)) < 0)
		return NULL;
	close(fd);
	if (fork() == 0) {
		execl(tool, tool, self, path, name, size, (char *)NULL);
		_exit(127);
	}
	return path;
}

/* The image of the file at path, written to a memfd: its result, stats
 * and (if kept) the image's descriptor in *image. */
static enum image_result image_of(const char *path, const struct image_limits *lim,
				  struct image_stats *st, int *image)
{
	int fd = open(path, O_RDONLY);
	enum image_result r = IMAGE_NOT_ELF;
	Elf *elf;

	*image = memfd_create("unit-image", 0);
	elf_version(EV_CURRENT);
	if (fd >= 0 && (elf = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		r = debug_image_write(elf, fd, *image, lim,
				      &(struct image_origin){ .owner = 4242, .path = path }, st);
		elf_end(elf);
	}
	if (fd >= 0)
		close(fd);
	return r;
}

/* The type and size of the image's section name (SHT_NULL if absent). */
static GElf_Word section_type(int image, const char *name, uint64_t *size)
{
	Elf *elf = elf_begin(image, ELF_C_READ_MMAP, NULL);
	size_t shstrndx;
	GElf_Word type = SHT_NULL;

	*size = 0;
	for (Elf_Scn *scn = NULL; elf && elf_getshdrstrndx(elf, &shstrndx) == 0 &&
				  (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    strcmp(n, name) == 0) {
			type = sh.sh_type;
			*size = sh.sh_size;
		}
	}
	elf_end(elf);
	return type;
}

static uint64_t file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* The copy of this program that elf_sparse made, once it has. */
static const char *made(const char *name, const char *size)
{
	const char *path = sparse_copy(name, size);
	int status;

	if (!path || wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return NULL;
	return path;
}

TEST(a_real_file_keeps_its_symbols_and_dwarf_and_no_code)
{
	struct image_stats st;
	uint64_t size;
	int image;

	CHECK_INT(image_of("/proc/self/exe", &roomy, &st, &image), IMAGE_WRITTEN);
	CHECK_INT(section_type(image, ".symtab", &size), SHT_SYMTAB);
	CHECK(size > 0);
	CHECK_INT(section_type(image, ".debug_info", &size), SHT_PROGBITS);
	CHECK_INT(section_type(image, ".text", &size), SHT_NOBITS);
	/* And says where it comes from. */
	CHECK_INT(section_type(image, ".note.prof.origin", &size), SHT_NOTE);
	Elf *elf = elf_begin(image, ELF_C_READ_MMAP, NULL);
	struct image_origin o;
	CHECK(elf && origin_note_read(elf, &o));
	if (elf && origin_note_read(elf, &o)) {
		CHECK_INT(o.owner, 4242);
		CHECK_STR(o.path, "/proc/self/exe");
	}
	elf_end(elf);
	CHECK_INT(st.holes, 0);
	CHECK_INT(st.too_large, 0);
	CHECK(file_size(image) >= st.bytes && st.bytes > 0);
	close(image);
}

TEST(a_comment_of_gigabytes_is_not_read)
{
	const char *path = made(".comment", "0xc0000000");
	struct rusage before, after;
	struct image_stats st;
	uint64_t size;
	int image;

	CHECK(path != NULL);
	if (!path)
		return;
	getrusage(RUSAGE_SELF, &before);
	CHECK_INT(image_of(path, &roomy, &st, &image), IMAGE_WRITTEN);
	getrusage(RUSAGE_SELF, &after);
	/* 3 GiB claimed: too large for .comment's 64 KiB, never read. */
	CHECK_INT(section_type(image, ".comment", &size), SHT_NOBITS);
	CHECK_INT(st.too_large, 1);
	CHECK_INT(section_type(image, ".symtab", &size), SHT_SYMTAB);
	CHECK(file_size(image) < (16u << 20));
	CHECK(after.ru_maxrss - before.ru_maxrss < 64 * 1024);
	close(image);
	unlink(path);
}

TEST(a_symbol_table_that_is_a_hole_is_left_out)
{
	const char *path = made(".symtab", "0x4000000");
	struct image_stats st;
	uint64_t size;
	int image;

	CHECK(path != NULL);
	if (!path)
		return;
	/* 64 MiB fits the budget, but not one byte of it is on disk. */
	CHECK_INT(image_of(path, &roomy, &st, &image), IMAGE_WRITTEN);
	CHECK_INT(section_type(image, ".symtab", &size), SHT_NOBITS);
	CHECK_INT(st.holes, 1);
	CHECK_INT(section_type(image, ".dynsym", &size), SHT_DYNSYM);
	CHECK(file_size(image) < (16u << 20));
	close(image);
	unlink(path);
}

TEST(dwarf_with_a_hole_is_left_out_whole)
{
	const char *path = made(".debug_info", "0x2000000");
	struct image_stats st;
	uint64_t size;
	int image;

	CHECK(path != NULL);
	if (!path)
		return;
	CHECK_INT(image_of(path, &roomy, &st, &image), IMAGE_WRITTEN);
	CHECK_INT(section_type(image, ".debug_info", &size), SHT_NOBITS);
	CHECK_INT(section_type(image, ".debug_line", &size), SHT_NOBITS);
	CHECK_INT(st.holes, 1);
	CHECK_INT(section_type(image, ".symtab", &size), SHT_SYMTAB);
	close(image);
	unlink(path);
}

TEST(dwarf_past_its_limit_goes_and_the_symbols_stay)
{
	struct image_limits lim = { .max_image = 256u << 20, .max_dwarf = 1024 };
	struct image_stats st;
	uint64_t size;
	int image;

	CHECK_INT(image_of("/proc/self/exe", &lim, &st, &image), IMAGE_WRITTEN);
	CHECK_INT(section_type(image, ".debug_info", &size), SHT_NOBITS);
	CHECK_INT(section_type(image, ".symtab", &size), SHT_SYMTAB);
	CHECK_INT(st.too_large, 1);
	close(image);
}

TEST(a_budget_too_small_for_any_symbols_makes_no_image)
{
	struct image_limits lim = { .max_image = 64, .max_dwarf = 64 };
	struct image_stats st;
	int image;

	CHECK_INT(image_of("/proc/self/exe", &lim, &st, &image), IMAGE_NO_SYMBOLS);
	CHECK(st.bytes <= 64);
	CHECK_INT(file_size(image), 0);
	close(image);
}
