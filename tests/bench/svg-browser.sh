#!/bin/sh
# How fast the flame graph of 200,000 stacks opens and answers in headless
# chromium: prof-svg's SVG beside flamegraph.pl's of the same input, each
# timed the same way by tests/browser/bench.js (load, the first click on a
# frame, Reset Zoom, a search), with the files' sizes and element counts.
#
# prof-svg is measured twice: as it writes by default (at most 4000 frames
# drawn) and with flamegraph.pl's --minwidth 0.1, which draws the same
# frames flamegraph.pl does.  flamegraph.pl is not packaged by Debian: set
# FLAMEGRAPH_PL to a copy to compare with it.  RUNS (5) runs of each;
# SEARCH holds the regular expressions searched for, separated by spaces:
# by default one name in twenty and nearly every name.
#
# The same stacks timed, spread over 30 s of 10 ms slots, are measured too
# (prof-svg's time view): their load, and a drag over the heatmap that
# draws a range (RANGES, seconds), until it is painted.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
SVG="$BUILD/bin/prof-svg"
GEN="$BUILD/workloads/gen_cxx_stacks"
WORK=${BENCH_DIR:-$BUILD/bench}
IN="$WORK/svg-browser-cxx-200k.folded"
RUNS=${RUNS:-5}
SEARCH=${SEARCH:-std:: ::}
mkdir -p "$WORK"

[ -x "$SVG" ] || { echo "svg-browser.sh: $SVG not built" >&2; exit 1; }
[ -x "$GEN" ] || { echo "svg-browser.sh: $GEN not built (make workloads)" >&2; exit 1; }
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ] || [ ! -d tests/browser/node_modules/playwright-core ]; then
	echo "browser: skipped (needs chromium and npm ci --prefix tests/browser)"
	exit 0
fi

# Deep stacks of long, template-heavy C++ names, as a server's profile has.
if [ ! -s "$IN" ] || [ "$GEN" -nt "$IN" ] || [ "$(wc -l < "$IN")" -ne 200000 ]; then
	"$GEN" 200000 > "$IN.tmp" && mv "$IN.tmp" "$IN" || exit 1
fi
echo "input: $IN, $(wc -l < "$IN") stacks, $(($(wc -c < "$IN") / 1000000)) MB"

"$SVG" -o "$WORK/svg-browser.svg" "$IN" || exit 1
"$SVG" --minwidth 0.1 -o "$WORK/svg-browser-all.svg" "$IN" || exit 1
set -- prof-svg="$WORK/svg-browser.svg" minwidth-0.1="$WORK/svg-browser-all.svg"
if [ -n "${FLAMEGRAPH_PL:-}" ] && [ -f "$FLAMEGRAPH_PL" ]; then
	FG="$WORK/svg-browser-flamegraph-pl.svg"
	# flamegraph.pl takes most of a minute: its SVG is kept while the input is.
	if [ ! -s "$FG" ] || [ "$IN" -nt "$FG" ]; then
		perl "$FLAMEGRAPH_PL" "$IN" > "$FG.tmp" && mv "$FG.tmp" "$FG" || exit 1
	fi
	set -- flamegraph.pl="$FG" "$@"
else
	echo "flamegraph.pl: skipped (set FLAMEGRAPH_PL to a copy of it)"
fi
# Timed: each stack in one of 3,000 slots, as prof-fold --timed writes them.
TIMED="$WORK/svg-browser-cxx-200k.timed"
if [ ! -s "$TIMED" ] || [ "$IN" -nt "$TIMED" ]; then
	awk '{ printf "%d\t%s\n", (NR * 7919) % 3000, $0 }' "$IN" | sort -s -n -k1,1 |
		awk -F'\t' 'BEGIN { last = -1 } $1 != last { printf "[time: %d.%02d0000000 0.010000000] 0\n", $1 / 100, $1 % 100; last = $1 } { print $2 }' \
		>"$TIMED.tmp" && mv "$TIMED.tmp" "$TIMED" || exit 1
fi
"$SVG" -o "$WORK/svg-browser-timed.svg" "$TIMED" || exit 1
set -- "$@" timed="$WORK/svg-browser-timed.svg"
for r in ${RANGES:-0-1.5 3-10 12-20 0-30}; do set -- --range "$r" "$@"; done
echo "prof-svg: as written by default; minwidth-0.1: prof-svg --minwidth 0.1, flamegraph.pl's frames;"
echo "timed: prof-svg of the same stacks in 3,000 slots of 10 ms, with its heatmap"
set -f
rev=
for re in $SEARCH; do rev="$re $rev"; done
for re in $rev; do set -- --search "$re" "$@"; done
node tests/browser/bench.js --runs "$RUNS" "$@"
