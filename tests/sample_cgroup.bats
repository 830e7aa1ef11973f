#!/usr/bin/env bats
# Containers and services (issue 18): one system-wide capture of processes
# in cgroups made here (a systemd-like service, a Docker-like container
# scope) splits by cgroup with prof-fold --cgroup, and its pprof carries
# the cgroup, container id and unit labels.  The workloads are Debian's
# own sha256sum and md5sum, hashing /dev/zero.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	require_root
	TMP=$(mktemp -d)
	# A cgroup2 mount of our own: the host's may be anywhere, or absent
	# (v1 only), and mounting the hierarchy again is allowed.
	CG=$TMP/cg
	mkdir "$CG"
	mount -t cgroup2 none "$CG"
	BASE=prof-test-$$.slice
	ID=$(printf 'prof %s' "$$" | sha256sum | cut -c1-64)
	WEB=$BASE/web.service
	BOX=$BASE/docker-$ID.scope
	mkdir -p "$CG/$WEB" "$CG/$BOX"
	export HOME=$TMP GOCACHE=$TMP/gocache
	pids=()
}

teardown() {
	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
	rmdir "$CG/$WEB" "$CG/$BOX" "$CG/$BASE" 2>/dev/null || true
	umount "$CG" 2>/dev/null || true
	rm -rf "$TMP"
}

# run_in CGROUP SECONDS PROGRAM: PROGRAM hashing /dev/zero for SECONDS,
# moved into CGROUP before it starts.
run_in() {
	sh -c 'echo $$ > "$1/cgroup.procs" && exec timeout "$2" "$3" /dev/zero' sh "$CG/$1" "$2" "$3" &
	pids+=($!)
}

capture_two() {
	run_in "$WEB" 4 sha256sum
	run_in "$BOX" 4 md5sum
	sleep 0.5
	prof-sample -a -d 2 -o "$TMP/cap.prof"
}

@test "a system-wide capture splits by cgroup: each service's samples under its own path" {
	capture_two
	prof-symbolize --cgroup "$TMP/cap.prof" > "$TMP/frames"
	# The event line names the cgroup where perf script -F +cgroup does.
	grep -q "^sha256sum [0-9/]* [0-9.]*: [0-9]* cpu-clock: /$WEB\$" "$TMP/frames"
	grep -q "^md5sum [0-9/]* [0-9.]*: [0-9]* cpu-clock: /$BOX\$" "$TMP/frames"
	prof-fold --cgroup < "$TMP/frames" > "$TMP/by-cgroup"
	prof-fold < "$TMP/frames" > "$TMP/plain"
	web=$(folded_total "$TMP/by-cgroup" "^/$WEB;sha256sum;")
	box=$(folded_total "$TMP/by-cgroup" "^/$BOX;md5sum;")
	echo "web.service $web, container $box samples"
	# Each got about a CPU for 2 s at 99 Hz; all of it under its cgroup.
	[ "$web" -ge 100 ] && [ "$box" -ge 100 ]
	[ "$web" -eq "$(folded_total "$TMP/by-cgroup" ';sha256sum;')" ]
	[ "$box" -eq "$(folded_total "$TMP/by-cgroup" ';md5sum;')" ]
	[ "$(folded_total "$TMP/by-cgroup")" -eq "$(folded_total "$TMP/plain")" ]
	# Debian's binaries are stripped: their own frames stay [sha256sum],
	# but their stacks are whole, from libc's start down, in either cgroup.
	[ "$(folded_total "$TMP/by-cgroup" "^/$WEB;sha256sum;.*;__libc_start_main;")" -ge $((web * 9 / 10)) ]
	[ "$(folded_total "$TMP/by-cgroup" "^/$BOX;md5sum;.*;__libc_start_main;")" -ge $((box * 9 / 10)) ]
}

@test "pprof carries the cgroup, container id and systemd unit labels, and splits by them" {
	command -v go >/dev/null || { echo "go (golang-go) not installed: run .ci/setup" >&2; false; }
	capture_two
	prof-symbolize --format=pprof -o "$TMP/p.pb.gz" "$TMP/cap.prof"
	prof-symbolize --cgroup "$TMP/cap.prof" | prof-fold --cgroup > "$TMP/by-cgroup"
	go tool pprof -tags -symbolize=none "$TMP/p.pb.gz" > "$TMP/tags"
	cat "$TMP/tags"
	grep -q "container_id" "$TMP/tags" && grep -q "$ID" "$TMP/tags"
	grep -q "systemd_unit" "$TMP/tags" && grep -q "web.service" "$TMP/tags"
	grep -q "docker-$ID.scope" "$TMP/tags"
	grep -q "/$WEB" "$TMP/tags"
	# The container's samples alone, as a backend would select them.
	go tool pprof -top -symbolize=none -sample_index=samples -tagfocus="container_id=$ID" \
		"$TMP/p.pb.gz" > "$TMP/box.top"
	total=$(sed -n 's/^Showing nodes accounting for \([0-9]*\), .*/\1/p' "$TMP/box.top")
	echo "pprof container total $total, folded $(folded_total "$TMP/by-cgroup" "^/$BOX;")"
	[ "$total" -eq "$(folded_total "$TMP/by-cgroup" "^/$BOX;")" ]
	# (The header's File: line names the profile's first mapping.)
	! grep -v '^File:' "$TMP/box.top" | grep -q sha256
}
