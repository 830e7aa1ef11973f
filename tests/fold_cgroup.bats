#!/usr/bin/env bats
# prof-fold --cgroup (docs/FORMATS.md sections 2 and 3): the sample's
# cgroup from its event line, as prof-symbolize writes it and as
# perf script -F +cgroup prints it, becomes the root frame, before the
# process.  The fixtures are described in fixtures/fold-cgroup/README.

bats_require_minimum_version 1.5.0

load fixtures/fold/folds

FIX="$BATS_TEST_DIRNAME/fixtures/fold-cgroup"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

# total FILE: the sum of the counts of folded stacks in FILE.
total() {
	awk '!/^#/ { n += $NF } END { printf "%d\n", n }' "$1"
}

@test "our frames: the cgroup path, spaces and all, is the root; none is [unknown]; ';' is ':'" {
	folds frames-cgroup --cgroup frames.txt
	grep -qxF '/user.slice/user-1000.slice/my app?:x.scope;nginx;main;burn 1000000' \
		"$FIX/expected/frames-cgroup.folded"
	grep -qxF '[unknown];cron;main;pvm_safe_halt_hc 4000000' \
		"$FIX/expected/frames-cgroup.folded"
}

@test "with --pid --tid the cgroup frame comes before the process frame" {
	folds frames-cgroup-pid-tid-kernel --cgroup --pid --tid --kernel frames.txt
	grep -qF '/system.slice/nginx.service;nginx-812/813;main;burn ' \
		"$FIX/expected/frames-cgroup-pid-tid-kernel.folded"
}

@test "off-CPU: the cgroup is the root, [off-cpu] stays after the blocked leaf, wakers after it" {
	run prof-fold --cgroup --filter='\[off-cpu\]' "$FIX/frames.txt"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = '/system.slice/nginx.service;nginx;main;read;schedule;[off-cpu];--;try_to_wake_up_[w];pipe_write_[w];writer_[w] 52000' ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "real perf script output: the cgroup after the event's colon and two spaces" {
	folds perf-cgroup-cgroup --cgroup perf-cgroup.txt
	folds perf-cgroup-cgroup-nocomm-kernel --cgroup --no-comm --kernel perf-cgroup.txt
}

@test "without --cgroup, lines with a cgroup fold exactly as lines without one" {
	sed 's/: \/.*$/:/' "$FIX/frames.txt" > "$TMP/bare.txt"
	prof-fold "$TMP/bare.txt" > "$TMP/bare.folded"
	prof-fold "$FIX/frames.txt" > "$TMP/with.folded"
	diff -u "$TMP/bare.folded" "$TMP/with.folded"
	sed 's/:  \/$/: /' "$FIX/perf-cgroup.txt" > "$TMP/bare-perf.txt"
	run ! grep -q ':  /' "$TMP/bare-perf.txt"
	prof-fold --pid "$TMP/bare-perf.txt" > "$TMP/bare-perf.folded"
	prof-fold --pid "$FIX/perf-cgroup.txt" > "$TMP/with-perf.folded"
	diff -u "$TMP/bare-perf.folded" "$TMP/with-perf.folded"
}

@test "perf's 'unknown' is [unknown]; with and without a cgroup, periods are the counts" {
	cat > "$TMP/in.txt" <<-'IN'
	app 10/10 1.0:        700 cycles:  unknown
	            4005d0 work (/opt/app)

	app 10/10 2.0:        300 cycles:  /system.slice/app.service
	            4005d0 work (/opt/app)

	app 11/11 3.0:         50 cycles: 
	            4005d0 work (/opt/app)
	IN
	run --separate-stderr prof-fold --cgroup --tid "$TMP/in.txt"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "/system.slice/app.service;app-10/10;work 300
[unknown];app-10/10;work 700
[unknown];app-11/11;work 50" ]
}

@test "a capture split into two cgroups sums to the same total as without --cgroup" {
	awk '/cpu-clock:ppp:/ { n++; if (n % 2) sub(/ \/$/, " /system.slice/a b.service") } { print }' \
		"$FIX/perf-cgroup.txt" > "$TMP/split.txt"
	prof-fold --cgroup "$TMP/split.txt" > "$TMP/cg.folded"
	prof-fold "$TMP/split.txt" > "$TMP/plain.folded"
	[ "$(cut -d';' -f1 "$TMP/cg.folded" | grep -v '^#' | sort -u | tr '\n' ,)" = "/,/system.slice/a b.service," ]
	[ "$(total "$TMP/cg.folded")" -eq "$(total "$TMP/plain.folded")" ]
	[ "$(total "$TMP/cg.folded")" -eq 1750000 ]
	# Each stack, its cgroup frame removed, sums as without --cgroup.
	sed 's/^[^;]*;//' "$TMP/cg.folded" | prof-fold --input=folded > "$TMP/merged.folded"
	diff -u "$TMP/plain.folded" "$TMP/merged.folded"
}

@test "repeated frame lines fold alike in every cgroup (the frame cache keys on frames alone)" {
	for i in $(seq 1 200); do
		printf 'app %d/%d 1.0: 1 cpu-clock: /c%d\n\t4005d0 work (/opt/app)\n\t4005e0 main (/opt/app)\n\n' \
			"$i" "$i" "$((i % 3))"
	done > "$TMP/many.txt"
	run --separate-stderr prof-fold --cgroup "$TMP/many.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "/c0;app;main;work 66
/c1;app;main;work 67
/c2;app;main;work 67" ]
}

@test "--cgroup refuses folded input, which has lost its cgroups" {
	printf 'a;b 3\n' > "$TMP/in.folded"
	run --separate-stderr prof-fold --cgroup "$TMP/in.folded"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "prof-fold: $TMP/in.folded:1: --cgroup: folded stacks carry no cgroup (fold the frames or perf script output instead)" ]
}

@test "perf 6.3 to 6.5's cgroup line after the stack is reported, the sample kept as [unknown]" {
	printf 'jpegtran 3321915 404718.587488:\n\t5c554 compress_output\n/idle.slice/polish.service\n\n' > "$TMP/old.txt"
	run --separate-stderr prof-fold --cgroup "$TMP/old.txt"
	[ "$status" -eq 1 ]
	[ "$output" = "[unknown];jpegtran;compress_output 1" ]
	[[ $stderr == "prof-fold: $TMP/old.txt:3: cgroup after the frames (perf 6.3 to 6.5), not on the event line"* ]]
	run prof-fold --cgroup --strict "$TMP/old.txt"
	[ "$status" -eq 2 ]
}

@test "only what follows the event's colon is a cgroup, not a tracepoint's payload" {
	printf 'app 7/7 1.000000: 5 probe:open: path: /etc/passwd\n\tffff open (libc.so.6)\n\n' > "$TMP/tp.txt"
	printf 'app 7/7 1.000000: 5 cycles: /a: b\n\tffff open (libc.so.6)\n\n' > "$TMP/cg.txt"
	run prof-fold --cgroup "$TMP/tp.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "[unknown];app;open 1" ]
	run prof-fold --cgroup "$TMP/cg.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "/a: b;app;open 5" ]
	run prof-fold --cgroup --period-unit "$TMP/cg.txt"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf "[count: cycles] 0\n/a: b;app;open 5")" ]
}

@test "--help lists --cgroup" {
	run prof-fold --help
	[[ $output == *"--cgroup "* ]]
}
