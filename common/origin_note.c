#include "origin_note.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

/* u32 owner, u32 mode, u64 dev, u64 ino */
#define FIXED 24

static size_t up4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

void *origin_note_bytes(const struct image_origin *o, size_t *size)
{
	size_t plen = strlen(o->path) + 1, namesz = sizeof(ORIGIN_NOTE_NAME);
	uint32_t hdr[3] = { (uint32_t)namesz, (uint32_t)(FIXED + plen), NT_PROF_ORIGIN };
	uint8_t *b;

	*size = sizeof(hdr) + up4(namesz) + up4(FIXED + plen);
	b = xcalloc(1, *size);
	memcpy(b, hdr, sizeof(hdr));
	memcpy(b + sizeof(hdr), ORIGIN_NOTE_NAME, namesz);
	uint8_t *d = b + sizeof(hdr) + up4(namesz);
	memcpy(d, &o->owner, 4);
	memcpy(d + 4, &o->mode, 4);
	memcpy(d + 8, &o->dev, 8);
	memcpy(d + 16, &o->ino, 8);
	memcpy(d + FIXED, o->path, plen);
	return b;
}

bool origin_note_read(Elf *elf, struct image_origin *o)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *data;
		size_t off = 0, name_off, desc_off, next;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(data = elf_getdata(scn, NULL)))
			continue;
		while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const char *name = (const char *)data->d_buf + name_off;
			const uint8_t *d = (const uint8_t *)data->d_buf + desc_off;
			off = next;
			if (nh.n_type != NT_PROF_ORIGIN || nh.n_namesz != sizeof(ORIGIN_NOTE_NAME) ||
			    memcmp(name, ORIGIN_NOTE_NAME, sizeof(ORIGIN_NOTE_NAME)) != 0 ||
			    nh.n_descsz <= FIXED || d[nh.n_descsz - 1] != '\0')
				continue;
			memcpy(&o->owner, d, 4);
			memcpy(&o->mode, d + 4, 4);
			memcpy(&o->dev, d + 8, 8);
			memcpy(&o->ino, d + 16, 8);
			o->path = (const char *)d + FIXED;
			return true;
		}
	}
	return false;
}
