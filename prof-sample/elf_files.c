#include "elf_files.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "build_id.h"
#include "diag.h"
#include "elf_bounded.h"
#include "htab.h"

struct elf_files {
	struct htab *byid; /* device, inode -> struct elf_image (elf NULL: not ELF) */
	struct elf_image *vdso;
	bool vdso_tried;
	uint64_t sweeps;
};

struct elf_files *elf_files_new(void)
{
	struct elf_files *fs = xcalloc(1, sizeof(*fs));

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

/* Reads fd's program headers and keeps the file mapped, without fd. */
static struct elf_image *load(int fd, const char *name)
{
	Elf *elf = elf_begin_bounded(fd);
	struct elf_image *f;
	GElf_Ehdr eh;
	size_t phnum;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getphdrnum(elf, &phnum) != 0) {
		elf_end(elf);
		return NULL;
	}
	f = xcalloc(1, sizeof(*f));
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

struct elf_image *elf_files_get(struct elf_files *fs, struct processes *ps, uint32_t pid,
				const struct mapping *m)
{
	/* The very file m maps (mapped_files.h: never another with its
	 * build-id but a system file's), by its inode: a file that is not ELF
	 * is not parsed again. */
	struct mapped_file *file;
	int fd = mapped_files_open(ps->files, pid, m, &file);
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
		f = load(fd, base ? base + 1 : m->path);
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

void elf_files_sweep(struct elf_files *fs)
{
	struct htab_entry *e = htab_entries(fs->byid);

	for (size_t i = 0; i < htab_count(fs->byid);) {
		struct elf_image *f = e[i].val.p;
		uint64_t key[2];
		uint32_t len = e[i].len; /* elf_files_get()'s keys are these */
		if (f->holders || fs->sweeps - f->used < ELF_FILES_IDLE) {
			i++;
			continue;
		}
		memcpy(key, e[i].key, len);
		free_file(f);
		htab_remove(fs->byid, key, len); /* moves the last entry to i */
		e = htab_entries(fs->byid);
	}
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
		fs->vdso = load(fd, "[vdso]");
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
