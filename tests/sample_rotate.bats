#!/usr/bin/env bats
# prof-sample --rotate: continuous captures, each file complete and read
# alone, nothing lost between two; the CGROUP record; --keep; usage errors;
# what another user can do to root's capture in a directory they write in.

load helpers
bats_require_minimum_version 1.5.0

USER_ID=4242

setup() {
	TMP=$(mktemp -d)
	CG=
}

teardown() {
	stop_workload
	stop_jobs
	if mountpoint -q "$TMP/fuse" 2>/dev/null; then fusermount -u "$TMP/fuse"; fi
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		# Back to the root, then the test's cgroup can go.
		while read -r pid; do echo "$pid" > "$CGROOT/cgroup.procs" 2>/dev/null || true; done < "$CG/cgroup.procs"
		rmdir "$CG" 2>/dev/null || true
	fi
	rm -rf "$TMP"
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

as_user() {
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$@"
}

# public_dir: $PUB, a directory everyone may write in, as /tmp is (1777).
public_dir() {
	chmod 0755 "$TMP"
	PUB=$TMP/pub
	mkdir -m 1777 "$PUB"
}

# wait_printed N: until prof-sample has printed N paths to $TMP/printed.
wait_printed() {
	for _ in $(seq 100); do
		[ "$(wc -l < "$TMP/printed")" -ge "$1" ] && return
		sleep 0.1
	done
	false
}

# check_written FILE...: each a capture file of root's own, 0600, not a link,
# read whole by prof-symbolize.
check_written() {
	local f
	for f; do
		[ -f "$f" ] && [ ! -L "$f" ]
		[ "$(stat -c '%U %a' "$f")" = "root 600" ]
		prof-symbolize "$f" > /dev/null
	done
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
	st_rotating=0 st_plain=0
	wait "$rotating" || st_rotating=$?
	wait "$plain" || st_plain=$?
	wait "$short"
	echo "status: rotating $st_rotating, plain $st_plain"
	cat "$TMP/rotate.err" "$TMP/plain.err"

	ls -A "$TMP"
	n=$(ls "$TMP"/cap-* | wc -l)
	[ "$n" -ge 5 ]
	[ "$n" -le 6 ]
	# The printed paths are exactly the finished files, in order.
	[ "$(cat "$TMP/printed")" = "$(ls "$TMP"/cap-* | sort)" ]
	[ -z "$(ls -A "$TMP" | grep '\.tmp$')" ]

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
	# Status 1 says samples were lost (-q says no more), as under ASan
	# beside other suites: then the files' END records count them.
	[ "$st_rotating" -eq 0 ] || { [ "$st_rotating" -eq 1 ] && [ "$lost" -gt 0 ]; }
	read -r _ _ _ plain_lost _ < <(cap_totals "$TMP/plain.raw")
	[ "$st_plain" -eq 0 ] || { [ "$st_plain" -eq 1 ] && [ "$plain_lost" -gt 0 ]; }
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
	[ -z "$(ls -A "$TMP" | grep '\.tmp$')" ]
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
	[ -z "$(ls -A "$TMP" | grep '\.tmp$')" ]
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
	[ -z "$(ls -A "$TMP" | grep '\.tmp$')" ]
}

@test "--rotate: prof-sample killed, its helper still names the file, cut short" {
	require_root
	# Late enough for a drain to have written something, even slowed down.
	rotate_until KILL 3.5 "$TMP/kill-%s" || true
	# The helper reads the end of its socket, then names the file (which
	# had no name till then).
	for _ in $(seq 50); do
		ls "$TMP"/kill-* > /dev/null 2>&1 && break
		sleep 0.1
	done
	ls -A "$TMP"
	[ -z "$(ls -A "$TMP" | grep '\.tmp$')" ]
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
	[ -z "$(ls -A "$TMP" | grep '\.tmp$')" ]
	[ "$(ls "$TMP"/pipe-* | wc -l)" -ge 2 ]
	for f in "$TMP"/pipe-*; do prof-symbolize "$f" > /dev/null; done
}

@test "--rotate and --keep usage errors: one line, status 2" {
	for args in "--rotate 1" "--rotate 1 -o -" "--rotate 0 -o x" "--rotate 1.5 -o x" \
		"--rotate -1 -o x" "--rotate x -o x" "--keep 2 -o x" "--rotate 1 --keep 0 -o x" \
		"--rotate 1 -o /var/lib/%Y/x" "--rotate 1 -o /var/lib/prof/" "--rotate 1 -o x-%D"; do
		run -2 prof-sample $args -d 1
		echo "$args: $output"
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == prof-sample:* ]]
	done
}

@test "--rotate in a 1777 directory: names another user took in advance, NAME to NAME.9999, links among them, neither stop it nor are followed" {
	require_root
	public_dir
	echo untouched > "$TMP/target"
	as_user bash -c 'cd "$1" && touch cap.{1..9999} && for n in cap cap.1 cap.5 cap.9; do
		ln -sf "$2" "$n"; done' _ "$PUB" "$TMP/target"
	prof-sample -q -d 3.5 --rotate 1 -p $$ -o "$PUB/cap" > "$TMP/printed" 2> "$TMP/err"
	cat "$TMP/printed" "$TMP/err"
	[ "$(wc -l < "$TMP/printed")" -ge 3 ]
	# Every name of the sequence being taken, each file has a random one,
	# and is whole, root's, in place.
	[ -z "$(grep -vE "^$PUB/cap\.[0-9a-f]{8}\$" "$TMP/printed")" ]
	check_written $(cat "$TMP/printed")
	[ -z "$(grep -E 'owned by|writable by|not printed|lost' "$TMP/err")" ]
	# Nothing of the user's was written to, replaced or followed.
	[ "$(cat "$TMP/target")" = untouched ]
	[ "$(find "$PUB" -type l -lname "$TMP/target" | wc -l)" -eq 4 ]
	[ "$(find "$PUB" -type f -user $USER_ID -empty | wc -l)" -eq 9996 ]
	# Nothing else is left: no temporary file.
	[ "$(ls -A "$PUB" | wc -l)" -eq $((10000 + $(wc -l < "$TMP/printed"))) ]
}

@test "--rotate: links put at the names the files are to get, even where there is no O_TMPFILE (FUSE), are never followed" {
	require_root
	public_dir
	echo untouched > "$TMP/target"
	# The names of the next minute, and their first suffixes.
	as_user perl -e 'my ($dir, $to) = @ARGV; my $now = time;
		for my $t ($now .. $now + 60) { for my $s ("", map { ".$_" } 1 .. 9) {
			symlink $to, "$dir/cap-$t$s" or die "$!" } }' "$PUB" "$TMP/target"
	# bindfs has no O_TMPFILE: the files are written under a hidden
	# temporary name there.
	dirs=$PUB
	if command -v bindfs > /dev/null && [ -c /dev/fuse ]; then
		mkdir "$TMP/fuse"
		bindfs "$PUB" "$TMP/fuse"
		dirs="$dirs $TMP/fuse"
	fi
	for d in $dirs; do
		prof-sample -q -d 2.5 --rotate 1 -p $$ -o "$d/cap-%s" > "$TMP/printed"
		cat "$TMP/printed"
		[ "$(wc -l < "$TMP/printed")" -ge 2 ]
		[ -z "$(grep -vE "^$d/cap-[0-9]+\.[0-9a-f]{8}\$" "$TMP/printed")" ]
		check_written $(cat "$TMP/printed")
	done
	[ "$(cat "$TMP/target")" = untouched ]
	[ "$(find "$PUB" -type l -lname "$TMP/target" | wc -l)" -eq 610 ]
	[ -z "$(ls -A "$PUB" | grep '\.tmp$')" ]
}

@test "--rotate: the directory swapped for a link to root's mid-capture: nothing written through it, the capture goes on" {
	require_root
	public_dir
	mkdir -m 0755 "$TMP/rootdir"
	# The user's directory, which root was asked to write in.
	as_user mkdir -m 0777 "$PUB/sub"
	prof-sample -q -d 4.5 --rotate 1 -p $$ -o "$PUB/sub/cap-%s" > "$TMP/printed" 2> "$TMP/err" &
	pid=$!
	wait_printed 1
	as_user sh -c 'mv "$1/sub" "$1/sub.old" && ln -s "$2" "$1/sub"' _ "$PUB" "$TMP/rootdir"
	st=0
	wait "$pid" || st=$?
	cat "$TMP/printed" "$TMP/err"
	ls -A "$PUB/sub.old"
	# Said at the start: the directory is the user's.
	grep -qF "$PUB/sub: owned by user $USER_ID" "$TMP/err"
	[ -z "$(ls -A "$TMP/rootdir")" ]
	# Every file is in the directory it started in, whole; those written
	# after the swap are not printed (their paths lead elsewhere), and
	# said so, one line each: the run's output is partial, status 1.
	total=$(ls "$PUB/sub.old" | wc -l)
	printed=$(wc -l < "$TMP/printed")
	unprinted=$(grep -c ': written, not printed: ' "$TMP/err")
	[ "$total" -ge 4 ]
	[ "$unprinted" -ge 2 ]
	[ $((printed + unprinted)) -eq "$total" ]
	grep -qF "prof-sample: --rotate: $unprinted file(s) written but not printed" "$TMP/err"
	[ "$st" -eq 1 ]
	while read -r f; do [ -f "$PUB/sub.old/${f##*/}" ]; done < "$TMP/printed"
	check_written "$PUB"/sub.old/*
}

@test "--rotate: a link on the way to the directory is refused at the start; a directory others may change is named" {
	require_root
	public_dir
	mkdir -m 0755 "$TMP/rootdir"
	as_user ln -s "$TMP/rootdir" "$PUB/link"
	run --separate-stderr prof-sample -q -d 1 --rotate 1 -p $$ -o "$PUB/link/cap-%s"
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$stderr" = "prof-sample: $PUB/link: a symbolic link: --rotate writes only where no link leads (give the directory's real path)" ]
	[ -z "$(ls -A "$TMP/rootdir")" ]
	# Root's, but anyone may delete its files: said, and written there.
	mkdir -m 0777 "$PUB/open"
	prof-sample -q -d 1.5 --rotate 1 -p $$ -o "$PUB/open/cap-%s" > "$TMP/printed" 2> "$TMP/err"
	cat "$TMP/err"
	grep -qF "prof-sample: $PUB/open: writable by others without the sticky bit: they can delete or hide the capture files written under it" "$TMP/err"
	check_written $(cat "$TMP/printed")
}

@test "--rotate: the user's directory emptied and removed mid-capture, then made again: samples lost, said, counted; the capture goes on in the new one" {
	require_root
	public_dir
	as_user mkdir -m 0777 "$PUB/sub"
	prof-sample -q -d 5.5 --rotate 1 -p $$ -o "$PUB/sub/cap-%s" > "$TMP/printed" 2> "$TMP/err" &
	pid=$!
	wait_printed 1
	as_user sh -c 'rm -f "$1"/* && rmdir "$1"' _ "$PUB/sub"
	sleep 1.5
	as_user mkdir -m 0777 "$PUB/sub"
	st=0
	wait "$pid" || st=$?
	cat "$TMP/printed" "$TMP/err"
	ls -A "$PUB/sub"
	[ "$st" -eq 1 ]
	# A period or two went nowhere, each said in a line, and counted.
	lost=$(grep -cE 'its samples are lost|the samples until the next one are lost' "$TMP/err")
	[ "$lost" -ge 1 ]
	grep -qE "^prof-sample: --rotate: $lost file\(s\) could not be made or named: [0-9]+ samples lost\$" "$TMP/err"
	grep -qF "prof-sample: $PUB/sub: removed and made again since the capture started: files go to the new one" "$TMP/err"
	# Then the files went to the new directory, printed, whole.
	[ "$(ls "$PUB/sub" | wc -l)" -ge 1 ]
	[ "$(ls "$PUB"/sub/* | sort)" = "$(grep -F "$PUB/sub/" "$TMP/printed" | tail -n +2 | sort)" ]
	check_written "$PUB"/sub/*
}
