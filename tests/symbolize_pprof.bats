#!/usr/bin/env bats
# prof-symbolize --format=pprof, read back by go tool pprof (the reference
# reader), against prof-fold on the same captures; and the cgroups of
# capture 1.4 in both formats.  Offline: captures are made by mkcapture.

bats_require_minimum_version 1.5.0

load helpers
load symbolize_agree

setup() {
	TMP=$(mktemp -d)
	unset DEBUGINFOD_URLS
	command -v go > /dev/null || skip "no go (golang-go) for go tool pprof"
	# go wants a writable cache; keep it out of the user's.
	export HOME="$TMP/home" GOCACHE="$TMP/home/gocache"
	mkdir -p "$GOCACHE"
	# A build-id cache of the test's own: the run's may hold the
	# workloads' debug images, resolving frames meant to stay unresolved.
	export PROF_BUILD_ID_DIR="$TMP/build-id"
}

teardown() {
	rm -rf "$TMP"
}

ID=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

# at FUNCTION OFFSET: the chain workload's address OFFSET bytes into
# FUNCTION, as mkcapture takes it (hex).
at() {
	local a
	a=$(nm "$PROF_WORKLOADS/chain" | awk -v f="$1" '$3 == f { print $1 }')
	printf '%x' $((0x$a + $2))
}

# mkcap EVENT [VAR=VALUE...]: a capture (1.4) of the lines on stdin, in $TMP/cap.prof.
mkcap() {
	local event=$1
	shift
	env MKCAPTURE_EVENT="$event" MKCAPTURE_MINOR=4 "$@" "$PROF_WORKLOADS/mkcapture" \
		"$PROF_WORKLOADS/chain" > "$TMP/cap.prof"
}

ksyms() {
	echo "ksym ffffffff81000000 ffffffff81000100 schedule"
	echo "ksym ffffffff81000100 ffffffff81000200 pipe_read"
	echo "ksym ffffffff81000200 ffffffff81000300 try_to_wake_up"
}

# Stacks of the chain workload, resolved everywhere, in two threads.
on_lines() {
	ksyms
	echo "comm 1 1 target"
	echo "comm 1 2 worker two"
	echo "on 1/1 3 - $(at burn_cpu 5),$(at run_workload 20),$(at main 16)"
	echo "on 1/2 2 ffffffff81000010 $(at compute 4),$(at main 16)"
	echo "on 1/1 4 - $(at burn_cpu 5),$(at run_workload 20),$(at main 16)"
	echo "on 1/2 5 ffffffff81000110,ffffffff81000010 $(at compute 9),$(at main 16)"
	echo "on 1/1 1 - $(at run_workload 20),$(at main 16)"
}

pprof() {
	go tool pprof -symbolize=none "$@"
}

# leaf_counts: folded stacks on stdin as "LEAF COUNT", summed, sorted;
# comments and prof-fold's unit line ("[count: UNIT] 0") left out.
leaf_counts() {
	awk '/^#/ || /^\[count: [^] ]+\] 0$/ { next } { n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); s[f[k]] += n }
	     END { for (l in s) print l, s[l] }' | sort
}

# top_flat FILE [pprof options]: "FUNCTION FLAT" of every function with
# flat samples, sorted.
top_flat() {
	local f=$1
	shift
	pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 "$@" "$f" |
		awk 'f && $1 != 0 { print $6, $1 } /^ *flat  *flat%/ { f = 1 }' | sort
}

@test "pprof: go tool pprof -top and prof-fold's leaves agree, in samples" {
	on_lines | mkcap cpu-clock
	prof-symbolize --no-debuginfod "$TMP/cap.prof" | prof-fold | leaf_counts > "$TMP/fold"
	prof-symbolize --no-debuginfod -f pprof -o "$TMP/p.pb.gz" "$TMP/cap.prof"
	top_flat "$TMP/p.pb.gz" -sample_index=samples > "$TMP/top"
	cat "$TMP/fold" "$TMP/top"
	[ -s "$TMP/fold" ]
	diff "$TMP/fold" "$TMP/top"
	# The cpu time is the samples times the sampling period (99 Hz).
	pprof -raw "$TMP/p.pb.gz" > "$TMP/raw"
	grep -q '^PeriodType: cpu nanoseconds$' "$TMP/raw"
	grep -q '^Period: 10101010$' "$TMP/raw"
	grep -q '^samples/count cpu/nanoseconds\[dflt\]$' "$TMP/raw"
	grep -q '^ *7  *70707070: ' "$TMP/raw"
}

@test "pprof: off-CPU flat time on the functions blocked in, as prof-fold's last frames; blocked is a label" {
	{
		ksyms
		echo "comm 1 1 target"
		echo "comm 2 3 writer"
		echo "map 2"
		echo "off 1/1 3 1500000 ffffffff81000010,ffffffff81000120 $(at burn_cpu 5),$(at main 16)"
		echo "off 1/1 1 700 - $(at compute 4),$(at main 16)"
		echo "off 1/1 2 2000 ffffffff81000010 $(at compute 4),$(at main 16) 2/3 ffffffff81000210 $(at main 16)"
	} | mkcap offcpu-time
	# prof-fold ends a blocked stack in [off-cpu] (and its wakers after
	# --): the frame before is where the thread blocked.  Its counts are
	# nanoseconds, said in its first line.
	[ "$(prof-symbolize --no-debuginfod "$TMP/cap.prof" | prof-fold | head -1)" = "[count: nanoseconds] 0" ]
	prof-symbolize --no-debuginfod "$TMP/cap.prof" | prof-fold |
		sed 's/;--;.*\( [0-9]*\)$/\1/; s/;\[off-cpu\]\( [0-9]*\)$/\1/' | leaf_counts > "$TMP/fold"
	prof-symbolize --no-debuginfod -f pprof "$TMP/cap.prof" > "$TMP/p.pb.gz"
	top_flat "$TMP/p.pb.gz" -unit=ns | sed 's/ns$//' > "$TMP/top"
	cat "$TMP/fold" "$TMP/top"
	[ "$(cat "$TMP/fold")" = "$(printf 'compute 700\nschedule 1502000')" ]
	diff "$TMP/fold" "$TMP/top"
	pprof -raw "$TMP/p.pb.gz" > "$TMP/raw"
	grep -q '^blocks/count off-cpu/nanoseconds\[dflt\]$' "$TMP/raw"
	# No location of its own for being blocked: a label of each sample.
	run ! grep -qF '[off-cpu]' < <(pprof -top -nodecount=1000 "$TMP/p.pb.gz")
	[ "$(grep -c 'state:\[off-cpu\]' "$TMP/raw")" -eq 3 ]
	# The nearest waker is a label.
	grep -q 'waker:\[writer 2/3\]' "$TMP/raw"
	# Callers, as prof-fold sees them, in the cumulative column.
	pprof -top -nodecount=1000 -unit=ns "$TMP/p.pb.gz" | grep -qE ' 1502700ns +100% +main$'
	pprof -top -nodecount=1000 -unit=ns "$TMP/p.pb.gz" | grep -qE ' 1502000ns +[0-9.]+% +schedule$'
}

@test "pprof: a wall capture weighs on-CPU samples the period, in nanoseconds" {
	{
		ksyms
		echo "on 1/1 2 - $(at burn_cpu 5),$(at main 16)"
		echo "off 1/1 1 700 ffffffff81000010 $(at compute 4),$(at main 16)"
	} | mkcap cpu-clock+offcpu-time MKCAPTURE_PERIOD=1000000
	prof-symbolize --no-debuginfod "$TMP/cap.prof" | prof-fold |
		sed 's/;\[off-cpu\]\( [0-9]*\)$/\1/' | leaf_counts > "$TMP/fold"
	prof-symbolize --no-debuginfod -f pprof "$TMP/cap.prof" > "$TMP/p.pb.gz"
	top_flat "$TMP/p.pb.gz" -unit=ns | sed 's/ns$//' > "$TMP/top"
	diff "$TMP/fold" "$TMP/top"
	pprof -raw "$TMP/p.pb.gz" > "$TMP/raw"
	grep -q '^samples/count wall/nanoseconds\[dflt\]$' "$TMP/raw"
	# Running or blocked: each sample's state label, which -tagfocus selects.
	grep -q 'state:\[on-cpu\]' "$TMP/raw"
	grep -q 'state:\[off-cpu\]' "$TMP/raw"
	[ "$(top_flat "$TMP/p.pb.gz" -unit=ns -tagfocus=state=off-cpu)" = "schedule 700ns" ]
}

@test "pprof: go tool pprof -raw shows the mappings with their build-ids, kernel and comments" {
	{ on_lines; echo "loss 1 5"; } | mkcap cpu-clock
	prof-symbolize --no-debuginfod -f pprof "$TMP/cap.prof" > "$TMP/p.pb.gz"
	id=$(prof-symbolize --no-debuginfod --build-ids "$TMP/cap.prof" | awk '{ print $1 }')
	[[ "$id" =~ ^[0-9a-f]{40}$ ]]
	pprof -raw "$TMP/p.pb.gz" > "$TMP/raw"
	cat "$TMP/raw"
	grep -qE "^[0-9]+: 0x7f[0-9a-f]+/0x7f[0-9a-f]+/0x[0-9a-f]+ $PROF_WORKLOADS/chain $id \[FN\]\$" "$TMP/raw"
	grep -qE '^[0-9]+: 0xffffffff81000010/0xffffffff81000111/0x0 \[kernel.kallsyms\]  \[FN\]$' "$TMP/raw"
	grep -q '^Comment: capture: taken 15, written 15, lost 0$' "$TMP/raw"
	grep -q '^Comment: lost kernel-stack 5$' "$TMP/raw"
	grep -qE '^ +[0-9]+: 0x7f[0-9a-f]+ M=[0-9]+ burn_cpu :0 s=0$' "$TMP/raw"
	grep -q 'pid:\[1\] tid:\[2\]' "$TMP/raw"
	grep -q 'comm:\[worker two\]' "$TMP/raw"
	# Compressed with gzip.
	gzip -t "$TMP/p.pb.gz"
}

@test "pprof: unresolved frames keep their address and mapping, named [FILE]; pprof symbolizes them again" {
	{ echo "comm 1 1 target"; echo "on 1/1 1 - 12345678"; echo "on 1/1 1 - $(at main 16)"; } |
		mkcap cpu-clock
	# A file that is not there at the time: the mapping's frames stay
	# unresolved.  (No build-id cache that could have it.)
	cp "$PROF_WORKLOADS/chain" "$TMP/chain"
	env MKCAPTURE_EVENT=cpu-clock MKCAPTURE_MINOR=4 "$PROF_WORKLOADS/mkcapture" \
		"$PROF_WORKLOADS/chain" "$TMP/chain" < <(echo "on 1/1 1 - $(at main 16)") > "$TMP/gone.prof"
	mv "$TMP/chain" "$TMP/chain.away"
	export PROF_BUILD_ID_DIR="$TMP/empty"
	prof-symbolize --no-debuginfod -f pprof "$TMP/gone.prof" > "$TMP/p.pb.gz" 2> "$TMP/err"
	prof-symbolize --no-debuginfod "$TMP/gone.prof" 2> /dev/null | grep -q '\[chain\]+0x'
	pprof -raw "$TMP/p.pb.gz" > "$TMP/raw"
	cat "$TMP/raw"
	# Named as folded stacks name it, so every reader shows its time...
	grep -qE '^ +[0-9]+: 0x7f[0-9a-f]+ M=1 \[chain\] :0 s=0$' "$TMP/raw"
	# ...and the mapping says it has no functions: pprof symbolizes it
	# again from the file, once it is there.
	grep -qE "^1: 0x7f[0-9a-f]+/0x7f[0-9a-f]+/0x[0-9a-f]+ $TMP/chain [0-9a-f]{40} \$" "$TMP/raw"
	# --bare-unresolved: no function at all, for a server that
	# symbolizes only those (Parca).
	prof-symbolize --no-debuginfod --bare-unresolved -f pprof "$TMP/gone.prof" > "$TMP/b.pb.gz"
	pprof -raw "$TMP/b.pb.gz" | grep -qE '^ +[0-9]+: 0x7f[0-9a-f]+ M=1 $'
	mv "$TMP/chain.away" "$TMP/chain"
	HOME="$TMP" go tool pprof -top -symbolize=local "$TMP/p.pb.gz" 2>&1 | grep -qE ' main$'
	# An address in no mapping: [unknown].
	prof-symbolize --no-debuginfod -f pprof "$TMP/cap.prof" > "$TMP/p2.pb.gz"
	pprof -raw "$TMP/p2.pb.gz" | grep -qE '^ +[0-9]+: 0x7f0012345678 \[unknown\] :0 s=0$'
}

@test "pprof: --inline --lines gives a location a line per inlined function, innermost first" {
	gcc -O2 -g -o "$TMP/inlines" "$BATS_TEST_DIRNAME/fixtures/symbolize/inlines.c"
	pick_addresses "$TMP/inlines" > "$TMP/addrs"
	"$PROF_WORKLOADS/mkcapture" "$TMP/inlines" < "$TMP/addrs" > "$TMP/cap.prof"
	prof-symbolize --no-debuginfod -i -l -f pprof "$TMP/cap.prof" > "$TMP/p.pb.gz"
	pprof -raw "$TMP/p.pb.gz" > "$TMP/raw"
	# accumulate inlined into burn: one location, two lines, with files.
	grep -A1 -E '^ +[0-9]+: 0x[0-9a-f]+ M=1 accumulate .*inlines.c:[0-9]+ s=0$' "$TMP/raw" |
		grep -qE '^ +burn .*inlines.c:[0-9]+ s=0$'
	grep -qE '^1: .* \[FN\]\[FL\]\[LN\]\[IN\]$' "$TMP/raw"
	pprof -traces "$TMP/p.pb.gz" | grep -A1 -E ' accumulate \(inline\)$' | grep -qE '^ +burn$'
	# Without --inline: one line, the function the address is in.
	prof-symbolize --no-debuginfod -f pprof "$TMP/cap.prof" > "$TMP/p1.pb.gz"
	pprof -raw "$TMP/p1.pb.gz" > "$TMP/raw1"
	run ! grep -qE ' accumulate ' "$TMP/raw1"
	grep -qE '^1: .* \[FN\]$' "$TMP/raw1"
}

@test "cgroups: the event line's cgroup with --cgroup only, and the pprof labels" {
	{
		echo "comm 1 1 target"
		echo "comm 7 7 srv"
		echo "comm 9 9 other"
		echo "map 7"
		echo "map 9"
		echo "cgroup 1 /system.slice/nginx.service"
		echo "cgroup 7 /kubepods.slice/kubepods-pod1.slice/cri-containerd-$ID.scope"
		echo "on 1/1 2 - $(at main 16)"
		echo "on 7/7 1 - $(at main 16)"
		echo "on 9/9 1 - $(at main 16)"
		# A later record replaces the first; control characters are cleaned.
		printf 'cgroup 1 /user.slice/a\033b.scope\n'
		echo "on 1/1 1 - $(at main 16)"
	} | mkcap cpu-clock
	# By default the event lines end with the event, as
	# stackcollapse-perf.pl must see them to read their counts.
	prof-symbolize --no-debuginfod "$TMP/cap.prof" > "$TMP/plain"
	[ "$(grep -c ' cpu-clock:' "$TMP/plain")" -eq 4 ]
	[ "$(perl -ne 'print if /^\S/ && !/^#/ && !/:\s*(\d+)*\s+(\S+):\s*$/' "$TMP/plain")" = "" ]
	prof-symbolize --no-debuginfod --cgroup "$TMP/cap.prof" > "$TMP/frames"
	grep -qx 'target 1/1 0.000000: 2 cpu-clock: /system.slice/nginx.service' "$TMP/frames"
	grep -qx "srv 7/7 0.000000: 1 cpu-clock: /kubepods.slice/kubepods-pod1.slice/cri-containerd-$ID.scope" "$TMP/frames"
	grep -qx 'other 9/9 0.000000: 1 cpu-clock:' "$TMP/frames"
	grep -qx 'target 1/1 0.000000: 1 cpu-clock: /user.slice/a?b.scope' "$TMP/frames"
	prof-symbolize --no-debuginfod -f pprof "$TMP/cap.prof" > "$TMP/p.pb.gz"
	pprof -tags "$TMP/p.pb.gz" > "$TMP/tags"
	cat "$TMP/tags"
	grep -qE "^ +[0-9.]+ms \( *[0-9.]+%\): $ID\$" "$TMP/tags"
	grep -qE '^ +[0-9.]+ms \( *[0-9.]+%\): nginx.service$' "$TMP/tags"
	grep -qE '^ +[0-9.]+ms \( *[0-9.]+%\): a\?b.scope$' "$TMP/tags"
	grep -qE "^ +[0-9.]+ms \( *[0-9.]+%\): cri-containerd-$ID.scope\$" "$TMP/tags"
	grep -qE '^ +[0-9.]+ms \( *[0-9.]+%\): /system.slice/nginx.service$' "$TMP/tags"
	grep -qE '^ +[0-9.]+ms \( *[0-9.]+%\): srv$' "$TMP/tags"
	pprof -raw "$TMP/p.pb.gz" | grep -q 'pid:\[7\] tid:\[7\]'
	# Other processes' samples have no cgroup labels.
	[ "$(pprof -raw "$TMP/p.pb.gz" | grep -c 'cgroup:')" -eq 3 ]
}

@test "cgroups (1.5): labels only from the names the sampled host made" {
	ID2=fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210
	{
		echo "comm 1 1 target"
		echo "comm 7 7 srv"
		echo "comm 9 9 other"
		echo "map 7"
		echo "map 9"
		# build.service is delegated to its user, who named what is
		# below; a container's scope to the container.
		echo "cgroup5 1 2 /system.slice/build.service/sshd.service"
		echo "cgroup5 7 2 /system.slice/docker-$ID.scope/docker-$ID2.scope"
		echo "cgroup5 9 0 /system.slice/nginx.service"
		echo "on 1/1 2 - $(at main 16)"
		echo "on 7/7 1 - $(at main 16)"
		echo "on 9/9 1 - $(at main 16)"
	} | mkcap cpu-clock
	prof-symbolize --no-debuginfod -f pprof "$TMP/cap.prof" > "$TMP/p.pb.gz"
	pprof -raw "$TMP/p.pb.gz" | grep 'cgroup:' | sort -u > "$TMP/labels"
	cat "$TMP/labels"
	grep -qxF '                cgroup:[/system.slice/build.service/sshd.service] comm:[target] systemd_unit:[build.service]' "$TMP/labels"
	grep -qxF "                cgroup:[/system.slice/docker-$ID.scope/docker-$ID2.scope] comm:[srv] container_id:[$ID] systemd_unit:[docker-$ID.scope]" "$TMP/labels"
	grep -qxF '                cgroup:[/system.slice/nginx.service] comm:[other]' "$TMP/labels"
	[ "$(wc -l < "$TMP/labels")" -eq 3 ]
	# The frames show the path as it is.
	prof-symbolize --no-debuginfod --cgroup "$TMP/cap.prof" |
		grep -qx 'target 1/1 0.000000: 2 cpu-clock: /system.slice/build.service/sshd.service'
}

@test "pprof: a profile is never written to a terminal; bad formats are usage errors" {
	on_lines | mkcap cpu-clock
	if command -v script > /dev/null; then
		run timeout 10 script -qec "prof-symbolize -f pprof $TMP/cap.prof" /dev/null
		[[ "$output" == *"refusing to write a pprof profile to a terminal"* ]]
		run timeout 10 script -qec "prof-symbolize -f pprof $TMP/cap.prof; echo status=\$?" /dev/null
		[[ "$output" == *"status=2"* ]]
	fi
	run prof-symbolize --format=json "$TMP/cap.prof"
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown format 'json' (perf or pprof)"* ]]
	# perf is the default, byte for byte.
	cmp <(prof-symbolize --no-debuginfod "$TMP/cap.prof") \
		<(prof-symbolize --no-debuginfod --format=perf "$TMP/cap.prof")
}

@test "pprof: a corrupt capture exits 1 and the profile holds what was read" {
	on_lines | mkcap cpu-clock
	size=$(stat -c %s "$TMP/cap.prof")
	head -c $((size - 60)) "$TMP/cap.prof" > "$TMP/cut.prof"
	run prof-symbolize --no-debuginfod -f pprof -o "$TMP/p.pb.gz" "$TMP/cut.prof"
	[ "$status" -eq 1 ]
	top_flat "$TMP/p.pb.gz" -sample_index=samples > "$TMP/top"
	cat "$TMP/top"
	grep -qx 'burn_cpu 7' "$TMP/top"
	# Not a capture at all: status 2, as for the frames.
	echo hello > "$TMP/not"
	run prof-symbolize -f pprof -o "$TMP/q.pb.gz" "$TMP/not"
	[ "$status" -eq 2 ]
}
