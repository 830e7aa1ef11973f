#!/usr/bin/env bats
# prof-fold on off-CPU, wall and wake-up frames (docs/FORMATS.md sections 2
# and 3): the "# count:" unit of the frames header, said first in the
# output as "[count: nanoseconds] 0" (with or without --period-unit), the
# [off-cpu] marker,
# offwaketime's layout of wakers, and perf record --off-cpu's offcpu-time
# samples.  The fixtures in fixtures/fold-offcpu were written by hand from
# FORMATS.md; expected/INPUT-OPTIONS.folded is what the contract says they
# fold to.

bats_require_minimum_version 1.5.0

load fixtures/fold/folds

FIX="$BATS_TEST_DIRNAME/fixtures/fold-offcpu"

setup() {
	TMP="$BATS_TEST_TMPDIR"
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
	[ "$output" = "[count: nanoseconds] 0
a;f;[off-cpu] 500
a;g 10" ]
	[ "$stderr" = "prof-fold: folded only the first event seen, 'offcpu-time'; skipped 1 sample of other events such as 'task-clock' (see --event-filter)" ]
	# cycles are not nanoseconds: off-CPU time is left out of their graph,
	# whose periods are unsaid as stackcollapse-perf.pl's unless asked.
	printf 'a 1/1 1.0: 300 cycles:\n\t1 g (/x)\n\na 1/1 1.0: 500 offcpu-time:\n\t1 f (/x)\n\n' > "$TMP/cycles.txt"
	run --separate-stderr prof-fold "$TMP/cycles.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "a;g 300" ]
	[[ "$stderr" == *"'cycles'; skipped 1 sample of other events such as 'offcpu-time'"* ]]
	run --separate-stderr prof-fold --period-unit "$TMP/cycles.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "[count: cycles] 0
a;g 300" ]
	[[ "$stderr" == *"'cycles'; skipped 1 sample of other events such as 'offcpu-time'"* ]]
}

@test "wakeups: offwaketime's layout, a chain of two wakers, each waker frame _[w] alone" {
	folds wakeups-none wakeups.txt
	folds wakeups-all-inline-tid --all --inline --tid wakeups.txt
	# FORMATS.md's example line.
	grep -qxF 'app;main;read;schedule;[off-cpu];--;try_to_wake_up_[w];pipe_write_[w];main_[w];writer_[w] 52000' \
		"$FIX/expected/wakeups-none.folded"
}

@test "wakeups: --skip-after cuts a waker's callers and its name, and the blocked stack's root" {
	folds wakeups-skip --skip-after=futex_wake --skip-after=read wakeups.txt
}

@test "wakeups with source lines: skipped, or appended to waker frames by --context" {
	folds wakeups-none wakeups-lines.txt
	folds wakeups-all-inline-tid --all --inline --tid wakeups-lines.txt
	folds wakeups-lines-inline-context --inline --context wakeups-lines.txt
}

@test "perf record --off-cpu: offcpu-time samples are marked, in nanoseconds, with the cpu-clock ones" {
	folds perf-offcpu-none perf-offcpu.txt
	folds perf-offcpu-offcpu-time --event-filter=offcpu-time perf-offcpu.txt
	folds perf-offcpu-offcpu-time --event-filter=offcpu-time --input=perf perf-offcpu.txt
	# Time blocked says its unit without --period-unit; with it, the same.
	folds perf-offcpu-none --period-unit perf-offcpu.txt
	head -1 "$FIX/expected/perf-offcpu-none.folded" | grep -qxF '[count: nanoseconds] 0'
	# Its cpu-clock samples alone are periods as perf's, unsaid unless asked.
	run --separate-stderr prof-fold --event-filter=cpu-clock "$FIX/perf-offcpu.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "pool_worker;__clone3;start_thread;worker_main;compress_block 30303030" ]
	run --separate-stderr prof-fold --event-filter=cpu-clock --period-unit "$FIX/perf-offcpu.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "[count: nanoseconds] 0
pool_worker;__clone3;start_thread;worker_main;compress_block 30303030" ]
}

@test "the unit is the comment right after the frames header; without one, counts are samples" {
	sed 2d "$FIX/offcpu.txt" > "$TMP/nounit.txt"
	run --separate-stderr prof-fold "$TMP/nounit.txt"
	[ "$status" -eq 0 ]
	diff -u <(sed 1d "$FIX/expected/offcpu-none.folded") <(printf '%s\n' "$output")
	# Elsewhere, "# count:" is a comment like any other.
	sed '2d; 4i # count: nanoseconds' "$FIX/offcpu.txt" > "$TMP/late.txt"
	run prof-fold "$TMP/late.txt"
	[ "$status" -eq 0 ]
	diff -u <(sed 1d "$FIX/expected/offcpu-none.folded") <(printf '%s\n' "$output")
}

@test "inputs in nanoseconds merge, frames and perf alike; samples and nanoseconds are said to differ" {
	run --separate-stderr prof-fold "$FIX/wall.txt" "$FIX/perf-offcpu.txt" "$FIX/offcpu.txt"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	diff -u <(echo "[count: nanoseconds] 0"
		  sed -s 1d "$FIX"/expected/{wall,perf-offcpu,offcpu}-none.folded | LC_ALL=C sort) \
		<(printf '%s\n' "$output")
	run --separate-stderr prof-fold "$FIX/wall.txt" "$BATS_TEST_DIRNAME/fixtures/fold/symbolized.txt"
	[ "$status" -eq 0 ]
	[ "$stderr" = "prof-fold: the inputs count in different units (nanoseconds and samples): their counts are summed as they are" ]
	[[ "${lines[0]}" != "["* ]]
	[ "${lines[0]}" = "demo;[unknown];[libc.so.6];main;burn;nft_do_chain;pvm_safe_halt_hc 37" ]
	[ "${lines[1]}" = "demo;main;burn 50000007" ]
	# Folded in nanoseconds, in the line of earlier versions or this one's.
	prof-fold "$FIX/offcpu.txt" > "$TMP/new.folded"
	sed '1s/.*/# count: nanoseconds/' "$TMP/new.folded" > "$TMP/old.folded"
	run --separate-stderr prof-fold "$TMP/old.folded" "$FIX/wall.txt"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	diff -u <(echo "[count: nanoseconds] 0"
		  sed -s 1d "$FIX"/expected/{offcpu,wall}-none.folded | LC_ALL=C sort) \
		<(printf '%s\n' "$output")
}

@test "folded off-CPU and wakeup stacks fold again unchanged" {
	for f in offcpu wall wakeups; do
		prof-fold --all --tid "$FIX/$f.txt" > "$TMP/$f.folded"
		prof-fold "$TMP/$f.folded" | cmp - "$TMP/$f.folded"
	done
}

# A blocked sample whose waker line is $1, at line 6, then a good one.
bad_waker() {
	printf '# prof-symbolize frames v1\n# count: nanoseconds\napp 500/500 0.500000: 52000 offcpu-time:\n'
	printf '\tffffffff82266833 schedule+0x23 ([kernel.kallsyms])\n\t    55d0c1a2b300 main+0x50 (/usr/bin/app)\n'
	printf '\t%s\n' "$1"
	printf '\t    55d0c1a2c100 main+0x28 (/usr/bin/writer)\n\t-- woken by swapper/0 0/0\n'
	printf '\tffffffff81430c00 hrtimer_wakeup+0x20 ([kernel.kallsyms])\n\n'
	printf 'app 500/500 1.000000: 1000 offcpu-time:\n\tffffffff82266833 schedule+0x23 ([kernel.kallsyms])\n'
}

@test "a malformed waker line: said with its position, exit 1; the sample keeps what came before it" {
	local line
	for line in '-- woken by' '-- woken by ' '-- woken by writer' '-- woken by 600/600' \
		'-- woken by writer 600' '-- woken by writer 600/' '-- woken by writer /600' \
		'-- woken by writer 6x0/600' '-- woken by writer 600/600/1' '-- woken bywriter 600/600' \
		'-- woken by writer 600/600 x'; do
		echo "# $line"
		bad_waker "$line" > "$TMP/bad.txt"
		run --separate-stderr prof-fold "$TMP/bad.txt"
		[ "$status" -eq 1 ]
		[ "$stderr" = "prof-fold: $TMP/bad.txt:6: malformed waker line; skipped it" ]
		[ "$output" = "[count: nanoseconds] 0
app;main;schedule;[off-cpu] 52000
app;schedule;[off-cpu] 1000" ]
	done
}

@test "a malformed waker line after a good one: the first waker is kept, the rest of the chain dropped" {
	bad_waker '-- woken by writer 600/600' | sed '8s/.*/\t-- woken by 0\/0/' > "$TMP/bad.txt"
	run --separate-stderr prof-fold --tid "$TMP/bad.txt"
	[ "$status" -eq 1 ]
	[ "$stderr" = "prof-fold: $TMP/bad.txt:8: malformed waker line; skipped it" ]
	[ "$output" = "[count: nanoseconds] 0
app-500/500;main;schedule;[off-cpu];--;main_[w];writer-600/600_[w] 52000
app-500/500;schedule;[off-cpu] 1000" ]
}

@test "malformed waker lines: the first is named and all counted; --strict stops at it, exit 2" {
	bad_waker '-- woken by writer' | sed '8s/.*/\t-- woken by nobody/' > "$TMP/bad.txt"
	run --separate-stderr prof-fold "$TMP/bad.txt"
	[ "$status" -eq 1 ]
	[ "$stderr" = "prof-fold: $TMP/bad.txt:6: malformed waker line; skipped 2 unparsable lines, this is the first" ]
	run --separate-stderr prof-fold --strict "$TMP/bad.txt"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "prof-fold: $TMP/bad.txt:6: malformed waker line (--strict)" ]
}

@test "a waker line outside a sample is said as such" {
	printf '# prof-symbolize frames v1\n\t-- woken by writer 600/600\napp 1/1 1.0: 5 offcpu-time:\n\t1 f (/x)\n' > "$TMP/out.txt"
	run --separate-stderr prof-fold "$TMP/out.txt"
	[ "$status" -eq 1 ]
	[ "$stderr" = "prof-fold: $TMP/out.txt:2: waker line outside a sample; skipped it" ]
	[ "$output" = "app;f;[off-cpu] 5" ]
}
