#!/usr/bin/env bats
# prof-svg without a browser: structure, widths, colours, escaping, options.

bats_require_minimum_version 1.5.0

FIX="$BATS_TEST_DIRNAME/fixtures/svg"
SCRIPT="$BATS_TEST_DIRNAME/../prof-svg/flamegraph.js"
INPUTS="${PROF_CORPUS:-}/inferno/flamegraph-inputs"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

need_corpus() {
	[ -d "$INPUTS" ] || skip "corpus not found at $INPUTS (set PROF_CORPUS)"
}

# frames FILE: one line per frame: "data-x data-w depth rect-x rect-width fill|title"
frames() {
	awk '/^<g class="f/ {
		match($0, /data-x="[^"]*"/); x = substr($0, RSTART + 8, RLENGTH - 9)
		match($0, /data-w="[^"]*"/); w = substr($0, RSTART + 8, RLENGTH - 9)
		match($0, /data-d="[^"]*"/); d = substr($0, RSTART + 8, RLENGTH - 9)
		match($0, /<rect x="[^"]*"/); rx = substr($0, RSTART + 9, RLENGTH - 10)
		match($0, / width="[^"]*"/); rw = substr($0, RSTART + 8, RLENGTH - 9)
		match($0, /fill="[^"]*"/); fill = substr($0, RSTART + 6, RLENGTH - 7)
		match($0, /<title>[^<]*</); t = substr($0, RSTART + 7, RLENGTH - 8)
		print x, w, d, rx, rw, fill "|" t
	}' "$1"
}

@test "--help and --version exit 0, a bad option exits 2" {
	run prof-svg --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--minwidth"* ]]
	run prof-svg --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^prof-svg\ [0-9] ]]
	run prof-svg --no-such-option
	[ "$status" -eq 2 ]
	run prof-svg --colors nosuchpalette "$FIX/simple.folded"
	[ "$status" -eq 2 ]
	run prof-svg --diff "$FIX/before.folded"
	[ "$status" -eq 2 ]
}

@test "a simple profile is a well-formed SVG with one frame per merged node" {
	run prof-svg -o "$TMP/s.svg" "$FIX/simple.folded"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	xmllint --noout "$TMP/s.svg"
	# all demo main work burn spin idle other run
	[ "$(grep -c '^<g class="f"' "$TMP/s.svg")" -eq 9 ]
	grep -q '<title>all (200 samples, 100.00%)</title>' "$TMP/s.svg"
	grep -q '<title>work (80 samples, 40.00%)</title>' "$TMP/s.svg"
	grep -q '<title>burn (60 samples, 30.00%)</title>' "$TMP/s.svg"
	# No external references: no http(s) URL except XML namespaces.
	[ "$(grep -o 'https\?://[^" ]*' "$TMP/s.svg" | grep -vc 'www.w3.org/\(2000/svg\|1999/xlink\)')" -eq 0 ]
}

@test "rectangle widths are proportional to counts within rounding" {
	prof-svg "$FIX/simple.folded" > "$TMP/s.svg"
	frames "$TMP/s.svg" > "$TMP/f"
	[ "$(wc -l < "$TMP/f")" -eq 9 ]
	# 1180 px for 200 samples
	awk '{ want = $2 * 1180 / 200; d = $5 - want; if (d < -0.006 || d > 0.006) { print "bad width: " $0; bad = 1 } }
	     END { exit bad }' "$TMP/f"
	awk '{ want = 10 + $1 * 1180 / 200; d = $4 - want; if (d < -0.006 || d > 0.006) { print "bad x: " $0; bad = 1 } }
	     END { exit bad }' "$TMP/f"
}

@test "children are sorted by name and self time comes first, as in flamegraph.pl" {
	prof-svg "$FIX/simple.folded" > "$TMP/s.svg"
	frames "$TMP/s.svg" > "$TMP/f"
	# demo (x 0) before other (x 100); under main (x 0): self 10, idle at 10, work at 20
	grep -q '^0 100 1 .*|demo ' "$TMP/f"
	grep -q '^100 100 1 .*|other ' "$TMP/f"
	grep -q '^10 10 3 .*|idle ' "$TMP/f"
	grep -q '^20 80 3 .*|work ' "$TMP/f"
	grep -q '^20 60 4 .*|burn ' "$TMP/f"
	grep -q '^80 20 4 .*|spin ' "$TMP/f"
}

@test "the output is deterministic and independent of input order" {
	need_corpus
	f="$INPUTS/unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt"
	prof-svg "$f" > "$TMP/a.svg"
	prof-svg "$f" > "$TMP/b.svg"
	cmp "$TMP/a.svg" "$TMP/b.svg"
	LC_ALL=C sort "$f" | prof-svg > "$TMP/c.svg"
	cmp "$TMP/a.svg" "$TMP/c.svg"
	tac "$f" | prof-svg > "$TMP/d.svg"
	cmp "$TMP/a.svg" "$TMP/d.svg"
	xmllint --noout "$TMP/a.svg"
}

@test "repeated stacks and several input files are summed" {
	cat "$FIX/simple.folded" "$FIX/simple.folded" > "$TMP/twice.folded"
	prof-svg "$TMP/twice.folded" > "$TMP/a.svg"
	prof-svg "$FIX/simple.folded" "$FIX/simple.folded" > "$TMP/b.svg"
	cmp "$TMP/a.svg" "$TMP/b.svg"
	grep -q '<title>all (400 samples, 100.00%)</title>' "$TMP/a.svg"
}

@test "--minwidth omits narrow frames (pixels and percent)" {
	prof-svg --minwidth 150 "$FIX/simple.folded" > "$TMP/a.svg"
	frames "$TMP/a.svg" > "$TMP/f"
	# 150 px = 25.4 samples: idle (10) and spin (20) go
	[ "$(wc -l < "$TMP/f")" -eq 7 ]
	run ! grep -q '|idle ' "$TMP/f"
	run ! grep -q '|spin ' "$TMP/f"
	prof-svg --minwidth 12% "$FIX/simple.folded" > "$TMP/b.svg"
	frames "$TMP/b.svg" > "$TMP/g"
	# 12% = 24 samples: idle and spin go, work (80) stays
	[ "$(wc -l < "$TMP/g")" -eq 7 ]
	grep -q '|work ' "$TMP/g"
}

@test "hostile frame names are escaped and cannot break out of text or CDATA" {
	prof-svg "$FIX/hostile.folded" > "$TMP/h.svg"
	xmllint --noout "$TMP/h.svg"
	# Only our own script and style elements exist.
	[ "$(grep -c '<script' "$TMP/h.svg")" -eq 2 ]
	[ "$(grep -o '<img' "$TMP/h.svg" | wc -l)" -eq 0 ]
	# The only CDATA ends are ours (style, configuration, script).
	[ "$(grep -o ']]>' "$TMP/h.svg" | wc -l)" -eq 3 ]
	grep -q '&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; (5 samples' "$TMP/h.svg"
	grep -q 'x]]&gt;y&lt;z&amp;w (3 samples' "$TMP/h.svg"
	grep -q '&quot;quoted&quot; and &#39;single&#39;' "$TMP/h.svg"
	# The parsed document holds the names as text.
	[ "$(xmllint --xpath 'count(//*[local-name()="script"])' "$TMP/h.svg")" -eq 2 ]
	xmllint --xpath 'string(//*[local-name()="title"][starts-with(., "&lt;/script")])' "$TMP/h.svg" >/dev/null
}

@test "the SVG's script is prof-svg/flamegraph.js, byte for byte" {
	prof-svg "$FIX/simple.folded" > "$TMP/s.svg"
	# The script element's text is the CDATA section: a newline, the
	# script; xmllint ends what it prints with another.
	xmllint --xpath 'string((//*[local-name()="script"])[2])' "$TMP/s.svg" > "$TMP/script"
	{ echo; cat "$SCRIPT"; echo; } | cmp - "$TMP/script"
}

@test "prof-svg/flamegraph.js is valid JavaScript" {
	command -v node >/dev/null || skip "node is not installed (.ci/setup installs it with npm)"
	node --check "$SCRIPT"
}

@test "titles, notes and name attributes are escaped too" {
	printf 'demo\tclass=a"b\ttitle=<b>t</b>\thref=javascript:alert(1)\tg_extra=onclick="alert(1)" stroke="red"\n' > "$TMP/attr"
	run prof-svg --title '<script>alert(1)</script>' --subtitle ']]>"' --notes '--><script>x</script>' \
		--nameattr "$TMP/attr" --countname '<b>' --nametype '"><x' -o "$TMP/t.svg" "$FIX/simple.folded"
	[ "$status" -eq 1 ]
	[[ "$output" == *"unsafe href"* ]]
	[[ "$output" == *"unsafe or malformed"* ]]
	xmllint --noout "$TMP/t.svg"
	[ "$(grep -c '<script' "$TMP/t.svg")" -eq 2 ]
	[ "$(grep -o ']]>' "$TMP/t.svg" | wc -l)" -eq 3 ]
	run ! grep -q 'onclick' "$TMP/t.svg"
	run ! grep -q 'javascript:' "$TMP/t.svg"
	grep -q 'stroke="red"' "$TMP/t.svg"
	grep -q 'class="f a&quot;b"' "$TMP/t.svg"
	grep -q '&lt;script&gt;alert(1)&lt;/script&gt;</text>' "$TMP/t.svg"
}

@test "bytes that are not UTF-8 and control characters become U+FFFD" {
	prof-svg "$FIX/bytes.folded" > "$TMP/b.svg"
	xmllint --noout "$TMP/b.svg"
	grep -q $'bad\xef\xbf\xbdctl' "$TMP/b.svg"
	grep -q $'\xef\xbf\xbd\xef\xbf\xbdinvalid' "$TMP/b.svg"
	grep -q $'caf\xc3\xa9 (3 samples' "$TMP/b.svg"
}

@test "empty input gives a valid SVG that says so, and exit status 2" {
	run prof-svg -o "$TMP/e.svg" /dev/null
	[ "$status" -eq 2 ]
	[[ "$output" == *"no stack counts found"* ]]
	xmllint --noout "$TMP/e.svg"
	grep -q 'No stack counts found' "$TMP/e.svg"
	printf '\n\n' | prof-svg > "$TMP/e2.svg" || [ $? -eq 2 ]
	grep -q 'No stack counts found' "$TMP/e2.svg"
}

@test "prof-fold's unit line '[count: UNIT] 0' names the count and draws no frame" {
	{ echo '[count: cycles] 0'; cat "$FIX/simple.folded"; } > "$TMP/u.folded"
	run --separate-stderr prof-svg -o "$TMP/u.svg" "$TMP/u.folded"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	xmllint --noout "$TMP/u.svg"
	# The same nine frames as without it, their counts named cycles.
	[ "$(grep -c '^<g class="f"' "$TMP/u.svg")" -eq 9 ]
	grep -q '<title>all (200 cycles, 100.00%)</title>' "$TMP/u.svg"
	grep -q '<title>work (80 cycles, 40.00%)</title>' "$TMP/u.svg"
	run ! grep -qF 'count: cycles' "$TMP/u.svg"
	prof-svg --countname cycles "$FIX/simple.folded" | cmp - "$TMP/u.svg"
	# Alone it is no stack count.
	run --separate-stderr prof-svg -o "$TMP/e.svg" <(echo '[count: cycles] 0')
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"no stack counts found" ]]
	grep -q 'No stack counts found' "$TMP/e.svg"
	# A line like it that counts something is a frame like any other.
	printf '[count: cycles] 5\na 5\n' | prof-svg > "$TMP/f.svg"
	grep -qF '<title>[count: cycles] (5 samples, 50.00%)</title>' "$TMP/f.svg"
	grep -qF '<title>all (10 samples, 100.00%)</title>' "$TMP/f.svg"
}

@test "bad lines are skipped, counted, located, and give exit status 1" {
	need_corpus
	run prof-svg -o "$TMP/b.svg" "$INPUTS/bad-lines/bad-lines.txt"
	[ "$status" -eq 1 ]
	[[ "$output" == "prof-svg: $INPUTS/bad-lines/bad-lines.txt:3: skipped 2 lines"* ]]
	xmllint --noout "$TMP/b.svg"
	# 31+6+1+19+2+274+274 samples from the good lines
	grep -q '<title>all (607 samples, 100.00%)</title>' "$TMP/b.svg"
}

@test "stdin, -o FILE, and a write error" {
	prof-svg < "$FIX/simple.folded" > "$TMP/a.svg"
	prof-svg -o "$TMP/b.svg" - < "$FIX/simple.folded"
	cmp "$TMP/a.svg" "$TMP/b.svg"
	run prof-svg -o /dev/full "$FIX/simple.folded"
	[ "$status" -ne 0 ]
	[[ "$output" == *"write error"* ]]
	run prof-svg "$TMP/does-not-exist"
	[ "$status" -eq 2 ]
	[[ "$output" == *"does-not-exist"* ]]
}

@test "colours are deterministic per name and within the hot palette" {
	prof-svg "$FIX/simple.folded" > "$TMP/s.svg"
	frames "$TMP/s.svg" > "$TMP/f"
	# the same name has the same colour in another graph
	c1=$(grep '|burn ' "$TMP/f" | awk '{print $6}' | cut -d'|' -f1)
	printf 'x;burn 3\ny 4\n' | prof-svg > "$TMP/o.svg"
	c2=$(frames "$TMP/o.svg" | grep '|burn ' | awk '{print $6}' | cut -d'|' -f1)
	[ -n "$c1" ]
	[ "$c1" = "$c2" ]
	# hot: r 205-255, g 0-230, b 0-55
	cut -d' ' -f6 "$TMP/f" | cut -d'|' -f1 | tr -d 'rgb()' | awk -F, '
		$1 < 205 || $1 > 255 || $2 > 230 || $3 > 55 { print "not hot: " $0; bad = 1 } END { exit bad }'
}

@test "annotated frames are coloured by kind, with a legend" {
	prof-svg "$FIX/kinds.folded" > "$TMP/k.svg"
	xmllint --noout "$TMP/k.svg"
	frames "$TMP/k.svg" > "$TMP/f"
	# names are shown without the annotation
	grep -q '|sys_read (5 samples' "$TMP/f"
	# kernel: orange (b 0), JIT: green (g >= 200, r < 120), inlined: aqua (g = b >= 165)
	grep '|sys_read ' "$TMP/f" | grep -q 'rgb([0-9]*,[0-9]*,0)|'
	grep '|Interp ' "$TMP/f" | awk '{ split($6, a, /[(,)]/); ok = a[3] >= 200 && a[2] < 120 } END { exit !ok }'
	grep '|inl ' "$TMP/f" | awk '{ split($6, a, /[(,)]/); ok = a[3] == a[4] && a[3] >= 165 } END { exit !ok }'
	grep -q '<g id="legend">' "$TMP/k.svg"
	for k in user kernel JIT inlined; do grep -q ">$k</text>" "$TMP/k.svg"; done
	prof-svg "$FIX/simple.folded" > "$TMP/s.svg"
	run ! grep -q '<g id="legend">' "$TMP/s.svg"
}

@test "fractional counts are accepted" {
	need_corpus
	run prof-svg -o "$TMP/f.svg" "$INPUTS/fractional-samples/fractional.txt"
	[ "$status" -eq 0 ]
	xmllint --noout "$TMP/f.svg"
	grep -q '(31.23 samples' "$TMP/f.svg"
	prof-svg "$INPUTS/fractional-samples/zero-fractionals.txt" > "$TMP/z.svg"
	prof-svg "$INPUTS/fractional-samples/no-fractionals.txt" > "$TMP/n.svg"
	cmp "$TMP/z.svg" "$TMP/n.svg"
}

@test "every corpus input renders to well-formed XML" {
	need_corpus
	for f in "$INPUTS"/*/*.txt; do
		case $f in */nameattr/*|*/empty/*) continue ;; esac
		prof-svg "$f" > "$TMP/x.svg" 2>/dev/null || [ $? -eq 1 ]
		xmllint --noout "$TMP/x.svg" || { echo "not well-formed: $f"; return 1; }
	done
}

@test "--maxframes bounds the frames drawn by default; --minwidth overrides it" {
	prof-svg --maxframes 5 "$FIX/simple.folded" > "$TMP/a.svg"
	xmllint --noout "$TMP/a.svg"
	frames "$TMP/a.svg" > "$TMP/f"
	# counts 200 100 100 100 100 | 80 60 20 10: the five widest
	[ "$(wc -l < "$TMP/f")" -eq 5 ]
	run ! grep -q '|work ' "$TMP/f"
	grep -q '<!-- 4 frames narrower than 472.00 px are not drawn' "$TMP/a.svg"
	# ties are kept or dropped together: 4 would split the 100s
	[ "$(prof-svg --maxframes 4 "$FIX/simple.folded" | grep -c '^<g class="f')" -eq 1 ]
	[ "$(prof-svg --maxframes 5 --minwidth 0 "$FIX/simple.folded" | grep -c '^<g class="f')" -eq 9 ]
	[ "$(prof-svg --maxframes 0 "$FIX/simple.folded" | grep -c '^<g class="f')" -eq 9 ]
}

# same_as_tree FILE OPTS...: prof-svg draws FILE, read as a stream when
# it is sorted, as it draws it from a pipe, which it reads into a tree.
same_as_tree() {
	local f=$1
	shift
	prof-svg "$@" "$f" > "$TMP/stream.svg" 2> "$TMP/stream.err" || [ $? -eq 1 ]
	prof-svg "$@" < "$f" > "$TMP/stdin.svg" 2>/dev/null || [ $? -eq 1 ]
	cat "$f" | prof-svg "$@" > "$TMP/tree.svg" 2> "$TMP/tree.err" || [ $? -eq 1 ]
	cmp "$TMP/stream.svg" "$TMP/tree.svg" || { echo "differs from the tree's: $f $*"; return 1; }
	cmp "$TMP/stdin.svg" "$TMP/tree.svg" || { echo "differs from the tree's: < $f $*"; return 1; }
	sed 's/^prof-svg: [^:]*:/prof-svg: X:/' "$TMP/stream.err" > "$TMP/a.err"
	sed 's/^prof-svg: [^:]*:/prof-svg: X:/' "$TMP/tree.err" > "$TMP/b.err"
	cmp "$TMP/a.err" "$TMP/b.err" || { echo "says otherwise than the tree: $f $*"; return 1; }
}

@test "a sorted file is drawn as a stream, byte for byte the tree's graph" {
	need_corpus
	# Names that sort before the sibling they come after ("f" after
	# "f [clone .cold]"), a frame that ends stacks before such siblings
	# and has children after them, nested ones; stacks of the root
	# alone; blocked time; and inputs that only the tree draws: a frame
	# that comes again after its siblings, a stack ending at a frame
	# after its children's, an empty name, decimals, 2^53.
	printf 'S;a 5\nS;ep [clone .c] 12\nS;ep;x 3\nS;z 1\n' > "$TMP/clone.folded"
	printf 'x;f 4\nx;f [c] 3\nx;f [c] x 2\nx;f [c];k 1\nx;f;g 5\nx;f;h 1\nx;g 2\n' > "$TMP/again.folded"
	printf 'x;f.a 1\nx;f.b 2\nx;f;g 3\nx;f 1\n' > "$TMP/self-after.folded"
	printf ' 3\na;b 1\n' > "$TMP/root.folded"
	printf 'p;[off-cpu];q 5\np;[off-cpu];q_[w];r_[w] 2\np;s 3\n' > "$TMP/blocked.folded"
	printf 'a 5\na.b;x 3\na;b 4\n' > "$TMP/twice.folded"
	printf 'a;;b 1\na;b 2\n;x 3\n' > "$TMP/empty.folded"
	printf 'a;b 1.5\na;c 2.25\n' > "$TMP/decimal.folded"
	printf 'a;b 9007199254740993\na;c 1\n' > "$TMP/big.folded"
	# A frame continued after its clones, thousands of times, then
	# frames the budget draws; and a budget of 5 with such frames (a
	# review's find: the continued frames' counts raised the budget).
	for i in $(seq 1000 3499); do
		printf 'm;f%s 10\nm;f%s [clone .cold] 1\nm;f%s;g 1\n' "$i" "$i" "$i"
	done > "$TMP/continued.folded"
	seq -f 'm;h%g 10' 1000 1999 >> "$TMP/continued.folded"
	printf 'a 1\na! 0\na;y 0\nb 1\nb! 0\nb;y 0\nc 1\nc! 0\nc;y 0\nz 1\n' > "$TMP/budget5.folded"
	# A time line after the last stack: the tree warns of the stacks
	# before it.
	printf 'a;b 3\na;c 4\n[time: 1.0 1.0] 0\n' > "$TMP/timed-last.folded"
	# An empty name kept first (UBSan: a copy from nowhere).
	printf ';a 20\n;b 20\n' > "$TMP/empty-first.folded"
	# Deeper than the stream's first room for frames (a fuzzer's find).
	{ seq -f 'f%g' 300 | paste -sd';'; echo ' 1'; echo 'f1;g 2'; } | paste -d '' - - > "$TMP/deep.folded"
	"$PROF_WORKLOADS/gen_cxx_stacks" 20000 > "$TMP/cxx.folded"
	for f in "$TMP"/*.folded "$INPUTS"/*/*.txt "$PROF_CORPUS"/flamegraph/expected/*collapsed*.txt; do
		case $f in */nameattr/*|*/empty/*|*/differential/*) continue ;; esac
		same_as_tree "$f"
	done
	same_as_tree "$TMP/budget5.folded" --maxframes 5
	same_as_tree "$TMP/empty-first.folded" --total 100 --minwidth 30%
	for o in "--minwidth 0" "--maxframes 50" "--inverted --colors java" "--hash --minwidth 2%" \
	    "--total 100000000" "--maxframes 0 --width 600"; do
		for f in "$TMP/cxx.folded" "$TMP/clone.folded" "$TMP/again.folded" "$TMP/blocked.folded"; do
			# shellcheck disable=SC2086
			same_as_tree "$f" $o
		done
	done
}

@test "a sorted file is drawn in a fraction of the tree's memory" {
	"$PROF_WORKLOADS/gen_cxx_stacks" 50000 > "$TMP/cxx.folded"
	/usr/bin/time -f %M -o "$TMP/stream.kb" prof-svg -o /dev/null "$TMP/cxx.folded"
	cat "$TMP/cxx.folded" | /usr/bin/time -f %M -o "$TMP/tree.kb" prof-svg -o /dev/null
	stream=$(cat "$TMP/stream.kb") tree=$(cat "$TMP/tree.kb")
	echo "peak RSS: $stream KiB as a stream, $tree KiB from the tree"
	[ $((stream * 2)) -lt "$tree" ]
}

@test "a sorted file whose frames may all be drawn takes the tree's memory, not a copy of each name" {
	# 20,000 frames of one 2 KB name under distinct parents, counts
	# rising: each could be drawn when it ends.  (A review's find: 113 MB
	# as a stream, 12.6 MB as a tree, on 50,000.)
	python3 -c '
import sys
name = "std::function<void()>::operator()" + "x" * 2000
c = 100000.0
for i in range(20000):
    sys.stdout.write("r%06d;%s %d\n" % (i, name, int(c)))
    c *= 1.0001' > "$TMP/long.folded"
	# (ASan holds freed memory back: the stream's, given up, would count
	# with the tree's.)
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
	/usr/bin/time -f %M -o "$TMP/stream.kb" prof-svg -o "$TMP/a.svg" "$TMP/long.folded"
	cat "$TMP/long.folded" | /usr/bin/time -f %M -o "$TMP/tree.kb" prof-svg -o "$TMP/b.svg"
	cmp "$TMP/a.svg" "$TMP/b.svg"
	stream=$(cat "$TMP/stream.kb") tree=$(cat "$TMP/tree.kb")
	echo "peak RSS: $stream KiB from the file, $tree KiB from a pipe"
	# The stream gives up at 16 MiB, and the tree takes over.
	[ "$stream" -lt $((tree + 24 * 1024)) ]
}
