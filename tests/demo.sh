#!/bin/sh
# make demo: profile the bundled chain workload through the whole pipeline
# and write a flame graph.  Needs root (prof-sample loads a BPF program).
set -eu
out=${1:-demo.svg}
bin=${BUILD:-build}/bin
if [ "$(id -u)" -ne 0 ]; then
	echo "demo: prof-sample needs root (or CAP_BPF and CAP_PERFMON)" >&2
	exit 2
fi
"${BUILD:-build}/workloads/chain" 4 &
pid=$!
"$bin/prof-sample" -d 3 -p "$pid" | "$bin/prof-symbolize" | "$bin/prof-fold" |
	"$bin/prof-svg" --title "prof demo: chain workload" > "$out"
wait "$pid"
echo "demo: wrote $out"
