#!/usr/bin/env bats
# The README's examples really run: every command line of its Examples
# section, verbatim, in a directory where what they name exists (a stand-in
# "nginx" process in a stand-in nginx.service cgroup, a Makefile for the
# "make -j2" example, the folded files the later examples read).

load helpers

setup() {
	TMP=$(mktemp -d)
	ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
}

teardown() {
	[ -n "${NGINX:-}" ] && kill "$NGINX" 2>/dev/null
	stop_jobs
	wait 2>/dev/null || true
	[ -n "${CG:-}" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$TMP"
}

@test "every example of the README runs and succeeds" {
	require_root
	cd "$TMP"
	# The stand-in nginx: the chain workload under that name, in the
	# cgroup the README names (made here if the hierarchy allows it).
	cp "$PROF_WORKLOADS/chain" "$TMP/nginx"
	"$TMP/nginx" 120 &
	NGINX=$!
	CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)/system.slice/nginx.service
	mkdir -p "$CG" && echo "$NGINX" > "$CG/cgroup.procs"
	printf 'all:\n\t@%s 1\n' "$PROF_WORKLOADS/chain" > Makefile
	awk '/^## Examples/ { on = 1; next } /^## / { on = 0 } on && /^    [^ ]/ { sub(/^    /, ""); print }' \
		"$ROOT/README.md" > examples.sh
	[ "$(wc -l < examples.sh)" -ge 15 ]
	n=0
	while IFS= read -r line; do
		case $line in
		export\ PATH=*) continue ;;	# tests/run has set PATH already
		*stackcollapse-perf.pl*) continue ;;	# FlameGraph is not packaged by Debian
		esac
		# Files the examples read that an earlier example made elsewhere.
		[ -f sys.folded ] && for f in before after host1 host2; do
			[ -f $f.folded ] || cp sys.folded $f.folded
		done
		echo "\$ $line"
		# Long or open-ended captures end with SIGINT after 3 s, as a
		# user's Ctrl-C would: a clean stop with status 0.
		run timeout --preserve-status -s INT -k 10 3 bash -c "$line"
		echo "$output" | head -5
		[ "$status" -eq 0 ]
		n=$((n + 1))
	done < examples.sh
	[ "$n" -ge 15 ]
	# And what they made is what they say.
	prof-symbolize nginx.prof | grep -q ' burn_cpu+'
	grep -q '^nginx;' svc.folded 2>/dev/null || prof-symbolize svc.prof | grep -q '^nginx '
	[ -s sys.svg ]
	[ -s diff.svg ]
	[ -s icicle.svg ]
}
