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

@test "speedscope takes folded stacks' unit line as a stack of nothing: the same total and heaviest frame as without it" {
	prof-fold "$BATS_TEST_DIRNAME/fixtures/fold-offcpu/offcpu.txt" > "$TMP/off.folded"
	[ "$(head -1 "$TMP/off.folded")" = "[count: nanoseconds] 0" ]
	mkdir "$TMP/plain"
	tail -n +2 "$TMP/off.folded" > "$TMP/plain/off.folded"
	total=$(awk '{ t += $NF } END { printf "%.0f", t }' "$TMP/off.folded")
	run timeout -k 10 60 node "$BATS_TEST_DIRNAME/browser/speedscope.js" "$TMP/off.folded"
	echo "$output"
	[ "$status" -eq 0 ]
	with=$output
	read -r _ got_total <<< "${lines[1]}"
	[ "$got_total" -eq "$total" ]
	run timeout -k 10 60 node "$BATS_TEST_DIRNAME/browser/speedscope.js" "$TMP/plain/off.folded"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$with" ]
}

@test "speedscope and go tool pprof -top agree on self time where frames are unresolved" {
	# Process 1's file is gone (its frames stay unresolved, [chain]), the
	# heaviest leaf; process 2's resolves, burn_cpu under compute.
	{
		echo "comm 1 1 gone"
		echo "comm 2 2 here"
		echo "map 2 $PROF_WORKLOADS/chain"
		echo "on 1/1 30 - $(at burn_cpu 5),$(at compute 4),$(at run_workload 20)"
		echo "on 2/2 20 - $(at burn_cpu 5),$(at compute 4),$(at run_workload 20)"
		echo "on 2/2 5 - $(at compute 4),$(at run_workload 20)"
	} | MKCAPTURE_EVENT=cpu-clock "$PROF_WORKLOADS/mkcapture" "$PROF_WORKLOADS/chain" /nonexistent/chain > "$TMP/cap.prof"
	# (No build-id cache that could have the gone file.)
	PROF_BUILD_ID_DIR="$TMP/empty" prof-symbolize --no-debuginfod -f pprof "$TMP/cap.prof" > "$TMP/mixed.pb.gz"
	gotool tool pprof -top -unit=ns -symbolize=none "$TMP/mixed.pb.gz" > "$TMP/top"
	cat "$TMP/top"
	total=$(sed -n 's/.* of \([0-9]*\)ns total$/\1/p' "$TMP/top")
	# The unresolved leaf, with its whole time as its own.
	read -r flat _ _ _ _ name < <(awk '$1 ~ /^[0-9]+ns$/' "$TMP/top" | head -1)
	[ "$name" = "[chain]" ]
	run timeout -k 10 60 node "$BATS_TEST_DIRNAME/browser/speedscope.js" "$TMP/mixed.pb.gz"
	echo "$output"
	[ "$status" -eq 0 ]
	read -r _ got_total <<< "${lines[1]}"
	IFS=$'\t' read -r _ got_flat got_name <<< "${lines[2]}"
	near "$got_total" "$total"
	near "$got_flat" "${flat%ns}"
	[ "$got_name" = "[chain]" ]
}
