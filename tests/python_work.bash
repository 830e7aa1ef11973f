# The Python workload (tests/workloads/python_work.py) and what its
# captures are checked with: sample_python.bats, sample_python_versions.bats.

WORK=$BATS_TEST_DIRNAME/workloads/python_work.py

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
	# its call of spin(), or its def line in the instant after the call
	# made its frame and before it ran (CPython 3.10's f_lasti -1, as its
	# own tracebacks have it: seen once in 173 when ticks came to be taken
	# at switch-outs too); spin's, those of its loop, or its def line in
	# the same instant (CPython 3.11's RESUME: once in 623).
	def=$(grep -n '^def alpha' "$WORK" | cut -d: -f1)
	spin=$(grep -n '^def spin' "$WORK" | cut -d: -f1)
	prof-symbolize --lines "$TMP/cap.prof" | awk -v d="$def" -v a="$((def + 1))" -v sd="$spin" -v s0="$((spin + 3))" -v s1="$((spin + 5))" '
		/ alpha \(python_work\.py:/ { getline l; n = split(l, p, ":"); alpha++; if (p[n] == a || p[n] == d) alpha_ok++ }
		/ spin \(python_work\.py:/ { getline l; n = split(l, p, ":"); spins++; if ((p[n] >= s0 && p[n] <= s1) || p[n] == sd) spin_ok++ }
		END { printf "lines: alpha %d of %d at %d, spin %d of %d in %d-%d\n", alpha_ok, alpha, a, spin_ok, spins, s0, s1
		      exit !(alpha > 50 && alpha_ok == alpha && spins > 50 && spin_ok == spins) }'
}
