/*
 * A file's CFI as the BPF program's unwind-table rows (prof-sample/procs/cfi_rows.c):
 * every pc of libc and of this program gets the rule libdw computes for it,
 * the entry point is the outermost frame, and a .eh_frame_hdr that claims
 * more than it holds is refused.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfi_rows.h"
#include "elf_bounded.h"
#include "unit.h"

static Elf *open_elf(const char *path)
{
	int fd = open(path, O_RDONLY);

	elf_version(EV_CURRENT);
	return fd < 0 ? NULL : elf_begin_bounded(fd);
}

/* libdw's rule at pc, as a row: only what the tests compare. */
static struct unwind_row libdw_rule(Dwarf_CFI *cfi, Dwarf_Addr pc, bool *found)
{
	struct unwind_row r = { .kind = PROF_CFA_NONE };
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t n;

	*found = dwarf_cfi_addrframe(cfi, pc, &frame) == 0;
	if (!*found)
		return r;
	if (dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_bregx &&
	    (ops[0].number == 6 || ops[0].number == 7)) {
		r.kind = ops[0].number == 7 ? PROF_CFA_RSP : PROF_CFA_RBP;
		r.cfa = (uint16_t)ops[0].number2;
	}
	free(frame);
	return r;
}

/* For every row, its first and last pc and one between: the rule libdw
 * gives there is the row's (where the row has one libdw computes as a
 * register plus an offset); a NONE row is code between FDEs or one of the
 * rules cfi_rows.c counted as unknown, one row each at most. */
static void agree_with_libdw(const char *path)
{
	Elf *elf = open_elf(path);
	Dwarf_CFI *cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	const char *why = NULL;
	struct cfi_rows *r = elf ? cfi_rows_read(elf, 1u << 22, &why) : NULL;
	size_t checked = 0, wrong = 0, none_with_cfi = 0, kinds[PROF_CFA_END + 1] = { 0 };

	CHECK(cfi && r);
	if (!cfi || !r) {
		printf("#   %s: %s\n", path, why ? why : "not read");
		return;
	}
	for (size_t i = 0; i + 1 < r->n; i++) {
		const struct unwind_row *row = &r->row[i];
		uint32_t end = r->row[i + 1].pc;
		uint32_t pcs[3] = { row->pc, row->pc + (end - row->pc) / 2, end - 1 };
		CHECK(end > row->pc);
		kinds[row->kind]++;
		for (int k = 0; k < 3; k++) {
			bool found;
			struct unwind_row want = libdw_rule(cfi, pcs[k], &found);
			checked++;
			if (row->kind == PROF_CFA_RSP || row->kind == PROF_CFA_RBP)
				wrong += !found || want.kind != row->kind || want.cfa != row->cfa;
			else if (row->kind == PROF_CFA_NONE && k == 0)
				none_with_cfi += found;
		}
	}
	printf("# %s: %zu rows (rsp %zu, rbp %zu, plt %zu, end %zu, none %zu), %zu of %zu rules "
	       "unknown; %zu pcs checked\n",
	       path, r->n, kinds[PROF_CFA_RSP], kinds[PROF_CFA_RBP], kinds[PROF_CFA_PLT],
	       kinds[PROF_CFA_END], kinds[PROF_CFA_NONE], r->unknown, r->rules, checked);
	CHECK_INT(wrong, 0);
	CHECK(none_with_cfi <= r->unknown);
	CHECK(kinds[PROF_CFA_RSP] > 100);
	/* Code without CFI ends the table. */
	CHECK_INT(r->row[r->n - 1].kind, PROF_CFA_NONE);
	cfi_rows_free(r);
	dwarf_cfi_end(cfi);
	elf_end(elf);
}

TEST(libc_rows_give_libdw_rules)
{
	Dl_info info;

	CHECK(dladdr((void *)write, &info) != 0);
	agree_with_libdw(info.dli_fname);
}

TEST(this_program_rows_give_libdw_rules)
{
	agree_with_libdw("/proc/self/exe");
}

/* The row of file address pc. */
static const struct unwind_row *row_at(const struct cfi_rows *r, uint64_t pc)
{
	const struct unwind_row *found = NULL;

	for (size_t i = 0; i < r->n && r->row[i].pc <= pc; i++)
		found = &r->row[i];
	return found;
}

TEST(the_entry_point_is_the_outermost_frame)
{
	Elf *elf = open_elf("/proc/self/exe");
	GElf_Ehdr eh;
	const char *why;
	struct cfi_rows *r = elf ? cfi_rows_read(elf, 1u << 22, &why) : NULL;
	const struct unwind_row *at;

	CHECK(r && gelf_getehdr(elf, &eh));
	if (!r)
		return;
	/* glibc's _start marks its return address undefined. */
	at = row_at(r, eh.e_entry);
	CHECK(at != NULL);
	if (at)
		CHECK_INT(at->kind, PROF_CFA_END);
	cfi_rows_free(r);
	elf_end(elf);
}

/* This program's image with its .eh_frame_hdr patched by patch(). */
static Elf *patched(char **image, void (*patch)(uint8_t *hdr, size_t size))
{
	int fd = open("/proc/self/exe", O_RDONLY);
	struct stat st;
	Elf64_Ehdr *eh;

	if (fd < 0 || fstat(fd, &st) != 0 || !(*image = malloc((size_t)st.st_size)) ||
	    read(fd, *image, (size_t)st.st_size) != st.st_size)
		return NULL;
	close(fd);
	eh = (Elf64_Ehdr *)*image;
	for (int i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(*image + eh->e_phoff) + i;
		if (ph->p_type == PT_GNU_EH_FRAME)
			patch((uint8_t *)*image + ph->p_offset, ph->p_filesz);
	}
	return elf_memory_bounded(*image, (size_t)st.st_size);
}

static void more_fdes_than_it_holds(uint8_t *hdr, size_t size)
{
	uint32_t count = (uint32_t)((size - 12) / 8 + 1);

	memcpy(hdr + 8, &count, sizeof(count));
}

static void another_encoding(uint8_t *hdr, size_t size)
{
	(void)size;
	hdr[3] = 0x1b; /* pc-relative */
}

TEST(a_header_claiming_more_than_it_holds_is_refused)
{
	void (*patches[])(uint8_t *, size_t) = { more_fdes_than_it_holds, another_encoding };

	for (size_t i = 0; i < sizeof(patches) / sizeof(patches[0]); i++) {
		char *image = NULL;
		const char *why = NULL;
		Elf *elf = patched(&image, patches[i]);
		CHECK(elf != NULL);
		if (elf) {
			CHECK(cfi_rows_read(elf, 1u << 22, &why) == NULL);
			CHECK(why && strstr(why, ".eh_frame_hdr"));
			elf_end(elf);
		}
		free(image);
	}
}

TEST(more_rows_than_allowed_are_refused)
{
	Elf *elf = open_elf("/proc/self/exe");
	const char *why = NULL;

	CHECK(elf && cfi_rows_read(elf, 4, &why) == NULL);
	CHECK(why && strcmp(why, "too many rows") == 0);
	elf_end(elf);
}
