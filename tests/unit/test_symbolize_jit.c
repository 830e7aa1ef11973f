/*
 * JIT symbols (prof-symbolize/jit_syms.c): the latest function covering an
 * address wins, as the JIT reused the memory, through an index that makes
 * a map of millions of functions (a JVM's) cheap to look up.
 */
#include <stdio.h>

#include "jit_syms.h"
#include "unit.h"

TEST(the_latest_covering_function_wins)
{
	struct jit_syms j = { 0 };

	jit_syms_add(&j, 0x1000, 0x100, "old", 3);
	jit_syms_add(&j, 0x1080, 0x20, "newer", 5);
	jit_syms_add(&j, 0x1000, 0x40, "newest", 6);
	CHECK_STR(jit_syms_find(&j, 0x1000)->name, "newest");
	CHECK_STR(jit_syms_find(&j, 0x1050)->name, "old");
	CHECK_STR(jit_syms_find(&j, 0x1085)->name, "newer");
	CHECK_STR(jit_syms_find(&j, 0x10a0)->name, "old");
	CHECK(jit_syms_find(&j, 0x1100) == NULL);
	CHECK(jit_syms_find(&j, 0xfff) == NULL);
	/* Added after a lookup: indexed again. */
	jit_syms_add(&j, 0x10f0, 0x10, "late", 4);
	CHECK_STR(jit_syms_find(&j, 0x10f8)->name, "late");
	jit_syms_free(&j);
}

TEST(a_million_functions)
{
	struct jit_syms j = { 0 };
	char name[32];
	int wrong = 0;

	for (int i = 0; i < 1000000; i++) {
		int len = snprintf(name, sizeof(name), "f%d", i);
		jit_syms_add(&j, 0x100000 + (uint64_t)i * 64, 48, name, (size_t)len);
	}
	for (int i = 0; i < 1000000; i += 7) {
		const struct jit_sym *s = jit_syms_find(&j, 0x100000 + (uint64_t)i * 64 + 10);
		snprintf(name, sizeof(name), "f%d", i);
		wrong += !s || strcmp(s->name, name) != 0;
		/* Between functions: none. */
		wrong += jit_syms_find(&j, 0x100000 + (uint64_t)i * 64 + 50) != NULL;
	}
	CHECK_INT(wrong, 0);
	jit_syms_free(&j);
}
