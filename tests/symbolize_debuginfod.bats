#!/usr/bin/env bats
# Debug info from a debuginfod server: a real elfutils debuginfod on a free
# local port, serving a directory that holds the only copy of a binary's
# debug file.  prof-symbolize asks it through libdebuginfod, honouring
# DEBUGINFOD_URLS, and checks the build-id of what it gets.

bats_require_minimum_version 1.5.0

load helpers
load symbolize_agree

SRC="$BATS_TEST_DIRNAME/fixtures/symbolize/inlines.c"

setup() {
	TMP=$(mktemp -d)
	command -v debuginfod > /dev/null || skip "debuginfod is not installed"
	mkdir "$TMP/srv"
	gcc -O2 -g -o "$TMP/full" "$SRC"
	strip --strip-all -o "$TMP/prog" "$TMP/full"
	objcopy --only-keep-debug "$TMP/full" "$TMP/srv/prog.debug"
	BUILDID=$(eu-readelf -n "$TMP/prog" | awk '/Build ID:/ { print $3 }')
	pick_addresses "$TMP/full" > "$TMP/addrs"
	theirs eu-addr2line "$TMP/full" "$TMP/addrs" > "$TMP/elfutils"
	rm "$TMP/full"
	start_debuginfod
}

teardown() {
	if [ -n "${DPID:-}" ]; then
		kill "$DPID" 2>/dev/null || true
		wait "$DPID" 2>/dev/null || true
	fi
	stop_jobs
	rm -rf "$TMP"
}

# http_status PATH: the status code debuginfod answers for PATH, or nothing.
http_status() {
	local line
	exec 3<>"/dev/tcp/127.0.0.1/$PORT" 2>/dev/null || return 0
	printf 'GET %s HTTP/1.0\r\n\r\n' "$1" >&3
	IFS= read -r -t 5 line <&3 || true
	exec 3<&-
	set -- $line
	echo "${2:-}"
}

# start_debuginfod [STATUS]: on a free port (a few random tries), then waits
# (at most 15 s) until its first scan has indexed the debug file (until it
# answers STATUS for it: 404 when it has none).
start_debuginfod() {
	for _ in 1 2 3 4 5; do
		PORT=$(( 20000 + RANDOM % 20000 ))
		debuginfod -p "$PORT" -F "$TMP/srv" -d "$TMP/db.sqlite" > "$TMP/debuginfod.log" 2>&1 &
		DPID=$!
		for _ in $(seq 150); do
			kill -0 "$DPID" 2>/dev/null || break
			[ "$(http_status "/buildid/$BUILDID/debuginfo")" = "${1:-200}" ] && return 0
			sleep 0.1
		done
		kill "$DPID" 2>/dev/null || true
		wait "$DPID" 2>/dev/null || true
		DPID=
	done
	cat "$TMP/debuginfod.log"
	false
}

@test "a debug file only a debuginfod server has resolves names, inlines and lines" {
	"$PROF_WORKLOADS/mkcapture" "$TMP/prog" < "$TMP/addrs" > "$TMP/cap.prof"
	export DEBUGINFOD_CACHE_PATH="$TMP/cache"
	# Without DEBUGINFOD_URLS, nothing to find: module+offset.
	DEBUGINFOD_URLS= prof-symbolize "$TMP/cap.prof" > "$TMP/none.txt"
	run ! grep -q ' burn+' "$TMP/none.txt"
	grep -q ' \[prog\]+0x' "$TMP/none.txt"
	export DEBUGINFOD_URLS="http://127.0.0.1:$PORT"
	# --no-debuginfod does not ask.
	prof-symbolize --no-debuginfod "$TMP/cap.prof" > "$TMP/asked-not.txt"
	run ! grep -q ' burn+' "$TMP/asked-not.txt"
	[ ! -e "$TMP/cache/$BUILDID" ]
	ours "$TMP/prog" "$TMP/addrs" "$TMP/prog" > "$TMP/ours"
	[ -s "$TMP/cache/$BUILDID/debuginfo" ]
	grep -q '^accumulate@inlines.c:[0-9]*|burn@inlines.c:' "$TMP/ours"
	run agreement "$TMP/ours" "$TMP/elfutils"
	echo "$output"
	[ "${lines[-1]}" = "$(wc -l < "$TMP/addrs")/$(wc -l < "$TMP/addrs")" ]
}

@test "a binary replaced since the capture is not resolved through debuginfod either" {
	# The server has prog.debug; the capture claims another build-id for
	# the same file (a binary replaced since): nothing resolves.
	export DEBUGINFOD_CACHE_PATH="$TMP/cache" DEBUGINFOD_URLS="http://127.0.0.1:$PORT"
	gcc -O1 -g -o "$TMP/other" "$SRC"
	"$PROF_WORKLOADS/mkcapture" "$TMP/other" "$TMP/prog" < "$TMP/addrs" > "$TMP/cap.prof"
	run prof-symbolize -o "$TMP/out.txt" "$TMP/cap.prof"
	[[ "$output" == *"$TMP/prog: build-id differs from the capture's (file replaced?); its frames stay unresolved"* ]]
	run ! grep -qE ' (burn|mix|work)\+' "$TMP/out.txt"
}

@test "a lookup that fails is said with -v: the server, the build-id and the error" {
	"$PROF_WORKLOADS/mkcapture" "$TMP/prog" < "$TMP/addrs" > "$TMP/cap.prof"
	export DEBUGINFOD_CACHE_PATH="$TMP/cache"
	# A server that is down (its port closed), then one without the file.
	kill "$DPID"
	wait "$DPID" 2>/dev/null || true
	DPID=
	DEBUGINFOD_URLS="http://127.0.0.1:$PORT" prof-symbolize -v -o /dev/null "$TMP/cap.prof" 2> "$TMP/err"
	cat "$TMP/err"
	grep -qxF "prof-symbolize: debuginfod (http://127.0.0.1:$PORT): build-id $BUILDID: Connection refused" "$TMP/err"
	# Without -v, nothing about it.
	DEBUGINFOD_URLS="http://127.0.0.1:$PORT" prof-symbolize -o /dev/null "$TMP/cap.prof" 2> "$TMP/err"
	run ! grep -q debuginfod "$TMP/err"
	rm "$TMP/srv/prog.debug"
	rm -rf "$TMP/cache"
	start_debuginfod 404
	DEBUGINFOD_URLS="http://127.0.0.1:$PORT" prof-symbolize -v -o /dev/null "$TMP/cap.prof" 2> "$TMP/err"
	cat "$TMP/err"
	grep -qxF "prof-symbolize: debuginfod (http://127.0.0.1:$PORT): build-id $BUILDID: not found" "$TMP/err"
}

@test "a debug directory's copy with no more symbols than the binary does not keep debuginfod from being asked" {
	# As the build-id cache keeps a stripped file: by build-id, without a
	# symbol table.
	mkdir -p "$TMP/dbg/.build-id/${BUILDID:0:2}"
	cp "$TMP/prog" "$TMP/dbg/.build-id/${BUILDID:0:2}/${BUILDID:2}.debug"
	"$PROF_WORKLOADS/mkcapture" "$TMP/prog" < "$TMP/addrs" > "$TMP/cap.prof"
	export DEBUGINFOD_CACHE_PATH="$TMP/cache"
	DEBUGINFOD_URLS= prof-symbolize --debug-dir "$TMP/dbg" "$TMP/cap.prof" > "$TMP/none.txt"
	run ! grep -q ' burn+' "$TMP/none.txt"
	DEBUGINFOD_URLS="http://127.0.0.1:$PORT" prof-symbolize --debug-dir "$TMP/dbg" "$TMP/cap.prof" > "$TMP/out.txt"
	grep -q ' burn+' "$TMP/out.txt"
	[ -s "$TMP/cache/$BUILDID/debuginfo" ]
}

@test "libdebuginfod is loaded when a lookup needs it: not linked, and its absence said once" {
	# Linked, it brought some thirty libraries to every run's start-up.
	run ! grep -q libdebuginfod <(readelf -d "$PROF_BIN/prof-symbolize")
	[ "$(id -u)" -eq 0 ] || skip "needs root: the library is hidden in a mount namespace of its own"
	lib=$(readlink -f "$(ldconfig -p | awk '$1 == "libdebuginfod.so.1" { print $NF; exit }')")
	[ -f "$lib" ]
	"$PROF_WORKLOADS/mkcapture" "$TMP/prog" < "$TMP/addrs" > "$TMP/cap.prof"
	export DEBUGINFOD_CACHE_PATH="$TMP/cache" DEBUGINFOD_URLS="http://127.0.0.1:$PORT"
	# The library made an empty file, in a mount namespace of its own.
	unshare -m sh -c 'mount --bind /dev/null "$1" && exec "$2" -o "$3" "$4"' sh \
		"$lib" "$PROF_BIN/prof-symbolize" "$TMP/out.txt" "$TMP/cap.prof" 2> "$TMP/err"
	cat "$TMP/err"
	[ "$(grep -c debuginfod "$TMP/err")" -eq 1 ]
	grep -qE "^prof-symbolize: debuginfod: .*libdebuginfod.so.1: .*; DEBUGINFOD_URLS is not used$" "$TMP/err"
	grep -q ' \[prog\]+0x' "$TMP/out.txt"
	run ! grep -q ' burn+' "$TMP/out.txt"
	# And where it is, it is used.
	prof-symbolize -o "$TMP/out.txt" "$TMP/cap.prof"
	grep -q ' burn+' "$TMP/out.txt"
}
