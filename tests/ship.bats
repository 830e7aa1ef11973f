#!/usr/bin/env bats
# The README's way to ship continuous captures: its prof-ship script, run as
# written, posts to a loopback stand-in of Pyroscope's /ingest and Parca's
# /api/profiles/writeraw, which judges each request as the real server
# would (tests/ship/check.py) and decodes the profile with go tool pprof;
# its systemd unit is one systemd accepts.

load helpers
load ship/helpers

setup() {
	command -v go >/dev/null || skip "go is not installed (apt-get install golang-go)"
	TMP="$BATS_TEST_TMPDIR"
	readme_block '#!/bin/bash' > "$TMP/prof-ship"
	chmod +x "$TMP/prof-ship"
	[ "$(wc -l < "$TMP/prof-ship")" -ge 20 ]
	capture "$TMP/a.prof"
	cp "$TMP/a.prof" "$TMP/b.prof"
	start_receiver "$TMP/got"
}

teardown() {
	stop_receiver
}

# ship TO FILE...: prof-ship run with the paths of FILEs on stdin, as
# prof-sample --rotate prints them; its status in $st, stderr in $TMP/err.
ship() {
	local to=$1 bin
	shift
	bin=$(pprof_bin)
	st=0
	printf '%s\n' "$@" | PATH="$bin:$PATH" PROF_SHIP_TO=$to PYROSCOPE_URL=$URL PARCA_URL=$URL \
		"$TMP/prof-ship" 2> "$TMP/err" || st=$?
	cat "$TMP/err"
}

# query N: the query string of request N, decoded.
query() {
	python3 -c 'import json, sys, urllib.parse
print(urllib.parse.unquote(json.load(open(sys.argv[1]))["query"]))' "$TMP/got/$1.json"
}

# want_pprof [OPTION]: go tool pprof -raw of what prof-ship posts of a.prof
# (to Parca with --bare-unresolved).
want_pprof() {
	PATH="$(pprof_bin):$PATH" prof-symbolize --format=pprof ${1:-} "$TMP/a.prof" > "$TMP/want.pb.gz"
	gotool tool pprof -raw -symbolize=none "$TMP/want.pb.gz"
}

@test "pprof to Pyroscope: raw body, format=pprof, name with labels; each file deleted once taken" {
	touch -d @1700000060 "$TMP/a.prof"
	ship pyroscope "$TMP/a.prof" "$TMP/b.prof"
	[ "$st" -eq 0 ]
	[ ! -s "$TMP/err" ]
	[ ! -e "$TMP/a.prof" ] && [ ! -e "$TMP/b.prof" ]
	capture "$TMP/a.prof"
	want_pprof > "$TMP/want"
	for n in 1 2; do
		python3 "$SHIP/check.py" pyroscope-pprof "$TMP/got/$n" > "$TMP/raw$n"
		diff -u "$TMP/want" "$TMP/raw$n"
	done
	[ ! -e "$TMP/got/3.json" ]
	[[ "$(query 1)" =~ ^name=prof\{host=$(hostname)\}\&format=pprof\&from=([0-9]+)\&until=([0-9]+)$ ]]
	# from and until: the minute the file was the capture of, ending when
	# it was last written.
	[ "${BASH_REMATCH[1]}" -eq 1700000000 ] && [ "${BASH_REMATCH[2]}" -eq 1700000060 ]
}

@test "folded to Pyroscope: every line a stack and a count, summing to the capture's samples" {
	prof-symbolize "$TMP/a.prof" | prof-fold > "$TMP/want.folded"
	total=$(folded_total "$TMP/want.folded")
	[ "$total" -eq 40 ]
	ship pyroscope-folded "$TMP/a.prof"
	[ "$st" -eq 0 ]
	[ ! -s "$TMP/err" ]
	[ ! -e "$TMP/a.prof" ]
	run python3 "$SHIP/check.py" pyroscope-folded "$TMP/got/1"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$total" ]
	cmp "$TMP/want.folded" "$TMP/got/1.body"
	grep -q '"Content-Type": "text/plain"' "$TMP/got/1.json"
	[[ "$(query 1)" =~ ^name=prof\.cpu\{host=$(hostname)\}\&format=folded\&from=[0-9]+\&until=[0-9]+\&units=samples\&aggregationType=sum\&spyName=prof$ ]]
}

@test "the unit line of an off-CPU profile reaches Pyroscope as it is, which takes it, the total unchanged" {
	# An off-CPU capture: prof-fold says its counts are nanoseconds.
	{
		echo "off 1/1 1 700 - $(at run_workload 20)"
	} | MKCAPTURE_EVENT=offcpu-time "$PROF_WORKLOADS/mkcapture" "$PROF_WORKLOADS/chain" > "$TMP/off.prof"
	prof-symbolize "$TMP/off.prof" | prof-fold > "$TMP/want.folded"
	[ "$(head -1 "$TMP/want.folded")" = "[count: nanoseconds] 0" ]
	ship pyroscope-folded "$TMP/off.prof"
	[ "$st" -eq 0 ]
	run python3 "$SHIP/check.py" pyroscope-folded "$TMP/got/1"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = 700 ]
	cmp "$TMP/want.folded" "$TMP/got/1.body"
}

@test "pprof to Parca: JSON with __name__, host and the base64 profile, at /api/profiles/writeraw" {
	ship parca "$TMP/a.prof"
	[ "$st" -eq 0 ]
	[ ! -s "$TMP/err" ]
	[ ! -e "$TMP/a.prof" ]
	capture "$TMP/a.prof"
	want_pprof --bare-unresolved > "$TMP/want"
	python3 "$SHIP/check.py" parca "$TMP/got/1" > "$TMP/raw"
	diff -u "$TMP/want" "$TMP/raw"
	python3 -c 'import json, sys
labels = json.load(open(sys.argv[1]))["series"][0]["labels"]["labels"]
assert labels == [{"name": "__name__", "value": "prof_cpu"}, {"name": "host", "value": sys.argv[2]}], labels
' "$TMP/got/1.body" "$(hostname)"
}

@test "a server that fails: each file is kept, said so, and the loop goes on; shipped once it is back" {
	touch "$TMP/got/fail"
	ship pyroscope "$TMP/a.prof" "$TMP/missing.prof" "$TMP/b.prof"
	[ "$st" -eq 0 ]
	[ -e "$TMP/a.prof" ] && [ -e "$TMP/b.prof" ]
	[ "$(cat "$TMP/err" | grep -c 'not shipped, kept')" -eq 3 ]
	grep -q "^prof-ship: $TMP/a.prof: not shipped, kept\$" "$TMP/err"
	grep -q "^prof-ship: $TMP/missing.prof: not shipped, kept\$" "$TMP/err"
	# curl --retry 2: three tries of each existing file.
	[ -e "$TMP/got/6.json" ] && [ ! -e "$TMP/got/7.json" ]
	# No temporary files left behind.
	[ "$(ls "$TMP" | grep -c '^tmp\.')" -eq 0 ]
	rm "$TMP/got/fail"
	ship parca "$TMP/a.prof" "$TMP/b.prof"
	[ "$st" -eq 0 ]
	[ ! -s "$TMP/err" ]
	[ ! -e "$TMP/a.prof" ] && [ ! -e "$TMP/b.prof" ]
	python3 "$SHIP/check.py" parca "$TMP/got/8" > /dev/null
}

@test "the stand-in refuses what the real servers refuse" {
	want_pprof > /dev/null
	st=0
	# A form with format=pprof: Pyroscope reads the whole form as the profile.
	curl -fsS -F profile=@"$TMP/want.pb.gz" "$URL/ingest?name=app&from=1&until=2&format=pprof"
	run python3 "$SHIP/check.py" pyroscope-pprof "$TMP/got/1"
	[ "$status" -eq 1 ]
	[[ "$output" == *"multipart body with format=pprof"* ]]
	# The form Pyroscope documents for pprof does pass, and a field that is
	# not a file part does not.
	curl -fsS -F profile=@"$TMP/want.pb.gz" "$URL/ingest?name=app&from=1&until=2"
	python3 "$SHIP/check.py" pyroscope-pprof "$TMP/got/2" > /dev/null
	curl -fsS -F profile="<$TMP/want.pb.gz" "$URL/ingest?name=app&from=1&until=2" || true
	run python3 "$SHIP/check.py" pyroscope-pprof "$TMP/got/3"
	[ "$status" -eq 1 ]
	# A folded line whose count is not a number; a name that is not APP{K=V}.
	printf 'a;b 1\n# count: nanoseconds\n' | curl -fsS --data-binary @- "$URL/ingest?name=app&from=1&until=2"
	run python3 "$SHIP/check.py" pyroscope-folded "$TMP/got/4"
	[ "$status" -eq 1 ]
	printf 'a;b 1\n' | curl -fsS --data-binary @- "$URL/ingest?name=app%7Bk%3Dv%2Cw%7D&from=1&until=2"
	run python3 "$SHIP/check.py" pyroscope-folded "$TMP/got/5"
	[ "$status" -eq 1 ]
	# Parca without __name__.
	printf '{"series":[{"labels":{"labels":[]},"samples":[{"rawProfile":"%s"}]}]}' "$(base64 -w0 "$TMP/want.pb.gz")" |
		curl -fsS -H 'Content-Type: application/json' --data-binary @- "$URL/api/profiles/writeraw" > /dev/null
	run python3 "$SHIP/check.py" parca "$TMP/got/6"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no __name__"* ]]
}

@test "the README's systemd unit is one systemd accepts, running prof-sample --rotate into prof-ship" {
	readme_block '[Unit]' > "$TMP/prof-ship.service"
	grep -q '^ExecStart=/bin/bash -c .*prof-sample -a .*--rotate 60 .*-o /var/lib/prof/%%Y%%m%%d-%%H%%M%%S.prof | prof-ship' "$TMP/prof-ship.service"
	command -v systemd-analyze >/dev/null || { echo "systemd-analyze is not installed: run .ci/setup" >&2; false; }
	cd "$TMP"
	run systemd-analyze verify ./prof-ship.service
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "prof-ship passes shellcheck" {
	command -v shellcheck >/dev/null || skip "shellcheck is not installed (.ci/setup installs it)"
	shellcheck -s bash "$TMP/prof-ship"
}

@test "prof-ship makes files only in a private directory of its own: no name in TMPDIR another user could take first" {
	command -v strace >/dev/null || skip "strace is not installed (.ci/setup installs it)"
	# TMPDIR as /tmp is: anyone's to write in.  The Parca branch once
	# wrote to the name mktemp gave plus ".pb.gz", which a user watching
	# the directory could take first, a link to a file of root's.
	mkdir -m 1777 "$TMP/shared"
	bin=$(pprof_bin)
	printf '%s\n' "$TMP/a.prof" | PATH="$bin:$PATH" PROF_SHIP_TO=parca PARCA_URL=$URL \
		TMPDIR="$TMP/shared" strace -f -qq -e trace=mkdir,openat,creat -o "$TMP/trace" \
		"$TMP/prof-ship"
	[ ! -e "$TMP/a.prof" ]
	# The directories it made in TMPDIR, each 0700.
	mapfile -t dirs < <(sed -nE "s|.*mkdir\(\"($TMP/shared/[^\"]+)\", 0700\) = 0.*|\1|p" "$TMP/trace")
	[ "${#dirs[@]}" -eq 1 ]
	# Every file it created: in one of those.
	mapfile -t made < <(grep -E 'O_CREAT' "$TMP/trace" | sed -nE 's/.*openat\([^,]+, "([^"]+)".*/\1/p' |
		grep -v '^/dev/null$')
	[ "${#made[@]}" -ge 2 ]
	for f in "${made[@]}"; do
		echo "$f"
		[[ "$f" == "${dirs[0]}"/* ]]
	done
	# Nothing left behind.
	[ -z "$(ls -A "$TMP/shared")" ]
}
