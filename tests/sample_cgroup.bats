#!/usr/bin/env bats
# Containers and services (issue 18): one system-wide capture of processes
# in cgroups made here (a systemd-like service, a Docker-like container
# scope) splits by cgroup with prof-fold --cgroup, and its pprof carries
# the cgroup, container id and unit labels.  The workloads are Debian's
# own sha256sum and md5sum, hashing /dev/zero.  Issue 28: whoever is
# delegated a cgroup names what is below it, and cannot claim another
# service's or container's labels with those names.

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
	stop_jobs
	# Innermost first: a user's cgroups, then those made for them.
	find "$CG/$BASE" -depth -type d -exec rmdir {} + 2>/dev/null || true
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
	sample_lossy -a -d 2 -o "$TMP/cap.prof"
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
	# Each got up to a CPU for 2 s at 99 Hz (in make check, beside the
	# fuzzers and an ASan prof-sample, as little as half); all of it under
	# its cgroup.
	[ "$web" -ge 50 ] && [ "$box" -ge 50 ]
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
	grep -q "container_id" "$TMP/tags"
	grep -q "$ID" "$TMP/tags"
	grep -q "systemd_unit" "$TMP/tags"
	grep -q "web.service" "$TMP/tags"
	grep -q "docker-$ID.scope" "$TMP/tags"
	grep -q "/$WEB" "$TMP/tags"
	# The container's samples alone, as a backend would select them.
	go tool pprof -top -symbolize=none -sample_index=samples -tagfocus="container_id=$ID" \
		"$TMP/p.pb.gz" > "$TMP/box.top"
	total=$(sed -n 's/^Showing nodes accounting for \([0-9]*\), .*/\1/p' "$TMP/box.top")
	echo "pprof container total $total, folded $(folded_total "$TMP/by-cgroup" "^/$BOX;")"
	[ "$total" -eq "$(folded_total "$TMP/by-cgroup" "^/$BOX;")" ]
	# (The header's File: line names the profile's first mapping.)
	[ -z "$(grep -v '^File:' "$TMP/box.top" | grep sha256)" ]
}

# Issue 28: delegated subtrees.  $BASE/build.service is delegated to user
# 4242 as systemd delegates a Delegate=yes service running as that user
# (the directory and the files that let its owner make cgroups and move
# processes, chowned to them); $BASE/docker-$ID2.scope is a container's
# scope, root's, marked delegated as systemd 251 and later mark one
# (trusted.delegate, which only privilege reads); $BASE/pod.scope is marked
# only as later systemd versions also do (user.delegate, which anyone
# reads).  Below each, its delegatee makes cgroups named after a system
# service and another container.
delegated_tree() {
	ID2=$(printf 'prof2 %s' "$$" | sha256sum | cut -c1-64)
	mkdir -p "$CG/$BASE/foo.service" "$CG/$BASE/build.service" "$CG/$BASE/docker-$ID2.scope" \
		"$CG/$BASE/pod.scope"
	chown 4242:4242 "$CG/$BASE/build.service" "$CG/$BASE/build.service/"cgroup.{procs,subtree_control,threads}
	python3 -c 'import os, sys; os.setxattr(sys.argv[1], sys.argv[2], b"1")' \
		"$CG/$BASE/docker-$ID2.scope" trusted.delegate
	python3 -c 'import os, sys; os.setxattr(sys.argv[1], sys.argv[2], b"1")' \
		"$CG/$BASE/pod.scope" user.delegate
	# The user reaches the cgroups through the test's mount.
	chmod 755 "$TMP"
	# in-subtree CGROUP SUB SECONDS PROGRAM [COMMAND...]: a process
	# started in CGROUP by root, as a manager starts a service or a
	# container there, that makes the cgroup SUB below it and moves into
	# it as COMMAND runs it (setpriv: as the delegated user), then hashes
	# /dev/zero with PROGRAM for SECONDS.
	cat > "$TMP/in-subtree" <<'SCRIPT'
#!/bin/sh
cg=$1 sub=$2 secs=$3 prog=$4
shift 4
echo $$ > "$cg/cgroup.procs" || exit 1
exec "$@" sh -c 'mkdir -p "$1" && echo $$ > "$1/cgroup.procs" && exec timeout "$2" "$3" /dev/zero' \
	sh "$cg/$sub" "$secs" "$prog"
SCRIPT
	chmod 755 "$TMP/in-subtree"
}

# start_claims SECONDS: the user's and the container's processes in the
# cgroups they named, and one in a service of root's.
start_claims() {
	local as_user="setpriv --reuid=4242 --regid=4242 --clear-groups"
	"$TMP/in-subtree" "$CG/$BASE" foo.service "$1" md5sum &
	pids+=($!)
	"$TMP/in-subtree" "$CG/$BASE/build.service" sshd.service "$1" sha1sum $as_user &
	pids+=($!)
	"$TMP/in-subtree" "$CG/$BASE/build.service" "docker-$ID.scope" "$1" sha256sum $as_user &
	pids+=($!)
	"$TMP/in-subtree" "$CG/$BASE/docker-$ID2.scope" "docker-$ID.scope" "$1" sha512sum &
	pids+=($!)
	"$TMP/in-subtree" "$CG/$BASE/pod.scope" sshd.service "$1" b2sum &
	pids+=($!)
}

# labels_of CGROUP: the labels the pprof profile gives the samples of
# CGROUP (a path below $BASE) but its cgroup and comm, one line per
# distinct set; nothing if it has no samples.
labels_of() {
	grep -F "cgroup:[/$BASE/$1] " "$TMP/labels" |
		sed 's/^ *cgroup:\[[^]]*\] comm:\[[^]]*\] *//' | sort -u
}

check_claims() {
	prof-symbolize --format=pprof -o "$TMP/p.pb.gz" "$TMP/cap.prof"
	go tool pprof -raw -symbolize=none "$TMP/p.pb.gz" | grep -F "cgroup:[/$BASE/" > "$TMP/labels"
	sort -u "$TMP/labels"
	# Root's own service keeps its unit.
	[ "$(labels_of foo.service)" = "systemd_unit:[foo.service]" ]
	# The user's cgroups are the delegated service's, whatever their
	# names; the cgroup label is the path as it is.
	[ "$(labels_of build.service/sshd.service)" = "systemd_unit:[build.service]" ]
	[ "$(labels_of "build.service/docker-$ID.scope")" = "systemd_unit:[build.service]" ]
	# The container's scope is its own (root made it), and what the
	# container made below it, another container's name included, is in
	# that container.
	[ "$(labels_of "docker-$ID2.scope/docker-$ID.scope")" = \
		"container_id:[$ID2] systemd_unit:[docker-$ID2.scope]" ]
	[ "$(labels_of pod.scope/sshd.service)" = "systemd_unit:[pod.scope]" ]
	run ! grep -qF "container_id:[$ID]" "$TMP/labels"
	run ! grep -qF "systemd_unit:[sshd.service]" "$TMP/labels"
}

@test "a delegated cgroup's names claim no other service or container (processes running at the start)" {
	command -v go >/dev/null || { echo "go (golang-go) not installed: run .ci/setup" >&2; false; }
	delegated_tree
	# Until teardown: the capture starts when it can, on a slow build.
	start_claims 60
	sleep 0.5
	# Each process is sampled whatever the load (at 999 Hz: the frames
	# pointers' unwinding is the cheapest, and no stack is looked at).
	sample_lossy -a -F 999 --unwind=fp -d 2 -o "$TMP/cap.prof"
	check_claims
}

@test "a delegated cgroup's names claim no other service or container (processes met after privilege is given up)" {
	command -v go >/dev/null || { echo "go (golang-go) not installed: run .ci/setup" >&2; false; }
	delegated_tree
	# The container runs before the capture, so prof-sample saw its
	# scope's mark while it could read it.
	sh -c 'echo $$ > "$1/cgroup.procs" && exec sleep 30' sh "$CG/$BASE/docker-$ID2.scope" &
	pids+=($!)
	sleep 0.2
	# A command runs once prof-sample has given up privilege: the
	# processes it starts are first met as nobody.
	export -f start_claims
	export TMP CG BASE ID ID2
	prof-sample -a -F 999 --unwind=fp -o "$TMP/cap.prof" -- bash -c 'pids=(); start_claims 2; wait'
	check_claims
}
