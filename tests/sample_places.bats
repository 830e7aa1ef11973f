#!/usr/bin/env bats
# Where programs really live (issue 12): directories only their owner may
# enter, other mount namespaces, chroots, files replaced or gone by the
# time the capture is symbolized; and the parts that make that work, the
# file opener (privileged, confined) and the build-id cache (bounded).

load helpers
bats_require_minimum_version 1.5.0

setup() {
	require_root
	TMP=$(mktemp -d)
	# Each test its own cache, unless it tests the default one.
	export PROF_BUILD_ID_DIR=$TMP/cache
}

teardown() {
	stop_workload
	if [ -n "${SAMPLER:-}" ]; then
		kill "$SAMPLER" 2>/dev/null
		wait "$SAMPLER" 2>/dev/null
	fi
	[ -n "${NS_MNT:-}" ] && umount "$NS_MNT" 2>/dev/null
	[ -n "${CG:-}" ] && rmdir "$CG" 2>/dev/null
	stop_jobs
	rm -rf "$TMP"
}

# reach_main FOLDED: the percentage of samples whose stack goes through main.
reach_main() {
	awk '{ t += $NF } /(^|;)main;/ { m += $NF } END { printf "%.1f\n", t ? 100 * m / t : 0 }' "$1"
}

at_least() {
	echo "$1: $2% (at least $3%)"
	awk -v v="$2" -v min="$3" 'BEGIN { exit !(v >= min) }'
}

# unique_program DIR NAME: a program of its own (so of its own build-id),
# built without frame pointers, that spins in work() called from main()
# for as many seconds as its argument says (one digit; 2 without one).
unique_program() {
	cat > "$TMP/$2.c" <<-EOF
		#include <time.h>
		static const char tag[] __attribute__((used)) = "$2 $RANDOM $RANDOM $(date +%s%N)";
		__attribute__((noinline)) double work(double x) { for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9; return x; }
		int main(int argc, char **argv) {
			struct timespec t0, t; double x = 1;
			long secs = argc > 1 ? argv[1][0] - '0' : 2;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			do { x = work(x); clock_gettime(CLOCK_MONOTONIC, &t); } while (t.tv_sec - t0.tv_sec < secs
				|| (t.tv_sec - t0.tv_sec == secs && t.tv_nsec < t0.tv_nsec));
			return x < 0;
		}
	EOF
	gcc -O2 -fomit-frame-pointer -o "$1/$2" "$TMP/$2.c"
}

@test "code without frame pointers in root's 0700 directory and in another user's 0700 home: 95% reach main" {
	dir=$(mktemp -d)
	cp "$PROF_WORKLOADS/nofp" "$dir/app"
	[ "$(stat -c %a "$dir")" = 700 ]
	prof-sample -F 999 --user-only -o "$TMP/root.prof" -- "$dir/app" 2
	prof-symbolize "$TMP/root.prof" | prof-fold > "$TMP/root.folded"
	at_least "root's 0700 directory" "$(reach_main "$TMP/root.folded")" 95
	# A user prof-sample is not, in a home nobody else may enter.
	home=$TMP/home
	mkdir -m 0700 "$home"
	cp "$PROF_WORKLOADS/nofp" "$home/app"
	chown -R 4242:4242 "$home"
	prof-sample -F 999 --user-only -o "$TMP/user.prof" -- \
		setpriv --reuid=4242 --regid=4242 --clear-groups "$home/app" 2
	prof-symbolize "$TMP/user.prof" | prof-fold > "$TMP/user.folded"
	at_least "user 4242's 0700 home" "$(reach_main "$TMP/user.folded")" 95
	grep -q ';main;recurse;recurse' "$TMP/user.folded"
	rm -rf "$dir"
}

@test "a program in a private mount namespace is symbolized after it and its namespace are gone" {
	NS_MNT=$TMP/mnt
	mkdir "$NS_MNT"
	unique_program "$TMP" svc
	prof-sample -F 499 --user-only -o "$TMP/cap.prof" -- unshare --mount --propagation private \
		sh -c "mount -t tmpfs none '$NS_MNT' && cp '$TMP/svc' '$NS_MNT/svc' && '$NS_MNT/svc' 2"
	# The namespace died with its last process, and its tmpfs with it.
	[ ! -e "$NS_MNT/svc" ]
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	prof-fold "$TMP/frames.txt" > "$TMP/folded"
	at_least "reach main" "$(reach_main "$TMP/folded")" 95
	grep -qE '^svc;.*;main;work [0-9]+$' "$TMP/folded"
	# The kernel names the file from the reader's root (in a chroot, with
	# the chroot's path in front).
	grep -qE "\([^)]*$NS_MNT/svc\)$" "$TMP/frames.txt"
	# Without the cache it could not have been.
	PROF_BUILD_ID_DIR=$TMP/empty prof-symbolize "$TMP/cap.prof" 2>"$TMP/err" | prof-fold > "$TMP/nocache"
	grep -q "$NS_MNT/svc: No such file or directory; its frames stay unresolved" "$TMP/err"
	run ! grep -q ';work ' "$TMP/nocache"
}

@test "a chroot's program that differs from the host's at the same path: the host's file is refused, the cache resolves it" {
	root=$TMP/root
	mkdir -p "$root/usr/bin" "$root/lib64" "$root/lib/x86_64-linux-gnu"
	unique_program "$TMP" work
	# The chroot's /usr/bin/true is not the host's.
	cp "$TMP/work" "$root/usr/bin/true"
	cp /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
	cp /lib/x86_64-linux-gnu/libc.so.6 "$root/lib/x86_64-linux-gnu/"
	prof-sample -F 499 --user-only -o "$TMP/cap.prof" -- chroot "$root" /usr/bin/true 2
	rm -rf "$root"
	prof-symbolize "$TMP/cap.prof" 2>"$TMP/err" | prof-fold > "$TMP/folded"
	grep -qE '^true;.*;main;work [0-9]+$' "$TMP/folded"
	at_least "reach main" "$(reach_main "$TMP/folded")" 95
	# Without the cache, the host's /usr/bin/true is found and refused.
	PROF_BUILD_ID_DIR=$TMP/empty run prof-symbolize "$TMP/cap.prof"
	[[ "$output" == *"/usr/bin/true: build-id differs from the capture's (file replaced?); its frames stay unresolved"* ]]
	[[ "$output" != *";main;"* && "$output" != *" work+"* ]]
}

@test "a program replaced after the capture: the new file is refused, the cache keeps the old one's symbols" {
	mkdir "$TMP/bin"
	unique_program "$TMP/bin" app
	prof-sample -F 499 --user-only -o "$TMP/cap.prof" -- "$TMP/bin/app" 2
	# An upgrade: another program at the same path, its functions named
	# otherwise.
	sed 's/work/other/g' "$TMP/app.c" > "$TMP/new.c"
	gcc -O2 -o "$TMP/bin/app" "$TMP/new.c"
	prof-symbolize "$TMP/cap.prof" 2>"$TMP/err" | prof-fold > "$TMP/folded"
	grep -qE '^app;.*;main;work [0-9]+$' "$TMP/folded"
	run ! grep -q other "$TMP/folded"
	PROF_BUILD_ID_DIR=$TMP/empty run prof-symbolize "$TMP/cap.prof"
	[[ "$output" == *"$TMP/bin/app: build-id differs from the capture's (file replaced?); its frames stay unresolved"* ]]
	[[ "$output" != *" work+"* && "$output" != *" other+"* ]]
}

@test "the build-id cache: found without options where prof-sample put it, on another host with --debug-dir" {
	unset PROF_BUILD_ID_DIR
	mkdir "$TMP/bin"
	unique_program "$TMP/bin" gone
	prof-sample -F 499 --user-only -o "$TMP/cap.prof" -- "$TMP/bin/gone" 2
	id=$(readelf -n "$TMP/bin/gone" | sed -nE 's/.*Build ID: ([0-9a-f]+)/\1/p')
	entry=/var/cache/prof/.build-id/${id:0:2}/${id:2}.debug
	[ -f "$entry" ]
	[ "$(stat -c %a /var/cache/prof)" = 700 ]
	# A debug file: symbol tables and notes, no code.
	readelf -S "$entry" | grep -qE '\.text +NOBITS'
	readelf -S "$entry" | grep -qE '\.symtab +SYMTAB'
	[ "$(stat -c %s "$entry")" -lt "$(stat -c %s "$TMP/bin/gone")" ]
	rm -rf "$TMP/bin"
	prof-symbolize "$TMP/cap.prof" | prof-fold > "$TMP/folded"
	grep -qE '^gone;.*;main;work [0-9]+$' "$TMP/folded"
	# Another host: a copy of the cache, named by one option.
	mkdir "$TMP/copy"
	cp -a /var/cache/prof/.build-id "$TMP/copy/"
	rm -f "$entry"
	PROF_BUILD_ID_DIR=$TMP/empty prof-symbolize --debug-dir "$TMP/copy" "$TMP/cap.prof" |
		prof-fold > "$TMP/other"
	grep -qE '^gone;.*;main;work [0-9]+$' "$TMP/other"
}

@test "the build-id cache is bounded: the least recently used go first, the capture's own never, the rest counted" {
	# Ten old entries of 100 KiB, the oldest first, in a cache of this
	# layout (docs/FORMATS.md, section 5).
	mkdir -m 0700 "$TMP/cache"
	echo 2 > "$TMP/cache/.layout"
	for i in 0 1 2 3 4 5 6 7 8 9; do
		mkdir -p "$TMP/cache/.build-id/0$i"
		head -c 102400 /dev/zero > "$TMP/cache/.build-id/0$i/aaaaaaaa.debug"
		touch -d "@$((1000000000 + i))" "$TMP/cache/.build-id/0$i/aaaaaaaa.debug"
	done
	mkdir "$TMP/bin"
	unique_program "$TMP/bin" small
	# 300 KiB: most of the old must go for the program and ld.so; libc's
	# image (370 KiB with its debug file's symbols) cannot be stored at
	# all: an entry is at most an eighth of the limit, and no symbol
	# table of libc's fits that.
	run prof-sample -v -F 199 --user-only --build-id-cache-size 300K -o "$TMP/cap.prof" -- "$TMP/bin/small" 1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"build-id cache: 1 file(s) not stored: no symbols within an entry's limit (256 MiB and an eighth of --build-id-cache-size)"* ]]
	libc=$(readelf -n "$(ldd "$TMP/bin/small" | sed -nE 's/.*=> (.*libc\.so[^ ]*) .*/\1/p')" |
		sed -nE 's/.*Build ID: ([0-9a-f]+)/\1/p')
	[ ! -e "$TMP/cache/.build-id/${libc:0:2}/${libc:2}.debug" ]
	id=$(readelf -n "$TMP/bin/small" | sed -nE 's/.*Build ID: ([0-9a-f]+)/\1/p')
	[ -f "$TMP/cache/.build-id/${id:0:2}/${id:2}.debug" ]
	total=$(find "$TMP/cache/.build-id" -type f -name '*.debug' -printf '%s\n' | awk '{ s += $1 } END { print s }')
	echo "cache: $total bytes"
	[ "$total" -le $((300 * 1024)) ]
	# What went is the oldest: the survivors are the youngest.
	survivors=$(find "$TMP/cache/.build-id" -name aaaaaaaa.debug | wc -l)
	[ "$survivors" -lt 10 ]
	for i in 0 1 2 3 4 5 6 7 8 9; do
		if [ -e "$TMP/cache/.build-id/0$i/aaaaaaaa.debug" ]; then
			[ "$i" -ge $((10 - survivors)) ]
		fi
	done
}

@test "the build-id cache directory must be the user's alone; -N goes without" {
	# Writable by others, or only readable (systemd's CacheDirectory=
	# default, 0755): a user read the symbols of root's private programs.
	for mode in 0777 0755 0750; do
		mkdir -m "$mode" "$TMP/open"
		run prof-sample -d 0.5 --build-id-dir "$TMP/open" -o "$TMP/cap.prof"
		echo "$output"
		# Whole-host captures under ASan beside other suites may lose
		# samples, said: not what this is about.
		lossy_ok "$status" <(printf '%s\n' "$output")
		[[ "$output" == *"build-id cache $TMP/open: must belong to the user running prof-sample and be private to them (chmod 700)"* ]]
		[ -z "$(ls -A "$TMP/open")" ]
		rmdir "$TMP/open"
	done
	# What it holds is as private as it is.  (A program of its own to
	# sample: a quiet host may run nothing in half a second.)
	prof-sample --build-id-dir "$TMP/private" -o "$TMP/cap.prof" -- "$PROF_WORKLOADS/nofp" 1
	[ "$(stat -c %a "$TMP/private")" = 700 ]
	[ -n "$(find "$TMP/private" -name '*.debug')" ]
	[ -z "$(find "$TMP/private" -mindepth 1 -perm /077)" ]
	run prof-sample -N -d 0.5 -o "$TMP/cap.prof"
	echo "$output"
	lossy_ok "$status" <(printf '%s\n' "$output")
	[ ! -e "$TMP/cache" ]
}

@test "privilege separation: the opener is nobody with three capabilities, the keeper chrooted without any, the reader nobody without any" {
	# A program that exits at once: its files are opened by path, by the
	# file reader.
	( while sleep 0.2; do /bin/true; done ) &
	looper=$!
	prof-sample -d 3 -o "$TMP/cap.prof" 2> "$TMP/err" &
	sampler=$!
	sleep 1.5
	helpers=$(pgrep -P "$sampler")
	main=$(cat "/proc/$sampler/status")
	for h in $helpers; do
		cat "/proc/$h/status" > "$TMP/status.$h"
		readlink "/proc/$h/root" > "$TMP/root.$h"
	done
	st=0
	wait "$sampler" || st=$?
	kill "$looper"
	# Under ASan beside other suites the ring may fill: not what this is about.
	lossy_ok "$st" "$TMP/err"
	echo "helpers: $helpers"; for h in $helpers; do grep -E "^(Name|Uid|CapEff)" "$TMP/status.$h"; done
	[ "$(wc -w <<<"$helpers")" -eq 3 ]
	grep -qE '^Uid:	65534	65534	65534	65534$' <<<"$main"
	opener=0 keeper=0 reader=0
	for h in $helpers; do
		grep -qE '^NoNewPrivs:	1$' "$TMP/status.$h"
		if grep -qE '^CapEff:	0000010000080004$' "$TMP/status.$h"; then
			# CAP_DAC_READ_SEARCH (2), CAP_SYS_PTRACE (19),
			# CAP_CHECKPOINT_RESTORE (40): nothing else, ever.
			grep -qE '^Uid:	65534	65534	65534	65534$' "$TMP/status.$h"
			grep -qE '^CapBnd:	0000010000080004$' "$TMP/status.$h"
			[ "$(cat "$TMP/root.$h")" = / ]
			opener=1
		elif grep -qE '^Uid:	65534	65534	65534	65534$' "$TMP/status.$h"; then
			# What the main process is, forked from it.
			grep -qE '^CapEff:	0000000000000000$' "$TMP/status.$h"
			grep -qE '^CapBnd:	0000000000000000$' "$TMP/status.$h"
			reader=1
		else
			grep -qE '^Uid:	0	0	0	0$' "$TMP/status.$h"
			grep -qE '^CapEff:	0000000000000000$' "$TMP/status.$h"
			grep -qE '^CapBnd:	0000000000000000$' "$TMP/status.$h"
			[ "$(cat "$TMP/root.$h")" = "$TMP/cache" ]
			keeper=1
		fi
	done
	[ "$opener" -eq 1 ]
	[ "$keeper" -eq 1 ]
	[ "$reader" -eq 1 ]
}

# Waits, up to 10 s, for prof-sample ($SAMPLER) to sample: it becomes
# nobody once its events are attached and the processes already running
# are known (under ASan on a busy machine that took over a second).
sampling() {
	for _ in $(seq 100); do
		kill -0 "$SAMPLER"
		grep -qE '^Uid:	65534	' "/proc/$SAMPLER/status" && return 0
		sleep 0.1
	done
	return 1
}

# Waits, up to 40 s, for prof-sample ($SAMPLER) to let go of the file
# system at NS_MNT, the way a container runtime unmounts a container's
# root once its processes have gone; fails if prof-sample ended first.
# Files go after 30 complete drains, 3 s here; a drain that leaves samples
# for the next one (a loaded host) does not count.  On failure, who holds
# the mount, and what prof-sample says of its files.
unmounts_while_sampling() {
	for _ in $(seq 160); do
		kill -0 "$SAMPLER"
		umount "$NS_MNT" 2>/dev/null && return 0
		sleep 0.25
	done
	for p in /proc/[0-9]*; do
		{ grep -F "$NS_MNT" "$p/maps"; ls -l "$p/fd" | grep -F "$NS_MNT"; } 2>/dev/null |
			sed "s|^|$(cat "$p/comm" 2>/dev/null) ${p#/proc/}: |"
	done
	kill -INT "$SAMPLER"
	wait "$SAMPLER" || true
	SAMPLER=
	cat "$TMP"/*.err
	return 1
}

@test "prof-sample leaves none of its helpers behind when it exits" {
	# Processes gone before their files are opened: the file reader, a
	# helper, opens those by path.  Before, the idle reader was killed and
	# not waited for, and outlived prof-sample for a moment.
	sh -c 'while :; do /bin/true; done' &
	WORKLOAD_PID=$!
	# A subreaper stands in for a service manager: whatever prof-sample
	# leaves behind becomes its child, running or not yet reaped.
	run python3 - "$(command -v prof-sample)" "$TMP/cap.prof" <<-'PY'
	import ctypes, os, subprocess, sys
	PR_SET_CHILD_SUBREAPER = 36
	ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	p = subprocess.run([sys.argv[1], "-v", "-a", "-d", "1", "-o", sys.argv[2]],
	                   stderr=subprocess.PIPE, text=True)
	print(p.stderr, end="")
	left = []
	try:
	    while True:
	        pid, _ = os.waitpid(-1, os.WNOHANG)
	        if pid == 0:
	            left.append("one still running")
	            break
	        left.append(pid)
	except ChildProcessError:
	    pass
	print("left behind:", left)
	sys.exit(3 if left else p.returncode)
	PY
	echo "$output"
	# Status 1 with the losses said: a whole-host capture under ASan
	# beside other suites whose ring filled, not what this is about.
	lossy_ok "$status" <(printf '%s\n' "$output")
	# The reader was there to be left: files were opened by path.
	grep -qE 'mapped files: .*, [1-9][0-9]* by path' <<<"$output"
	grep -qx 'left behind: \[\]' <<<"$output"
}

@test "the files of processes that have gone are let go of: their file system unmounts while prof-sample runs" {
	NS_MNT=$TMP/mnt
	mkdir "$NS_MNT"
	mount -t tmpfs none "$NS_MNT"
	unique_program "$NS_MNT" svc
	# The service in a cgroup of its own, sampled alone, as a container's
	# profiler would: files are let go of after 30 complete drains (3 s
	# at this interval), and the whole host's samples (make check's
	# fuzzers, under an ASan prof-sample) kept drains from completing for
	# longer than the test waits.
	make_cgroup
	for mode in dwarf fp; do
		prof-sample -F 99 -v --unwind=$mode --cgroup "$CG" --interval 0.1 -d 60 \
			-o "$TMP/$mode.prof" 2> "$TMP/$mode.err" &
		SAMPLER=$!
		sampling
		sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" 2' sh "$CG" "$NS_MNT/svc"
		# Mounted again for the next mode, with the same program.
		cp "$NS_MNT/svc" "$TMP/svc.bin"
		unmounts_while_sampling
		kill -INT "$SAMPLER"
		st=0
		wait "$SAMPLER" || st=$?
		SAMPLER=
		cat "$TMP/$mode.err"
		lossy_ok "$st" "$TMP/$mode.err"
		grep -qE 'mapped files: .* [1-9][0-9]* let go of' "$TMP/$mode.err"
		# What was let go of had been stored: the capture resolves.
		prof-symbolize "$TMP/$mode.prof" | prof-fold > "$TMP/$mode.folded"
		grep -qE '^svc;(.*;)?work [0-9]+$' "$TMP/$mode.folded"
		mount -t tmpfs none "$NS_MNT"
		cp "$TMP/svc.bin" "$NS_MNT/svc"
	done
}

@test "a 3 ms program in a 0700 directory, run 20 times: once one run's file is had, every later run reaches main, and the cache has it" {
	dir=$(mktemp -d)
	cat > "$TMP/brief.c" <<-'EOF2'
		#include <time.h>
		__attribute__((noinline)) double work(double x) { for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9; return x; }
		int main(void) {
			struct timespec a, b; double x = 1;
			clock_gettime(CLOCK_MONOTONIC, &a);
			do { x = work(x); clock_gettime(CLOCK_MONOTONIC, &b); }
			while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 3000000);
			return x < 0;
		}
	EOF2
	gcc -O2 -fomit-frame-pointer -o "$dir/brief" "$TMP/brief.c"
	# The runs in a cgroup of their own, sampled alone: the whole host's
	# samples at 999 Hz (make check's other suites) overflowed an ASan
	# prof-sample's ring, and the runs' samples with them.
	make_cgroup
	prof-sample -F 999 --cgroup "$CG" -d 30 -o "$TMP/cap.prof" &
	SAMPLER=$!
	sampling
	# Each run's pid noted as it starts: pids wrap at pid_max, so their
	# order is not the runs' (a CI run's last run had pid 314).  A run's
	# file is had only if a read of the sample ring (every 10 ms) finds it
	# still running: with 10 runs, 2 of the last 6 suites here had none.
	for _ in $(seq 20); do
		sh -c 'echo $$ >> "$3" && echo $$ > "$1/cgroup.procs" && exec "$2"' \
			sh "$CG" "$dir/brief" "$TMP/order"
		sleep 0.3
	done
	kill -INT "$SAMPLER"
	wait "$SAMPLER"
	SAMPLER=
	# Symbolized while the file is there: the callers first.
	prof-symbolize "$TMP/cap.prof" | prof-fold --pid > "$TMP/folded"
	rm -rf "$dir"
	# And from the build-id cache once it is gone: the file was copied
	# from the run that had it, if not from the first.
	prof-symbolize "$TMP/cap.prof" | prof-fold > "$TMP/cached"
	grep -qE '^brief;.*;main;work [0-9]+$' "$TMP/cached"
	# Each run, in the order the runs were: how many of its samples in
	# work() came with their callers.
	awk -F';' 'FNR == NR { order[++runs] = $1; next }
	$1 ~ /^brief-/ && / [0-9]+$/ && $NF ~ /^work / {
		pid = substr($1, 7); n = $NF; sub(/.* /, "", n)
		all[pid] += n; if ($0 ~ /;main;work [0-9]+$/) whole[pid] += n
	} END { for (i = 1; i <= runs; i++) if (order[i] in all)
		print order[i], whole[order[i]] + 0, all[order[i]] }' "$TMP/order" "$TMP/folded" > "$TMP/runs"
	cat "$TMP/runs"
	# A run may be gone before prof-sample could open its file (only the
	# process could reach it): the first runs may go without callers.
	# But once one run's file was had, it serves every later run.
	awk 'BEGIN { s = 0 } $2 == $3 && $3 > 0 { s = 1 } s && $2 != $3 { bad++ }
	     END { exit !(s && !bad) }' "$TMP/runs"
}

