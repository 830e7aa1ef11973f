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
 *
 * Off-CPU, wall and wake-up captures (capture 1.3): with $MKCAPTURE_EVENT
 * set, the capture is of version 1.3 and INFO's event is its value
 * (cpu-clock, offcpu-time, cpu-clock+offcpu-time), its frequency
 * $MKCAPTURE_FREQ (default 99) and its period $MKCAPTURE_PERIOD (default 0).
 * These lines then describe the records one by one:
 *
 *   comm PID TID NAME          a COMM record
 *   map PID [PATH]             ELF's MAP records for another process (naming
 *                              PATH instead of MAPPED-PATH)
 *   ksym START END NAME        a KSYM record (of the kernel image)
 *   cgroup PID PATH            a CGROUP record (1.4: set $MKCAPTURE_MINOR=4)
 *   cgroup5 PID N PATH         a CGROUP record of 1.5: its first N names the host made
 *   loss CAUSE COUNT           a LOSS record
 *   on PID/TID COUNT KSTACK USTACK
 *                              an on-CPU SAMPLE (1.3)
 *   off PID/TID COUNT WEIGHT KSTACK USTACK [PID/TID KSTACK USTACK]...
 *                              an off-CPU SAMPLE (1.3) and its wakers
 *
 * A stack is "-" (none: id 0), "=ID" (that id, with no STACK record: bad
 * input), or its frames leaf first, comma-separated: hex addresses, of the
 * kernel as they are, of user code as ELF virtual addresses.  Numbers but
 * addresses are decimal.  END's totals are the SAMPLE records' sums.
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

/* The ELF file, and the totals END gives. */
static Elf64_Ehdr *eh;
static Elf64_Phdr *ph;
static unsigned char build_id[64];
static size_t idlen;
static const char *mapped_path;
static uint64_t base;
static uint32_t nstacks;
static uint64_t nsamples, nweight;

static void maps(uint32_t pid)
{
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		uint64_t start = (base + ph[i].p_vaddr) & ~0xfffull;
		uint64_t end = (base + ph[i].p_vaddr + ph[i].p_memsz + 0xfff) & ~0xfffull;
		u32(pid), u64(start), u64(end), u64(ph[i].p_offset & ~0xfffull), u64(0), u64(0);
		rec[len++] = (unsigned char)idlen;
		put(build_id, idlen);
		str(mapped_path);
		emit(3);
	}
}

/* A stack of a sample line (see above): its id, after its STACK record. */
static uint32_t stack(const char *spec, int user)
{
	uint64_t ip[256];
	uint32_t nr = 0;
	char *end;

	if (!strcmp(spec, "-"))
		return 0;
	if (spec[0] == '=')
		return (uint32_t)strtoul(spec + 1, NULL, 10);
	for (const char *p = spec; *p && nr < 256; p = *end ? end + 1 : end) {
		ip[nr++] = strtoull(p, &end, 16) + (user ? base : 0);
		if (end == p)
			break;
	}
	u32(++nstacks), u32(nr);
	for (uint32_t i = 0; i < nr; i++)
		u64(ip[i]);
	emit(5);
	return nstacks;
}

/* "on ..." and "off ..." lines: their STACK records, then the SAMPLE. */
static void sample(char *line, int off)
{
	char *f[4 + 3 * 16], *save = NULL;
	int nf = 0;

	for (char *t = strtok_r(line, " \n", &save); t && nf < (int)(sizeof(f) / sizeof(f[0]));
	     t = strtok_r(NULL, " \n", &save))
		f[nf++] = t;
	int fixed = off ? 5 : 4;
	if (nf < fixed) {
		fprintf(stderr, "mkcapture: a sample line needs %d fields\n", fixed);
		exit(2);
	}
	uint32_t pid = 0, tid = 0, nw = (uint32_t)(nf - fixed) / 3, w[16][4];
	uint64_t count = strtoull(f[1], NULL, 10), weight = off ? strtoull(f[2], NULL, 10) : 0;
	sscanf(f[0], "%u/%u", &pid, &tid);
	uint32_t kstack = stack(f[fixed - 2], 0), ustack = stack(f[fixed - 1], 1);
	for (uint32_t i = 0; i < nw; i++) {
		sscanf(f[fixed + 3 * i], "%u/%u", &w[i][0], &w[i][1]);
		w[i][2] = stack(f[fixed + 3 * i + 1], 0);
		w[i][3] = stack(f[fixed + 3 * i + 2], 1);
	}
	u32(pid), u32(tid), u32(kstack), u32(ustack), u64(count), u64(0);
	u32((uint32_t)off), u64(weight), u32(nw);
	for (uint32_t i = 0; i < nw; i++)
		u32(w[i][0]), u32(w[i][1]), u32(w[i][2]), u32(w[i][3]);
	emit(6);
	nsamples += count;
	nweight += weight;
}

/* The lines of 1.3 captures; false for an address line. */
static int directive(char *line)
{
	uint32_t a, b;
	uint64_t x, y;
	int n = 0;
	char *nl = strchr(line, '\n');

	if (nl)
		*nl = '\0';
	if (sscanf(line, "comm %u %u %n", &a, &b, &n) == 2 && n) {
		u32(a), u32(b), str(line + n);
		emit(2);
	} else if (sscanf(line, "cgroup5 %u %u %n", &a, &b, &n) == 2 && n) {
		u32(a), str(line + n), u16((uint16_t)b);
		emit(12);
	} else if (sscanf(line, "cgroup %u %n", &a, &n) == 1 && n) {
		u32(a), str(line + n);
		emit(12);
	} else if (sscanf(line, "map %u %n", &a, &n) == 1) {
		const char *path = mapped_path;
		if (n && line[n])
			mapped_path = line + n;
		maps(a);
		mapped_path = path;
	} else if (sscanf(line, "ksym %lx %lx %n", &x, &y, &n) == 2 && n) {
		u64(x), u64(y), str(line + n), str("");
		emit(4);
	} else if (sscanf(line, "loss %u %lu", &a, &x) == 2) {
		u32(a), u64(x);
		emit(7);
	} else if (!strncmp(line, "on ", 3) || !strncmp(line, "off ", 4)) {
		sample(line + (line[1] == 'n' ? 3 : 4), line[1] != 'n');
	} else {
		return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	FILE *f;
	unsigned char *img;
	long size;
	uint64_t addr;
	char line[4096];
	const char *event = getenv("MKCAPTURE_EVENT");

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
	mapped_path = argc > 2 ? argv[2] : argv[1];
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_NOTE)
			continue;
		unsigned char *p = img + ph[i].p_offset, *end = p + ph[i].p_filesz;
		while (p + 12 <= end) {
			uint32_t nsz, dsz, type;
			memcpy(&nsz, p, 4), memcpy(&dsz, p + 4, 4), memcpy(&type, p + 8, 4);
			unsigned char *name = p + 12, *desc = name + ((nsz + 3) & ~3u);
			if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(name, "GNU", 4) &&
			    dsz <= sizeof(build_id)) {
				memcpy(build_id, desc, dsz);
				idlen = dsz;
			}
			p = desc + ((dsz + 3) & ~3u);
		}
	}
	if (event && getenv("MKCAPTURE_MINOR"))
		fwrite("PROFCAP\0\1\0\4\0\0\0\0\0", 1, 16, stdout);
	else if (event)
		fwrite("PROFCAP\0\1\0\3\0\0\0\0\0", 1, 16, stdout);
	else
		fwrite("PROFCAP\0\1\0\0\0\0\0\0\0", 1, 16, stdout);
	u64(0), u32(getenv("MKCAPTURE_FREQ") ? (uint32_t)atol(getenv("MKCAPTURE_FREQ")) : 99);
	u64(getenv("MKCAPTURE_PERIOD") ? strtoull(getenv("MKCAPTURE_PERIOD"), NULL, 10) : 0);
	u32(1), str(event ? event : "cpu-clock"), str("mkcapture"), str(""),
		str(getenv("MKCAPTURE_BOOT_ID") ? getenv("MKCAPTURE_BOOT_ID") : "");
	if (event) /* no minimum or maximum block, S and D, wakers 8 deep */
		u64(0), u64(0), u32(3), u32(8);
	emit(1);
	uint32_t pid = getenv("MKCAPTURE_PID") ? (uint32_t)atoi(getenv("MKCAPTURE_PID")) : 1;
	u32(pid), u32(pid), str("target");
	emit(2);
	maps(pid);
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
			u32(++nstacks), u32((uint32_t)nf);
			for (int i = 0; i < nf; i++)
				u64(frames[i]);
			emit(5);
			u32(pid), u32(pid), u32(0), u32(nstacks), u64(1), u64(0);
			emit(6);
			nsamples++;
			nf = 0;
		}
		if (!more)
			break;
	}
	while (depth <= 1 && fgets(line, sizeof(line), stdin)) {
		if (directive(line))
			continue;
		int kernel = line[0] == 'k', raw = line[0] == 'u';
		addr = strtoull(line + kernel + raw, NULL, 16);
		uint32_t id = ++nstacks;
		u32(id), u32(1), u64(kernel || raw ? addr : base + addr);
		emit(5);
		u32(pid), u32(pid), u32(kernel ? id : 0), u32(kernel ? 0 : id), u64(1), u64(0);
		emit(6);
		nsamples++;
	}
	u64(0), u64(nsamples), u64(0), u32(nstacks), u64(nsamples);
	if (event)
		u64(nweight);
	emit(8);
	return 0;
}
