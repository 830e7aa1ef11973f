#!/usr/bin/env bats
# Time in the capture (issue 33): samples and blocks dated to 10 ms, on the
# event lines prof-symbolize writes, as a program with phases at known
# times (tests/workloads/phases.c) ran them; and read as FlameScope reads
# perf script output.

load helpers
bats_require_minimum_version 1.5.0

# times CAPTURE FUNCTION [OPTION...]: the event-line time of each sample
# (each block's line with --each-sample) whose stack holds FUNCTION, one a
# line, and its count after a space.
times() {
	local cap=$1 fn=$2
	shift 2
	prof-symbolize "$@" "$cap" | awk -v fn="$fn" '
		/^[^#\t ]/ { t = $(NF - 2); sub(/:$/, "", t); c = $(NF - 1); hit = 0; next }
		/^\t/ && !hit && $2 ~ "^" fn "(\\+|$)" { print t, c; hit = 1 }'
}

# within FILE LOW HIGH: every time in FILE is in [LOW, HIGH].
within() {
	awk -v lo="$2" -v hi="$3" '$1 < lo || $1 > hi { print "outside [" lo ", " hi "]: " $0; bad = 1 }
		END { exit bad }' "$1"
}

@test "on-CPU samples are dated to 10 ms: each phase of a program where it ran, each burst in its 200 ms" {
	require_root
	prof-sample -F 99 -o "$TMP/cap" -- "$PROF_WORKLOADS/phases" 1.5 1.5 200 3 >"$TMP/phases"
	cat "$TMP/phases"
	times "$TMP/cap" phase_one >"$TMP/one"
	times "$TMP/cap" phase_two >"$TMP/two"
	times "$TMP/cap" burst >"$TMP/burst"
	# The program's start in the capture's time: its first sample's slot
	# ends at most a tick and a slot (20 ms) after it.
	t0=$(sort -n "$TMP/one" | awk 'NR == 1 { printf "%.6f\n", $1 - 0.02 }')
	echo "start $t0; samples: phase_one $(wc -l <"$TMP/one"), phase_two $(wc -l <"$TMP/two"), burst $(wc -l <"$TMP/burst")"
	[ "$(wc -l <"$TMP/one")" -ge 50 ] && [ "$(wc -l <"$TMP/two")" -ge 50 ] && [ "$(wc -l <"$TMP/burst")" -ge 15 ]
	within "$TMP/one" "$t0" "$(echo "$t0 + 1.55" | bc)"
	within "$TMP/two" "$(echo "$t0 + 1.5" | bc)" "$(echo "$t0 + 3.05" | bc)"
	# Each burst in the first 200 ms (and a slot) of its second.
	awk -v t0="$t0" '{ o = $1 - t0 - 3; f = o - int(o); if (o < 0 || o >= 3 || f > 0.25) { print "burst at " $1; bad = 1 } }
		END { exit bad }' "$TMP/burst"
	# Dated to the slot, not to the drain interval (1 s): a phase of
	# 1.5 s at 99 Hz is in more than a hundred slots, spread over it.
	[ "$(cut -d' ' -f1 "$TMP/one" | sort -u | wc -l)" -ge 40 ]
	awk 'NR == 1 { lo = hi = $1 } { if ($1 < lo) lo = $1; if ($1 > hi) hi = $1 } END { print "phase_one spans " hi - lo " s"; exit !(hi - lo >= 1.3) }' "$TMP/one"
}

@test "--wall: a sleep's block ends when it woke and began when it fell asleep, to 10 ms (--each-sample)" {
	require_root
	prof-sample --wall -F 99 -o "$TMP/cap" -- "$PROF_WORKLOADS/phases" 0.3 0.3 200 3 >"$TMP/phases"
	cat "$TMP/phases"
	times "$TMP/cap" phase_one >"$TMP/one"
	t0=$(sort -n "$TMP/one" | awk 'NR == 1 { printf "%.6f\n", $1 - 0.02 }')
	# The three sleeps: from 0.8 s, 1.8 s and 2.8 s of the program's
	# time to the next second; the last may be cut at the capture's end.
	times "$TMP/cap" do_nanosleep --each-sample | awk -v t0="$t0" '$2 > 500000000 {
		end = $1 - t0; begin = end - $2 / 1e9; printf "%.3f %.3f\n", begin, end }' >"$TMP/sleeps"
	cat "$TMP/sleeps"
	[ "$(wc -l <"$TMP/sleeps")" -eq 3 ]
	awk '{ b = $1 - (NR - 0.2); e = $2 - (NR + 0.6) }
		b < -0.04 || b > 0.04 || (NR < 3 && (e < -0.04 || e > 0.04)) { print "sleep " NR " off by " b ", " e; bad = 1 }
		END { exit bad }' "$TMP/sleeps"
}

@test "--each-sample: a line per sample, the counts shared out; the totals unchanged" {
	require_root
	prof-sample -F 999 --unwind=fp -o "$TMP/cap" -- "$PROF_WORKLOADS/phases" 0.5 0 0 0 >/dev/null
	prof-symbolize "$TMP/cap" >"$TMP/lines"
	prof-symbolize --each-sample "$TMP/cap" >"$TMP/each"
	read -r n total <<<"$(awk '/ cpu-clock:/ { n++; s += $(NF - 1) } END { print n, s }' "$TMP/lines")"
	read -r n_each total_each max <<<"$(awk '/ cpu-clock:/ { n++; s += $(NF - 1); if ($(NF - 1) > m) m = $(NF - 1) } END { print n, s, m }' "$TMP/each")"
	echo "lines $n, samples $total; --each-sample: lines $n_each, samples $total_each, largest count $max"
	# At 999 Hz a thread has about ten samples a 10 ms slot.
	[ "$n" -lt "$total" ]
	[ "$n_each" -eq "$total" ] && [ "$total_each" -eq "$total" ] && [ "$max" -eq 1 ]
	diff <(prof-fold <"$TMP/lines") <(prof-fold <"$TMP/each")
}

# FlameScope (Netflix/flamescope, app/perf/heatmap.py) reads perf script
# output a line at a time: an event line is one that matches
# ' +([0-9.]+): .+?:' (the time is the group), each is one sample
# whatever its count, and the heatmap puts it in the column of its whole
# second since the first event and the row of its fraction of a second
# (50 rows a second by default).
@test "FlameScope's reading of --each-sample output shows the phases: full seconds, then bursts in the first rows" {
	require_root
	prof-sample -F 99 -o "$TMP/cap" -- "$PROF_WORKLOADS/phases" 1 1 200 3 >/dev/null
	prof-symbolize --each-sample "$TMP/cap" >"$TMP/perf.txt"
	python3 - "$TMP/perf.txt" >"$TMP/heatmap" <<-'EOF'
		import re, sys
		event = re.compile(r" +([0-9.]+): .+?:")
		times = [float(m.group(1)) for line in open(sys.argv[1])
		         if line[0] != "#" and (m := event.search(line))]
		start = min(times)
		cells = {}
		for t in times:
		    col = int(t - start)
		    row = int((t - start - col) * 50)
		    cells[col, row] = cells.get((col, row), 0) + 1
		for col in range(6):
		    print(col, *[cells.get((col, row), 0) for row in range(50)])
	EOF
	cat "$TMP/heatmap"
	# The first two seconds on the CPU throughout: samples in nearly every
	# row (99 Hz, 20 ms rows: about two a row).
	awk '$1 < 2 { n = 0; for (i = 2; i <= NF; i++) n += $i > 0; if (n < 40) { print "second " $1 ": " n " rows"; bad = 1 } }
		END { exit bad }' "$TMP/heatmap"
	# Then a burst in the first 200 ms of each second (rows 0-10, a row
	# of slack): the rows after are empty but for the last two, where the
	# next burst starts (the heatmap's seconds start at the first sample,
	# up to a tick and a slot after the program's), the first ten hold
	# samples.
	awk '$1 >= 2 && $1 < 5 { early = late = 0; for (i = 2; i <= NF; i++) if (i - 2 <= 12) early += $i; else if (i - 2 < 48) late += $i
		if (early < 8 || late > 0) { print "second " $1 ": " early " early, " late " late"; bad = 1 } }
		END { exit bad }' "$TMP/heatmap"
}

@test "--time-resolution: coarser slots give fewer records; out of range is a usage error" {
	require_root
	run -2 prof-sample --time-resolution 500us -d 1 -o "$TMP/x"
	[[ $output == *"--time-resolution: '500us' is not between 1ms and 1s"* ]]
	run -2 prof-sample --time-resolution 2s -d 1 -o "$TMP/x"
	prof-sample -F 99 --time-resolution 1s -o "$TMP/coarse" -- "$PROF_WORKLOADS/phases" 1 0 0 0 >/dev/null
	times "$TMP/coarse" phase_one >"$TMP/one"
	echo "1 s slots: $(wc -l <"$TMP/one") lines, at $(cut -d' ' -f1 "$TMP/one" | sort -u | tr '\n' ' ')"
	[ "$(cut -d' ' -f1 "$TMP/one" | sort -u | wc -l)" -le 3 ]
}

# In a browser (tests/browser, as svg-browser.bats), here because it
# samples: the suites beside which the browser suites run must not.
@test "prof-svg's time view of a real program's phases, sampled: the first phase's range draws phase_one, not phase_two" {
	require_root
	[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || skip "chromium is not installed (apt-get install chromium)"
	[ -d "$BATS_TEST_DIRNAME/browser/node_modules/playwright-core" ] ||
		skip "playwright-core is not installed (npm ci --prefix tests/browser)"
	prof-sample -F 199 -o "$TMP/cap" -- "$PROF_WORKLOADS/phases" 1.5 1.5 200 2 >"$TMP/phases"
	cat "$TMP/phases"
	prof-symbolize "$TMP/cap" | prof-fold --timed >"$TMP/in"
	prof-svg -o "$TMP/t.svg" "$TMP/in"
	# The heatmap shows the phases: three busy seconds (some 4 samples a
	# row of 20 ms), then the bursts in the first rows of their seconds
	# (200 ms, 10 rows, and the program's start up to 100 ms in).
	conf=$(grep -o 'heat: {[^}]*}' "$TMP/t.svg")
	cw=$(sed 's/.*cw: \([0-9.]*\).*/\1/' <<<"$conf")
	y0=$(sed 's/.*y: \([0-9.]*\),.*/\1/' <<<"$conf")
	awk -F'"' '/<rect x=.*data-n=/ { printf "%d %d %s\n", ($2 - 10) / cw + 0.001, ($4 - y0) / 4 + 0.001, $10 }' \
		cw="$cw" y0="$y0" "$TMP/t.svg" >"$TMP/cells"
	for c in 0 1 2; do
		echo "column $c: $(awk -v c=$c '$1 == c' "$TMP/cells" | wc -l) rows"
		[ "$(awk -v c=$c '$1 == c' "$TMP/cells" | wc -l)" -ge 45 ]
	done
	awk '$1 >= 3' "$TMP/cells" | sort -n -k2,2 | tail -3
	[ "$(awk '$1 >= 3' "$TMP/cells" | wc -l)" -ge 15 ]
	[ "$(awk '$1 >= 3 && $2 >= 16' "$TMP/cells" | wc -l)" -eq 0 ]
	# The program starts within the capture's first 100 ms: [0.1, 1.5) is
	# the first phase's.
	timed_range "$TMP/in" 0.1 1.5 | prof-svg -o "$TMP/ref.svg"
	run node "$BATS_TEST_DIRNAME/browser/check.js" range "$TMP/t.svg" 0.1-1.5 "$TMP/ref.svg" spin_until +phase_one -phase_two -burst
	echo "$output" | grep -v '^# [0-9]'
	[ "$status" -eq 0 ]
}
