#!/bin/bash
# Off-CPU profiling's cost under a storm of context switches: perf bench
# sched pipe (two processes passing a byte back and forth, each operation a
# block and a wake-up) with no profiler; with bpftrace taking a kernel and a
# user stack at every switch-out, as bcc's offcputime does
# (offcpu_stacks.bt; Debian 12's perf has no --off-cpu); and with
# prof-sample --off-cpu system-wide, --unwind=fp and its default, dwarf.
# For each, the median over BENCH_RUNS rounds (the configurations take
# turns, so a change in the host's load spreads over all of them): the
# benchmark's usecs/op, its slowdown against no profiler, the profiler's own
# CPU seconds (its rusage, with a child that only sleeps), of which its
# start-up and end (the same profiler started and stopped with nothing to
# run: loading and verifying BPF programs, bpftrace's compiling), the blocks
# prof-sample lost (a full ring or map, of all it saw; the median and the
# worst round), the blocks counted with the stack walked as they began
# because their copy could not be made (walked), and the capture's size.  Then the size of a 30 s system-wide off-CPU capture of this host.
# Not a test: nothing here passes or fails.  Needs root.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
BIN=$BUILD/bin
LOOPS=${BENCH_PIPE_LOOPS:-200000} # about 5 s without a profiler on 2 CPUs
RUNS=${BENCH_RUNS:-3}
TMP=$(mktemp -d)
TRACEFS=/sys/kernel/tracing
mounted=
trap '[ -n "$mounted" ] && umount "$TRACEFS"; rm -rf "$TMP"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "offcpu.sh: needs root" >&2; exit 1; }
[ -x "$BIN/prof-sample" ] || { echo "offcpu.sh: $BIN/prof-sample not built; run make" >&2; exit 1; }
perf bench sched pipe -l 1 >/dev/null 2>&1 || { echo "offcpu: skipped: needs perf bench"; exit 0; }

configs="none fp dwarf"
if ! command -v bpftrace >/dev/null; then
	echo "(bpftrace not installed: its row is skipped)"
else
	# Debian 12's bpftrace attaches tracepoints through tracefs.
	if [ ! -d "$TRACEFS/events" ] && mount -t tracefs nodev "$TRACEFS"; then
		mounted=1
	fi
	configs="none bpftrace fp dwarf"
fi

# Profilers run until this holder exits: they start it once they are
# attached, so its PID file says they are ready.
cat >"$TMP/hold" <<'EOF'
echo $$ >"$1"
exec sleep 100000
EOF

# profiler CONFIG: that profiler's command line, holder included, in $cmd.
profiler() {
	# (bpftrace -c runs ELF files only)
	local hold=(/bin/sh "$TMP/hold" "$TMP/hold.pid")
	local sample=("$BIN/prof-sample" --off-cpu -a -v -o "$TMP/cap.prof")

	case $1 in
	bpftrace) cmd=(bpftrace -c "${hold[*]}" tests/bench/offcpu_stacks.bt) ;;
	fp) cmd=("${sample[@]}" --unwind=fp -- "${hold[@]}") ;;
	dwarf) cmd=("${sample[@]}" -- "${hold[@]}") ;;
	esac
}

# pipe_usecs: one run of the benchmark, its usecs/op.
pipe_usecs() {
	perf bench sched pipe -l "$LOOPS" 2>/dev/null | awk '/usecs\/op/ { print $1 }'
}

# measure CONFIG [idle]: one round under that profiler; appends "usecs cpu
# bytes lost% walked%" to $TMP/CONFIG ("-" where there is no figure).  idle: the
# profiler is stopped as soon as it is ready, and only its CPU is appended,
# to $TMP/CONFIG.idle.
measure() {
	local cfg=$1 idle=${2:-} usecs cpu=- bytes=- lost=- walked=- pid i cmd

	if [ "$cfg" = none ]; then
		echo "$(pipe_usecs) - - - -" >>"$TMP/$cfg"
		return
	fi
	rm -f "$TMP/hold.pid" "$TMP/cap.prof"
	rm -rf "$TMP/cache"
	profiler "$cfg"
	PROF_BUILD_ID_DIR=$TMP/cache /usr/bin/time -f '%U %S' -o "$TMP/time" \
		"${cmd[@]}" >"$TMP/out" 2>"$TMP/stderr" &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		[ -s "$TMP/hold.pid" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ ! -s "$TMP/hold.pid" ]; then
		echo "offcpu.sh: $cfg did not start: $(tail -1 "$TMP/stderr")" >&2
		kill "$pid" 2>/dev/null
		wait "$pid"
		return
	fi
	[ -z "$idle" ] && usecs=$(pipe_usecs)
	kill "$(cat "$TMP/hold.pid")"
	wait "$pid"
	# The last line: GNU time first says the status the holder's kill left.
	cpu=$(awk 'END { printf "%.2f", $1 + $2 }' "$TMP/time")
	if [ -n "$idle" ]; then
		echo "$cpu" >>"$TMP/$cfg.idle"
		return
	fi
	if [ -f "$TMP/cap.prof" ]; then
		bytes=$(stat -c %s "$TMP/cap.prof")
		"$BIN/prof-symbolize" "$TMP/cap.prof" 2>/dev/null >"$TMP/frames"
		seen=$(sed -nE 's/^prof-sample: ([0-9]+) blocks,.*/\1/p' "$TMP/stderr")
		lost=$(awk -v seen="$seen" '/^# lost (ring-full|count-map-full|switch-untimed) / { n += $4 }
			 END { printf "%.2f", seen + n ? 100 * n / (seen + n) : 0 }' "$TMP/frames")
		walked=$(awk -v seen="$seen" '/^# lost block-stack-walked / { n += $4 }
			 END { printf "%.2f", seen ? 100 * n / seen : 0 }' "$TMP/frames")
	fi
	echo "$usecs $cpu $bytes $lost $walked" >>"$TMP/$cfg"
}

# worst FILE COLUMN: the largest figure of the rounds.
worst() {
	cut -d' ' -f"$2" "$1" | grep -v '^-$' | sort -g | tail -1 | grep . || echo -
}

# median FILE COLUMN
median() {
	cut -d' ' -f"$2" "$1" | grep -v '^-$' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "-" }'
}

for ((r = 0; r < RUNS; r++)); do
	for cfg in $configs; do
		measure "$cfg"
		[ "$cfg" != none ] && measure "$cfg" idle
	done
done

echo "perf bench sched pipe -l $LOOPS, system-wide profilers, median of $RUNS rounds"
printf '%-42s %9s %9s %10s %10s %10s %8s %9s %8s\n' profiler usecs/op slowdown "own CPU s" "start-up" \
	"capture" "lost" "lost max" "walked"
base=$(median "$TMP/none" 1)
for cfg in $configs; do
	[ -s "$TMP/$cfg" ] || { printf '%-42s %9s\n' "$cfg" "failed"; continue; }
	case $cfg in
	none) name="no profiler" ;;
	bpftrace) name="bpftrace offcpu_stacks.bt (kstack+ustack)" ;;
	fp) name="prof-sample --off-cpu -a --unwind=fp" ;;
	dwarf) name="prof-sample --off-cpu -a (dwarf)" ;;
	esac
	usecs=$(median "$TMP/$cfg" 1)
	bytes=$(median "$TMP/$cfg" 3)
	[ "$bytes" != - ] && bytes="$((${bytes%.*} / 1024)) KiB"
	lost=$(median "$TMP/$cfg" 4)
	[ "$lost" != - ] && lost="$lost%"
	lost_max=$(worst "$TMP/$cfg" 4)
	[ "$lost_max" != - ] && lost_max="$lost_max%"
	walked=$(median "$TMP/$cfg" 5)
	[ "$walked" != - ] && walked="$walked%"
	startup=-
	[ -s "$TMP/$cfg.idle" ] && startup=$(median "$TMP/$cfg.idle" 1)
	printf '%-42s %9s %8.2fx %10s %10s %10s %8s %9s %8s\n' "$name" "$usecs" \
		"$(echo "$usecs / $base" | bc -l)" "$(median "$TMP/$cfg" 2)" "$startup" "$bytes" "$lost" \
		"$lost_max" "$walked"
done

echo
echo "30 s system-wide off-CPU capture of this host (prof-sample --off-cpu -a, dwarf)"
rm -rf "$TMP/cache"
if PROF_BUILD_ID_DIR=$TMP/cache /usr/bin/time -f '%U %S' -o "$TMP/time" \
	"$BIN/prof-sample" --off-cpu -a -q -d 30 -o "$TMP/30s.prof" 2>"$TMP/stderr"; then
	printf '  %d KiB, own CPU %s s\n' "$(($(stat -c %s "$TMP/30s.prof") / 1024))" \
		"$(awk '{ printf "%.2f", $1 + $2 }' "$TMP/time")"
else
	echo "  failed: $(tail -1 "$TMP/stderr")"
fi
