#!/bin/sh
# make demo: profile a bundled workload built as distributions build code
# (optimized, without frame pointers, calling through libc's qsort) through
# the whole pipeline, and write a flame graph whose stacks go from main down.
# Needs root (prof-sample loads a BPF program).
set -eu
out=${1:-demo.svg}
bin=${BUILD:-build}/bin
if [ "$(id -u)" -ne 0 ]; then
	echo "demo: prof-sample needs root (or CAP_BPF and CAP_PERFMON)" >&2
	exit 2
fi
"${BUILD:-build}/workloads/nofp" 4 &
pid=$!
"$bin/prof-sample" -d 3 -p "$pid" | "$bin/prof-symbolize" | "$bin/prof-fold" |
	"$bin/prof-svg" --title "prof demo: code without frame pointers" > "$out"
wait "$pid"
echo "demo: wrote $out"
