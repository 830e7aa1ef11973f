#!/bin/sh
# prof-svg side by side with flamegraph.pl, on two kinds of folded input:
#
# - C++-like stacks (tests/workloads/gen_cxx_stacks: deep template names,
#   many distinct frames, sorted as prof-fold writes them), 50,000, 200,000
#   and 1,000,000 of them (21, 89 and 450 MB);
# - a synthetic profile of 200,000 short-named stacks (86 MB), shuffled and
#   sorted.
#
# For each: wall and CPU time and peak RSS, the ratios to flamegraph.pl, and
# the time to read the input once from the page cache (cat), the floor for
# any tool.  Then, when chromium and tests/browser's playwright-core are
# installed, the time the SVG takes to load and answer a click in headless
# chromium.  flamegraph.pl is not packaged by Debian: set FLAMEGRAPH_PL to a
# copy to run it too; otherwise the figures measured on this kind of machine
# are shown.  At 1M stacks it takes minutes and 4 GB: it runs only with
# BENCH_FLAMEGRAPH_1M=1.  Targets: 50x faster than flamegraph.pl with a tenth
# of its memory; load+click < 1 s.  Figures, not tests: nothing fails on
# timing.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SVG="$BUILD/bin/prof-svg"
GEN="$BUILD/workloads/gen_cxx_stacks"
WORK=${BENCH_DIR:-$BUILD/bench}
FG=${FLAMEGRAPH_PL:-}
measured_shown=
mkdir -p "$WORK"

[ -x "$SVG" ] || { echo "svg.sh: $SVG not built" >&2; exit 1; }
[ -x "$GEN" ] || { echo "svg.sh: $GEN not built (make workloads)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "svg.sh: skipped: needs GNU time (/usr/bin/time)"; exit 0; }
[ -n "$FG" ] && [ ! -f "$FG" ] && { echo "svg.sh: FLAMEGRAPH_PL=$FG: no such file" >&2; FG=; }

# timed CMD...: runs CMD, its output to /dev/null; sets wall, cpu
# (user+sys) in seconds and rss in MB.
timed() {
	/usr/bin/time -f '%e %U %S %M' -o "$WORK/time.out" "$@" > /dev/null || return 1
	read -r wall user sys kb < "$WORK/time.out"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	rss=$((kb / 1024))
}

# best N CMD...: timed, the run of least CPU time of N.
best() {
	n=$1
	shift
	bw= bc= br=
	while [ "$n" -gt 0 ]; do
		timed "$@" || return 1
		if [ -z "$bc" ] || awk -v a="$cpu" -v b="$bc" 'BEGIN { exit !(a < b) }'; then
			bw=$wall bc=$cpu br=$rss
		fi
		n=$((n - 1))
	done
	wall=$bw cpu=$bc rss=$br
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b < 0.01) b = 0.01; printf "%.0fx", a / b }'
}

header() {
	printf '%-22s %8s %8s %7s    %8s %8s %7s   %9s %9s %7s\n' "$1" \
	    "wall" "CPU" "RSS" "fg wall" "fg CPU" "fg RSS" "faster" "(CPU)" "memory"
}

# row LABEL FILE RUN_FG MEASURED: prof-svg (best of 3) and flamegraph.pl
# on FILE.  MEASURED is flamegraph.pl's "wall cpu rss" measured here, shown
# when it is not run (RUN_FG no, or FLAMEGRAPH_PL unset).
row() {
	label=$1 in=$2 run_fg=$3 measured=${4:-}
	best 3 "$SVG" -o "$WORK/out.svg" "$in" || { echo "$label: prof-svg failed"; return 1; }
	sw=$wall sc=$cpu sr=$rss
	note=
	if [ -n "$FG" ] && [ "$run_fg" = yes ]; then
		timed sh -c 'perl "$1" "$2" > "$3"' sh "$FG" "$in" "$WORK/flamegraph-pl.svg" ||
		    { echo "$label: flamegraph.pl failed"; return 1; }
		fw=$wall fc=$cpu fr=$rss
	else
		set -- $measured
		fw=${1:-} fc=${2:-} fr=${3:-}
		note=" *"
	fi
	if [ -n "$fw" ]; then
		printf '%-22s %7.2fs %7.2fs %5d MB   %7.2fs %7.2fs %5d MB   %9s %9s %7s%s\n' \
		    "$label" "$sw" "$sc" "$sr" "$fw" "$fc" "$fr" "$(ratio "$fw" "$sw")" \
		    "$(ratio "$fc" "$sc")" "$(ratio "$fr" "$sr")" "$note"
		[ -n "$note" ] && measured_shown=1
	else
		printf '%-22s %7.2fs %7.2fs %5d MB   %26s\n' "$label" "$sw" "$sc" "$sr" \
		    "flamegraph.pl not run"
	fi
}

# The read floor: the file once from the page cache (warmed first).
floor() {
	cat "$1" > /dev/null
	best 3 cat "$1"
	printf '  %s: %d MB, read once from the page cache in %.2f s wall, %.2f s CPU\n' \
	    "$(basename "$1")" $(($(wc -c < "$1") / 1000000)) "$wall" "$cpu"
}

echo "C++-like stacks (gen_cxx_stacks N, sorted as prof-fold writes them)"
header "stacks"
for n in 50000 200000 1000000; do
	in="$WORK/cxx-$n.folded"
	if [ ! -s "$in" ] || [ "$(wc -l < "$in")" -ne "$n" ]; then
		"$GEN" "$n" > "$in.tmp" && mv "$in.tmp" "$in" || { echo "gen_cxx_stacks $n failed"; exit 1; }
	fi
	# flamegraph.pl measured here; its CPU time in both columns, as the
	# machine was shared.
	case $n in
	50000) measured="4.50 4.14 231" ;;
	200000) measured="19.63 19.63 844" ;;
	*) measured="131.23 131.23 3791" ;;
	esac
	if [ "$n" = 1000000 ] && [ -n "$FG" ] && [ "${BENCH_FLAMEGRAPH_1M:-0}" != 1 ]; then
		row "$n" "$in" no "$measured"
		echo "  (flamegraph.pl not run at 1M: minutes and 4 GB; BENCH_FLAMEGRAPH_1M=1 runs it)"
	else
		row "$n" "$in" yes "$measured"
	fi
done
for n in 50000 200000 1000000; do
	floor "$WORK/cxx-$n.folded"
done

# generate N: the synthetic profile.  A fixed linear congruential generator
# (MINSTD), not awk's rand(), so that every awk writes the same bytes.
generate() {
	awk -v N="$1" 'BEGIN {
		seed = 20240601
		split("net io fs mm sched http json sql cache auth rpc log codec tls pool gc", mods, " ")
		split("read write parse encode decode handle dispatch lookup insert update flush poll wait copy hash sort scan merge build visit", verbs, " ")
		split("Request Response Buffer Table Index Session Stream Frame Record Node Page Block Queue Worker Task", types, " ")
		NF_ = 4000
		for (i = 0; i < NF_; i++)
			fn[i] = sprintf("%s::%s%s::%s_%d", mods[i % 16 + 1], types[int(i / 16) % 15 + 1],
				(i % 3 ? "Impl" : "Base"), verbs[int(i / 7) % 19 + 1], i)
		for (c = 0; c < 24; c++) comm[c] = sprintf("worker-%02d", c)
		for (s = 0; s < N; s++) {
			seed = (seed * 48271) % 2147483647
			root = seed % 24
			seed = (seed * 48271) % 2147483647
			depth = 9 + seed % 13
			line = comm[root]
			f = root * 131
			for (d = 0; d < depth; d++) {
				seed = (seed * 48271) % 2147483647
				k = (d < 4) ? seed % 3 : seed % 6
				f = (f * 31 + k * 7919 + d * 13 + 1) % NF_
				line = line ";" fn[f]
			}
			if (seed % 5 == 0) line = line ";" "copy_user_enhanced_fast_string_[k]"
			seed = (seed * 48271) % 2147483647
			# heavy-tailed counts: most stacks are rare
			u = (seed % 1000000 + 1) / 1000001
			count = int(0.5 / (u * u)) + 1
			if (count > 200000) count = 200000
			print line, count
		}
	}'
}

# The stacks come out in random order; prof-fold and stackcollapse-*.pl
# write them sorted; both orders are timed.
IN="$WORK/svg-200k.folded"
SHUF="$WORK/svg-200k-shuffled.folded"
if [ ! -s "$IN" ] || [ ! -s "$SHUF" ] || [ "$(wc -l < "$IN")" -ne 200000 ]; then
	generate 200000 > "$SHUF" && LC_ALL=C sort "$SHUF" > "$IN.tmp" && mv "$IN.tmp" "$IN"
fi
echo
echo "Synthetic short-named stacks, md5 $(md5sum < "$IN" | cut -c1-12)"
header "stacks"
row "200000 sorted" "$IN" yes "18.59 18.59 865"
row "200000 shuffled" "$SHUF" no
floor "$IN"
[ -n "$measured_shown" ] && echo "* flamegraph.pl as measured on this kind of machine, not run now"

OUT="$WORK/svg-200k.svg"
"$SVG" -o "$OUT" "$IN"
echo "output of 200000 sorted: $(($(wc -c < "$OUT") / 1000)) kB, $(grep -c '^<g class="f' "$OUT") frames drawn"
if [ -x /usr/bin/chromium ] && [ -d tests/browser/node_modules/playwright-core ]; then
	node tests/browser/check.js timing "$OUT" 1000
else
	echo "browser: skipped (needs chromium and npm ci --prefix tests/browser)"
fi
