#include "debug_find.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_id.h"
#include "capture.h"
#include "debuginfod_load.h"
#include "diag.h"
#include "elf_bounded.h"
#include "origin_note.h"

void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	*f = (struct elf_file){ .fd = -1 };
}

static bool same_id(Elf *elf, const uint8_t *id, size_t idlen)
{
	uint8_t have[BUILD_ID_MAX];
	size_t len = elf_build_id(elf, have);

	return len == idlen && memcmp(have, id, len) == 0;
}

bool elf_file_adopt(struct elf_file *f, int fd, const char *path, const uint8_t *id, size_t idlen,
		    char *why, size_t whylen)
{
	elf_version(EV_CURRENT);
	*f = (struct elf_file){ .fd = fd };
	f->elf = elf_begin_bounded(fd);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		snprintf(why, whylen, "not an ELF file");
		elf_file_close(f);
		return false;
	}
	if (idlen && !same_id(f->elf, id, idlen)) {
		snprintf(why, whylen, "build-id differs from the capture's (file replaced?)");
		elf_file_close(f);
		return false;
	}
	f->path = xstrdup(path);
	return true;
}

void elf_file_unopened(int err, char *why, size_t whylen)
{
	if (err == EINVAL)
		snprintf(why, whylen, "not a regular file (a symbolic link, a device, a FIFO)");
	else if (err == ETIMEDOUT)
		snprintf(why, whylen, "its file system did not answer in %d s",
			 FILE_READER_TIMEOUT_MS / 1000);
	else if (err == EREMOTE)
		snprintf(why, whylen,
			 "not on a local file system, and none is read after %d that did not answer",
			 FILE_READER_MAX_STALLS);
	else if (err == EFBIG)
		snprintf(why, whylen, "not on a local file system, and too large to copy (%llu MiB)",
			 FILE_READER_MAX_COPY >> 20);
	else if (err == EAGAIN)
		snprintf(why, whylen, "no file reader could start");
	else
		snprintf(why, whylen, "%s", strerror(err));
}

Elf_Scn *elf_section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;
		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return sh->sh_type == SHT_NOBITS ? NULL : scn;
	}
	return NULL;
}

/* Debug files are a few GiB at most, and never sparse: a file mostly of
 * holes, or past this, is not read through for its CRC (a 64 GB sparse
 * file took two minutes). */
#define MAX_CRC_FILE (8ull << 30)

static bool file_crc(int fd, uint32_t *crc)
{
	uint8_t buf[65536];
	struct stat st;
	ssize_t n;
	off_t at = 0;

	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size > MAX_CRC_FILE ||
	    (uint64_t)st.st_blocks * 512 < (uint64_t)st.st_size / 2)
		return false;
	*crc = 0;
	while ((n = pread(fd, buf, sizeof(buf), at)) > 0) {
		*crc = lzma_crc32(buf, (size_t)n, *crc);
		at += n;
	}
	return n == 0;
}

/* A place a debug file may be, and what it must show to be the
 * binary's, besides its build-id. */
struct place {
	char *path;
	enum { AS_IS, MADE_FOR, CRC } check;
	uint32_t owner; /* MADE_FOR: an entry of a cache made from a file owner controls */
};

/* A search: the places, by build-id then by debug link, and the reader's
 * requests for them. */
struct debug_lookup {
	struct debug_search *ds;
	const uint8_t *id;
	size_t idlen;
	struct place *v;
	size_t n, cap;
	const char **paths; /* of v, for the reader */
	unsigned *how;
	uint32_t crc; /* the debug link's */
};

__attribute__((format(printf, 4, 5))) static void add_place(struct debug_lookup *dl, int check,
							   uint32_t owner, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	dl->v = xreserve(dl->v, &dl->cap, dl->n + 1, sizeof(*dl->v));
	dl->v[dl->n++] = (struct place){ .path = xstrdup(path), .check = check, .owner = owner };
}

/* The places as the reader takes them. */
static void for_reader(struct debug_lookup *dl, size_t from, struct file_places *fp)
{
	free(dl->paths);
	free(dl->how);
	dl->paths = xcalloc(dl->n + 1, sizeof(*dl->paths));
	dl->how = xcalloc(dl->n + 1, sizeof(*dl->how));
	for (size_t i = 0; i < dl->n; i++) {
		dl->paths[i] = dl->v[i].path;
		dl->how[i] = FILE_READER_FOLLOW;
	}
	*fp = (struct file_places){ .paths = dl->paths + from, .how = dl->how + from,
				    .n = dl->n - from, .fd = -1 };
}

/* Whether the file open as f shows what place p asks of it. */
static bool passes(const struct debug_lookup *dl, const struct place *p, struct elf_file *f)
{
	struct image_origin o;
	uint32_t have;

	if (p->check == MADE_FOR)
		return origin_note_read(f->elf, &o) && o.owner == p->owner;
	if (p->check == CRC && !dl->idlen)
		return file_crc(f->fd, &have) && have == dl->crc;
	return true;
}

/* The file the reader gave for places [from..] in its answer fp, if it
 * is the binary's debug file; else where to go on from. */
static bool take(struct debug_lookup *dl, size_t from, struct file_places *fp, size_t *next,
		 struct elf_file *out)
{
	size_t k = from + fp->which;
	char why[160];
	bool found;

	*next = dl->n;
	if (fp->fd < 0)
		return false;
	found = elf_file_adopt(out, fp->fd, dl->v[k].path, dl->id, dl->idlen, why, sizeof(why)) &&
		passes(dl, &dl->v[k], out);
	fp->fd = -1;
	if (found)
		out->info = fp->info;
	else
		elf_file_close(out);
	*next = k + 1;
	return found;
}

/* By build-id: in each debug directory; in a cache, the part of the user
 * who controls the file, theirs and root's (a system file with the
 * build-id names a user's copy as truly as it can), root's alone when who
 * controls it is not known. */
static void by_build_id(struct debug_lookup *dl, uint32_t owner)
{
	char hex[2 * BUILD_ID_MAX + 1];
	struct debug_search *ds = dl->ds;

	if (dl->idlen < 2)
		return;
	build_id_hex(dl->id, dl->idlen, hex);
	for (size_t i = 0; i < ds->ndirs; i++) {
		bool cache = i >= ds->first_cache && i < ds->first_cache + ds->ncaches;
		if (cache && owner != CAP_OWNER_UNKNOWN && owner != 0)
			add_place(dl, MADE_FOR, owner,
				  "%s/users/%" PRIu32 "/.build-id/%.2s/%s.debug", ds->dirs[i],
				  owner, hex, hex + 2);
		add_place(dl, cache ? MADE_FOR : AS_IS, 0, "%s/.build-id/%.2s/%s.debug",
			  ds->dirs[i], hex, hex + 2);
	}
}

/* By the .gnu_debuglink name: beside the binary, in its .debug directory,
 * under each debug directory. */
static void by_debuglink(struct debug_lookup *dl, Elf *bin, const char *binpath,
			 const char *origpath)
{
	GElf_Shdr sh;
	Elf_Scn *scn = bin ? elf_section_named(bin, ".gnu_debuglink", &sh) : NULL;
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	char bindir[PATH_MAX], origdir[PATH_MAX], path[PATH_MAX];
	const char *name;
	size_t namelen;

	if (!d || d->d_size < 8)
		return;
	name = d->d_buf;
	namelen = strnlen(name, d->d_size);
	if (namelen == 0 || namelen + 1 + 4 > d->d_size || strchr(name, '/'))
		return;
	memcpy(&dl->crc, (const char *)d->d_buf + ((namelen + 4) & ~(size_t)3), 4);
	snprintf(bindir, sizeof(bindir), "%s", binpath ? binpath : ".");
	snprintf(origdir, sizeof(origdir), "%s", origpath ? origpath : binpath ? binpath : ".");
	const char *bd = dirname(bindir), *od = dirname(origdir);

	snprintf(path, sizeof(path), "%s/%s", bd, name);
	if (binpath && strcmp(path, binpath) != 0)
		add_place(dl, CRC, 0, "%s", path);
	add_place(dl, CRC, 0, "%s/.debug/%s", bd, name);
	for (size_t i = 0; i < dl->ds->ndirs; i++)
		add_place(dl, CRC, 0, "%s%s/%s", dl->ds->dirs[i], od, name);
}

/* Whether elf names its functions beyond what the binary exports: a
 * symbol table or DWARF. */
static bool has_symbol_table(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size)
			return true;
	return elf_section_named(elf, ".debug_info", &sh) != NULL;
}

static bool by_debuginfod(struct debug_search *ds, const uint8_t *id, size_t idlen,
			  struct elf_file *out)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char *path = NULL, why[256];
	int fd;

	if (!ds->debuginfod || !idlen || !urls || !*urls || ds->client_failed)
		return false;
	if (!ds->client && !(ds->client = dfd_begin(why, sizeof(why)))) {
		/* Said once, and at once: with DEBUGINFOD_URLS set, no file
		 * fetched would otherwise read as none on the servers. */
		warnx("debuginfod: %s; DEBUGINFOD_URLS is not used", why);
		ds->client_failed = true;
		return false;
	}
	fd = dfd_find_debuginfo(ds->client, id, (int)idlen, &path);
	ds->dfd_asked++;
	if (fd < 0) {
		if (ds->dfd_failed < DEBUGINFOD_FAILURES_KEPT) {
			struct debuginfod_failure *f = &ds->dfd_failures[ds->dfd_failed];
			build_id_hex(id, idlen < 64 ? idlen : 64, f->build_id);
			f->error = -fd;
		}
		ds->dfd_failed++;
		return false;
	}
	bool ok = elf_file_adopt(out, fd, path ? path : "debuginfod", id, idlen, why, sizeof(why));
	free(path);
	return ok;
}

struct debug_lookup *debug_lookup_new(struct debug_search *ds, const uint8_t *id, size_t idlen,
				      uint32_t owner, struct file_places *asked)
{
	struct debug_lookup *dl = xcalloc(1, sizeof(*dl));

	*dl = (struct debug_lookup){ .ds = ds, .id = id, .idlen = idlen };
	by_build_id(dl, owner);
	for_reader(dl, 0, asked);
	return dl;
}

static void lookup_free(struct debug_lookup *dl, struct file_places *asked)
{
	if (asked->fd >= 0)
		close(asked->fd);
	asked->fd = -1;
	for (size_t i = 0; i < dl->n; i++)
		free(dl->v[i].path);
	free(dl->v);
	free(dl->paths);
	free(dl->how);
	free(dl);
}

void debug_lookup_drop(struct debug_lookup *dl, struct file_places *asked)
{
	lookup_free(dl, asked);
}

bool debug_lookup_end(struct debug_lookup *dl, struct file_places *asked, Elf *bin,
		      const char *binpath, const char *origpath, struct elf_file *out)
{
	struct file_places more;
	size_t from;
	bool found;

	*out = (struct elf_file){ .fd = -1 };
	found = take(dl, 0, asked, &from, out);
	if (!found)
		by_debuglink(dl, bin, binpath, origpath);
	/* The places after one that was not the file, and by debug link. */
	while (!found && from < dl->n) {
		for_reader(dl, from, &more);
		file_reader_open_groups(dl->ds->reader, &more, 1);
		found = take(dl, from, &more, &from, out);
	}
	if (!found) {
		found = by_debuginfod(dl->ds, dl->id, dl->idlen, out);
	} else if (!has_symbol_table(out->elf)) {
		/* A copy that has no more than the binary (the build-id
		 * cache's of a stripped file) must not stop the one place
		 * that has its symbols from being asked. */
		struct elf_file better = { .fd = -1 };
		if (by_debuginfod(dl->ds, dl->id, dl->idlen, &better)) {
			elf_file_close(out);
			*out = better;
		}
	}
	lookup_free(dl, asked);
	return found;
}

bool debug_find(struct debug_search *ds, Elf *bin, const char *binpath, const char *origpath,
		const uint8_t *id, size_t idlen, uint32_t owner, struct elf_file *out)
{
	struct file_places asked;
	struct debug_lookup *dl = debug_lookup_new(ds, id, idlen, owner, &asked);

	if (asked.n)
		file_reader_open_groups(ds->reader, &asked, 1);
	return debug_lookup_end(dl, &asked, bin, binpath, origpath, out);
}

void debug_search_free(struct debug_search *ds)
{
	if (ds->client)
		dfd_end(ds->client);
	ds->client = NULL;
}

#define MAX_MINIDEBUG (256u << 20)

Elf *minidebuginfo_open(Elf *bin, void **image)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_named(bin, ".gnu_debugdata", &sh);
	Elf_Data *d = scn ? elf_rawdata(scn, NULL) : NULL;
	lzma_stream strm = LZMA_STREAM_INIT;
	uint8_t *out = NULL;
	size_t cap = 0;
	lzma_ret ret;
	Elf *elf;

	*image = NULL;
	if (!d || !d->d_size)
		return NULL;
	/* A symbol table decompresses to tens of times its size, not
	 * thousands (a 915 KiB bomb made 6 GiB): past MAX_MINIDEBUG, or 64
	 * times the section, it is refused. */
	size_t limit = d->d_size < MAX_MINIDEBUG / 64 ? d->d_size * 64 : MAX_MINIDEBUG;
	if (limit < (1u << 20))
		limit = 1u << 20;
	if (lzma_stream_decoder(&strm, 256u << 20, 0) != LZMA_OK)
		return NULL;
	strm.next_in = d->d_buf;
	strm.avail_in = d->d_size;
	do {
		if (strm.avail_out == 0) {
			size_t used = cap;
			if (used >= limit) {
				ret = LZMA_MEMLIMIT_ERROR;
				break;
			}
			cap = cap ? cap * 2 : d->d_size * 4 + 4096;
			if (cap > limit)
				cap = limit;
			out = xrealloc(out, cap);
			strm.next_out = out + used;
			strm.avail_out = cap - used;
		}
		ret = lzma_code(&strm, LZMA_FINISH);
	} while (ret == LZMA_OK);
	size_t size = cap - strm.avail_out;
	lzma_end(&strm);
	if (ret != LZMA_STREAM_END || !(elf = elf_memory_bounded((char *)out, size)) ||
	    elf_kind(elf) != ELF_K_ELF) {
		free(out);
		return NULL;
	}
	*image = out;
	return elf;
}
