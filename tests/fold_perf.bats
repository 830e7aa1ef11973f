#!/usr/bin/env bats
# prof-fold on real perf script output the team captured
# (tests/fixtures/perf/capture.sh tells how): Debian 12's perf 6.1
# recording Debian's programs with -g, --call-graph dwarf, several events,
# perf script -F layouts, --header, --inline with and without -F+srcline,
# and JIT frames of a perf map.  Byte-exact with FlameGraph's
# stackcollapse-perf.pl, whose outputs are in fixtures/perf/expected (made
# once by capture.sh; the external corpus tests stay as an extra): the
# whole output, byte for byte.  With --period-unit, the same bytes follow
# a first line that says the periods' unit, "[count: UNIT] 0".

bats_require_minimum_version 1.5.0

FIX="$BATS_TEST_DIRNAME/fixtures/perf"

# perf_case INPUT EXPECTED OPTION: folds INPUT.txt with --OPTION ("none":
# no option) and compares the whole output with
# expected/EXPECTED-collapsed-OPTION.txt, which must not be empty; then
# again with --period-unit, whose output is the unit line and the same.
# Only a recording of two events has something to say on standard error:
# the samples of the event it did not fold.
perf_case() {
	local exp="$FIX/expected/$2-collapsed-$3.txt" arg="--$3" out="$BATS_TEST_TMPDIR/out.txt"
	local err="$BATS_TEST_TMPDIR/err.txt" status
	[ "$3" = none ] && arg=
	[ "$3" = cpu-clock ] && arg=--event-filter=cpu-clock
	prof-fold $arg "$FIX/$1.txt" > "$out" 2> "$err" && status=0 || status=$?
	[ "$status" -eq 0 ]
	check_stderr "$1:$3" "$(cat "$err")"
	diff -u "$exp" "$out" | head -20
	cmp -s "$exp" "$out"
	[ -s "$exp" ]
	# perf's periods are nanoseconds of cpu-clock, or page faults: said
	# only when asked, in a first line the Perl tool does not write.
	# (perf script -F without period: the counts are samples, unsaid.)
	local unit=nanoseconds
	case $1:$3 in
	events:cpu-clock | header:cpu-clock) ;;
	events:* | header:*) unit=page-faults ;;
	fields-tid:*) unit= ;;
	esac
	prof-fold --period-unit $arg "$FIX/$1.txt" > "$out" 2> "$err" && status=0 || status=$?
	[ "$status" -eq 0 ]
	check_stderr "$1:$3" "$(cat "$err")"
	if [ -n "$unit" ]; then
		[ "$(head -1 "$out")" = "[count: $unit] 0" ]
		tail -n +2 "$out" | cmp - "$exp"
	else
		cmp "$out" "$exp"
	fi
}

# check_stderr INPUT:OPTION STDERR
check_stderr() {
	case $1 in
	events:cpu-clock | header:cpu-clock) [ -z "$2" ] ;;
	events:* | header:*) [[ "$2" == *"folded only the first event seen, 'page-faults'; skipped "*" samples of other events such as 'cpu-clock'"* ]] ;;
	*) [ -z "$2" ] ;;
	esac
}

# each_option INPUT [EXPECTED]: perf_case for every option of the Perl tool.
each_option() {
	local opt
	for opt in none pid tid kernel jit all addrs; do
		echo "# --$opt"
		perf_case "$1" "${2:-$1}" "$opt"
	done
}

@test "perf record -a -g, default perf script: as stackcollapse-perf.pl, every option" {
	each_option system-g
	# Debian's code without frame pointers, and the kernel, are there.
	grep -q '^xz;' "$FIX/expected/system-g-collapsed-none.txt"
	[ "$(wc -l < "$FIX/expected/system-g-collapsed-none.txt")" -ge 30 ]
	grep -q '_\[k\]' "$FIX/expected/system-g-collapsed-kernel.txt"
}

@test "perf script -F comm,tid,time,ip,sym,dso (no pid): every option" {
	each_option fields-tid
}

@test "perf script -F with cpu, period, event and symoff: every option" {
	each_option fields-all
}

@test "two events in one recording: the first by default, the other by --event-filter" {
	each_option events
	perf_case events events cpu-clock
	run ! cmp -s "$FIX/expected/events-collapsed-none.txt" "$FIX/expected/events-collapsed-cpu-clock.txt"
}

@test "perf script --header: the header is skipped, the samples folded" {
	each_option header
	grep -q '^# captured on' "$FIX/header.txt"
}

@test "--call-graph dwarf, perf script --inline: as stackcollapse-perf.pl" {
	each_option dwarf-inline-plain dwarf-inline
	grep -q '^python3.11;' "$FIX/expected/dwarf-inline-collapsed-none.txt"
}

@test "--inline -F+srcline: source lines are not frames, the stacks are those without them" {
	# The Perl tool reads "  libc-start.c:360 (inlined)" as a frame, so
	# its reference is the same recording printed without -F+srcline.
	each_option dwarf-inline dwarf-inline
	grep -q '^  inlines.c:[0-9]* (inlined)$' "$FIX/dwarf-inline.txt"
}

@test "--inline marks the same frames whether perf printed (inlined) on the frame or its source line" {
	prof-fold --inline "$FIX/dwarf-inline-plain.txt" > "$BATS_TEST_TMPDIR/plain"
	prof-fold --inline "$FIX/dwarf-inline.txt" > "$BATS_TEST_TMPDIR/srcline"
	cmp "$BATS_TEST_TMPDIR/plain" "$BATS_TEST_TMPDIR/srcline"
	grep -q '^inlines;__libc_start_call_main;main;work;burn;accumulate_\[i\];square_\[i\] [0-9]*$' "$BATS_TEST_TMPDIR/plain"
	grep -q '^inlines;__libc_start_call_main;main;work;mix;square_\[i\] [0-9]*$' "$BATS_TEST_TMPDIR/plain"
	# Only the inlined frames are marked.
	[ -z "$(grep '^inlines;' "$BATS_TEST_TMPDIR/plain" | grep 'burn_\[i\]\|work_\[i\]\|mix_\[i\]\|main_\[i\]')" ]
}

@test "--context appends each frame's FILE:LINE; without it the stacks add up to --inline's" {
	prof-fold --inline --context "$FIX/dwarf-inline.txt" > "$BATS_TEST_TMPDIR/ctx"
	grep -q ';main:inlines.c:[0-9]*;work:inlines.c:[0-9]*;burn:inlines.c:[0-9]*;accumulate_\[i\]:inlines.c:[0-9]*' "$BATS_TEST_TMPDIR/ctx"
	grep -q ';__libc_start_call_main:libc-start.c:58;' "$BATS_TEST_TMPDIR/ctx"
	# perf's "??:0" adds nothing.
	run ! grep -q '??' "$BATS_TEST_TMPDIR/ctx"
	sed -E 's/:[^:;]+:[0-9]+(;| )/\1/g' "$BATS_TEST_TMPDIR/ctx" |
		awk '{ n = $NF; $NF = ""; sub(/ $/, ""); s[$0] += n } END { for (k in s) print k, s[k] }' |
		LC_ALL=C sort > "$BATS_TEST_TMPDIR/summed"
	prof-fold --inline "$FIX/dwarf-inline.txt" | cmp - "$BATS_TEST_TMPDIR/summed"
}

@test "JIT frames of a perf map (Node.js --perf-basic-prof): every option" {
	each_option jit-node
	grep -q 'JS:.*_\[j\]' "$FIX/expected/jit-node-collapsed-jit.txt"
}
