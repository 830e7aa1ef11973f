#include "debug_image.h"

#include <gelf.h>
#include <string.h>

static bool is_dwarf(const char *name)
{
	return name && (strncmp(name, ".debug_", 7) == 0 || strncmp(name, ".zdebug_", 8) == 0);
}

/* The sections whose contents symbolization reads. */
static bool wanted(const GElf_Shdr *sh, size_t index, size_t dynstr)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_type == SHT_NULL)
		return false;
	return !(sh->sh_flags & SHF_ALLOC) || sh->sh_type == SHT_NOTE ||
	       sh->sh_type == SHT_DYNSYM || index == dynstr;
}

static uint64_t dwarf_bytes(Elf *src, size_t shstrndx, size_t *dynstr)
{
	Elf_Scn *scn = NULL;
	uint64_t n = 0;
	GElf_Shdr sh;

	*dynstr = 0;
	while ((scn = elf_nextscn(src, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM)
			*dynstr = sh.sh_link;
		if (sh.sh_type != SHT_NOBITS && is_dwarf(elf_strptr(src, shstrndx, sh.sh_name)))
			n += sh.sh_size;
	}
	return n;
}

/* Real files align sections to a few bytes, pages at most; a corrupt one
 * may claim 2^40, which libelf would lay out as such. */
#define MAX_ALIGN 65536

static bool copy_section(Elf *src, Elf_Scn *in, Elf *dst, size_t index, size_t shstrndx,
			 size_t dynstr, bool keep_dwarf)
{
	Elf_Scn *out = elf_newscn(dst);
	GElf_Shdr sh;
	Elf_Data *d, *od;

	if (!out || !gelf_getshdr(in, &sh))
		return false;
	bool keep = wanted(&sh, index, dynstr) &&
		    (keep_dwarf || !is_dwarf(elf_strptr(src, shstrndx, sh.sh_name)));
	/* Raw bytes, in the file's byte order, compressed sections as they
	 * are: nothing is converted on the way through. */
	if (keep && (sh.sh_addralign > MAX_ALIGN || (sh.sh_addralign & (sh.sh_addralign - 1))))
		return false;
	if (keep && (d = elf_rawdata(in, NULL)) && d->d_size == sh.sh_size) {
		if (!(od = elf_newdata(out)))
			return false;
		od->d_buf = d->d_buf;
		od->d_size = d->d_size;
		od->d_type = ELF_T_BYTE;
		od->d_off = 0;
		od->d_align = sh.sh_addralign ? sh.sh_addralign : 1;
		od->d_version = EV_CURRENT;
	} else {
		/* Nothing of it is in the image (whatever its type claimed):
		 * where it would start does not matter. */
		sh.sh_type = SHT_NOBITS;
		sh.sh_addralign = 1;
	}
	return gelf_update_shdr(out, &sh) != 0;
}

bool debug_image_write(Elf *src, int out, uint64_t max_dwarf)
{
	GElf_Ehdr eh;
	size_t phnum, shnum, shstrndx, dynstr;
	Elf *dst = NULL;
	bool ok = false;

	if (elf_kind(src) != ELF_K_ELF || !gelf_getehdr(src, &eh) || elf_getphdrnum(src, &phnum) != 0 ||
	    elf_getshdrnum(src, &shnum) != 0 || elf_getshdrstrndx(src, &shstrndx) != 0 || shnum < 2)
		return false;
	bool keep_dwarf = dwarf_bytes(src, shstrndx, &dynstr) <= max_dwarf;
	if (!(dst = elf_begin(out, ELF_C_WRITE, NULL)) || !gelf_newehdr(dst, gelf_getclass(src)))
		goto out;
	/* libelf lays the file out anew (e_phoff, e_shoff, sh_offset); the
	 * program headers still describe the original file, as in every
	 * separate debug file. */
	if (phnum && !gelf_newphdr(dst, phnum))
		goto out;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(src, (int)i, &ph) || !gelf_update_phdr(dst, (int)i, &ph))
			goto out;
	}
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *in = elf_getscn(src, i);
		if (!in || !copy_section(src, in, dst, i, shstrndx, dynstr, keep_dwarf))
			goto out;
	}
	GElf_Ehdr oh;
	if (!gelf_getehdr(dst, &oh))
		goto out;
	memcpy(oh.e_ident, eh.e_ident, EI_NIDENT);
	oh.e_type = eh.e_type;
	oh.e_machine = eh.e_machine;
	oh.e_version = eh.e_version;
	oh.e_entry = eh.e_entry;
	oh.e_flags = eh.e_flags;
	oh.e_shstrndx = eh.e_shstrndx;
	if (!gelf_update_ehdr(dst, &oh))
		goto out;
	if (shstrndx >= SHN_LORESERVE) {
		/* An index that does not fit e_shstrndx lives in section 0. */
		GElf_Shdr zero;
		Elf_Scn *z = elf_getscn(dst, 0);
		if (!z || !gelf_getshdr(z, &zero))
			goto out;
		zero.sh_link = (GElf_Word)shstrndx;
		if (!gelf_update_shdr(z, &zero))
			goto out;
	}
	ok = elf_update(dst, ELF_C_WRITE) >= 0;
out:
	elf_end(dst);
	return ok;
}
