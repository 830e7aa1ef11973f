#include "elf_bounded.h"

#include <elf.h>
#include <gelf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* The fields of the ELF header and of section 0 the counts come from. */
struct counts {
	uint64_t shoff, phoff, shnum, phnum;
	uint32_t shentsize, phentsize;
};

static uint64_t field(const uint8_t *p, int n, bool big)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}

/* Reads size bytes at off, from the file or the image. */
typedef bool read_fn(void *src, uint64_t off, void *buf, size_t size);

static bool header_counts(read_fn *rd, void *src, struct counts *c)
{
	uint8_t eh[sizeof(Elf64_Ehdr)], sh0[sizeof(Elf64_Shdr)];
	bool is64, big;

	if (!rd(src, 0, eh, EI_NIDENT) || memcmp(eh, ELFMAG, SELFMAG) != 0)
		return true; /* not ELF: for libelf to say */
	is64 = eh[EI_CLASS] == ELFCLASS64;
	big = eh[EI_DATA] == ELFDATA2MSB;
	if (!rd(src, 0, eh, is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
		return true;
	if (is64) {
		c->phoff = field(eh + 32, 8, big);
		c->shoff = field(eh + 40, 8, big);
		c->phentsize = (uint32_t)field(eh + 54, 2, big);
		c->phnum = field(eh + 56, 2, big);
		c->shentsize = (uint32_t)field(eh + 58, 2, big);
		c->shnum = field(eh + 60, 2, big);
	} else {
		c->phoff = field(eh + 28, 4, big);
		c->shoff = field(eh + 32, 4, big);
		c->phentsize = (uint32_t)field(eh + 42, 2, big);
		c->phnum = field(eh + 44, 2, big);
		c->shentsize = (uint32_t)field(eh + 46, 2, big);
		c->shnum = field(eh + 48, 2, big);
	}
	/* Past 0xff00 sections, or 0xffff segments, the counts are in
	 * section 0: sh_size and sh_info. */
	if ((c->shnum == 0 || c->phnum == PN_XNUM) && c->shoff &&
	    rd(src, c->shoff, sh0, is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr))) {
		if (c->shnum == 0)
			c->shnum = is64 ? field(sh0 + 32, 8, big) : field(sh0 + 20, 4, big);
		if (c->phnum == PN_XNUM)
			c->phnum = is64 ? field(sh0 + 44, 4, big) : field(sh0 + 28, 4, big);
	}
	return c->shnum <= ELF_MAX_SECTIONS && c->phnum <= ELF_MAX_SEGMENTS;
}

struct file_src {
	int fd;
};

static bool file_read(void *src, uint64_t off, void *buf, size_t size)
{
	const struct file_src *f = src;

	return pread(f->fd, buf, size, (off_t)off) == (ssize_t)size;
}

/* Whether [off, off + len) of the file is all on disk: a table that is a
 * hole is one no linker wrote. */
static bool no_hole(int fd, uint64_t off, uint64_t len)
{
	off_t hole = len ? lseek(fd, (off_t)off, SEEK_HOLE) : -1;

	return hole < 0 || (uint64_t)hole >= off + len;
}

Elf *elf_begin_bounded(int fd)
{
	struct file_src src = { fd };
	struct counts c = { 0 };

	if (!header_counts(file_read, &src, &c) ||
	    !no_hole(fd, c.shoff, c.shnum * c.shentsize) ||
	    !no_hole(fd, c.phoff, c.phnum * c.phentsize)) {
		errno = EFBIG;
		return NULL;
	}
	return elf_begin(fd, ELF_C_READ_MMAP, NULL);
}

struct mem_src {
	const uint8_t *p;
	size_t size;
};

static bool mem_read(void *src, uint64_t off, void *buf, size_t size)
{
	const struct mem_src *m = src;

	if (off > m->size || size > m->size - off)
		return false;
	memcpy(buf, m->p + off, size);
	return true;
}

Elf *elf_memory_bounded(char *image, size_t size)
{
	struct mem_src src = { (const uint8_t *)image, size };
	struct counts c = { 0 };

	if (!header_counts(mem_read, &src, &c)) {
		errno = EFBIG;
		return NULL;
	}
	return elf_memory(image, size);
}

uint64_t elf_debug_inflated_size(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t sum = 0;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		const char *name;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		/* libdw's names, and what it compresses GNU's way. */
		bool gnu = strncmp(name, ".zdebug", 7) == 0;
		if (!gnu && strncmp(name, ".debug", 6) != 0 && strncmp(name, ".gnu.debuglto_", 14) != 0)
			continue;
		if (sh.sh_flags & SHF_COMPRESSED) {
			if (gelf_getchdr(scn, &ch))
				sum += ch.ch_size;
		} else if (gnu && (d = elf_rawdata(scn, NULL)) && d->d_buf && d->d_size >= 12 &&
			   memcmp(d->d_buf, "ZLIB", 4) == 0) {
			/* "ZLIB" and the size, big-endian. */
			const uint8_t *b = (const uint8_t *)d->d_buf + 4;
			uint64_t size = 0;
			for (int i = 0; i < 8; i++)
				size = size << 8 | b[i];
			sum += size;
		}
		if (sum > UINT64_MAX / 2)
			return UINT64_MAX / 2;
	}
	return sum;
}
