#!/usr/bin/env bats
# What a capture can make prof-symbolize spend (issue 28, finding 5):
# stacks of millions of frames, named by many SAMPLE records; a stack
# resolved anew in as many process states as records can make; and the
# frames and pprof profiles made of them.  Memory must stay bounded
# whatever the capture, and what was cut must be said.  Offline: the
# captures are written by hand, as whoever crafts one would.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	TMP=$(mktemp -d)
	unset DEBUGINFOD_URLS
	export PROF_BUILD_ID_DIR="$TMP/build-id"
	# The capture's files are looked for here, where there are none: no
	# file of this host is opened.
	mkdir "$TMP/root"
	SYM=(prof-symbolize --sysroot "$TMP/root" --no-debuginfod)
	# A sanitizer build holds up to 256 MB of freed memory to catch its
	# use (its quarantine): not the program's memory, which is measured.
	export ASAN_OPTIONS=quarantine_size_mb=16
}

teardown() {
	rm -rf "$TMP"
}

# capture MODE FRAMES N: a capture (1.4) on stdout: INFO, one user STACK
# (id 1) of FRAMES frames, then by MODE: "tid", N SAMPLE records of
# process 7 naming it, each of a thread of its own; "pid", two SAMPLE
# records each of N processes; "map", N times a MAP record of process 7
# over the stack's addresses, each starting a byte lower, and a SAMPLE;
# then END.
capture() {
	perl -e '
		my ($mode, $frames, $n) = @ARGV;
		sub rec { print pack("VV", $_[0], length $_[1]), $_[1] }
		sub str { pack("v", length $_[0]) . $_[0] }
		sub sample { rec(6, pack("VVVVQ<Q<", $_[0], $_[1], 0, 1, 1, 0)) }
		binmode STDOUT;
		print "PROFCAP\0", pack("vvV", 1, 4, 0);
		rec(1, pack("Q<VQ<V", 0, 99, 0, 1) . str("cpu-clock") . str("host") . str("6.1.0") .
		       str(""));
		rec(5, pack("VV", 1, $frames) . pack("Q<*", map { 0x400000 + 16 * $_ } 1 .. $frames));
		for my $i (1 .. $n) {
			if ($mode eq "tid") {
				sample(7, 1000 + $i);
			} elsif ($mode eq "pid") {
				sample(1000 + $i, 1000 + $i) for 1 .. 2;
			} else {
				rec(3, pack("VQ<Q<Q<Q<Q<C", 7, 0x400000 - $i, 0x400000 + 16 * ($frames + 1),
					    0, 0, 0, 0) . str("/x"));
				sample(7, 7);
			}
		}
		my $samples = $mode eq "pid" ? 2 * $n : $n;
		rec(8, pack("Q<Q<Q<VQ<", 1, $samples, 0, 1, $samples));
	' "$@"
}

# peak_rss CMD...: runs CMD (run's status and output); its peak RSS in
# KiB in $RSS.
peak_rss() {
	run --separate-stderr /usr/bin/time -q -f 'rss %M' "$@"
	RSS=$(sed -n 's/^rss //p' <<<"$stderr" | tail -1)
	stderr=$(grep -v '^rss ' <<<"$stderr" || true)
	echo "$* : peak RSS $RSS KiB"
}

@test "a 2M-frame stack named by 4, 48 and 1000 samples: cut at 127 frames, said, in bounded memory" {
	# Before: 320 MB at 4 samples, 1.1 GB at 48, 17.5 MB more for each;
	# 80 MB of frames each.  Now what is held is the 16 MiB record being
	# read, the stack's 127 frames and about 100 bytes a sample: 100 MiB
	# leaves room for a sanitizer build, and is far below the 320 MB.
	local n want
	for n in 4 48 1000; do
		capture tid 2000000 "$n" > "$TMP/cap.prof"
		want="$TMP/cap.prof: 1 stacks deeper than 127 frames cut there (1999873 frames toward their roots left out)"

		peak_rss "${SYM[@]}" --format=pprof -o "$TMP/out.pb.gz" "$TMP/cap.prof"
		[ "$status" -eq 1 ]
		[ "$stderr" = "prof-symbolize: $want" ]
		[ "$RSS" -lt $((100 * 1024)) ]
		gzip -t "$TMP/out.pb.gz"

		peak_rss "${SYM[@]}" -o "$TMP/out.txt" "$TMP/cap.prof"
		[ "$status" -eq 1 ]
		[ "$stderr" = "prof-symbolize: $want" ]
		[ "$RSS" -lt $((100 * 1024)) ]
		# Each sample has the 127 frames nearest the leaf, and no more.
		[ "$(grep -c '^	' "$TMP/out.txt")" -eq $((127 * n)) ]
		[ "$(grep -c '^	 *400010 ' "$TMP/out.txt")" -eq "$n" ]
		[ "$(grep -c '^	 *4007f0 ' "$TMP/out.txt")" -eq "$n" ]
		[ "$(grep -c '^	 *400800 ' "$TMP/out.txt")" -eq 0 ]
	done
	command -v go > /dev/null || return 0
	# The profile as pprof's own reader sees it: 1000 samples of one
	# thread each, every one 127 locations deep.
	export HOME="$TMP/home" GOCACHE="$TMP/home/gocache"
	go tool pprof -raw -symbolize=none "$TMP/out.pb.gz" > "$TMP/raw"
	[ "$(grep -c 'pid:\[7\] tid:\[[0-9]*\]' "$TMP/raw")" -eq 1000 ]
	[ "$(awk '/^Samples:/ { s = 1 } /^Locations/ { s = 0 }
		  s && / [0-9]+: / { sub(/.*: /, ""); if (NF != 127) bad++; n++ }
		  END { print n + 0, bad + 0 }' "$TMP/raw")" = "1000 0" ]
}

@test "330,000 samples of one 127-frame stack, each of its own thread: a sample is not a copy of its stack" {
	# Each distinct sample held its own copy of its 127 location ids, and
	# the encoded profile was held whole: 430 MB for this 16 MB capture.
	# Now a sample is its labels and its stacks' ids, about 100 bytes
	# (35 MB in all), and the profile is compressed as it is encoded.
	capture tid 127 330000 > "$TMP/cap.prof"
	peak_rss "${SYM[@]}" --format=pprof -o "$TMP/out.pb.gz" "$TMP/cap.prof"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$RSS" -lt $((112 * 1024)) ]
	gzip -t "$TMP/out.pb.gz"
}

@test "stacks as deep as prof-sample writes are read whole; one frame more is cut and said" {
	capture tid 127 1 > "$TMP/127.prof"
	run --separate-stderr "${SYM[@]}" "$TMP/127.prof"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(grep -c '^	' <<<"$output")" -eq 127 ]
	capture tid 128 1 > "$TMP/128.prof"
	run --separate-stderr "${SYM[@]}" "$TMP/128.prof"
	[ "$status" -eq 1 ]
	[ "$stderr" = "prof-symbolize: $TMP/128.prof: 1 stacks deeper than 127 frames cut there (1 frames toward their roots left out)" ]
	[ "$(grep -c '^	' <<<"$output")" -eq 127 ]
	[ "$(grep -c '^	 *4007f0 ' <<<"$output")" -eq 1 ]
}

@test "a stack resolved anew in each of 38,000 process states: the profile's tables are bounded" {
	# Each MAP record gives process 7 a mapping of its own under the
	# stack, so each SAMPLE after it resolves the stack's 127 frames to
	# 127 new locations: 4.8 million from 4 MB of capture, which the
	# writer held whole before (460 MB).  It holds 2^20 locations at most
	# now (about 90 MB), and the location ids of its stacks and samples
	# are bounded alike: 256 MiB is well above what this needs (156 MiB)
	# and below what it took.  AddressSanitizer's own memory took it to
	# 254 MiB, so a sanitizer build is held to 384.
	local max=$((256 * 1024))
	if nm -D "$PROF_BIN/prof-symbolize" 2>/dev/null | grep -q __asan_init; then
		max=$((384 * 1024))
	fi
	capture map 127 38000 > "$TMP/cap.prof"
	peak_rss "${SYM[@]}" --format=pprof -o "$TMP/out.pb.gz" "$TMP/cap.prof"
	[ "$status" -eq 0 ]
	[ "$stderr" = "prof-symbolize: /x: No such file or directory; its frames stay unresolved" ]
	[ "$RSS" -lt "$max" ]
	gzip -t "$TMP/out.pb.gz"
}

@test "two samples each of 140,000 processes: the frames' cache of stack text is bounded" {
	# A stack's text is cached per process from its second use: 1 GB
	# before for this 13 MB capture.  The cache stops at 64 MiB; the
	# processes' own state is a few hundred bytes each.
	capture pid 127 140000 > "$TMP/cap.prof"
	peak_rss "${SYM[@]}" -o "$TMP/out.txt" "$TMP/cap.prof"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$RSS" -lt $((256 * 1024)) ]
	[ "$(grep -c '^	 *400010 ' "$TMP/out.txt")" -eq 280000 ]
}
