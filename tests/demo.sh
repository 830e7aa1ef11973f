#!/bin/sh
# make demo: the whole pipeline on a few seconds of a small, busy system,
# so the first graph shows what the profiler is for: several processes,
# each complete from its start down; code built as distributions build it
# (a bundled workload without frame pointers calling back through libc's
# qsort, and Debian's xz and liblzma); kernel frames (dd copying through
# read and write); and JIT code named by a perf map (Node.js, when it is
# installed, as the set-up installs it).  Kernel and JIT frames are
# coloured apart, with a legend.  DEMO_FOLDED=FILE keeps the folded stacks
# the graph is drawn from.  Needs root (prof-sample loads a BPF
# program).
set -eu
out=${1:-demo.svg}
secs=${DEMO_SECONDS:-3} # whole seconds
bin=${BUILD:-build}/bin
if [ "$(id -u)" -ne 0 ]; then
	echo "demo: prof-sample needs root (or CAP_BPF and CAP_PERFMON)" >&2
	exit 2
fi
# COMMAND and everything it starts is sampled, from its first instruction.
# (Node.js runs in the scratch directory: --perf-basic-prof also leaves a
# V8 log in the current one.)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin/prof-sample" -q -F 199 -- sh -c '
	"$1/nofp" "$3" &
	timeout "$3" dd if=/dev/zero of=/dev/null bs=64k 2>/dev/null &
	head -c 40000000 /dev/urandom > "$2/data" && timeout "$3" xz -6 -T1 -c "$2/data" > /dev/null &
	if command -v node > /dev/null; then
		(cd "$2" && exec node --perf-basic-prof -e "
			function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
			for (const end = Date.now() + $3 * 1000; Date.now() < end;) fib(24);") &
		node=$!
	fi
	wait
	rm -f "/tmp/perf-${node:-none}.map"' sh "$(cd "${BUILD:-build}/workloads" && pwd)" "$work" "$secs" |
	"$bin/prof-symbolize" | "$bin/prof-fold" --all | tee "${DEMO_FOLDED:-/dev/null}" |
	"$bin/prof-svg" --title "prof demo: processes, libraries, kernel and JIT frames" > "$out"
echo "demo: wrote $out"
