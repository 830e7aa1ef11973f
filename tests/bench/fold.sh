#!/bin/sh
# prof-fold throughput and peak RSS on a perf script file of at least
# 100 MB: the corpus' example-perf-stacks, plus a capture of the project's
# own workload when perf can record here, concatenated until big enough.
# Side by side with stackcollapse-perf.pl when it is installed; otherwise
# the Perl figure measured on this machine class (see the design brief) is
# printed as a reference, marked as not measured.
set -u
BUILD=${BUILD:-build}
CORPUS=${PROF_CORPUS:-../shared/corpus}
FOLD=$BUILD/bin/prof-fold
SEED=$CORPUS/flamegraph/example-perf-stacks.txt.gz
MIN_BYTES=$((100 * 1000 * 1000))

[ -x "$FOLD" ] || { echo "fold: $FOLD not built; run make" >&2; exit 1; }
[ -f "$SEED" ] || { echo "fold: skipped: corpus not found at $CORPUS"; exit 0; }
command -v /usr/bin/time > /dev/null || { echo "fold: skipped: needs /usr/bin/time"; exit 0; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fold-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# The seed: the corpus capture, and our own when perf can record.
zcat "$SEED" > "$tmp/seed.txt"
if [ -x "$BUILD/workloads/chain" ] && command -v perf > /dev/null &&
	perf record -q -F 999 -g -o "$tmp/perf.data" "$BUILD/workloads/chain" 1 \
		> /dev/null 2>&1 &&
	perf script -i "$tmp/perf.data" > "$tmp/own.txt" 2> /dev/null &&
	[ -s "$tmp/own.txt" ]; then
	ev=$(awk '/^[^ \t#]/ { print $NF; exit }' "$tmp/own.txt")
	own="+ own capture ($(wc -c < "$tmp/own.txt") bytes, event $ev; like stackcollapse-perf.pl, prof-fold folds only the first event: cycles)"
	cat "$tmp/own.txt" >> "$tmp/seed.txt"
else
	own="(perf record unavailable: corpus capture only)"
fi
: > "$tmp/in.txt"
while [ "$(wc -c < "$tmp/in.txt")" -lt "$MIN_BYTES" ]; do
	cat "$tmp/seed.txt" >> "$tmp/in.txt"
done
bytes=$(wc -c < "$tmp/in.txt")
cat "$tmp/in.txt" > /dev/null # warm the page cache

# run CMD...: over 5 runs, the best wall time (ns clock) in $secs, the best
# CPU time (user + system, immune to other load on the machine) in $cpu,
# and the peak RSS in KB in $rss.
run() {
	secs= cpu= rss=
	for i in 1 2 3 4 5; do
		t0=$(date +%s%N)
		/usr/bin/time -f '%M %U %S' -o "$tmp/time" "$@" < "$tmp/in.txt" > "$tmp/out" 2> /dev/null
		t1=$(date +%s%N)
		read -r rss u s < "$tmp/time"
		secs=$(awk -v a="$t0" -v b="$t1" -v best="$secs" 'BEGIN {
			t = (b - a) / 1e9; if (best != "" && best < t) t = best; printf "%.3f", t }')
		cpu=$(awk -v u="$u" -v s="$s" -v best="$cpu" 'BEGIN {
			t = u + s; if (best != "" && best < t) t = best; printf "%.2f", t }')
	done
}

mbs() {
	awk -v n="$bytes" -v t="$1" 'BEGIN { printf "%.0f", n / 1e6 / (t > 0 ? t : 0.01) }'
}

row() {
	printf '%-24s %8s %10s %8s %10s %9s MB\n' "$1" "$secs" "$(mbs "$secs")" "$cpu" "$(mbs "$cpu")" "$((rss / 1024))"
}

echo "input: $bytes bytes of perf script: example-perf-stacks x N $own"
printf '%-24s %8s %10s %8s %10s %12s\n' tool wall-s MB/s cpu-s MB/s-cpu "peak RSS"
run "$FOLD"
row prof-fold
lines=$(wc -l < "$tmp/out")
PERL_TOOL=$(command -v stackcollapse-perf.pl || true)
if [ -n "$PERL_TOOL" ]; then
	run perl "$PERL_TOOL"
	row stackcollapse-perf.pl
else
	printf '%-24s %8s %10s %8s %10s %12s\n' "stackcollapse-perf.pl" - 24 - - "(reference)"
	echo "  (not installed here: 24 MB/s is the brief's figure for this machine, not measured)"
fi
INFERNO=$(command -v inferno-collapse-perf || true)
if [ -n "$INFERNO" ]; then
	run "$INFERNO"
	row inferno-collapse-perf
fi
echo "prof-fold output: $lines distinct stacks"
