#!/bin/bash
# What walking Python's frames costs (issue 29): on a Python-heavy host (two
# CPython processes, Debian's python3.11, each with a second thread, on two
# CPUs), prof-sample's own CPU seconds and peak RSS with the walk (the
# default), without it (--no-python: the same capture, the interpreter's
# frames) and with --unwind=fp (no user stack copy, no walk), system-wide at
# 99 and 999 Hz; the Python frames per sample; then the BPF program's run
# time per sample, with and without the walk.  Not a test: nothing here
# passes or fails.  Needs root.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/bin
SECS=${BENCH_SECS:-10}
TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "python.sh: needs root" >&2; exit 1; }

. tests/bench/sampling.bash

busy() {
	local i
	for i in 1 2; do
		/usr/bin/python3.11 tests/workloads/python_work.py shares $((SECS + 5)) &
	done
	sleep 0.5
}

row() {
	printf '%-40s %9s %8s KB %9s %13s\n' "$@"
}

row "prof-sample (${SECS} s, system-wide)" "own CPU s" "peak RSS" "samples" "Python/sample"
for hz in 99 999; do
	for mode in default --no-python --unwind=fp; do
		busy
		args=(-v -F "$hz" -d "$SECS" -o "$TMP/cap.prof")
		[ "$mode" != default ] && args+=("$mode")
		read -r cpu rss < <(PROF_BUILD_ID_DIR=$TMP/cache cpu_rss "$BIN/prof-sample" "${args[@]}")
		per=$(sed -nE 's/.*Python: .* ([0-9]+) samples with ([0-9]+) Python frames.*/\1 \2/p' \
			"$TMP/stderr" | awk '{ printf "%.1f", $1 ? $2 / $1 : 0 }')
		taken=$("$BIN/prof-symbolize" "$TMP/cap.prof" 2>/dev/null |
			sed -nE 's/^# capture: taken ([0-9]+),.*/\1/p')
		row "prof-sample $([ "$mode" != default ] && echo "$mode ")-F $hz" "$cpu" "$rss" \
			"${taken:-0}" "${per:--}"
		wait
	done
done
echo "BPF program's run time per sample (kernel.bpf_stats_enabled), same host:"
echo " walking Python's frames:"
bpf_run_times -d "$SECS"
echo " --no-python:"
bpf_run_times -d "$SECS" --no-python
