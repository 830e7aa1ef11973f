#include "build_id.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_bounded.h"
#include "stream.h"

/* A build-id note is 36 bytes and every note of a real file a few KiB: a
 * note segment or section past this is not read (libelf would copy it
 * whole, a file's claimed gigabytes included, where it is unaligned). */
#define MAX_NOTES (1u << 20)

static size_t note_build_id(Elf_Data *data, uint8_t *id)
{
	GElf_Nhdr nhdr;
	size_t off = 0, name_off, desc_off, next;

	while ((next = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
		if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
		    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0 && nhdr.n_descsz > 0 &&
		    nhdr.n_descsz <= BUILD_ID_MAX) {
			memcpy(id, (char *)data->d_buf + desc_off, nhdr.n_descsz);
			return nhdr.n_descsz;
		}
		off = next;
	}
	return 0;
}

size_t elf_build_id(Elf *elf, uint8_t *id)
{
	size_t phnum, len;
	Elf_Scn *scn = NULL;

	/* Program headers first: a stripped file may have no section table,
	 * but the note is always in a PT_NOTE segment. */
	if (elf_getphdrnum(elf, &phnum) == 0) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			Elf_Data *data;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
			    ph.p_filesz > MAX_NOTES)
				continue;
			data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			if (data && (len = note_build_id(data, id)) > 0)
				return len;
		}
	}
	/* Separate debug files keep the note only as a section. */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || sh.sh_size > MAX_NOTES)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && (len = note_build_id(data, id)) > 0)
			return len;
	}
	return 0;
}

size_t fd_build_id(int fd, uint8_t *id)
{
	size_t len = 0;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin_bounded(fd);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		len = elf_build_id(elf, id);
	elf_end(elf);
	return len;
}

size_t file_build_id(const char *path, uint8_t *id)
{
	int fd = open_regular(path, 0);
	size_t len;

	if (fd < 0)
		return 0;
	len = fd_build_id(fd, id);
	close(fd);
	return len;
}

void build_id_hex(const uint8_t *id, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = hex[id[i] >> 4];
		out[2 * i + 1] = hex[id[i] & 15];
	}
	out[2 * len] = '\0';
}

const char *build_id_cache_dir(char *buf, size_t size)
{
	const char *env = getenv("PROF_BUILD_ID_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
		   *home = getenv("HOME");
	int n;

	if (env && *env)
		n = snprintf(buf, size, "%s", env);
	else if (geteuid() == 0)
		n = snprintf(buf, size, "%s", BUILD_ID_CACHE_SYSTEM);
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, size, "%s/prof", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, size, "%s/.cache/prof", home);
	else
		return NULL;
	return n > 0 && (size_t)n < size ? buf : NULL;
}
