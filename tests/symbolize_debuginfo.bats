#!/usr/bin/env bats
# prof-symbolize against addr2line and eu-addr2line, address by address:
# PIE, non-PIE, shared library, libc with its Debian debug file, a binary
# whose symbols are only in a separate debug file (debuglink, build-id
# directory), and a stripped binary with MiniDebugInfo.  No root needed:
# captures are made by mkcapture, one stack per address.

bats_require_minimum_version 1.5.0

load helpers
load symbolize_agree

SRC="$BATS_TEST_DIRNAME/fixtures/symbolize/inlines.c"
LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6

setup() {
	TMP=$(mktemp -d)
	# Hermetic: no debuginfod server a login shell may have configured.
	unset DEBUGINFOD_URLS
}

teardown() {
	rm -rf "$TMP"
}

# check_agreement ELF ADDR2LINE-ELF [prof-symbolize options]: every address
# of ELF's functions gives the same frames (inlined ones included), names
# and file:line, as both addr2line tools given ADDR2LINE-ELF.
check_agreement() {
	local elf=$1 ref=$2
	shift 2
	pick_addresses "$ref" > "$TMP/addrs"
	[ "$(wc -l < "$TMP/addrs")" -ge 200 ]
	ours "$elf" "$TMP/addrs" "$elf" "$@" > "$TMP/ours"
	theirs addr2line "$ref" "$TMP/addrs" > "$TMP/binutils"
	theirs eu-addr2line "$ref" "$TMP/addrs" > "$TMP/elfutils"
	# Real answers, with inlined frames among them.
	grep -q '^accumulate@inlines.c:[0-9]*|burn@inlines.c:' "$TMP/ours"
	grep -q '^square@inlines.c:[0-9]*|mix@inlines.c:' "$TMP/ours"
	run agreement "$TMP/ours" "$TMP/binutils"
	echo "addr2line: $output"
	[ "${lines[-1]}" = "$(wc -l < "$TMP/addrs")/$(wc -l < "$TMP/addrs")" ]
	run agreement "$TMP/ours" "$TMP/elfutils"
	echo "eu-addr2line: $output"
	[ "${lines[-1]}" = "$(wc -l < "$TMP/addrs")/$(wc -l < "$TMP/addrs")" ]
}

@test "a PIE agrees with addr2line -f -i -C and eu-addr2line -f -i" {
	gcc -O2 -g -o "$TMP/pie" "$SRC"
	check_agreement "$TMP/pie" "$TMP/pie"
}

@test "a non-PIE executable agrees with addr2line and eu-addr2line" {
	gcc -O2 -g -fno-pie -no-pie -o "$TMP/nopie" "$SRC"
	check_agreement "$TMP/nopie" "$TMP/nopie"
}

@test "a shared library agrees with addr2line and eu-addr2line" {
	gcc -O2 -g -shared -fPIC -DNO_MAIN -o "$TMP/libinl.so" "$SRC"
	check_agreement "$TMP/libinl.so" "$TMP/libinl.so"
}

@test "libc with its Debian debug file (libc6-dbg) agrees with both tools" {
	id=$(eu-readelf -n "$LIBC" | awk '/Build ID:/ { print $3 }')
	dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	[ -f "$dbg" ] || skip "libc6-dbg is not installed"
	# libc has no .symtab: local functions come from the debug file.
	run -0 readelf -S "$LIBC"
	[[ "$output" != *" .symtab "* ]]
	pick_addresses "$dbg" 150 7 > "$TMP/addrs"
	[ "$(wc -l < "$TMP/addrs")" -ge 2000 ]
	ours "$LIBC" "$TMP/addrs" "$LIBC" > "$TMP/ours"
	theirs addr2line "$LIBC" "$TMP/addrs" > "$TMP/binutils"
	theirs eu-addr2line "$LIBC" "$TMP/addrs" > "$TMP/elfutils"
	total=$(wc -l < "$TMP/addrs")
	# Function names, inlined frames included: the same as both tools'.
	run agreement <(sed 's/@[^|]*//g' "$TMP/ours") <(sed 's/@[^|]*//g' "$TMP/elfutils")
	echo "names vs eu-addr2line: $output"
	[ "${lines[-1]%/*}" -ge $(( total * 999 / 1000 )) ]
	run agreement <(sed 's/@[^|]*//g' "$TMP/ours") <(sed 's/@[^|]*//g' "$TMP/binutils")
	echo "names vs addr2line: $output"
	[ "${lines[-1]%/*}" -ge $(( total * 995 / 1000 )) ]
	# With lines: libdw's answer (eu-addr2line) almost everywhere; binutils
	# names another file for a line in some #included .c files.
	run agreement "$TMP/ours" "$TMP/elfutils"
	echo "with lines vs eu-addr2line: $output"
	[ "${lines[-1]%/*}" -ge $(( total * 995 / 1000 )) ]
	run agreement "$TMP/ours" "$TMP/binutils"
	echo "with lines vs addr2line: $output"
	[ "${lines[-1]%/*}" -ge $(( total * 95 / 100 )) ]
	# Without --inline, each address is its outermost function.
	"$PROF_WORKLOADS/mkcapture" "$LIBC" < "$TMP/addrs" | prof-symbolize |
		awk '/^\t/ { name = $2; sub(/\+0x[0-9a-f]+$/, "", name); '"$normalize_name"' print name }' > "$TMP/plain"
	run agreement "$TMP/plain" <(names_only "$TMP/elfutils")
	echo "outermost names: $output"
	[ "${lines[-1]%/*}" -ge $(( total * 999 / 1000 )) ]
}

# make_stripped NAME: $TMP/NAME.full (with debug info) and $TMP/NAME, a
# copy stripped of everything but .dynsym.
make_stripped() {
	gcc -O2 -g -o "$TMP/$1.full" "$SRC"
	strip --strip-all -o "$TMP/$1" "$TMP/$1.full"
	[ -z "$(readelf -S "$TMP/$1" | grep ' \.symtab ')" ]
}

@test "a binary with only a separate debug file: debuglink, then build-id directory" {
	make_stripped prog
	objcopy --only-keep-debug "$TMP/prog.full" "$TMP/prog.debug"
	# Without its debug file, frames keep module+offset.
	pick_addresses "$TMP/prog.full" > "$TMP/addrs"
	"$PROF_WORKLOADS/mkcapture" "$TMP/prog" < "$TMP/addrs" > "$TMP/cap.prof"
	prof-symbolize "$TMP/cap.prof" > "$TMP/none.txt"
	run ! grep -q ' burn+' "$TMP/none.txt"
	grep -qE '^	 +[0-9a-f]+ \[prog\]\+0x[0-9a-f]+ \('"$TMP"'/prog\)$' "$TMP/none.txt"
	# The debuglink, beside the binary.
	objcopy --add-gnu-debuglink="$TMP/prog.debug" "$TMP/prog"
	check_agreement "$TMP/prog" "$TMP/prog.full"
	# The build-id directory, given with --debug-dir.
	mkdir -p "$TMP/dbg" "$TMP/bin"
	strip --strip-all -o "$TMP/bin/prog" "$TMP/prog.full"
	id=$(eu-readelf -n "$TMP/prog.full" | awk '/Build ID:/ { print $3 }')
	mkdir -p "$TMP/dbg/.build-id/${id:0:2}"
	mv "$TMP/prog.debug" "$TMP/dbg/.build-id/${id:0:2}/${id:2}.debug"
	"$PROF_WORKLOADS/mkcapture" "$TMP/bin/prog" < "$TMP/addrs" | prof-symbolize > "$TMP/nodir.txt"
	run ! grep -q ' burn+' "$TMP/nodir.txt"
	ours "$TMP/bin/prog" "$TMP/addrs" "$TMP/bin/prog" --debug-dir "$TMP/dbg" > "$TMP/ours"
	theirs eu-addr2line "$TMP/prog.full" "$TMP/addrs" > "$TMP/elfutils"
	run agreement "$TMP/ours" "$TMP/elfutils"
	[ "${lines[-1]}" = "$(wc -l < "$TMP/addrs")/$(wc -l < "$TMP/addrs")" ]
}

@test "a debug file of another build is not used" {
	make_stripped prog
	# The same source built differently: another build-id, other addresses.
	gcc -O1 -g -o "$TMP/other" "$SRC"
	objcopy --only-keep-debug "$TMP/other" "$TMP/prog.debug"
	objcopy --add-gnu-debuglink="$TMP/prog.debug" "$TMP/prog"
	pick_addresses "$TMP/prog.full" > "$TMP/addrs"
	"$PROF_WORKLOADS/mkcapture" "$TMP/prog" < "$TMP/addrs" | prof-symbolize > "$TMP/out.txt"
	run ! grep -qE ' (burn|mix|work)\+' "$TMP/out.txt"
	grep -q ' \[prog\]+0x' "$TMP/out.txt"
}

@test "a stripped binary with MiniDebugInfo resolves its local functions" {
	make_stripped prog
	# Fedora's recipe: the function symbols .dynsym lacks, xz-compressed
	# into .gnu_debugdata.
	nm -D "$TMP/prog.full" --format=posix --defined-only | awk '{ print $1 }' | sort > "$TMP/dynsyms"
	nm "$TMP/prog.full" --format=posix --defined-only |
		awk '$2 == "T" || $2 == "t" { print $1 }' | sort > "$TMP/funcsyms"
	comm -13 "$TMP/dynsyms" "$TMP/funcsyms" > "$TMP/keep"
	objcopy --only-keep-debug "$TMP/prog.full" "$TMP/mini"
	objcopy -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols="$TMP/keep" "$TMP/mini"
	xz "$TMP/mini"
	pick_addresses "$TMP/prog.full" > "$TMP/addrs"
	"$PROF_WORKLOADS/mkcapture" "$TMP/prog" < "$TMP/addrs" | prof-symbolize > "$TMP/before.txt"
	run ! grep -q ' burn+' "$TMP/before.txt"
	objcopy --add-section .gnu_debugdata="$TMP/mini.xz" "$TMP/prog"
	"$PROF_WORKLOADS/mkcapture" "$TMP/prog" < "$TMP/addrs" | prof-symbolize |
		awk '/^\t/ { n = $2; sub(/\+0x[0-9a-f]+$/, "", n); print n }' > "$TMP/ours"
	theirs eu-addr2line "$TMP/prog.full" "$TMP/addrs" > "$TMP/elfutils"
	grep -qx burn "$TMP/ours"
	grep -qx mix "$TMP/ours"
	run agreement "$TMP/ours" <(names_only "$TMP/elfutils")
	echo "$output"
	[ "${lines[-1]}" = "$(wc -l < "$TMP/addrs")/$(wc -l < "$TMP/addrs")" ]
}
