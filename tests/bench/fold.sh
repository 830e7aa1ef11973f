#!/bin/bash
# prof-fold throughput and peak RSS on a real perf script: `perf record -a
# -g` of this host while it runs varied software (compilers, python3, perl,
# node with JIT frames, xz and gzip, find and ls), side by side with
# stackcollapse-perf.pl (STACKCOLLAPSE_PL, else PATH; else the brief's
# figure, marked as not measured) and with the time to read the input once
# from the page cache, the floor no folder gets under.  Then the corpus'
# example-perf-stacks, concatenated to 100 MB.
#
# The capture is made once and kept in $BENCH_DIR (default $BUILD/bench):
# recording loads the machine for BENCH_FOLD_SECONDS (default 25) and
# perf script takes a minute more.  Then 2 GB of perf script, the capture
# repeated with other PIDs and command names, streamed through a pipe into
# prof-fold for its peak RSS (some 40 s; BENCH_BIG=0 leaves it out).
set -u
BUILD=${BUILD:-build}
CORPUS=${PROF_CORPUS:-../shared/corpus}
FOLD=$BUILD/bin/prof-fold
WORK=${BENCH_DIR:-$BUILD/bench}
REAL=$WORK/fold-busy-host.perf-script
SECS=${BENCH_FOLD_SECONDS:-25}
HZ=${BENCH_FOLD_HZ:-4999}
SEED=$CORPUS/flamegraph/example-perf-stacks.txt.gz
MIN_BYTES=$((100 * 1000 * 1000))
BIG_BYTES=$((2000 * 1000 * 1000))

[ -x "$FOLD" ] || { echo "fold: $FOLD not built; run make" >&2; exit 1; }
command -v /usr/bin/time > /dev/null || { echo "fold: skipped: needs /usr/bin/time"; exit 0; }
PERL_TOOL=${STACKCOLLAPSE_PL:-$(command -v stackcollapse-perf.pl || true)}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fold-bench.XXXXXX")
loads=()
stop_loads() {
	for pg in "${loads[@]}"; do
		kill -KILL -- "-$pg" 2> /dev/null
	done
	wait 2> /dev/null
	loads=()
}
trap 'stop_loads; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# load SCRIPT ARGS...: runs sh -c SCRIPT niced, in a process group of its
# own (its id in loads[]), killed by timeout should this script die first.
load() {
	setsid nice -n 10 timeout -s KILL $((SECS + 120)) sh -c "$@" > /dev/null 2>&1 &
	loads+=($!)
}

# The busy host: each load is a loop of real programs with deep, varied
# stacks, user and kernel.
start_loads() {
	git ls-files -z | tar -c --null -T - | (mkdir "$tmp/src" && tar -x -C "$tmp/src")
	load 'while :; do make -s -C "$1/src" BUILD="$1/b" all; rm -rf "$1/b"; done' sh "$tmp"
	load 'exec python3 -c "
import json, re, zlib, random, decimal, collections
words = [\"%x\" % random.getrandbits(40) for _ in range(20000)]
while True:
    d = collections.Counter(w[:3] for w in words)
    s = json.dumps({k: [v, str(decimal.Decimal(v) / 7)] for k, v in d.items()})
    json.loads(zlib.decompress(zlib.compress(s.encode())))
    sorted(re.findall(r\"[0-9]+[a-f]+\", s))
"'
	load 'exec perl -e "
my @w = map { sprintf q(%x), rand(2**40) } 1 .. 20000;
while (1) { my %h; \$h{substr(\$_, 0, 3)}++ for @w;
	my \$s = join q(,), map { qq(\$_=\$h{\$_}) } sort keys %h;
	my @m = \$s =~ /([0-9]+[a-f]+)/g; @w = reverse @w; }"'
	command -v node > /dev/null &&
		load 'cd "$1" && exec node --perf-basic-prof -e "
require(\"fs\").writeFileSync(process.argv[1], String(process.pid));
function key(w) { return w.slice(0, 3); }
function count(ws) { const m = new Map(); for (const w of ws) m.set(key(w), (m.get(key(w)) || 0) + 1); return m; }
function render(m) { return JSON.stringify([...m].sort((a, b) => b[1] - a[1])); }
const ws = Array.from({ length: 20000 }, () => Math.random().toString(16).slice(2));
for (;;) { const s = render(count(ws)); JSON.parse(s); s.match(/[0-9]+[a-f]+/g); ws.reverse(); }
" "$1/node.pid"' sh "$tmp"
	load 'while :; do xz -1 -T1 -c < /usr/bin/perf | xz -d | gzip -1 | gzip -d > /dev/null; done'
	load 'while :; do find /usr/include /usr/share -name "*.h" | sort | md5sum; ls -lR /usr/lib > /dev/null; done'
}

# The capture of a busy host, once: later runs reuse it.
capture() {
	[ -s "$REAL" ] && return 0
	if [ "$(id -u)" != 0 ] || ! command -v perf > /dev/null; then
		echo "fold: no capture of this host (needs perf and root): corpus only"
		return 1
	fi
	mkdir -p "$WORK" || return 1
	echo "fold: recording this host, busy, for ${SECS}s at ${HZ} Hz (once; kept in $REAL)"
	start_loads
	sleep 3 # past the loads' start-up
	perf record -q -a -g -F "$HZ" -o "$tmp/perf.data" -- sleep "$SECS" > /dev/null 2>&1
	stop_loads
	perf script -i "$tmp/perf.data" > "$tmp/script" 2> /dev/null &&
		mv "$tmp/script" "$REAL"
	[ -s "$tmp/node.pid" ] && rm -f "/tmp/perf-$(cat "$tmp/node.pid").map"
	rm -f "$tmp/perf.data"
	[ -s "$REAL" ]
}

# The CPU time (user + system, seconds) of this shell's children so far,
# as `times` wrote it to FILE, to the millisecond: /usr/bin/time's %U and
# %S count hundredths, too coarse for a tenth of a second.  (times runs
# in this shell: in a $(...) it would count the subshell's.)
children_cpu() {
	awk 'END { split($0, f, /[ ms]+/); print f[1] * 60 + f[2] + f[3] * 60 + f[4] }' "$1"
}

# run RUNS CMD...: over RUNS runs on $in, the best wall time in $secs,
# the best CPU time (user + system of CMD and of the /usr/bin/time that
# reads its peak RSS, immune to the other load on the machine) in $cpu,
# and the peak RSS in KB in $rss.  The output goes to $tmp/out, or $OUT.
run() {
	local runs=$1 t0 t1 c0 c1
	shift
	secs= cpu= rss=
	for ((i = 0; i < runs; i++)); do
		t0=$(date +%s%N)
		times > "$tmp/c0"
		/usr/bin/time -f '%M' -o "$tmp/time" "$@" < "$in" > "${OUT:-$tmp/out}" 2> /dev/null
		times > "$tmp/c1"
		t1=$(date +%s%N)
		c0=$(children_cpu "$tmp/c0")
		c1=$(children_cpu "$tmp/c1")
		read -r rss < "$tmp/time"
		secs=$(awk -v a="$t0" -v b="$t1" -v best="$secs" 'BEGIN {
			t = (b - a) / 1e9; if (best != "" && best < t) t = best; printf "%.3f", t }')
		cpu=$(awk -v a="$c0" -v b="$c1" -v best="$cpu" 'BEGIN {
			t = b - a; if (best != "" && best < t) t = best; printf "%.3f", t }')
	done
}

mbs() {
	awk -v n="$bytes" -v t="$1" 'BEGIN { printf "%.0f", n / 1e6 / (t > 0 ? t : 0.01) }'
}

row() {
	printf '%-24s %8s %8s %8s %8s %9s MB\n' "$1" "$secs" "$(mbs "$secs")" "$cpu" "$(mbs "$cpu")" "$((rss / 1024))"
}

# compare NAME: prof-fold, the page-cache floor and the Perl tool on $in.
compare() {
	local fold_secs fold_cpu
	bytes=$(wc -c < "$in")
	cat "$in" > /dev/null # warm the page cache
	echo "$1: $bytes bytes"
	printf '%-24s %8s %8s %8s %8s %12s\n' tool wall-s MB/s cpu-s MB/s-cpu "peak RSS"
	OUT=/dev/null run 5 cat
	row "read once (cat)"
	run 5 wc -l
	row "read + count lines (wc)"
	run 5 "$FOLD"
	row prof-fold
	fold_secs=$secs fold_cpu=$cpu
	echo "prof-fold output: $(wc -l < "$tmp/out") distinct stacks"
	if [ -n "$PERL_TOOL" ]; then
		run 3 perl "$PERL_TOOL"
		row stackcollapse-perf.pl
		awk -v w="$secs" -v c="$cpu" -v fw="$fold_secs" -v fc="$fold_cpu" 'BEGIN {
			printf "prof-fold is %.0fx stackcollapse-perf.pl on CPU time, %.0fx on wall time\n",
			c / (fc > 0 ? fc : 0.001), w / (fw > 0 ? fw : 0.001) }'
	else
		printf '%-24s %8s %8s %8s %8s %12s\n' "stackcollapse-perf.pl" - 24 - - "(reference)"
		echo "  (not installed here: 24 MB/s is the brief's figure for this machine, not measured)"
	fi
}

# A perf script of about 2 GB: the capture again and again, each copy's
# processes with other PIDs and TIDs, and every other copy's commands
# renamed, so the distinct stacks grow as a longer capture's would.
big_input() {
	for ((k = 0; k < copies; k++)); do
		awk -v k="$k" '/^[^ \t]/ && match($0, / +[0-9]+(\/[0-9]+)? +\[[0-9]+\] /) {
			comm = substr($0, 1, RSTART - 1)
			ids = substr($0, RSTART, RLENGTH)
			cpu = substr(ids, index(ids, "["))
			n = split(substr(ids, 1, index(ids, "[") - 1), id, "/")
			ids = " " (id[1] + k * 4194304)
			if (n == 2) ids = ids "/" (id[2] + k * 4194304)
			if (k % 2) comm = comm "~" k
			$0 = comm ids " " cpu substr($0, RSTART + RLENGTH)
		} { print }' "$REAL"
	done
}

# big ARGS...: prof-fold ARGS on the 2 GB stream, through a pipe.
big() {
	big_input | /usr/bin/time -f '%M %U %S %e' -o "$tmp/time" "$FOLD" "$@" > "$tmp/out" 2> /dev/null
	read -r rss u s e < "$tmp/time"
	printf '%-24s %8s %8.2f %9s MB  %d distinct stacks\n' "prof-fold $*" "$e" "$(echo "$u + $s" | bc)" \
		"$((rss / 1024))" "$(wc -l < "$tmp/out")"
}

if capture; then
	in=$REAL
	ev=$(awk '/^[^ \t#]/ { sub(/:$/, "", $NF); print $NF; exit }' "$in")
	compare "this host, busy ($(grep -c '^[^ 	]' "$in") samples of $ev, perf record -a -g)"
	if [ "${BENCH_BIG:-1}" = 1 ]; then
		copies=$(((BIG_BYTES + bytes - 1) / bytes))
		echo "$((copies * bytes / 1000000)) MB: the capture x $copies with other PIDs and" \
			"commands, through a pipe (wall time is the generator's)"
		printf '%-24s %8s %8s %12s\n' tool wall-s cpu-s "peak RSS"
		big
		big --tid
	fi
fi

[ -f "$SEED" ] || { echo "fold: corpus not found at $CORPUS: skipped its run"; exit 0; }
zcat "$SEED" > "$tmp/seed.txt"
: > "$tmp/corpus.txt"
while [ "$(wc -c < "$tmp/corpus.txt")" -lt "$MIN_BYTES" ]; do
	cat "$tmp/seed.txt" >> "$tmp/corpus.txt"
done
rm -f "$tmp/seed.txt"
in=$tmp/corpus.txt
compare "the corpus' example-perf-stacks, concatenated"
