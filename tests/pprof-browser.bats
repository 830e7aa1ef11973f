#!/usr/bin/env bats
# speedscope (pinned in tests/browser/package-lock.json) opens our pprof in
# Debian's chromium, driven by playwright-core, and sees in it what
# go tool pprof sees: the same total, the same heaviest frame.

load helpers
load ship/helpers

setup() {
	[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || skip "chromium is not installed (apt-get install chromium)"
	[ -d "$BATS_TEST_DIRNAME/browser/node_modules/speedscope" ] ||
		skip "speedscope is not installed (npm ci --prefix tests/browser)"
	command -v go >/dev/null || skip "go is not installed (apt-get install golang-go)"
	TMP="$BATS_TEST_TMPDIR"
}

# near A B: A is B within 0.1%.
near() {
	echo "# $1 against $2"
	[ $((($1 - $2) * 1000)) -le "$2" ] && [ $((($2 - $1) * 1000)) -le "$2" ]
}

@test "speedscope shows the profile's name and its heaviest frame, as go tool pprof -top does" {
	capture "$TMP/cap.prof"
	PATH="$(pprof_bin):$PATH" prof-symbolize --format=pprof "$TMP/cap.prof" > "$TMP/chain.pb.gz"
	# go tool pprof: the total, and the frames with the most self time (a
	# tie leaves speedscope free to pick either).
	gotool tool pprof -top -unit=ns -symbolize=none "$TMP/chain.pb.gz" > "$TMP/top"
	cat "$TMP/top"
	total=$(sed -n 's/.* of \([0-9]*\)ns total$/\1/p' "$TMP/top")
	flat=$(awk '$1 ~ /^[0-9]+ns$/ { print $1 + 0; exit }' "$TMP/top")
	[ -n "$total" ] && [ "$flat" -gt 0 ]
	awk -v f="${flat}ns" '$1 == f { sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, ""); print }' "$TMP/top" > "$TMP/heaviest"
	if knows_pprof; then
		[ "$(cat "$TMP/heaviest")" = burn_cpu ]
	fi
	run timeout -k 10 60 node "$BATS_TEST_DIRNAME/browser/speedscope.js" "$TMP/chain.pb.gz"
	echo "$output"
	[ "$status" -eq 0 ]
	# speedscope names a pprof after its file, and prints times to two
	# decimals of their unit: equal within 0.1%.
	[ "${lines[0]}" = "$(printf 'name\tchain.pb.gz')" ]
	read -r _ got_total <<< "${lines[1]}"
	read -r _ got_flat _ <<< "${lines[2]}"
	near "$got_total" "$total"
	near "$got_flat" "$flat"
	cat "$TMP/heaviest"
	grep -qxF "${lines[2]##*$'\t'}" "$TMP/heaviest"
}

@test "speedscope refuses what is not a profile, and the check says so" {
	echo garbage > "$TMP/bad.pb.gz"
	run timeout -k 10 60 node "$BATS_TEST_DIRNAME/browser/speedscope.js" "$TMP/bad.pb.gz"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"speedscope refused"* ]]
}
