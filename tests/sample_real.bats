#!/usr/bin/env bats
# Debian's own binaries, built as distributions build them (optimized,
# without frame pointers), profiled with prof-sample's default unwinding
# (issue 12): stacks complete down to libc's start, no [unknown] frames, and
# the same profile as perf record --call-graph dwarf sampling the same
# processes at the same time, with the same stack copy.

load helpers
bats_require_minimum_version 1.5.0

# 40 MB of base64 text for the compressors and sort, made once.
setup_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	head -c 30000000 /dev/urandom | base64 > "$BATS_FILE_TMPDIR/data.txt"
}

setup() {
	require_root
	command -v perf >/dev/null || skip "perf is not installed"
	TMP=$(mktemp -d)
	DATA=$BATS_FILE_TMPDIR/data.txt
}

teardown() {
	# B may be several pids: the hogs.
	[ -n "${A:-}" ] && kill "$A" ${B:-} 2>/dev/null
	stop_jobs
	wait 2>/dev/null || true
	rm -rf "${TMP:-/nonexistent}"
}

# side_by_side [-w SECS] CMD...: two copies of CMD (twice the samples in
# the same time), left to run SECS seconds (default 0.5), then sampled for
# 5 s at 999 Hz by prof-sample, whose only options are the rate, the
# duration and $OURS_OPTS, and at the same time by perf record --call-graph dwarf with
# prof-sample's default stack copy.  Folded into $TMP/ours and $TMP/perf.
side_by_side() {
	local wait=0.5 p
	if [ "$1" = -w ]; then
		wait=$2
		shift 2
	fi
	"$@" >/dev/null 2>&1 &
	A=$!
	"$@" >/dev/null 2>&1 &
	B=$!
	sleep "$wait"
	perf record -q --call-graph dwarf,32768 -F 999 -p "$A,$B" -o "$TMP/perf.data" \
		-- sleep 5 2>/dev/null &
	p=$!
	prof-sample -q -F 999 -d 5 -p "$A,$B" -o "$TMP/cap.prof" ${OURS_OPTS:-}
	# perf record ends with 143 when the processes it follows end: say
	# what that means.
	if ! kill -0 "$A" "$B" 2>/dev/null; then
		echo "the workload ended within the ${wait} s + 5 s it had to run: give it more" >&2
		return 1
	fi
	wait "$p"
	kill "$A" "$B" 2>/dev/null || true
	wait "$A" "$B" 2>/dev/null || true
	A=
	prof-symbolize "$TMP/cap.prof" | prof-fold > "$TMP/ours"
	perf_folded "$TMP/perf.data" > "$TMP/perf"
}

# reach_start FOLDED: the percentage of samples whose stack reaches the
# start of their thread.
reach_start() {
	awk '{ t += $NF } /(^|;)(__libc_start_call_main|start_thread|clone3)(;| )/ { m += $NF }
		END { printf "%.1f\n", t ? 100 * m / t : 0 }' "$1"
}

# unknown_share FOLDED: the percentage of samples with an [unknown] frame.
unknown_share() {
	awk '{ t += $NF } /\[unknown\]/ { u += $NF } END { printf "%.2f\n", t ? 100 * u / t : 100 }' "$1"
}

# complete_and_agreeing: ours reach the start in 95% of the samples with at
# most 2% [unknown]; perf's ten functions of largest inclusive share have
# ours within 3 points ([unknown], perf's mark of a stack it could not
# finish, is no function: ours are counted as cut short).  When perf,
# copying as much stack at the same moments, reaches the start less often,
# ours must be within 2 points of it: in full suite runs, sort -V was seen
# to have half of its stack copies cut short, perf's and ours alike, where
# alone it has none (it needs 8 to 16 KB of the 32 copied, measured with
# perf's copy at each size); the cause is not found.  Then a caller's
# share may be above perf's by the points of stacks ours completed and
# perf's did not (a CI run: perf reached the start in 44.2%, ours in 48.9%,
# and __libc_start_call_main was ours by as much), never below.
complete_and_agreeing() {
	local ours perf reach unknown n=0 f share other theirs
	echo "samples: ours $(folded_total "$TMP/ours"), perf $(folded_total "$TMP/perf")"
	[ "$(folded_total "$TMP/ours")" -ge 3000 ]
	[ "$(folded_total "$TMP/perf")" -ge 3000 ]
	reach=$(reach_start "$TMP/ours")
	unknown=$(unknown_share "$TMP/ours")
	echo "ours: ${reach}% reach the start, ${unknown}% [unknown] (perf: $(reach_start "$TMP/perf")%, $(unknown_share "$TMP/perf")%)"
	theirs=$(reach_start "$TMP/perf")
	awk -v r="$reach" -v u="$unknown" -v p="$theirs" 'BEGIN { exit !((r >= 95 || (p < 95 && r >= p - 2)) && u <= 2) }'
	ours=$(inclusive_shares "$TMP/ours")
	perf=$(inclusive_shares "$TMP/perf")
	while read -r f share; do
		other=$(awk -v f="$f" '$1 == f { print $2 }' <<<"$ours")
		printf '%-40s perf %6.2f%%  ours %6.2f%%\n' "$f" "$share" "${other:-0}"
		awk -v a="$share" -v b="${other:-0}" -v r="$reach" -v p="$theirs" \
			'BEGIN { d = a - b; more = r > p ? r - p : 0; exit !(d <= 3 && d >= -3 - more) }'
		n=$((n + 1))
	done < <(grep -v '^unknown ' <<<"$perf" | head -10)
	[ "$n" -eq 10 ]
}

@test "python3.11 (JSON and regular expressions): complete stacks, as perf's" {
	[ -x /usr/bin/python3.11 ] || skip "Debian's python3.11 is not installed"
	cat > "$TMP/work.py" <<-'EOF'
		import json, re, sys, time
		end = time.time() + float(sys.argv[1])
		mail = re.compile(r'(\w+)@(\w+)\.com')
		doc = {"users": [{"name": "u%d" % i, "mail": "u%d@ex%d.com" % (i, i % 7),
		                  "tags": list(range(i % 5))} for i in range(200)]}
		n = 0
		while time.time() < end:
		    s = json.dumps(doc)
		    n += len(mail.findall(s)) + len(json.loads(s)["users"])
		print(n)
	EOF
	# The interpreter's own frames, as perf has them: Python's functions
	# in their place are tests/sample_python.bats's.
	OURS_OPTS=--no-python side_by_side /usr/bin/python3.11 "$TMP/work.py" 8
	complete_and_agreeing
}

@test "perl (hashes, split, substitutions): complete stacks, as perf's" {
	side_by_side /usr/bin/perl -e 'my $end = time + 8; my $n = 0;
		my $s = join ",", map { "k$_=v" . ($_ * 7) } 1..300;
		while (time < $end) { my %h = map { split /=/ } split /,/, $s;
			$n += grep { /7$/ } values %h; $s =~ s/(\d+)/$1/g; }
		print "$n\n";'
	complete_and_agreeing
}

@test "xz -6 (liblzma): complete stacks, as perf's" {
	[ -x /usr/bin/xz ] || skip "xz-utils is not installed"
	# Three copies: one took 5.8 s here alone, and ended before the 5.5 s
	# sampled on a faster CI machine.
	head -c 12000000 "$DATA" > "$TMP/in.txt"
	side_by_side /usr/bin/xz -6 -T1 -c "$TMP/in.txt" "$TMP/in.txt" "$TMP/in.txt"
	complete_and_agreeing
}

@test "gzip -9: complete stacks, as perf's" {
	# Eight copies: four took 6 s here, too close to the 5.5 s sampled,
	# and perf record ends with 143 when the processes it follows end.
	side_by_side /usr/bin/gzip -9 -c "$DATA" "$DATA" "$DATA" "$DATA" "$DATA" "$DATA" "$DATA" "$DATA"
	complete_and_agreeing
}

@test "bash (arithmetic, strings, glibc's regex matcher): complete stacks, as perf's" {
	side_by_side /bin/bash -c 'i=0; s=x; while [ $SECONDS -lt 8 ]; do i=$((i + 1));
		s="${s:0:50}$i"; [[ $s =~ ([0-9]+)$ ]] && n=${BASH_REMATCH[1]}; done'
	complete_and_agreeing
}

@test "coreutils sort -V (version order): complete stacks, as perf's" {
	# Sampled once the input is read, while it sorts.
	side_by_side -w 1.5 /usr/bin/sort -S 1G --parallel=1 -V "$DATA" "$DATA" "$DATA" "$DATA"
	complete_and_agreeing
}

# A thread that runs a few microseconds at a time, on CPUs kept busy by
# others: each time it is switched in, a tick of the per-CPU clock that
# fell due while another task ran lands in it (interrupts come back on in
# finish_task_switch), 32 to 65 us late on this kind of machine.  A
# targeted capture takes each tick where it fell due; a system-wide one
# (-a) still charges it to whoever it lands in, so one of those, taken at
# the same time, is the rule the fix replaced, measured on the same
# machine in the same moment.  What is left in finish_task_switch is the
# thread's own switching in, whose cost varies with the host (a PVM
# guest's switch of address space is a hypercall): over runs on one day
# 3% to 27% of the targeted capture's samples, on another 12% to 54%,
# against 37% to 86% charged where the ticks landed.
@test "python3.11 sleeping 0.5 ms at a time beside a hog on every CPU: not charged for the hogs' ticks" {
	[ -x /usr/bin/python3.11 ] || skip "Debian's python3.11 is not installed"
	/usr/bin/python3.11 -c 'import time
while True: time.sleep(0.0005)' &
	A=$!
	B=
	for _ in $(seq "$(nproc)"); do
		sha256sum /dev/zero &
		B="$B $!"
	done
	sleep 0.5
	# How many ticks land in the sleeper depends on their phase against
	# its timer (alone, 40 to 300 samples in 8 s), and on a machine loaded
	# besides (make check's other lanes) it may get little CPU (CI once
	# saw 9 samples in 8 s): it is sampled up to five times, the
	# captures' stacks added up, until each side has enough for a share.
	: > "$TMP/ours"
	: > "$TMP/landed"
	: > "$TMP/err"
	for _ in 1 2 3 4 5; do
		prof-sample -F 999 -d 8 -a -o "$TMP/all.prof" 2> /dev/null &
		S=$!
		prof-sample -v -F 999 -d 8 -p "$A" -o "$TMP/cap.prof" 2>> "$TMP/err"
		wait "$S"
		prof-symbolize "$TMP/cap.prof" | prof-fold >> "$TMP/ours"
		prof-symbolize "$TMP/all.prof" | prof-fold --pid | grep "^python3.11-$A;" >> "$TMP/landed" || true
		[ "$(folded_total "$TMP/ours")" -ge 100 ] && [ "$(folded_total "$TMP/landed")" -ge 100 ] && break
	done
	kill $B
	grep 'clock ticks' "$TMP/err"
	# The ticks the switches delayed were seen and sorted out: some due
	# before the sleeper came in left out, some due while it ran charged
	# to it where it was switched out (over the tries, 8 to 18 and 3 to
	# 16 in each 8 s).
	early=$(sed -n 's/.*; \([0-9]*\) due before a target was switched in, left out$/\1/p' "$TMP/err" | awk '{ s += $1 } END { print s + 0 }')
	late=$(sed -n 's/.*: \([0-9]*\) due while a target ran, charged to it where it was switched out;.*/\1/p' "$TMP/err" | awk '{ s += $1 } END { print s + 0 }')
	echo "ticks left out: $early; charged where switched out: $late"
	[ "$early" -ge 1 ]
	[ "$late" -ge 1 ]
	total=$(folded_total "$TMP/ours")
	switch_in=$(folded_total "$TMP/ours" 'finish_task_switch')
	landed=$(folded_total "$TMP/landed")
	landed_in=$(folded_total "$TMP/landed" 'finish_task_switch')
	echo "targeted: $total samples, $switch_in in finish_task_switch"
	echo "system-wide, where the ticks landed: $landed samples, $landed_in in finish_task_switch"
	[ "$total" -ge 20 ]
	[ "$landed" -ge 20 ]
	# Never more than where the ticks landed.  Over runs on this host the
	# targeted share was 4 to 20 points below it (28% against 33%, 52%
	# against 61%), each single try's shares 1 to 60 points apart, the two
	# captures' clocks in different phases against the sleeper's timer:
	# 5 points are allowed for that noise.  What tells the rules apart
	# for certain is the count of ticks left out, above.
	[ $((100 * switch_in * landed)) -lt $(((100 * landed_in + 5 * landed) * total)) ]
}
