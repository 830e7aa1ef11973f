/*
 * elf_sparse IN OUT SECTION SIZE: copies the 64-bit ELF file IN to OUT
 * (mode 0755) with the section SECTION claiming SIZE bytes that are a hole
 * at the end of the file: what a local user makes with objcopy and a
 * patched header to have others read gigabytes that take no disk.  The
 * program still runs (the section is not loaded).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "elf_sparse: %s\n", what);
	exit(2);
}

int main(int argc, char **argv)
{
	struct stat st;
	unsigned char *b;
	int in, out;

	if (argc != 5)
		die("usage: elf_sparse IN OUT SECTION SIZE");
	if ((in = open(argv[1], O_RDONLY)) < 0 || fstat(in, &st) != 0)
		die(argv[1]);
	b = malloc((size_t)st.st_size);
	if (!b || read(in, b, (size_t)st.st_size) != st.st_size)
		die("read");
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > (uint64_t)st.st_size)
		die("not a 64-bit ELF file with its section headers");
	Elf64_Shdr *sh = (Elf64_Shdr *)(b + eh->e_shoff), *strs = &sh[eh->e_shstrndx];
	uint64_t end = ((uint64_t)st.st_size + 0xfffff) & ~0xfffffull;
	for (unsigned i = 1; i < eh->e_shnum; i++) {
		if (strcmp((char *)b + strs->sh_offset + sh[i].sh_name, argv[3]) != 0)
			continue;
		sh[i].sh_offset = end;
		sh[i].sh_size = strtoull(argv[4], NULL, 0);
		if ((out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0755)) < 0 ||
		    write(out, b, (size_t)st.st_size) != st.st_size ||
		    ftruncate(out, (off_t)(end + sh[i].sh_size)) != 0 || close(out) != 0)
			die(argv[2]);
		return 0;
	}
	die("no such section");
}
