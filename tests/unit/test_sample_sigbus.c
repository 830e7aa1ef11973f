/*
 * sigbus_guard.c: a file its owner truncates after prof-sample mapped it
 * reads as zeros, in libelf, in the debug image copied to the build-id
 * cache and in the frame-pointer walk's look at code, where it ended the
 * program before; the fault is real (each case dies of SIGBUS without the
 * guard), and a SIGBUS that is no such read still ends the program.
 * Each case runs in a child: the guard is for a whole process.
 */
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "debug_image.h"
#include "elf_bounded.h"
#include "elf_files.h"
#include "sigbus_guard.h"
#include "unit.h"

/* A copy of path that the test owns, mapped by libelf, then truncated
 * to nothing as its owner may; *size is what was mapped. */
static Elf *mapped_then_truncated(const char *path, int *fdp, const uint8_t **base, size_t *size)
{
	char tmp[] = "/tmp/sigbus-XXXXXX";
	int in = open(path, O_RDONLY), fd = mkstemp(tmp);
	char buf[65536];
	ssize_t n;
	Elf *elf;

	if (in < 0 || fd < 0)
		_exit(90);
	unlink(tmp);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			_exit(91);
	close(in);
	elf_version(EV_CURRENT);
	if (!(elf = elf_begin_bounded(fd)) || !(*base = (const uint8_t *)elf_rawfile(elf, size)))
		_exit(92);
	if (ftruncate(fd, 0) != 0)
		_exit(93);
	*fdp = fd;
	return elf;
}

typedef int (*child_fn)(void);

/* How a child that runs fn, with the guard or not, ended: its exit
 * status, or 128 + the signal that ended it. */
static int in_child(child_fn fn, bool guard)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (guard)
			sigbus_guard_install();
		else /* as the kernel ends a program: ASan would catch it first */
			signal(SIGBUS, SIG_DFL);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

static int read_pages(void)
{
	int fd;
	const uint8_t *base;
	size_t size;
	uintptr_t last = 0;
	Elf *elf = mapped_then_truncated("/proc/self/exe", &fd, &base, &size);
	const volatile uint8_t *v = base;

	if (size < 3 * 4096)
		return 10;
	/* Three pages: the first, one inside, the last. */
	if (v[0] || v[size / 2] || v[size - 1])
		return 11;
	/* Read again: the pages stay, and are not counted twice. */
	if (v[1] || v[size - 2])
		return 12;
	/* The first read zeroed the whole mapping, which no read faulted in
	 * again. */
	if (sigbus_guard_pages(&last) != (size + 4095) / 4096)
		return 13;
	if (last != (uintptr_t)&base[0])
		return 14;
	elf_end(elf);
	close(fd);
	return 0;
}

TEST(a_page_past_a_truncated_end_reads_as_zeros_and_is_counted)
{
	CHECK_INT(in_child(read_pages, true), 0);
	/* Without the guard the same reads end the program. */
	CHECK_INT(in_child(read_pages, false), 128 + SIGBUS);
}

/* The mappings of this process. */
static size_t mappings(void)
{
	char buf[65536];
	size_t lines = 0;
	ssize_t n;
	int fd = open("/proc/self/maps", O_RDONLY);

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	return lines;
}

/* Every other page of a 64 MiB file (a hole) mapped, then truncated to
 * nothing: a page mapped over each, the first guard's way, split the
 * mapping at each, 16,384 mappings more; a user who made root's profiler
 * read so ran it out of them (vm.max_map_count), and it died. */
static int read_every_other_page(void)
{
	char tmp[] = "/tmp/sigbus-XXXXXX";
	const size_t size = 64u << 20;
	int fd = mkstemp(tmp);
	const volatile uint8_t *v;
	size_t before;
	unsigned sum = 0;

	if (fd < 0 || unlink(tmp) != 0 || ftruncate(fd, (off_t)size) != 0)
		return 30;
	v = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (v == MAP_FAILED || ftruncate(fd, 0) != 0)
		return 31;
	before = mappings();
	for (size_t off = 0; off < size; off += 2 * 4096)
		sum += v[off];
	if (sum)
		return 32;
	if (mappings() > before + 2)
		return 33;
	if (sigbus_guard_pages(NULL) != size / 4096)
		return 34;
	munmap((void *)v, size);
	close(fd);
	return 0;
}

TEST(reads_all_over_a_truncated_file_cost_no_mappings)
{
	CHECK_INT(in_child(read_every_other_page, true), 0);
	CHECK_INT(in_child(read_every_other_page, false), 128 + SIGBUS);
}

/* What root does with a user's file it holds: copies its debug image for
 * the build-id cache, reads its symbols, looks at its code for a call
 * before a return address. */
static int use_truncated_file(void)
{
	int fd, image = memfd_create("sigbus-image", 0);
	const uint8_t *base;
	size_t size, phnum, shstrndx;
	struct image_stats st;
	const struct image_limits lim = { .max_image = 256u << 20, .max_dwarf = 64u << 20 };
	Elf *elf = mapped_then_truncated("/proc/self/exe", &fd, &base, &size);
	struct elf_image f = { .elf = elf };
	GElf_Phdr ph;
	Elf_Scn *scn = NULL;

	/* The copy for the build-id cache first: it reads zeros where the
	 * symbols were, which it must not give to the cache. */
	if (debug_image_write(elf, fd, image, &lim,
			      &(struct image_origin){ .owner = 4242, .path = "x" }, &st) != IMAGE_CUT)
		return 23;
	/* The copy's first read past the end zeroed the whole mapping:
	 * what libelf reads of it from now on is zeros. */
	if (elf_getphdrnum(elf, &phnum) != 0 || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 20;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Sym sym;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
			continue;
		for (int i = 0; gelf_getsym(d, i, &sym); i++)
			elf_strptr(elf, sh.sh_link, sym.st_name);
	}
	f.loads = calloc(phnum, sizeof(*f.loads));
	for (size_t i = 0; i < phnum; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f.loads[f.nloads++] = ph;
	for (size_t i = 0; i < f.nloads; i++)
		if (f.loads[i].p_flags & PF_X &&
		    elf_image_call_before(&f, f.loads[i].p_vaddr + f.loads[i].p_filesz / 2))
			return 21; /* zeros are no call */
	free(f.loads);
	if (sigbus_guard_pages(NULL) == 0)
		return 22;
	elf_end(elf);
	close(image);
	close(fd);
	return 0;
}

TEST(libelf_the_debug_image_and_the_walk_read_a_truncated_file_as_zeros)
{
	CHECK_INT(in_child(use_truncated_file, true), 0);
	CHECK_INT(in_child(use_truncated_file, false), 128 + SIGBUS);
}

/* A SIGBUS raised by the program itself (si_code SI_TKILL). */
static int raised(void)
{
	raise(SIGBUS);
	return 0;
}

/* One sent by kill(2), as any process of the user's could (SI_USER). */
static int sent(void)
{
	kill(getpid(), SIGBUS);
	return 0;
}

TEST(a_sigbus_that_is_no_read_still_ends_the_program)
{
	CHECK_INT(in_child(raised, true), 128 + SIGBUS);
	CHECK_INT(in_child(sent, true), 128 + SIGBUS);
	CHECK_INT(sigbus_guard_pages(NULL), 0);
}
