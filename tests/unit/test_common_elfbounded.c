/*
 * Opening an ELF file a user made (common/elf_bounded.c): headers that
 * claim millions of sections or segments, in tables that are holes, are
 * refused before libelf spends memory on them; real files open.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_bounded.h"
#include "unit.h"

/* A copy of this program, its header patched by patch(), the file made
 * extra bytes longer (a hole); its descriptor, the file unlinked. */
static int patched_copy(void (*patch)(Elf64_Ehdr *eh, uint64_t end), uint64_t extra)
{
	char path[] = "/tmp/unit-elf.XXXXXX";
	int in = open("/proc/self/exe", O_RDONLY), out = mkstemp(path);
	struct stat st;
	unsigned char *b;

	if (in < 0 || out < 0 || fstat(in, &st) != 0 || !(b = malloc((size_t)st.st_size)))
		return -1;
	if (read(in, b, (size_t)st.st_size) != st.st_size)
		return -1;
	patch((Elf64_Ehdr *)b, (uint64_t)st.st_size);
	if (write(out, b, (size_t)st.st_size) != st.st_size ||
	    ftruncate(out, st.st_size + (off_t)extra) != 0)
		return -1;
	free(b);
	close(in);
	unlink(path);
	return out;
}

/* 60,000 sections, their table a hole. */
static void many_sections(Elf64_Ehdr *eh, uint64_t end)
{
	eh->e_shoff = (end + 4095) & ~4095ull;
	eh->e_shnum = 60000;
}

/* Section 0 (its own, moved) says there are 2^26 sections. */
static void extended_sections(Elf64_Ehdr *eh, uint64_t end)
{
	Elf64_Shdr *sh0 = (Elf64_Shdr *)((unsigned char *)eh + eh->e_shoff);

	(void)end;
	sh0->sh_size = 1ull << 26;
	eh->e_shnum = 0;
}

static void many_segments(Elf64_Ehdr *eh, uint64_t end)
{
	eh->e_phoff = (end + 4095) & ~4095ull;
	eh->e_phnum = 60000;
}

static void nothing(Elf64_Ehdr *eh, uint64_t end)
{
	(void)eh, (void)end;
}

TEST(a_real_file_opens)
{
	int fd = patched_copy(nothing, 0);
	Elf *elf;

	elf_version(EV_CURRENT);
	CHECK(fd >= 0);
	CHECK((elf = elf_begin_bounded(fd)) != NULL);
	CHECK(elf && elf_kind(elf) == ELF_K_ELF);
	elf_end(elf);
	close(fd);
}

TEST(a_section_table_that_is_a_hole_is_refused)
{
	int fd = patched_copy(many_sections, 8ull << 20);

	elf_version(EV_CURRENT);
	CHECK(fd >= 0);
	errno = 0;
	CHECK(elf_begin_bounded(fd) == NULL);
	CHECK_INT(errno, EFBIG);
	close(fd);
}

TEST(millions_of_sections_are_refused_unread)
{
	/* 2^26 section headers of 64 bytes: 4 GiB, mostly hole; libelf
	 * would spend 7 GB on them. */
	int fd = patched_copy(extended_sections, 5ull << 30);
	struct rusage before, after;

	elf_version(EV_CURRENT);
	CHECK(fd >= 0);
	getrusage(RUSAGE_SELF, &before);
	errno = 0;
	CHECK(elf_begin_bounded(fd) == NULL);
	CHECK_INT(errno, EFBIG);
	getrusage(RUSAGE_SELF, &after);
	CHECK(after.ru_maxrss - before.ru_maxrss < 16 * 1024);
	close(fd);
}

TEST(tens_of_thousands_of_segments_are_refused)
{
	int fd = patched_copy(many_segments, 8ull << 20);

	elf_version(EV_CURRENT);
	CHECK(fd >= 0);
	CHECK(elf_begin_bounded(fd) == NULL);
	close(fd);
}

TEST(an_image_in_memory_is_held_to_the_same)
{
	static char image[sizeof(Elf64_Ehdr)];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)image;

	elf_version(EV_CURRENT);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_phnum = 50000;
	CHECK(elf_memory_bounded(image, sizeof(image)) == NULL);
}
