# Shared set-up for the bats files. tests/run exports PROF_BIN (the programs,
# also on PATH), PROF_WORKLOADS and PROF_CORPUS.

# The setup and teardown of a suite that needs no other: each test its own
# directory, and its workload stopped after it.  A suite that needs more
# defines its own after `load helpers`.
setup() {
	TMP=$(mktemp -d)
}

teardown() {
	stop_workload
	stop_jobs
	rm -rf "${TMP:-/nonexistent}"
}

# stop_jobs: ends what a test left running in the background, with the
# children of each (a loop whose kill an assertion failure skipped): bats
# reads its output until every process holding it has gone, so one left
# behind hangs the suite.
stop_jobs() {
	local p
	for p in $(jobs -p); do
		pkill -P "$p" 2>/dev/null
		kill "$p" 2>/dev/null
	done
	return 0
}

# Root-only tests skip, reported, when not root. CI runs as root, so there
# they always run.
require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (BPF)"
}

# start_workload NAME ARGS...: starts a workload in the background; its PID
# is in $WORKLOAD_PID.
start_workload() {
	local name=$1
	shift
	"$PROF_WORKLOADS/$name" "$@" &
	WORKLOAD_PID=$!
}

stop_workload() {
	if [ -n "${WORKLOAD_PID:-}" ]; then
		kill "$WORKLOAD_PID" 2>/dev/null || true
		wait "$WORKLOAD_PID" 2>/dev/null || true
		WORKLOAD_PID=
	fi
}

# lossy_ok STATUS ERRFILE: whether prof-sample's STATUS, with its stderr in
# ERRFILE, is a success where samples lost to a busy machine (the ASan
# build sampling every process beside other suites) are not what a test
# is about: 0, or 1 with the losses said.
lossy_ok() {
	[ "$1" -eq 0 ] || { [ "$1" -eq 1 ] && grep -q '^prof-sample: lost ' "$2"; }
}

# sample_lossy ARGS...: prof-sample ARGS, passing as lossy_ok says.
sample_lossy() {
	local st=0 err
	err=$(mktemp)
	prof-sample "$@" 2> "$err" || st=$?
	cat "$err" >&2
	lossy_ok "$st" "$err" || { rm -f "$err"; return "$st"; }
	rm -f "$err"
}

# sum_counts FILE: the total of the sample counts in symbolized frames.
sum_counts() {
	awk '/^[^#\t]/ && / [0-9]+\.[0-9]+: / { for (i = 1; i <= NF; i++) if ($i ~ /:$/ && $(i+1) ~ /^[0-9]+$/) { s += $(i+1); break } } END { print s + 0 }' "$1"
}

# folded_total FILE [REGEX]: the summed count of folded lines matching REGEX.
folded_total() {
	awk -v re="${2:-.}" '$0 ~ re { s += $NF } END { print s + 0 }' "$1"
}

# proc_ticks PID: CPU time the process has used, in clock ticks (utime +
# stime from /proc/PID/stat; the fields after the last ')').
proc_ticks() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# Sample counts depend on the CPU time the workload got, which a loaded
# machine shares out unpredictably: tests compare samples with the CPU time
# actually used during the capture, not with wall time.
# expected_samples TICKS HZ: the samples HZ sampling should take in TICKS.
expected_samples() {
	echo $(( $1 * $2 / $(getconf CLK_TCK) ))
}

# normalize: a function's name as both perf and prof-symbolize spell it,
# whichever of glibc's aliases each picks (__GI___regexec and
# regexec@@GLIBC_2.3.4, __GI___libc_read and __read): symbol versions,
# .part/.isra/.constprop/.cold clones, __GI_ and leading underscores, a
# libc_ prefix and an _impl suffix go; [brackets] around an unresolved
# file's name too (perf writes [bash], prof-symbolize bash).
normalize() {
	sed -E 's/@@?[A-Z_0-9.]+//g; s/\.(part|isra|constprop|cold)\.[0-9]+//g; s/\[([^];]+)\]/\1/g
		s/(^|;)(__GI_)?_*/\1/g; s/(^|;)libc_/\1/g; s/_impl(;| )/\1/g'
}

# inclusive_shares FOLDED: "function percent" of samples whose stack holds
# the function (once per stack), by decreasing share, the comm left out.
inclusive_shares() {
	normalize <"$1" | awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); t += n
		delete seen; for (i = 2; i <= k; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; c[f[i]] += n } }
		END { for (x in c) printf "%s %.2f\n", x, 100 * c[x] / t }' | sort -k2,2nr
}

# perf_folded PERF_DATA: perf script's samples folded by prof-fold, each
# counted once (its period column is nanoseconds).
perf_folded() {
	perf script -i "$1" -F comm,pid,tid,time,event,ip,sym,dso 2>/dev/null |
		awk '/^[^\t ]/ && !/^#/ { $0 = $1 " " $2 " " $3 " 1 " $4 } { print }' | prof-fold
}

# cap_totals FILE: the file's INFO start_ns, then its END duration_ns,
# samples, lost and taken, read from the records (docs/FORMATS.md, 1).
cap_totals() {
	perl -e '
		open my $f, "<:raw", $ARGV[0] or die "$ARGV[0]: $!";
		my $b = do { local $/; <$f> };
		my ($pos, $start, @end) = (16);
		while ($pos + 8 <= length $b) {
			my ($type, $len) = unpack "VV", substr($b, $pos, 8);
			my $p = substr($b, $pos + 8, $len);
			$start = unpack "Q<", $p if $type == 1;
			@end = unpack "Q<Q<Q<VQ<", $p if $type == 8;
			$pos += 8 + $len;
		}
		print join(" ", $start, @end[0, 1, 2, 4]), "\n";' "$1"
}

# make_cgroup: a cgroup v2 of the test's own, in $CG ($CGROOT its mount).
make_cgroup() {
	CGROOT=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	[ -n "$CGROOT" ] || skip "no cgroup2 mount"
	CG=$CGROOT/prof-test-$$
	mkdir "$CG"
}

# timed_phases FILE: timed folded stacks of a program with phases (as
# tests/workloads/phases.c has them): 1.5 s in "one", 1.5 s in "two", then
# a 200 ms "burst" at the start of each of 3 seconds, a sample every 10 ms,
# and "other" every 70 ms.
timed_phases() {
	awk 'BEGIN {
		for (t = 0; t < 600; t++) {
			printf "[time: %d.%02d0000000 0.010000000] 0\n", t / 100, t % 100
			if (t < 150) print "app;main;one 1"
			else if (t < 300) print "app;main;two 1"
			else if (t % 100 < 20) print "app;main;burst 2"
			if (t % 7 == 0) print "app;main;other 1"
		}
	}' >"$1"
}

# timed_range FILE START END: the stacks of timed folded FILE whose slot
# starts in [START, END) seconds, for the graph of that range alone.
timed_range() {
	awk -v a="$2" -v b="$3" '/^\[time: / { t = $2 + 0; keep = t >= a - 1e-9 && t < b - 1e-9; next } keep' "$1"
}
