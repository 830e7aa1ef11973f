/*
 * The kallsyms line reader both programs share (common/kallsyms_line.c):
 * the kernel's two forms, a copy's CRLF ends, and what a hostile copy may
 * hold instead: no name, a name or module past the kernel's limits, a
 * number that is not one, a line longer than any symbol's.
 */
#include <stdio.h>

#include "kallsyms_line.h"
#include "unit.h"

#define PARSE(s) kallsyms_line_parse(s, strlen(s), &l)

TEST(the_kernels_lines)
{
	struct kallsyms_line l;

	CHECK(PARSE("ffffffff81000000 T _stext"));
	CHECK(l.addr == 0xffffffff81000000ull);
	CHECK_INT(l.type, 'T');
	CHECK_STR(str(l.name, l.name_len), "_stext");
	CHECK_INT(l.module_len, 0);
	CHECK(PARSE("ffffffffc0001000 t nft_do_chain\t[nf_tables]"));
	CHECK_STR(str(l.name, l.name_len), "nft_do_chain");
	CHECK_STR(str(l.module, l.module_len), "nf_tables");
	CHECK(PARSE("0000000000000000 A fixed_percpu_data"));
	CHECK(l.addr == 0);
	CHECK(PARSE("ffffffffc0a0 t bpf_prog_6deef7357e7b4530_sd\t[bpf]\r"));
	CHECK_STR(str(l.module, l.module_len), "bpf");
	CHECK(PARSE("FFFFFFFF81000000  T  upper"));
	CHECK(l.addr == 0xffffffff81000000ull);
}

TEST(what_is_no_symbol)
{
	struct kallsyms_line l;
	char line[KALLSYMS_LINE_MAX + 8];

	CHECK(!PARSE(""));
	CHECK(!PARSE("ffffffff81000000"));
	CHECK(!PARSE("ffffffff81000000 T"));
	CHECK(!PARSE("ffffffff81000000 T "));
	CHECK(!PARSE("ffffffff81000000 TT name"));
	CHECK(!PARSE("0x81000000 T name"));
	CHECK(!PARSE("-1 T name"));
	CHECK(!PARSE("1ffffffff81000000 T name")); /* past 64 bits */
	CHECK(!PARSE("ffffffff81000000 T name [mod"));
	CHECK(!PARSE("ffffffff81000000 T name []"));
	CHECK(!PARSE("ffffffff81000000 T name [mod] tail"));
	CHECK(!PARSE("ffffffff81000000 T name tail"));
	/* The kernel's limits. */
	memcpy(line, "1 t ", 4);
	memset(line + 4, 'n', KALLSYMS_NAME_MAX + 1);
	CHECK(kallsyms_line_parse(line, 4 + KALLSYMS_NAME_MAX, &l));
	CHECK_INT(l.name_len, KALLSYMS_NAME_MAX);
	CHECK(!kallsyms_line_parse(line, 5 + KALLSYMS_NAME_MAX, &l));
	memcpy(line, "1 t f [", 7);
	memset(line + 7, 'm', KALLSYMS_MODULE_MAX + 1);
	line[7 + KALLSYMS_MODULE_MAX] = ']';
	CHECK(kallsyms_line_parse(line, 8 + KALLSYMS_MODULE_MAX, &l));
	CHECK_INT(l.module_len, KALLSYMS_MODULE_MAX);
	line[7 + KALLSYMS_MODULE_MAX] = 'm';
	line[8 + KALLSYMS_MODULE_MAX] = ']';
	CHECK(!kallsyms_line_parse(line, 9 + KALLSYMS_MODULE_MAX, &l));
}

TEST(reading_code_symbols)
{
	static char text[3 * KALLSYMS_LINE_MAX];
	char buf[KALLSYMS_LINE_MAX];
	struct kallsyms_line l;
	size_t n = 0;

	n += (size_t)sprintf(text + n, "1 T first\n2 D data\n3 A abs\n");
	/* A line longer than any symbol's is skipped whole; its tail is not
	 * read as a line of its own. */
	n += (size_t)sprintf(text + n, "4 t ");
	memset(text + n, 'x', KALLSYMS_LINE_MAX);
	n += KALLSYMS_LINE_MAX;
	n += (size_t)sprintf(text + n, " 5 t tail\n6 w weak\nbad line\n7 W last");
	FILE *f = fmemopen(text, n, "r");

	CHECK(kallsyms_line_next_code(f, buf, &l));
	CHECK_STR(str(l.name, l.name_len), "first");
	CHECK(kallsyms_line_next_code(f, buf, &l));
	CHECK_STR(str(l.name, l.name_len), "weak");
	CHECK(kallsyms_line_next_code(f, buf, &l));
	CHECK_STR(str(l.name, l.name_len), "last");
	CHECK(l.addr == 7);
	CHECK(!kallsyms_line_next_code(f, buf, &l));
	fclose(f);
}
