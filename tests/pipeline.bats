#!/usr/bin/env bats
# The four stages end to end, on a real BPF capture of a workload with a
# known call chain, live through pipes and offline from a saved capture.

bats_require_minimum_version 1.5.0

load helpers

CHAIN='^chain;(.*;)?main;run_workload;compute;burn_cpu [0-9]+$'

# check_folded FILE: the chain workload's hot path, with its callers up to
# main, holds most of the samples; every line is well-formed and sorted.
check_folded() {
	local total hot
	total=$(folded_total "$1")
	hot=$(folded_total "$1" "$CHAIN")
	echo "hot $hot of $total"
	[ "$total" -gt 0 ]
	# burn_cpu runs nearly all the time; samples landing on a prologue or
	# in clock_gettime make up the rest.
	[ "$hot" -ge $(( total * 80 / 100 )) ]
	run ! grep -vqE '^[^ ].* [0-9]+$' "$1"
	LC_ALL=C sort -c "$1"
}

# check_svg FILE: well-formed, with the hot frame and its tooltip.
check_svg() {
	xmllint --noout "$1"
	grep -qE '<title>burn_cpu \([0-9,]+ samples, [0-9.]+%\)</title>' "$1"
	grep -qE '<title>main \([0-9,]+ samples, [0-9.]+%\)</title>' "$1"
}

@test "live pipeline: prof-sample -p | prof-symbolize | prof-fold | prof-svg" {
	require_root
	start_workload chain 8
	prof-sample -d 3 -p "$WORKLOAD_PID" | prof-symbolize | prof-fold > "$TMP/out.folded"
	check_folded "$TMP/out.folded"
	prof-svg "$TMP/out.folded" > "$TMP/out.svg"
	check_svg "$TMP/out.svg"
	# The whole pipe in one go, as the README shows it.
	prof-sample -d 2 -p "$WORKLOAD_PID" | prof-symbolize | prof-fold | prof-svg > "$TMP/pipe.svg"
	check_svg "$TMP/pipe.svg"
}

@test "Ctrl-C on the live pipeline: every stage gets SIGINT, the graph has what was captured" {
	require_root
	start_workload chain 20
	# As an interactive shell runs it: the pipeline in a process group of
	# its own, SIGINT not ignored (a background job's is), and a Ctrl-C
	# sent to the whole group.
	setsid perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' bash -c '
		prof-sample -p "$1" | prof-symbolize | prof-fold | prof-svg > "$2/live.svg"
		echo "${PIPESTATUS[*]}" > "$2/statuses"' sh "$WORKLOAD_PID" "$TMP" &
	leader=$!
	for _ in $(seq 100); do [ "$(ps -o pgid= -p "$leader" 2>/dev/null | tr -d ' ')" = "$leader" ] && break; sleep 0.05; done
	sleep 2
	kill -INT -- "-$leader"
	wait "$leader" || true
	echo "statuses: $(cat "$TMP/statuses")"
	[ "$(cat "$TMP/statuses")" = "0 0 0 0" ]
	check_svg "$TMP/live.svg"
}

@test "offline pipeline: a saved capture symbolizes after the workload exited" {
	require_root
	start_workload chain 4
	prof-sample -d 3 -p "$WORKLOAD_PID" > "$TMP/cap.prof"
	wait "$WORKLOAD_PID"
	run ! kill -0 "$WORKLOAD_PID"
	WORKLOAD_PID=
	prof-symbolize "$TMP/cap.prof" | prof-fold > "$TMP/out.folded"
	check_folded "$TMP/out.folded"
	prof-svg -o "$TMP/out.svg" "$TMP/out.folded"
	check_svg "$TMP/out.svg"
}

@test "prof-symbolize output folds the same in prof-fold as in its format's rules" {
	# tests/fixtures/symbolized.txt is prof-symbolize output (format v1);
	# symbolized.folded is what FORMATS.md section 3 says it folds to, by
	# stackcollapse-perf.pl's rules: comm root, offsets stripped, unknown
	# symbols named after their dso, counts from the period column, summed.
	run prof-fold "$BATS_TEST_DIRNAME/fixtures/symbolized.txt"
	[ "$status" -eq 0 ]
	diff -u "$BATS_TEST_DIRNAME/fixtures/symbolized.folded" <(printf '%s\n' "$output")
}

@test "the symbolized fixture is what prof-symbolize writes" {
	# Guards the fixture against drifting from the real format: every
	# line of a real capture's symbolization has one of the fixture's
	# line shapes.
	require_root
	start_workload chain 3
	prof-sample -d 1.5 -p "$WORKLOAD_PID" | prof-symbolize > "$TMP/real.txt"
	shape() {
		sed -E 's/^[^#	].* [0-9]+\/[0-9]+ [0-9]+\.[0-9]{6}: [0-9]+ cpu-clock:$/EVENT/;
			s/^	 *[0-9a-f]{1,16} (\[unknown\]|[^ [].*\+0x[0-9a-f]+) \(.+\)$/FRAME/;
			s/^	 *[0-9a-f]{1,16} \[[^]]+\]\+0x[0-9a-f]+ \(.+\)$/FILE+OFF/;
			s/^# .*/COMMENT/; s/^$/BLANK/' "$1" | sort -u
	}
	# A real capture may or may not have code of a file without a symbol
	# there ([FILE]+0xOFF); the fixture has.
	shape "$TMP/real.txt" | grep -vx 'FILE+OFF' > "$TMP/shapes"
	[ "$(cat "$TMP/shapes")" = "$(printf 'BLANK\nCOMMENT\nEVENT\nFRAME')" ]
	[ "$(shape "$BATS_TEST_DIRNAME/fixtures/symbolized.txt")" = "$(printf 'BLANK\nCOMMENT\nEVENT\nFILE+OFF\nFRAME')" ]
}

@test "Debian's xz: code without symbols folds as [xz], never as the process name" {
	require_root
	head -c 6000000 /dev/urandom > "$TMP/data"
	prof-sample -F 999 -o "$TMP/cap.prof" -- xz -6 -T1 -c "$TMP/data" > /dev/null
	prof-symbolize "$TMP/cap.prof" | prof-fold > "$TMP/out.folded"
	grep -q '^xz;.*\[xz\]' "$TMP/out.folded"
	run ! grep -qE '^xz;(.*;)?xz(;| )' "$TMP/out.folded"
	# --addrs tells the unresolved functions apart by their file offset:
	# the three of xz's own on the path to liblzma's coder are in nearly
	# every stack (seen: 2583 to 2590 of 2591), the others in a few each,
	# which a loaded machine's run may miss (make check once saw fewer than
	# five offsets in all).
	prof-symbolize "$TMP/cap.prof" | prof-fold --addrs > "$TMP/addrs.folded"
	[ "$(grep -oE '\[xz\+0x[0-9a-f]+\]' "$TMP/addrs.folded" | sort -u | wc -l)" -ge 3 ]
}

@test "make demo's graph: several processes, a library, kernel and JIT frames, a legend" {
	require_root
	DEMO_SECONDS=1 DEMO_FOLDED=$TMP/demo.folded BUILD=${BUILD:-build} \
		sh "$BATS_TEST_DIRNAME/demo.sh" "$TMP/demo.svg"
	xmllint --noout "$TMP/demo.svg"
	for p in nofp dd xz; do
		grep -qE "<title>$p \\([0-9,]+ samples" "$TMP/demo.svg"
	done
	# qsort's callback through Debian's libc, complete from main.
	grep -qE '<title>(msort_with_tmp|qsort_r|__qsort_r)[^<]*</title>' "$TMP/demo.svg"
	grep -q '<g id="legend">.*>kernel<' "$TMP/demo.svg"
	node=$(command -v node || true)
	if [ -n "$node" ]; then
		grep -qE '<title>node \([0-9,]+ samples' "$TMP/demo.svg"
		grep -q '<g id="legend">.*>JIT<' "$TMP/demo.svg"
	fi
	# Every process complete from the start of its threads, node's through
	# V8's builtins too.  Start-up counts: the exec in the kernel, ld.so's
	# own _start (no symbol in Debian's ld.so) and static constructors run
	# from _start, which a cold cache under ASan made 13 of 93 of node's
	# samples in a fresh root.
	for p in nofp xz ${node:+node}; do
		awk -v p="$p" 'index($0, p ";") == 1 { t += $NF }
			index($0, p ";") == 1 && (/;(__libc_start_call_main|start_thread|clone3);/ ||
				index($0, p ";_start;") == 1 || index($0, p ";execve;") == 1 ||
				index($0, p ";[ld-linux-x86-64.so.2];_dl_start;") == 1) { s += $NF }
			END { printf "%s: %d of %d samples from the start\n", p, s, t; exit !(t >= 20 && s >= t * 0.9) }' \
			"$TMP/demo.folded"
	done
}
