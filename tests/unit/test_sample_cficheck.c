/*
 * cfi_check.c: real files' CFI is let through to libdw; a copy of libc
 * with one thing changed in its CFI, each of what could make libdw
 * allocate without bound or read an entry the check did not decode, is
 * refused, saying which; so are files made of a few entries for what a
 * review found libdw 0.188 reads otherwise than the check did; and what
 * the check read of a file stays what libdw reads after its owner
 * rewrites it.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stddef.h>
#include <gnu/libc-version.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfi_check.h"
#include "elf_bounded.h"
#include "unit.h"

/* (Not by write(): under ASan that is libasan's.) */
static const char *libc_path(void)
{
	Dl_info info;

	return dladdr((void *)gnu_get_libc_version, &info) ? info.dli_fname : NULL;
}

/* A file's bytes, which a test may change before cfi_check() reads them. */
struct copy {
	char *bytes;
	size_t size;
	const uint8_t *eh_frame; /* its .eh_frame, in bytes */
	size_t eh_size;
	uint8_t *hdr; /* its .eh_frame_hdr */
};

static bool read_copy(const char *path, struct copy *c)
{
	int fd = path ? open(path, O_RDONLY) : -1;
	struct stat st;
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	memset(c, 0, sizeof(*c));
	if (fd < 0 || fstat(fd, &st) != 0 || !(c->bytes = malloc((size_t)st.st_size)) ||
	    read(fd, c->bytes, (size_t)st.st_size) != st.st_size) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	c->size = (size_t)st.st_size;
	elf_version(EV_CURRENT);
	elf = elf_memory_bounded(c->bytes, c->size);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (strcmp(name, ".eh_frame") == 0) {
			c->eh_frame = (const uint8_t *)c->bytes + sh.sh_offset;
			c->eh_size = sh.sh_size;
		} else if (strcmp(name, ".eh_frame_hdr") == 0) {
			c->hdr = (uint8_t *)c->bytes + sh.sh_offset;
		}
	}
	elf_end(elf);
	return c->eh_frame && c->hdr;
}

static const char *check_copy(struct copy *c)
{
	Elf *elf = elf_memory_bounded(c->bytes, c->size);
	const char *why = elf ? cfi_check(elf) : "not ELF";

	elf_end(elf);
	return why;
}

/* The FDE of the longest program of a "zR" CIE: its offset in .eh_frame,
 * where its program starts, and how long it is. */
static size_t longest_fde(const struct copy *c, uint8_t **program, size_t *len)
{
	Elf_Data data = { .d_buf = (void *)c->eh_frame, .d_size = c->eh_size };
	unsigned char ident[EI_NIDENT] = { [EI_CLASS] = ELFCLASS64, [EI_DATA] = ELFDATA2LSB };
	Dwarf_Off off = 0, next, best = 0;
	Dwarf_CFI_Entry e;
	const char *aug = "";

	*len = 0;
	while (dwarf_next_cfi(ident, &data, true, off, &next, &e) == 0) {
		if (dwarf_cfi_cie_p(&e)) {
			aug = e.cie.augmentation;
		} else if (strcmp(aug, "zR") == 0 && e.fde.start[8] == 0) {
			/* pc and range (sdata4 each), no augmentation data */
			size_t n = (size_t)(e.fde.end - e.fde.start) - 9;
			if (n > *len) {
				*len = n;
				*program = (uint8_t *)e.fde.start + 9;
				best = off;
			}
		}
		off = next;
	}
	return best;
}

TEST(real_files_are_let_through)
{
	const char *paths[] = { libc_path(), "/proc/self/exe", "/usr/bin/python3.11",
				"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/bin/perl",
				"/usr/bin/bash" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct copy c;
		if (!paths[i] || access(paths[i], R_OK) != 0)
			continue;
		CHECK(read_copy(paths[i], &c));
		const char *why = check_copy(&c);
		if (why)
			printf("#   %s: %s\n", paths[i], why);
		CHECK(why == NULL);
		free(c.bytes);
	}
}

/* libc's longest FDE program, its first bytes replaced by change (the
 * rest left as it was, or nops where fill): cfi_check's answer. */
static const char *changed_program(const uint8_t *change, size_t n, bool fill)
{
	struct copy c;
	uint8_t *program = NULL;
	size_t len;
	const char *why;

	if (!read_copy(libc_path(), &c))
		return "libc not read";
	longest_fde(&c, &program, &len);
	if (len < n) {
		free(c.bytes);
		return "no FDE long enough";
	}
	if (fill)
		memset(program, DW_CFA_nop, len);
	memcpy(program, change, n);
	why = check_copy(&c);
	free(c.bytes);
	return why ? why : "let through";
}

TEST(a_register_number_libdw_would_make_room_for_is_refused)
{
	/* DW_CFA_offset_extended, register 130,000,000: 1 GiB to libdw. */
	const uint8_t huge[] = { DW_CFA_offset_extended, 0x80, 0xc9, 0xfe, 0x3d, 0x01 };
	/* register 256 by DW_CFA_undefined; 255 is let through. */
	const uint8_t above[] = { DW_CFA_undefined, 0x80, 0x02 };
	const uint8_t highest[] = { DW_CFA_same_value, 0xff, 0x01 };

	CHECK_STR(changed_program(huge, sizeof(huge), false),
		  "a call-frame register number beyond x86-64's");
	CHECK_STR(changed_program(above, sizeof(above), false),
		  "a call-frame register number beyond x86-64's");
	CHECK_STR(changed_program(highest, sizeof(highest), true), "let through");
}

TEST(states_remembered_deeper_than_compilers_do_are_refused)
{
	uint8_t deep[CFI_MAX_REMEMBERED + 1], undone[2 * (CFI_MAX_REMEMBERED + 1)];

	memset(deep, DW_CFA_remember_state, sizeof(deep));
	CHECK_STR(changed_program(deep, sizeof(deep), true), "call-frame states remembered too deep");
	/* As deep each time, but each restored: let through. */
	for (size_t i = 0; i < sizeof(undone); i += 2) {
		undone[i] = DW_CFA_remember_state;
		undone[i + 1] = DW_CFA_restore_state;
	}
	CHECK_STR(changed_program(undone, sizeof(undone), true), "let through");
}

TEST(an_operand_past_its_program_or_an_unknown_instruction_is_refused)
{
	/* An expression block of 16,383 bytes, where the program has fewer. */
	const uint8_t cut[] = { DW_CFA_def_cfa_expression, 0xff, 0x7f };
	const uint8_t unknown[] = { DW_CFA_high_user };
	struct copy c;
	uint8_t *program = NULL;
	size_t len;

	CHECK(read_copy(libc_path(), &c));
	longest_fde(&c, &program, &len);
	free(c.bytes);
	printf("# libc's longest FDE program: %zu bytes\n", len);
	CHECK(len < 16383);
	CHECK_STR(changed_program(cut, sizeof(cut), true), "call-frame instructions cut short");
	CHECK_STR(changed_program(unknown, sizeof(unknown), true),
		  "a call-frame instruction it does not know");
}

TEST(a_table_entry_or_cie_pointer_to_what_the_walk_did_not_decode_is_refused)
{
	struct copy c;
	uint8_t *program;
	size_t len;
	int32_t v;

	/* The table's first FDE, 4 bytes on: inside it. */
	CHECK(read_copy(libc_path(), &c));
	memcpy(&v, c.hdr + 16, sizeof(v));
	v += 4;
	memcpy(c.hdr + 16, &v, sizeof(v));
	CHECK_STR(check_copy(&c), "an .eh_frame_hdr entry that is no FDE");
	free(c.bytes);

	/* An FDE's CIE pointer, 4 bytes short: inside its CIE. */
	CHECK(read_copy(libc_path(), &c));
	size_t off = longest_fde(&c, &program, &len);
	uint8_t *cie_pointer = (uint8_t *)c.eh_frame + off + 4;
	memcpy(&v, cie_pointer, sizeof(v));
	v -= 4;
	memcpy(cie_pointer, &v, sizeof(v));
	CHECK_STR(check_copy(&c), "an FDE whose CIE is not one");
	free(c.bytes);
}

/* An x86-64 ET_DYN image of sections (name, bytes), the last one ending
 * the mapping: the page after it cannot be read.  *size is the image's. */
struct section {
	const char *name;
	const uint8_t *bytes;
	size_t len;
};

static char *build_image(const struct section *sec, size_t n, size_t *size, size_t *maplen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), names = 1 + sizeof(".shstrtab"), data = 0;
	size_t nsec = n + 2, head = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);

	for (size_t i = 0; i < n; i++)
		names += strlen(sec[i].name) + 1, data += sec[i].len;
	size_t shoff = (head + names + 7) & ~(size_t)7;
	size_t total = shoff + nsec * sizeof(Elf64_Shdr) + data;
	size_t pages = (total + page - 1) / page, at = pages * page - data;
	char *img = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (img == MAP_FAILED)
		return NULL;
	mprotect(img + pages * page, page, PROT_NONE);
	*maplen = (pages + 1) * page;
	*size = pages * page;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = shoff;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = (Elf64_Half)nsec;
	eh->e_shstrndx = (Elf64_Half)(nsec - 1);
	*(Elf64_Phdr *)(img + sizeof(*eh)) = (Elf64_Phdr){ .p_type = PT_LOAD,
							  .p_flags = PF_R | PF_X,
							  .p_filesz = *size,
							  .p_memsz = *size,
							  .p_align = page };
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + shoff);
	size_t name = 1;
	for (size_t i = 0; i < n; i++) {
		strcpy(img + head + name, sec[i].name);
		sh[i + 1] = (Elf64_Shdr){ .sh_name = (Elf64_Word)name, .sh_type = SHT_PROGBITS,
					  .sh_flags = SHF_ALLOC, .sh_addr = at, .sh_offset = at,
					  .sh_size = sec[i].len, .sh_addralign = 1 };
		memcpy(img + at, sec[i].bytes, sec[i].len);
		name += strlen(sec[i].name) + 1;
		at += sec[i].len;
	}
	strcpy(img + head + name, ".shstrtab");
	sh[nsec - 1] = (Elf64_Shdr){ .sh_name = (Elf64_Word)name, .sh_type = SHT_STRTAB,
				     .sh_offset = head, .sh_size = names, .sh_addralign = 1 };
	return img;
}

static const char *check_sections(const struct section *sec, size_t n)
{
	size_t size, maplen;
	char *img = build_image(sec, n, &size, &maplen);
	Elf *elf = img ? elf_memory_bounded(img, size) : NULL;
	const char *why = elf ? cfi_check(elf) : "not built";

	elf_end(elf);
	if (img)
		munmap(img, maplen);
	return why ? why : "let through";
}

/* A CIE of augmentation aug and augmentation data (length, then bytes),
 * return address 16, its CFA rsp + 8; and an FDE of it (pcrel sdata4
 * pointers) for 256 bytes at 0x1000 with program, no augmentation data. */
static size_t put_cie(uint8_t *p, const char *aug, const uint8_t *augdata, size_t augdata_len)
{
	size_t n = 4, alen = strlen(aug);

	memset(p + n, 0, 4), n += 4; /* CIE id */
	p[n++] = 1;		     /* version */
	memcpy(p + n, aug, alen + 1), n += alen + 1;
	p[n++] = 1;    /* code alignment */
	p[n++] = 0x78; /* data alignment, -8 */
	p[n++] = 16;   /* return address */
	if (augdata_len)
		memcpy(p + n, augdata, augdata_len), n += augdata_len;
	p[n++] = DW_CFA_def_cfa, p[n++] = 7, p[n++] = 8;
	while (n % 4)
		p[n++] = DW_CFA_nop;
	uint32_t len = (uint32_t)(n - 4);
	memcpy(p, &len, 4);
	return n;
}

static size_t put_fde(uint8_t *p, size_t at, size_t cie_at, const uint8_t *program, size_t plen)
{
	size_t n = 4;
	uint32_t v = (uint32_t)(at + 4 - cie_at);

	memcpy(p + n, &v, 4), n += 4;
	int32_t pc = 0x1000;
	memcpy(p + n, &pc, 4), n += 4;
	v = 256;
	memcpy(p + n, &v, 4), n += 4;
	p[n++] = 0; /* augmentation data */
	memcpy(p + n, program, plen), n += plen;
	while (n % 4)
		p[n++] = DW_CFA_nop;
	v = (uint32_t)(n - 4);
	memcpy(p, &v, 4);
	return n;
}

TEST(a_personality_pointer_libdw_misreads_is_refused)
{
	/* "zPR", P a ULEB128 (80 03), then R 04: libdw's
	 * encoded_value_size() takes the personality to end at the 80, and
	 * R to be 03, so it would start the FDE's program elsewhere than the
	 * check did: where an FDE made for it names any register. */
	uint8_t eh[256];
	const uint8_t augdata[] = { 4, 0x01, 0x80, 0x03, 0x04 };
	const uint8_t nop = DW_CFA_nop;
	size_t n = put_cie(eh, "zPR", augdata, sizeof(augdata));

	n += put_fde(eh + n, n, 0, &nop, 1);
	memset(eh + n, 0, 4), n += 4;
	CHECK_STR(check_sections(&(struct section){ ".eh_frame", eh, n }, 1),
		  "a CIE's augmentation past its end, or of a pointer libdw misreads");
	/* The same CIE with R and P as compilers write them: let through. */
	const uint8_t usual[] = { 6, 0x9b, 0, 0, 0, 0, 0x1b };
	n = put_cie(eh, "zPR", usual, sizeof(usual));
	n += put_fde(eh + n, n, 0, &nop, 1);
	memset(eh + n, 0, 4), n += 4;
	CHECK_STR(check_sections(&(struct section){ ".eh_frame", eh, n }, 1), "let through");
}

TEST(a_cie_whose_letters_pass_the_file_end_is_refused_without_reading_there)
{
	/* "zPPPP" and no augmentation data, the last bytes of the mapping:
	 * libdw 0.188 reads a byte and a pointer for each P first. */
	uint8_t eh[64];
	size_t n = put_cie(eh, "zPPPP", (const uint8_t[]){ 0 }, 1);

	CHECK_STR(check_sections(&(struct section){ ".eh_frame", eh, n }, 1),
		  "a CIE's augmentation past its end, or of a pointer libdw misreads");
}

TEST(two_sections_named_eh_frame_are_refused)
{
	/* Which libdw takes depends on their order and its version: the
	 * check might read the other. */
	uint8_t eh[128];
	const uint8_t huge[] = { DW_CFA_undefined, 0x80, 0xc9, 0xfe, 0x3d };
	size_t n = put_cie(eh, "zR", (const uint8_t[]){ 1, 0x1b }, 2);

	n += put_fde(eh + n, n, 0, huge, sizeof(huge));
	memset(eh + n, 0, 4), n += 4;
	CHECK_STR(check_sections((struct section[]){ { ".eh_frame", eh, n }, { ".eh_frame", eh, n } },
				 2),
		  "two sections of one name, .eh_frame or .eh_frame_hdr");
	CHECK_STR(check_sections(&(struct section){ ".eh_frame", eh, n }, 1),
		  "a call-frame register number beyond x86-64's");
}

TEST(more_cies_than_any_real_file_are_refused)
{
	/* libdw keeps about 100 bytes for each CIE it meets. */
	size_t one = 16, n = 0, count = (1u << 16) + 1;
	uint8_t *eh = malloc(one * count + 4);

	CHECK(eh != NULL);
	if (!eh)
		return;
	for (size_t i = 0; i < count; i++)
		n += put_cie(eh + n, "", NULL, 0);
	memset(eh + n, 0, 4), n += 4;
	CHECK_STR(check_sections(&(struct section){ ".eh_frame", eh, n }, 1),
		  "more CIEs than any real file");
	free(eh);
}

TEST(a_header_without_a_table_is_let_through)
{
	/* ld's, where it could not make the table: the count's encoding
	 * omitted.  libdw walks .eh_frame from its start instead. */
	struct copy c;

	CHECK(read_copy(libc_path(), &c));
	c.hdr[2] = DW_EH_PE_omit;
	CHECK(check_copy(&c) == NULL);
	free(c.bytes);
}

TEST(what_the_check_read_stays_what_libdw_reads_after_the_owner_rewrites_the_file)
{
	/* A copy of libc in a file, mapped as prof-sample maps a user's,
	 * then its longest FDE's program rewritten to name register
	 * 130,000,000 through the file. */
	const uint8_t huge[] = { DW_CFA_offset_extended, 0x80, 0xc9, 0xfe, 0x3d, 0x01 };
	char path[] = "/tmp/cficheck-XXXXXX";
	int fd = mkstemp(path);
	struct copy c;
	uint8_t *program = NULL;
	size_t len;

	CHECK(fd >= 0 && read_copy(libc_path(), &c));
	if (fd < 0)
		return;
	unlink(path);
	CHECK(write(fd, c.bytes, c.size) == (ssize_t)c.size);
	longest_fde(&c, &program, &len);
	off_t at = (off_t)(program - (uint8_t *)c.bytes);
	Elf *frozen = elf_begin_bounded(fd), *plain = elf_begin_bounded(fd);
	uint64_t bytes = 0;
	/* What it copies counts against its caller's budget. */
	CHECK(frozen && plain && !cfi_freeze(frozen, 4096, &bytes) && bytes == 0);
	CHECK(cfi_freeze(frozen, UINT64_MAX, &bytes));
	printf("# %zu bytes of libc, %" PRIu64 " copied\n", c.size, bytes);
	CHECK(bytes > 4096 && bytes < c.size / 4);
	CHECK(cfi_check(frozen) == NULL);
	CHECK(pwrite(fd, huge, sizeof(huge), at) == (ssize_t)sizeof(huge));
	size_t size;
	const uint8_t *seen = (const uint8_t *)elf_rawfile(frozen, &size) + at;
	const uint8_t *shown = (const uint8_t *)elf_rawfile(plain, &size) + at;
	/* The write shows through a mapping not frozen, not through one. */
	CHECK(memcmp(shown, huge, sizeof(huge)) == 0);
	CHECK(memcmp(seen, program, sizeof(huge)) == 0);
	CHECK(cfi_check(frozen) == NULL);
	CHECK_STR(cfi_check(plain), "a call-frame register number beyond x86-64's");
	elf_end(frozen);
	elf_end(plain);
	free(c.bytes);
	close(fd);
}

/* The second review's cases. */

TEST(gnu_compressed_sections_are_refused)
{
	/* libdw inflates a .zdebug section whenever it opens the DWARF, for
	 * each process's session, and again when the bytes say "ZLIB". */
	uint8_t eh[64];
	size_t n = put_cie(eh, "zR", (const uint8_t[]){ 1, 0x1b }, 2);

	memset(eh + n, 0, 4), n += 4;
	CHECK_STR(check_sections((struct section[]){ { ".eh_frame", eh, n },
						     { ".zdebug_frame", (const uint8_t *)"ZLIB", 4 } },
				 2),
		  "GNU-compressed debug sections (.zdebug)");
}

TEST(more_expression_bytes_than_any_real_file_are_refused)
{
	/* libdw turns each byte into about 72, for each session. */
	size_t len = (64u << 10) + 1, n;
	uint8_t *eh = calloc(1, len + 256), *program = calloc(1, len + 4);

	CHECK(eh && program);
	if (!eh || !program)
		return;
	program[0] = DW_CFA_def_cfa_expression;
	program[1] = 0x81, program[2] = 0x80, program[3] = 0x04; /* 65,537 */
	n = put_cie(eh, "zR", (const uint8_t[]){ 1, 0x1b }, 2);
	n += put_fde(eh + n, n, 0, program, len + 4);
	memset(eh + n, 0, 4), n += 4;
	CHECK_STR(check_sections(&(struct section){ ".eh_frame", eh, n }, 1),
		  "more call-frame expressions than any real file");
	/* 64 KiB is let through. */
	program[1] = 0x80, program[2] = 0x80, program[3] = 0x04;
	n = put_cie(eh, "zR", (const uint8_t[]){ 1, 0x1b }, 2);
	n += put_fde(eh + n, n, 0, program, len + 3);
	memset(eh + n, 0, 4), n += 4;
	CHECK_STR(check_sections(&(struct section){ ".eh_frame", eh, n }, 1), "let through");
	free(eh);
	free(program);
}

TEST(more_debug_frame_sections_than_libdw_reads_are_refused)
{
	/* libdw takes the first; each more cost the check a walk. */
	uint8_t df[64];
	size_t n = 0;
	struct section five[5];

	/* A .debug_frame CIE: id 0xffffffff, version 1, no augmentation. */
	const uint8_t cie[] = { 12, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 0, 1, 0x78, 16,
				DW_CFA_def_cfa, 7, 8 };
	memcpy(df, cie, sizeof(cie)), n = sizeof(cie);
	for (size_t i = 0; i < 5; i++)
		five[i] = (struct section){ ".debug_frame", df, n };
	CHECK_STR(check_sections(five, 4), "let through");
	CHECK_STR(check_sections(five, 5), "more .debug_frame sections than libdw reads");
}

TEST(headers_claiming_no_size_are_copied_all_the_same)
{
	/* libelf uses the ELF header in place whatever e_ehsize says: a
	 * later e_shstrndx would name another section .eh_frame. */
	char path[] = "/tmp/cficheck-XXXXXX";
	int fd = mkstemp(path);
	struct copy c;
	uint64_t bytes;
	const uint16_t zero = 0, other = 3;

	CHECK(fd >= 0 && read_copy(libc_path(), &c));
	if (fd < 0)
		return;
	unlink(path);
	/* (And none for its program headers, which share its page.) */
	memcpy(c.bytes + offsetof(Elf64_Ehdr, e_ehsize), &zero, sizeof(zero));
	memcpy(c.bytes + offsetof(Elf64_Ehdr, e_phentsize), &zero, sizeof(zero));
	CHECK(write(fd, c.bytes, c.size) == (ssize_t)c.size);
	Elf *elf = elf_begin_bounded(fd);
	CHECK(elf && cfi_freeze(elf, UINT64_MAX, &bytes));
	CHECK(pwrite(fd, &other, sizeof(other), offsetof(Elf64_Ehdr, e_shstrndx)) == sizeof(other));
	size_t size;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf_rawfile(elf, &size);
	CHECK_INT(eh->e_shstrndx, ((const Elf64_Ehdr *)c.bytes)->e_shstrndx);
	elf_end(elf);
	free(c.bytes);
	close(fd);
}
