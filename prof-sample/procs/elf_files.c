#include "elf_files.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "build_id.h"
#include "cfi_check.h"
#include "diag.h"
#include "elf_bounded.h"
#include "htab.h"

struct elf_files {
	struct mapped_files *mf;
	struct htab *byid; /* device, inode -> struct elf_image (elf NULL: not ELF) */
	struct elf_image *vdso;
	bool vdso_tried;
	uint64_t inflated; /* what the images held may decompress or copy, together */
	uint64_t sweeps;
	struct elf_files_stats st;
};

struct elf_files *elf_files_new(struct mapped_files *mf)
{
	struct elf_files *fs = xcalloc(1, sizeof(*fs));

	fs->mf = mf;
	elf_version(EV_CURRENT);
	fs->byid = htab_new();
	return fs;
}

static void free_file(void *p)
{
	struct elf_image *f = p;

	if (!f)
		return;
	elf_end(f->elf);
	free((char *)f->name);
	free(f->loads);
	free(f);
}

void elf_files_free(struct elf_files *fs)
{
	if (!fs)
		return;
	htab_free_values(fs->byid, free_file);
	free_file(fs->vdso);
	free(fs);
}

/* A user's file whose compressed debug sections claim a gigabyte is a
 * megabyte on disk, and one with a hole for its .eh_frame takes none: the
 * images held may decompress and copy (cfi_freeze()) this much together,
 * and a file that would take more is refused until others are let go of
 * (the system's own files are stripped, claim nothing, and are not
 * copied). */
#define INFLATED_BUDGET (512ull << 20)

/* Reads fd's program headers and keeps the file mapped, without fd; NULL
 * if it is not ELF, or is refused (counted in fs's stats).  What libdw
 * will read of a file its owner may change is frozen first (cfi_check.h). */
static struct elf_image *load(struct elf_files *fs, int fd, const char *name, bool frozen)
{
	struct elf_files_stats *st = &fs->st;
	Elf *elf = elf_begin_bounded(fd);
	struct elf_image *f;
	GElf_Ehdr eh;
	size_t phnum;
	const char *why;
	uint64_t left = INFLATED_BUDGET - fs->inflated, copied = 0, claimed = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getphdrnum(elf, &phnum) != 0) {
		elf_end(elf);
		return NULL;
	}
	/* Both unwinders hand the file to libdw: only CFI it reads in
	 * bounded memory.  libdwfl relocates a relocatable file's sections
	 * in place: in a read-only mapping, a crash. */
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		why = "a relocatable object, or a core file";
	else if (frozen && !cfi_freeze(elf, left, &copied))
		why = "its call-frame information beyond what is left of 512 MiB to copy it in";
	else if ((claimed = elf_debug_inflated_size(elf)) > left - copied)
		why = "compressed debug sections beyond what is left of 512 MiB for all files";
	else
		why = cfi_check(elf);
	if (why) {
		st->refused++;
		st->last_refused = why;
		elf_end(elf);
		return NULL;
	}
	f = xcalloc(1, sizeof(*f));
	f->inflated = copied + claimed;
	fs->inflated += f->inflated;
	f->loads = xcalloc(phnum ? phnum : 1, sizeof(*f->loads));
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* Where libdwfl takes a module to start: reported modules
		 * must agree with it. */
		if (!f->nloads)
			f->low = ph.p_vaddr & -ph.p_align;
		if (ph.p_vaddr + ph.p_memsz > f->high)
			f->high = ph.p_vaddr + ph.p_memsz;
		f->loads[f->nloads++] = ph;
	}
	if (!f->nloads || f->high <= f->low) {
		elf_end(elf);
		free(f->loads);
		free(f);
		return NULL;
	}
	/* The whole file is mapped: the descriptor is not needed, and a
	 * host with thousands of libraries must not run out of them. */
	elf_cntl(elf, ELF_C_FDDONE);
	f->elf = elf;
	f->name = xstrdup(name);
	return f;
}

const struct elf_files_stats *elf_files_stats(const struct elf_files *fs)
{
	return &fs->st;
}

uint64_t elf_files_epoch(const struct elf_files *fs)
{
	return fs->mf->epoch;
}

struct elf_image *elf_files_get(struct elf_files *fs, uint32_t pid, const struct mapping *m)
{
	/* The very file m maps (mapped_files.h: never another with its
	 * build-id but a system file's), by its inode: a file that is not ELF
	 * is not parsed again. */
	struct mapped_file *file;
	int fd = mapped_files_open(fs->mf, pid, m, &file);
	uint64_t key[2];
	bool created;
	struct htab_entry *e;
	struct elf_image *f;

	if (fd < 0)
		return NULL;
	key[0] = file->dev;
	key[1] = file->ino;
	e = htab_upsert(fs->byid, key, sizeof(key), &created);
	if (created) {
		const char *base = strrchr(m->path, '/');
		f = load(fs, fd, base ? base + 1 : m->path, mapped_file_trust(file) != TRUST_SYSTEM);
		e->val.p = f ? f : xcalloc(1, sizeof(*f));
	}
	close(fd);
	f = e->val.p;
	f->used = fs->sweeps;
	return f->elf ? f : NULL;
}

void elf_files_hold(struct elf_image *f)
{
	f->holders++;
}

void elf_files_release(struct elf_image *f)
{
	f->holders--;
}

static bool idle_image(struct htab_entry *e, void *arg)
{
	struct elf_files *fs = arg;
	struct elf_image *f = e->val.p;

	if (f->holders || fs->sweeps - f->used < ELF_FILES_IDLE)
		return false;
	fs->inflated -= f->inflated;
	free_file(f);
	return true;
}

void elf_files_sweep(struct elf_files *fs)
{
	htab_remove_if(fs->byid, idle_image, fs);
	fs->sweeps++;
}

const struct elf_image *elf_files_vdso(struct elf_files *fs)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t size;
	int fd;

	if (fs->vdso_tried)
		return fs->vdso;
	fs->vdso_tried = true;
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return NULL;
	/* Ours stands for every process's: copied to a file libelf reads. */
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (write(fd, eh, size) == (ssize_t)size)
		fs->vdso = load(fs, fd, "[vdso]", false);
	close(fd);
	return fs->vdso;
}

bool elf_image_bias(const struct elf_image *f, const struct mapping *m, GElf_Addr *bias)
{
	for (size_t i = 0; i < f->nloads; i++) {
		const GElf_Phdr *ph = &f->loads[i];
		if (m->pgoff >= (ph->p_offset & ~(GElf_Off)0xfff) &&
		    m->pgoff < ph->p_offset + ph->p_filesz) {
			*bias = m->start - m->pgoff - ph->p_vaddr + ph->p_offset;
			return true;
		}
	}
	return false;
}

/* The length of an FF /2 call's operand from its ModRM byte on: ModRM,
 * SIB and displacement, or 0 if modrm is not /2 (of avail bytes). */
static size_t indirect_call_operand(const uint8_t *modrm, size_t avail)
{
	unsigned mod = modrm[0] >> 6, rm = modrm[0] & 7;
	size_t n = 1;

	if (((modrm[0] >> 3) & 7) != 2)
		return 0;
	if (mod == 3)
		return 1;
	if (rm == 4 && avail < 2)
		return 0;
	if (rm == 4) /* a SIB byte; base 5 without displacement means disp32 */
		n += 1 + (mod == 0 && (modrm[1] & 7) == 5 ? 4 : 0);
	else if (mod == 0 && rm == 5) /* rip-relative */
		n += 4;
	return n + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

bool elf_image_call_before(const struct elf_image *f, GElf_Addr vaddr)
{
	size_t size;
	const uint8_t *file = (const uint8_t *)elf_rawfile(f->elf, &size), *at;

	for (size_t i = 0; file && i < f->nloads; i++) {
		const GElf_Phdr *ph = &f->loads[i];
		/* The 7 bytes before vaddr, all in this segment's file part. */
		if (!(ph->p_flags & PF_X) || vaddr < ph->p_vaddr + 7 ||
		    vaddr > ph->p_vaddr + ph->p_filesz || ph->p_offset > size ||
		    vaddr - ph->p_vaddr > size - ph->p_offset)
			continue;
		at = file + ph->p_offset + (vaddr - ph->p_vaddr);
		if (at[-5] == 0xe8) /* call rel32 */
			return true;
		/* call r/m64: FF, then 1 (a register) to 6 bytes of operand;
		 * a REX prefix before FF changes neither. */
		for (size_t len = 2; len <= 7; len++)
			if (at[-(ptrdiff_t)len] == 0xff &&
			    indirect_call_operand(at - len + 1, len - 1) == len - 1)
				return true;
		return false;
	}
	return false;
}

/* A C library exports a few thousand symbols (glibc 2.36: 3,000), a
 * Python interpreter twice as many; a file claiming more is looked
 * through no further. */
#define MAX_DYNSYMS 65536

bool elf_dynsym_find(Elf *elf, const char *name, GElf_Sym *sym)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t n;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			return false;
		n = d->d_size / sh.sh_entsize;
		for (size_t i = 1; i < n && i < MAX_DYNSYMS; i++) {
			const char *s;
			if (!gelf_getsym(d, (int)i, sym) || sym->st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym->st_name);
			if (s && strcmp(s, name) == 0)
				return true;
		}
		return false;
	}
	return false;
}

bool elf_image_ends_stacks(const struct elf_image *f)
{
	GElf_Sym sym;
	size_t phnum;

	if (elf_getphdrnum(f->elf, &phnum) != 0)
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(f->elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return true;
	}
	return elf_dynsym_find(f->elf, "__libc_start_main", &sym) &&
	       GELF_ST_TYPE(sym.st_info) == STT_FUNC;
}
