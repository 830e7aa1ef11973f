#include "elf_symtab.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "sort.h"
#include "upper_bound.h"

static size_t leading_underscores(const char *name)
{
	size_t n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/* Which of two aliases to show: the name a user knows.  A sized symbol,
 * then an exported one (global or weak: glibc's public names, where its
 * internal ones are local), then one without a version, then perf's last
 * rules: the fewest leading underscores, the longest name.  Negative if x
 * is the worse. */
static int alias_rank(const struct elf_sym *x, const struct elf_sym *y)
{
	size_t ux, uy, lx, ly;

	if ((x->size == 0) != (y->size == 0))
		return x->size == 0 ? -1 : 1;
	if ((x->bind == STB_LOCAL) != (y->bind == STB_LOCAL))
		return x->bind == STB_LOCAL ? -1 : 1;
	if (x->versioned != y->versioned)
		return x->versioned ? -1 : 1;
	ux = leading_underscores(x->name);
	uy = leading_underscores(y->name);
	if (ux != uy)
		return ux > uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	/* Names lie in one buffer in the order the symbols were read: the
	 * first in the symbol table wins. */
	return x->name > y->name ? -1 : x->name < y->name;
}

/* By address; aliases from the worst to the best, since a lookup finds the
 * last symbol at or below an address. */
static int by_addr(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return alias_rank(x, y);
}

bool elf_symtab_add_segments(struct elf_symtab *t, Elf *elf)
{
	size_t phnum;

	if (t->nsegs || elf_getphdrnum(elf, &phnum) != 0)
		return t->nsegs > 0;
	t->segs = xcalloc(phnum ? phnum : 1, sizeof(*t->segs));
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			t->segs[t->nsegs++] = (struct elf_seg){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
	return t->nsegs > 0;
}

/* The first section of type `type` with its data, or NULL. */
static Elf_Scn *find_section(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return sh->sh_entsize ? scn : NULL;
	return NULL;
}

bool elf_has_section(Elf *elf, Elf64_Word type)
{
	GElf_Shdr sh;

	return find_section(elf, type, &sh) != NULL;
}

/* Names are kept as offsets into t->strings until elf_symtab_finish, since
 * the buffer moves as it grows. */
size_t elf_symtab_add_symbols(struct elf_symtab *t, Elf *elf, Elf64_Word type)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, type, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t added = 0;

	if (!data)
		return 0;
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;
		int stype;
		if (!gelf_getsym(data, (int)i, &s))
			break;
		stype = GELF_ST_TYPE(s.st_info);
		if ((stype != STT_FUNC && stype != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
		    s.st_value == 0)
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		t->syms = xreserve(t->syms, &t->symcap, t->nsyms + 1, sizeof(*t->syms));
		/* glibc's .symver aliases are named "NAME@VERSION" or
		 * "NAME@@VERSION" in .symtab; the version is not part of the
		 * function's name. */
		const char *at = strchr(name + 1, '@');
		size_t len = at ? (size_t)(at - name) : strlen(name);
		if (t->strused + len + 1 > t->strcap) {
			t->strcap = (t->strcap ? t->strcap * 2 : 65536) + len + 1;
			t->strings = xrealloc(t->strings, t->strcap);
		}
		memcpy(t->strings + t->strused, name, len);
		t->strings[t->strused + len] = '\0';
		t->syms[t->nsyms++] = (struct elf_sym){ s.st_value, s.st_size,
							(const char *)(uintptr_t)t->strused,
							GELF_ST_BIND(s.st_info), at != NULL };
		t->strused += len + 1;
		added++;
	}
	return added;
}

void elf_symtab_finish(struct elf_symtab *t)
{
	for (size_t i = 0; i < t->nsyms; i++)
		t->syms[i].name = t->strings + (uintptr_t)t->syms[i].name;
	sort_array(t->syms, t->nsyms, sizeof(*t->syms), by_addr);
	/* A symbol without a size (an assembler label) ends where the next
	 * one starts. */
	for (size_t i = 0; i < t->nsyms; i++)
		if (t->syms[i].size == 0 && i + 1 < t->nsyms)
			t->syms[i].size = t->syms[i + 1].addr - t->syms[i].addr;
}

void elf_symtab_free(struct elf_symtab *t)
{
	free(t->syms);
	free(t->segs);
	free(t->strings);
	memset(t, 0, sizeof(*t));
}

bool elf_symtab_vaddr(const struct elf_symtab *t, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < t->nsegs; i++) {
		const struct elf_seg *s = &t->segs[i];
		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return true;
		}
	}
	return false;
}

const struct elf_sym *elf_symtab_find(const struct elf_symtab *t, uint64_t vaddr)
{
	/* The last symbol starting at or below vaddr... */
	size_t lo = UPPER_BOUND(t->syms, t->nsyms, addr, vaddr);

	/* ...or an earlier, larger one that still covers it (nested or
	 * aliased symbols). */
	for (size_t i = lo; i-- > 0 && lo - i <= 8;) {
		const struct elf_sym *s = &t->syms[i];
		if (vaddr - s->addr < s->size)
			return s;
	}
	return NULL;
}
