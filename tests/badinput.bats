#!/usr/bin/env bats
# Bad input for every program: empty input, random bytes, NUL bytes, invalid
# UTF-8, CRLF, a 10 MB line, bad and overflowing counts, captures cut at
# every record boundary and inside every record, and the reproducers the
# fuzzers found (tests/fuzz/).  Each case ends with the documented exit
# status (0 ok, 1 something skipped, 2 usage or invalid input) and, where
# something is wrong, one line on stderr naming the input and the position;
# never a crash, a hang or unbounded memory.

bats_require_minimum_version 1.5.0

load helpers

BAD="$BATS_TEST_DIRNAME/fixtures/badinput"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

# Exits 0, 1 or 2, not by a signal or a sanitizer (which exit 1 too, so
# stderr is checked for their reports).
sane_exit() {
	[ "$status" -le 2 ] || { echo "exit $status"; return 1; }
	[[ "${stderr:-}$output" != *"Sanitizer"* && "${stderr:-}$output" != *"runtime error"* ]]
}

# One line on stderr.
one_line() {
	[ "${#stderr_lines[@]}" -eq 1 ] || { printf 'stderr: %s\n' "$stderr"; return 1; }
}

# Peak RSS in kB of a command, printed last on stderr by /usr/bin/time.
peak_kb() {
	/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1
}

# The memory bound of the 10 MB cases: a sanitizer build needs more.
MAX_KB=$((300 * 1024))
if nm -D "$PROF_BIN/prof-fold" 2>/dev/null | grep -q __asan_init; then
	MAX_KB=$((1024 * 1024))
fi

# Captures are built byte by byte with the helpers of capture.bash.
load fixtures/badinput/capture

# --- prof-fold ----------------------------------------------------------------

@test "prof-fold: empty input folds to nothing, exit 0" {
	: > "$TMP/empty"
	run --separate-stderr prof-fold "$TMP/empty"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
	run --separate-stderr prof-fold --input=folded < "$TMP/empty"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "prof-fold: random bytes: exit 1, one warning naming the input and line" {
	run --separate-stderr prof-fold "$BAD/random.bin"
	sane_exit
	[ "$status" -eq 1 ]
	one_line
	[[ "$stderr" == "prof-fold: $BAD/random.bin:"[0-9]*": "*"unparsable lines, this is the first" ]]
	run --separate-stderr prof-fold --input=folded "$BAD/random.bin"
	[ "$status" -eq 1 ]
	one_line
	[[ "$stderr" == "prof-fold: $BAD/random.bin:"[0-9]*": folded line"* ]]
}

@test "prof-fold: NUL bytes and invalid UTF-8 are passed through as data, with a warning naming the line" {
	# Valid UTF-8 first (no warning for it), then a NUL and bad bytes.
	printf 'ok;caf\xc3\xa9 1\na;b\0c;\xff\xfe 3\na;b\0c;\xff\xfe 2\nz;\xed\xa0\x80 1\n' > "$TMP/bin.folded"
	run --separate-stderr prof-fold "$TMP/bin.folded"
	[ "$status" -eq 0 ]
	one_line
	[ "$stderr" = "prof-fold: $TMP/bin.folded:2: NUL bytes or invalid UTF-8 in 2 distinct stacks, the first here; passed through as they are" ]
	prof-fold "$TMP/bin.folded" 2>/dev/null |
		cmp - <(printf 'a;b\0c;\xff\xfe 5\nok;caf\xc3\xa9 1\nz;\xed\xa0\x80 1\n')
	# The same in perf script input.
	printf 'p 1/1 1.0: 1 cpu-clock:\n\t1 f\xffoo (/bin/x)\n\n' > "$TMP/bin.perf"
	run --separate-stderr prof-fold "$TMP/bin.perf"
	[ "$status" -eq 0 ]
	[ "$output" = $'p;f\xffoo 1' ]
	[[ "$stderr" == "prof-fold: $TMP/bin.perf:"[23]": NUL bytes or invalid UTF-8 in 1 distinct stack, the first here; passed through as they are" ]]
}

@test "prof-fold: CRLF line ends read as LF, in both formats" {
	printf 'a;b 1\r\nc;d 2\r\na;b 3\r\n' > "$TMP/crlf.folded"
	run --separate-stderr prof-fold "$TMP/crlf.folded"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = $'a;b 4\nc;d 2' ]
	sed 's/$/\r/' "$BATS_TEST_DIRNAME/fixtures/symbolized.txt" > "$TMP/crlf.txt"
	diff <(prof-fold "$TMP/crlf.txt") <(prof-fold "$BATS_TEST_DIRNAME/fixtures/symbolized.txt")
}

@test "prof-fold: negative, huge, fractional and non-numeric counts: line skipped, exit 1" {
	for bad in -5 99999999999999999999 1.5 abc 0x10 ''; do
		printf 'ok;stack 1\nbad;stack %s\nok;stack 2\n' "$bad" > "$TMP/c.folded"
		run --separate-stderr prof-fold "$TMP/c.folded"
		[ "$status" -eq 1 ] || { echo "count '$bad': exit $status"; false; }
		[ "$output" = "ok;stack 3" ]
		one_line
		what="with a bad count"
		[ -n "$bad" ] || what="without a count"
		[ "$stderr" = "prof-fold: $TMP/c.folded:2: folded line $what; skipped it" ]
	done
	# With --strict the same line is fatal, exit 2.
	run --separate-stderr prof-fold --strict "$TMP/c.folded"
	[ "$status" -eq 2 ]
	[ "$stderr" = "prof-fold: $TMP/c.folded:2: folded line without a count (--strict)" ]
}

@test "prof-fold: the largest count is kept exactly; a sum past 64 bits saturates with a warning, exit 1" {
	printf 'a;b 18446744073709551615\n' > "$TMP/max.folded"
	run --separate-stderr prof-fold "$TMP/max.folded"
	[ "$status" -eq 0 ]
	[ "$output" = "a;b 18446744073709551615" ]
	printf 'a;b 9999999999999999999\nc 1\na;b 9999999999999999999\n' > "$TMP/ovf.folded"
	run --separate-stderr prof-fold "$TMP/ovf.folded"
	[ "$status" -eq 1 ]
	[ "$output" = $'a;b 18446744073709551615\nc 1' ]
	one_line
	[[ "$stderr" == "prof-fold: $TMP/ovf.folded:3: a stack's count passed 18446744073709551615"* ]]
	# The same through perf script periods; the position is the line that
	# ends the sample.
	printf 'a 1/1 1.0: 18446744073709551615 cpu-clock:\n\tff f (m)\n\na 1/1 2.0: 5 cpu-clock:\n\tff f (m)\n\n' > "$TMP/ovf.perf"
	run --separate-stderr prof-fold "$TMP/ovf.perf"
	[ "$status" -eq 1 ]
	[ "$output" = $'a;f 18446744073709551615' ]
	one_line
	[[ "$stderr" == "prof-fold: $TMP/ovf.perf:6: a stack's count passed"* ]]
	# A period of more than 64 bits is kept at the largest, named.
	printf 'a 1/1 1.0: 99999999999999999999999 cpu-clock:\n\tff f (m)\n\nb 1/1 2.0: 5 cpu-clock:\n\tff f (m)\n' > "$TMP/period.perf"
	run --separate-stderr prof-fold --period-unit "$TMP/period.perf"
	[ "$status" -eq 1 ]
	[ "$output" = $'[count: nanoseconds] 0\na;f 18446744073709551615\nb;f 5' ]
	one_line
	[[ "$stderr" == "prof-fold: $TMP/period.perf:1: a stack's count passed"* ]]
}

@test "prof-fold: a 10 MB line folds whole, a 10 MB line of garbage is skipped, memory stays bounded" {
	{ printf 'main;'; head -c 10000000 /dev/zero | tr '\0' f; printf ' 7\nmain;g 1\n'; } > "$TMP/long.folded"
	run --separate-stderr prof-fold "$TMP/long.folded"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${#output}" -eq $((5 + 10000000 + 2 + 9)) ]
	{ printf 'main;g 1\n'; head -c 10000000 /dev/zero | tr '\0' g; printf '\nmain;g 2\n'; } > "$TMP/garbage.folded"
	run --separate-stderr prof-fold "$TMP/garbage.folded"
	[ "$status" -eq 1 ]
	[ "$output" = "main;g 3" ]
	one_line
	[ "$stderr" = "prof-fold: $TMP/garbage.folded:2: folded line without a count; skipped it" ]
	kb=$(peak_kb prof-fold "$TMP/garbage.folded")
	[ "$kb" -lt "$MAX_KB" ] || { echo "peak RSS $kb kB"; false; }
	# The same without any newline at all: too long to show a count or
	# an event, it is read as folded (a regression: a first line longer
	# than the format detector's look-ahead made any file perf script).
	head -c 10000000 /dev/zero | tr '\0' x > "$TMP/nonl"
	run --separate-stderr prof-fold "$TMP/nonl"
	[ "$status" -eq 1 ]
	one_line
	[ "$stderr" = "prof-fold: $TMP/nonl:1: folded line without a count; skipped it" ]
	run --separate-stderr prof-fold --input=perf "$TMP/nonl"
	[ "$status" -eq 1 ]
	one_line
	[ "$stderr" = "prof-fold: $TMP/nonl:1: unrecognized event line; skipped it" ]
}

@test "prof-fold: fuzzer reproducers fold without a crash (regressions)" {
	# An event name with a NUL byte, then another event (read past a
	# strndup'ed copy); a frame line whose symbol folds to nothing before
	# any frame was stored (NULL + 0 into the frame cache).
	for f in fold-event-nul.perf fold-no-frame-cached.perf; do
		run --separate-stderr prof-fold "$BAD/$f"
		sane_exit
		run --separate-stderr prof-fold --all --pid --inline --context "$BAD/$f"
		sane_exit
	done
}

# --- prof-svg -----------------------------------------------------------------

@test "prof-svg: empty input: exit 2, one line, and still a valid SVG" {
	: > "$TMP/empty"
	run --separate-stderr prof-svg "$TMP/empty"
	[ "$status" -eq 2 ]
	one_line
	[ "$stderr" = "prof-svg: $TMP/empty: no stack counts found" ]
	prof-svg "$TMP/empty" 2>/dev/null | xmllint --noout -
}

@test "prof-svg: random bytes: exit 2, the first bad line named" {
	run --separate-stderr prof-svg "$BAD/random.bin"
	sane_exit
	[ "$status" -eq 2 ]
	[[ "${stderr_lines[0]}" == "prof-svg: $BAD/random.bin:1: skipped "*" lines that are not \"STACK COUNT\" (this is the first)" ]]
	[ "${stderr_lines[1]}" = "prof-svg: $BAD/random.bin: no stack counts found" ]
}

@test "prof-svg: NUL bytes, invalid UTF-8 and control characters still make well-formed XML" {
	printf 'a;b\0c;\xff\xfe\xc3 3\nx\x01\x1b[31m;<y>&"z\x7f 2\ncomm;\xe2\x82 1\n' > "$TMP/bin.folded"
	run --separate-stderr prof-svg "$TMP/bin.folded"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	prof-svg "$TMP/bin.folded" > "$TMP/bin.svg"
	xmllint --noout "$TMP/bin.svg"
	run ! grep -aq '<y>' "$TMP/bin.svg"
}

@test "prof-svg: CRLF input draws the same graph as LF" {
	printf 'a;b 1\r\nc;d 2\r\n' > "$TMP/crlf.folded"
	printf 'a;b 1\nc;d 2\n' > "$TMP/lf.folded"
	run --separate-stderr prof-svg "$TMP/crlf.folded"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	diff <(prof-svg "$TMP/crlf.folded") <(prof-svg "$TMP/lf.folded")
}

@test "prof-svg: negative and non-numeric counts: line skipped, exit 1, position named" {
	for bad in -5 abc 0x10 ''; do
		printf 'ok;stack 1\nbad;stack %s\n' "$bad" > "$TMP/c.folded"
		run --separate-stderr prof-svg "$TMP/c.folded"
		[ "$status" -eq 1 ] || { echo "count '$bad': exit $status"; false; }
		one_line
		[ "$stderr" = "prof-svg: $TMP/c.folded:2: skipped 1 line that is not \"STACK COUNT\"" ]
		[[ "$output" == *"<title>ok (1 samples, 100.00%)</title>"* ]]
	done
}

@test "prof-svg: huge, fractional and overflowing counts are drawn, not wrapped" {
	# flamegraph.pl's counts are numbers, not integers: prof-svg keeps them
	# as doubles, so a sum past 64 bits is drawn at its size.
	printf 'a;b 18446744073709551615\na;c 18446744073709551615\nd 0.5\n' > "$TMP/big.folded"
	run --separate-stderr prof-svg "$TMP/big.folded"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *"<title>a (36,893,488,147,419,103,232 samples, 100.00%)</title>"* ]]
	printf 'a;b 1.5\na;c 2.25\n' > "$TMP/frac.folded"
	run --separate-stderr prof-svg "$TMP/frac.folded"
	[ "$status" -eq 0 ]
	[[ "$output" == *"<title>a (3.75 samples, 100.00%)</title>"* ]]
}

@test "prof-svg: a 10 MB frame name is drawn, a 10 MB line of garbage skipped, memory bounded" {
	{ printf 'main;'; head -c 10000000 /dev/zero | tr '\0' f; printf ' 7\n'; } > "$TMP/long.folded"
	run --separate-stderr prof-svg "$TMP/long.folded"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	{ printf 'main;g 1\n'; head -c 10000000 /dev/zero | tr '\0' g; printf '\n'; } > "$TMP/garbage.folded"
	run --separate-stderr prof-svg "$TMP/garbage.folded"
	[ "$status" -eq 1 ]
	one_line
	[ "$stderr" = "prof-svg: $TMP/garbage.folded:2: skipped 1 line that is not \"STACK COUNT\"" ]
	kb=$(peak_kb prof-svg "$TMP/long.folded")
	[ "$kb" -lt "$MAX_KB" ] || { echo "peak RSS $kb kB"; false; }
}

@test "a stack line longer than 16 MiB is skipped and named, not read short for one that ends in a count" {
	# A frame "fff... 777..." of 20 MiB: cut at 16 MiB, the line would
	# end in "f 7", a count, of the wrong frame.
	{ printf 'main;g 1\nmain;'; head -c $((16 * 1024 * 1024 - 7)) /dev/zero | tr '\0' f
	  printf ' '; head -c $((4 * 1024 * 1024)) /dev/zero | tr '\0' 7
	  printf ' 8\nmain;g 2\n'; } > "$TMP/cut.folded"
	run --separate-stderr prof-fold "$TMP/cut.folded"
	[ "$status" -eq 1 ]
	[ "$output" = "main;g 3" ]
	[ "$stderr" = "prof-fold: $TMP/cut.folded:2: folded line longer than 16 MiB; skipped it" ]
	run --separate-stderr prof-svg -o "$TMP/cut.svg" "$TMP/cut.folded"
	[ "$status" -eq 1 ]
	[ "$stderr" = "prof-svg: $TMP/cut.folded:2: skipped 1 line that is not \"STACK COUNT\"" ]
	grep -q '<title>g (3 samples, 100.00%)</title>' "$TMP/cut.svg"
	kb=$(peak_kb prof-svg "$TMP/cut.folded")
	[ "$kb" -lt "$MAX_KB" ] || { echo "peak RSS $kb kB"; false; }
}

# --- prof-symbolize -------------------------------------------------------------

@test "prof-symbolize: empty input and random bytes: exit 2, one line" {
	: > "$TMP/empty"
	run --separate-stderr prof-symbolize "$TMP/empty"
	[ "$status" -eq 2 ]
	one_line
	[ "$stderr" = "prof-symbolize: $TMP/empty: not a prof capture (bad magic)" ]
	run --separate-stderr prof-symbolize "$BAD/random.bin"
	[ "$status" -eq 2 ]
	one_line
	[ "$stderr" = "prof-symbolize: $BAD/random.bin: not a prof capture (bad magic)" ]
	# A text file (a folded file given by mistake) likewise.
	run --separate-stderr prof-symbolize "$BATS_TEST_DIRNAME/fixtures/symbolized.folded"
	[ "$status" -eq 2 ]
	one_line
}

@test "prof-symbolize: random bytes after a valid header: exit 1 or 2, one line naming a byte offset" {
	cap_write "$(cap_header)" "$TMP/h"
	cat "$TMP/h" "$BAD/random.bin" > "$TMP/rand.prof"
	run --separate-stderr prof-symbolize --no-debuginfod "$TMP/rand.prof"
	sane_exit
	[ "$status" -eq 1 ]
	one_line
	[[ "$stderr" == "prof-symbolize: $TMP/rand.prof: "*"at byte "[0-9]* ]]
}

@test "prof-symbolize: hostile strings in a capture keep the frames parseable" {
	# A thread name with a newline, CR, NUL, escape and invalid UTF-8, and a
	# kernel symbol with the same: the event line stays one line.
	local c
	c="$(cap_header)$(cap_info)$(cap_comm 7 $'ev\nil\r\x1b[0m\xff')$(cap_ksym 0xffffffff81000000 0xffffffff81000100 $'sym\nbol\r\xfe')"
	c+="$(cap_stack 1 0xffffffff81000010)$(cap_sample 7 1 3)$(cap_end 3)"
	cap_write "$c" "$TMP/hostile.prof"
	run --separate-stderr prof-symbolize --no-debuginfod "$TMP/hostile.prof"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -ge 3 ]
	prof-symbolize --no-debuginfod "$TMP/hostile.prof" | prof-fold > "$TMP/out.folded"
	[ "$(wc -l < "$TMP/out.folded")" -eq 1 ]
	[ "$(folded_total "$TMP/out.folded")" -eq 3 ]
	# A NUL byte (which a kernel thread name cannot hold): the name ends
	# there, the line format holds.
	c="$(cap_header)$(cap_info)$(record 2 "$(le 7 4)$(le 7 4)$(le 6 2)\\x61\\x00\\x62\\x0a\\x0d\\x63")"
	c+="$(cap_stack 1 0xffffffff81000010)$(cap_sample 7 1 3)$(cap_end 3)"
	cap_write "$c" "$TMP/nul.prof"
	run --separate-stderr prof-symbolize --no-debuginfod "$TMP/nul.prof"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "a 7/7 0.000000: 3 cpu-clock:" ]
}

@test "prof-symbolize: a 16 MiB record of an unknown type is skipped in bounded memory" {
	local kb
	cap_write "$(cap_header)$(cap_info)$(le 99 4)$(le 16777216 4)" "$TMP/head"
	cap_write "$(cap_comm 7 w)$(cap_stack 1 0xffffffff81000010)$(cap_sample 7 1 3)$(cap_end 3)" "$TMP/tail"
	{ cat "$TMP/head"; head -c 16777216 /dev/zero; cat "$TMP/tail"; } > "$TMP/big.prof"
	run --separate-stderr prof-symbolize --no-debuginfod "$TMP/big.prof"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[1]}" = "w 7/7 0.000000: 3 cpu-clock:" ]
	kb=$(peak_kb prof-symbolize --no-debuginfod "$TMP/big.prof")
	[ "$kb" -lt "$MAX_KB" ] || { echo "peak RSS $kb kB"; false; }
}

@test "prof-symbolize: empty records, known and unknown, are read (regression)" {
	# The fuzzer's first find: a zero-length first record left the
	# reader's buffer NULL, and NULL + 0 is undefined behaviour.
	cap_write "$(cap_header)$(record 42 '')$(cap_info)$(record 43 '')$(cap_end 0)" "$TMP/z.prof"
	run --separate-stderr prof-symbolize --no-debuginfod "$TMP/z.prof"
	sane_exit
	[ "$status" -eq 0 ]
	cap_write "$(cap_header)$(record 2 '')" "$TMP/z2.prof"
	run --separate-stderr prof-symbolize --no-debuginfod "$TMP/z2.prof"
	sane_exit
	[ "$status" -eq 1 ]
	one_line
	[ "$stderr" = "prof-symbolize: $TMP/z2.prof: malformed record (type 2) at byte 16" ]
}

@test "prof-symbolize: a record claiming more than 16 MiB is corrupt, not allocated" {
	cap_write "$(cap_header)$(cap_info)$(le 42 4)$(le 0xfffffff0 4)" "$TMP/big.prof"
	run --separate-stderr prof-symbolize --no-debuginfod "$TMP/big.prof"
	[ "$status" -eq 1 ]
	one_line
	[[ "$stderr" == "prof-symbolize: $TMP/big.prof: record at byte "[0-9]*" claims 4294967280 bytes" ]]
}

# check_cut BYTES MESSAGE: the capture cut after BYTES symbolizes with exit 1
# and the one line MESSAGE.
check_cut() {
	local st=0
	head -c "$1" "$TMP/cap.prof" > "$TMP/cut.prof"
	prof-symbolize --no-debuginfod "$TMP/cut.prof" > /dev/null 2> "$TMP/err" || st=$?
	[ "$st" -eq 1 ] || { echo "cut at $1: exit $st"; cat "$TMP/err"; return 1; }
	# The error first, once; after it only what the records read before
	# the cut say of the capture (stacks cut short on a loaded machine).
	[ "$(head -1 "$TMP/err")" = "prof-symbolize: $TMP/cut.prof: $2" ] &&
		! tail -n +2 "$TMP/err" | grep -qv '^prof-symbolize: the capture \(has\|lost\) ' ||
		{ echo "cut at $1:"; cat "$TMP/err"; return 1; }
}

@test "prof-symbolize: a capture cut at each run of records' ends, and inside those records" {
	require_root
	start_workload chain 60
	# At the priority of a sampling suite, not of this suite's lane
	# (nice 19): a workload that gets no CPU gives no samples, and a
	# prof-sample that gets none may start after the workload has ended.
	renice -n 0 -p "$WORKLOAD_PID" > /dev/null
	nice -n "$((-$(nice)))" prof-sample -q -F 49 -d 1 -p "$WORKLOAD_PID" > "$TMP/cap.prof"
	stop_workload
	local size off=16 type len n=0 cut prev=none cuts=0 next_type
	size=$(stat -c %s "$TMP/cap.prof")
	run --separate-stderr prof-symbolize --no-debuginfod "$TMP/cap.prof"
	[ "$status" -eq 0 ] || { echo "uncut: $stderr"; false; }
	# Inside the 16-byte header: not a capture yet, exit 2.
	for cut in 0 7 8 15; do
		head -c "$cut" "$TMP/cap.prof" > "$TMP/cut.prof"
		run --separate-stderr prof-symbolize --no-debuginfod "$TMP/cut.prof"
		[ "$status" -eq 2 ] || { echo "cut at $cut: exit $status"; false; }
		one_line
	done
	# Walk the records: u32 type, u32 len, payload.  The reader is the
	# same for every record of a type, and a run of them (the samples,
	# most of a capture) leaves the same state a record later: cut at the
	# first and the last record of each run.  Each cut is symbolized
	# without bats' run, to keep this fast.
	while [ "$off" -lt "$size" ]; do
		read -r type len < <(od -An -tu4 -j "$off" -N 8 "$TMP/cap.prof")
		next_type=none
		[ $((off + 8 + len)) -lt "$size" ] &&
			read -r next_type < <(od -An -tu4 -j $((off + 8 + len)) -N 4 "$TMP/cap.prof")
		if [ "$type" != "$prev" ] || [ "$type" != "$next_type" ]; then
			# At the boundary: a clean end without the END record;
			# inside the record header; inside the payload.
			check_cut "$off" "no end record at byte $off: the capture was cut short"
			check_cut $((off + 5)) "truncated record header at byte $off"
			if [ "$len" -gt 0 ]; then
				check_cut $((off + 8 + len / 2)) \
					"truncated record (type $type) at byte $off: $((len / 2)) of $len bytes"
			fi
			cuts=$((cuts + 1))
		fi
		prev=$type
		off=$((off + 8 + len))
		n=$((n + 1))
	done
	[ "$off" -eq "$size" ]
	[ "$n" -ge 5 ]
	# A capture of a second has a run of samples to skip the middle of.
	[ "$cuts" -lt "$n" ]
}

# --- prof-sample ----------------------------------------------------------------
# Its input is its command line and environment: bad values are usage errors,
# exit 2 with one line naming the option, before anything is loaded.

@test "prof-sample: bad options and values: exit 2, one line naming them" {
	run --separate-stderr prof-sample --no-such-option
	[ "$status" -eq 2 ]
	[[ "${stderr_lines[0]}" == *"--no-such-option"* ]]
	for args in "-d -1" "-d abc" "-d 1e999" "-F 0" "-F 99999999999999999999" "-F 1.5" "-p abc" "-p -5" "-C 5-2" "-C x"; do
		run --separate-stderr timeout 10 prof-sample $args -o "$TMP/x.prof"
		[ "$status" -eq 2 ] || { echo "$args: exit $status: $stderr"; false; }
		one_line || { echo "$args"; false; }
	done
}

@test "prof-sample: a binary capture is never written to a terminal" {
	command -v script > /dev/null || skip "no script(1)"
	run timeout 10 script -qec "prof-sample -d 1" /dev/null
	[[ "$output" == *"refusing to write binary output to a terminal"* ]]
}

@test "prof-symbolize: a mapping that names a FIFO does not hang it (regression)" {
	fifo=/tmp/prof-fifo-repro
	rm -f "$fifo"
	mkfifo "$fifo"
	# Without a build-id to check it against, the path is not even opened.
	run timeout 10 prof-symbolize --no-debuginfod "$BATS_TEST_DIRNAME/fixtures/badinput/symbolize-fifo.capture"
	[ "$status" -ne 124 ]
	[[ "$output" == *"$fifo: the capture has no build-id to check the file against"* ]]
	# Under a --sysroot the user gave, it is, and the type check refuses it.
	run timeout 10 prof-symbolize --no-debuginfod --sysroot / "$BATS_TEST_DIRNAME/fixtures/badinput/symbolize-fifo.capture"
	rm -f "$fifo"
	[ "$status" -ne 124 ]
	[[ "$output" == *"$fifo: not a regular file (a symbolic link, a device, a FIFO)"* ]]
}

@test "an input given to the wrong stage is named, with what to run on it" {
	echo 1000 | "$PROF_WORKLOADS/mkcapture" /bin/true > "$TMP/cap.prof"
	printf 'PERFILE2\150\0\0\0\0\0\0\0' > "$TMP/perf.data"
	printf '<?xml version="1.0"?>\n<svg></svg>\n' > "$TMP/out.svg"
	FR="$BATS_TEST_DIRNAME/fixtures/symbolized.txt"
	expect() { # expect STATUS MESSAGE PROGRAM ARGS...
		local want=$1 msg=$2
		shift 2
		run --separate-stderr "$@"
		echo "$*: $status: $stderr"
		[ "$status" -eq "$want" ]
		[ "$stderr" = "$msg" ]
		[ -z "$output" ]
	}
	expect 2 "prof-fold: $TMP/cap.prof:1: a capture of prof-sample: run prof-symbolize on it first" prof-fold "$TMP/cap.prof"
	expect 2 "prof-fold: $TMP/perf.data:1: a perf.data file: run perf script on it first" prof-fold "$TMP/perf.data"
	expect 2 "prof-fold: $TMP/out.svg:1: an SVG or XML document, not stacks" prof-fold "$TMP/out.svg"
	expect 2 "prof-svg: $TMP/cap.prof: a capture of prof-sample: run prof-symbolize on it first" prof-svg "$TMP/cap.prof"
	expect 2 "prof-svg: $FR: perf script output or symbolized frames: run prof-fold on it first" prof-svg "$FR"
	expect 2 "prof-svg: $TMP/perf.data: a perf.data file: run perf script on it first" prof-svg "$TMP/perf.data"
	expect 2 "prof-symbolize: $FR: not a prof capture (bad magic); symbolized frames: run prof-fold on them first" prof-symbolize "$FR"
	expect 2 "prof-symbolize: $TMP/perf.data: not a prof capture (bad magic); a perf.data file: run perf script on it first" prof-symbolize "$TMP/perf.data"
}
