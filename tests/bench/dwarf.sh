#!/bin/bash
# prof-sample --unwind=dwarf side by side with perf record --call-graph
# dwarf, system-wide with both CPUs busy in code without frame pointers
# (the nofp workload: deep recursion and qsort callbacks), at 99 and 999 Hz:
# bytes written per sample, the profiler's own CPU seconds (perf's with
# perf script, which is where perf unwinds), peak RSS, samples dropped, and
# the BPF program's mean run time per sample (it copies the stack).
# Not a test: nothing here passes or fails.  Needs root.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/bin
W=$BUILD/workloads
SECS=${BENCH_SECS:-10}
TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "dwarf.sh: needs root" >&2; exit 1; }

. tests/bench/sampling.bash

busy() {
	"$W/nofp" $((SECS + 3)) & "$W/nofp" $((SECS + 3)) &
	sleep 0.5
}

printf '%-40s %9s %9s %11s %9s %8s %9s\n' "profiler (${SECS} s, 2 busy CPUs)" "own CPU s" \
	"peak RSS" "bytes/smpl" "samples" "dropped" "truncated"
for hz in 99 999; do
	busy
	read -r cpu rss < <(cpu_rss "$BIN/prof-sample" -q -F "$hz" -d "$SECS" --unwind=dwarf \
		-o "$TMP/cap.prof")
	"$BIN/prof-symbolize" "$TMP/cap.prof" > "$TMP/frames.txt"
	taken=$(sed -nE 's/^# capture: taken ([0-9]+).*/\1/p' "$TMP/frames.txt")
	lost=$(sed -nE 's/^# capture: .*lost ([0-9]+).*/\1/p' "$TMP/frames.txt")
	trunc=$(awk '$2 == "lost" && $3 ~ /^truncated-/ { s += $4 } END { print s + 0 }' "$TMP/frames.txt")
	bytes=$(stat -c %s "$TMP/cap.prof")
	printf '%-40s %9s %6d KB %11.1f %9d %8d %9d\n' "prof-sample --unwind=dwarf -F $hz" "$cpu" \
		"$rss" "$(echo "$bytes / $taken" | bc -l)" "$taken" "$lost" "$trunc"
	wait
	busy
	read -r cpu rss < <(cpu_rss perf record -q --call-graph dwarf -F "$hz" -a \
		-o "$TMP/perf.data" -- sleep "$SECS")
	read -r rcpu rrss < <(cpu_rss perf script -i "$TMP/perf.data")
	samples=$(perf script -i "$TMP/perf.data" -F event 2>/dev/null | grep -c cpu-clock)
	lost=$(perf report -i "$TMP/perf.data" --stats 2>/dev/null |
		awk '/LOST_SAMPLES|LOST events/ { s += $NF } END { print s + 0 }')
	bytes=$(stat -c %s "$TMP/perf.data")
	printf '%-40s %9s %6d KB %11.1f %9d %8d\n' "perf record --call-graph dwarf -F $hz" "$cpu" \
		"$rss" "$(echo "$bytes / $samples" | bc -l)" "$samples" "$lost"
	printf '%-40s %9s %6d KB\n' "  + perf script (unwinds)" "$rcpu" "$rrss"
	printf '%-40s %9.2f\n' "  = perf's CPU, total" "$(echo "$cpu + $rcpu" | bc -l)"
	wait
done

echo
echo "BPF program run time per sample (it copies 8 KiB of stack)"
bpf_run_times --unwind=dwarf
