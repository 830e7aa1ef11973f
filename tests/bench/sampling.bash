# Shared by the sampling benchmarks (sample.sh), which set BIN,
# SECS and TMP and define busy(), the load they measure under.  Not a
# benchmark itself: tests/bench/run runs only *.sh.

# cpu_rss CMD...: runs CMD under GNU time; prints "cpu_seconds peak_rss_kb".
cpu_rss() {
	/usr/bin/time -f '%U %S %M' -o "$TMP/time" "$@" >/dev/null 2>"$TMP/stderr"
	awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$TMP/time"
}

# bpf_run_times ARGS...: at 99 and 999 Hz under busy(), the BPF program's
# run time (kernel.bpf_stats_enabled) per sample taken, with prof-sample
# ARGS.  Per sample, not per run: the runs on idle CPUs, which return at
# once, would dilute it.  The counters are read, then prof-sample stopped,
# so the capture's total covers the same runs (but the few of the last ms).
bpf_run_times() {
	local old hz sampler ns cnt taken

	old=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	for hz in 99 999; do
		busy
		"$BIN/prof-sample" -q -F "$hz" "$@" -o "$TMP/runs.prof" 2>/dev/null &
		sampler=$!
		sleep $((SECS - 2))
		bpftool prog show -j 2>/dev/null | awk -v RS='},' '/"name":"sample_(fp|dwarf)"/' |
			sed -nE 's/.*"run_time_ns":([0-9]+).*"run_cnt":([0-9]+).*/\1 \2/p' |
			tail -1 >"$TMP/stats"
		kill -INT "$sampler"
		wait "$sampler"
		wait
		read -r ns cnt <"$TMP/stats"
		taken=$("$BIN/prof-symbolize" "$TMP/runs.prof" 2>/dev/null |
			sed -nE 's/^# capture: taken ([0-9]+),.*/\1/p')
		awk -v hz="$hz" -v ns="${ns:-0}" -v cnt="${cnt:-0}" -v n="${taken:-0}" 'BEGIN {
			printf "  -F %-4s %8d runs, %8d samples, %6.2f us per sample\n", hz, cnt, n,
				(n > 0 ? ns / n / 1000 : 0) }'
	done
	sysctl -qw kernel.bpf_stats_enabled="$old"
}

# compile_load: this project's build, again and again, in a scratch copy
# under $TMP, in the background, in a process group of its own whose id is
# in $load: `kill -- -$load` stops the compilers with the loop.
compile_load() {
	git ls-files -z | tar -c --null -T - | (mkdir "$TMP/src" && tar -x -C "$TMP/src")
	setsid sh -c 'while :; do nice make -s -C "$1/src" BUILD="$1/b" all >/dev/null 2>&1
		rm -rf "$1/b"; done' sh "$TMP" &
	load=$!
}
