/* kernel_syms_load_kallsyms on kallsyms-format files: text symbols only,
 * each ending where the next starts, modules named, and a file whose
 * addresses are hidden (kptr_restrict) refused. */
#include "unit.h"

#include <stdlib.h>
#include <unistd.h>

#include "kernel_syms.h"

TEST(text_symbols_with_modules)
{
	struct kernel_syms k = { 0 };
	char why[256];
	const char *path = tmp_file("ffffffff81000000 T _stext\n"
			       "ffffffff81000100 t helper\n"
			       "ffffffff81000180 D some_data\n"
			       "ffffffff81000200 T ksys_write\n"
			       "ffffffffc0001000 t nft_do_chain\t[nf_tables]\n");

	CHECK(path != NULL);
	CHECK(kernel_syms_load_kallsyms(&k, path, why, sizeof(why)));
	unlink(path);
	const struct kernel_sym *s = kernel_syms_find(&k, 0xffffffff81000104);
	CHECK_STR(s ? s->name : NULL, "helper");
	/* Data symbols are skipped: helper runs up to ksys_write. */
	s = kernel_syms_find(&k, 0xffffffff81000190);
	CHECK_STR(s ? s->name : NULL, "helper");
	s = kernel_syms_find(&k, 0xffffffffc0001010);
	CHECK_STR(s ? s->name : NULL, "nft_do_chain");
	CHECK_STR(s ? s->module : NULL, "nf_tables");
	s = kernel_syms_find(&k, 0xffffffff81000200);
	CHECK_STR(s ? s->module : NULL, "");
	CHECK(kernel_syms_find(&k, 0xffffffff80000000) == NULL);
	kernel_syms_free(&k);
}

TEST(hidden_addresses_are_refused)
{
	struct kernel_syms k = { 0 };
	char why[256];
	const char *path = tmp_file("0000000000000000 T _stext\n0000000000000000 T ksys_write\n");

	CHECK(!kernel_syms_load_kallsyms(&k, path, why, sizeof(why)));
	unlink(path);
	CHECK(strstr(why, "kptr_restrict") != NULL);
	CHECK(!kernel_syms_load_kallsyms(&k, "/nonexistent/kallsyms", why, sizeof(why)));
	CHECK_STR(why, "No such file or directory");
}
