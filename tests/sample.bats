#!/usr/bin/env bats
# prof-sample: options, errors, and real captures of real workloads.

load helpers

bats_require_minimum_version 1.5.0

@test "prof-sample --help and --version" {
	run prof-sample --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Usage: prof-sample"* ]]
	[[ "$output" == *"--frequency"* ]]
	run prof-sample --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^prof-sample\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "prof-sample rejects unknown options and bad values with status 2" {
	run prof-sample --no-such-option
	[ "$status" -eq 2 ]
	[[ "$output" == *"Try 'prof-sample --help'"* ]]
	run prof-sample -F 0
	[ "$status" -eq 2 ]
	[[ "$output" == "prof-sample: invalid frequency: '0' (1 to 100000)" ]]
	run prof-sample -d -1
	[ "$status" -eq 2 ]
	[[ "$output" == "prof-sample: invalid duration: '-1'" ]]
	run prof-sample -p 12x
	[ "$status" -eq 2 ]
	[[ "$output" == "prof-sample: invalid PID: '12x'" ]]
}

@test "perf's habits: -g is accepted, --call-graph sets the unwinding, -a goes with a command only" {
	run prof-sample --call-graph lbr
	[ "$status" -eq 2 ]
	[ "$output" = "prof-sample: invalid call graph: 'lbr' (dwarf[,BYTES] or fp)" ]
	run prof-sample --call-graph fp --stack-size 4096
	[ "$status" -eq 2 ]
	[[ "$output" == *"--stack-size, --keep-stack-bytes and --no-python need --unwind=dwarf"* ]]
	run prof-sample --call-graph dwarf,70000
	[ "$status" -eq 2 ]
	[ "$output" = "prof-sample: invalid stack size: '70000' (64 to 65536)" ]
	run prof-sample -a -p 1
	[ "$status" -eq 2 ]
	[ "$output" = "prof-sample: -a samples every process: it cannot be combined with -p, -t or --cgroup" ]
}

@test "-a -g -- COMMAND samples the whole system while COMMAND runs; no sample is said" {
	require_root
	start_workload chain 6
	prof-sample -a -g -o "$TMP/all.prof" -- sleep 1.5
	prof-symbolize "$TMP/all.prof" > "$TMP/all.txt"
	# The busy workload was not the command, and was sampled.
	grep -qE "^chain $WORKLOAD_PID/" "$TMP/all.txt"
	prof-sample -g --call-graph dwarf,8192 -o "$TMP/cmd.prof" -- sleep 1.5
	prof-symbolize "$TMP/cmd.prof" > "$TMP/cmd.txt"
	run ! grep -qE "^chain $WORKLOAD_PID/" "$TMP/cmd.txt"
	# A process asleep all along is never sampled: both stages say so
	# rather than leave an empty graph unexplained.
	sleep 30 &
	sleeper=$!
	run --separate-stderr prof-sample -d 1 -p "$sleeper" -o "$TMP/idle.prof"
	kill "$sleeper"
	[ "$status" -eq 0 ]
	[ "$stderr" = "prof-sample: no samples were taken: the targets never ran on a CPU while sampling (time spent blocked or asleep is not sampled: see --off-cpu and --wall)" ]
	run --separate-stderr prof-symbolize -o /dev/null "$TMP/idle.prof"
	[ "$status" -eq 0 ]
	[ "$stderr" = "prof-symbolize: $TMP/idle.prof: the capture holds no samples (its targets never ran on a CPU)" ]
}

@test "-v gives prof-sample's own summary; libbpf's log only with -vv" {
	require_root
	start_workload chain 6
	run --separate-stderr prof-sample -v -d 1 -p "$WORKLOAD_PID" -o "$TMP/v.prof"
	[ "$status" -eq 0 ]
	echo "$stderr"
	[[ "$stderr" =~ "prof-sample: "[0-9]+" samples, "[0-9]+" distinct stacks" ]]
	[[ "$stderr" == *"build-id cache: "* ]]
	[[ "$stderr" != *"libbpf:"* ]]
	[ "$(wc -l <<<"$stderr")" -le 6 ]
	run --separate-stderr prof-sample -vv -d 0.5 -p "$WORKLOAD_PID" -o "$TMP/vv.prof"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"libbpf: "* ]]
}

@test "prof-sample names a PID that does not exist" {
	run prof-sample -d 1 -p 2147483600
	[ "$status" -eq 2 ]
	[[ "$output" == "prof-sample: no such process: 2147483600" ]]
}

@test "prof-sample refuses to write the binary capture to a terminal" {
	run script -qec "prof-sample -d 0.1" /dev/null
	[[ "$output" == *"refusing to write binary output to a terminal"* ]]
	run script -qec "prof-sample -d 0.1; echo status=\$?" /dev/null
	[[ "$output" == *"status=2"* ]]
}

@test "prof-sample -p captures the workload's whole chain at the asked rate" {
	require_root
	start_workload chain 6
	t0=$(proc_ticks "$WORKLOAD_PID")
	prof-sample -F 99 -d 3 -p "$WORKLOAD_PID" > "$TMP/cap.prof"
	used=$(( $(proc_ticks "$WORKLOAD_PID") - t0 ))
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	total=$(sum_counts "$TMP/frames.txt")
	# At most 99 Hz for 3 s; at least most of the CPU time the workload
	# used meanwhile (which includes prof-sample's start-up).
	echo "samples $total, expected about $(expected_samples "$used" 99)"
	[ "$total" -le 305 ]
	[ "$total" -ge $(( $(expected_samples "$used" 99) * 75 / 100 )) ]
	[ "$total" -ge 50 ]
	# Every sample belongs to the workload.
	[ "$(grep -cE '^[^#	].* [0-9]+/[0-9]+ ' "$TMP/frames.txt")" -eq \
	  "$(grep -cE "^chain $WORKLOAD_PID/$WORKLOAD_PID " "$TMP/frames.txt")" ]
	grep -qE '^	 +[0-9a-f]+ burn_cpu\+0x[0-9a-f]+ \(.*/chain\)$' "$TMP/frames.txt"
	grep -qE '^	 +[0-9a-f]+ compute\+0x[0-9a-f]+ \(.*/chain\)$' "$TMP/frames.txt"
	grep -qE '^	 +[0-9a-f]+ main\+0x[0-9a-f]+ \(.*/chain\)$' "$TMP/frames.txt"
}

@test "prof-sample -p leaves out other busy processes" {
	require_root
	start_workload chain 6
	other=$WORKLOAD_PID
	start_workload chain 6
	prof-sample -d 2 -p "$WORKLOAD_PID" | prof-symbolize > "$TMP/frames.txt"
	grep -qE "^chain $WORKLOAD_PID/" "$TMP/frames.txt"
	run ! grep -qE "^chain $other/" "$TMP/frames.txt"
	kill "$other"
}

@test "prof-sample stops cleanly on SIGINT with a complete capture" {
	require_root
	start_workload chain 6
	prof-sample -p "$WORKLOAD_PID" > "$TMP/cap.prof" &
	sampler=$!
	# Wait for the first drain, so the signal lands mid-interval.
	for _ in $(seq 100); do [ -s "$TMP/cap.prof" ] && break; sleep 0.1; done
	t0=$(proc_ticks "$WORKLOAD_PID")
	sleep 1.5
	kill -INT "$sampler"
	wait "$sampler"
	used=$(( $(proc_ticks "$WORKLOAD_PID") - t0 ))
	# A complete capture symbolizes with status 0: it has its END record,
	# and it holds the samples taken after the last drain.
	run prof-symbolize -o "$TMP/frames.txt" "$TMP/cap.prof"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	after_first=$(awk '/^chain / && $3 !~ /^1\./ { s += $4 } END { print s + 0 }' "$TMP/frames.txt")
	echo "after the first drain: $after_first samples, expected about $(expected_samples "$used" 99)"
	[ "$after_first" -ge $(( $(expected_samples "$used" 99) * 75 / 100 )) ]
	[ "$after_first" -ge 20 ]
}

@test "prof-sample -p and -t stop when every target has exited, as perf record -p" {
	require_root
	"$PROF_WORKLOADS/chain" 2 &
	first=$!
	"$PROF_WORKLOADS/chain" 5 &
	second=$!
	# Without the stop, -d 60 would run on; timeout's 124 would say so.
	run timeout 30 prof-sample -d 60 -p "$first,$second" -o "$TMP/cap.prof"
	[ "$status" -eq 0 ]
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	# The second ran three seconds longer: it was still sampled after the
	# first had gone.  The times are those of the drains (one a second),
	# and prof-sample may start up to a second after the two (ASan, a
	# loaded host), so only a margin of one second is certain.
	last_first=$(awk -v p="chain $first/" 'index($0, p) == 1 { t = $3 } END { print t + 0 }' "$TMP/frames.txt")
	last_second=$(awk -v p="chain $second/" 'index($0, p) == 1 { t = $3 } END { print t + 0 }' "$TMP/frames.txt")
	echo "last samples: $last_first s, $last_second s"
	awk -v a="$last_first" -v b="$last_second" 'BEGIN { exit !(b > a + 1) }'
	"$PROF_WORKLOADS/chain" 3 &
	run timeout 30 prof-sample -d 60 -t "$!" -o "$TMP/cap.prof"
	[ "$status" -eq 0 ]
	prof-symbolize "$TMP/cap.prof" | grep -q '^chain '
}

@test "prof-sample refuses -p and -t that could never match" {
	run prof-sample -d 1 -p $$ -t 1
	[ "$status" -eq 2 ]
	[ "$output" = "prof-sample: thread 1 is in none of the -p processes: with both -p and -t, only the listed threads of the listed processes are sampled" ]
}

@test "a SIGINT at any moment of prof-sample's life gives a complete capture and status 0" {
	require_root
	start_workload chain 30
	# From before the BPF program is loaded to the middle of sampling.
	for delay in 0.001 0.01 0.03 0.1 0.2 0.4 0.8 1.5; do
		prof-sample -p "$WORKLOAD_PID" -d 30 > "$TMP/cap.prof" 2> "$TMP/err" &
		pid=$!
		# Its life starts when it catches SIGINT: before then the
		# signal is ignored, as a background job inherits it (and an ASan
		# build takes milliseconds after exec to reach main).
		for _ in $(seq 2000); do
			sigcgt=$(sed -n 's/^SigCgt:\t//p' "/proc/$pid/status" 2>/dev/null)
			[ -n "$sigcgt" ] && (( 0x$sigcgt & 2 )) && break
			sleep 0.001
		done
		sleep "$delay"
		kill -INT "$pid"
		st=0
		wait "$pid" || st=$?
		echo "SIGINT after $delay s: status $st, $(head -c 300 "$TMP/err")"
		[ "$st" -eq 0 ]
		run prof-symbolize -o /dev/null "$TMP/cap.prof"
		echo "prof-symbolize: $status $output"
		[ "$status" -eq 0 ]
	done
}

@test "the capture's totals add up: samples written equal the END record's" {
	require_root
	start_workload chain 4
	prof-sample -d 2 -p "$WORKLOAD_PID" | prof-symbolize > "$TMP/frames.txt"
	written=$(grep -oE '^# samples [0-9]+' "$TMP/frames.txt" | awk '{print $3}')
	[ "$written" -eq "$(sum_counts "$TMP/frames.txt")" ]
	[ "$written" -gt 20 ]
}

@test "prof-sample system-wide records named kernel frames of a syscall-heavy process" {
	require_root
	dd if=/dev/zero of=/dev/null bs=1 count=100000000 2>/dev/null &
	ddpid=$!
	prof-sample -d 1.5 > "$TMP/cap.prof"
	kill "$ddpid"
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	grep -qE "^dd $ddpid/" "$TMP/frames.txt"
	# Syscall entry is always on the kernel side of a dd sample.
	grep -qE '^	 *ffff[0-9a-f]+ (entry_SYSCALL_64[a-z_]*|do_syscall_64)\+0x[0-9a-f]+ \(\[kernel\.kallsyms\]\)$' "$TMP/frames.txt"
}
