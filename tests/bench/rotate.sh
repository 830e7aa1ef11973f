#!/bin/bash
# Continuous captures over time: prof-sample --rotate 10 system-wide for
# BENCH_ROTATE_SECONDS (default 600) while the host starts short-lived
# processes without pause (each one a new process table entry, new
# mappings, new stacks) and compiles.  Every 30 s: prof-sample's resident
# memory and CPU time, and the files it finished.  Flat memory is the goal:
# each rotation prunes what the finished file needed and the next does not.
# Not a test: nothing here passes or fails.  Needs root.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
BIN=$BUILD/bin
SECS=${BENCH_ROTATE_SECONDS:-600}
TMP=$(mktemp -d)
pids=() load=
trap '[ -n "$load" ] && kill -- -"$load" 2>/dev/null; kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
. tests/bench/sampling.bash

[ "$(id -u)" -eq 0 ] || { echo "rotate.sh: needs root" >&2; exit 1; }
[ -x "$BIN/prof-sample" ] || { echo "rotate.sh: $BIN/prof-sample not built; run make" >&2; exit 1; }
"$BIN/prof-sample" --help | grep -q -- --rotate || { echo "rotate: skipped: no --rotate"; exit 0; }

compile_load
(while :; do sh -c 'ls -R /usr/share/doc >/dev/null; date >/dev/null'; done) &
pids+=($!)
mkdir "$TMP/out"
"$BIN/prof-sample" -a -q --rotate 10 --keep 6 -d "$SECS" -o "$TMP/out/cap-%H%M%S.prof" \
	> "$TMP/finished" &
ps=$!
pids+=($ps)
hz=$(getconf CLK_TCK)
printf '%6s %9s %9s %9s %8s %8s %6s\n' time-s rss-KiB anon-KiB file-KiB cpu-s cpu-% files
last=0 t=0
while [ "$t" -lt "$SECS" ] && kill -0 $ps 2>/dev/null; do
	sleep 30
	t=$((t + 30))
	# Anonymous memory is prof-sample's own; file pages are the mapped
	# files it reads CFI and symbols from, which the kernel may reclaim.
	read -r rss anon file < <(awk '/^VmRSS:/ { r = $2 } /^RssAnon:/ { a = $2 }
		/^RssFile:/ { f = $2 } END { print r, a, f }' /proc/$ps/status 2>/dev/null) || break
	ticks=$(awk '{ print $14 + $15 }' /proc/$ps/stat 2>/dev/null) || break
	printf '%6d %9s %9s %9s %8.2f %8.2f %6d\n' "$t" "$rss" "$anon" "$file" "$(echo "$ticks / $hz" | bc -l)" \
		"$(echo "($ticks - $last) * 100 / $hz / 30" | bc -l)" "$(wc -l < "$TMP/finished")"
	last=$ticks
done
wait $ps
echo "prof-sample exit status $?; $(wc -l < "$TMP/finished") files finished, $(ls "$TMP/out" | wc -l) kept (--keep 6);" \
	"sizes: $(ls -l "$TMP/out" | awk 'NR > 1 { printf "%s ", $5 }')"
