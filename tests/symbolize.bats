#!/usr/bin/env bats
# prof-symbolize: options, bad input, and symbolization of real captures,
# including offline after the sampled process has exited, and of off-CPU,
# wall and wake-up captures.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	TMP=$(mktemp -d)
	# Hermetic: no debuginfod server a login shell may have configured.
	unset DEBUGINFOD_URLS
}

# capture_chain SECONDS: a capture of the chain workload, which then exits.
# It runs until the capture ends, however long prof-sample takes to start
# (an ASan build on a loaded machine: seconds).
capture_chain() {
	start_workload chain 60
	prof-sample -d "$1" -p "$WORKLOAD_PID" > "$TMP/cap.prof"
	stop_workload
}

@test "prof-symbolize --help and --version" {
	run prof-symbolize --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Usage: prof-symbolize"* ]]
	run prof-symbolize --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^prof-symbolize\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
	run prof-symbolize --bogus
	[ "$status" -eq 2 ]
}

@test "prof-symbolize rejects input that is not a capture with status 2" {
	printf '# prof-symbolize frames v1\n' > "$TMP/text"
	run prof-symbolize "$TMP/text"
	[ "$status" -eq 2 ]
	[ "$output" = "prof-symbolize: $TMP/text: not a prof capture (bad magic); symbolized frames: run prof-fold on them first" ]
	run prof-symbolize < /dev/null
	[ "$status" -eq 2 ]
	[ "$output" = "prof-symbolize: <stdin>: not a prof capture (bad magic)" ]
	run prof-symbolize "$TMP/missing"
	[ "$status" -eq 2 ]
	[ "$output" = "prof-symbolize: $TMP/missing: No such file or directory" ]
}

@test "prof-symbolize symbolizes a saved capture after the process exited" {
	require_root
	capture_chain 2
	run prof-symbolize -o "$TMP/frames.txt" "$TMP/cap.prof"
	[ "$status" -eq 0 ]
	head -1 "$TMP/frames.txt" | grep -qx '# prof-symbolize frames v1'
	# The chain, leaf first, in consecutive frame lines.
	awk '/ burn_cpu\+/ { b = NR } / compute\+/ && NR == b + 1 { c = NR }
	     / run_workload\+/ && NR == c + 1 { r = NR } / main\+/ && NR == r + 1 { ok = 1 }
	     END { exit !ok }' "$TMP/frames.txt"
}

@test "a truncated capture symbolizes up to the cut, names the byte, exits 1" {
	require_root
	capture_chain 2
	size=$(stat -c %s "$TMP/cap.prof")
	head -c $((size - 5)) "$TMP/cap.prof" > "$TMP/cut.prof"
	run prof-symbolize -o "$TMP/frames.txt" "$TMP/cut.prof"
	[ "$status" -eq 1 ]
	[[ "$output" =~ ^prof-symbolize:\ $TMP/cut.prof:\ truncated\ record\ \(type\ 8\)\ at\ byte\ [0-9]+ ]]
	grep -q ' burn_cpu+' "$TMP/frames.txt"
	# Cut exactly before the END record (8 + 44 bytes), its absence is noticed.
	head -c $((size - 52)) "$TMP/cap.prof" > "$TMP/cut2.prof"
	run prof-symbolize -o /dev/null "$TMP/cut2.prof"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no end record at byte $((size - 52)): the capture was cut short" ]]
}

@test "a binary replaced since the capture is refused: its old frames resolve only from the build-id cache" {
	require_root
	cp "$PROF_WORKLOADS/chain" "$TMP/chain"
	"$TMP/chain" 60 &
	pid=$!
	prof-sample -d 1.5 -p "$pid" > "$TMP/cap.prof"
	kill "$pid"
	wait "$pid" || true
	# Another program (another build-id) now sits at the same path.
	cp /bin/true "$TMP/chain"
	PROF_BUILD_ID_DIR=$TMP/empty run prof-symbolize -o "$TMP/frames.txt" "$TMP/cap.prof"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$TMP/chain: build-id differs from the capture's (file replaced?); its frames stay unresolved"* ]]
	run ! grep -q ' burn_cpu+' "$TMP/frames.txt"
	# They keep their module and file offset instead.
	grep -qE "^	 +[0-9a-f]+ \[chain\]\+0x[0-9a-f]+ \($TMP/chain\)$" "$TMP/frames.txt"
	# The cache kept the program that ran.
	run prof-symbolize -o "$TMP/cached.txt" "$TMP/cap.prof"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -qE "^	 +[0-9a-f]+ burn_cpu\+0x[0-9a-f]+ \($TMP/chain\)$" "$TMP/cached.txt"
}

@test "a non-PIE executable resolves through its PT_LOAD segments" {
	require_root
	start_workload chain_nopie 60
	prof-sample -d 1.5 -p "$WORKLOAD_PID" | prof-symbolize > "$TMP/frames.txt"
	grep -qE '^	 +4[0-9a-f]{5} burn_cpu\+0x[0-9a-f]+ \(.*/chain_nopie\)$' "$TMP/frames.txt"
	grep -qE '^	 +4[0-9a-f]{5} main\+0x[0-9a-f]+ \(.*/chain_nopie\)$' "$TMP/frames.txt"
}

@test "anonymous executable memory (JIT code without a perf map) is [unknown] ([unknown])" {
	require_root
	command -v node >/dev/null || skip "node is not installed"
	cd "$TMP"
	echo 'function f(n){let s=0;for(let i=0;i<n;i++)s+=Math.sqrt(i);return s}
	      const e=Date.now()+1500;let t=0;while(Date.now()<e)t+=f(100000);' > anon.js
	prof-sample -o cap.prof -- node anon.js
	prof-symbolize cap.prof > frames.txt
	grep -qE '^	 +[0-9a-f]+ \[unknown\] \(\[unknown\]\)$' frames.txt
	run ! grep -q ' ()$' frames.txt
}

@test "glibc's aliases: the public name, never a symbol version" {
	require_root
	# Debian's libc with its debug file (libc6-dbg): malloc and free are
	# each known by four or five names, two of them versioned.
	printf '#include <stdlib.h>\nvoid *volatile p;\nint main(void) { for (long i = 0; i < 40000000; i++) { p = malloc(32 + (i & 255)); free(p); } return 0; }\n' > "$TMP/m.c"
	gcc -O1 -o "$TMP/m" "$TMP/m.c"
	prof-sample -F 999 -o "$TMP/cap.prof" -- "$TMP/m"
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	run ! grep -qE '^	.*@' "$TMP/frames.txt"
	grep -qE '^	 +[0-9a-f]+ free\+0x[0-9a-f]+ \(/usr/lib/x86_64-linux-gnu/libc.so.6\)$' "$TMP/frames.txt"
	grep -qE '^	 +[0-9a-f]+ __libc_start_main\+0x[0-9a-f]+ \(/usr/lib/x86_64-linux-gnu/libc.so.6\)$' "$TMP/frames.txt"
	run ! grep -qE ' (cfree|__libc_free|__GI___libc_free|__free)\+' "$TMP/frames.txt"
	prof-fold --filter=';free(;|$)' < "$TMP/frames.txt" | grep -q '^m;'
}

# --- off-CPU, wall and wake-up captures -----------------------------------------
# Made by mkcapture, with the chain workload mapped as a PIE at
# 0x7f0000000000 and kernel symbols of our own, so every frame line is known.

# at FUNCTION OFFSET: the chain workload's address OFFSET bytes into
# FUNCTION, as mkcapture takes it (hex).
at() {
	local a
	a=$(nm "$PROF_WORKLOADS/chain" | awk -v f="$1" '$3 == f { print $1 }')
	printf '%x' $((0x$a + $2))
}

# ufr FUNCTION OFFSET, kfr ADDR SYMBOL: the frame lines prof-symbolize writes.
ufr() {
	printf '\t%16x %s+0x%x (%s)\n' $((0x7f0000000000 + 0x$(at "$1" "$2"))) "$1" "$2" \
		"$PROF_WORKLOADS/chain"
}
kfr() { printf '\t%16s %s ([kernel.kallsyms])\n' "$1" "$2"; }

# mkcap EVENT [VAR=VALUE...]: a capture of the lines on stdin, in $TMP/cap.prof.
mkcap() {
	local event=$1
	shift
	env MKCAPTURE_EVENT="$event" "$@" "$PROF_WORKLOADS/mkcapture" "$PROF_WORKLOADS/chain" \
		> "$TMP/cap.prof"
}

ksyms() {
	echo "ksym ffffffff81000000 ffffffff81000100 schedule"
	echo "ksym ffffffff81000100 ffffffff81000200 pipe_read"
	echo "ksym ffffffff81000200 ffffffff81000300 try_to_wake_up"
	echo "ksym ffffffff81000300 ffffffff81000400 pipe_write"
	echo "ksym ffffffff81000400 ffffffff81000500 hrtimer_wakeup"
}

# symbolize: $TMP/cap.prof's frames in $TMP/got, its messages in $TMP/err,
# its exit status in $st.
symbolize() {
	st=0
	prof-symbolize --no-debuginfod "$TMP/cap.prof" > "$TMP/got" 2> "$TMP/err" || st=$?
}

@test "an off-CPU capture: nanoseconds blocked, offcpu-time, the chain of wakers, the totals" {
	{
		ksyms
		echo "comm 2 3 writer"
		echo "comm 0 0 swapper/0"
		echo "map 2"
		# Blocked in a pipe read; woken by a writer (pid 2, with the
		# same program mapped), which a thread of process 4 (no name,
		# no mappings) had woken, which the idle task's timer had.
		echo "off 1/1 3 1500000 ffffffff81000010,ffffffff81000120" \
			"$(at burn_cpu 5),$(at run_workload 20)" \
			"2/3 ffffffff81000210,ffffffff81000320 $(at compute 4),$(at main 16)" \
			"4/4 ffffffff81000410 $(at compute 4)" \
			"0/0 ffffffff81000410 -"
		echo "loss 10 2"
		echo "loss 11 1"
	} | mkcap offcpu-time
	symbolize
	[ "$st" -eq 0 ]
	{
		echo "# prof-symbolize frames v1"
		echo "# count: nanoseconds"
		# The record's three blocks, for readers that place them in time.
		echo "# blocks 3"
		echo "target 1/1 0.000000: 1500000 offcpu-time:"
		kfr ffffffff81000010 schedule+0x10
		kfr ffffffff81000120 pipe_read+0x20
		ufr burn_cpu 5
		ufr run_workload 20
		printf '\t-- woken by writer 2/3\n'
		kfr ffffffff81000210 try_to_wake_up+0x10
		kfr ffffffff81000320 pipe_write+0x20
		ufr compute 4
		ufr main 16
		# Its user stack is its own process's: unknown there.
		printf '\t-- woken by [unknown] 4/4\n'
		kfr ffffffff81000410 hrtimer_wakeup+0x10
		printf '\t%16x [unknown] ([unknown])\n' $((0x7f0000000000 + 0x$(at compute 4)))
		printf '\t-- woken by swapper/0 0/0\n'
		kfr ffffffff81000410 hrtimer_wakeup+0x10
		echo
		echo "# samples 3, frames 11, unresolved frames 1"
		echo "# off-cpu: blocks 3, nanoseconds 1500000"
		echo "# capture: taken 3, written 3, lost 0"
		echo "# lost wakeup-chain-cut 2"
		echo "# lost switch-untimed 1"
	} > "$TMP/want"
	diff -u "$TMP/want" "$TMP/got"
	[ "$(cat "$TMP/err")" = "prof-symbolize: the capture lost 1 off-CPU blocks (switch-out not timed)" ]
}

@test "a wall capture: on-CPU samples weigh the sampling period, in nanoseconds like the blocks" {
	{
		ksyms
		echo "on 1/1 2 ffffffff81000010 $(at burn_cpu 5),$(at compute 4)"
		echo "off 1/1 1 700 ffffffff81000120 $(at run_workload 20)"
	} > "$TMP/lines"
	# 99 Hz: 10101010 ns a sample (1e9/99, rounded).
	mkcap cpu-clock+offcpu-time MKCAPTURE_FREQ=99 < "$TMP/lines"
	symbolize
	[ "$st" -eq 0 ]
	[ ! -s "$TMP/err" ]
	{
		echo "# prof-symbolize frames v1"
		echo "# count: nanoseconds"
		echo "target 1/1 0.000000: 20202020 cpu-clock:"
		kfr ffffffff81000010 schedule+0x10
		ufr burn_cpu 5
		ufr compute 4
		echo
		echo "target 1/1 0.000000: 700 offcpu-time:"
		kfr ffffffff81000120 pipe_read+0x20
		ufr run_workload 20
		echo
		echo "# samples 3, frames 5, unresolved frames 0"
		echo "# off-cpu: blocks 1, nanoseconds 700"
		echo "# capture: taken 3, written 3, lost 0"
	} > "$TMP/want"
	diff -u "$TMP/want" "$TMP/got"
	# A period, when INFO gives one, is taken as it is.
	mkcap cpu-clock+offcpu-time MKCAPTURE_FREQ=99 MKCAPTURE_PERIOD=1000000 < "$TMP/lines"
	symbolize
	[ "$st" -eq 0 ]
	sed 's/^target 1\/1 0.000000: 20202020 /target 1\/1 0.000000: 2000000 /' "$TMP/want" |
		diff -u - "$TMP/got"
	# An on-CPU capture of version 1.3 counts samples, as before.
	sed '/^off /d' "$TMP/lines" | mkcap cpu-clock
	symbolize
	[ "$st" -eq 0 ]
	[ ! -s "$TMP/err" ]
	{
		echo "# prof-symbolize frames v1"
		echo "target 1/1 0.000000: 2 cpu-clock:"
		kfr ffffffff81000010 schedule+0x10
		ufr burn_cpu 5
		ufr compute 4
		echo
		echo "# samples 2, frames 3, unresolved frames 0"
		echo "# capture: taken 2, written 2, lost 0"
	} > "$TMP/want"
	diff -u "$TMP/want" "$TMP/got"
}

@test "hostile off-CPU captures: no period, counts past 64 bits, blocks in an on-CPU capture, bad wakers" {
	local u
	u=$(at burn_cpu 5)
	# A wall capture whose INFO gives no sampling period (freq 0): its
	# on-CPU samples cannot be weighed, and are left out; exit 1.
	printf 'on 1/1 2 - %s\noff 1/1 1 700 - %s\non 1/1 5 - %s\n' "$u" "$u" "$u" |
		mkcap cpu-clock+offcpu-time MKCAPTURE_FREQ=0
	symbolize
	[ "$st" -eq 1 ]
	[ "$(cat "$TMP/err")" = "prof-symbolize: $TMP/cap.prof: 2 on-CPU SAMPLE records left out: INFO's freq and period give no sampling period to weigh them in nanoseconds" ]
	[ "$(grep -c ' cpu-clock:$' "$TMP/got")" -eq 0 ]
	grep -qx 'target 1/1 0.000000: 700 offcpu-time:' "$TMP/got"
	grep -qx '# samples 1, frames 1, unresolved frames 0' "$TMP/got"
	# count × period: exact up to 2^64-1, saturated past it; exit 1.  The
	# sample total saturates too.
	printf 'on 1/1 %s - %s\n' 1826227681559 "$u" 1826227681560 "$u" \
		18446744073709551615 "$u" | mkcap cpu-clock+offcpu-time MKCAPTURE_PERIOD=10101010
	symbolize
	[ "$st" -eq 1 ]
	[ "$(cat "$TMP/err")" = "prof-symbolize: $TMP/cap.prof: 2 counts past 2^64-1 nanoseconds (samples times the sampling period) written as 18446744073709551615" ]
	[ "$(grep ' cpu-clock:$' "$TMP/got" | cut -d' ' -f4)" = "18446744073704274590
18446744073709551615
18446744073709551615" ]
	grep -qx '# samples 18446744073709551615, frames 3, unresolved frames 0' "$TMP/got"
	# Off-CPU blocks in a capture INFO says is on-CPU only: left out.
	printf 'on 1/1 2 - %s\noff 1/1 1 700 - %s\n' "$u" "$u" | mkcap cpu-clock
	symbolize
	[ "$st" -eq 1 ]
	[ "$(cat "$TMP/err")" = "prof-symbolize: $TMP/cap.prof: 1 off-CPU SAMPLE records left out: INFO's event says the capture holds on-CPU samples only" ]
	[ "$(grep -c 'offcpu-time' "$TMP/got")" -eq 0 ]
	# Wakers naming stacks no STACK record defined: reported, as for a
	# sample, and written without frames.
	printf 'off 1/1 1 700 - %s 2/2 =900 =901 0/0 - =900\n' "$u" | mkcap offcpu-time
	symbolize
	[ "$st" -eq 0 ]
	[ "$(cat "$TMP/err")" = "prof-symbolize: sample refers to undefined stack 900
prof-symbolize: sample refers to undefined stack 901" ]
	sed -n '3,$p' "$TMP/got" | head -5 > "$TMP/block"
	{
		echo "target 1/1 0.000000: 700 offcpu-time:"
		ufr burn_cpu 5
		printf '\t-- woken by [unknown] 2/2\n'
		printf '\t-- woken by [unknown] 0/0\n'
		echo
	} | diff -u - "$TMP/block"
	# More wakers than a SAMPLE may name (8): a corrupt record.
	printf 'off 1/1 1 700 - -%s\n' "$(printf ' 2/2 - -%.0s' 1 2 3 4 5 6 7 8 9)" | mkcap offcpu-time
	symbolize
	[ "$st" -eq 1 ]
	[[ "$(cat "$TMP/err")" == "prof-symbolize: $TMP/cap.prof: malformed record (type 6) at byte "[0-9]* ]]
}
