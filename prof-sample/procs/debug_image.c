#include "debug_image.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "sigbus_guard.h"

/* Real files align sections to a few bytes, pages at most; a corrupt one
 * may claim 2^40, which libelf would lay out as such. */
#define MAX_ALIGN 65536

struct plan {
	Elf *src;
	int fd;
	uint64_t file_size;
	size_t shnum, shstrndx;
	bool *keep;
	uint64_t left; /* of the image's budget */
	struct image_stats *st;
	const struct image_origin *origin;
	char *names;	    /* the section names, and the origin note's */
	size_t origin_name; /* where its name starts in them */
	void *note;
};

static bool is_dwarf(const char *name)
{
	return name && (strncmp(name, ".debug_", 7) == 0 || strncmp(name, ".zdebug_", 8) == 0);
}

static bool named(const char *name, const char *want)
{
	return name && strcmp(name, want) == 0;
}

static const char *section_name(const struct plan *p, const GElf_Shdr *sh)
{
	return elf_strptr(p->src, p->shstrndx, sh->sh_name);
}

/* Whether the file holds section sh's bytes: inside it, and with no hole
 * among them.  A linker writes every byte of a section; a hole is a
 * section claimed, not written. */
static bool in_file(struct plan *p, const GElf_Shdr *sh)
{
	off_t hole;

	if (sh->sh_offset > p->file_size || sh->sh_size > p->file_size - sh->sh_offset)
		return false;
	if (p->fd < 0 || sh->sh_size == 0)
		return true;
	hole = lseek(p->fd, (off_t)sh->sh_offset, SEEK_HOLE);
	if (hole >= 0 && (uint64_t)hole < sh->sh_offset + sh->sh_size) {
		p->st->holes++;
		return false;
	}
	return true;
}

static bool copyable(struct plan *p, size_t i, GElf_Shdr *sh)
{
	Elf_Scn *scn = elf_getscn(p->src, i);

	return i > 0 && i < p->shnum && scn && gelf_getshdr(scn, sh) && sh->sh_type != SHT_NOBITS &&
	       sh->sh_type != SHT_NULL && sh->sh_addralign <= MAX_ALIGN &&
	       !(sh->sh_addralign & (sh->sh_addralign - 1));
}

/* Keeps sections idx[0..n) together, if each may be copied, is at most
 * max bytes, is in the file, and all fit what is left.  Those already kept
 * count once. */
static bool keep_all(struct plan *p, const size_t *idx, size_t n, uint64_t max)
{
	uint64_t bytes = 0;
	GElf_Shdr sh;

	for (size_t k = 0; k < n; k++) {
		if (!copyable(p, idx[k], &sh))
			return false;
		if (p->keep[idx[k]])
			continue;
		if (sh.sh_size > max || sh.sh_size > p->left - bytes) {
			p->st->too_large++;
			return false;
		}
		if (!in_file(p, &sh))
			return false;
		bytes += sh.sh_size;
	}
	for (size_t k = 0; k < n; k++)
		p->keep[idx[k]] = true;
	p->left -= bytes;
	p->st->bytes += bytes;
	return true;
}

static bool keep_one(struct plan *p, size_t i, uint64_t max)
{
	return keep_all(p, &i, 1, max);
}

/* A symbol table with its strings (and its extended section indices). */
static bool keep_symbols(struct plan *p, Elf64_Word type)
{
	bool any = false;
	GElf_Shdr sh, x;

	for (size_t i = 1; i < p->shnum; i++) {
		size_t group[3] = { i, 0, 0 }, n = 2;
		if (!copyable(p, i, &sh) || sh.sh_type != type)
			continue;
		group[1] = sh.sh_link;
		for (size_t j = 1; j < p->shnum && n < 3; j++)
			if (copyable(p, j, &x) && x.sh_type == SHT_SYMTAB_SHNDX && x.sh_link == i)
				group[n++] = j;
		any |= keep_all(p, group, n, p->left);
	}
	return any;
}

/* The DWARF, all of it or none: a part would mislead. */
static bool keep_dwarf(struct plan *p, uint64_t max)
{
	size_t *idx = xcalloc(p->shnum ? p->shnum : 1, sizeof(*idx)), n = 0;
	GElf_Shdr sh;
	uint64_t total = 0;
	bool kept = false;

	for (size_t i = 1; i < p->shnum; i++)
		if (copyable(p, i, &sh) && is_dwarf(section_name(p, &sh))) {
			idx[n++] = i;
			total += sh.sh_size;
		}
	if (n && total > max)
		p->st->too_large++;
	else if (n)
		kept = keep_all(p, idx, n, max);
	free(idx);
	return kept;
}

/* Which sections the image keeps: the small ones that say what the file
 * is first, then the symbols, then the DWARF, while the budget lasts. */
static bool plan_image(struct plan *p, const struct image_limits *lim)
{
	bool symbols = false;
	GElf_Shdr sh;

	keep_one(p, p->shstrndx, IMAGE_MAX_SHSTRTAB);
	for (size_t i = 1; i < p->shnum; i++) {
		const char *name;
		if (!copyable(p, i, &sh))
			continue;
		name = section_name(p, &sh);
		if (sh.sh_type == SHT_NOTE)
			keep_one(p, i, IMAGE_MAX_NOTE);
		else if (named(name, ".gnu_debuglink") || named(name, ".gnu_debugaltlink") ||
			 named(name, ".comment"))
			keep_one(p, i, IMAGE_MAX_SMALL);
		else if (named(name, ".gnu_debugdata"))
			symbols |= keep_one(p, i, IMAGE_MAX_MINIDEBUG);
	}
	symbols |= keep_symbols(p, SHT_DYNSYM);
	symbols |= keep_symbols(p, SHT_SYMTAB);
	symbols |= keep_dwarf(p, lim->max_dwarf);
	return symbols;
}

/* Adds bytes buf[0..size) as section out's contents. */
static bool set_data(Elf_Scn *out, void *buf, size_t size, size_t align)
{
	Elf_Data *od = elf_newdata(out);

	if (!od)
		return false;
	od->d_buf = buf;
	od->d_size = size;
	od->d_type = ELF_T_BYTE;
	od->d_off = 0;
	od->d_align = align ? align : 1;
	od->d_version = EV_CURRENT;
	return true;
}

static bool copy_section(struct plan *p, Elf_Scn *in, Elf *dst, size_t index)
{
	Elf_Scn *out = elf_newscn(dst);
	GElf_Shdr sh;
	Elf_Data *d;

	if (!out || !gelf_getshdr(in, &sh))
		return false;
	/* Raw bytes, in the file's byte order, compressed sections as they
	 * are: nothing is converted on the way through.  The section names
	 * gain the origin note's. */
	if (p->keep[index] && (d = elf_rawdata(in, NULL)) && d->d_size == sh.sh_size) {
		if (index == p->shstrndx) {
			p->names = xmalloc(d->d_size + sizeof(ORIGIN_NOTE_SECTION));
			if (d->d_size)
				memcpy(p->names, d->d_buf, d->d_size);
			memcpy(p->names + d->d_size, ORIGIN_NOTE_SECTION, sizeof(ORIGIN_NOTE_SECTION));
			p->origin_name = d->d_size;
			sh.sh_size = d->d_size + sizeof(ORIGIN_NOTE_SECTION);
			if (!set_data(out, p->names, sh.sh_size, sh.sh_addralign))
				return false;
		} else if (!set_data(out, d->d_buf, d->d_size, sh.sh_addralign)) {
			return false;
		}
	} else {
		/* Nothing of it is in the image (whatever its type claimed):
		 * where it would start does not matter. */
		sh.sh_type = SHT_NOBITS;
		sh.sh_addralign = 1;
	}
	return gelf_update_shdr(out, &sh) != 0;
}

/* The origin note, in a section after the file's own. */
static bool add_origin(struct plan *p, Elf *dst)
{
	Elf_Scn *out = elf_newscn(dst);
	GElf_Shdr sh = { .sh_name = (GElf_Word)p->origin_name, .sh_type = SHT_NOTE,
			 .sh_addralign = 4 };
	size_t size;

	if (!out)
		return false;
	p->note = origin_note_bytes(p->origin, &size);
	sh.sh_size = size;
	return set_data(out, p->note, size, 4) && gelf_update_shdr(out, &sh) != 0;
}

static bool write_image(struct plan *p, Elf *dst)
{
	GElf_Ehdr eh, oh;
	size_t phnum;

	if (!gelf_getehdr(p->src, &eh) || elf_getphdrnum(p->src, &phnum) != 0 ||
	    !gelf_newehdr(dst, gelf_getclass(p->src)))
		return false;
	/* libelf lays the file out anew (e_phoff, e_shoff, sh_offset); the
	 * program headers still describe the original file, as in every
	 * separate debug file. */
	if (phnum && !gelf_newphdr(dst, phnum))
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(p->src, (int)i, &ph) || !gelf_update_phdr(dst, (int)i, &ph))
			return false;
	}
	for (size_t i = 1; i < p->shnum; i++) {
		Elf_Scn *in = elf_getscn(p->src, i);
		if (!in || !copy_section(p, in, dst, i))
			return false;
	}
	if (!p->names || !add_origin(p, dst) || !gelf_getehdr(dst, &oh))
		return false;
	memcpy(oh.e_ident, eh.e_ident, EI_NIDENT);
	oh.e_type = eh.e_type;
	oh.e_machine = eh.e_machine;
	oh.e_version = eh.e_version;
	oh.e_entry = eh.e_entry;
	oh.e_flags = eh.e_flags;
	oh.e_shstrndx = eh.e_shstrndx;
	if (!gelf_update_ehdr(dst, &oh))
		return false;
	if (p->shstrndx >= SHN_LORESERVE) {
		/* An index that does not fit e_shstrndx lives in section 0. */
		GElf_Shdr zero;
		Elf_Scn *z = elf_getscn(dst, 0);
		if (!z || !gelf_getshdr(z, &zero))
			return false;
		zero.sh_link = (GElf_Word)p->shstrndx;
		if (!gelf_update_shdr(z, &zero))
			return false;
	}
	return elf_update(dst, ELF_C_WRITE) >= 0;
}

enum image_result debug_image_write(Elf *src, int fd, int out, const struct image_limits *lim,
				    const struct image_origin *origin, struct image_stats *st)
{
	struct plan p = { .src = src, .fd = fd, .left = lim->max_image, .st = st, .origin = origin };
	enum image_result r = IMAGE_NOT_ELF;
	uint64_t zeroed = sigbus_guard_pages(NULL);
	size_t size;
	struct stat sb;
	Elf *dst;

	*st = (struct image_stats){ 0 };
	if (elf_kind(src) != ELF_K_ELF || elf_getshdrnum(src, &p.shnum) != 0 ||
	    elf_getshdrstrndx(src, &p.shstrndx) != 0 || p.shnum < 2 || !elf_rawfile(src, &size))
		return IMAGE_NOT_ELF;
	p.file_size = size;
	if (fd >= 0 && fstat(fd, &sb) == 0 && (uint64_t)sb.st_size < p.file_size)
		p.file_size = (uint64_t)sb.st_size;
	/* One flag per section header libelf has already read: as many as
	 * the file holds. */
	p.keep = xcalloc(p.shnum, sizeof(*p.keep));
	/* Without the section names, no note can be named, nor a section
	 * found by name. */
	if (!plan_image(&p, lim) || p.shstrndx >= p.shnum || !p.keep[p.shstrndx]) {
		r = IMAGE_NO_SYMBOLS;
	} else if ((dst = elf_begin(out, ELF_C_WRITE, NULL))) {
		if (write_image(&p, dst))
			r = IMAGE_WRITTEN;
		elf_end(dst);
	}
	/* Its owner cut the file under the copy, whose symbols would be
	 * zeros in the cache for every later run. */
	if (sigbus_guard_pages(NULL) != zeroed)
		r = IMAGE_CUT;
	free(p.keep);
	free(p.names);
	free(p.note);
	return r;
}
