#!/usr/bin/env bats
# A local user against root's profiler (issue 13): each finding of the
# red-team review played again by an unprivileged user (uid 4242), and what
# must hold: the profiler opens only what it verified, bounds every size
# the user drives, and prints nothing that steers a terminal or a reader.

load helpers
bats_require_minimum_version 1.5.0

USER_ID=4242

setup() {
	require_root
	TMP=$(mktemp -d)
	chmod 0755 "$TMP"
	# A place the user can write to, as /tmp is.
	PUB=$TMP/pub
	mkdir -m 1777 "$PUB"
	export PROF_BUILD_ID_DIR=$TMP/cache
}

teardown() {
	local s m
	for s in ${SERVERS:-}; do
		kill -CONT "$s" 2>/dev/null
	done
	[ -n "${APID:-}" ] && kill "$APID" 2>/dev/null
	[ -n "${RPID:-}" ] && kill "$RPID" 2>/dev/null
	[ -n "${SAMPLER:-}" ] && kill -9 "$SAMPLER" 2>/dev/null
	for m in ${MOUNTS:-}; do
		fusermount -u "$m" 2>/dev/null || umount -l "$m"
	done
	stop_jobs
	wait 2>/dev/null || true
	[ -n "${FUSE_CONF:-}" ] && cp "$FUSE_CONF" /etc/fuse.conf
	[ -n "${MADE_USER:-}" ] && userdel "$MADE_USER"
	[ -n "${FUSE_MODE:-}" ] && chmod "$FUSE_MODE" /dev/fuse
	rm -f /tmp/perf-"${APID:-x}".map
	rm -rf "$TMP"
}

as_user() {
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$@"
}

# fuse_for_user: lets the user mount FUSE file systems that root's
# processes may use (user_allow_other, as many hosts have it), under a name
# (fusermount wants one).  teardown undoes it all.
fuse_for_user() {
	command -v bindfs >/dev/null || skip "bindfs is not installed (.ci/setup installs it)"
	[ -c /dev/fuse ] || skip "no /dev/fuse on this host"
	FUSE_MODE=$(stat -c %a /dev/fuse)
	chmod 0666 /dev/fuse
	cp /etc/fuse.conf "$TMP/fuse.conf"
	FUSE_CONF=$TMP/fuse.conf
	echo user_allow_other >> /etc/fuse.conf
	if ! getent passwd $USER_ID >/dev/null; then
		useradd -M -N -u $USER_ID -s /bin/false prof-fuse-test
		MADE_USER=prof-fuse-test
	fi
}

# user_mount SRC MNT: the user's bindfs of their SRC on MNT, for everyone
# (allow_other); its server's pid in $SERVER, and in $SERVERS, $MOUNTS.
user_mount() {
	mkdir -p "$2"
	chown $USER_ID:$USER_ID "$2"
	# In the foreground, so that $! is the server: setpriv execs it (as_user,
	# a function, would put a subshell between).
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups \
		bindfs -f -o allow_other "$1" "$2" &
	SERVER=$!
	SERVERS="${SERVERS:-} $SERVER"
	MOUNTS="${MOUNTS:-} $2"
	# findmnt reads the mount table, not the mount: it cannot wait on it.
	for _ in $(seq 50); do
		findmnt -n "$2" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# app_on_user_mount: the user's program (nofp, 60 s) run from their bindfs
# mount $PUB/mnt, as $APID, once it is mapped; the server is $SERVER.
app_on_user_mount() {
	mkdir "$PUB/src"
	cp "$PROF_WORKLOADS/nofp" "$PUB/src/app"
	chown -R $USER_ID:$USER_ID "$PUB/src"
	user_mount "$PUB/src" "$PUB/mnt"
	# setpriv, not as_user: $! must be the program itself (teardown kills it).
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$PUB/mnt/app" 60 &
	APID=$!
	for _ in $(seq 50); do
		grep -q "$PUB/mnt/app" "/proc/$APID/maps" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# user_program FILE ARGS...: the user's program FILE (theirs, in $PUB)
# run by them with ARGS, as $APID, given 0.2 s to start.
user_program() {
	local file=$1
	shift
	chown $USER_ID:$USER_ID "$file"
	# setpriv, not as_user: $! must be the program itself.
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$file" "$@" &
	APID=$!
	sleep 0.2
}

# peak_rss_kb CMD...: runs CMD; its peak RSS in KiB in $RSS, status in $status.
peak_rss() {
	run /usr/bin/time -f 'rss %M' "$@"
	RSS=$(sed -n 's/^rss //p' <<<"$output" | tail -1)
}

@test "a capture is 0600, never written through a link nor into another user's file" {
	# The user lays traps where root will write.
	as_user touch "$PUB/theirs.prof"
	as_user ln -s /etc/hostname "$PUB/link.prof"
	run prof-sample -d 0.5 --unwind=fp -o "$PUB/theirs.prof"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$PUB/theirs.prof: belongs to another user; refusing to write into it"* ]]
	[ ! -s "$PUB/theirs.prof" ]
	run prof-sample -d 0.5 --unwind=fp -o "$PUB/link.prof"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$PUB/link.prof: is a symbolic link; refusing to write through it"* ]]
	[ "$(cat /etc/hostname)" = "$(hostname)" ] || [ -s /etc/hostname ]
	# Root's own capture, with stack bytes, is root's alone.
	prof-sample -d 0.5 --keep-stack-bytes -o "$PUB/mine.prof"
	[ "$(stat -c '%a %U' "$PUB/mine.prof")" = "600 root" ]
	run as_user cat "$PUB/mine.prof"
	[ "$status" -ne 0 ]
}

@test "a perf map without end costs bounded memory, and what was skipped is said" {
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$PROF_WORKLOADS/named" jit 5 &
	APID=$!
	sleep 0.3
	# A good line, then 4 GB (sparse) without a newline.
	as_user sh -c "printf '7f0000001000 40 good_jit_function\n' > /tmp/perf-$APID.map &&
		truncate -s 4G /tmp/perf-$APID.map"
	peak_rss prof-sample -F 99 -d 3 -p "$APID" -o "$TMP/cap.prof"
	echo "$output" | grep -v '^rss'
	echo "prof-sample peak RSS: $RSS KiB"
	[ "$status" -eq 0 ]
	[[ "$output" == *"/tmp/perf-$APID.map: lines longer than 4096 bytes or not START SIZE NAME skipped"* ]]
	[ "$RSS" -lt 204800 ]
	# The good line made it into the capture.
	grep -qa good_jit_function "$TMP/cap.prof"
}

@test "a MiniDebugInfo xz bomb costs bounded memory" {
	mkdir "$TMP/bin"
	printf 'int main(void) { volatile unsigned long x = 0; for (;;) if (++x == 0) break; return 0; }\n' > "$TMP/p.c"
	gcc -O1 -o "$TMP/bin/bomb" "$TMP/p.c"
	strip --strip-all "$TMP/bin/bomb"
	# 1 GiB of zeros is 150 KiB of xz.
	head -c 1G /dev/zero | xz -0 -T1 > "$TMP/bomb.xz"
	objcopy --add-section .gnu_debugdata="$TMP/bomb.xz" "$TMP/bin/bomb"
	"$TMP/bin/bomb" &
	APID=$!
	prof-sample -F 99 -d 1 -p "$APID" -o "$TMP/cap.prof"
	kill "$APID"
	peak_rss prof-symbolize "$TMP/cap.prof"
	echo "prof-symbolize peak RSS: $RSS KiB"
	[ "$status" -eq 0 ]
	[ "$RSS" -lt 204800 ]
}

@test "a debug link to a sparse file is not read through for its CRC" {
	mkdir "$TMP/bin"
	printf 'int main(void) { volatile unsigned long x = 0; for (;;) if (++x == 0) break; return 0; }\n' > "$TMP/p.c"
	gcc -O1 -Wl,--build-id=none -o "$TMP/bin/nolink" "$TMP/p.c"
	objcopy --only-keep-debug "$TMP/bin/nolink" "$TMP/real.debug"
	strip --strip-all "$TMP/bin/nolink"
	objcopy --add-gnu-debuglink="$TMP/real.debug" "$TMP/bin/nolink"
	# The file the link names, beside the binary: the real debug file
	# (so it reads as ELF), then a terabyte of holes.
	cp "$TMP/real.debug" "$TMP/bin/real.debug"
	truncate -s 1T "$TMP/bin/real.debug"
	"$TMP/bin/nolink" &
	APID=$!
	prof-sample -F 99 -d 1 -p "$APID" -o "$TMP/cap.prof"
	# Reading 1 TB through would take half an hour: a minute is plenty.
	run timeout 60 prof-symbolize "$TMP/cap.prof"
	kill "$APID"
	[ "$status" -eq 0 ]
}

@test "file and thread names reach no terminal as escape sequences" {
	# A directory named with a title change (OSC) and a screen clear (CSI).
	dir=$TMP/$'x\e]0;owned\a\e[2J'
	mkdir "$dir"
	cp "$PROF_WORKLOADS/named" "$dir/app"
	"$dir/app" $'c1\xc2\x9bq' 2 &
	APID=$!
	prof-sample -F 199 -o "$TMP/cap.prof" -p "$APID" -d 1.5
	wait "$APID"
	rm -rf "$dir"
	PROF_BUILD_ID_DIR=$TMP/empty prof-symbolize "$TMP/cap.prof" >"$TMP/out" 2>"$TMP/err"
	cat "$TMP/err"
	grep -q 'its frames stay unresolved' "$TMP/err"
	run ! grep -q $'\e' "$TMP/err"
	run ! grep -q $'\a' "$TMP/err"
	run ! grep -q $'\e' "$TMP/out"
	run ! grep -q $'\xc2\x9b' "$TMP/out"
	grep -q '^c1??q ' "$TMP/out"
}

@test "thread names cannot hide samples, fake a PID or split the root frame" {
	pids=
	for name in '#hidden' 'sshd 1/1 0.0: 9' 'a;b;c'; do
		setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$PROF_WORKLOADS/named" "$name" 3 &
		pids=$pids$!,
	done
	sleep 0.3
	prof-sample -F 199 -d 2 --user-only -p "${pids%,}" -o "$TMP/cap.prof"
	wait
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	written=$(sed -nE 's/^# capture: taken [0-9]+, written ([0-9]+), lost.*/\1/p' "$TMP/frames.txt")
	prof-fold "$TMP/frames.txt" > "$TMP/folded"
	cat "$TMP/folded" | cut -c1-80
	# Every sample folded: none became a comment.
	[ "$(folded_total "$TMP/folded")" -eq "$written" ]
	grep -q '^?hidden;' "$TMP/folded"
	grep -q '^a:b:c;' "$TMP/folded"
	# The PID is the thread's, not the one its name shows.
	prof-fold --pid "$TMP/frames.txt" | grep '^sshd' > "$TMP/pids"
	cat "$TMP/pids" | cut -c1-80
	for pid in ${pids//,/ }; do
		grep -q -- "-$pid;" "$TMP/pids" && found=1
	done
	[ "${found:-0}" -eq 1 ]
	run ! grep -q -- '-1;' "$TMP/pids"
}

@test "a link left where a library was is not followed; a file without a build-id is checked by inode" {
	mkdir "$TMP/bin" "$TMP/secret"
	chmod 0700 "$TMP/secret"
	printf 'int secret_function(int x) { return x * 3; }\nint main(void) { volatile int y = 0; for (;;) y = secret_function(y); }\n' > "$TMP/s.c"
	gcc -O0 -o "$TMP/secret/bin" "$TMP/s.c"
	printf 'int user_function(int x) { return x + 1; }\nint main(void) { volatile int y = 0; for (int i = 0; i < 400000000; i++) y = user_function(y); return 0; }\n' > "$TMP/u.c"
	# Without a build-id: nothing in the capture identifies the file.
	gcc -O0 -Wl,--build-id=none -o "$TMP/bin/lib" "$TMP/u.c"
	chmod 0755 "$TMP/bin/lib"
	prof-sample -F 199 -N --user-only -o "$TMP/cap.prof" -- \
		setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$TMP/bin/lib"
	prof-symbolize "$TMP/cap.prof" | grep -q ' user_function+'
	# After it exited, the user swaps a link to root's binary in.
	rm "$TMP/bin/lib"
	ln -s "$TMP/secret/bin" "$TMP/bin/lib"
	run prof-symbolize "$TMP/cap.prof"
	[[ "$output" == *"$TMP/bin/lib: not a regular file (a symbolic link, a device, a FIFO); its frames stay unresolved"* ]]
	[[ "$output" != *secret_function* ]]
	# Or another file of the same name.
	rm "$TMP/bin/lib"
	cp "$TMP/secret/bin" "$TMP/bin/lib"
	run prof-symbolize "$TMP/cap.prof"
	[[ "$output" == *"$TMP/bin/lib: not the file that was mapped (another inode, or changed since); its frames stay unresolved"* ]]
	[[ "$output" != *secret_function* ]]
}

@test "a fork storm of a process with 20,000 mappings costs bounded memory and capture" {
	# The user's server: 20,000 executable mappings, 50 forks a second,
	# sampled system-wide beside it.
	cp "$PROF_WORKLOADS/forkstorm" "$PUB/storm"
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$PUB/storm" 20000 50 8 &
	APID=$!
	sleep 1.5
	peak_rss prof-sample -F 99 -d 5 -o "$TMP/cap.prof"
	echo "$output" | grep -v '^rss' || true
	echo "prof-sample peak RSS: $RSS KiB, capture $(stat -c %s "$TMP/cap.prof") bytes"
	# Under ASan beside other suites the ring may fill, said: not what
	# this is about.
	lossy_ok "$status" <(printf '%s\n' "$output")
	# Before children shared their parent's mappings (and the unwinder's
	# session for them), and said so with a FORK record: 872 MB, and 113
	# MB of MAP records.
	[ "$RSS" -lt 153600 ]
	[ "$(stat -c %s "$TMP/cap.prof")" -lt $((40 << 20)) ]
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	grep -q '^storm ' "$TMP/frames.txt"
}

@test "a user's FUSE mount that refuses root cannot make root open what lies beneath" {
	command -v bindfs >/dev/null || skip "bindfs is not installed (.ci/setup installs it)"
	[ -c /dev/fuse ] || skip "no /dev/fuse on this host"
	# Root's own program, in a directory only root may enter.
	mkdir -m 0700 "$PUB/secret"
	printf 'int secret_function(int x) { return x * 3; }\nint main(void) { volatile int y = 0; for (;;) y = secret_function(y); }\n' > "$TMP/s.c"
	gcc -O0 -o "$PUB/secret/bin" "$TMP/s.c"
	# The user's, of the same name, in their own directory.
	mkdir "$PUB/mine"
	printf 'int user_function(int x) { return x + 1; }\nint main(void) { volatile int y = 0; for (;;) y = user_function(y); }\n' > "$TMP/u.c"
	gcc -O0 -o "$PUB/mine/bin" "$TMP/u.c"
	chown -R $USER_ID:$USER_ID "$PUB/mine"
	# Users may use FUSE (here only root may: the test opens it up).
	FUSE_MODE=$(stat -c %a /dev/fuse)
	chmod 0666 /dev/fuse
	# In their own user and mount namespaces the user puts their
	# directory over root's with bindfs (FUSE, which refuses root), and
	# runs their program from there, before the capture starts.
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups unshare -Urm sh -c \
		"bindfs -o nonempty --no-allow-other '$PUB/mine' '$PUB/secret' && exec '$PUB/secret/bin'" &
	APID=$!
	for _ in $(seq 50); do
		grep -q "$PUB/secret/bin" "/proc/$APID/maps" 2>/dev/null && break
		sleep 0.1
	done
	grep -q "$PUB/secret/bin" "/proc/$APID/maps"
	# Root cannot read it through the mount either.
	run ! head -c1 "/proc/$APID/root$PUB/secret/bin"
	run prof-sample -F 199 -d 2 -o "$TMP/cap.prof"
	[ "$status" -eq 0 ]
	kill "$APID"
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt" 2> "$TMP/err"
	grep -c "($PUB/secret/bin)" "$TMP/frames.txt"
	# Root's program is not what the user ran: its name never shows.
	run ! grep -q secret_function "$TMP/frames.txt"
	# And its build-id went nowhere.
	id=$(readelf -n "$PUB/secret/bin" | sed -nE 's/.*Build ID: ([0-9a-f]+)/\1/p')
	od -An -tx1 -v "$TMP/cap.prof" | tr -d ' \n' > "$TMP/cap.hex"
	run ! grep -q "$id" "$TMP/cap.hex"
}

@test "a section of gigabytes that is a hole costs root neither memory nor samples" {
	# The user's program with a 3 GiB section that takes 16 KiB of disk:
	# objcopy, then the header patched to claim a hole.
	head -c 16384 /dev/urandom > "$TMP/blob"
	objcopy --add-section .evil="$TMP/blob" "$PROF_WORKLOADS/nofp" "$TMP/evil"
	"$PROF_WORKLOADS/elf_sparse" "$TMP/evil" "$PUB/sparse" .evil $((3 << 30))
	chown $USER_ID:$USER_ID "$PUB/sparse"
	[ "$(stat -c %b "$PUB/sparse")" -lt 4096 ]
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups "$PUB/sparse" 6 &
	APID=$!
	sleep 0.3
	peak_rss prof-sample -a -d 3 -o "$TMP/cap.prof"
	echo "$output" | grep -v '^rss' || true
	echo "prof-sample peak RSS: $RSS KiB"
	[ "$status" -eq 0 ]
	# Before: 3.1 GB, and 2,251 of 2,406 samples lost while the main
	# process copied the hole.
	[ "$RSS" -lt 204800 ]
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	taken=$(sed -nE 's/^# capture: taken ([0-9]+),.*/\1/p' "$TMP/frames.txt")
	lost=$(sed -nE 's/^# capture: .* lost ([0-9]+)$/\1/p' "$TMP/frames.txt")
	echo "taken $taken, lost $lost"
	[ "$lost" -le $((taken / 20)) ]
	# Its image is in the cache, without the section, and small.
	id=$(readelf -n "$PUB/sparse" | sed -nE 's/.*Build ID: ([0-9a-f]+)/\1/p')
	image=$(find "$PROF_BUILD_ID_DIR" -name "${id:2}.debug")
	[ -n "$image" ]
	[ "$(stat -c %s "$image")" -lt $((1 << 20)) ]
	readelf -S -W "$image" | grep -E '\.evil +NOBITS'
	# And its frames are named, from the cache, after it has gone.
	kill "$APID"
	wait "$APID" || true
	rm "$PUB/sparse"
	prof-symbolize "$TMP/cap.prof" | grep -q "	 *[0-9a-f]* spin+0x[0-9a-f]* ($PUB/sparse)"
}

@test "a user's copy of a system library, build-id and all, names and unwinds none of root's frames" {
	lib=$(ldd "$(command -v xz)" | sed -nE 's/.*liblzma[^ ]* => ([^ ]+) .*/\1/p')
	[ -n "$lib" ]
	text=$(readelf -S -W "$lib" | awk '$2 == ".text" { print $4 }')
	code=$(nm -D "$lib" | awk '$3 ~ /^lzma_code@/ { print $1 }')
	# The user's copy: the same bytes and build-id, and a symbol of
	# theirs where lzma_code is.
	mkdir -m 0755 "$PUB/u"
	cp "$lib" "$PUB/u/liblzma.so.5"
	objcopy --add-symbol ROOT_PROFILE_POISONED_BY_RTUSER=.text:0x$(printf %x $((0x$code - 0x$text))),global,function \
		"$PUB/u/liblzma.so.5"
	cp "$(command -v xz)" "$PUB/u/userxz"
	chown -R $USER_ID:$USER_ID "$PUB/u"
	[ "$(readelf -n "$PUB/u/liblzma.so.5" | grep 'Build ID')" = "$(readelf -n "$lib" | grep 'Build ID')" ]
	head -c 4M /dev/urandom > "$TMP/data"
	chmod 0644 "$TMP/data"
	cp "$(command -v xz)" "$TMP/rootxz"
	setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups \
		env LD_LIBRARY_PATH="$PUB/u" sh -c "while :; do '$PUB/u/userxz' -9 -T1 -c '$TMP/data' > /dev/null; done" &
	APID=$!
	# Root samples the host once while the user's xz runs: their
	# library's image goes to the cache, in their part of it.
	sleep 0.5
	sample_lossy -a -d 2 -o "$TMP/user.prof"
	id=$(readelf -n "$lib" | sed -nE 's/.*Build ID: ([0-9a-f]+)/\1/p')
	theirs=$PROF_BUILD_ID_DIR/users/$USER_ID/.build-id/${id:0:2}/${id:2}.debug
	[ -f "$theirs" ]
	readelf -n "$theirs" | grep -A1 '^  prof ' | tee "$TMP/note"
	nm "$theirs" | grep -q ROOT_PROFILE_POISONED_BY_RTUSER
	# Root's own xz, later: its library is root's, and so are its names.
	prof-sample -F 499 --user-only -o "$TMP/root.prof" -- sh -c "'$TMP/rootxz' -9 -T1 -c '$TMP/data' > /dev/null"
	prof-symbolize "$TMP/root.prof" | prof-fold > "$TMP/root.folded"
	grep -q '^rootxz;.*;lzma_code;' "$TMP/root.folded"
	run ! grep -q POISONED "$TMP/root.folded"
	mine=$PROF_BUILD_ID_DIR/.build-id/${id:0:2}/${id:2}.debug
	[ -f "$mine" ]
	run nm "$mine"
	[[ "$output" != *POISONED* ]]
	# Both at once, the user's first: root's frames are still root's.
	sh -c "while :; do '$TMP/rootxz' -9 -T1 -c '$TMP/data' > /dev/null; done" &
	RPID=$!
	sample_lossy -a -d 2 -o "$TMP/both.prof"
	prof-symbolize "$TMP/both.prof" | prof-fold > "$TMP/both.folded"
	grep '^rootxz;' "$TMP/both.folded" > "$TMP/rootxz.folded"
	grep -q ';lzma_code;' "$TMP/rootxz.folded"
	run ! grep -q POISONED "$TMP/rootxz.folded"
	# The user's frames are their own library's, named by what it says
	# (its one symbol has no size: nothing, past its first byte).
	prof-symbolize "$TMP/both.prof" | grep -A3 '^userxz ' | grep -q "($PUB/u/liblzma.so.5)"
}

@test "a user's FUSE server that stops answering holds up neither root's capture nor its Ctrl-C" {
	# FUSE for users, and allow_other: root's processes may then map the
	# user's files.
	fuse_for_user
	app_on_user_mount
	# The user stops their server: an open or a read of the file waits.
	kill -STOP "$SERVER"
	prof-sample -a -o "$TMP/cap.prof" 2> "$TMP/err" &
	SAMPLER=$!
	sleep 4
	kill -INT "$SAMPLER"
	# Before, the main process sat in state D on the path until the user
	# let it go: no signal ended it.
	for _ in $(seq 300); do
		kill -0 "$SAMPLER" 2>/dev/null || break
		sleep 0.1
	done
	run kill -0 "$SAMPLER"
	[ "$status" -ne 0 ]
	wait "$SAMPLER"
	SAMPLER=
	cat "$TMP/err"
	grep -q "1 file(s) given up after 2 s on a file system that did not answer" "$TMP/err"
	kill -CONT "$SERVER"
	prof-symbolize "$TMP/cap.prof" > "$TMP/frames.txt"
	taken=$(sed -nE 's/^# capture: taken ([0-9]+),.*/\1/p' "$TMP/frames.txt")
	lost=$(sed -nE 's/^# capture: .* lost ([0-9]+)$/\1/p' "$TMP/frames.txt")
	echo "taken $taken, lost $lost"
	[ "$taken" -gt 0 ]
	[ "$lost" -le $((taken / 20)) ]
	# The user's program was sampled: its frames, named or not, are there.
	grep -q "($PUB/mnt/app)" "$TMP/frames.txt"
}

@test "a user's FUSE server that stops answering holds up neither root's prof-symbolize nor its pprof" {
	fuse_for_user
	app_on_user_mount
	# Root's capture, while the server answers.
	run prof-sample -F 199 -d 2 -o "$TMP/cap.prof"
	[ "$status" -eq 0 ]
	# Then the user stops their server: an open or a read of the file,
	# even a look at its directory, waits.  Before, prof-symbolize waited
	# with it, in the kernel, for good (a pipeline to prof-ship with it).
	kill -STOP "$SERVER"
	# The file is given up, and said so once.  (timeout: a hang fails the
	# test rather than the whole run.)
	run timeout 120 prof-symbolize -o "$TMP/frames.txt" "$TMP/cap.prof"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -cxF "prof-symbolize: $PUB/mnt/app: its file system did not answer in 2 s; its frames stay unresolved" <<<"$output")" -eq 1 ]
	grep -qF "1 file(s) stay unresolved on file systems that did not answer (a FUSE server stopped?); waited 2 s for them 1 time(s)" <<<"$output"
	# The user's frames are there, unresolved; the rest are named.
	grep -qE " \[app\]\+0x[0-9a-f]+ \($PUB/mnt/app\)$" "$TMP/frames.txt"
	run ! grep -qE ' (recurse|spin)\+0x' "$TMP/frames.txt"
	grep -qE ' __libc_start_call_main\+0x[0-9a-f]+ \(' "$TMP/frames.txt"
	# The same for a pprof profile.
	run timeout 120 prof-symbolize --format=pprof -o "$TMP/p.pb.gz" "$TMP/cap.prof"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -cxF "prof-symbolize: $PUB/mnt/app: its file system did not answer in 2 s; its frames stay unresolved" <<<"$output")" -eq 1 ]
	gzip -t "$TMP/p.pb.gz"
	[ "$(zcat "$TMP/p.pb.gz" | wc -c)" -gt 0 ]
	# Given up for the run, not for good: answering again, the server
	# has the user's frames named.
	kill -CONT "$SERVER"
	run timeout 120 prof-symbolize -o "$TMP/again.txt" "$TMP/cap.prof"
	echo "$output"
	[ "$status" -eq 0 ]
	run ! grep -q 'did not answer' <<<"$output"
	grep -qE " recurse\+0x[0-9a-f]+ \($PUB/mnt/app\)$" "$TMP/again.txt"
}

@test "a capture naming files under stopped FUSE mounts makes root's prof-symbolize wait three times at most" {
	fuse_for_user
	local i f pid=1 main
	main=$(nm "$PROF_WORKLOADS/nofp" | awk '$3 == "main" { print $1 }')
	# Five mounts of the user's, two files on each, all stopped.
	for i in 1 2 3 4 5; do
		mkdir "$PUB/src$i"
		cp "$PROF_WORKLOADS/nofp" "$PUB/src$i/a"
		cp "$PROF_WORKLOADS/nofp" "$PUB/src$i/b"
		chown -R $USER_ID:$USER_ID "$PUB/src$i"
		user_mount "$PUB/src$i" "$PUB/mnt$i"
	done
	as_user ln -s "$PUB/mnt1" "$PUB/link"
	kill -STOP $SERVERS
	# A capture that names them all, the first through the user's link
	# too, and a local file last: a process each, sampled once.
	{
		for i in 1 2 3 4 5; do
			for f in a b; do
				pid=$((pid + 1))
				echo "map $pid $PUB/mnt$i/$f"
				echo "on $pid/$pid 1 - $(printf '%x' $((0x$main + 16)))"
			done
		done
		echo "map 20 $PUB/link/a"
		echo "on 20/20 1 - $(printf '%x' $((0x$main + 16)))"
		echo "map 21 $PROF_WORKLOADS/nofp"
		echo "on 21/21 1 - $(printf '%x' $((0x$main + 16)))"
	} | MKCAPTURE_EVENT=cpu-clock "$PROF_WORKLOADS/mkcapture" "$PROF_WORKLOADS/nofp" \
		"$PROF_WORKLOADS/nofp" > "$TMP/cap.prof"
	run timeout 120 prof-symbolize -o "$TMP/frames.txt" "$TMP/cap.prof"
	echo "$output"
	[ "$status" -eq 0 ]
	# A wait for each of the first three mounts, which are then given up
	# (their other files, and the link, not waited for); then only local
	# file systems are read.
	grep -qF "7 file(s) stay unresolved on file systems that did not answer (a FUSE server stopped?); waited 2 s for them 3 time(s)" <<<"$output"
	# (Their names, not globs: the shell would wait on the servers too.)
	for f in mnt1/a mnt1/b mnt2/a mnt2/b mnt3/a mnt3/b link/a; do
		grep -qxF "prof-symbolize: $PUB/$f: its file system did not answer in 2 s; its frames stay unresolved" <<<"$output"
	done
	for f in mnt4/a mnt4/b mnt5/a mnt5/b; do
		grep -qxF "prof-symbolize: $PUB/$f: not on a local file system, and none is read after 3 that did not answer; its frames stay unresolved" <<<"$output"
	done
	[ "$(grep -c '; its frames stay unresolved$' <<<"$output")" -eq 11 ]
	# The local file is read.
	grep -qE " main\+0x10 \($PROF_WORKLOADS/nofp\)$" "$TMP/frames.txt"
}

@test "a user's program whose CFI takes hours to read gets no unwind table; its blocks are counted, stacks whole, all the same" {
	# slow_cfi's one function has 200,000 rows of CFI, each of which
	# libdw computes from the function's start: quadratic.
	cp "$PROF_WORKLOADS/slow_cfi" "$PUB/slow"
	user_program "$PUB/slow" 300
	sample_lossy --off-cpu -v -p "$APID" -d 3 -o "$TMP/slow.prof" 2> "$TMP/err"
	cat "$TMP/err"
	grep -q 'walked by frame pointer: 1 file(s) without CFI that can be used (1 too slow to read)' "$TMP/err"
	# The blocks are counted all the same, with stacks to the start:
	# copied while the file was being read, then by the tables of the
	# rest and the program's frame pointers.
	prof-symbolize "$TMP/slow.prof" | prof-fold > "$TMP/slow.folded"
	blocked=$(awk '/^slow;/ { s += $NF } END { printf "%.0f\n", s }' "$TMP/slow.folded")
	whole=$(awk '/^slow;_start;__libc_start_main;__libc_start_call_main;main;wait_a_little;/ { s += $NF } END { printf "%.0f\n", s }' "$TMP/slow.folded")
	echo "blocked $blocked ns, $whole ns of it with the whole stack"
	[ "$blocked" -gt 2000000000 ]
	[ "$((whole * 100 / blocked))" -ge 95 ]
}

@test "a user's program whose CFI names register 130,000,000 costs root no gigabytes; its frames end walks, said" {
	# libdw would zero 1 GiB for that register at each row it computes
	# in the function: for libdwfl's walks of copied stacks (CPU samples)
	# and for the kernel's unwind tables (blocks) alike.
	cp "$PROF_WORKLOADS/huge_cfi" "$PUB/huge"
	user_program "$PUB/huge" 400
	for mode in cpu off-cpu; do
		opts=-v
		[ $mode = off-cpu ] && opts="-v --off-cpu"
		peak_rss prof-sample $opts -p "$APID" -d 2 -o "$TMP/$mode.prof"
		echo "$output"
		echo "$mode: prof-sample peak RSS: $RSS KiB"
		lossy_ok "$status" <(printf '%s\n' "$output")
		# Before cfi_check.c: 1.0 GB and 1.1 GB.
		[ "$RSS" -lt 524288 ]
		grep -qF "1 file(s) not unwound through: libdw could not be trusted to read them in bounded memory (the last: a call-frame register number beyond x86-64's)" <<<"$output"
		prof-symbolize "$TMP/$mode.prof" 2>/dev/null | prof-fold > "$TMP/$mode.folded"
	done
	# The CPU samples stop at the program's frames, counted; its blocks
	# are walked all the same, by its frame pointers.
	prof-symbolize "$TMP/cpu.prof" 2>&1 >/dev/null |
		grep -qE "user stacks cut short: [1-9][0-9]* at code without CFI"
	grep -q '^huge;now' "$TMP/cpu.folded"
	! grep -q '^huge;.*main;in_huge_frame' "$TMP/cpu.folded"
	grep -q '^huge;.*main;in_huge_frame;work;usleep;.*\[off-cpu\] [0-9]*$' "$TMP/off-cpu.folded"
}

@test "a user's program whose compressed debug section claims 600 MiB costs root no gigabytes; its frames end walks, said" {
	# (prof-symbolize: its frames are named, without lines, said.)
	# A .debug_info of 600 MiB of zeros, 600 KB on disk (compressed,
	# SHF_COMPRESSED): libdw inflates every compressed debug section of a
	# file whose DWARF it opens, as libdwfl does for the .debug_frame of
	# code without .eh_frame (nocfi's), and prof-symbolize for lines.
	python3 -c 'import sys, zlib
n = 600 << 20
z = zlib.compressobj(9)
# Elf64_Chdr: ELFCOMPRESS_ZLIB, the size, the alignment.
out = [(1).to_bytes(4, "little"), bytes(4), n.to_bytes(8, "little"), (1).to_bytes(8, "little")]
block = bytes(1 << 20)
for _ in range(n >> 20):
    out.append(z.compress(block))
out.append(z.flush())
sys.stdout.buffer.write(b"".join(out))' > "$TMP/zdebug"
	objcopy --add-section .debug_info="$TMP/zdebug" "$PROF_WORKLOADS/nocfi" "$PUB/bomb"
	# objcopy cannot mark it compressed: its header's flags, by hand.
	python3 -c 'import struct, sys
f = open(sys.argv[1], "r+b"); d = f.read()
shoff, = struct.unpack_from("<Q", d, 0x28); ent, num, stridx = struct.unpack_from("<HHH", d, 0x3a)
strtab, = struct.unpack_from("<Q", d, shoff + stridx * ent + 24)
for i in range(num):
    h = shoff + i * ent
    name, = struct.unpack_from("<I", d, h)
    if d[strtab + name:].startswith(b".debug_info\0"):
        flags, = struct.unpack_from("<Q", d, h + 8)
        f.seek(h + 8); f.write(struct.pack("<Q", flags | 0x800))' "$PUB/bomb"
	readelf -S -W "$PUB/bomb" | grep -E "\.debug_info .* C "
	echo "the file: $(stat -c %s "$PUB/bomb") bytes"
	user_program "$PUB/bomb" 30
	peak_rss prof-sample -v -p "$APID" -d 2 -o "$TMP/bomb.prof"
	echo "$output"
	echo "prof-sample peak RSS: $RSS KiB"
	lossy_ok "$status" <(printf '%s\n' "$output")
	# Before: 1.0 GB for a 1 GB claim, and most samples lost meanwhile.
	[ "$RSS" -lt 262144 ]
	grep -qF "1 file(s) not unwound through: libdw could not be trusted to read them in bounded memory (the last: compressed debug sections beyond what is left of 512 MiB for all files)" <<<"$output"
	grep -qE "user stacks cut short: [1-9][0-9]* at code without CFI" <<<"$output"
	# Root's prof-symbolize, asked for lines, would open its DWARF.
	peak_rss prof-symbolize --inline --lines -o "$TMP/frames.txt" "$TMP/bomb.prof"
	echo "$output"
	echo "prof-symbolize peak RSS: $RSS KiB"
	[ "$status" -eq 0 ]
	# Before: 980 MB for the 1 GB claim.
	[ "$RSS" -lt 262144 ]
	grep -qE "^prof-symbolize: $PUB/bomb: compressed debug sections claim 629145600 bytes, over 64 times the file's [0-9]+: its DWARF is not read \(no inlined frames or lines for it\)$" <<<"$output"
	grep -q " spin+0x[0-9a-f]* ($PUB/bomb)$" "$TMP/frames.txt"
}

@test "a file run as code but typed a relocatable object, relocations for its CFI and all, is not unwound through; root's prof-sample lives" {
	# libdwfl applies a relocatable object's relocations in place: into
	# .eh_frame here.  Of a file root owns, which is not copied before
	# libdw reads it (cfi_freeze()), that lies in libelf's read-only
	# mapping: before load() refused such files, root's prof-sample died
	# of it (SIGSEGV, exit 139) at the first sample in the code.  Of a
	# user's file, it rewrote the copy's CFI.  The file: a copy of
	# run_copy typed ET_REL, with a .rela.eh_frame of one relocation,
	# which the user's run_copy maps and runs its spin() from.
	python3 -c 'import struct, sys
sys.stdout.buffer.write(struct.pack("<QQq", 0x20, (1 << 32) | 1, 0))' > "$TMP/rela"
	objcopy --add-section .rela.eh_frame="$TMP/rela" "$PROF_WORKLOADS/run_copy" "$PUB/code.o"
	python3 -c 'import struct, sys
f = open(sys.argv[1], "r+b"); d = bytearray(f.read())
shoff, = struct.unpack_from("<Q", d, 0x28); ent, num, stridx = struct.unpack_from("<HHH", d, 0x3a)
strtab, = struct.unpack_from("<Q", d, shoff + stridx * ent + 24)
index = {}
for i in range(num):
    name, = struct.unpack_from("<I", d, shoff + i * ent)
    index[bytes(d[strtab + name:d.index(b"\0", strtab + name)])] = i
h = shoff + index[b".rela.eh_frame"] * ent
struct.pack_into("<I", d, h + 4, 4)  # SHT_RELA
struct.pack_into("<Q", d, h + 8, 0x40)  # SHF_INFO_LINK
struct.pack_into("<II", d, h + 40, index[b".symtab"], index[b".eh_frame"])
struct.pack_into("<Q", d, h + 56, 24)
struct.pack_into("<H", d, 16, 1)  # ET_REL
f.seek(0); f.write(d)' "$PUB/code.o"
	readelf -h "$PUB/code.o" | grep -q 'REL (Relocatable file)'
	readelf -S -W "$PUB/code.o" | grep -E '\.rela\.eh_frame +RELA '
	cp "$PROF_WORKLOADS/run_copy" "$PUB/run_copy"
	for owner in 0 $USER_ID; do
		chown $owner:$owner "$PUB/code.o"
		chmod 0644 "$PUB/code.o"
		user_program "$PUB/run_copy" "$PUB/code.o" 30
		grep -q " r-xp .*$PUB/code.o$" "/proc/$APID/maps"
		run prof-sample -v -p "$APID" -d 2 -o "$TMP/rel.prof"
		echo "owner $owner: $output"
		kill "$APID"
		wait "$APID" || true
		APID=
		lossy_ok "$status" <(printf '%s\n' "$output")
		grep -qF "1 file(s) not unwound through: libdw could not be trusted to read them in bounded memory (the last: a relocatable object, or a core file)" <<<"$output"
		grep -qE "user stacks cut short: [1-9][0-9]* at code without CFI" <<<"$output"
		# Its samples are there, named from the file's own symbols,
		# each walk ending in it.
		prof-symbolize "$TMP/rel.prof" 2>/dev/null | prof-fold > "$TMP/rel.folded"
		cat "$TMP/rel.folded"
		grep -qE '^run_copy;spin [1-9][0-9]*$' "$TMP/rel.folded"
	done
}
