#!/usr/bin/env bats
# prof-fold against the reference corpus: byte-exact with
# stackcollapse-perf.pl (FlameGraph's expected outputs: 13 perf script
# captures times 6 options, and inferno's example-perf-stacks), and with
# inferno where inferno fixed a plain bug of the Perl tool.  The corpus is
# read in place; without it every case is reported as skipped.  Like the
# Perl tool, prof-fold says nothing of the unit of the periods it sums, so
# its whole output is compared; the "[count: UNIT] 0" line that
# --period-unit adds before it is checked at the end.

bats_require_minimum_version 1.5.0

FG="${PROF_CORPUS:-}/flamegraph"
INF="${PROF_CORPUS:-}/inferno/collapse-perf"

# flamegraph_case INPUT OPTION: folds inputs/INPUT.txt with --OPTION and
# compares it with expected/INPUT-collapsed-OPTION.txt.
flamegraph_case() {
	local in="$FG/inputs/$1.txt" exp="$FG/expected/$1-collapsed-$2.txt"
	[ -f "$in" ] && [ -f "$exp" ] || skip "corpus not found"
	prof-fold "--$2" "$in" > "$BATS_TEST_TMPDIR/out.txt"
	diff -u "$exp" "$BATS_TEST_TMPDIR/out.txt" | head -20
	cmp -s "$exp" "$BATS_TEST_TMPDIR/out.txt"
	[ -s "$exp" ]
}

# inferno_case INPUT [OPTION]: folds INPUT.txt and compares it with
# results/INPUT-collapsed[-OPTION].txt.
inferno_case() {
	local in="$INF/$1.txt" exp="$INF/results/$1-collapsed${2:+-$2}.txt"
	[ -f "$in" ] && [ -f "$exp" ] || skip "corpus not found"
	prof-fold ${2:+--$2} "$in" > "$BATS_TEST_TMPDIR/out.txt"
	diff -u "$exp" "$BATS_TEST_TMPDIR/out.txt" | head -20
	cmp -s "$exp" "$BATS_TEST_TMPDIR/out.txt"
}

@test "example-perf-stacks (gzip) default folding, as inferno's expected output" {
	local gz="$FG/example-perf-stacks.txt.gz" exp="$INF/results/example-perf-stacks-collapsed.txt"
	[ -f "$gz" ] && [ -f "$exp" ] || skip "corpus not found"
	zcat "$gz" | prof-fold > "$BATS_TEST_TMPDIR/out.txt"
	diff -u "$exp" "$BATS_TEST_TMPDIR/out.txt" | head -20
	cmp -s "$exp" "$BATS_TEST_TMPDIR/out.txt"
	[ "$(wc -l < "$exp")" -eq 710 ]
}

@test "flamegraph perf-cycles-instructions-01 --pid" { flamegraph_case perf-cycles-instructions-01 pid; }
@test "flamegraph perf-cycles-instructions-01 --tid" { flamegraph_case perf-cycles-instructions-01 tid; }
@test "flamegraph perf-cycles-instructions-01 --kernel" { flamegraph_case perf-cycles-instructions-01 kernel; }
@test "flamegraph perf-cycles-instructions-01 --jit" { flamegraph_case perf-cycles-instructions-01 jit; }
@test "flamegraph perf-cycles-instructions-01 --all" { flamegraph_case perf-cycles-instructions-01 all; }
@test "flamegraph perf-cycles-instructions-01 --addrs" { flamegraph_case perf-cycles-instructions-01 addrs; }
@test "flamegraph perf-dd-stacks-01 --pid" { flamegraph_case perf-dd-stacks-01 pid; }
@test "flamegraph perf-dd-stacks-01 --tid" { flamegraph_case perf-dd-stacks-01 tid; }
@test "flamegraph perf-dd-stacks-01 --kernel" { flamegraph_case perf-dd-stacks-01 kernel; }
@test "flamegraph perf-dd-stacks-01 --jit" { flamegraph_case perf-dd-stacks-01 jit; }
@test "flamegraph perf-dd-stacks-01 --all" { flamegraph_case perf-dd-stacks-01 all; }
@test "flamegraph perf-dd-stacks-01 --addrs" { flamegraph_case perf-dd-stacks-01 addrs; }
@test "flamegraph perf-funcab-cmd-01 --pid" { flamegraph_case perf-funcab-cmd-01 pid; }
@test "flamegraph perf-funcab-cmd-01 --tid" { flamegraph_case perf-funcab-cmd-01 tid; }
@test "flamegraph perf-funcab-cmd-01 --kernel" { flamegraph_case perf-funcab-cmd-01 kernel; }
@test "flamegraph perf-funcab-cmd-01 --jit" { flamegraph_case perf-funcab-cmd-01 jit; }
@test "flamegraph perf-funcab-cmd-01 --all" { flamegraph_case perf-funcab-cmd-01 all; }
@test "flamegraph perf-funcab-cmd-01 --addrs" { flamegraph_case perf-funcab-cmd-01 addrs; }
@test "flamegraph perf-funcab-pid-01 --pid" { flamegraph_case perf-funcab-pid-01 pid; }
@test "flamegraph perf-funcab-pid-01 --tid" { flamegraph_case perf-funcab-pid-01 tid; }
@test "flamegraph perf-funcab-pid-01 --kernel" { flamegraph_case perf-funcab-pid-01 kernel; }
@test "flamegraph perf-funcab-pid-01 --jit" { flamegraph_case perf-funcab-pid-01 jit; }
@test "flamegraph perf-funcab-pid-01 --all" { flamegraph_case perf-funcab-pid-01 all; }
@test "flamegraph perf-funcab-pid-01 --addrs" { flamegraph_case perf-funcab-pid-01 addrs; }
@test "flamegraph perf-iperf-stacks-pidtid-01 --pid" { flamegraph_case perf-iperf-stacks-pidtid-01 pid; }
@test "flamegraph perf-iperf-stacks-pidtid-01 --tid" { flamegraph_case perf-iperf-stacks-pidtid-01 tid; }
@test "flamegraph perf-iperf-stacks-pidtid-01 --kernel" { flamegraph_case perf-iperf-stacks-pidtid-01 kernel; }
@test "flamegraph perf-iperf-stacks-pidtid-01 --jit" { flamegraph_case perf-iperf-stacks-pidtid-01 jit; }
@test "flamegraph perf-iperf-stacks-pidtid-01 --all" { flamegraph_case perf-iperf-stacks-pidtid-01 all; }
@test "flamegraph perf-iperf-stacks-pidtid-01 --addrs" { flamegraph_case perf-iperf-stacks-pidtid-01 addrs; }
@test "flamegraph perf-java-faults-01 --pid" { flamegraph_case perf-java-faults-01 pid; }
@test "flamegraph perf-java-faults-01 --tid" { flamegraph_case perf-java-faults-01 tid; }
@test "flamegraph perf-java-faults-01 --kernel" { flamegraph_case perf-java-faults-01 kernel; }
@test "flamegraph perf-java-faults-01 --jit" { flamegraph_case perf-java-faults-01 jit; }
@test "flamegraph perf-java-faults-01 --all" { flamegraph_case perf-java-faults-01 all; }
@test "flamegraph perf-java-faults-01 --addrs" { flamegraph_case perf-java-faults-01 addrs; }
@test "flamegraph perf-java-stacks-01 --pid" { flamegraph_case perf-java-stacks-01 pid; }
@test "flamegraph perf-java-stacks-01 --tid" { flamegraph_case perf-java-stacks-01 tid; }
@test "flamegraph perf-java-stacks-01 --kernel" { flamegraph_case perf-java-stacks-01 kernel; }
@test "flamegraph perf-java-stacks-01 --jit" { flamegraph_case perf-java-stacks-01 jit; }
@test "flamegraph perf-java-stacks-01 --all" { flamegraph_case perf-java-stacks-01 all; }
@test "flamegraph perf-java-stacks-01 --addrs" { flamegraph_case perf-java-stacks-01 addrs; }
@test "flamegraph perf-java-stacks-02 --pid" { flamegraph_case perf-java-stacks-02 pid; }
@test "flamegraph perf-java-stacks-02 --tid" { flamegraph_case perf-java-stacks-02 tid; }
@test "flamegraph perf-java-stacks-02 --kernel" { flamegraph_case perf-java-stacks-02 kernel; }
@test "flamegraph perf-java-stacks-02 --jit" { flamegraph_case perf-java-stacks-02 jit; }
@test "flamegraph perf-java-stacks-02 --all" { flamegraph_case perf-java-stacks-02 all; }
@test "flamegraph perf-java-stacks-02 --addrs" { flamegraph_case perf-java-stacks-02 addrs; }
@test "flamegraph perf-js-stacks-01 --pid" { flamegraph_case perf-js-stacks-01 pid; }
@test "flamegraph perf-js-stacks-01 --tid" { flamegraph_case perf-js-stacks-01 tid; }
@test "flamegraph perf-js-stacks-01 --kernel" { flamegraph_case perf-js-stacks-01 kernel; }
@test "flamegraph perf-js-stacks-01 --jit" { flamegraph_case perf-js-stacks-01 jit; }
@test "flamegraph perf-js-stacks-01 --all" { flamegraph_case perf-js-stacks-01 all; }
@test "flamegraph perf-js-stacks-01 --addrs" { flamegraph_case perf-js-stacks-01 addrs; }
@test "flamegraph perf-mirageos-stacks-01 --pid" { flamegraph_case perf-mirageos-stacks-01 pid; }
@test "flamegraph perf-mirageos-stacks-01 --tid" { flamegraph_case perf-mirageos-stacks-01 tid; }
@test "flamegraph perf-mirageos-stacks-01 --kernel" { flamegraph_case perf-mirageos-stacks-01 kernel; }
@test "flamegraph perf-mirageos-stacks-01 --jit" { flamegraph_case perf-mirageos-stacks-01 jit; }
@test "flamegraph perf-mirageos-stacks-01 --all" { flamegraph_case perf-mirageos-stacks-01 all; }
@test "flamegraph perf-mirageos-stacks-01 --addrs" { flamegraph_case perf-mirageos-stacks-01 addrs; }
@test "flamegraph perf-numa-stacks-01 --pid" { flamegraph_case perf-numa-stacks-01 pid; }
@test "flamegraph perf-numa-stacks-01 --tid" { flamegraph_case perf-numa-stacks-01 tid; }
@test "flamegraph perf-numa-stacks-01 --kernel" { flamegraph_case perf-numa-stacks-01 kernel; }
@test "flamegraph perf-numa-stacks-01 --jit" { flamegraph_case perf-numa-stacks-01 jit; }
@test "flamegraph perf-numa-stacks-01 --all" { flamegraph_case perf-numa-stacks-01 all; }
@test "flamegraph perf-numa-stacks-01 --addrs" { flamegraph_case perf-numa-stacks-01 addrs; }
@test "flamegraph perf-rust-Yamakaky-dcpu --pid" { flamegraph_case perf-rust-Yamakaky-dcpu pid; }
@test "flamegraph perf-rust-Yamakaky-dcpu --tid" { flamegraph_case perf-rust-Yamakaky-dcpu tid; }
@test "flamegraph perf-rust-Yamakaky-dcpu --kernel" { flamegraph_case perf-rust-Yamakaky-dcpu kernel; }
@test "flamegraph perf-rust-Yamakaky-dcpu --jit" { flamegraph_case perf-rust-Yamakaky-dcpu jit; }
@test "flamegraph perf-rust-Yamakaky-dcpu --all" { flamegraph_case perf-rust-Yamakaky-dcpu all; }
@test "flamegraph perf-rust-Yamakaky-dcpu --addrs" { flamegraph_case perf-rust-Yamakaky-dcpu addrs; }
@test "flamegraph perf-vertx-stacks-01 --pid" { flamegraph_case perf-vertx-stacks-01 pid; }
@test "flamegraph perf-vertx-stacks-01 --tid" { flamegraph_case perf-vertx-stacks-01 tid; }
@test "flamegraph perf-vertx-stacks-01 --kernel" { flamegraph_case perf-vertx-stacks-01 kernel; }
@test "flamegraph perf-vertx-stacks-01 --jit" { flamegraph_case perf-vertx-stacks-01 jit; }
@test "flamegraph perf-vertx-stacks-01 --all" { flamegraph_case perf-vertx-stacks-01 all; }
@test "flamegraph perf-vertx-stacks-01 --addrs" { flamegraph_case perf-vertx-stacks-01 addrs; }

# inferno's fixes of plain Perl bugs (also covered without the corpus by
# fold.bats, on the project's own fixture).
@test "inferno cpp-stacks-std-function: C++ names with parentheses in templates" { inferno_case cpp-stacks-std-function; }
@test "inferno single-line-stacks: a frame on the event line" { inferno_case single-line-stacks; }
@test "inferno versioned-vmlinux --kernel: vmlinux-VERSION and .ko are kernel" { inferno_case versioned-vmlinux kernel; }
@test "inferno sourcepawn-jitdump --jit: jitted-*.so is JIT code" { inferno_case sourcepawn-jitdump jit; }
@test "inferno go-stacks" { inferno_case go-stacks; }
@test "inferno java-inline" { inferno_case java-inline; }
@test "inferno no-events: empty input, empty output" { inferno_case no-events; }

@test "inferno empty-line: a warning, not a crash" {
	[ -f "$INF/empty-line.txt" ] || skip "corpus not found"
	run --separate-stderr prof-fold "$INF/empty-line.txt"
	[ "$status" -eq 1 ]
	[ "$stderr" = "prof-fold: $INF/empty-line.txt:6: frame line outside a sample; skipped it" ]
	[ "$output" = "inline-counter 250000
inline-counter;main 250000" ]
}

@test "inferno weird-stack-line: a warning, not a crash" {
	[ -f "$INF/weird-stack-line.txt" ] || skip "corpus not found"
	run --separate-stderr prof-fold "$INF/weird-stack-line.txt"
	[ "$status" -eq 1 ]
	[ "$stderr" = "prof-fold: $INF/weird-stack-line.txt:5: unrecognized frame line; skipped it" ]
	[ "$output" = "inline-counter 250000
inline-counter;main 250000" ]
}

@test "every corpus input folds the same from stdin, and folding the output again is the identity" {
	[ -d "$FG/inputs" ] || skip "corpus not found"
	for in in "$FG"/inputs/*.txt; do
		prof-fold --all "$in" > "$BATS_TEST_TMPDIR/a.txt"
		prof-fold --all < "$in" > "$BATS_TEST_TMPDIR/b.txt"
		cmp "$BATS_TEST_TMPDIR/a.txt" "$BATS_TEST_TMPDIR/b.txt" || { echo "stdin differs: $in"; return 1; }
		prof-fold "$BATS_TEST_TMPDIR/a.txt" > "$BATS_TEST_TMPDIR/c.txt"
		cmp "$BATS_TEST_TMPDIR/a.txt" "$BATS_TEST_TMPDIR/c.txt" || { echo "refold differs: $in"; return 1; }
	done
}

@test "the frame-line cache changes nothing: every input folds the same without it" {
	[ -d "$FG/inputs" ] || skip "corpus not found"
	# --skip-after disables the cache; a function no stack has keeps the
	# stacks whole.  Some inputs have lines to skip (exit 1); nothing else
	# may go wrong.
	for in in "$FG"/inputs/*.txt "$INF"/*.txt; do
		for opt in --all --addrs; do
			prof-fold $opt "$in" > "$BATS_TEST_TMPDIR/a.txt" 2>/dev/null || [ $? -eq 1 ]
			prof-fold $opt --skip-after=no-such-function "$in" > "$BATS_TEST_TMPDIR/b.txt" 2>/dev/null || [ $? -eq 1 ]
			cmp "$BATS_TEST_TMPDIR/a.txt" "$BATS_TEST_TMPDIR/b.txt" || { echo "differs: $opt $in"; return 1; }
		done
	done
	zcat "$FG/example-perf-stacks.txt.gz" | prof-fold --tid > "$BATS_TEST_TMPDIR/a.txt"
	zcat "$FG/example-perf-stacks.txt.gz" | prof-fold --tid --skip-after=no-such-function > "$BATS_TEST_TMPDIR/b.txt"
	cmp "$BATS_TEST_TMPDIR/a.txt" "$BATS_TEST_TMPDIR/b.txt"
}

@test "--period-unit adds the unit line and changes nothing else: nanoseconds, page-faults, cycles, or none" {
	[ -d "$FG/inputs" ] || skip "corpus not found"
	local in unit n=0
	for in in "$FG"/inputs/*.txt; do
		case ${in##*/} in
		perf-dd-stacks-01.txt) unit=nanoseconds ;;
		perf-java-faults-01.txt) unit=page-faults ;;
		perf-rust-Yamakaky-dcpu.txt) unit=cycles ;;
		*) unit= ;;
		esac
		prof-fold --all "$in" > "$BATS_TEST_TMPDIR/plain.txt" 2>/dev/null || [ $? -eq 1 ]
		prof-fold --all --period-unit "$in" > "$BATS_TEST_TMPDIR/unit.txt" 2>/dev/null || [ $? -eq 1 ]
		if [ -n "$unit" ]; then
			[ "$(head -1 "$BATS_TEST_TMPDIR/unit.txt")" = "[count: $unit] 0" ] || { echo "no unit line: $in"; return 1; }
			tail -n +2 "$BATS_TEST_TMPDIR/unit.txt" | cmp - "$BATS_TEST_TMPDIR/plain.txt" || { echo "differs: $in"; return 1; }
			n=$((n + 1))
		else
			# Periods of 1, or none: samples, unsaid.
			cmp "$BATS_TEST_TMPDIR/unit.txt" "$BATS_TEST_TMPDIR/plain.txt" || { echo "differs: $in"; return 1; }
		fi
	done
	[ "$n" -eq 3 ]
	run --separate-stderr prof-fold --period-unit "$INF/empty-line.txt"
	[ "$status" -eq 1 ]
	[ "$output" = "[count: nanoseconds] 0
inline-counter 250000
inline-counter;main 250000" ]
}
