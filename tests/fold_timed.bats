#!/usr/bin/env bats
# prof-fold --timed: timed folded stacks (docs/FORMATS.md section 3), from
# prof-symbolize frames, real perf script output and timed folded stacks;
# checked against the event lines' own times, and against what readers that
# skip the time lines (FlameGraph's) see.

bats_require_minimum_version 1.5.0

CORPUS="${PROF_CORPUS:-$BATS_TEST_DIRNAME/../../shared/corpus}"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

# slots FILE SLOT_NS: "SLOT_START_NS STACK COUNT" for each stack of timed
# folded FILE, the slot's start from its time line, to the nanosecond.
slots() {
	awk '/^\[time: [0-9.]+ [0-9.]+\] 0$/ { split($2, p, "."); t = p[1] "" p[2]; sub(/^0+/, "", t); if (t == "") t = 0; next }
		{ print t, $0 }' "$1"
}

# flamegraph_sum FILE: each stack's summed count as flamegraph.pl reads
# folded lines (/^(.*)\s+?(\d+(?:\.\d*)?)$/), stacks of no count left out.
flamegraph_sum() {
	perl -ne 'my ($s, $n) = /^(.*)\s+?(\d+(?:\.\d*)?)$/ or next; $c{$s} += $n;
		END { print "$_ $c{$_}\n" for sort grep { $c{$_} } keys %c }' "$1"
}

@test "--timed: frames' samples go to the 10 ms slot their event line's time ends, and sum to the untimed fold" {
	cat >"$TMP/frames" <<'E'
# prof-symbolize frames v1
demo 1/1 0.010000: 3 cpu-clock:
	            1000 burn+0x1 (/bin/demo)
	            2000 main+0x1 (/bin/demo)

demo 1/1 0.020000: 2 cpu-clock:
	            1000 burn+0x1 (/bin/demo)
	            2000 main+0x1 (/bin/demo)

demo 1/2 0.020000: 1 cpu-clock:
	            3000 idle+0x1 (/bin/demo)

demo 1/1 1.234567: 4 cpu-clock:
	            1000 burn+0x1 (/bin/demo)
	            2000 main+0x1 (/bin/demo)

E
	run prof-fold --timed "$TMP/frames"
	[ "$status" -eq 0 ]
	[ "$output" = "[time: 0.000000000 0.010000000] 0
demo;main;burn 3
[time: 0.010000000 0.010000000] 0
demo;idle 1
demo;main;burn 2
[time: 1.230000000 0.010000000] 0
demo;main;burn 4" ]
	run prof-fold --timed=1s "$TMP/frames"
	[ "$status" -eq 0 ]
	[ "$output" = "[time: 0.000000000 1.000000000] 0
demo;idle 1
demo;main;burn 5
[time: 1.000000000 1.000000000] 0
demo;main;burn 4" ]
	# Skipping the time lines, FlameGraph's reading is the untimed fold's.
	prof-fold --timed "$TMP/frames" >"$TMP/timed"
	diff <(prof-fold "$TMP/frames" | flamegraph_sum /dev/stdin) <(flamegraph_sum "$TMP/timed")
	diff <(prof-fold "$TMP/frames") <(prof-fold "$TMP/timed")
}

@test "--timed on real perf script output: a time line per 10 ms slot that has samples, each sample in its own" {
	f="$CORPUS/flamegraph/inputs/perf-numa-stacks-01.txt"
	[ -f "$f" ] || skip "corpus not found: $f"
	prof-fold --timed "$f" >"$TMP/timed"
	prof-fold --timed=1ms "$f" >"$TMP/fine"
	# The slots, from the event lines' times by awk: (time - 1 ns) / slot.
	want() {
		awk -v slot="$1" '/^[^#[:space:]]/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
			t = $i; sub(/:$/, "", t); split(t, p, "."); ns = p[1] * 1e9 + p[2] * 1000
			printf "%.0f\n", int((ns - 1) / slot) * slot } }' "$f" | sort -un
	}
	diff <(want 1e7) <(slots "$TMP/timed" | awk '{ print $1 }' | sort -un)
	diff <(want 1e6) <(slots "$TMP/fine" | awk '{ print $1 }' | sort -un)
	[ "$(grep -c '^\[time' "$TMP/fine")" -gt "$(grep -c '^\[time' "$TMP/timed")" ]
	diff <(prof-fold "$f") <(prof-fold "$TMP/timed")
	diff <(prof-fold "$f") <(prof-fold "$TMP/fine")
	diff <(prof-fold "$f" | flamegraph_sum /dev/stdin) <(flamegraph_sum "$TMP/fine")
	# Time lines are in order of time, and each slot's stacks sorted.
	awk '/^\[time/ { if ($2 + 0 <= last) { print "out of order: " $0; exit 1 } last = $2 + 0 }' "$TMP/timed"
}

@test "--timed spreads time blocked over the slots the block covered" {
	cat >"$TMP/frames" <<'E'
# prof-symbolize frames v1
# count: nanoseconds
app 5/5 0.030000: 25000000 offcpu-time:
	ffffffff81000000 schedule+0x1 ([kernel.kallsyms])
	            1000 wait+0x1 (/bin/app)

app 5/6 0.030000: 2000 offcpu-time:
	ffffffff81000000 schedule+0x1 ([kernel.kallsyms])

app 5/7 0.005000: 7000000 offcpu-time:
	ffffffff81000000 schedule+0x1 ([kernel.kallsyms])

E
	run prof-fold --timed "$TMP/frames"
	[ "$status" -eq 0 ]
	# 25 ms ending at 30 ms: 5 ms in the first slot, 10 in each after; a
	# block longer than the time before it keeps the rest in the first.
	[ "$output" = "[count: nanoseconds] 0
[time: 0.000000000 0.010000000] 0
app;schedule;[off-cpu] 7000000
app;wait;schedule;[off-cpu] 5000000
[time: 0.010000000 0.010000000] 0
app;wait;schedule;[off-cpu] 10000000
[time: 0.020000000 0.010000000] 0
app;schedule;[off-cpu] 2000
app;wait;schedule;[off-cpu] 10000000" ]
	# "# blocks N": two blocks of 10 ms that ended at 30 ms, not one of 20.
	printf '# prof-symbolize frames v1\n# count: nanoseconds\n# blocks 2\napp 5/5 0.030000: 20000000 offcpu-time:\n\tffffffff81000000 schedule+0x1 ([kernel.kallsyms])\n\napp 5/5 0.030000: 3000000 offcpu-time:\n\tffffffff81000000 schedule+0x1 ([kernel.kallsyms])\n\n' >"$TMP/two"
	run prof-fold --timed "$TMP/two"
	[ "$status" -eq 0 ]
	[ "$output" = "[count: nanoseconds] 0
[time: 0.020000000 0.010000000] 0
app;schedule;[off-cpu] 23000000" ]
	# stackcollapse-perf.pl's reading, and the untimed fold, skip it.
	run prof-fold "$TMP/two"
	[ "$output" = "[count: nanoseconds] 0
app;schedule;[off-cpu] 23000000" ]
}

@test "--timed re-slots timed folded stacks, and refuses input without time" {
	printf '[time: 0.000000000 0.010000000] 0\na;b 1\n[time: 0.015000000 0.010000000] 0\na;b 2\na;c 1\n[time: 1.000000000 0.010000000] 0\na;b 4\n' >"$TMP/in"
	run prof-fold --timed=1s "$TMP/in"
	[ "$status" -eq 0 ]
	[ "$output" = "[time: 0.000000000 1.000000000] 0
a;b 3
a;c 1
[time: 1.000000000 1.000000000] 0
a;b 4" ]
	run prof-fold "$TMP/in"
	[ "$output" = "a;b 7
a;c 1" ]
	printf 'a;b 1\n' >"$TMP/plain"
	run prof-fold --timed "$TMP/plain"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$TMP/plain:1: stack before any time line (--timed)"* ]]
	f="$CORPUS/flamegraph/inputs/perf-vertx-stacks-01.txt"
	if [ -f "$f" ]; then
		run prof-fold --timed "$f"
		[ "$status" -eq 1 ]
		[[ "$output" == *"perf-vertx-stacks-01.txt:18: event line without a time (--timed)"* ]]
	fi
	for bad in 0 10 1h1 500ns 2h x; do
		run prof-fold --timed="$bad" "$TMP/in"
		[ "$status" -eq 2 ]
		[[ "$output" == *"--timed=$bad: expected a time from 1us to 1h"* ]]
	done
}

@test "time lines that are not one are stacks, and a hostile one bounds its spread" {
	# Not time lines, so kept as stacks: a zero length, ten decimals, a
	# count of 1.
	printf '[time: 1.0 0] 0\n[time: 1.0000000001 1] 0\n[time: 1 1] 1\n[time: 2 1] 0\n' >"$TMP/in"
	run prof-fold "$TMP/in"
	[ "$status" -eq 0 ]
	[ "$output" = "[time: 1 1] 1
[time: 1.0 0] 0
[time: 1.0000000001 1] 0" ]
	# A block of 2^63 ns ending late charges at most 2^20 slots.
	printf '# prof-symbolize frames v1\n# count: nanoseconds\nx 1/1 99999999.000000: 9223372036854775807 offcpu-time:\n\tffffffff81000000 schedule+0x1 ([kernel.kallsyms])\n\n' >"$TMP/f"
	prof-fold --timed -o "$TMP/out" "$TMP/f"
	[ "$(grep -c '^\[time' "$TMP/out")" -eq 1048576 ]
	# 2^20 - 1 whole slots of 10 ms, and the rest in the first.
	[ "$(grep -c ' 10000000$' "$TMP/out")" -eq 1048575 ]
	[ "$(grep -v '^\[' "$TMP/out" | grep -v ' 10000000$')" = "x;schedule;[off-cpu] $((9223372036854775807 - 1048575 * 10000000))" ]
}
