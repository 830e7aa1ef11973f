#include "debug_find.h"

#include <elfutils/debuginfod.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_id.h"
#include "capture.h"
#include "diag.h"
#include "elf_bounded.h"
#include "origin_note.h"
#include "stream.h"

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

static bool adopt_fd(struct elf_file *f, int fd, const char *path, const uint8_t *id, size_t idlen,
		     char *why, size_t whylen)
{
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

bool elf_file_open(struct elf_file *f, const char *path, int flags, const uint8_t *id,
		   size_t idlen, char *why, size_t whylen)
{
	int fd;

	elf_version(EV_CURRENT);
	*f = (struct elf_file){ .fd = -1 };
	fd = open_regular(path, flags);
	if (fd < 0) {
		if (errno == EINVAL)
			snprintf(why, whylen, "not a regular file (a symbolic link, a device, a FIFO)");
		else
			snprintf(why, whylen, "%m");
		return false;
	}
	return adopt_fd(f, fd, path, id, idlen, why, whylen);
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

/* A debug file found by name must be the binary's: same build-id, or,
 * when the binary has none, the CRC its debuglink recorded. */
static bool try_path(struct elf_file *out, const char *path, const uint8_t *id, size_t idlen,
		     bool check_crc, uint32_t crc)
{
	char why[128];

	if (access(path, R_OK) != 0)
		return false;
	if (!elf_file_open(out, path, 0, id, idlen, why, sizeof(why)))
		return false;
	uint32_t have;
	if (check_crc && !idlen && (!file_crc(out->fd, &have) || have != crc)) {
		elf_file_close(out);
		return false;
	}
	return true;
}

/* An entry of a cache is used only if it says it was made from a file
 * owner controls. */
static bool made_for(struct elf_file *f, uint32_t owner)
{
	struct image_origin o;

	if (origin_note_read(f->elf, &o) && o.owner == owner)
		return true;
	elf_file_close(f);
	return false;
}

/* In cache dir, the part of the user who controls the file: theirs, and
 * root's (a system file with the build-id names a user's copy as truly as
 * it can); root's alone when who controls it is not known. */
static bool in_cache(const char *dir, const char *hex, const uint8_t *id, size_t idlen,
		     uint32_t owner, struct elf_file *out)
{
	char path[PATH_MAX];

	if (owner != CAP_OWNER_UNKNOWN && owner != 0) {
		snprintf(path, sizeof(path), "%s/users/%" PRIu32 "/.build-id/%.2s/%s.debug", dir, owner,
			 hex, hex + 2);
		if (try_path(out, path, id, idlen, false, 0) && made_for(out, owner))
			return true;
	}
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
	return try_path(out, path, id, idlen, false, 0) && made_for(out, 0);
}

static bool by_build_id(struct debug_search *ds, const uint8_t *id, size_t idlen, uint32_t owner,
			struct elf_file *out)
{
	char hex[2 * BUILD_ID_MAX + 1], path[PATH_MAX];

	if (idlen < 2)
		return false;
	build_id_hex(id, idlen, hex);
	for (size_t i = 0; i < ds->ndirs; i++) {
		if (i >= ds->first_cache && i < ds->first_cache + ds->ncaches) {
			if (in_cache(ds->dirs[i], hex, id, idlen, owner, out))
				return true;
			continue;
		}
		snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", ds->dirs[i], hex, hex + 2);
		if (try_path(out, path, id, idlen, false, 0))
			return true;
	}
	return false;
}

static bool by_debuglink(struct debug_search *ds, Elf *bin, const char *binpath,
			 const char *origpath, const uint8_t *id, size_t idlen,
			 struct elf_file *out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = bin ? elf_section_named(bin, ".gnu_debuglink", &sh) : NULL;
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	char bindir[PATH_MAX], origdir[PATH_MAX], path[PATH_MAX];
	const char *name;
	size_t namelen;
	uint32_t crc;

	if (!d || d->d_size < 8)
		return false;
	name = d->d_buf;
	namelen = strnlen(name, d->d_size);
	if (namelen == 0 || namelen + 1 + 4 > d->d_size || strchr(name, '/'))
		return false;
	memcpy(&crc, (const char *)d->d_buf + ((namelen + 4) & ~(size_t)3), 4);
	snprintf(bindir, sizeof(bindir), "%s", binpath ? binpath : ".");
	snprintf(origdir, sizeof(origdir), "%s", origpath ? origpath : binpath ? binpath : ".");
	const char *bd = dirname(bindir), *od = dirname(origdir);

	snprintf(path, sizeof(path), "%s/%s", bd, name);
	if (binpath && strcmp(path, binpath) != 0 && try_path(out, path, id, idlen, true, crc))
		return true;
	snprintf(path, sizeof(path), "%s/.debug/%s", bd, name);
	if (try_path(out, path, id, idlen, true, crc))
		return true;
	for (size_t i = 0; i < ds->ndirs; i++) {
		snprintf(path, sizeof(path), "%s%s/%s", ds->dirs[i], od, name);
		if (try_path(out, path, id, idlen, true, crc))
			return true;
	}
	return false;
}

static bool by_debuginfod(struct debug_search *ds, const uint8_t *id, size_t idlen,
			  struct elf_file *out)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char *path = NULL, why[128];
	int fd;

	if (!ds->debuginfod || !idlen || !urls || !*urls || ds->client_failed)
		return false;
	if (!ds->client && !(ds->client = debuginfod_begin())) {
		ds->client_failed = true;
		return false;
	}
	fd = debuginfod_find_debuginfo(ds->client, id, (int)idlen, &path);
	if (fd < 0)
		return false;
	bool ok = adopt_fd(out, fd, path ? path : "debuginfod", id, idlen, why, sizeof(why));
	free(path);
	return ok;
}

bool debug_find(struct debug_search *ds, Elf *bin, const char *binpath, const char *origpath,
		const uint8_t *id, size_t idlen, uint32_t owner, struct elf_file *out)
{
	*out = (struct elf_file){ .fd = -1 };
	return by_build_id(ds, id, idlen, owner, out) ||
	       by_debuglink(ds, bin, binpath, origpath, id, idlen, out) ||
	       by_debuginfod(ds, id, idlen, out);
}

void debug_search_free(struct debug_search *ds)
{
	if (ds->client)
		debuginfod_end(ds->client);
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
