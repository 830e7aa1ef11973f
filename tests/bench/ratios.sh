#!/bin/bash
# Every stage's speed in one table, each row a ratio: to the tool a user
# would otherwise run on the same input (its anchor), and to reading the
# input once (cat FILE >/dev/null: the read limit, the floor for any
# tool).  Both commands of a pair run under sh -c, A's output read by
# farm-bench through a pipe.  Every figure is farm-bench's median of
# paired runs (A B A B ...), CPU time
# (user + system) of the whole process, start-up included; memory is the
# peak of the largest process.  tests/bench/run runs it last, after
# fold.sh has kept its capture of this host, busy.
#
# The rows: prof-fold on that capture's perf script (with the floors under
# it: splitting the lines, and a little of the least work of a folder) and
# on the corpus' example-perf-stacks made 100 MB, against
# stackcollapse-perf.pl;
# prof-svg on 50,000 and 200,000 deep C++ stacks, given as files (read as
# a stream: they are sorted) and through a pipe (the tree), and on the
# fold of that capture, against flamegraph.pl, each with the floor of a
# renderer that looks at each frame once; prof-symbolize | prof-fold on a 20 s
# system-wide capture of this host compiling, against perf script |
# stackcollapse-perf.pl on perf's capture of the next 20 s (one after the
# other: perf and prof-sample side by side disturb each other).  The
# Perl tools are not packaged by Debian: FLAMEGRAPH_PL and
# STACKCOLLAPSE_PL name copies; without them a row has its read limit
# only.  RUNS (5) pairs a row, 3 for flamegraph.pl at 200,000 stacks.
# Not a test: nothing here passes or fails.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
BIN=$BUILD/bin
WORK=${BENCH_DIR:-$BUILD/bench}
CORPUS=${PROF_CORPUS:-../shared/corpus}
RUNS=${RUNS:-5}
SECS=${BENCH_RATIOS_SECONDS:-20}
FG=${FLAMEGRAPH_PL:-}
SC=${STACKCOLLAPSE_PL:-$(command -v stackcollapse-perf.pl || true)}
TMP=$(mktemp -d)
load=
trap '[ -n "$load" ] && kill -- -"$load" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
. tests/bench/sampling.bash

command -v farm-bench >/dev/null || { echo "ratios: skipped: needs farm-bench"; exit 0; }
[ -x "$BIN/prof-svg" ] || { echo "ratios: $BIN not built; run make" >&2; exit 1; }
mkdir -p "$WORK"

# figure LABEL [K]: of farm-bench's row LABEL in $TMP/fb, the median, or
# with K -1 the min and with K 1 the max.
figure() {
	awk -v l="$1" -v k="${2:-0}" 'index($0, l) == 1 { print $(NF - 1 + k); exit }' "$TMP/fb"
}

# pair N A B: farm-bench N runs of the shell command A against B; sets
# a_cpu, b_cpu, ratio (A/B of CPU, pair by pair) and its range over the
# pairs (lo, hi), a_mib, b_mib.
pair() {
	farm-bench -n "$1" --timeout 3000 --vs "sh -c '$3'" -- sh -c "$2" >"$TMP/fb" 2>&1 ||
		{ sed 's/^/  /' "$TMP/fb" >&2; return 1; }
	a_cpu=$(figure 'A cpu s') b_cpu=$(figure 'B cpu s') ratio=$(figure 'A/B cpu')
	lo=$(figure 'A/B cpu' -1) hi=$(figure 'A/B cpu' 1)
	a_mib=$(figure 'A peak MiB') b_mib=$(figure 'B peak MiB')
}

printf '%-44s %9s %9s %9s %9s %8s %11s %9s %9s\n' row "ours s" "anchor s" "x anchor" "read s" "x read" \
	"(pairs)" "ours MiB" "anc. MiB"
# row NAME INPUT OURS [ANCHOR [RUNS]]: OURS and ANCHOR are shell commands.
row() {
	local name=$1 in=$2 ours=$3 anchor=${4:-} n=${5:-$RUNS} x=- anc=- amib=- read rx range
	if [ -n "$anchor" ]; then
		pair "$n" "$ours" "$anchor" || return
		anc=$b_cpu amib=$b_mib
		x=$(awk -v r="$ratio" 'BEGIN { printf "%.1fx", (r > 0 ? 1 / r : 0) }')
	fi
	pair "$RUNS" "$ours" "cat $in >/dev/null" || return
	read=$b_cpu
	rx=$(awk -v r="$ratio" 'BEGIN { printf "%.1fx", r }')
	range=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.1f-%.1f", a, b }')
	printf '%-44s %9s %9s %9s %9s %8s %11s %9s %9s\n' "$name" "$a_cpu" "$anc" "$x" "$read" "$rx" \
		"$range" "$a_mib" "$amib"
}

# The floors under a row (tests/bench/*_floor.c): the least work any
# program doing the row's job does, on the same line reader, as ratios to
# the read too.
FLOORS=$BUILD/bench-tools
fold_floors() {
	[ -x "$FLOORS/fold_floor" ] || return 0
	row "  floor: lines split" "$1" "$FLOORS/fold_floor lines $1"
	row "  floor: + frame keys found, hashed" "$1" "$FLOORS/fold_floor keys $1"
	row "  floor: + ids by hash, stacks counted" "$1" "$FLOORS/fold_floor stacks $1"
}
svg_floor() {
	[ -x "$FLOORS/svg_floor" ] || return 0
	row "  floor: frames split, counts summed" "$1" "$FLOORS/svg_floor $1" "" "${2:-$RUNS}"
}

REAL=$WORK/fold-busy-host.perf-script
if [ -s "$REAL" ]; then
	row "prof-fold, busy host ($(($(wc -c <"$REAL") / 1000000)) MB perf script)" "$REAL" \
		"$BIN/prof-fold $REAL" "${SC:+perl $SC $REAL}"
	fold_floors "$REAL"
	"$BIN/prof-fold" "$REAL" -o "$WORK/fold-busy-host.folded"
else
	echo "(no capture of this host in $REAL: fold.sh makes it)"
fi
SEED=$CORPUS/flamegraph/example-perf-stacks.txt.gz
CORP=$WORK/corpus-100mb.perf-script
if [ -f "$SEED" ]; then
	if [ ! -s "$CORP" ]; then
		zcat "$SEED" >"$TMP/seed"
		: >"$CORP.tmp"
		while [ "$(wc -c <"$CORP.tmp")" -lt 100000000 ]; do
			cat "$TMP/seed" >>"$CORP.tmp"
		done
		mv "$CORP.tmp" "$CORP"
	fi
	row "prof-fold, corpus perf script x N (100 MB)" "$CORP" "$BIN/prof-fold $CORP" "${SC:+perl $SC $CORP}"
fi
for n in 50000 200000; do
	in=$WORK/cxx-$n.folded
	if [ ! -s "$in" ] || [ "$(wc -l <"$in")" -ne "$n" ]; then
		"$BUILD/workloads/gen_cxx_stacks" "$n" >"$in.tmp" && mv "$in.tmp" "$in" || exit 1
	fi
	runs=$RUNS
	[ "$n" = 200000 ] && runs=3
	row "prof-svg, $n deep C++ stacks ($(($(wc -c <"$in") / 1000000)) MB)" "$in" \
		"$BIN/prof-svg -o /dev/null $in" "${FG:+perl $FG $in}" "$runs"
	# From a pipe, as prof-fold | prof-svg: through the tree (no anchor:
	# flamegraph.pl's figure is the row above's).
	row "  the same from a pipe (the tree; cat in)" "$in" "cat $in | $BIN/prof-svg -o /dev/null" "" "$runs"
	svg_floor "$in" "$runs"
done
if [ -s "$WORK/fold-busy-host.folded" ]; then
	in=$WORK/fold-busy-host.folded
	row "prof-svg, the busy host's fold ($(wc -l <"$in") stacks)" "$in" \
		"$BIN/prof-svg -o /dev/null $in" "${FG:+perl $FG $in}"
	svg_floor "$in"
fi

# The path from a capture to folded stacks, each tool's own capture of
# this host compiling.
if [ "$(id -u)" -eq 0 ] && command -v perf >/dev/null; then
	CAP=$WORK/ratios-busy.prof PD=$WORK/ratios-busy.perf.data
	if [ ! -s "$CAP" ] || [ ! -s "$PD" ]; then
		echo "(recording this host compiling: ${SECS} s with prof-sample, then ${SECS} s with perf)"
		compile_load
		sleep 3
		"$BIN/prof-sample" -a -q -d "$SECS" -o "$CAP"
		perf record -q -a -g -F 99 -o "$PD" -- sleep "$SECS" >/dev/null 2>&1
		kill -- -"$load" 2>/dev/null
		wait "$load" 2>/dev/null
		load=
	fi
	anchor=
	[ -n "$SC" ] && anchor="perf script -i $PD 2>/dev/null | perl $SC"
	row "prof-symbolize | prof-fold, ${SECS} s of this host" "$CAP" \
		"$BIN/prof-symbolize $CAP 2>/dev/null | $BIN/prof-fold" "$anchor"
else
	echo "(prof-symbolize | prof-fold: needs root and perf to record)"
fi
echo "x anchor: the anchor's CPU time over ours; x read: ours over cat's of the same input"
echo "(pairs): the least and the most x read of one pair of runs: how noisy the machine was"
[ -n "$FG" ] || echo "(flamegraph.pl: set FLAMEGRAPH_PL to a copy of it)"
[ -n "$SC" ] || echo "(stackcollapse-perf.pl: on PATH, or STACKCOLLAPSE_PL)"
