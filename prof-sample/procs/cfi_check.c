#include "cfi_check.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "diag.h"
#include "eh_frame_hdr.h"
#include "upper_bound.h"

/* cc1 has 70,000 FDEs, Chromium 430,000; linkers merge .eh_frame's CIEs
 * to a few, a .debug_frame has one per object file.  libdw keeps about 100
 * bytes for each CIE it meets. */
#define MAX_FDES (1u << 22)
#define MAX_CIES (1u << 16)
/* libdw turns each expression block into about 72 bytes per byte, for
 * each process's session: real files have a few PLT and signal-frame
 * rules of tens of bytes. */
#define MAX_EXPRESSION_BYTES (64u << 10)

struct cie {
	uint64_t off;
	uint8_t fde_encoding;
	bool sized; /* its FDEs have augmentation data, of a length given */
};

/* The entries one walk of a section decoded, in offset order. */
struct entries {
	const unsigned char *ident;
	unsigned addr_size;
	uint64_t *expression_bytes; /* the file's, all sections' */
	struct cie *cies;
	size_t ncies, cies_cap;
	struct fde {
		uint64_t off;
	} *fdes;
	size_t nfdes, fdes_cap;
};

/* A LEB128 operand (signed ones have the same bytes); false when cut short
 * or longer than 64 bits, where libdw would read something else. */
static bool leb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t acc = 0;

	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		acc |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = acc;
			return true;
		}
	}
	return false;
}

static bool skip(const uint8_t **p, const uint8_t *end, uint64_t n)
{
	if ((uint64_t)(end - *p) < n)
		return false;
	*p += n;
	return true;
}

/* The bytes of a pointer encoded as enc, as libdw's encoded_value_size()
 * counts them; 0 for what it counts wrong (LEB128: it stops at the first
 * byte with the high bit set, which is how LEB128 goes on) or not at all. */
static unsigned encoded_size(uint8_t enc, unsigned addr_size)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
		return addr_size;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	default:
		return 0;
	}
}

/* Past a pointer encoded as enc; false for the encodings linkers do not
 * write for x86-64 (aligned, omitted where one is due). */
static bool skip_encoded(const uint8_t **p, const uint8_t *end, uint8_t enc, unsigned addr_size)
{
	unsigned n = encoded_size(enc, addr_size);
	uint64_t v;

	if (enc == DW_EH_PE_omit || (enc & 0x70) == DW_EH_PE_aligned)
		return false;
	if ((enc & 0x07) == DW_EH_PE_uleb128) /* and sleb128 */
		return leb(p, end, &v);
	return n && skip(p, end, n);
}

/* Each instruction of a CIE's or FDE's program, as libdw's execute_cfi()
 * reads it: what it could make libdw allocate is bounded. */
static const char *program(const struct entries *es, const uint8_t *p, const uint8_t *end,
			   uint8_t fde_encoding)
{
	unsigned addr_size = es->addr_size;
	unsigned depth = 0;

	while (p < end) {
		uint8_t op = *p++;
		uint64_t reg = 0, v = 0;
		bool ok;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
		case DW_CFA_restore:
			continue; /* a register below 64 */
		case DW_CFA_offset:
			if (!leb(&p, end, &v))
				return "call-frame instructions cut short";
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
		case DW_CFA_GNU_window_save: /* registers 8 to 31 on SPARC */
			ok = true;
			break;
		case DW_CFA_remember_state:
			if (++depth > CFI_MAX_REMEMBERED)
				return "call-frame states remembered too deep";
			ok = true;
			break;
		case DW_CFA_restore_state:
			depth -= depth > 0;
			ok = true;
			break;
		case DW_CFA_set_loc:
			ok = skip_encoded(&p, end, fde_encoding, addr_size);
			break;
		case DW_CFA_advance_loc1:
			ok = skip(&p, end, 1);
			break;
		case DW_CFA_advance_loc2:
			ok = skip(&p, end, 2);
			break;
		case DW_CFA_advance_loc4:
			ok = skip(&p, end, 4);
			break;
		case DW_CFA_MIPS_advance_loc8:
			ok = skip(&p, end, 8);
			break;
		case DW_CFA_def_cfa_register: /* the CFA's register is not a slot */
		case DW_CFA_def_cfa_offset:
		case DW_CFA_def_cfa_offset_sf:
		case DW_CFA_GNU_args_size:
			ok = leb(&p, end, &v);
			break;
		case DW_CFA_def_cfa:
		case DW_CFA_def_cfa_sf:
			ok = leb(&p, end, &v) && leb(&p, end, &v);
			break;
		case DW_CFA_def_cfa_expression:
			ok = leb(&p, end, &v) && skip(&p, end, v);
			*es->expression_bytes += v;
			break;
		case DW_CFA_restore_extended:
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			ok = leb(&p, end, &reg);
			break;
		case DW_CFA_offset_extended:
		case DW_CFA_offset_extended_sf:
		case DW_CFA_GNU_negative_offset_extended:
		case DW_CFA_val_offset:
		case DW_CFA_val_offset_sf:
		case DW_CFA_register:
			ok = leb(&p, end, &reg) && leb(&p, end, &v);
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			ok = leb(&p, end, &reg) && leb(&p, end, &v) && skip(&p, end, v);
			*es->expression_bytes += v;
			break;
		default:
			return "a call-frame instruction it does not know";
		}
		if (!ok)
			return "call-frame instructions cut short";
		if (reg > CFI_MAX_REGISTER)
			return "a call-frame register number beyond x86-64's";
		if (*es->expression_bytes > MAX_EXPRESSION_BYTES)
			return "more call-frame expressions than any real file";
	}
	return NULL;
}

/*
 * Whether dwarf_next_cfi() may decode the entry at p (its length field)
 * without reading past it.  libdw 0.188 reads a 'z' CIE's augmentation
 * data letter by letter before it compares the end with the length the
 * CIE gives: a CIE of "zPPP" and no data, at the end of a file's mapping,
 * made it read past the mapping.  So a CIE is followed here as libdw
 * follows it up to its letters, each letter's bytes must lie within the
 * entry, and a CIE of what real files never have is refused (an entry
 * whose length libdw refuses it reads no further).
 */
static bool cie_within(const uint8_t *p, const uint8_t *end, bool eh, unsigned addr_size)
{
	uint64_t length, id, v;
	unsigned offset_size = 4;
	uint32_t w;

	if (end - p < 4)
		return true;
	memcpy(&w, p, 4);
	p += 4;
	length = w;
	if (w == 0xffffffff) {
		if (end - p < 8)
			return true;
		memcpy(&length, p, 8);
		p += 8;
		offset_size = 8;
	}
	if (length == 0 || (uint64_t)(end - p) < length || length < offset_size + 1)
		return true;
	end = p + length;
	if (offset_size == 8) {
		memcpy(&id, p, 8);
	} else {
		memcpy(&w, p, 4);
		id = w == 0xffffffff ? UINT64_MAX : w;
	}
	p += offset_size;
	if (eh ? id != 0 : id != UINT64_MAX)
		return true; /* an FDE: read only within it */
	/* A CIE: from here, what real files never have is refused. */
	uint8_t version = *p++;
	const char *aug = (const char *)p;
	if (!(p = memchr(p, 0, (size_t)(end - p))))
		return false;
	p++;
	if (version >= 4) {
		if (end - p < 5)
			return false;
		p += 2;
	}
	if (!leb(&p, end, &v) || !leb(&p, end, &v))
		return false;
	if (version >= 3 ? !leb(&p, end, &v) : p++ >= end)
		return false;
	if (*aug != 'z')
		return !*aug; /* no letter is read without 'z' */
	if (!leb(&p, end, &v) || (uint64_t)(end - p) < v)
		return false;
	for (aug++; *aug; aug++) {
		uint64_t need;
		switch (*aug) {
		case 'L':
		case 'R':
			need = 1;
			break;
		case 'P':
			if (p >= end || !(need = encoded_size(*p, addr_size)))
				return false;
			need += 1;
			break;
		case 'S':
			continue;
		default:
			continue; /* libdw skips what it does not know, with 'z' */
		}
		if ((uint64_t)(end - p) < need)
			return false;
		p += need;
	}
	return true;
}

/* A CIE's FDE pointer encoding, from its augmentation as libdw's
 * intern_new_cie() reads it, and its initial instructions. */
static const char *add_cie(struct entries *es, uint64_t off, const Dwarf_CIE *c)
{
	struct cie cie = { .off = off, .fde_encoding = DW_EH_PE_absptr };
	const char *ap = c->augmentation;
	const uint8_t *p = c->augmentation_data, *end = p + c->augmentation_data_size;
	const char *why;

	/* Without 'z', letters decide where the instructions start: real
	 * files have "" (.debug_frame) or "z..." (.eh_frame). */
	if (*ap == 'z')
		cie.sized = true, ap++;
	else if (*ap)
		return "a CIE augmentation it does not know";
	for (; *ap; ap++) {
		uint8_t enc;
		switch (*ap) {
		case 'L':
		case 'R':
			if (p >= end)
				return "a CIE's augmentation cut short";
			enc = *p++;
			if (*ap == 'R')
				cie.fde_encoding = enc;
			break;
		case 'P':
			if (p >= end)
				return "a CIE's augmentation cut short";
			enc = *p++;
			if (!skip_encoded(&p, end, enc, es->addr_size))
				return "a CIE's augmentation cut short";
			break;
		default:
			break; /* 'S', and what libdw skips with 'z' */
		}
	}
	why = program(es, c->initial_instructions, c->initial_instructions_end, cie.fde_encoding);
	if (why)
		return why;
	if (es->ncies >= MAX_CIES)
		return "more CIEs than any real file";
	es->cies = xreserve(es->cies, &es->cies_cap, es->ncies + 1, sizeof(*es->cies));
	es->cies[es->ncies++] = cie;
	return NULL;
}

static bool has_fde(const struct entries *es, uint64_t off)
{
	size_t i = UPPER_BOUND(es->fdes, es->nfdes, off, off);

	return i > 0 && es->fdes[i - 1].off == off;
}

/* An FDE's program: past its address range and augmentation data, as
 * libdw's intern_fde() reads them with its CIE's encoding. */
static const char *check_fde(const struct entries *es, const Dwarf_FDE *f)
{
	size_t i = UPPER_BOUND(es->cies, es->ncies, off, f->CIE_pointer);
	const struct cie *c = i > 0 ? &es->cies[i - 1] : NULL;
	const uint8_t *p = f->start;
	uint64_t len;

	/* libdw reads a CIE wherever the pointer says: at an offset the
	 * walk did not decode, it could be anything. */
	if (!c || c->off != f->CIE_pointer)
		return "an FDE whose CIE is not one";
	if (!skip_encoded(&p, f->end, c->fde_encoding, es->addr_size) ||
	    !skip_encoded(&p, f->end, c->fde_encoding & 0x0f, es->addr_size) ||
	    (c->sized && (!leb(&p, f->end, &len) || !skip(&p, f->end, len))))
		return "an FDE cut short";
	return program(es, p, f->end, c->fde_encoding);
}

/* Walks data as libdw does when it has no table (and skips what it
 * skips), then checks each FDE: its CIE may come after it in a
 * .debug_frame. */
static const char *check_section(struct entries *es, Elf_Data *data, bool eh)
{
	uint64_t off = 0, next;
	Dwarf_CFI_Entry e;
	const char *why = NULL;

	for (;;) {
		next = off;
		if (off < data->d_size &&
		    !cie_within((const uint8_t *)data->d_buf + off,
				(const uint8_t *)data->d_buf + data->d_size, eh, es->addr_size))
			return "a CIE's augmentation past its end, or of a pointer libdw misreads";
		int r = dwarf_next_cfi(es->ident, data, eh, off, &next, &e);
		if (r > 0 || (r < 0 && next <= off))
			break;
		if (r == 0 && dwarf_cfi_cie_p(&e)) {
			why = add_cie(es, off, &e.cie);
		} else if (r == 0) {
			if (es->nfdes >= MAX_FDES)
				return "more FDEs than any real file";
			es->fdes = xreserve(es->fdes, &es->fdes_cap, es->nfdes + 1, sizeof(*es->fdes));
			es->fdes[es->nfdes++].off = off;
		}
		if (why)
			return why;
		off = next;
	}
	for (size_t i = 0; i < es->nfdes && !why; i++) {
		/* The same bytes as the walk's (frozen, or the caller's). */
		if (dwarf_next_cfi(es->ident, data, eh, es->fdes[i].off, &next, &e) != 0 ||
		    dwarf_cfi_cie_p(&e))
			return "an FDE that changed while it was read";
		why = check_fde(es, &e.fde);
	}
	return why;
}

/* The .eh_frame_hdr table's FDEs, which libdw reads by offset: each must
 * be one the walk decoded. */
static const char *check_table(const struct entries *es, const struct eh_frame_hdr *h,
			       GElf_Addr frame_vaddr)
{
	for (size_t i = 0; i < h->count; i++)
		if (!has_fde(es, eh_frame_hdr_fde(h, i) - frame_vaddr))
			return "an .eh_frame_hdr entry that is no FDE";
	return NULL;
}

/* The .eh_frame libdw's dwarf_getcfi_elf() takes, and the header with it:
 * by section name when the file has named sections, else through
 * PT_GNU_EH_FRAME, to the end of the file.  False when libdw finds none. */
struct eh_frame {
	Elf_Data data;
	GElf_Addr vaddr;
	const uint8_t *hdr;
	size_t hdr_size;
	GElf_Addr hdr_vaddr;
};

/* Which .eh_frame and header libdw takes of several depends on their
 * order and on its version: one of each, or none, is all real files have.
 * False when libdw takes none this way; *why when the file is refused. */
static bool by_sections(Elf *elf, struct eh_frame *f, const char **why)
{
	Elf_Scn *scn = NULL, *eh = NULL, *hdr = NULL;
	GElf_Shdr eh_shdr = { 0 }, hdr_shdr = { 0 };
	size_t shstrndx;
	Elf_Data *d;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0 || shstrndx == 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		bool is_hdr = strcmp(name, ".eh_frame_hdr") == 0;
		if (!is_hdr && strcmp(name, ".eh_frame") != 0)
			continue;
		if (is_hdr ? hdr != NULL : eh != NULL) {
			*why = "two sections of one name, .eh_frame or .eh_frame_hdr";
			return true;
		}
		if (is_hdr)
			hdr = scn, hdr_shdr = sh;
		else
			eh = scn, eh_shdr = sh;
	}
	/* (libdw takes no NOBITS section: then the segment, or nothing.) */
	if (!eh || eh_shdr.sh_type == SHT_NOBITS || !(d = elf_rawdata(eh, NULL)) || !d->d_buf)
		return false;
	f->data = *d;
	f->vaddr = eh_shdr.sh_addr;
	if (hdr && hdr_shdr.sh_type != SHT_NOBITS && (d = elf_rawdata(hdr, NULL)) && d->d_buf) {
		f->hdr = d->d_buf;
		f->hdr_size = d->d_size;
		f->hdr_vaddr = hdr_shdr.sh_addr;
	}
	return true;
}

/* Without sections: the header's .eh_frame pointer, to the end of the
 * file (a header of another layout is refused by the caller). */
static bool by_segment(Elf *elf, struct eh_frame *f)
{
	size_t filesize;
	const uint8_t *file = (const uint8_t *)elf_rawfile(elf, &filesize);
	struct eh_frame_hdr h;

	if (!file || !eh_frame_hdr_segment(elf, &f->hdr, &f->hdr_size, &f->hdr_vaddr))
		return false;
	if (!eh_frame_hdr_parse(f->hdr, f->hdr_size, f->hdr_vaddr, &h))
		return true;
	f->vaddr = h.eh_frame_vaddr;
	uint64_t off = (uint64_t)(f->hdr - file) + (h.eh_frame_vaddr - f->hdr_vaddr);
	if (off >= filesize)
		return false;
	f->data.d_buf = (void *)(file + off);
	f->data.d_size = filesize - off;
	return true;
}

static const char *check_eh_frame(Elf *elf, struct entries *es)
{
	struct eh_frame f = { 0 };
	struct eh_frame_hdr h;
	const char *why = NULL;

	if (!by_sections(elf, &f, &why) && !by_segment(elf, &f))
		return NULL;
	if (why)
		return why;
	if (f.hdr && !eh_frame_hdr_parse(f.hdr, f.hdr_size, f.hdr_vaddr, &h))
		return "an .eh_frame_hdr of a layout it does not know";
	if (f.data.d_buf && (why = check_section(es, &f.data, true)))
		return why;
	return f.hdr ? check_table(es, &h, f.vaddr) : NULL;
}

/* The sections libdw's dwarf_begin_elf() could take as .debug_frame. */
static bool libdw_debug_frame(const char *name)
{
	return strstr(name, "debug_frame") &&
	       (strncmp(name, ".debug", 6) == 0 || strncmp(name, ".gnu.debuglto_", 14) == 0);
}

/* Every section libdw could take for .debug_frame (a file's own, when it
 * is not stripped).  GNU's compression (.zdebug_*) is refused: libdw
 * decompresses such a section whenever it opens the file's DWARF, for
 * each process's session, and bytes that begin "ZLIB" again once more;
 * toolchains have used SHF_COMPRESSED instead for a decade. */
static const char *check_debug_frame(Elf *elf, struct entries *file)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *why = NULL;
	unsigned n = 0;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while (!why && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (strncmp(name, ".zdebug", 7) == 0)
			return "GNU-compressed debug sections (.zdebug)";
		if (!libdw_debug_frame(name) || sh.sh_type == SHT_NOBITS)
			continue;
		/* libdw takes the first; more only cost the check's time. */
		if (++n > 4)
			return "more .debug_frame sections than libdw reads";
		/* Decompressed as libdw would (Go compresses its DWARF), once:
		 * to what the header claims, which the caller bounded
		 * (elf_debug_inflated_size()).  libdw ignores a section that
		 * does not decompress. */
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			continue;
		if (!(d = elf_rawdata(scn, NULL)) || !d->d_buf)
			continue;
		struct entries es = { .ident = file->ident,
				      .addr_size = file->addr_size,
				      .expression_bytes = file->expression_bytes };
		why = check_section(&es, d, false);
		free(es.cies);
		free(es.fdes);
	}
	return why;
}

const char *cfi_check(Elf *elf)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	uint64_t expression_bytes = 0;
	struct entries es = { .ident = ident, .expression_bytes = &expression_bytes };
	const char *why;

	if (!ident)
		return NULL; /* not ELF: libdw reads no CFI of it */
	/* Offsets and table entries are read in the host's order. */
	if (ident[EI_DATA] != ELFDATA2LSB)
		return "a big-endian file";
	es.addr_size = ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	why = check_eh_frame(elf, &es);
	free(es.cies);
	free(es.fdes);
	return why ? why : check_debug_frame(elf, &es);
}

/* The pages of a mapping to copy on write: counted first (dry), then
 * written to. */
struct freezer {
	uint8_t *base;
	size_t size;
	bool dry;
	uint64_t bytes; /* the pages' */
	bool failed;
};

/* Copies on write the pages that hold [off, off + len). */
static void freeze_range(struct freezer *z, uint64_t off, uint64_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a, b;

	if (off >= z->size || len == 0 || z->failed)
		return;
	if (len > z->size - off)
		len = z->size - off;
	a = ((uintptr_t)z->base + off) & ~(page - 1);
	b = ((uintptr_t)z->base + off + len + page - 1) & ~(page - 1);
	z->bytes += b - a;
	if (z->dry)
		return;
	if (mprotect((void *)a, b - a, PROT_READ | PROT_WRITE) != 0) {
		z->failed = true;
		return;
	}
	for (uintptr_t q = a; q < b; q += page) {
		volatile uint8_t *v = (volatile uint8_t *)q;
		*v = *v;
	}
}

/* Every range cfi_freeze() copies (cfi_check.h). */
static void freeze_all(Elf *elf, struct freezer *z)
{
	size_t n, shstrndx;
	struct eh_frame f = { 0 };
	const char *why = NULL;
	Elf_Scn *scn;
	GElf_Ehdr eh;
	bool is64 = gelf_getclass(elf) == ELFCLASS64;

	if (!gelf_getehdr(elf, &eh)) {
		z->failed = true;
		return;
	}
	/* libelf uses the headers in place, whatever sizes they claim. */
	freeze_range(z, 0, is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr));
	if (elf_getphdrnum(elf, &n) == 0)
		freeze_range(z, eh.e_phoff, n * (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)));
	if (elf_getshdrnum(elf, &n) == 0)
		freeze_range(z, eh.e_shoff, n * (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)));
	/* The names, by which the sections are found, and the sections. */
	if (elf_getshdrstrndx(elf, &shstrndx) == 0 && shstrndx) {
		GElf_Shdr sh;
		if ((scn = elf_getscn(elf, shstrndx)) && gelf_getshdr(scn, &sh))
			freeze_range(z, sh.sh_offset, sh.sh_size);
		for (scn = NULL; (scn = elf_nextscn(elf, scn));) {
			const char *name;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
			    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
				continue;
			if (strstr(name, "eh_frame") || libdw_debug_frame(name))
				freeze_range(z, sh.sh_offset, sh.sh_size);
			else if (sh.sh_flags & SHF_COMPRESSED)
				freeze_range(z, sh.sh_offset, 64); /* its claim */
		}
	}
	/* Without section headers libdw reads .eh_frame from where the
	 * header points to the end of the file. */
	if (!by_sections(elf, &f, &why) && !why && by_segment(elf, &f)) {
		freeze_range(z, (uint64_t)(f.hdr - z->base), f.hdr_size);
		if (f.data.d_buf)
			freeze_range(z, (uint64_t)((uint8_t *)f.data.d_buf - z->base), f.data.d_size);
	}
}

bool cfi_freeze(Elf *elf, uint64_t max, uint64_t *bytes)
{
	struct freezer z = { 0 };

	*bytes = 0;
	z.base = (uint8_t *)elf_rawfile(elf, &z.size);
	/* libelf's mapping of a file is page-aligned; an image elsewhere is
	 * the caller's memory. */
	if (!z.base || (uintptr_t)z.base % (uintptr_t)sysconf(_SC_PAGESIZE) != 0)
		return true;
	z.dry = true;
	freeze_all(elf, &z);
	if (z.failed || z.bytes > max)
		return false;
	z = (struct freezer){ .base = z.base, .size = z.size };
	freeze_all(elf, &z);
	*bytes = z.bytes;
	return !z.failed;
}
