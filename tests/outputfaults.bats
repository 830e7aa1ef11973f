#!/usr/bin/env bats
# Output faults: the reader of a pipe going away (SIGPIPE, or EPIPE when
# SIGPIPE is ignored, as under some supervisors) and a full disk (/dev/full)
# end every program with a message and exit status 2: never a truncated
# output reported as success.

bats_require_minimum_version 1.5.0

load helpers
load fixtures/badinput/capture

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

# Big inputs, so that each program writes far more than a pipe holds
# (64 KiB) and is still writing when its reader has gone.
many_folded() {
	awk 'BEGIN { for (i = 0; i < 20000; i++) printf "main;work_%d;leaf 1\n", i }' > "$TMP/many.folded"
}

big_capture() {
	local ip i c frames= sample
	# One kernel stack of 127 frames (as deep as readers keep), in 100
	# SAMPLE records.
	ip=$(le 0xffffffff81000010 8)
	for ((i = 0; i < 127; i++)); do frames+=$ip; done
	c="$(cap_header)$(cap_info)$(record 5 "$(le 1 4)$(le 127 4)$frames")$(cap_comm 1 worker)"
	sample=$(cap_sample 1 1 1)
	for ((i = 1; i <= 100; i++)); do c+=$sample; done
	cap_write "$c$(cap_end 100)" "$TMP/big.prof"
}

# full_disk PROG ARGS...: both stdout and -o on /dev/full fail with exit 2
# and one line naming the output.
full_disk() {
	local prog=$1
	run --separate-stderr "$@" -o /dev/full
	[ "$status" -eq 2 ] || { echo "-o /dev/full: exit $status"; return 1; }
	[ "$stderr" = "$prog: /dev/full: write error: No space left on device" ]
	run --separate-stderr bash -c '"$@" > /dev/full' _ "$@"
	[ "$status" -eq 2 ] || { echo "> /dev/full: exit $status"; return 1; }
	[ "$stderr" = "$prog: <stdout>: write error: No space left on device" ]
}

# closed_pipe PROG ARGS...: with SIGPIPE at its default the program dies of
# it (status 141 in the pipeline); with SIGPIPE ignored it reports EPIPE,
# exit 2.
closed_pipe() {
	local prog=$1
	run bash -c '"$@" | head -c 1 > /dev/null; echo "${PIPESTATUS[0]}"' _ "$@"
	[ "$output" = 141 ] || { echo "SIGPIPE: $output"; return 1; }
	run bash -c 'trap "" PIPE; "$@" 2> "$0" | head -c 1 > /dev/null; echo "${PIPESTATUS[0]}"' "$TMP/err" "$@"
	[ "$output" = 2 ] || { echo "EPIPE: $output"; cat "$TMP/err"; return 1; }
	[ "$(cat "$TMP/err")" = "$prog: <stdout>: write error: Broken pipe" ]
}

@test "prof-fold: a full disk and a closed pipe are errors" {
	many_folded
	full_disk prof-fold "$TMP/many.folded"
	closed_pipe prof-fold "$TMP/many.folded"
}

@test "prof-svg: a full disk and a closed pipe are errors" {
	many_folded
	full_disk prof-svg "$TMP/many.folded"
	closed_pipe prof-svg --minwidth 0 "$TMP/many.folded"
}

@test "prof-symbolize: a full disk and a closed pipe are errors" {
	big_capture
	[ "$(prof-symbolize --no-debuginfod "$TMP/big.prof" | wc -c)" -gt 200000 ]
	full_disk prof-symbolize --no-debuginfod "$TMP/big.prof"
	closed_pipe prof-symbolize --no-debuginfod "$TMP/big.prof"
}

# A process of the test's own that is always on a CPU, for prof-sample to
# sample: these tests run in a lane beside the browser suites, whose
# Chromium a capture of the whole host would have to unwind (under ASan,
# 20 s and more before its first write).
spinner() {
	sh -c 'while :; do :; done' &
	SPINNER=$!
}

@test "prof-sample: a closed pipe stops it early with a message, exit 2" {
	require_root
	spinner
	# -d 60, and well before that: it stops at the first write after its
	# reader went, timed from the moment the reader took its byte.
	run --separate-stderr bash -c 'prof-sample -d 60 -p "$1" | { head -c 1 > /dev/null; date +%s > "$0"; }
		echo "${PIPESTATUS[0]} $(date +%s)"' "$TMP/first" "$SPINNER"
	kill "$SPINNER"
	echo "status and end: $output; the reader's byte at $(cat "$TMP/first"); stderr: $stderr"
	read -r st end <<<"$output"
	[ $((end - $(cat "$TMP/first"))) -lt 20 ]
	[ "$st" -eq 2 ]
	[[ "$stderr" == *"prof-sample: <stdout>: closed by its reader"* ]]
}

@test "prof-sample: a full disk stops it early with a message, exit 2" {
	require_root
	spinner
	SECONDS=0
	run --separate-stderr prof-sample -d 30 -p "$SPINNER" -o /dev/full
	kill "$SPINNER"
	echo "$SECONDS s: $stderr"
	[ "$SECONDS" -lt 20 ]
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"prof-sample: /dev/full: write error: No space left on device"* ]]
	# With a command, its status only when the capture was written.
	run --separate-stderr prof-sample -o /dev/full -- sleep 1.5
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"prof-sample: /dev/full: write error: No space left on device"* ]]
}

@test "--help and --version: a full disk is a write error, exit 2, in every program" {
	local p opt
	for p in prof-sample prof-symbolize prof-fold prof-svg; do
		for opt in --help --version; do
			run --separate-stderr bash -c '"$@" > /dev/full' _ "$p" "$opt"
			[ "$status" -eq 2 ] || { echo "$p $opt: exit $status"; return 1; }
			[ "$stderr" = "$p: <stdout>: write error: No space left on device" ]
		done
	done
}
