# Shared by tests/ship.bats and tests/pprof-browser.bats: a known capture,
# its pprof, the README's shipping section, and the stand-in servers.

SHIP="$BATS_TEST_DIRNAME/ship"
ROOT="$BATS_TEST_DIRNAME/.."

# go, with its caches in the test's own directory (HOME may not be ours).
gotool() {
	HOME="$BATS_FILE_TMPDIR" GOCACHE="$BATS_FILE_TMPDIR/gocache" GO111MODULE=off go "$@"
}

# knows_pprof: prof-symbolize writes pprof (FORMATS.md section 6).
knows_pprof() {
	prof-symbolize --help 2>&1 | grep -q -- '--format'
}

# at FUNCTION OFFSET: the chain workload's address OFFSET bytes into it (hex).
at() {
	local a
	a=$(nm "$PROF_WORKLOADS/chain" | awk -v f="$1" '$3 == f { print $1 }')
	printf '%x' $((0x$a + $2))
}

# capture OUT: an on-CPU capture of the chain workload made by mkcapture
# (no sampling): 40 samples, 30 of them in burn_cpu.
capture() {
	{
		echo "comm 1 1 chain"
		echo "on 1/1 30 - $(at burn_cpu 5),$(at compute 4),$(at run_workload 20)"
		echo "on 1/1 10 - $(at compute 4),$(at run_workload 20)"
	} | MKCAPTURE_EVENT=cpu-clock "$PROF_WORKLOADS/mkcapture" "$PROF_WORKLOADS/chain" > "$1"
}

# go_pprof: $BATS_FILE_TMPDIR/go.pb.gz, a CPU profile Go's runtime/pprof
# wrote (made once a file).
go_pprof() {
	[ -s "$BATS_FILE_TMPDIR/go.pb.gz" ] ||
		(cd "$SHIP" && gotool run gocpu.go "$BATS_FILE_TMPDIR/go.pb.gz")
}

# pprof_bin: a directory to put first on PATH in which prof-symbolize
# writes pprof: the real one's directory once it can, until then one where
# --format=pprof gives Go's profile and the rest goes to the real one.
pprof_bin() {
	if knows_pprof; then
		dirname "$(command -v prof-symbolize)"
		return
	fi
	go_pprof || return
	mkdir -p "$BATS_FILE_TMPDIR/bin"
	printf '#!/bin/sh\n[ "$1" = --format=pprof ] && exec cat %s\nexec %s "$@"\n' \
		"$BATS_FILE_TMPDIR/go.pb.gz" "$(command -v prof-symbolize)" > "$BATS_FILE_TMPDIR/bin/prof-symbolize"
	chmod +x "$BATS_FILE_TMPDIR/bin/prof-symbolize"
	echo "$BATS_FILE_TMPDIR/bin"
}

# readme_block FIRST-LINE: the indented block of the README's shipping
# section that starts with FIRST-LINE, as written, unindented.
readme_block() {
	awk -v first="    $1" '
		/^## / { on = ($0 ~ /^## Shipping profiles to Pyroscope and Parca$/) }
		on && $0 == first { block = 1 }
		block && /^[^ ]/ { exit }
		block { sub(/^    /, ""); print }' "$ROOT/README.md"
}

# start_receiver DIR: the stand-in servers, recording into DIR; their URL
# is in $URL.
start_receiver() {
	mkdir -p "$1"
	python3 "$SHIP/receiver.py" "$1" &
	RECEIVER=$!
	local i
	for i in $(seq 100); do
		[ -s "$1/port" ] && break
		sleep 0.05
	done
	URL="http://127.0.0.1:$(cat "$1/port")"
}

stop_receiver() {
	if [ -n "${RECEIVER:-}" ]; then
		kill "$RECEIVER" 2>/dev/null || true
		wait "$RECEIVER" 2>/dev/null || true
		RECEIVER=
	fi
}
