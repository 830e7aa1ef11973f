#include "modules.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_id.h"
#include "diag.h"
#include "dwarf_frames.h"
#include "elf_bounded.h"
#include "sort.h"

#define DELETED " (deleted)"

void modules_init(struct modules *m)
{
	memset(m, 0, sizeof(*m));
	m->byid = htab_new();
}

static void module_free(void *p)
{
	struct module *mod = p;

	elf_symtab_free(&mod->symtab);
	dwarf_frames_free(mod->frames);
	if (mod->dw)
		dwarf_end(mod->dw);
	elf_file_close(&mod->dwfile);
	free(mod->path);
	free(mod->name);
	free(mod->why);
	free(mod);
}

void modules_free(struct modules *m)
{
	htab_free_values(m->byid, module_free);
	debug_search_free(&m->ds);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Why a mapped file could not be used: the most telling reason yet, a
 * file that is not the one mapped, or whose file system did not answer,
 * over a file that is not there (through /proc, a vanished process is not
 * worth reporting). */
struct reason {
	char *why;
	size_t whylen;
	bool telling, stalled;
};

static void keep_reason(struct reason *k, const char *r, bool stalled, bool last,
			const struct modules *m)
{
	bool telling = stalled || strstr(r, "build-id") || strstr(r, "inode");

	if (telling || (!k->telling && (last || m->sysroot))) {
		snprintf(k->why, k->whylen, "%s", r);
		k->telling = k->telling || telling;
		k->stalled = stalled;
	}
}

/* Opens the mapped file: under the sysroot; else, on the capture's host,
 * the very file the process mapped (map_files, which reaches deleted
 * files) and the file in the process's root (containers); then the path.
 * A capture names any path, so the last component is never followed as a
 * symbolic link (but in the sysroot the user gave, and map_files, which
 * is one); a file with another build-id is skipped; and a file without
 * one is used only where its inode shows it is the file mapped, on the
 * capture's host (or under --sysroot, the user's word for it).  The
 * reader is asked for them all at once, and for the places of another
 * file, also, in the same request (its debug file's); then for those
 * after one that is not the file.  The most telling reason for a failure
 * is kept. */
static bool open_binary(struct modules *m, const struct cap_map *map, uint32_t pid,
			const char *path, bool deleted, struct file_places *also,
			struct elf_file *f, struct reason *k)
{
	char cand[3][PATH_MAX + 64], r[256];
	const char *paths[3] = { cand[0], cand[1], cand[2] };
	unsigned how[3];
	int err[3];
	size_t n = 0;
	bool by_inode = !map->build_id_len && !m->sysroot;

	if (by_inode && (!m->live || !map->inode)) {
		snprintf(k->why, k->whylen, "the capture has no build-id to check the file "
					    "against (--sysroot to use it anyway)");
		file_reader_open_groups(m->ds.reader, also, 1);
		return false;
	}
	if (m->sysroot) {
		how[n] = FILE_READER_FOLLOW;
		snprintf(cand[n++], sizeof(cand[0]), "%s%s", m->sysroot, path);
		/* What was not copied (libc, say) may be this host's own
		 * file: used only if its build-id is the capture's. */
		if (map->build_id_len) {
			how[n] = 0;
			snprintf(cand[n++], sizeof(cand[0]), "%s", path);
		}
	} else {
		if (m->live && pid && deleted) {
			how[n] = FILE_READER_FOLLOW;
			snprintf(cand[n++], sizeof(cand[0]), "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64,
				 pid, map->start, map->end);
		}
		if (m->live && pid) {
			how[n] = 0;
			snprintf(cand[n++], sizeof(cand[0]), "/proc/%" PRIu32 "/root%s", pid, path);
		}
		how[n] = 0;
		snprintf(cand[n++], sizeof(cand[0]), "%s", path);
	}
	struct file_places g[2] = { { .paths = paths, .how = how, .n = n, .err = err }, *also };
	file_reader_open_groups(m->ds.reader, g, 2);
	*also = g[1];
	snprintf(k->why, k->whylen, "No such file or directory");
	for (size_t from = 0, at;; from = at + 1) {
		at = from + g[0].which;
		/* Those not opened, and the one that was, if it is not the
		 * file mapped. */
		for (size_t i = from; i < at; i++) {
			elf_file_unopened(err[i], r, sizeof(r));
			keep_reason(k, r, err[i] == ETIMEDOUT, i == n - 1, m);
		}
		if (g[0].fd < 0)
			return false;
		if (elf_file_adopt(f, g[0].fd, cand[at], map->build_id, map->build_id_len, r,
				   sizeof(r))) {
			/* An inode number is reused once its file is gone; the
			 * change time, which no user sets, tells a file made
			 * since. */
			f->info = g[0].info;
			if (!by_inode || (f->info.ino == map->inode && f->info.dev == map->dev &&
					  f->info.ctime_ns <= m->sample_ns))
				return true;
			elf_file_close(f);
			snprintf(r, sizeof(r), "not the file that was mapped (another inode, or changed "
					       "since)");
		}
		keep_reason(k, r, false, at == n - 1, m);
		if (at + 1 >= n)
			return false;
		g[0] = (struct file_places){ .paths = paths + at + 1, .how = how + at + 1,
					     .n = n - at - 1, .err = err + at + 1 };
		file_reader_open_groups(m->ds.reader, g, 1);
	}
}

/* This host's vdso, for captures taken on this boot: every process maps
 * the same image. */
static bool open_vdso(struct modules *m, const struct cap_map *map, struct elf_file *f, void **image,
		      char *why, size_t whylen)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	FILE *maps;
	char line[256];
	size_t size = 0;

	*image = NULL;
	if (!m->live || !base) {
		snprintf(why, whylen, "not taken on this host since its last boot");
		return false;
	}
	if ((maps = fopen("/proc/self/maps", "r"))) {
		while (fgets(line, sizeof(line), maps)) {
			unsigned long lo, hi;
			if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base)
				size = hi - lo;
		}
		fclose(maps);
	}
	if (!size) {
		snprintf(why, whylen, "this process has no vdso mapping");
		return false;
	}
	*image = xmalloc(size);
	memcpy(*image, (const void *)base, size);
	*f = (struct elf_file){ .fd = -1, .elf = elf_memory_bounded(*image, size) };
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		snprintf(why, whylen, "not an ELF image");
		return false;
	}
	if (map->build_id_len) {
		uint8_t id[BUILD_ID_MAX];
		size_t len = elf_build_id(f->elf, id);
		if (len != map->build_id_len || memcmp(id, map->build_id, len) != 0) {
			snprintf(why, whylen, "build-id differs from the capture's");
			return false;
		}
	}
	f->path = xstrdup("[vdso]");
	return true;
}

static bool has_dwarf(Elf *elf)
{
	GElf_Shdr sh;

	return elf && elf_section_named(elf, ".debug_info", &sh) != NULL;
}

/* libdw decompresses a file's compressed debug sections as it opens its
 * DWARF, to what their headers claim: a user's 1 MB file could claim a
 * gigabyte (elf_bounded.h).  Real debug files claim at most 13 times
 * their size (the most of Debian's 273 here). */
#define MAX_INFLATED_PER_BYTE 64

/* Keeps f open as the module's DWARF source. */
static void adopt_dwarf(struct module *mod, struct elf_file *f)
{
	size_t size = 0;
	uint64_t inflated = elf_debug_inflated_size(f->elf);

	if (elf_rawfile(f->elf, &size) && inflated / MAX_INFLATED_PER_BYTE > size) {
		char *shown = xstrdup(mod->path);
		printable(shown, strlen(shown));
		warnx("%s: compressed debug sections claim %" PRIu64 " bytes, over %d times the "
		      "file's %zu: its DWARF is not read (no inlined frames or lines for it)",
		      shown, inflated, MAX_INFLATED_PER_BYTE, size);
		free(shown);
		return;
	}
	mod->dw = dwarf_begin_elf(f->elf, DWARF_C_READ, NULL);
	if (!mod->dw)
		return;
	mod->frames = dwarf_frames_new(mod->dw);
	/* The image is mapped: the descriptor can go, so a capture of many
	 * processes does not run out of them. */
	if (f->fd >= 0 && elf_cntl(f->elf, ELF_C_FDREAD) == 0 && elf_cntl(f->elf, ELF_C_FDDONE) == 0) {
		close(f->fd);
		f->fd = -1;
	}
	mod->dwfile = *f;
	*f = (struct elf_file){ .fd = -1 };
}

/* The symbol table from the best source; DWARF from the first file that
 * has it.  The debug file is looked for in dl, its places by build-id
 * asked already if asked->fd or asked->which say so. */
static void load_symbols(struct modules *m, struct module *mod, struct elf_file *bin,
			 struct debug_lookup *dl, struct file_places *asked, bool answered)
{
	struct elf_file dbg = { .fd = -1 };
	struct elf_symtab *t = &mod->symtab;
	bool bin_symtab = bin->elf && elf_has_section(bin->elf, SHT_SYMTAB);
	bool need_dwarf = m->want_dwarf && !has_dwarf(bin->elf);

	if (!bin_symtab || need_dwarf) {
		if (!answered)
			file_reader_open_groups(m->ds.reader, asked, 1);
		debug_lookup_end(dl, asked, bin->elf, bin->path, mod->path, &dbg);
	} else {
		debug_lookup_drop(dl, asked);
	}
	if (bin->elf)
		elf_symtab_add_segments(t, bin->elf);
	if (dbg.elf)
		elf_symtab_add_segments(t, dbg.elf); /* only if the binary had none */
	/* Without the file, its image in the build-id cache has its dynamic
	 * symbols and MiniDebugInfo. */
	Elf *plain = bin->elf ? bin->elf : dbg.elf;
	if (dbg.elf && elf_has_section(dbg.elf, SHT_SYMTAB)) {
		elf_symtab_add_symbols(t, dbg.elf, SHT_SYMTAB);
	} else if (bin_symtab) {
		elf_symtab_add_symbols(t, bin->elf, SHT_SYMTAB);
	} else if (plain) {
		void *image;
		Elf *mini = minidebuginfo_open(plain, &image);
		elf_symtab_add_symbols(t, plain, SHT_DYNSYM);
		if (mini) {
			elf_symtab_add_symbols(t, mini, SHT_SYMTAB);
			elf_end(mini);
			free(image);
		}
	}
	elf_symtab_finish(t);
	if (m->want_dwarf) {
		if (has_dwarf(bin->elf) && bin->fd >= 0)
			adopt_dwarf(mod, bin);
		else if (has_dwarf(dbg.elf))
			adopt_dwarf(mod, &dbg);
	}
	elf_file_close(&dbg);
}

static void load(struct modules *m, struct module *mod, const struct cap_map *map, uint32_t pid)
{
	struct elf_file bin = { .fd = -1 };
	char *path = xstrdup(mod->path), why[300];
	struct reason k = { .why = why, .whylen = sizeof(why) };
	bool deleted = has_suffix(path, DELETED), found, answered;
	struct file_places asked;
	struct debug_lookup *dl;
	void *image = NULL;

	if (deleted)
		path[strlen(path) - strlen(DELETED)] = '\0';
	if (strcmp(path, "[vdso]") != 0 && (path[0] != '/' || strcmp(path, "//anon") == 0))
		goto out; /* an anonymous or special mapping: nothing to read */
	/* Its debug file's places by build-id are asked with the file's. */
	dl = debug_lookup_new(&m->ds, map->build_id, map->build_id_len, map->owner, &asked);
	answered = strcmp(path, "[vdso]") != 0;
	if (answered)
		found = open_binary(m, map, pid, path, deleted, &asked, &bin, &k);
	else
		found = open_vdso(m, map, &bin, &image, why, sizeof(why));
	if (!found)
		elf_file_close(&bin);
	/* Without the file, its debug file (found by build-id) still has
	 * the symbols and segments. */
	if (found || map->build_id_len)
		load_symbols(m, mod, &bin, dl, &asked, answered);
	else
		debug_lookup_drop(dl, &asked);
	mod->loaded = mod->symtab.nsegs > 0;
	if (!mod->loaded) {
		if (found)
			snprintf(why, sizeof(why), "no loadable segments");
		m->failed++;
		m->stalled += !found && k.stalled;
		char *shown = xstrdup(mod->path);
		printable(shown, strlen(shown));
		warnx("%s: %s; its frames stay unresolved", shown, why);
		free(shown);
		mod->why = xstrdup(why);
	}
	elf_file_close(&bin);
out:
	free(image);
	free(path);
}

struct module *modules_get(struct modules *m, const struct cap_map *map, uint32_t pid)
{
	/* The key is who controls the file and its build-id, with the path
	 * appended so two files without build-ids stay apart; a leading
	 * byte separates the build-id from the path.  Files of the same
	 * build-id but not of the same user are not the same module: each
	 * is symbolized from what that user's file says. */
	size_t plen = map->path.len, klen = sizeof(map->owner) + 1 + map->build_id_len + plen;
	char *key = xmalloc(klen), *k = key;
	bool created;
	struct htab_entry *e;
	struct module *mod;
	const char *base;

	memcpy(k, &map->owner, sizeof(map->owner));
	k += sizeof(map->owner);
	*k++ = (char)map->build_id_len;
	if (map->build_id_len)
		memcpy(k, map->build_id, map->build_id_len);
	memcpy(k + map->build_id_len, map->path.s, plen);
	e = htab_upsert(m->byid, key, klen, &created);
	free(key);
	if (!created)
		return e->val.p;

	mod = xcalloc(1, sizeof(*mod));
	e->val.p = mod;
	mod->dwfile.fd = -1;
	mod->path = xstrndup(map->path.s, plen);
	mod->build_id_len = map->build_id_len <= sizeof(mod->build_id) ? map->build_id_len : 0;
	if (mod->build_id_len)
		memcpy(mod->build_id, map->build_id, mod->build_id_len);
	base = strrchr(mod->path, '/');
	mod->name = xstrdup(base && base[1] ? base + 1 : mod->path);
	if (has_suffix(mod->name, DELETED))
		mod->name[strlen(mod->name) - strlen(DELETED)] = '\0';
	load(m, mod, map, pid);
	return mod;
}

static int by_unresolved(const void *a, const void *b)
{
	const struct module *x = *(struct module *const *)a, *y = *(struct module *const *)b;

	if (x->unresolved != y->unresolved)
		return x->unresolved > y->unresolved ? -1 : 1;
	return strcmp(x->path, y->path);
}

struct module **modules_used(struct modules *m, size_t *n)
{
	struct htab_entry *e = htab_entries(m->byid);
	struct module **v = xcalloc(htab_count(m->byid) + 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < htab_count(m->byid); i++) {
		struct module *mod = e[i].val.p;
		if (mod->lookups)
			v[(*n)++] = mod;
	}
	sort_array(v, *n, sizeof(*v), by_unresolved);
	return v;
}

size_t module_resolve(struct module *mod, uint64_t off, uint64_t back, bool want_inline,
		      bool want_lines, struct resolved *out)
{
	struct dwarf_frame df[MAX_INLINE];
	const struct elf_sym *sym = NULL;
	uint64_t vaddr = 0;
	size_t nd = 0, n = 0;

	out[0] = (struct resolved){ 0 };
	if (!mod->loaded || !elf_symtab_vaddr(&mod->symtab, off, &vaddr))
		return 1;
	sym = elf_symtab_find(&mod->symtab, vaddr);
	if (mod->dw && (want_inline || want_lines))
		nd = dwarf_frames(mod->frames, vaddr, df, MAX_INLINE);
	if (!sym)
		return 1;
	/* Inlined frames share the offset of the function they were
	 * inlined into, as perf prints them. */
	if (want_inline)
		for (; n + 1 < nd && n + 1 < MAX_INLINE; n++)
			out[n] = (struct resolved){ df[n].name, vaddr + back - sym->addr,
						    want_lines ? df[n].file : NULL, df[n].line, true };
	out[n] = (struct resolved){ sym->name, vaddr + back - sym->addr, NULL, 0, false };
	if (want_lines && nd) {
		/* Without inlined frames, the line is the address's own. */
		out[n].file = want_inline ? df[nd - 1].file : df[0].file;
		out[n].line = want_inline ? df[nd - 1].line : df[0].line;
	}
	return n + 1;
}
