#!/bin/bash
# prof-sample side by side with perf record -g, system-wide with both CPUs
# busy, at 99 and 999 Hz: the profiler's own CPU seconds per 10 s of
# capture, peak RSS, bytes written per sample, and the BPF program's mean
# run time per sample (kernel.bpf_stats_enabled) on deep (100+ frame)
# stacks.  Then the service view: nginx driven by wrk on loopback, requests
# per second with no profiler, with prof-sample, with perf record.
# Not a test: nothing here passes or fails.  Needs root.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/bin
W=$BUILD/workloads
SECS=${BENCH_SECS:-10}
TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "sample.sh: needs root" >&2; exit 1; }

. tests/bench/sampling.bash

busy() {
	"$W/manystacks" $((SECS + 5)) & "$W/manystacks" $((SECS + 5)) &
	sleep 0.5
}

printf '%-34s %10s %10s %12s %10s\n' "profiler (${SECS} s, 2 busy CPUs)" "own CPU s" "peak RSS" "bytes/sample" "samples"
for hz in 99 999; do
	busy
	read -r cpu rss < <(cpu_rss "$BIN/prof-sample" -q -F "$hz" -d "$SECS" -o "$TMP/cap.prof")
	samples=$("$BIN/prof-symbolize" "$TMP/cap.prof" | sed -nE 's/^# capture: taken ([0-9]+).*/\1/p')
	bytes=$(stat -c %s "$TMP/cap.prof")
	printf '%-34s %10s %8d KB %12.1f %10d\n' "prof-sample -F $hz" "$cpu" "$rss" \
		"$(echo "$bytes / $samples" | bc -l)" "$samples"
	wait
	busy
	read -r cpu rss < <(cpu_rss perf record -q -g -F "$hz" -a -o "$TMP/perf.data" -- sleep "$SECS")
	samples=$(perf script -i "$TMP/perf.data" -F event 2>/dev/null | grep -c cpu-clock)
	bytes=$(stat -c %s "$TMP/perf.data")
	printf '%-34s %10s %8d KB %12.1f %10d\n' "perf record -g -F $hz" "$cpu" "$rss" \
		"$(echo "$bytes / $samples" | bc -l)" "$samples"
	read -r cpu rss < <(cpu_rss perf script -i "$TMP/perf.data")
	printf '%-34s %10s %8d KB\n' "  + perf script (to read it)" "$cpu" "$rss"
	wait
done

echo
echo "BPF program run time per sample (deep stacks: recursion to 400 frames)"
bpf_run_times

echo
echo "nginx on loopback, wrk -t2 -c32 for ${SECS} s (requests/s)"
for p in nginx wrk; do
	command -v "$p" >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >/dev/null 2>&1
done
if ! command -v nginx >/dev/null || ! command -v wrk >/dev/null; then
	echo "  nginx or wrk not installable here; skipped"
	exit 0
fi
mkdir -p "$TMP/www" && echo hello > "$TMP/www/index.html"
cat > "$TMP/nginx.conf" <<CONF
worker_processes 1;
pid $TMP/nginx.pid;
error_log $TMP/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	server { listen 127.0.0.1:18080; root $TMP/www; }
}
CONF
nginx -c "$TMP/nginx.conf"
sleep 0.5
rps() {
	wrk -t2 -c32 -d"${SECS}s" http://127.0.0.1:18080/ 2>/dev/null | awk '/Requests\/sec/ { print $2 }'
}
base=$(rps)
printf '  %-28s %10s\n' "no profiler" "$base"
for hz in 99 999; do
	"$BIN/prof-sample" -q -F "$hz" -d $((SECS + 2)) -o /dev/null &
	sleep 1
	r=$(rps); wait
	printf '  %-28s %10s  (%.1f%%)\n' "prof-sample -F $hz" "$r" "$(echo "($r - $base) * 100 / $base" | bc -l)"
	perf record -q -g -F "$hz" -a -o "$TMP/perf.data" -- sleep $((SECS + 2)) &
	sleep 1
	r=$(rps); wait
	printf '  %-28s %10s  (%.1f%%)\n' "perf record -g -F $hz" "$r" "$(echo "($r - $base) * 100 / $base" | bc -l)"
done
kill "$(cat "$TMP/nginx.pid")"
