/*
 * Test and benchmark helper, not a workload: writes a capture (docs/FORMATS.md
 * section 1) in which process 1 has ELF mapped the way the dynamic loader
 * maps it (one MAP per PT_LOAD segment, shared objects at 0x7f0000000000),
 * and each ELF virtual address read from stdin (hex, one per line) is the
 * leaf of its own one-frame stack, sampled once.  So prof-symbolize is asked
 * about exactly the addresses addr2line is given.
 *
 * Usage: mkcapture ELF [MAPPED-PATH] < addresses > capture
 * MAPPED-PATH is the path the MAP records name (default ELF).  A line
 * "k ADDR" is a kernel address instead, sampled as a one-frame kernel stack
 * with no KSYM record; "u ADDR" a user address as it is (outside the
 * mappings unless it falls in them).  The process is $MKCAPTURE_PID
 * (default 1).  The INFO record's boot id is $MKCAPTURE_BOOT_ID
 * (default empty: unknown).  With $MKCAPTURE_DEPTH=N (benchmarks), user
 * addresses are grouped N to a stack instead, every frame but the leaf
 * written one byte further on, as a return address is, so that each listed
 * address is still the one looked up.  Self-contained (no libelf), since workloads
 * link nothing.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char rec[1 << 16];
static size_t len;

static void put(const void *p, size_t n)
{
	memcpy(rec + len, p, n);
	len += n;
}
static void u16(uint16_t v) { put(&v, 2); }
static void u32(uint32_t v) { put(&v, 4); }
static void u64(uint64_t v) { put(&v, 8); }
static void str(const char *s)
{
	u16((uint16_t)strlen(s));
	put(s, strlen(s));
}
static void emit(uint32_t type)
{
	fwrite(&type, 4, 1, stdout);
	uint32_t n = (uint32_t)len;
	fwrite(&n, 4, 1, stdout);
	fwrite(rec, 1, len, stdout);
	len = 0;
}

int main(int argc, char **argv)
{
	FILE *f;
	unsigned char *img;
	long size;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	unsigned char id[64];
	size_t idlen = 0;
	uint64_t base, addr;
	char line[128];
	uint32_t n = 0;

	if (argc < 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: mkcapture ELF [MAPPED-PATH] < addresses\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	img = malloc((size_t)size);
	if (fread(img, 1, (size_t)size, f) != (size_t)size)
		return 2;
	fclose(f);
	eh = (Elf64_Ehdr *)img;
	ph = (Elf64_Phdr *)(img + eh->e_phoff);
	base = eh->e_type == ET_DYN ? 0x7f0000000000ull : 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_NOTE)
			continue;
		unsigned char *p = img + ph[i].p_offset, *end = p + ph[i].p_filesz;
		while (p + 12 <= end) {
			uint32_t nsz, dsz, type;
			memcpy(&nsz, p, 4), memcpy(&dsz, p + 4, 4), memcpy(&type, p + 8, 4);
			unsigned char *name = p + 12, *desc = name + ((nsz + 3) & ~3u);
			if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(name, "GNU", 4) &&
			    dsz <= sizeof(id)) {
				memcpy(id, desc, dsz);
				idlen = dsz;
			}
			p = desc + ((dsz + 3) & ~3u);
		}
	}
	fwrite("PROFCAP\0\1\0\0\0\0\0\0\0", 1, 16, stdout);
	u64(0), u32(99), u64(0), u32(1), str("cpu-clock"), str("mkcapture"), str(""),
		str(getenv("MKCAPTURE_BOOT_ID") ? getenv("MKCAPTURE_BOOT_ID") : "");
	emit(1);
	uint32_t pid = getenv("MKCAPTURE_PID") ? (uint32_t)atoi(getenv("MKCAPTURE_PID")) : 1;
	u32(pid), u32(pid), str("target");
	emit(2);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		uint64_t start = (base + ph[i].p_vaddr) & ~0xfffull;
		uint64_t end = (base + ph[i].p_vaddr + ph[i].p_memsz + 0xfff) & ~0xfffull;
		u32(pid), u64(start), u64(end), u64(ph[i].p_offset & ~0xfffull), u64(0), u64(0);
		rec[len++] = (unsigned char)idlen;
		put(id, idlen);
		str(argc > 2 ? argv[2] : argv[1]);
		emit(3);
	}
	int depth = getenv("MKCAPTURE_DEPTH") ? atoi(getenv("MKCAPTURE_DEPTH")) : 0;
	uint64_t frames[256];
	int nf = 0;
	if (depth > 256)
		depth = 256;
	while (depth > 1) {
		int more = fgets(line, sizeof(line), stdin) != NULL;
		if (more)
			frames[nf] = base + strtoull(line, NULL, 16) + (nf ? 1 : 0), nf++;
		if (nf == depth || (!more && nf)) {
			n++;
			u32(n), u32((uint32_t)nf);
			for (int i = 0; i < nf; i++)
				u64(frames[i]);
			emit(5);
			u32(pid), u32(pid), u32(0), u32(n), u64(1), u64(0);
			emit(6);
			nf = 0;
		}
		if (!more)
			break;
	}
	while (depth <= 1 && fgets(line, sizeof(line), stdin)) {
		int kernel = line[0] == 'k', raw = line[0] == 'u';
		addr = strtoull(line + kernel + raw, NULL, 16);
		n++;
		u32(n), u32(1), u64(kernel || raw ? addr : base + addr);
		emit(5);
		u32(pid), u32(pid), u32(kernel ? n : 0), u32(kernel ? 0 : n), u64(1), u64(0);
		emit(6);
	}
	u64(0), u64(n), u64(0), u32(n), u64(n);
	emit(8);
	return 0;
}
