#!/usr/bin/env bats
# prof-symbolize: options, bad input, and symbolization of real captures,
# including offline after the sampled process has exited.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	TMP=$(mktemp -d)
	# Hermetic: no debuginfod server a login shell may have configured.
	unset DEBUGINFOD_URLS
}

teardown() {
	stop_workload
	rm -rf "$TMP"
}

# capture_chain SECONDS: a capture of the chain workload, which then exits.
capture_chain() {
	start_workload chain $(( $1 + 1 ))
	prof-sample -d "$1" -p "$WORKLOAD_PID" > "$TMP/cap.prof"
	wait "$WORKLOAD_PID"
	WORKLOAD_PID=
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
	# Cut exactly before the END record (8 + 36 bytes), its absence is noticed.
	head -c $((size - 44)) "$TMP/cap.prof" > "$TMP/cut2.prof"
	run prof-symbolize -o /dev/null "$TMP/cut2.prof"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no end record at byte $((size - 44)): the capture was cut short" ]]
}

@test "a binary replaced since the capture is refused: its old frames resolve only from the build-id cache" {
	require_root
	cp "$PROF_WORKLOADS/chain" "$TMP/chain"
	"$TMP/chain" 3 &
	pid=$!
	prof-sample -d 1.5 -p "$pid" > "$TMP/cap.prof"
	wait "$pid"
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
	start_workload chain_nopie 3
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
	! grep -q ' ()$' frames.txt
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
