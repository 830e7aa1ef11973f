#!/bin/bash
# pprof's size and write time against folded text, for a system-wide
# capture of this host while it compiles (BENCH_PPROF_SECONDS, default 60,
# then as long again for perf's):
# prof-symbolize --format=pprof, and prof-symbolize | prof-fold, on our
# capture; and, on perf's capture of the next seconds, what a user would
# otherwise run: perf script | stackcollapse-perf.pl, then a folded-to-pprof
# converter (folded_to_pprof.py: names only, the most folding leaves).
# Each command's best of 3 runs: wall and CPU seconds, output bytes.
# stackcollapse-perf.pl is not packaged by Debian: it is used when on PATH
# or named by STACKCOLLAPSE_PL; else those rows are skipped.
# Not a test: nothing here passes or fails.  Needs root.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
BIN=$BUILD/bin
SECS=${BENCH_PPROF_SECONDS:-60}
TMP=$(mktemp -d)
load=
trap '[ -n "$load" ] && kill -- -"$load" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
. tests/bench/sampling.bash

[ "$(id -u)" -eq 0 ] || { echo "pprof.sh: needs root" >&2; exit 1; }
[ -x "$BIN/prof-sample" ] || { echo "pprof.sh: $BIN/prof-sample not built; run make" >&2; exit 1; }
"$BIN/prof-symbolize" --help | grep -q -- --format || { echo "pprof: skipped: no --format"; exit 0; }
SC=${STACKCOLLAPSE_PL:-$(command -v stackcollapse-perf.pl || true)}

compile_load
sleep 2
# One after the other: Debian 12's perf 6.1, recording beside prof-sample
# on a compiling host, aborts in its build-id code ("assertion failed at
# util/build-id.c:1010", then a stack smash) and leaves perf.data unread.
"$BIN/prof-sample" -a -q -d "$SECS" -o "$TMP/cap.prof"
perf record -q -a -g -F 99 -o "$TMP/perf.data" -- sleep "$SECS" >/dev/null 2>&1 ||
	echo "(perf record failed: status $?)"
kill -- -"$load" 2>/dev/null
wait "$load" 2>/dev/null
load=

# best CMD...: best of 3 runs of the shell command line CMD (its output in
# $TMP/out): $wall and $cpu (children's user + system) in seconds.
best() {
	wall= cpu=
	for _ in 1 2 3; do
		/usr/bin/time -f '%e %U %S' -o "$TMP/time" sh -c "$1" >/dev/null 2>&1
		read -r e u s < "$TMP/time"
		wall=$(awk -v t="$e" -v b="$wall" 'BEGIN { if (b != "" && b < t) t = b; printf "%.2f", t }')
		cpu=$(awk -v t="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" -v b="$cpu" \
			'BEGIN { if (b != "" && b < t) t = b; printf "%.2f", t }')
	done
}

row() {
	printf '%-58s %7s %7s %11s\n' "$1" "$wall" "$cpu" "$(wc -c < "$2")"
}

echo "$SECS s system-wide while compiling: our capture $(wc -c < "$TMP/cap.prof") bytes," \
	"perf.data $(wc -c < "$TMP/perf.data") bytes"
printf '%-58s %7s %7s %11s\n' pipeline wall-s cpu-s bytes
best "'$BIN/prof-symbolize' '$TMP/cap.prof' > '$TMP/frames'"
row "prof-symbolize (frames)" "$TMP/frames"
best "'$BIN/prof-symbolize' '$TMP/cap.prof' | '$BIN/prof-fold' > '$TMP/ours.folded'"
row "prof-symbolize | prof-fold (folded)" "$TMP/ours.folded"
best "'$BIN/prof-symbolize' --format=pprof -o '$TMP/ours.pb.gz' '$TMP/cap.prof'"
row "prof-symbolize --format=pprof" "$TMP/ours.pb.gz"
gzip -c "$TMP/ours.folded" > "$TMP/ours.folded.gz"
printf '%-58s %7s %7s %11s\n' "  (the folded text, gzipped)" - - "$(wc -c < "$TMP/ours.folded.gz")"
if [ -n "$SC" ]; then
	best "perf script -i '$TMP/perf.data' 2>/dev/null | perl '$SC' > '$TMP/perf.folded'"
	row "perf script | stackcollapse-perf.pl" "$TMP/perf.folded"
	best "python3 tests/bench/folded_to_pprof.py < '$TMP/perf.folded' > '$TMP/perf.pb.gz'"
	row "  then folded_to_pprof.py" "$TMP/perf.pb.gz"
	best "perf script -i '$TMP/perf.data' 2>/dev/null | perl '$SC' | python3 tests/bench/folded_to_pprof.py > '$TMP/perf.pb.gz'"
	row "perf script | stackcollapse-perf.pl | folded_to_pprof.py" "$TMP/perf.pb.gz"
else
	echo "(stackcollapse-perf.pl not found: set STACKCOLLAPSE_PL; perf's rows skipped)"
fi
