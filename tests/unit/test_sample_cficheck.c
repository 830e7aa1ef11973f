/*
 * cfi_check.c: real files' CFI is let through to libdw; a copy of libc
 * with one thing changed in its CFI, each of what could make libdw
 * allocate without bound or read an entry the check did not decode, is
 * refused, saying which.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <gnu/libc-version.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
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
	/* DW_CFA_offset_extended, register 130,000,000: 2 GiB to libdw. */
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
