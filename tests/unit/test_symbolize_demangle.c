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

/* The remembering demangler says what demangle() does, the same string
 * each time a name comes back, and the name itself where nothing is
 * mangled (or it does not demangle). */
TEST(remembered_names_are_demangled_once_and_alike)
{
	struct demangler *d = demangler_new();
	char name[] = "_ZNK2ns6Widget4sizeEv";
	const char *first = demangled(d, name);

	CHECK_STR(first, "ns::Widget::size() const");
	/* Looked up by content: another copy of the name finds it. */
	char copy[sizeof(name)];
	memcpy(copy, name, sizeof(name));
	CHECK(demangled(d, copy) == first);
	CHECK_STR(demangled(d, "_ZN4core3fmt9Formatter3pad17h0123456789abcdefE"),
		  "core::fmt::Formatter::pad");
	const char *plain = "burn_cpu", *bad = "_Z!not";
	CHECK(demangled(d, plain) == plain);
	CHECK(demangled(d, bad) == bad);
	CHECK(demangled(d, bad) == bad);
	demangler_free(d);
}
