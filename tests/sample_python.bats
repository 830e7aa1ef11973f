#!/usr/bin/env bats
# Python's own frames (issue 29): CPython's functions in place of the
# interpreter's frames that ran them, with no flag, restart or help from the
# program, on Debian's python3.11, checked against shares the workload keeps
# by design (tests/workloads/python_work.py); off-CPU, asyncio, another
# mount namespace, and a fake interpreter.  The other versions:
# sample_python_versions.bats.

load helpers
load python_work
bats_require_minimum_version 1.5.0

setup() {
	require_root
	TMP=$(mktemp -d)
}

@test "Debian's python3.11, stripped: each function's share within 3 points of its design, Python through C to Python, both threads, names kept after the files are gone" {
	shares_checked /usr/bin/python3.11
}

@test "--off-cpu and --wall: a thread blocked in time.sleep and one in a socket read show the Python function each blocked in" {
	prof-sample --off-cpu -o "$TMP/cap.prof" -- /usr/bin/python3.11 "$WORK" block 3
	prof-symbolize "$TMP/cap.prof" | prof-fold --all > "$TMP/folded"
	total=$(ns "$TMP/folded" .)
	sleeping=$(ns "$TMP/folded" ';sleep_here \(python_work\.py:[0-9]+\)_\[p\];.*\[off-cpu\]')
	reading=$(ns "$TMP/folded" ';read_socket \(python_work\.py:[0-9]+\)_\[p\];.*\[off-cpu\]')
	echo "blocked: $total ns, $sleeping in sleep_here, $reading in read_socket"
	# Each of the two threads is blocked nearly all of the 3 s.
	[ "$sleeping" -ge 2500000000 ]
	[ "$reading" -ge 2500000000 ]
	# --wall: the same blocked time, and the main thread's time on the
	# CPU in the function that runs it.
	prof-sample --wall -F 199 -o "$TMP/wall.prof" -- /usr/bin/python3.11 "$WORK" block 3
	prof-symbolize "$TMP/wall.prof" | prof-fold --all > "$TMP/wall"
	sleeping=$(ns "$TMP/wall" ';sleep_here \(python_work\.py:[0-9]+\)_\[p\];.*\[off-cpu\]')
	running=$(ns "$TMP/wall" ';block \(python_work\.py:[0-9]+\)_\[p\];')
	echo "wall: $sleeping ns in sleep_here, $running ns in block"
	[ "$sleeping" -ge 2500000000 ]
	[ "$running" -ge 2500000000 ]
}

@test "asyncio coroutines and generators: each burning function under what drives it" {
	prof-sample -F 499 -o "$TMP/cap.prof" -- /usr/bin/python3.11 "$WORK" async 3
	prof-symbolize "$TMP/cap.prof" | prof-fold --all > "$TMP/folded"
	total=$(folded_total "$TMP/folded" '_\[p\]')
	coro=$(folded_total "$TMP/folded" ';([^;]*\.)?_run_once \([^;]*\)_\[p\];(.*;)?coro_burn \([^;]*\)_\[p\];')
	gen=$(folded_total "$TMP/folded" ';gen_round \([^;]*\)_\[p\];(.*;)?gen_burn \([^;]*\)_\[p\];')
	echo "of $total samples with Python frames: $coro in coro_burn under the event loop, $gen in gen_burn under gen_round"
	[ "$coro" -ge $((total * 35 / 100)) ]
	[ "$gen" -ge $((total * 35 / 100)) ]
}

@test "a program started before the capture, from a directory only its own mount namespace has" {
	mkdir "$TMP/ns"
	unshare -m sh -c "mount -t tmpfs none '$TMP/ns' && chmod 700 '$TMP/ns' && cp '$WORK' '$TMP/ns/' &&
		exec /usr/bin/python3.11 '$TMP/ns/python_work.py' shares 60" &
	pid=$!
	sleep 1
	[ ! -e "$TMP/ns/python_work.py" ]
	prof-sample -F 499 -d 2 -p "$pid" -o "$TMP/cap.prof"
	kill "$pid"
	wait "$pid" || true
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	prof-fold --all "$TMP/frames.txt" > "$TMP/folded"
	rounds=$(folded_total "$TMP/folded" ';one_round \(python_work\.py:[0-9]+\)_\[p\];')
	alpha=$(folded_total "$TMP/folded" ';one_round \(python_work\.py:[0-9]+\)_\[p\];alpha \(')
	echo "$alpha of the $rounds samples in one_round in alpha (50% by design)"
	[ "$rounds" -ge 300 ]
	[ "$alpha" -ge $((rounds * 45 / 100)) ]
	grep -qE "^	 *8[0-9a-f]{15} alpha \(python_work\.py:[0-9]+\) \($TMP/ns/python_work\.py\)$" "$TMP/frames.txt"
}

@test "--no-python: the interpreter's frames, as before" {
	run prof-sample -v --no-python -F 499 -o "$TMP/cap.prof" -- /usr/bin/python3.11 "$WORK" shares 1
	[ "$status" -eq 0 ]
	run ! grep -q 'Python:' <<<"$output"
	prof-symbolize "$TMP/cap.prof" | prof-fold --all > "$TMP/folded"
	run ! grep -q '_\[p\]' "$TMP/folded"
	[ "$(folded_total "$TMP/folded" ';PyEval_EvalCode;')" -ge 200 ]
	run -2 prof-sample --no-python --unwind=fp -d 1
}

@test "a program that fakes an interpreter (its symbols, garbage behind them) gets no Python names, and the walks that found none are counted" {
	cat > "$TMP/fake.c" <<-'EOF'
	#include <stdlib.h>
	#include <time.h>
	/* What prof-sample looks for in a python3.11, over random bytes. */
	unsigned char _PyRuntime[1 << 16];
	const unsigned long Py_Version = 0x030b02f0;
	int main(void)
	{
		struct timespec a, b;
		srand(7);
		for (size_t i = 0; i < sizeof(_PyRuntime); i++)
			_PyRuntime[i] = (unsigned char)rand();
		clock_gettime(CLOCK_MONOTONIC, &a);
		do
			clock_gettime(CLOCK_MONOTONIC, &b);
		while (b.tv_sec - a.tv_sec < 2);
		return 0;
	}
	EOF
	gcc -O1 -rdynamic -o "$TMP/python3.11" "$TMP/fake.c"
	run prof-sample -v -F 499 -o "$TMP/cap.prof" -- "$TMP/python3.11"
	[ "$status" -eq 0 ]
	echo "$output" | grep -v '^libbpf'
	grep -qE 'Python: 1 process\(es\) \(3\.10: 0, 3\.11: 1,.* 0 samples with 0 Python frames;.* [1-9][0-9]* samples of threads not running Python' <<<"$output"
	prof-symbolize "$TMP/cap.prof" | prof-fold --all > "$TMP/folded"
	run ! grep -q '_\[p\]' "$TMP/folded"
	[ "$(folded_total "$TMP/folded" '^python3\.11;.*;main(;| )')" -ge 400 ]
}
