#!/bin/sh
# prof-symbolize throughput in addresses per second, on one address list,
# side by side with eu-addr2line and llvm-symbolizer (batch mode: addresses
# on stdin), function names only and with inlined frames and source lines.
#
# The ratio to llvm-symbolizer is on CPU time, which other load on the
# machine does not inflate; wall times are printed too.
#
# The list: every 3rd byte of every function of libc (its debug symbols
# from libc6-dbg), ~300,000 addresses.  Each tool reads the whole list in
# one process, so the figures include loading the debug information.
# prof-symbolize reads a capture holding the same addresses (made by
# mkcapture, outside the timing), either 32 to a stack, as in a real
# profile, or one per stack, its worst case (each stack and sample record
# costs more than a lookup).  Not a test: nothing here passes or fails.
#
# The floor: reading the input once from the page cache (cat of the
# capture, libc and its debug file), which any symbolizer must do; each
# prof-symbolize row says how many times that it took.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
BUILD=${BUILD:-build}
SYM=$BUILD/bin/prof-symbolize
MK=$BUILD/workloads/mkcapture
LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6

[ -x "$SYM" ] && [ -x "$MK" ] || { echo "symbolize: $SYM or $MK not built; run make all workloads" >&2; exit 1; }
id=$(eu-readelf -n "$LIBC" 2> /dev/null | awk '/Build ID:/ { print $3 }')
DBG=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
[ -f "$DBG" ] || { echo "symbolize: skipped: libc6-dbg is not installed"; exit 0; }
LLVM=$(command -v llvm-symbolizer || ls /usr/bin/llvm-symbolizer-* 2> /dev/null | head -1)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/symbolize-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

export PROF_WORKLOADS=$BUILD/workloads TMP=$tmp
. "$(dirname "$0")/../symbolize_agree.bash"
pick_addresses "$DBG" 0 3 > "$tmp/addrs"
n=$(wc -l < "$tmp/addrs")
sed 's/^/0x/' "$tmp/addrs" > "$tmp/addrs0x"
# eu-addr2line is ~10x slower than the rest: a tenth of the list, once.
awk 'NR % 10 == 0' "$tmp/addrs0x" > "$tmp/addrs0x.tenth"
tenth=$(wc -l < "$tmp/addrs0x.tenth")
MKCAPTURE_DEPTH=32 "$MK" "$LIBC" < "$tmp/addrs" > "$tmp/deep.prof"
"$MK" "$LIBC" < "$tmp/addrs" > "$tmp/flat.prof"
cat "$LIBC" "$DBG" "$tmp"/*.prof > /dev/null # warm the page cache

# best CMD...: over $runs runs (default 3), the best wall time in $secs and
# the best CPU time (user + system: immune to other load on the machine) in
# $cpu, in seconds (stdin from $in).
best() {
	secs= cpu=
	for _ in $(seq "${runs:-3}"); do
		t0=$(date +%s%N)
		/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" < "$in" > /dev/null 2>&1
		t1=$(date +%s%N)
		t=$(awk -v t=$(( t1 - t0 )) 'BEGIN { printf "%.3f", t / 1e9 }')
		c=$(awk '{ printf "%.3f", $1 + $2 }' "$tmp/time")
		if [ -z "$secs" ] || awk -v a="$t" -v b="$secs" 'BEGIN { exit !(a < b) }'; then secs=$t; fi
		if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then cpu=$c; fi
	done
}

row() { # NAME [ADDRESSES [READ-CPU]]
	awk -v name="$1" -v s="$secs" -v c="$cpu" -v n="${2:-$n}" -v all="$n" -v ref="${ref:-0}" \
		-v floor="${3:-0}" 'BEGIN {
		if (c < 0.001) c = 0.001
		printf "  %-52s %7.3f s wall %9.0f addr/s, %7.3f s CPU %9.0f addr/s", name, s, n / s, c, n / c
		if (ref > 0) printf "  %6.2fx llvm-symbolizer (CPU)", (n / c) / (all / ref)
		if (floor > 0) printf ", %.0fx the read", c / floor
		printf "\n" }'
}

echo "symbolize: $n addresses of $LIBC (debug info from libc6-dbg)"
echo "reading the input once from the page cache (the floor):"
declare -A floor
for p in deep flat; do
	# Ten reads a run: one is below time(1)'s hundredth of a second.
	in=/dev/null best sh -c 'for i in 0 1 2 3 4 5 6 7 8 9; do cat "$@"; done' sh \
		"$tmp/$p.prof" "$LIBC" "$DBG"
	secs=$(awk -v t="$secs" 'BEGIN { printf "%.4f", t / 10 }')
	cpu=$(awk -v t="$cpu" 'BEGIN { printf "%.4f", t / 10 }')
	floor[$p]=$cpu
	row "cat $p.prof libc.so.6 libc.debug ($(( ($(stat -c %s "$tmp/$p.prof" "$LIBC" "$DBG" | paste -sd+)) / 1048576 )) MiB)"
done
for mode in names inline; do
	if [ $mode = names ]; then
		echo "function names only:"
		opts=() llvm=(--no-inlines) eu=(-f)
	else
		echo "with inlined frames and file:line:"
		opts=(--inline --lines) llvm=(--inlines) eu=(-f -i)
	fi
	ref=
	if [ -n "$LLVM" ]; then
		in=$tmp/addrs0x best "$LLVM" --obj="$LIBC" "${llvm[@]}"
		ref=$cpu
		row "$(basename "$LLVM") ${llvm[*]}"
	fi
	in=$tmp/addrs0x.tenth runs=1 best eu-addr2line "${eu[@]}" -e "$LIBC"
	row "eu-addr2line ${eu[*]} (a tenth of the list)" "$tenth"
	in=/dev/null best "$SYM" "${opts[@]}" "$tmp/deep.prof"
	row "prof-symbolize ${opts[*]} (32 frames a stack)" "$n" "${floor[deep]}"
	in=/dev/null best "$SYM" "${opts[@]}" "$tmp/flat.prof"
	row "prof-symbolize ${opts[*]} (1 frame a stack)" "$n" "${floor[flat]}"
done
