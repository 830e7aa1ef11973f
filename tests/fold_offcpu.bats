#!/usr/bin/env bats
# prof-fold on off-CPU and wall frames (docs/FORMATS.md sections 2 and 3):
# the "# count:" unit of the frames header, the [off-cpu] marker, and perf
# record --off-cpu's offcpu-time samples.  The fixtures in fixtures/fold-offcpu were written by hand from
# FORMATS.md; expected/INPUT-OPTIONS.folded is what the contract says they
# fold to.

bats_require_minimum_version 1.5.0

FIX="$BATS_TEST_DIRNAME/fixtures/fold-offcpu"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

# folds EXPECTED [OPTION...] INPUT: folds fixture INPUT with the options,
# cleanly (exit 0, nothing on standard error), into expected/EXPECTED.folded.
folds() {
	local exp="$FIX/expected/$1.folded"
	shift
	local args=("$@")
	args[${#args[@]} - 1]="$FIX/${args[${#args[@]} - 1]}"
	run --separate-stderr prof-fold "${args[@]}"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	diff -u "$exp" <(printf '%s\n' "$output")
}

@test "off-CPU frames: nanoseconds said first, [off-cpu] after each blocked leaf, times summed" {
	folds offcpu-none offcpu.txt
}

@test "off-CPU frames: the marker stays the leaf-most frame, unannotated, whatever the options" {
	folds offcpu-all-inline-tid-addrs --all --inline --tid --addrs offcpu.txt
	folds offcpu-nocomm-skip --no-comm --skip-after=do_sys_poll offcpu.txt
	run prof-fold --kernel --filter=';\[off-cpu\]$' "$FIX/offcpu.txt"
	[ "${#lines[@]}" -eq 5 ]
}

@test "wall frames: on- and off-CPU time fold together, in nanoseconds; only blocked time is marked" {
	folds wall-none wall.txt
	folds wall-cpu-clock --event-filter=cpu-clock wall.txt
	folds wall-offcpu-time --event-filter=offcpu-time wall.txt
	# The same when off-CPU time comes first.
	{
		head -2 "$FIX/wall.txt"
		grep -v '^#' "$FIX/wall.txt" | awk -v RS= '/offcpu-time:/ { print; print "" }'
		grep -v '^#' "$FIX/wall.txt" | awk -v RS= '/cpu-clock:/ { print; print "" }'
	} > "$TMP/wall.txt"
	sed -n 3p "$TMP/wall.txt" | grep -q '^demo .* offcpu-time:$'
	run --separate-stderr prof-fold "$TMP/wall.txt"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	diff -u "$FIX/expected/wall-none.folded" <(printf '%s\n' "$output")
}

@test "wall: off-CPU time folds with one clock event only, as any first event would" {
	printf 'a 1/1 1.0: 500 offcpu-time:\n\t1 f (/x)\n\na 1/1 1.0: 10 cpu-clock:\n\t1 g (/x)\n\na 1/1 1.0: 10 task-clock:\n\t1 h (/x)\n\n' > "$TMP/clocks.txt"
	run --separate-stderr prof-fold "$TMP/clocks.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "# count: nanoseconds
a;f;[off-cpu] 500
a;g 10" ]
	[ "$stderr" = "prof-fold: folded only the first event seen, 'offcpu-time'; skipped 1 sample of other events such as 'task-clock' (see --event-filter)" ]
	# cycles are not nanoseconds: off-CPU time is left out of their graph.
	printf 'a 1/1 1.0: 300 cycles:\n\t1 g (/x)\n\na 1/1 1.0: 500 offcpu-time:\n\t1 f (/x)\n\n' > "$TMP/cycles.txt"
	run --separate-stderr prof-fold "$TMP/cycles.txt"
	[ "$output" = "# count: cycles
a;g 300" ]
	[[ "$stderr" == *"'cycles'; skipped 1 sample of other events such as 'offcpu-time'"* ]]
}

@test "perf record --off-cpu: offcpu-time samples are marked, in nanoseconds, with the cpu-clock ones" {
	folds perf-offcpu-none perf-offcpu.txt
	folds perf-offcpu-offcpu-time --event-filter=offcpu-time perf-offcpu.txt
	folds perf-offcpu-offcpu-time --event-filter=offcpu-time --input=perf perf-offcpu.txt
}

@test "the unit is the comment right after the frames header; without one, counts are samples" {
	sed 2d "$FIX/offcpu.txt" > "$TMP/nounit.txt"
	run --separate-stderr prof-fold "$TMP/nounit.txt"
	[ "$status" -eq 0 ]
	diff -u <(sed 1d "$FIX/expected/offcpu-none.folded") <(printf '%s\n' "$output")
	# Elsewhere, "# count:" is a comment like any other.
	sed '2d; 4i # count: nanoseconds' "$FIX/offcpu.txt" > "$TMP/late.txt"
	run prof-fold "$TMP/late.txt"
	[[ "${lines[0]}" != "#"* ]]
}

@test "inputs in nanoseconds merge, frames and perf alike; samples and nanoseconds are said to differ" {
	run --separate-stderr prof-fold "$FIX/wall.txt" "$FIX/perf-offcpu.txt" "$FIX/offcpu.txt"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	diff -u <(echo "# count: nanoseconds"
		  sed -s 1d "$FIX"/expected/{wall,perf-offcpu,offcpu}-none.folded | LC_ALL=C sort) \
		<(printf '%s\n' "$output")
	run --separate-stderr prof-fold "$FIX/wall.txt" "$BATS_TEST_DIRNAME/fixtures/fold/symbolized.txt"
	[ "$status" -eq 0 ]
	[ "$stderr" = "prof-fold: the inputs count in different units (nanoseconds and samples): their counts are summed as they are" ]
	[[ "${lines[0]}" != "#"* ]]
}

@test "folded off-CPU stacks fold again unchanged" {
	for f in offcpu wall; do
		prof-fold --all --tid "$FIX/$f.txt" > "$TMP/$f.folded"
		prof-fold "$TMP/$f.folded" | cmp - "$TMP/$f.folded"
	done
}
