/* elf_symtab against this very test binary: its own functions must resolve
 * by name through the same offset -> vaddr -> symbol path prof-symbolize
 * takes for a sampled process. */
#include "unit.h"

#include <link.h>

#include "elf_symtab.h"

__attribute__((noinline)) int known_function(int x)
{
	return x * 3 + 1;
}

/* The runtime address of fn as a file offset, from /proc/self/maps, the
 * way prof-sample's MAP records describe it. */
static int file_offset_of(const void *fn, char *path, size_t pathlen, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	uint64_t addr = (uint64_t)(uintptr_t)fn;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8];
		int at = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff, &at) < 4)
			continue;
		if (addr >= start && addr < end) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, pathlen, "%s", line + at);
			*off = addr - start + pgoff;
			fclose(f);
			return 0;
		}
	}
	if (f)
		fclose(f);
	return -1;
}

TEST(own_function_resolves_through_segments)
{
	struct elf_symtab t;
	char path[512], why[256];
	uint64_t off, vaddr;

	CHECK_INT(file_offset_of((void *)known_function, path, sizeof(path), &off), 0);
	CHECK(elf_symtab_load(&t, path, NULL, 0, why, sizeof(why)));
	CHECK(t.nsyms > 10);
	CHECK(elf_symtab_vaddr(&t, off, &vaddr));
	const struct elf_sym *s = elf_symtab_find(&t, vaddr);
	CHECK(s != NULL);
	CHECK_STR(s ? s->name : NULL, "known_function");
	CHECK(s && vaddr == s->addr);
	/* Inside the function, still it; at its end, not it. */
	const struct elf_sym *in = elf_symtab_find(&t, vaddr + 1);
	CHECK_STR(in ? in->name : NULL, "known_function");
	if (s) {
		const struct elf_sym *past = elf_symtab_find(&t, s->addr + s->size);
		CHECK(past == NULL || strcmp(past->name, "known_function") != 0);
	}
	elf_symtab_free(&t);
}

TEST(build_id_mismatch_is_refused)
{
	struct elf_symtab t;
	char path[512], why[256];
	uint64_t off;
	uint8_t wrong[20] = { 1, 2, 3 };

	CHECK_INT(file_offset_of((void *)known_function, path, sizeof(path), &off), 0);
	CHECK(!elf_symtab_load(&t, path, wrong, sizeof(wrong), why, sizeof(why)));
	CHECK(strstr(why, "build-id differs") != NULL);
}

TEST(unreadable_and_non_elf_files)
{
	struct elf_symtab t;
	char why[256];

	CHECK(!elf_symtab_load(&t, "/nonexistent/file", NULL, 0, why, sizeof(why)));
	CHECK_STR(why, "No such file or directory");
	CHECK(!elf_symtab_load(&t, "/proc/self/status", NULL, 0, why, sizeof(why)));
	CHECK_STR(why, "not an ELF file");
}

TEST(stripped_library_falls_back_to_dynsym)
{
	/* Debian's libc has no .symtab: exported functions come from
	 * .dynsym.  div() because sanitizers do not intercept it. */
	struct elf_symtab t;
	char path[512], why[256];
	uint64_t off, vaddr;

	CHECK_INT(file_offset_of((void *)div, path, sizeof(path), &off), 0);
	CHECK(strstr(path, "libc.so") != NULL);
	CHECK(elf_symtab_load(&t, path, NULL, 0, why, sizeof(why)));
	CHECK(elf_symtab_vaddr(&t, off, &vaddr));
	const struct elf_sym *s = elf_symtab_find(&t, vaddr);
	CHECK_STR(s ? s->name : NULL, "div");
	elf_symtab_free(&t);
	(void)known_function(1);
}
