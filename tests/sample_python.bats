#!/usr/bin/env bats
# Python's own frames (issue 29): CPython's functions in place of the
# interpreter's frames that ran them, with no flag, restart or help from the
# program, on Debian's python3.11 and on each pyenv CPython 3.10 to 3.13
# this machine has; checked against shares the workload keeps by design
# (tests/workloads/python_work.py).

load helpers
bats_require_minimum_version 1.5.0

WORK=$BATS_TEST_DIRNAME/workloads/python_work.py

setup() {
	require_root
	TMP=$(mktemp -d)
}

teardown() {
	rm -rf "${TMP:-/nonexistent}"
}

# pyenv_python MINOR: pyenv's python3.MINOR, or a skip saying it is absent.
pyenv_python() {
	local p
	for p in /root/.pyenv/versions/3."$1".*/bin/python3."$1"; do
		[ -x "$p" ] && { echo "$p"; return 0; }
	done
	return 1
}

# main_share FOLDED ERE: the percentage of the main thread's samples
# (prof-fold --tid: its root is COMM-PID/PID) inside one_round() that
# match ERE.
main_share() {
	awk -v re="$2" '{ split($1, root, ";"); split(root[1], id, /[-\/]/); n = length(id) }
		id[n - 1] == id[n] && /one_round \(/ { t += $NF; if ($0 ~ re) m += $NF }
		END { printf "%.1f\n", t ? 100 * m / t : 0 }' "$1"
}

# through_native FOLDED CALLER CALLEE: the percentage of the main thread's
# samples in one_round() where Python function CALLER calls CALLEE through
# native frames.
through_native() {
	awk -v a="$2 (" -v b="$3 (" '{ split($1, root, ";"); split(root[1], id, /[-\/]/); n = length(id) }
		id[n - 1] == id[n] && /one_round \(/ {
			t += $NF; k = split($0, f, ";"); i = 0; native = 0
			for (j = 1; j <= k; j++) {
				if (index(f[j], a) == 1) { i = j; native = 0 }
				else if (i && index(f[j], b) == 1) { if (native) m += $NF; break }
				else if (i && f[j] !~ /_\[p\]( [0-9]+)?$/) native = 1
			}
		}
		END { printf "%.1f\n", t ? 100 * m / t : 0 }' "$1"
}

# ns FOLDED ERE: the summed count of the stacks matching ERE, as an integer.
ns() {
	awk -v re="$2" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$1"
}

# within A B POINTS: |A - B| <= POINTS.
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= p) }'
}

# shares_checked PYTHON: the whole check, on one interpreter.  The script
# runs from a directory removed before prof-symbolize reads the capture:
# the names travel in it.
shares_checked() {
	mkdir "$TMP/app"
	cp "$WORK" "$TMP/app/"
	run prof-sample -v -F 499 -o "$TMP/cap.prof" -- "$1" "$TMP/app/python_work.py" shares 4
	[ "$status" -eq 0 ]
	grep -E 'Python:' <<<"$output"
	rm -rf "$TMP/app"
	prof-symbolize "$TMP/cap.prof" | prof-fold --tid --all > "$TMP/folded"
	alpha=$(main_share "$TMP/folded" ';alpha \(python_work\.py:[0-9]+\)_\[p\]')
	beta=$(main_share "$TMP/folded" ';beta \(python_work\.py:[0-9]+\)_\[p\]')
	gamma=$(main_share "$TMP/folded" ';gamma \(python_work\.py:[0-9]+\)_\[p\]')
	# Python, then sorted() and the interpreter's C, then Python again.
	callback=$(through_native "$TMP/folded" beta beta_key)
	# The main thread's samples while it runs the program (in Py_RunMain,
	# after the interpreter's start and before its end): a Python frame
	# under the interpreter's native ones.
	named=$(awk '{ split($1, root, ";"); split(root[1], id, /[-\/]/); n = length(id) }
		id[n - 1] == id[n] && /;_start;.*;Py_RunMain;/ && !/;Py_FinalizeEx;/ {
			t += $NF; if (/;Py_RunMain;.*_\[p\]/) p += $NF }
		END { printf "%.1f\n", t ? 100 * p / t : 0 }' "$TMP/folded")
	helper=$(awk '{ split($1, root, ";"); split(root[1], id, /[-\/]/); n = length(id) }
		id[n - 1] != id[n] && /;clone3;/ { t += $NF; if (/helper_hash \(/) h += $NF }
		END { printf "%.1f\n", t ? 100 * h / t : 0 }' "$TMP/folded")
	echo "main thread: alpha $alpha% (50), beta $beta% (30), gamma $gamma% (20);" \
		"beta through sorted() to beta_key $callback%; $named% of its samples in Py_RunMain name Python;" \
		"helper thread $helper% in helper_hash"
	within "$alpha" 50 3
	within "$beta" 30 3
	within "$gamma" 20 3
	awk -v c="$callback" -v b="$beta" 'BEGIN { exit !(c >= 0.9 * b) }'
	awk -v n="$named" 'BEGIN { exit !(n >= 97) }'
	awk -v h="$helper" 'BEGIN { exit !(h >= 85) }'
	# The files are named by their path.
	prof-symbolize "$TMP/cap.prof" | grep -qE "^	 *8[0-9a-f]{15} alpha \(python_work\.py:[0-9]+\) \($TMP/app/python_work\.py\)$"
	# With --lines, the line each frame was at: alpha's is its one line,
	# its call of spin(); spin's, those of its loop.
	def=$(grep -n '^def alpha' "$WORK" | cut -d: -f1)
	spin=$(grep -n '^def spin' "$WORK" | cut -d: -f1)
	prof-symbolize --lines "$TMP/cap.prof" | awk -v a="$((def + 1))" -v s0="$((spin + 3))" -v s1="$((spin + 5))" '
		/ alpha \(python_work\.py:/ { getline l; n = split(l, p, ":"); alpha++; if (p[n] == a) alpha_ok++ }
		/ spin \(python_work\.py:/ { getline l; n = split(l, p, ":"); spins++; if (p[n] >= s0 && p[n] <= s1) spin_ok++ }
		END { printf "lines: alpha %d of %d at %d, spin %d of %d in %d-%d\n", alpha_ok, alpha, a, spin_ok, spins, s0, s1
		      exit !(alpha > 50 && alpha_ok == alpha && spins > 50 && spin_ok == spins) }'
}

@test "Debian's python3.11, stripped: each function's share within 3 points of its design, Python through C to Python, both threads, names kept after the files are gone" {
	shares_checked /usr/bin/python3.11
}

@test "pyenv's CPython 3.10: the same" {
	p=$(pyenv_python 10) || skip "no pyenv CPython 3.10 under /root/.pyenv/versions"
	shares_checked "$p"
}

@test "pyenv's CPython 3.11: the same" {
	p=$(pyenv_python 11) || skip "no pyenv CPython 3.11 under /root/.pyenv/versions"
	shares_checked "$p"
}

@test "pyenv's CPython 3.12: the same" {
	p=$(pyenv_python 12) || skip "no pyenv CPython 3.12 under /root/.pyenv/versions"
	shares_checked "$p"
}

@test "pyenv's CPython 3.13: the same" {
	p=$(pyenv_python 13) || skip "no pyenv CPython 3.13 under /root/.pyenv/versions"
	shares_checked "$p"
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
	coro=$(folded_total "$TMP/folded" ';_run_once \([^;]*\)_\[p\];(.*;)?coro_burn \([^;]*\)_\[p\];')
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
	total=$(folded_total "$TMP/folded")
	alpha=$(folded_total "$TMP/folded" ';one_round \(python_work\.py:[0-9]+\)_\[p\];alpha \(')
	echo "$alpha of $total samples in alpha, under one_round"
	[ "$alpha" -ge $((total * 40 / 100)) ]
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
