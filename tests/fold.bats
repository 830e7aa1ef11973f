#!/usr/bin/env bats
# prof-fold: formats, options, diagnostics and robustness, on the project's
# own fixtures.  The byte-exact compatibility with stackcollapse-perf.pl on
# the reference corpus is in fold_corpus.bats.

bats_require_minimum_version 1.5.0

FIX="$BATS_TEST_DIRNAME/fixtures/fold"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

@test "--help and --version exit 0, a bad option exits 2" {
	run prof-fold --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--skip-after=FUNC"* ]]
	[[ "$output" == *"--period-unit"* ]]
	run prof-fold --version
	[ "$status" -eq 0 ]
	[[ "$output" == "prof-fold "[0-9]* ]]
	run prof-fold --no-such-option
	[ "$status" -eq 2 ]
	run prof-fold --input=xml "$FIX/symbolized.txt"
	[ "$status" -eq 2 ]
	run prof-fold --filter='(' "$FIX/symbolized.txt"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--filter=("* ]]
}

@test "prof-symbolize frames fold with the count column as weight" {
	run prof-fold "$FIX/symbolized.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "demo;[unknown];[libc.so.6];main;burn;nft_do_chain;pvm_safe_halt_hc 37
demo;main;burn 7
kworker/0:1 1
my_worker;main;burn 3" ]
}

@test "--tid and --addrs name threads and unresolved addresses" {
	run prof-fold --tid --addrs "$FIX/symbolized.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "demo-4242/4242;[unknown <0>];[libc.so.6 <7f12345678aa>];main;burn;nft_do_chain;pvm_safe_halt_hc 37
demo-4242/4242;main;burn 2
demo-4242/4243;main;burn 5
kworker/0:1-17/17 1
my_worker-4242/4244;main;burn 3" ]
	run prof-fold --pid "$FIX/symbolized.txt"
	[ "${lines[0]}" = "demo-4242;[unknown];[libc.so.6];main;burn;nft_do_chain;pvm_safe_halt_hc 37" ]
	[ "${lines[1]}" = "demo-4242;main;burn 7" ]
}

@test "--kernel marks kernel and module frames, not [unknown]" {
	run prof-fold --kernel "$FIX/symbolized.txt"
	[ "${lines[0]}" = "demo;[unknown];[libc.so.6];main;burn;nft_do_chain_[k];pvm_safe_halt_hc_[k] 37" ]
}

@test "Python frames keep their whole name, file and line; --jit marks them _[p]; a ';' in them does not split them" {
	printf '%s\n' '# prof-symbolize frames v1' '' \
		'python3.11 7/7 1.000000: 3 cpu-clock:' \
		'	800000000000000a run (app.py:12) (/srv/app.py)' \
		'	8000000000000002 a;b.<locals>.c (x;y.py:3) (/srv/x;y.py)' \
		'	          5236bb PyEval_EvalCode+0xbb (/usr/bin/python3.11)' \
		'	          627bd1 _start+0x21 (/usr/bin/python3.11)' '' > "$TMP/frames"
	run prof-fold "$TMP/frames"
	[ "$status" -eq 0 ]
	[ "$output" = "python3.11;_start;PyEval_EvalCode;a:b.<locals>.c (x:y.py:3);run (app.py:12) 3" ]
	run prof-fold --jit "$TMP/frames"
	[ "$output" = "python3.11;_start;PyEval_EvalCode;a:b.<locals>.c (x:y.py:3)_[p];run (app.py:12)_[p] 3" ]
}

@test "a different frames version is refused" {
	sed '1s/v1/v2/' "$FIX/symbolized.txt" > "$TMP/v2.txt"
	run prof-fold "$TMP/v2.txt"
	[ "$status" -eq 2 ]
	[[ "$output" == *"v2.txt:1: unsupported prof-symbolize frames version"* ]]
}

@test "perf script: header skipped, first event only, period summed, no final blank line" {
	run --separate-stderr prof-fold "$FIX/perf-mixed.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "app;main;LFoo:::bar;middle;helper;leaf 250000
app;main;__write;do_syscall_64 250000" ]
	[[ "$stderr" == *"'cycles:u'; skipped 1 sample of other events such as 'instructions:u'"* ]]
	# --period-unit says the periods are cycles, without the ':u'.
	run --separate-stderr prof-fold --period-unit "$FIX/perf-mixed.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "[count: cycles] 0
app;main;LFoo:::bar;middle;helper;leaf 250000
app;main;__write;do_syscall_64 250000" ]
	[[ "$stderr" == *"'cycles:u'; skipped 1 sample of other events such as 'instructions:u'"* ]]
}

@test "--event-filter picks the event, --all annotates, --inline marks (inlined) frames" {
	run prof-fold --event-filter=instructions:u "$FIX/perf-mixed.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "app;leaf 999" ]
	run prof-fold --event-filter=instructions --period-unit "$FIX/perf-mixed.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "[count: instructions] 0
app;leaf 999" ]
	run prof-fold --event-filter=instructions:u --period-unit "$FIX/perf-mixed.txt"
	[ "$output" = "[count: instructions] 0
app;leaf 999" ]
	run --separate-stderr prof-fold --all --inline "$FIX/perf-mixed.txt"
	[ "$output" = "app;main;LFoo:::bar_[j];middle;helper_[i];leaf 250000
app;main;__write;do_syscall_64_[k] 250000" ]
}

@test "Java inlining 'a->b' splits frames and marks the inlined ones" {
	printf 'java 5 1.0: 1 cycles:\n\t1 Lcom/A;.f(I)V->Lcom/B;.g()V (/tmp/perf-5.map)\n\t2 main (/usr/bin/java)\n' > "$TMP/j.txt"
	run prof-fold "$TMP/j.txt"
	[ "$output" = "java;main;com/A:.f;com/B:.g_[i] 1" ]
}

@test "fixed Perl bugs: one-letter commands, C++ templates, single-line stacks, vmlinux-VERSION, .ko, jitted-*.so" {
	run prof-fold --all "$FIX/perl-bugs.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "X;main;std::function<int (int)>::operator() 1
Y;alone 1
sp;fib_[j] 1
swapper;mlx5e_napi_poll_[k];net_rx_action_[k] 1" ]
}

@test "Go method names and anonymous namespaces keep their parentheses" {
	printf 'go 5 1.0: 1 cycles:\n\t1 net/http.(*Client).Do (/bin/go)\n\t2 ns::(anonymous namespace)::f(int) (/bin/go)\n\t3 (skipped) (/bin/go)\n' > "$TMP/go.txt"
	run prof-fold "$TMP/go.txt"
	[ "$output" = "go;ns::(anonymous namespace)::f;net/http.(*Client).Do 1" ]
}

@test "--skip-after drops the callers and the root; --no-comm drops the root" {
	run prof-fold --skip-after=main "$FIX/symbolized.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "kworker/0:1 1
main;burn 10
main;burn;nft_do_chain;pvm_safe_halt_hc 37" ]
	run prof-fold --no-comm "$FIX/symbolized.txt"
	[ "$output" = "[unknown];[libc.so.6];main;burn;nft_do_chain;pvm_safe_halt_hc 37
main;burn 10" ]
}

@test "--filter and --exclude select whole stacks" {
	run prof-fold --filter='^demo;' --exclude='nft_' "$FIX/symbolized.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "demo;main;burn 7" ]
	run prof-fold --filter='^my' --filter='^kworker' "$FIX/symbolized.txt"
	[ "$output" = "kworker/0:1 1
my_worker;main;burn 3" ]
}

@test "--filter reads a stack as long as it is, with nothing after it in memory" {
	# A 4096-byte stack fills the table's first key block to its end, where
	# a regexec() that runs strlen() (a sanitizer's does) would read on.
	stack="main;$(head -c 4091 /dev/zero | tr '\0' f)"
	printf '%s 3\n' "$stack" > "$TMP/long.folded"
	run prof-fold --filter='f$' --exclude='^x' "$TMP/long.folded"
	[ "$status" -eq 0 ]
	[ "$output" = "$stack 3" ]
}

@test "folded inputs merge with counts summed, from files and stdin" {
	run prof-fold "$FIX/folded-a.txt" - < "$FIX/folded-b.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "demo;main;burn 8
demo;main;work 2
demo;main;work;burn 3
other;main 5" ]
	run prof-fold --exclude=work --no-comm "$FIX/folded-a.txt" "$FIX/folded-b.txt"
	[ "$output" = "main 5
main;burn 8" ]
	run prof-fold --skip-after=work "$FIX/folded-a.txt"
	[ "$output" = "demo;main;burn 7
other;main 1
work;burn 3" ]
}

@test "perf script and folded inputs mix; --input forces a format" {
	prof-fold "$FIX/symbolized.txt" > "$TMP/f.txt"
	run prof-fold "$TMP/f.txt" "$FIX/symbolized.txt"
	[ "${lines[0]}" = "demo;[unknown];[libc.so.6];main;burn;nft_do_chain;pvm_safe_halt_hc 74" ]
	run prof-fold --input=folded "$FIX/symbolized.txt"
	[ "$status" -eq 1 ]
	run prof-fold --input=perf "$FIX/folded-a.txt"
	[ "$status" -eq 1 ]
	[ -z "$(prof-fold --input=perf "$FIX/folded-a.txt" 2>/dev/null)" ]
}

@test "output is bytewise sorted and deterministic" {
	prof-fold "$FIX/folded-b.txt" "$FIX/symbolized.txt" "$FIX/folded-a.txt" > "$TMP/a.txt"
	LC_ALL=C sort -c "$TMP/a.txt"
	[ "$(wc -l < "$TMP/a.txt")" -eq 7 ]
	prof-fold "$FIX/folded-a.txt" "$FIX/symbolized.txt" "$FIX/folded-b.txt" > "$TMP/b.txt"
	cmp "$TMP/a.txt" "$TMP/b.txt"
}

@test "-o writes a file; a write error exits non-zero" {
	run prof-fold -o "$TMP/out.txt" "$FIX/folded-a.txt"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(wc -l < "$TMP/out.txt")" -eq 3 ]
	if [ -w /dev/full ]; then
		run prof-fold -o /dev/full "$FIX/folded-a.txt"
		[ "$status" -ne 0 ]
		[[ "$output" == *"write error"* ]]
	fi
}

@test "unreadable inputs exit 2 naming the file" {
	run prof-fold "$TMP/missing.txt"
	[ "$status" -eq 2 ]
	[[ "$output" == "prof-fold: $TMP/missing.txt: No such file or directory" ]]
	run prof-fold "$TMP"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$TMP"*"directory"* ]]
}

@test "unparsable lines: one warning with the first line number, exit 1; --strict exits 2" {
	{ head -3 "$FIX/symbolized.txt"; echo '	garbage one'; echo '	garbage two'; tail -n +4 "$FIX/symbolized.txt"; echo '	garbage three'; } > "$TMP/bad.txt"
	run --separate-stderr prof-fold "$TMP/bad.txt"
	[ "$status" -eq 1 ]
	[ "$stderr" = "prof-fold: $TMP/bad.txt:4: unrecognized frame line; skipped 3 unparsable lines, this is the first" ]
	[ "${lines[0]}" = "demo;[unknown];[libc.so.6];main;burn;nft_do_chain;pvm_safe_halt_hc 37" ]
	run --separate-stderr prof-fold --strict "$TMP/bad.txt"
	[ "$status" -eq 2 ]
	[ "$stderr" = "prof-fold: $TMP/bad.txt:4: unrecognized frame line (--strict)" ]
	[ -z "$output" ]
}

@test "CRLF line ends fold like LF" {
	sed 's/$/\r/' "$FIX/symbolized.txt" > "$TMP/crlf.txt"
	prof-fold "$FIX/symbolized.txt" > "$TMP/lf.out"
	run prof-fold "$TMP/crlf.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$TMP/lf.out")" ]
	sed 's/$/\r/' "$FIX/folded-a.txt" | prof-fold > "$TMP/f.out"
	cmp "$TMP/f.out" "$FIX/folded-a.txt"
}

@test "NUL bytes and invalid UTF-8 pass through without a crash" {
	printf 'a\xff 1 1.0: 3 cycles:\n\t1 f\x00g\xc3( (/x)\n\t2 h\xfe\xfe (/x)\n' > "$TMP/bin.txt"
	prof-fold "$TMP/bin.txt" > "$TMP/bin.out"
	printf 'a\xff;h\xfe\xfe;f\x00g\xc3 3\n' | cmp - "$TMP/bin.out"
	prof-fold --period-unit "$TMP/bin.txt" > "$TMP/bin-unit.out"
	printf '[count: cycles] 0\na\xff;h\xfe\xfe;f\x00g\xc3 3\n' | cmp - "$TMP/bin-unit.out"
}

@test "a 3 MB symbol name folds; a 40 MB line is cut, reported, and memory stays bounded" {
	{ printf 'big 1 1.0: 1 cycles:\n\t1 '; head -c 3000000 /dev/zero | tr '\0' x; printf ' (/x)\n'; } > "$TMP/long.txt"
	run prof-fold "$TMP/long.txt"
	[ "$status" -eq 0 ]
	[ "${#output}" -eq $((3000000 + 6)) ]
	{ printf 'demo 1 1.0: 1 cycles:\n\t1 main (/x)\n\n'; head -c 40000000 /dev/zero | tr '\0' y; printf '\ndemo 1 1.0: 1 cycles:\n\t1 main (/x)\n'; } > "$TMP/huge.txt"
	run --separate-stderr /usr/bin/time -f '%M' prof-fold "$TMP/huge.txt"
	[ "$status" -eq 1 ]
	[ "$output" = "demo;main 2" ]
	[[ "$stderr" == *"huge.txt:4: unrecognized event line; skipped it"* ]]
	rss_kb=$(echo "$stderr" | tail -1)
	[ "$rss_kb" -lt 150000 ]
}

@test "a frame that would expand past 64 MiB is skipped with a warning" {
	{ printf 'a 1 1.0: 1 cycles:\n\t1 main (/x)\n\t1 '; for i in $(seq 2000); do printf '[unknown]->'; done; printf ' ('; head -c 100000 /dev/zero | tr '\0' m; printf ')\n'; } > "$TMP/arrows.txt"
	run --separate-stderr prof-fold "$TMP/arrows.txt"
	[ "$status" -eq 1 ]
	[ "$output" = "a;main 1" ]
	[[ "$stderr" == *"arrows.txt:3: frame name too long once expanded; skipped it" ]]
}

@test "whitespace-only lines end a sample; empty input gives empty output" {
	printf 'a 1 1.0: 1 cycles:\n\t1 f (/x)\n  \t\na 1 1.0: 1 cycles:\n\t1 g (/x)\n' > "$TMP/ws.txt"
	run prof-fold "$TMP/ws.txt"
	[ "$output" = "a;f 1
a;g 1" ]
	run prof-fold < /dev/null
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "a frame line before any event line is reported, not folded" {
	printf '\t1 orphan (/x)\n\na 1 1.0: 2 cycles:\n\t1 f (/x)\n' > "$TMP/orphan.txt"
	run --separate-stderr prof-fold --input=perf "$TMP/orphan.txt"
	[ "$status" -eq 1 ]
	[ "$output" = "a;f 2" ]
	[[ "$stderr" == *"orphan.txt:1: frame line outside a sample"* ]]
}

@test "perf script -F+srcline lines are skipped, or appended with --context" {
	printf 'a 1 1.0: 1 cycles:\n\t1 f+0x1 (/x)\n  /src/f.c:12\n\t2 main (/x)\n  /src/main.c:3\n' > "$TMP/src.txt"
	run prof-fold "$TMP/src.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "a;main;f 1" ]
	run prof-fold --context "$TMP/src.txt"
	[ "$output" = "a;main:main.c:3;f:f.c:12 1" ]
}

@test "perf script -F without dso or symbol: frames still fold; srcline without a file is skipped" {
	printf 'chain 32689 \n\tffffffff8225fd19 pvm_irq_enable\n\t    55d0c1a2b3c4 main\n\nchain 32689/32689 \n\tffffffff8225fd19\n\n' > "$TMP/f.txt"
	run prof-fold --addrs "$TMP/f.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "chain;[unknown <ffffffff8225fd19>] 1
chain;main;pvm_irq_enable 1" ]
	printf 'a 1 1.0: 1 cycles:\n\tffff f (/x)\n  [kernel.kallsyms][ffff]\n\t1 main (/x)\n  ??:0\n' > "$TMP/s.txt"
	run prof-fold --context "$TMP/s.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "a;main;f 1" ]
}

@test "frames that differ only by address fold alike, and apart with --addrs" {
	printf 'a 1 1.0: 1 cycles:\n\t10 [unknown] (/x/lib.so)\n\na 1 1.0: 1 cycles:\n\t20 [unknown] (/x/lib.so)\n\na 1 1.0: 1 cycles:\n\t30 f (/x)\n\na 1 1.0: 1 cycles:\n\t4g f (/x)\n' > "$TMP/addr.txt"
	run prof-fold "$TMP/addr.txt"
	[ "$output" = "a;[lib.so] 2
a;f 2" ]
	run prof-fold --addrs "$TMP/addr.txt"
	[ "$output" = "a;[lib.so <10>] 1
a;[lib.so <20>] 1
a;f 2" ]
}

@test "--inline reads perf's and prof-symbolize's (inlined) mark on a srcline line" {
	# With --lines / -F+srcline the mark ends the FILE:LINE line that
	# follows the frame, not the frame line itself.
	run prof-fold --inline "$BATS_TEST_DIRNAME/fixtures/fold/inline-srcline.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "demo;burn;sum_squares_[i] 3" ]
	run prof-fold "$BATS_TEST_DIRNAME/fixtures/fold/inline-srcline.txt"
	[ "$output" = "demo;burn;sum_squares 3" ]
	run prof-fold --inline --context "$BATS_TEST_DIRNAME/fixtures/fold/inline-srcline.txt"
	[ "$output" = "demo;burn:demo.c:40;sum_squares_[i]:math.h:12 3" ]
}

@test "unresolved code of a known file folds as [FILE], apart from the process name; --addrs keeps its offset" {
	# prof-symbolize's form for code of a file with no symbol there.
	printf 'xz 9/9 1.0: 1 cpu-clock:\n\t    5601 [xz]+0x1a40 (/usr/bin/xz)\n\t    5602 [xz]+0x1b00 (/usr/bin/xz)\n\t    7f00 lzma_code+0x10 (/usr/lib/liblzma.so.5)\n\nxz 9/9 1.1: 2 cpu-clock:\n\t    5603 [xz]+0x1a80 (/usr/bin/xz)\n\t    5602 [xz]+0x1b00 (/usr/bin/xz)\n\t    7f00 lzma_code+0x10 (/usr/lib/liblzma.so.5)\n\n' > "$TMP/u.txt"
	run prof-fold "$TMP/u.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "xz;lzma_code;[xz];[xz] 3" ]
	run prof-fold --addrs --period-unit "$TMP/u.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "[count: nanoseconds] 0
xz;lzma_code;[xz+0x1b00];[xz+0x1a40] 1
xz;lzma_code;[xz+0x1b00];[xz+0x1a80] 2" ]
}

@test "a file deleted while it ran is one module: no offsets or spaces left in the frames" {
	printf 'app 7/7 1.0: 1 cpu-clock:\n\t    5601 leaf_a+0x1c (/tmp/x/app (deleted))\n\t    5602 main+0x83 (/tmp/x/app (deleted))\n\napp 7/7 1.1: 1 cpu-clock:\n\t    5603 leaf_a+0x20 (/tmp/x/app (deleted))\n\t    5602 main+0x83 (/tmp/x/app (deleted))\n\t    5604 [unknown] (/tmp/x/app (deleted))\n\n' > "$TMP/d.txt"
	run prof-fold "$TMP/d.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "app;[app];main;leaf_a 1
app;main;leaf_a 1" ]
}

@test "perf script periods: no unit line by default, as stackcollapse-perf.pl; --period-unit says it first as '[count: UNIT] 0'" {
	local f unit
	for f in system-g:nanoseconds events:page-faults header:page-faults jit-node:nanoseconds \
		dwarf-inline:nanoseconds fields-all:nanoseconds; do
		unit=${f#*:} f="$BATS_TEST_DIRNAME/fixtures/perf/${f%:*}.txt"
		echo "# $f"
		prof-fold "$f" > "$TMP/plain" 2>/dev/null
		prof-fold --period-unit "$f" > "$TMP/unit" 2>/dev/null
		# Without it: stacks only, no unit line of either form.
		[ -s "$TMP/plain" ]
		run ! grep -qE '^(#|\[count: )' "$TMP/plain"
		# With it: the unit line, then the very same bytes.
		[ "$(head -1 "$TMP/unit")" = "[count: $unit] 0" ]
		tail -n +2 "$TMP/unit" | cmp - "$TMP/plain"
	done
	# cpu-clock periods are nanoseconds, others the event's name, as the
	# perf-mixed fixture's cycles and instructions (in fold.bats above).
	grep -q ' cpu-clock' "$BATS_TEST_DIRNAME/fixtures/perf/system-g.txt"
	grep -q ' page-faults' "$BATS_TEST_DIRNAME/fixtures/perf/events.txt"
	printf 'a 1 1.0: 7000 task-clock:\n\t1 f (/x)\n' | prof-fold --period-unit > "$TMP/task"
	[ "$(cat "$TMP/task")" = "[count: nanoseconds] 0
a;f 7000" ]
	printf 'a 1 1.0: 7000 task-clock:\n\t1 f (/x)\n' | prof-fold > "$TMP/task"
	[ "$(cat "$TMP/task")" = "a;f 7000" ]
}

@test "counts in a declared unit are said in a first line, '[count: UNIT] 0'; samples are not" {
	# prof-symbolize's counts are samples; so are periods of 1, even with
	# --period-unit.
	run prof-fold --period-unit "$FIX/symbolized.txt"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "demo;[unknown];[libc.so.6];main;burn;nft_do_chain;pvm_safe_halt_hc 37" ]
	printf 'a 1 1.0: 1 cycles:\n\t1 f (/x)\n' | prof-fold --period-unit > "$TMP/one"
	[ "$(cat "$TMP/one")" = "a;f 1" ]
	# Folded input keeps it, with or without --period-unit; the comment
	# of earlier versions is read and written in the new form.
	prof-fold --period-unit "$BATS_TEST_DIRNAME/fixtures/perf/system-g.txt" > "$TMP/ns.folded"
	run prof-fold "$TMP/ns.folded"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "[count: nanoseconds] 0" ]
	[ "${#lines[@]}" -ge 30 ]
	cmp <(printf '%s\n' "$output") "$TMP/ns.folded"
	sed '1s/.*/# count: nanoseconds/' "$TMP/ns.folded" > "$TMP/old.folded"
	prof-fold "$TMP/old.folded" | cmp - "$TMP/ns.folded"
	# The unit line is not a stack: --filter, --exclude and --skip-after
	# leave it alone, and a stack that merely looks like it is kept.
	run prof-fold --exclude=. "$TMP/ns.folded"
	[ "$output" = "[count: nanoseconds] 0" ]
	printf '[count: nanoseconds] 5\n[count: two words] 0\na;[count: ns] 0\n' > "$TMP/like.folded"
	run prof-fold "$TMP/like.folded"
	[ "$status" -eq 0 ]
	[ "$output" = "[count: nanoseconds] 5
[count: two words] 0
a;[count: ns] 0" ]
	# Inputs in two units are said and lose it, with or without
	# --period-unit: samples are not nanoseconds, nor are cycles.
	for opt in "" --period-unit; do
		run --separate-stderr prof-fold $opt "$TMP/ns.folded" "$FIX/symbolized.txt"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "capture.sh;__GI___execve;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_execve;do_execveat_common.isra.0;bprm_execve;load_elf_binary;begin_new_exec;__mmput;exit_mmap 20408163" ]
		[ "$stderr" = "prof-fold: the inputs count in different units (nanoseconds and samples): their counts are summed as they are" ]
		run --separate-stderr prof-fold $opt "$TMP/ns.folded" "$FIX/perf-mixed.txt"
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" != "["* ]]
		[[ "$stderr" == *"prof-fold: the inputs count in different units (nanoseconds and cycles): their counts are summed as they are" ]]
	done
	# perf's cpu-clock periods are nanoseconds too: the unit stays.
	run --separate-stderr prof-fold "$TMP/ns.folded" "$BATS_TEST_DIRNAME/fixtures/perf/jit-node.txt"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[0]}" = "[count: nanoseconds] 0" ]
	# prof-svg names the count by it: nanoseconds are shown as times.
	prof-svg -o "$TMP/ns.svg" "$TMP/ns.folded"
	grep -qE '<title>all \([0-9.]+ (ns|us|ms|s), 100.00%\)</title>' "$TMP/ns.svg"
	run ! grep -qF 'count: nanoseconds' "$TMP/ns.svg"
	prof-svg --countname=ticks -o "$TMP/t.svg" "$TMP/ns.folded"
	grep -qE '<title>all \([0-9,]+ ticks, 100.00%\)</title>' "$TMP/t.svg"
}
