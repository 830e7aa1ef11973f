/* A mapped file's frames through prof-symbolize's own loading path
 * (modules.c, with debug_find.c and elf_symtab.c): this test binary and
 * libc, described as prof-sample's MAP records describe them, must resolve
 * by name, and a file that is not the one sampled must not. */
#include "unit.h"

#include <unistd.h>

#include "build_id.h"
#include "modules.h"

__attribute__((noinline)) int known_function(int x)
{
	return x * 3 + 1;
}

struct mapped {
	char path[512];
	uint8_t id[BUILD_ID_MAX];
	struct cap_map map;
	uint64_t off; /* of the address looked up, in the file */
};

/* The mapping of addr, from /proc/self/maps, as a MAP record with the
 * file's build-id. */
static int mapping_of(const void *addr, struct mapped *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	uint64_t a = (uint64_t)(uintptr_t)addr;
	int found = -1;

	while (f && found && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8];
		int at = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff, &at) < 4 ||
		    a < start || a >= end)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(m->path, sizeof(m->path), "%s", line + at);
		m->map = (struct cap_map){ .pid = (uint32_t)getpid(), .start = start, .end = end,
					   .pgoff = pgoff, .build_id = m->id,
					   .path = { m->path, (uint16_t)strlen(m->path) } };
		m->map.build_id_len = (uint8_t)file_build_id(m->path, m->id);
		m->off = a - start + pgoff;
		found = 0;
	}
	if (f)
		fclose(f);
	return found;
}

/* Modules whose files one reader opens, as prof-symbolize's are. */
static void init(struct modules *ms)
{
	static struct file_reader *reader;

	if (!reader)
		reader = file_reader_new(NULL, NULL);
	modules_init(ms);
	ms->ds.reader = reader;
}

/* The module for path, as a capture with that build-id (none if id is
 * NULL) names it. */
static struct module *module_of(struct modules *ms, const char *path, const uint8_t *id, size_t len)
{
	struct cap_map map = { .pid = 1, .start = 0x400000, .end = 0x500000,
			       .build_id = id, .build_id_len = (uint8_t)len,
			       .path = { path, (uint16_t)strlen(path) } };

	return modules_get(ms, &map, 1);
}

TEST(own_function_resolves_with_its_line)
{
	struct modules ms;
	struct mapped m;
	struct resolved r[MAX_INLINE];

	CHECK_INT(mapping_of((void *)known_function, &m), 0);
	CHECK(m.map.build_id_len > 0);
	init(&ms);
	ms.want_dwarf = true;
	struct module *mod = modules_get(&ms, &m.map, m.map.pid);
	CHECK(mod->loaded);
	CHECK_INT(module_resolve(mod, m.off, 0, false, true, r), 1);
	CHECK_STR(r[0].name, "known_function");
	CHECK_INT(r[0].off, 0);
	CHECK(r[0].file && strstr(r[0].file, "test_symbolize_modules.c"));
	CHECK(r[0].line > 0);
	/* Inside the function, still it; at its end, not it. */
	module_resolve(mod, m.off + 1, 0, false, false, r);
	CHECK_STR(r[0].name, "known_function");
	CHECK_INT(r[0].off, 1);
	uint64_t vaddr;
	const struct elf_sym *s = elf_symtab_vaddr(&mod->symtab, m.off, &vaddr)
					  ? elf_symtab_find(&mod->symtab, vaddr) : NULL;
	CHECK(s != NULL);
	if (s) {
		module_resolve(mod, m.off + s->size, 0, false, false, r);
		CHECK(!r[0].name || strcmp(r[0].name, "known_function") != 0);
	}
	modules_free(&ms);
}

TEST(build_id_mismatch_is_refused)
{
	struct modules ms;
	struct mapped m;
	struct resolved r[MAX_INLINE];
	uint8_t wrong[20] = { 1, 2, 3 };

	CHECK_INT(mapping_of((void *)known_function, &m), 0);
	init(&ms);
	struct module *mod = module_of(&ms, m.path, wrong, sizeof(wrong));
	CHECK(!mod->loaded);
	CHECK(mod->why && strstr(mod->why, "build-id differs"));
	CHECK_INT(module_resolve(mod, m.off, 0, false, false, r), 1);
	CHECK(r[0].name == NULL);
	modules_free(&ms);
}

TEST(unreadable_non_elf_and_unidentified_files)
{
	struct modules ms;
	uint8_t id[20] = { 1 };

	init(&ms);
	struct module *mod = module_of(&ms, "/nonexistent/file", id, sizeof(id));
	CHECK(!mod->loaded);
	CHECK_STR(mod->why, "No such file or directory");
	mod = module_of(&ms, "/proc/self/status", id, sizeof(id));
	CHECK(!mod->loaded);
	CHECK_STR(mod->why, "not an ELF file");
	/* Without a build-id, a file is only the one sampled by its inode, on
	 * the capture's host. */
	mod = module_of(&ms, "/proc/self/exe", NULL, 0);
	CHECK(!mod->loaded);
	CHECK(mod->why && strstr(mod->why, "no build-id"));
	modules_free(&ms);
}

TEST(stripped_library_falls_back_to_dynsym)
{
	/* Debian's libc has no .symtab: exported functions come from
	 * .dynsym (or its debug file, when installed).  div() because
	 * sanitizers do not intercept it. */
	struct modules ms;
	struct mapped m;
	struct resolved r[MAX_INLINE];

	CHECK_INT(mapping_of((void *)div, &m), 0);
	CHECK(strstr(m.path, "libc.so") != NULL);
	init(&ms);
	struct module *mod = modules_get(&ms, &m.map, m.map.pid);
	CHECK(mod->loaded);
	module_resolve(mod, m.off, 0, false, false, r);
	CHECK_STR(r[0].name, "div");
	modules_free(&ms);
	(void)known_function(1);
}
