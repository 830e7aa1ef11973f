/* demangle() against tests/fixtures/symbolize/mangled.tsv: C++ (Itanium)
 * and Rust legacy and v0 symbols with the names users expect to read, one
 * "MANGLED<TAB>DEMANGLED" per line, "-" for names left as they are.  Rust
 * hashes and crate disambiguators are dropped, as rustc-demangle's
 * alternate form and perf do.  Also the --no-demangle path, end to end in
 * frame_line, is covered by tests/symbolize_demangle.bats. */
#include "unit.h"

#include <stdlib.h>

#include "demangle.h"

TEST(fixture_names_demangle_as_expected)
{
	FILE *f = fopen("tests/fixtures/symbolize/mangled.tsv", "r");
	char line[1024];
	int n = 0;

	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');
		line[strcspn(line, "\n")] = '\0';
		if (!tab)
			continue;
		*tab = '\0';
		char *got = demangle(line);
		CHECK_STR(got ? got : "-", tab + 1);
		free(got);
		n++;
	}
	if (f)
		fclose(f);
	CHECK(n >= 20);
}

TEST(rust_and_cpp_spot_checks)
{
	char *s = demangle("_ZN4core3fmt9Formatter3pad17h0123456789abcdefE");
	CHECK_STR(s, "core::fmt::Formatter::pad");
	free(s);
	s = demangle("_RNvMs_Cs4Cv8Wi1oAIB_7mycrateNtB4_3Foo3bar");
	CHECK_STR(s, "<mycrate::Foo>::bar");
	free(s);
	s = demangle("_ZNK2ns6Widget4sizeEv");
	CHECK_STR(s, "ns::Widget::size() const");
	free(s);
	CHECK(demangle("burn_cpu") == NULL);
	CHECK(demangle("_R") == NULL);
}
