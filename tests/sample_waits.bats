#!/usr/bin/env bats
# Waits in progress (issue 30): --off-cpu and --wall count a thread that was
# already blocked when the capture started, and one still blocked when it
# (or a --rotate file) ends, for the part of its wait inside the capture.
# The blocked threads are Debian's own sleep and cat.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	TMP=$(mktemp -d)
	CG=
	PIDS=()
}

teardown() {
	local p
	[ -z "${WRITER:-}" ] || exec {WRITER}>&-
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	stop_jobs
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		rmdir "$CG" 2>/dev/null || true
	fi
	rm -rf "$TMP"
}

# blocked PID: waits until PID is asleep (state S).
blocked() {
	local i
	for i in $(seq 100); do
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = S ] && return 0
		sleep 0.05
	done
	return 1
}

# ns FOLDED [ERE]: the nanoseconds of the stacks matching ERE.
ns() {
	awk -v re="${2:-.}" '!/^#/ && $0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$1"
}

# near A B PERCENT: |A - B| <= PERCENT % of B.
near() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'
}

# fold CAPTURE: its folded stacks, in CAPTURE.folded.
fold() {
	prof-symbolize "$1" > "$1.frames"
	prof-fold < "$1.frames" > "$1.folded"
}

@test "--wall -d 3: a sleep begun before the capture and outliving it is blocked for all of it, in nanosleep (both unwinders)" {
	require_root
	/usr/bin/sleep 600 &
	PIDS+=($!)
	blocked $!
	for unwind in dwarf fp; do
		prof-sample -q --wall --unwind=$unwind -p "${PIDS[0]}" -d 3 -o "$TMP/$unwind"
		fold "$TMP/$unwind"
		cat "$TMP/$unwind.folded"
		all=$(ns "$TMP/$unwind.folded")
		# The kernel stack of the sleep, and libc's function that made
		# the call, at the leaf of the user stack.
		in_sleep=$(ns "$TMP/$unwind.folded" '^sleep;.*clock_nanosleep;.*hrtimer_nanosleep;\[off-cpu\] ')
		read -r _ dur _ < <(cap_totals "$TMP/$unwind")
		echo "$unwind: $all ns blocked in a $dur ns capture, $in_sleep ns in nanosleep"
		near "$all" "$dur" 5
		[ "$in_sleep" -eq "$all" ]
	done
	# With dwarf, the whole user stack: sleep's main, from libc's start.
	[ "$(ns "$TMP/dwarf.folded" '^sleep;.*__libc_start_main;.*clock_nanosleep;')" -eq \
		"$(ns "$TMP/dwarf.folded")" ]
}

@test "--off-cpu: a reader blocked on a pipe for the whole capture is counted in pipe_read; -v says what was taken on" {
	require_root
	mkfifo "$TMP/fifo"
	/usr/bin/cat "$TMP/fifo" > /dev/null &
	PIDS+=($!)
	# The writer's end, held open and never written to.
	exec {WRITER}> "$TMP/fifo"
	blocked "${PIDS[0]}"
	prof-sample -v --off-cpu -p "${PIDS[0]}" -d 2 -o "$TMP/cap" 2> "$TMP/err"
	cat "$TMP/err"
	fold "$TMP/cap"
	cat "$TMP/cap.folded"
	read -r _ dur _ < <(cap_totals "$TMP/cap")
	near "$(ns "$TMP/cap.folded" '^cat;.*;read;.*pipe_read;\[off-cpu\] ')" "$dur" 5
	[ "$(ns "$TMP/cap.folded" '^cat;.*;read;.*pipe_read;\[off-cpu\] ')" -eq "$(ns "$TMP/cap.folded")" ]
	grep -qx 'prof-sample: waits in progress: 1 thread(s) blocked when the capture started, counted from then; 1 wait(s) going on at the end of a file, counted up to it' "$TMP/err"
}

@test "--rotate 1: a wait longer than the files is split across them, each file's part its own length" {
	require_root
	/usr/bin/sleep 600 &
	PIDS+=($!)
	blocked $!
	prof-sample -q --off-cpu --rotate 1 -p "${PIDS[0]}" -d 3.5 -o "$TMP/cap-%s" > "$TMP/printed"
	n=0 sum=0 total=0
	while read -r f; do
		fold "$f"
		read -r _ dur _ < <(cap_totals "$f")
		part=$(ns "$f.folded" '^sleep;.*hrtimer_nanosleep;')
		echo "$f: $part ns of a $dur ns file"
		near "$part" "$dur" 5
		n=$((n + 1)) sum=$((sum + part)) total=$((total + dur))
	done < "$TMP/printed"
	[ "$n" -ge 3 ]
	near "$sum" "$total" 5
}

@test "--wall --cgroup: a thread blocked in the cgroup since before the capture is counted; one outside is not" {
	require_root
	make_cgroup
	sh -c 'echo $$ > "$1/cgroup.procs" && exec /usr/bin/sleep 600' sh "$CG" &
	PIDS+=($!)
	/usr/bin/sleep 600 &
	PIDS+=($!)
	blocked "${PIDS[0]}"
	blocked "${PIDS[1]}"
	grep -qx "${PIDS[0]}" "$CG/cgroup.procs"
	prof-sample -q --wall --cgroup "$CG" -d 2 -o "$TMP/cap"
	kill "${PIDS[0]}"
	wait "${PIDS[0]}" 2>/dev/null || true
	fold "$TMP/cap"
	cat "$TMP/cap.frames" | grep -E '^sleep ' | sort | uniq -c
	# Only the one in the cgroup: the same command, another PID.
	run ! grep -qE "^sleep +${PIDS[1]}/" "$TMP/cap.frames"
	grep -qE "^sleep +${PIDS[0]}/" "$TMP/cap.frames"
	read -r _ dur _ < <(cap_totals "$TMP/cap")
	near "$(ns "$TMP/cap.folded" '^sleep;.*hrtimer_nanosleep;')" "$dur" 5
}

@test "--max-block drops a wait already longer; --min-block does not drop one whose start it cannot know" {
	require_root
	/usr/bin/sleep 600 &
	PIDS+=($!)
	blocked $!
	prof-sample -q --off-cpu --max-block 1s -p "${PIDS[0]}" -d 2 -o "$TMP/long" 2> "$TMP/err" || true
	fold "$TMP/long"
	[ "$(ns "$TMP/long.folded")" -eq 0 ]
	prof-sample -q --off-cpu --min-block 10s -p "${PIDS[0]}" -d 1.5 -o "$TMP/short"
	fold "$TMP/short"
	read -r _ dur _ < <(cap_totals "$TMP/short")
	near "$(ns "$TMP/short.folded" 'hrtimer_nanosleep;')" "$dur" 5
}

@test "--off-cpu: a target that never blocked is said to have never blocked" {
	require_root
	/usr/bin/sha256sum /dev/zero &
	PIDS+=($!)
	run --separate-stderr prof-sample -q --off-cpu -p "${PIDS[0]}" -d 0.5 -o "$TMP/off"
	[ "$stderr" = "prof-sample: no samples were taken: the targets never blocked while sampling" ]
}

@test "--wakeups: a sleep woken by its timer names the interrupt as its waker, never the user frames of what it interrupted" {
	require_root
	# Both CPUs busy in user code, where the timer interrupts land.
	/usr/bin/sha256sum /dev/zero &
	PIDS+=($!)
	/usr/bin/sha256sum /dev/zero &
	PIDS+=($!)
	prof-sample -q --off-cpu --wakeups -o "$TMP/cap" -- \
		sh -c 'for i in $(seq 30); do /usr/bin/sleep 0.05; done'
	prof-symbolize "$TMP/cap" > "$TMP/frames"
	# The sleeps' blocks, each with its waker line and the frames after it.
	awk '/^sleep / { on = 1; next } /^[^\t]/ { on = 0 } on' "$TMP/frames" > "$TMP/sleeps"
	n=$(grep -c $'^\t-- woken by ' "$TMP/sleeps")
	irq=$(grep -c $'^\t-- woken by \\[interrupt\\] 0/0$' "$TMP/sleeps")
	echo "sleep blocks with a waker: $n, woken by an interrupt: $irq"
	[ "$n" -ge 10 ]
	[ "$irq" -eq "$n" ]
	grep -q 'hrtimer_wakeup' "$TMP/sleeps"
	# No user frame (a tab, then spaces) after a waker line.
	run ! awk '/^\t-- woken by / { w = 1; next } /^$/ { w = 0 } w && /^\t / { bad = 1 }
		END { exit !bad }' "$TMP/sleeps"
}
