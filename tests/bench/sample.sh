#!/bin/bash
# prof-sample's default (DWARF unwinding, 32 KiB of stack per sample, the
# build-id cache) side by side with --unwind=fp and with what a user would
# otherwise run, perf record --call-graph dwarf (perf's 8 KiB default, and
# the 32 KiB prof-sample copies) then perf script, system-wide on a busy
# host, at 99 and 999 Hz: the profiler's own CPU seconds (perf's with perf
# script, where it unwinds), peak RSS, bytes written per sample, samples
# dropped, and what the build-id cache stored and what it took (and the
# default dated to 1 s slots instead of 10 ms: what the time resolution
# costs in bytes).  Then the
# BPF program's run time per sample, and a service's throughput under each.
#
# The busy host: Debian's python3.11 in a JSON and regex loop on one CPU, and
# on the other a shell starting gzip, xz, sort and perl processes one after
# another (new processes, new mappings, files to keep), all without frame
# pointers.  Not a test: nothing here passes or fails.  Needs root.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/bin
SECS=${BENCH_SECS:-10}
TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "sample.sh: needs root" >&2; exit 1; }

. tests/bench/sampling.bash

cat > "$TMP/work.py" <<'EOF'
import json, re, sys, time
end = time.time() + float(sys.argv[1])
mail = re.compile(r'(\w+)@(\w+)\.com')
doc = {"users": [{"name": "u%d" % i, "mail": "u%d@ex%d.com" % (i, i % 7),
                  "tags": list(range(i % 5))} for i in range(200)]}
while time.time() < end:
    s = json.dumps(doc)
    mail.findall(s)
    json.loads(s)
EOF
head -c 2000000 /dev/urandom | base64 > "$TMP/data.txt"

busy() {
	local until=$((SECONDS + SECS + 5))
	/usr/bin/python3.11 "$TMP/work.py" $((SECS + 5)) &
	(while [ $SECONDS -lt $until ]; do
		gzip -6 -c "$TMP/data.txt" | xz -1 -T1 -c > /dev/null
		sort "$TMP/data.txt" > /dev/null
		perl -ne '$n++ if /ab/; END { print $n }' "$TMP/data.txt" > /dev/null
	done) &
	sleep 0.5
}

# A capture's totals, from prof-symbolize's trailer: "taken lost".
capture_totals() {
	"$BIN/prof-symbolize" "$1" 2>/dev/null |
		sed -nE 's/^# capture: taken ([0-9]+), written [0-9]+, lost ([0-9]+)$/\1 \2/p'
}

row() {
	printf '%-44s %9s %8s KB %11s %8s %8s  %s\n' "$@"
}

row "profiler (${SECS} s, system-wide, busy)" "own CPU s" "peak RSS" "bytes/smpl" "samples" \
	"dropped" "build-id cache"
for hz in 99 999; do
	for mode in default coarse fp; do
		busy
		args=(-q -F "$hz" -d "$SECS" -o "$TMP/cap.prof")
		[ "$mode" = fp ] && args+=(--unwind=fp -N)
		[ "$mode" = default ] && args+=(-v)
		[ "$mode" = coarse ] && args+=(-v --time-resolution 1s)
		rm -rf "$TMP/cache"
		read -r cpu rss < <(PROF_BUILD_ID_DIR=$TMP/cache cpu_rss "$BIN/prof-sample" "${args[@]}")
		cache=$(sed -nE 's/.*build-id cache: ([0-9]+) file\(s\) stored \(([0-9]+) KiB in ([0-9]+) ms\).*/\1 files, \2 KiB, \3 ms/p' "$TMP/stderr")
		read -r taken lost < <(capture_totals "$TMP/cap.prof")
		row "prof-sample $([ "$mode" = fp ] && echo "--unwind=fp ")$([ "$mode" = coarse ] && echo "--time-resolution 1s ")-F $hz" "$cpu" "$rss" \
			"$(printf '%.1f' "$(echo "$(stat -c %s "$TMP/cap.prof") / $taken" | bc -l)")" \
			"$taken" "$lost" "${cache:--}"
		wait
	done
	for size in 8192 32768; do
		busy
		read -r cpu rss < <(cpu_rss perf record -q --call-graph "dwarf,$size" -F "$hz" -a \
			-o "$TMP/perf.data" -- sleep "$SECS")
		read -r rcpu rrss < <(cpu_rss perf script -i "$TMP/perf.data")
		samples=$(perf script -i "$TMP/perf.data" -F event 2>/dev/null | grep -c cpu-clock)
		lost=$(perf report -i "$TMP/perf.data" --stats 2>/dev/null |
			awk '/LOST_SAMPLES|LOST events/ { s += $NF } END { print s + 0 }')
		row "perf record --call-graph dwarf,$size -F $hz" "$cpu" "$rss" \
			"$(printf '%.1f' "$(echo "$(stat -c %s "$TMP/perf.data") / $samples" | bc -l)")" \
			"$samples" "$lost" "-"
		row "  + perf script (unwinds)" "$rcpu" "$rrss" "" "" "" ""
		row "  = perf's CPU, total" "$(echo "$cpu + $rcpu" | bc -l)" "" "" "" "" ""
		wait
		rm -f "$TMP/perf.data"
	done
done

echo
echo "BPF program run time per sample, same load (prof-sample's default, then --unwind=fp)"
bpf_run_times
bpf_run_times --unwind=fp

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
printf '  %-36s %10s\n' "no profiler" "$base"
for hz in 99 999; do
	for args in "" "--unwind=fp"; do
		"$BIN/prof-sample" -q -F "$hz" -d $((SECS + 2)) $args -o /dev/null &
		sleep 1
		r=$(rps); wait
		printf '  %-36s %10s  (%.1f%%)\n' "prof-sample $args -F $hz" "$r" "$(echo "($r - $base) * 100 / $base" | bc -l)"
	done
	perf record -q --call-graph dwarf -F "$hz" -a -o "$TMP/perf.data" -- sleep $((SECS + 2)) &
	sleep 1
	r=$(rps); wait
	printf '  %-36s %10s  (%.1f%%)\n' "perf record --call-graph dwarf -F $hz" "$r" "$(echo "($r - $base) * 100 / $base" | bc -l)"
	rm -f "$TMP/perf.data"
done
kill "$(cat "$TMP/nginx.pid")"
