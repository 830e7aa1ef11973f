#!/usr/bin/env bats
# prof-sample --unwind=dwarf (issue 7): full user stacks of code built
# without frame pointers, in agreement with perf record --call-graph dwarf,
# and stacks that cannot be unwound cut short and counted, never guessed.

load helpers
bats_require_minimum_version 1.5.0

# reach_main FOLDED: the percentage of samples whose stack goes through main.
reach_main() {
	awk '{ t += $NF } /(^|;)main;/ { m += $NF } END { printf "%.1f\n", t ? 100 * m / t : 0 }' "$1"
}

# matching FOLDED ERE: the summed count of the stacks matching ERE.
matching() {
	grep -E -- "$2" "$1" | awk '{ s += $NF } END { print s + 0 }'
}

# The caller of each of nofp's own functions as its source allows, as
# "caller callee" (normalized names; compare is called from inside qsort).
# A frame of nofp's with another caller was mis-unwound.  Calls from nofp
# into libc (qsort, which tail-calls qsort_r, atof, clock_gettime) are not
# checked: their callees are libc's business.
NOFP_CALLS='start_call_main main
main recurse
recurse recurse
recurse spin
main sort_round
msort_with_tmp compare'

# wrong_calls FOLDED: the callers of nofp's functions its code cannot
# produce, counted.
wrong_calls() {
	normalize <"$1" | awk -v allowed="$NOFP_CALLS" '
		BEGIN { n = split(allowed, a, "\n"); for (i = 1; i <= n; i++) ok[a[i]] = 1
			split("main recurse spin compare sort_round", o, " "); for (i in o) own[o[i]] = 1 }
		{ sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		  for (i = 3; i <= k; i++)
			if (own[f[i]] && !((f[i-1] " " f[i]) in ok))
				print f[i-1] " -> " f[i] }' | sort | uniq -c
}

@test "--unwind=dwarf: 95% of the samples of code without frame pointers reach main; frame pointers reach few" {
	require_root
	prof-sample -F 999 --user-only --unwind=dwarf -o "$TMP/dwarf.prof" -- "$PROF_WORKLOADS/nofp" 3
	prof-symbolize "$TMP/dwarf.prof" | prof-fold > "$TMP/dwarf.folded"
	prof-sample -F 999 --user-only --unwind=fp -o "$TMP/fp.prof" -- "$PROF_WORKLOADS/nofp" 3
	prof-symbolize "$TMP/fp.prof" | prof-fold > "$TMP/fp.folded"
	[ "$(folded_total "$TMP/dwarf.folded")" -ge 1000 ]
	[ "$(folded_total "$TMP/fp.folded")" -ge 1000 ]
	dwarf=$(reach_main "$TMP/dwarf.folded")
	fp=$(reach_main "$TMP/fp.folded")
	echo "reach main: dwarf $dwarf%, frame pointers $fp%"
	awk -v d="$dwarf" -v f="$fp" 'BEGIN { exit !(d >= 95 && f <= 20) }'
	# Both halves of the time, whole: recurse(24) down to recurse(1),
	# whose tail call leaves spin in recurse(0)'s place, and qsort's
	# callbacks.
	total=$(folded_total "$TMP/dwarf.folded")
	[ "$(matching "$TMP/dwarf.folded" ';main;(recurse;){24}spin ')" -ge $((total * 30 / 100)) ]
	[ "$(matching "$TMP/dwarf.folded" ';main;qsort_r;(msort_with_tmp[.a-z0-9]*;)+compare ')" -ge $((total * 5 / 100)) ]
	run wrong_calls "$TMP/dwarf.folded"
	echo "$output"
	[ -z "$output" ]
}

@test "code without CFI nor frame pointers: the walk stops at it, counted as truncated-no-cfi, with no guessed callers" {
	require_root
	run prof-sample -F 999 --user-only --unwind=dwarf -o "$TMP/cap.prof" -- "$PROF_WORKLOADS/nocfi" 2
	[ "$status" -eq 0 ]
	[[ "$output" == *"user stacks cut short: "[0-9]*" at code without CFI"* ]]
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	prof-fold "$TMP/frames.txt" > "$TMP/folded"
	cat "$TMP/folded"
	total=$(folded_total "$TMP/folded")
	truncated=$(awk '$1 == "#" && $2 == "lost" && $3 == "truncated-no-cfi" { print $4 }' "$TMP/frames.txt")
	[ "$total" -ge 1000 ]
	# spin has no CFI, so it is where every walk through it stops: its
	# callers (outer, main) are never guessed from a stale rbp.
	[ "$(folded_total "$TMP/folded" '^nocfi;spin ')" -ge $((total * 95 / 100)) ]
	[ "$(folded_total "$TMP/folded" ';spin ')" -eq "$(folded_total "$TMP/folded" '^nocfi;spin ')" ]
	# And each such sample is counted: nothing of nocfi's code can be
	# unwound, so nearly every sample is.
	[ "$truncated" -ge $((total * 95 / 100)) ]
	[ "$truncated" -le "$total" ]
}

@test "code without CFI that keeps frame pointers, as V8's builtins do: walked by them to the start, and -v says so" {
	require_root
	run prof-sample -v -F 999 --user-only --unwind=dwarf -o "$TMP/cap.prof" -- "$PROF_WORKLOADS/nocfi_fp" 2
	[ "$status" -eq 0 ]
	echo "$output" | grep -v '^libbpf'
	prof-symbolize "$TMP/cap.prof" | prof-fold > "$TMP/folded"
	cat "$TMP/folded"
	total=$(folded_total "$TMP/folded")
	walked=$(sed -n 's/.*walked by frame pointer through code without CFI: \([0-9]*\) .*/\1/p' <<<"$output")
	[ "$total" -ge 500 ]
	# spin's callers, each from its frame pointer, then libc's from its
	# CFI: the whole stack.
	[ "$(folded_total "$TMP/folded" '^nocfi_fp;_start;__libc_start_main;(__libc_start_call_main;)?main;outer;spin ')" -ge $((total * 95 / 100)) ]
	[ "$walked" -ge $((total * 95 / 100)) ]
}

@test "a frame pointer in appearance only (a stack word that is code no call returns to): the walk stops there, counted" {
	require_root
	run prof-sample -F 999 --user-only --unwind=dwarf -o "$TMP/cap.prof" -- "$PROF_WORKLOADS/nocfi" 2 decoy
	[ "$status" -eq 0 ]
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	prof-fold "$TMP/frames.txt" > "$TMP/folded"
	cat "$TMP/folded"
	total=$(folded_total "$TMP/folded")
	truncated=$(awk '$1 == "#" && $2 == "lost" && $3 == "truncated-no-cfi" { print $4 }' "$TMP/frames.txt")
	[ "$total" -ge 500 ]
	# rbp points at main's stack, at a word holding outer's address: a
	# step by it would make outer spin_decoy's caller.
	[ "$(folded_total "$TMP/folded" '^nocfi;spin_decoy ')" -ge $((total * 95 / 100)) ]
	[ "$(folded_total "$TMP/folded" ';spin_decoy ')" -eq "$(folded_total "$TMP/folded" '^nocfi;spin_decoy ')" ]
	[ "$truncated" -ge $((total * 95 / 100)) ]
}

@test "node with the default options: its stacks reach the start through V8's builtins; --perf-basic-prof names its JS" {
	require_root
	command -v node >/dev/null || skip "node is not installed"
	cd "$TMP" # --perf-basic-prof leaves a V8 log in the current directory
	cat > "$TMP/bench.js" <<-'JS'
	function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
	function sortWork() { const a = []; for (let i = 0; i < 20000; i++) a.push((i * 7919) % 10007); a.sort((x, y) => x - y); return a[0]; }
	function strWork() { let s = ''; for (let i = 0; i < 2000; i++) s += String.fromCharCode(97 + i % 26); return s.split('a').length; }
	for (const end = Date.now() + 2500; Date.now() < end;) { fib(22); sortWork(); strWork(); }
	JS
	run prof-sample -v -F 499 -o "$TMP/cap.prof" -- node "$TMP/bench.js"
	[ "$status" -eq 0 ]
	echo "$output" | grep -v '^libbpf'
	prof-symbolize "$TMP/cap.prof" | prof-fold --tid > "$TMP/folded"
	# The main thread's stacks (its tid is its pid): from _start, through
	# node::Start and V8's builtins, to where it ran.
	main=$(awk -F'[-/;]' '$2 == $3' "$TMP/folded" | awk '{ s += $NF } END { print s + 0 }')
	started=$(awk -F'[-/;]' '$2 == $3 && $0 ~ /^[^;]*;_start;__libc_start_main;.*node::Start;/' "$TMP/folded" |
		awk '{ s += $NF } END { print s + 0 }')
	builtins=$(grep -E ';_start;.*;Builtins_[A-Za-z]+;' "$TMP/folded" | awk '{ s += $NF } END { print s + 0 }')
	echo "main thread: $started of $main samples from _start, $builtins through a builtin"
	[ "$main" -ge 300 ]
	[ "$started" -ge $((main * 95 / 100)) ]
	# V8's builtins are named where node's files name them: NodeSource's
	# node does; Debian's node 18 strips them from libnode (its frames are
	# then [libnode.so.108]: the stacks still reach _start, above).
	named=$(ldd "$(command -v node)" | awk '$3 ~ /libnode/ { print $3 }')
	if readelf -Ws "$(readlink -f "$(command -v node)")" $named 2>/dev/null | grep -q ' Builtins_'; then
		[ "$builtins" -ge $((main / 2)) ]
		builtin='Builtins_[A-Za-z]+'
	else
		echo "# node's builtins are not named in its files: not counted"
		builtin='(Builtins_[A-Za-z]+|\[libnode[^;]*\])'
	fi
	prof-sample -F 499 -o "$TMP/cap2.prof" -- node --perf-basic-prof "$TMP/bench.js"
	prof-symbolize "$TMP/cap2.prof" | prof-fold > "$TMP/folded2"
	find /tmp -maxdepth 1 -name 'perf-*.map' -newer "$TMP/bench.js" -delete
	# JIT code named from the perf map, under the builtins that called it
	# (V8 11, node 20, names it JS:*fib; V8 10, node 18, LazyCompile: or
	# Function:, marked ~, ^ or * by tier).
	grep -qE ";_start;.*;$builtin;(.*;)?(JS|LazyCompile|Function):[*~^+]?fib [^;]*bench\\.js" "$TMP/folded2"
}

@test "a stack copy too short: stacks are cut where it ends, counted, and every frame found is right" {
	require_root
	run prof-sample -F 999 --user-only --unwind=dwarf --stack-size 512 -o "$TMP/cap.prof" \
		-- "$PROF_WORKLOADS/nofp" 2
	[ "$status" -eq 0 ]
	[[ "$output" == *" at the end of the stack copy (see --stack-size)"* ]]
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	prof-fold "$TMP/frames.txt" > "$TMP/folded"
	total=$(folded_total "$TMP/folded")
	short=$(awk '$1 == "#" && $2 == "lost" && $3 == "truncated-stack-copy" { print $4 }' "$TMP/frames.txt")
	echo "samples $total, cut short $short"
	[ "$total" -ge 1000 ]
	# 512 bytes hold the recursion but not what is above main.
	[ "$short" -ge $((total * 90 / 100)) ]
	[ "$(folded_total "$TMP/folded" '^nofp;_start;')" -le $((total - short)) ]
	run wrong_calls "$TMP/folded"
	echo "$output"
	[ -z "$output" ]
}

@test "--unwind=dwarf on two busy CPUs at 999 Hz: every sample written or counted lost" {
	require_root
	start_workload nofp 8
	pid1=$WORKLOAD_PID
	start_workload ratio 8
	run prof-sample -F 999 -d 3 --unwind=dwarf -o "$TMP/cap.prof"
	kill "$pid1" 2>/dev/null || true
	wait "$pid1" 2>/dev/null || true
	echo "$output"
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	read -r taken written lost < <(awk '$2 == "capture:" { gsub(/,/, ""); print $4, $6, $8 }' "$TMP/frames.txt")
	# 1 when anything was lost, as every program's status says, else 0.
	[ "$status" -eq $((lost > 0)) ]
	ring=$(awk '$2 == "lost" && $3 == "ring-full" { print $4 }' "$TMP/frames.txt")
	echo "taken $taken written $written lost $lost (ring-full ${ring:-0})"
	# Whether prof-sample keeps up is for the benchmark (tests/bench/dwarf.sh:
	# none dropped here); what must hold anywhere is that nothing is lost
	# silently.
	[ "$taken" -ge 4000 ]
	[ "$taken" -eq $((written + lost)) ]
	[ "$lost" -eq "${ring:-0}" ]
	[ "$(sum_counts "$TMP/frames.txt")" -eq "$written" ]
	if [ "$lost" -gt 0 ]; then
		[[ "$output" == *"lost $lost of $taken samples: ring buffer full"* ]]
	fi
}

@test "--unwind=dwarf with processes starting and exiting: every one known and unwound to main" {
	require_root
	# Each process needs its files known and its CFI read as soon as its
	# samples come, and must stay known until its last sample is unwound.
	run prof-sample -F 999 --user-only --unwind=dwarf -o "$TMP/cap.prof" -- sh -c \
		"for i in \$(seq 0 99); do '$PROF_WORKLOADS/shortlived' \$i 30; done"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"processes' mappings"* ]]
	prof-symbolize "$TMP/cap.prof" | prof-fold > "$TMP/folded"
	all=$(folded_total "$TMP/folded" '^shortlived;')
	good=$(folded_total "$TMP/folded" '^shortlived;_start;__libc_start_main[^;]*;(__libc_start_call_main;)?main;burn_[0-9]+ ')
	echo "$good of $all samples in main;burn_N"
	[ "$all" -ge 1500 ]
	[ $(( good * 100 )) -ge $(( all * 90 )) ]
	[ "$(grep -oE ';burn_[0-9]+ ' "$TMP/folded" | sort -u | wc -l)" -ge 95 ]
}

@test "--keep-stack-bytes: one RAWSTACK record per user stack, with its registers and copy" {
	require_root
	prof-sample -F 999 --user-only --unwind=dwarf --stack-size 4096 --keep-stack-bytes \
		-o "$TMP/raw.prof" -- "$PROF_WORKLOADS/nofp" 1
	run prof-symbolize -v -o "$TMP/frames.txt" "$TMP/raw.prof"
	[ "$status" -eq 0 ]
	echo "$output"
	written=$(awk '$2 == "capture:" { sub(/,/, "", $6); print $6 }' "$TMP/frames.txt")
	[[ "$output" =~ ([0-9]+)\ raw\ stack\ records,\ ([0-9]+)\ stack\ bytes ]]
	records=${BASH_REMATCH[1]} bytes=${BASH_REMATCH[2]}
	[ "$written" -ge 500 ]
	[ "$records" -eq "$written" ]
	# Each copy runs from the sampled sp to the top of the stack or 4 KiB,
	# whichever is nearer: at least nofp's frames and the start-up area
	# above main (its size depends on the environment), at most 4 KiB.
	[ "$bytes" -le $((records * 4096)) ]
	[ "$bytes" -ge $((records * 512)) ]
	# And the capture holds them, with 17 registers each.
	[ "$(stat -c %s "$TMP/raw.prof")" -ge $((bytes + records * 17 * 8)) ]
}

@test "--unwind errors: unknown mode, options of the other mode" {
	run prof-sample --unwind=lbr -d 1
	[ "$status" -eq 2 ]
	[ "$output" = "prof-sample: invalid unwind mode: 'lbr' (fp or dwarf)" ]
	run prof-sample --stack-size 100000 -d 1
	[ "$status" -eq 2 ]
	[ "$output" = "prof-sample: invalid stack size: '100000' (64 to 65536)" ]
	run prof-sample --unwind=fp --stack-size 4096 -d 1
	[ "$status" -eq 2 ]
	[ "$output" = "prof-sample: --stack-size, --keep-stack-bytes and --no-python need --unwind=dwarf (and user stacks)" ]
	run prof-sample --kernel-only --keep-stack-bytes -d 1
	[ "$status" -eq 2 ]
	[ "$output" = "prof-sample: --stack-size, --keep-stack-bytes and --no-python need --unwind=dwarf (and user stacks)" ]
	# The in-kernel maps exist only where stacks are counted in the kernel.
	run prof-sample --count-storage-size 64 -d 1
	[ "$status" -eq 2 ]
	[ "$output" = "prof-sample: --stack-storage-size and --count-storage-size apply to --unwind=fp and --kernel-only" ]
}
