#!/usr/bin/env bats
# prof-sample --rotate: continuous captures, each file complete and read
# alone, nothing lost between two; the CGROUP record; --keep; usage errors.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	TMP=$(mktemp -d)
	CG=
}

teardown() {
	stop_workload
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		# Back to the root, then the test's cgroup can go.
		while read -r pid; do echo "$pid" > "$CGROOT/cgroup.procs" 2>/dev/null || true; done < "$CG/cgroup.procs"
		rmdir "$CG" 2>/dev/null || true
	fi
	rm -rf "$TMP"
}

# make_cgroup: a cgroup v2 of the test's own, in $CG ($CGROOT its mount).
make_cgroup() {
	CGROOT=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	[ -n "$CGROOT" ] || skip "no cgroup2 mount"
	CG=$CGROOT/prof-test-$$
	mkdir "$CG"
}

# cap_totals FILE: the file's INFO start_ns, then its END duration_ns,
# samples, lost and taken, read from the records (docs/FORMATS.md, 1).
cap_totals() {
	perl -e '
		open my $f, "<:raw", $ARGV[0] or die "$ARGV[0]: $!";
		my $b = do { local $/; <$f> };
		my ($pos, $start, @end) = (16);
		while ($pos + 8 <= length $b) {
			my ($type, $len) = unpack "VV", substr($b, $pos, 8);
			my $p = substr($b, $pos + 8, $len);
			$start = unpack "Q<", $p if $type == 1;
			@end = unpack "Q<Q<Q<VQ<", $p if $type == 8;
			$pos += 8 + $len;
		}
		print join(" ", $start, @end[0, 1, 2, 4]), "\n";' "$1"
}

# rotate_until SIGNAL DELAY PATTERN: prof-sample --rotate 60 sends the
# paths to $TMP/printed until SIGNAL, DELAY seconds in; its exit status.
rotate_until() {
	local pid
	prof-sample -q --rotate 60 -p $$ -o "$3" > "$TMP/printed" &
	pid=$!
	sleep "$2"
	kill -"$1" "$pid"
	wait "$pid"
}

# in_cgroup DELAY CMD...: runs CMD in $CG after DELAY seconds, in the
# background; its PID in $WORKLOAD_PID.
in_cgroup() {
	local delay=$1
	shift
	sh -c 'sleep "$1"; echo $$ > "$2/cgroup.procs"; shift 2; exec "$@"' sh "$delay" "$CG" "$@" &
	WORKLOAD_PID=$!
}

@test "--rotate 1 -d 5: 5 or 6 complete files, each symbolized alone, together one capture's samples" {
	require_root
	make_cgroup
	# Both captures start before the workload joins the cgroup and end
	# after it has finished: they see the same samples.
	prof-sample -F 999 -q --cgroup "$CG" -d 5 --rotate 1 -o "$TMP/cap-%H%M%S" \
		> "$TMP/printed" 2> "$TMP/rotate.err" &
	rotating=$!
	prof-sample -F 999 -q --cgroup "$CG" -d 5 -o "$TMP/plain.raw" 2> "$TMP/plain.err" &
	plain=$!
	in_cgroup 1.2 "$PROF_WORKLOADS/ratio" 3
	# A process that starts in one interval and exits in the next.
	sh -c 'sleep 2.3; echo $$ > "$1/cgroup.procs"; exec "$2" 5 1300' sh "$CG" \
		"$PROF_WORKLOADS/shortlived" &
	short=$!
	wait "$rotating"
	wait "$plain"
	wait "$short"
	cat "$TMP/rotate.err" "$TMP/plain.err"

	ls -A "$TMP"
	n=$(ls "$TMP"/cap-* | wc -l)
	[ "$n" -ge 5 ]
	[ "$n" -le 6 ]
	# The printed paths are exactly the finished files, in order.
	[ "$(cat "$TMP/printed")" = "$(ls "$TMP"/cap-* | sort)" ]
	! ls -A "$TMP" | grep -q '\.tmp$'

	total=0 short_files=0
	while read -r f; do
		prof-symbolize < "$f" > "$f.txt"
		total=$((total + $(sum_counts "$f.txt")))
		if grep -q ' burn_5+0x' "$f.txt"; then
			short_files=$((short_files + 1))
		fi
		# Every file with samples of the workload names its functions.
		if grep -q '^ratio ' "$f.txt"; then
			grep -qE ' share_(one|two|three)\+0x' "$f.txt"
		fi
	done < "$TMP/printed"
	# Each file's header is its own interval's: INFO starts a second
	# apart, END durations of a second at most (the last file's too), and
	# END's counts add up over the files as one capture's.
	prev=0 samples=0 lost=0 taken=0
	while read -r f; do
		read -r start t_dur t_samples t_lost t_taken < <(cap_totals "$f")
		echo "$f: start $start, duration $t_dur, samples $t_samples, lost $t_lost, taken $t_taken"
		if [ "$prev" -ne 0 ]; then
			[ "$start" -gt "$prev" ]
			[ $((start - prev)) -ge 800000000 ]
			[ $((start - prev)) -le 1300000000 ]
		fi
		[ "$t_dur" -gt 0 ]
		[ "$t_dur" -le 1200000000 ]
		prev=$start samples=$((samples + t_samples)) lost=$((lost + t_lost))
		taken=$((taken + t_taken))
	done < "$TMP/printed"
	[ $((samples + lost)) -eq "$taken" ]
	prof-symbolize < "$TMP/plain.raw" > "$TMP/plain.txt"
	whole=$(sum_counts "$TMP/plain.txt")
	echo "rotated: $total, plain: $whole, short-lived resolved in $short_files files"
	[ "$whole" -ge 2500 ]
	within=$(awk -v a="$total" -v b="$whole" 'BEGIN { d = a - b; if (d < 0) d = -d; print (d <= 0.02 * b) }')
	[ "$within" = 1 ]
	[ "$short_files" -ge 2 ]
}

@test "CGROUP: a process in the test's cgroup v2 is shown in it" {
	require_root
	make_cgroup
	in_cgroup 0 "$PROF_WORKLOADS/ratio" 3
	sleep 0.3
	prof-sample -q -d 1 --rotate 1 -p "$WORKLOAD_PID" -o "$TMP/cg-%s" > "$TMP/printed"
	cgpath=/prof-test-$$
	# The record is in each file (a reader of the raw bytes; prof-symbolize
	# --cgroup prints it after the event's colon).
	while read -r f; do
		grep -aqF "$cgpath" "$f"
	done < "$TMP/printed"
	prof-symbolize --cgroup < "$(head -1 "$TMP/printed")" > "$TMP/frames.txt"
	grep -qE "^ratio [0-9]+/[0-9]+ [0-9.]+: [0-9]+ cpu-clock: $cgpath\$" "$TMP/frames.txt"
}

@test "--keep 2 leaves the newest 2 files it wrote" {
	require_root
	prof-sample -q -d 4.5 --rotate 1 --keep 2 -p $$ -o "$TMP/k-%H%M%S" > "$TMP/printed"
	cat "$TMP/printed"
	[ "$(wc -l < "$TMP/printed")" -ge 4 ]
	[ "$(ls "$TMP"/k-* | sort)" = "$(tail -2 "$TMP/printed" | sort)" ]
	! ls -A "$TMP" | grep -q '\.tmp$'
}

@test "--keep 1: a file already at the pattern's name is neither replaced nor deleted" {
	require_root
	printf 'not a capture\n' > "$TMP/same"
	prof-sample -q -d 3.5 --rotate 1 --keep 1 -p $$ -o "$TMP/same" > "$TMP/printed"
	cat "$TMP/printed"
	[ "$(wc -l < "$TMP/printed")" -ge 3 ]
	[ "$(sed -n 1p "$TMP/printed")" = "$TMP/same.1" ]
	[ "$(sed -n 2p "$TMP/printed")" = "$TMP/same.2" ]
	[ "$(cat "$TMP/same")" = "not a capture" ]
	[ "$(ls "$TMP"/same.* | sort)" = "$(tail -1 "$TMP/printed")" ]
	! ls -A "$TMP" | grep -q '\.tmp$'
}

@test "--keep 1: a file's name taken by another file since is not deleted" {
	require_root
	prof-sample -q -d 3.5 --rotate 1 --keep 1 -p $$ -o "$TMP/r-%s" |
		{ read -r f; rm "$f"; echo foreign > "$f"; echo "$f" > "$TMP/first"; cat > "$TMP/rest"; }
	cat "$TMP/first" "$TMP/rest"
	[ "$(wc -l < "$TMP/rest")" -ge 2 ]
	[ "$(cat "$(cat "$TMP/first")")" = foreign ]
	[ "$(ls "$TMP"/r-* | sort)" = "$(cat "$TMP/first" <(tail -1 "$TMP/rest") | sort)" ]
}

@test "--rotate: a pattern giving the same name twice never overwrites a file" {
	require_root
	prof-sample -q -d 2.5 --rotate 1 -p $$ -o "$TMP/same" > "$TMP/printed"
	cat "$TMP/printed"
	[ "$(sed -n 1p "$TMP/printed")" = "$TMP/same" ]
	[ "$(sed -n 2p "$TMP/printed")" = "$TMP/same.1" ]
	while read -r f; do prof-symbolize < "$f" > /dev/null; done < "$TMP/printed"
}

@test "--rotate: SIGINT finishes the current file cleanly" {
	require_root
	rotate_until INT 1.5 "$TMP/int-%s"
	[ "$(wc -l < "$TMP/printed")" -eq 1 ]
	prof-symbolize < "$(cat "$TMP/printed")" > /dev/null
	! ls -A "$TMP" | grep -q '\.tmp$'
}

@test "--rotate: prof-sample killed, its helper still renames the file into place, cut short" {
	require_root
	# Late enough for a drain to have written something, even slowed down.
	rotate_until KILL 3.5 "$TMP/kill-%s" || true
	# The helper reads the end of its socket, then renames.
	for _ in $(seq 50); do
		ls -A "$TMP" | grep -q '\.tmp$' || break
		sleep 0.1
	done
	ls -A "$TMP"
	! ls -A "$TMP" | grep -q '\.tmp$'
	[ ! -s "$TMP/printed" ]
	[ "$(ls "$TMP"/kill-* | wc -l)" -eq 1 ]
	run --separate-stderr prof-symbolize "$TMP"/kill-*
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"no end record at byte "*": the capture was cut short" ]]
}

@test "--rotate: a reader of the paths gone ends the capture, status 2, its file in place" {
	require_root
	start_workload ratio 30
	prof-sample -q -d 30 --rotate 1 -p "$WORKLOAD_PID" -o "$TMP/pipe-%s" 2> "$TMP/err" |
		{ head -1 > "$TMP/first"; date +%s%N > "$TMP/head_done"; }
	st=("${PIPESTATUS[@]}")
	ended=$(date +%s%N)
	cat "$TMP/err"
	echo "statuses ${st[*]}, ended $(((ended - $(cat "$TMP/head_done")) / 1000000)) ms after head"
	[ "${st[0]}" -eq 2 ]
	[ $((ended - $(cat "$TMP/head_done"))) -le 2500000000 ]
	[ "$(cat "$TMP/err")" = "prof-sample: stdout: Broken pipe" ]
	# The file whose path could not be printed is complete and in place.
	ls -A "$TMP"
	! ls -A "$TMP" | grep -q '\.tmp$'
	[ "$(ls "$TMP"/pipe-* | wc -l)" -ge 2 ]
	for f in "$TMP"/pipe-*; do prof-symbolize "$f" > /dev/null; done
}

@test "--rotate and --keep usage errors: one line, status 2" {
	for args in "--rotate 1" "--rotate 1 -o -" "--rotate 0 -o x" "--rotate 1.5 -o x" \
		"--rotate -1 -o x" "--rotate x -o x" "--keep 2 -o x" "--rotate 1 --keep 0 -o x"; do
		run -2 prof-sample $args -d 1
		echo "$args: $output"
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == prof-sample:* ]]
	done
}
