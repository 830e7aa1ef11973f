#!/usr/bin/env bats
# C++ and Rust names demangled (libiberty, as addr2line -C), or left as
# they are with --no-demangle.  The demangler itself is checked name by
# name in tests/unit/test_symbolize_demangle.c.

bats_require_minimum_version 1.5.0

load helpers
load symbolize_agree

setup() {
	TMP=$(mktemp -d)
	# Hermetic: no debuginfod server a login shell may have configured.
	unset DEBUGINFOD_URLS
}

teardown() {
	rm -rf "$TMP"
}

# frame_names CAPTURE [options]: the symbol of every frame, offset removed.
frame_names() {
	local cap=$1
	shift
	prof-symbolize "$@" "$cap" | sed -n 's/^\t *[0-9a-f]* \(.*\)+0x[0-9a-f]* (.*)$/\1/p'
}

@test "C++ frames are demangled like addr2line -C, and kept mangled with --no-demangle" {
	command -v g++ > /dev/null || skip "g++ is not installed (the name list in the unit test covers C++)"
	g++ -O1 -g -o "$TMP/cxx" "$BATS_TEST_DIRNAME/fixtures/symbolize/demangle.cpp"
	pick_addresses "$TMP/cxx" > "$TMP/addrs"
	"$PROF_WORKLOADS/mkcapture" "$TMP/cxx" < "$TMP/addrs" > "$TMP/cap.prof"
	frame_names "$TMP/cap.prof" > "$TMP/ours"
	grep -qxF 'ns::Widget::frob(int)' "$TMP/ours"
	grep -qxF 'ns::Widget::size() const' "$TMP/ours"
	grep -qxF 'ns::Widget::operator+(ns::Widget const&) const' "$TMP/ours"
	grep -qxF 'ns::Table<int>::insert(int const&)' "$TMP/ours"
	grep -qxF '(anonymous namespace)::helper(char const*, unsigned long)' "$TMP/ours"
	# The same names as addr2line -f -C gives for the outermost function.
	theirs addr2line "$TMP/cxx" "$TMP/addrs" > "$TMP/binutils"
	sed -i 's/@[^|]*//g; s/.*|//' "$TMP/binutils"
	run agreement "$TMP/ours" "$TMP/binutils"
	echo "$output"
	[ "${lines[-1]}" = "$(wc -l < "$TMP/addrs")/$(wc -l < "$TMP/addrs")" ]
	frame_names "$TMP/cap.prof" --no-demangle > "$TMP/raw"
	grep -qxF '_ZN2ns6Widget4frobEi' "$TMP/raw"
	grep -qxF '_ZN12_GLOBAL__N_16helperEPKcm' "$TMP/raw"
	run ! grep -q 'ns::' "$TMP/raw"
}

@test "Rust frames are demangled without their hashes" {
	command -v rustc > /dev/null || skip "rustc is not installed (the name list in the unit test covers Rust)"
	printf '#[inline(never)] fn busy(n: u64) -> u64 { (0..n).fold(0, |a, b| a ^ b.wrapping_mul(b)) }\nfn main() { println!("{}", busy(std::env::args().count() as u64 * 1000)); }\n' > "$TMP/r.rs"
	rustc -g -o "$TMP/r_legacy" "$TMP/r.rs"
	rustc -C symbol-mangling-version=v0 -g -o "$TMP/r_v0" "$TMP/r.rs"
	for mangling in legacy v0; do
		nm "$TMP/r_$mangling" | awk '$3 ~ /4busy/ { print $1 }' > "$TMP/addrs"
		[ -s "$TMP/addrs" ]
		"$PROF_WORKLOADS/mkcapture" "$TMP/r_$mangling" < "$TMP/addrs" > "$TMP/cap.prof"
		frame_names "$TMP/cap.prof" > "$TMP/ours"
		grep -qx 'r::busy' "$TMP/ours"
		grep -qxE 'r::busy::(\{closure#0\}|\{\{closure\}\})' "$TMP/ours"
		frame_names "$TMP/cap.prof" --no-demangle | grep -q '^_[RZ].*4busy'
	done
}
