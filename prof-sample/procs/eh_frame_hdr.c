#include "eh_frame_hdr.h"

#include <dwarf.h>
#include <string.h>

#define HDR_VERSION 1
#define HDR_PTR_ENC 0x1b
#define HDR_COUNT_ENC 0x03
#define HDR_TABLE_ENC 0x3b
#define HDR_SIZE 12

bool eh_frame_hdr_segment(Elf *elf, const uint8_t **p, size_t *size, GElf_Addr *vaddr)
{
	size_t nphdr, filesize;
	const uint8_t *file = (const uint8_t *)elf_rawfile(elf, &filesize);

	if (!file || elf_getphdrnum(elf, &nphdr) != 0)
		return false;
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph))
			return false;
		if (ph.p_type != PT_GNU_EH_FRAME)
			continue;
		if (ph.p_offset > filesize || ph.p_filesz > filesize - ph.p_offset)
			return false;
		*p = file + ph.p_offset;
		*size = ph.p_filesz;
		*vaddr = ph.p_vaddr;
		return true;
	}
	return false;
}

static int32_t word(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

bool eh_frame_hdr_parse(const uint8_t *p, size_t size, GElf_Addr vaddr, struct eh_frame_hdr *h)
{
	uint32_t count = 0;

	if (size < 8 || p[0] != HDR_VERSION || p[1] != HDR_PTR_ENC)
		return false;
	/* ld writes no table when it cannot make one (hand-written
	 * assembly's CFI): the count's encoding omitted. */
	if (p[2] != DW_EH_PE_omit) {
		if (size < HDR_SIZE || p[2] != HDR_COUNT_ENC)
			return false;
		memcpy(&count, p + 8, sizeof(count));
		if (count && (p[3] != HDR_TABLE_ENC || count > (size - HDR_SIZE) / 8))
			return false;
	}
	h->vaddr = vaddr;
	h->eh_frame_vaddr = vaddr + 4 + (GElf_Addr)(int64_t)word(p + 4);
	h->table = p + HDR_SIZE;
	h->count = count;
	return true;
}

GElf_Addr eh_frame_hdr_pc(const struct eh_frame_hdr *h, size_t i)
{
	return h->vaddr + (GElf_Addr)(int64_t)word(h->table + 8 * i);
}

GElf_Addr eh_frame_hdr_fde(const struct eh_frame_hdr *h, size_t i)
{
	return h->vaddr + (GElf_Addr)(int64_t)word(h->table + 8 * i + 4);
}
