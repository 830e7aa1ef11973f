#!/usr/bin/env bats
# Differences against sampling noise (issue 33, common/share_diff.c):
# prof-fold --diff, whose exit status gates CI, and prof-svg --diff, which
# colours only changes beyond noise; on real captures of tests/workloads/
# ratio.c, whose share_two can be made slower by a known factor.

load helpers
bats_require_minimum_version 1.5.0

# capture NAME SECONDS [SLOWER]: a timed fold of ratio's run, at 3999 Hz:
# 40,000 samples in 10 s put a 10% slower function's rise (2.2 points) at
# some 7 standard errors, where a flag takes 3.4 (99.89%, one of nine
# frames at 1% for all: common/share_diff.h).
capture() {
	prof-sample -F 3999 -o "$TMP/$1.prof" -- "$PROF_WORKLOADS/ratio" "$2" ${3:-} >/dev/null
	prof-symbolize "$TMP/$1.prof" | prof-fold --timed >"$TMP/$1"
}

# line REPORT FRAME: the report's line of the frame ending in FRAME.
line() {
	grep " ratio;[^ ]*;$2\$" "$1"
}

# At the 1% the tool is built for, a hundred splits flag one on average,
# and more than five about once in 1,900 runs (were they independent).  At
# 5% it would be once in 2.6 runs: the issue's "95 of 100" asks for a rate
# well under 5%, and at 5% this test failed in CI.
@test "halves of one capture, split a hundred ways at random: no frame flagged in 95 or more" {
	require_root
	capture all 10
	[ "$(grep -cv '^\[' "$TMP/all")" -gt 10 ]
	flagged=0
	for k in $(seq 1 100); do
		# Each 250 ms (25 slots) to A or B at random.
		awk -v seed="$k" -v a="$TMP/a" -v b="$TMP/b" 'BEGIN { srand(seed) }
			/^\[time: / { blk = int(($2 + 0) * 4); if (!(blk in side)) side[blk] = rand() < 0.5
				out = side[blk] ? a : b }
			{ print > out }' "$TMP/all"
		# Status 3 when a rise is flagged.
		prof-fold --diff "$TMP/a" "$TMP/b" >"$TMP/report" || [ $? -eq 3 ]
		if grep -q '^[*!]' "$TMP/report"; then
			flagged=$((flagged + 1))
			grep '^[*!]' "$TMP/report" | head -3
		fi
	done
	head -1 "$TMP/report"
	echo "flagged in $flagged of 100 splits"
	[ "$flagged" -le 5 ]
}

@test "a function made 10% slower is flagged, the gate fails, and the graph colours it alone as a rise" {
	require_root
	capture before 10
	capture after 10 1.1
	run prof-fold --diff --threshold=0.5 "$TMP/before" "$TMP/after"
	echo "$output"
	[ "$status" -eq 3 ]
	# share_two rose beyond noise, by more than 0.5 points: first.
	[[ "$(sed -n 3p <<<"$output")" =~ ^'! +'[0-9.]+'% [+'[0-9.]+'%, +'[0-9.]+'%] '.*';share_two'$ ]]
	[ "$(grep -c '^!' <<<"$output")" -eq 1 ]
	# The gate does not fail on a threshold above the rise.
	run prof-fold --diff --threshold=10 "$TMP/before" "$TMP/after"
	[ "$status" -eq 0 ]
	prof-svg --diff -o "$TMP/d.svg" "$TMP/before" "$TMP/after"
	# share_two red (green and blue below 255), its tooltip the interval.
	g=$(grep -o '<g class="f"[^>]*><title>share_two ([^<]*</title><rect [^>]*>' "$TMP/d.svg")
	echo "$g"
	[[ $g =~ \[\+[0-9.]+%,\ \+[0-9.]+%\]\) ]]
	[[ $g =~ fill=\"rgb\(255,([0-9]+),([0-9]+)\)\" ]] && [ "${BASH_REMATCH[1]}" -lt 255 ]
	# Frames within noise stay white.
	[ "$(grep -o '<title>[^<]*within noise)</title><rect [^>]*>' "$TMP/d.svg" | grep -vc 'fill="rgb(255,255,255)"')" -eq 0 ]
}

# A 2% slower share_two rises by about 0.45 points, 0.4 of a standard error
# on a capture of 1 s at 3999 Hz, where a flag takes 3.4: sampling noise
# alone flags it about once in 700 trials, and leaves the change out of its
# interval about once in 900.  At 5% (a flag at 2.8) one trial failed about
# once in 70 runs, as it did in CI; two trials of three fail together far
# less often than once in 10,000 runs.
@test "a 2% slower function on a short capture is not flagged, and its interval holds the change" {
	require_root
	held=0
	for k in 1 2 3; do
		capture before$k 1
		capture after$k 1 1.02
		# Status 3 when a rise is flagged, the trial's failure.
		st=0
		prof-fold --diff --threshold=0 "$TMP/before$k" "$TMP/after$k" >"$TMP/report$k" || st=$?
		[ "$st" -eq 0 ] || [ "$st" -eq 3 ]
		two=$(line "$TMP/report$k" share_two)
		# The change 2% more work makes: from the share before, p, to
		# 1.02 p / (1 + 0.02 p).
		if [ "$st" -eq 0 ] && [[ $two == "  "* ]] &&
			awk '{ gsub(/[][%,]/, ""); p = $5 / 100; want = 100 * (1.02 * p / (1 + 0.02 * p) - p)
				printf "change %s, interval [%s, %s], expected %+.2f\n", $1, $2, $3, want
				exit !($2 <= want && want <= $3) }' <<<"$two"; then
			held=$((held + 1))
		else
			echo "trial $k: status $st"
			cat "$TMP/report$k"
		fi
	done
	echo "held in $held of 3 trials"
	[ "$held" -ge 2 ]
}

@test "--diff refuses what it cannot compare, and says why" {
	printf 'a;b 1\n' >"$TMP/plain"
	run prof-fold --diff "$TMP/plain" "$TMP/plain"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$TMP/plain: no sample with a time: --diff compares profiles in time"* ]]
	printf '[time: 0 0.01] 0\na;b 1\n[time: 0.01 0.01] 0\na;b 1\n' >"$TMP/short"
	run prof-fold --diff "$TMP/short" "$TMP/short"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$TMP/short: 2 slots of 10 ms hold samples: --diff needs 16 or more"* ]]
	run prof-fold --diff "$TMP/short"
	[ "$status" -eq 2 ]
	run prof-fold --diff --filter=a "$TMP/short" "$TMP/short"
	[ "$status" -eq 2 ]
	run prof-fold --threshold=1 "$TMP/short"
	[ "$status" -eq 2 ]
	for bad in -1 100 x 1x; do
		run prof-fold --diff --threshold="$bad" "$TMP/short" "$TMP/short"
		[ "$status" -eq 2 ]
		[[ "$output" == *"--threshold=$bad: expected a share from 0 to 100"* ]]
	done
	# prof-svg colours every change of untimed inputs, and says so.
	run prof-svg --diff -o "$TMP/d.svg" "$TMP/plain" "$TMP/plain"
	[ "$status" -eq 0 ]
	[[ "$output" == *"--diff: an input has no time lines (prof-fold --timed): every change is coloured"* ]]
}

# multinomial FILE SEED SHARE_TWO: 1000 slots of 10 samples, each "one"
# (1/6), "two" (SHARE_TWO) or "three" (the rest), drawn at random.
multinomial() {
	awk -v seed="$2" -v p2="$3" 'BEGIN { srand(seed)
		for (t = 0; t < 1000; t++) {
			printf "[time: %d.%02d0000000 0.010000000] 0\n", t / 100, t % 100
			a = b = c = 0
			for (k = 0; k < 10; k++) { r = rand(); if (r < 1 / 6) a++; else if (r < 1 / 6 + p2) b++; else c++ }
			if (a) print "app;main;one " a; if (b) print "app;main;two " b; if (c) print "app;main;three " c
		} }' >"$1"
}

@test "prof-svg --diff of timed inputs colours what prof-fold --diff finds beyond noise, with the same intervals" {
	multinomial "$TMP/a" 1 0.3333
	multinomial "$TMP/b" 2 0.4
	run prof-fold --diff -o "$TMP/report" "$TMP/a" "$TMP/b"
	[ "$status" -eq 3 ]
	cat "$TMP/report"
	prof-svg --diff -o "$TMP/d.svg" "$TMP/a" "$TMP/b"
	for f in one two three; do
		r=$(grep " app;main;$f\$" "$TMP/report")
		t=$(grep -o "<title>$f ([^<]*</title><rect [^>]*>" "$TMP/d.svg")
		echo "$r / $t"
		# The same change and interval.
		want=$(cut -c3- <<<"$r" | awk '{ print $1, $2, $3 }')
		[[ $t == *"; $want"* ]]
		# Coloured when marked, white when not.
		if [[ $r == "  "* ]]; then [[ $t == *'within noise)'*'fill="rgb(255,255,255)"'* ]]
		else [[ $t != *'fill="rgb(255,255,255)"'* ]]; fi
	done
	# "two" rose 6.7 points in 10,000 samples: beyond noise, red, and a
	# rise the gate fails on (--threshold 0).
	[[ "$(grep ' app;main;two$' "$TMP/report")" == '! +'* ]]
	grep -q '<title>two ([^<]*</title><rect [^>]*fill="rgb(255,' "$TMP/d.svg"
	# Two draws of the same shares: nothing coloured.
	multinomial "$TMP/c" 3 0.3333
	prof-svg --diff -o "$TMP/same.svg" "$TMP/a" "$TMP/c"
	[ "$(grep -o '<g class="f".*' "$TMP/same.svg" | grep -vc 'fill="rgb(255,255,255)"')" -eq 0 ]
}
