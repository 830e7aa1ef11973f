#!/usr/bin/env bats
# prof-svg on off-CPU and wall-clock profiles, without a browser: counts that
# are times, blocked frames, and their legend.

bats_require_minimum_version 1.5.0

FIX="$BATS_TEST_DIRNAME/fixtures/svg"
SCRIPT="$BATS_TEST_DIRNAME/../prof-svg/flamegraph.js"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

# frames FILE: "title|fill" per frame, in document order
frames() {
	sed -n 's/^<g class="f[^>]*><title>\([^<]*\)<\/title>.*<rect [^>]* fill="\([^"]*\)".*/\1|\2/p' "$1"
}

# legend FILE ID: "label=fill" per entry of the legend group ID
legend() {
	grep "^<g id=\"$2\">" "$1" | grep -o 'fill="[^"]*"/><text [^>]*>[^<]*' |
		sed 's/fill="\([^"]*\)".*>\(.*\)/\2=\1/'
}

@test "counts of nanoseconds are shown as times, in the unit that reads best" {
	prof-svg --minwidth 0 -o "$TMP/w.svg" "$FIX/wall.folded"
	xmllint --noout "$TMP/w.svg"
	frames "$TMP/w.svg" > "$TMP/f"
	grep -qxF 'all (1.57 s, 100.00%)|rgb(250,123,123)' "$TMP/f"
	grep -qF 'read (1.52 s, 97.12%)|' "$TMP/f"
	grep -qF 'compute (42.3 ms, 2.70%)|' "$TMP/f"
	grep -qF 'sleep (850 us, 0.05%)|' "$TMP/f"
	grep -qF 'copy_page (420 ns, 0.00%)|' "$TMP/f"
	grep -qF 'spin (2 ms, 0.13%)|' "$TMP/f"
	run ! grep -q 'nanoseconds' "$TMP/f"
	# The script is told what a count is worth, to total its matches.
	grep -qF 'diff: false, ns: 1 };' "$TMP/w.svg"
}

@test "every time unit and its abbreviation is a time; --countname and --factor apply" {
	for u in nanoseconds:1 ns:1 microseconds:1000 us:1000 milliseconds:1000000 ms:1000000 \
		seconds:1000000000 s:1000000000; do
		printf '# count: %s\na 1500\nb 12\n' "${u%:*}" | prof-svg > "$TMP/u.svg"
		# 1512 of the unit, said in ns by fgConf
		grep -qF "ns: ${u#*:} };" "$TMP/u.svg"
		# prof-fold's unit line says the same.
		printf '[count: %s] 0\na 1500\nb 12\n' "${u%:*}" | prof-svg > "$TMP/v.svg"
		cmp "$TMP/u.svg" "$TMP/v.svg"
	done
	printf '[count: ms] 0\na 1500\nb 12\n' | prof-svg > "$TMP/ms.svg"
	grep -qF '<title>all (1.51 s, 100.00%)</title>' "$TMP/ms.svg"
	printf '# count: ms\na 1500\nb 12\n' | prof-svg > "$TMP/ms.svg"
	grep -qF '<title>all (1.51 s, 100.00%)</title>' "$TMP/ms.svg"
	grep -qF '<title>a (1.5 s, 99.21%)</title>' "$TMP/ms.svg"
	grep -qF '<title>b (12 ms, 0.79%)</title>' "$TMP/ms.svg"
	printf 'a 1500\nb 12\n' | prof-svg --countname us --factor 1000 > "$TMP/us.svg"
	grep -qF '<title>all (1.51 s, 100.00%)</title>' "$TMP/us.svg"
	grep -qF 'ns: 1000000 };' "$TMP/us.svg"
	# Other names stay counts, as before: no ns in the configuration.
	prof-svg --countname samples "$FIX/wall.folded" > "$TMP/s.svg"
	grep -qF '<title>all (1,565,150,420 samples, 100.00%)</title>' "$TMP/s.svg"
	grep -qF 'diff: false' "$TMP/s.svg"
	[ "$(grep -cF ', ns: ' "$TMP/s.svg")" -eq 0 ]
	printf '# count: cycles\na 1500\n' | prof-svg | grep -qF '<title>a (1,500 cycles, 100.00%)</title>'
	printf '# count: Seconds\na 1500\n' | prof-svg | grep -qF '<title>a (1,500 Seconds, 100.00%)</title>'
	printf '[count: cycles] 0\na 1500\n' | prof-svg | grep -qF '<title>a (1,500 cycles, 100.00%)</title>'
}

@test "prof-fold's off-CPU output, unit line first, draws as the '# count:' form did" {
	# The fixture in the form of earlier versions, and in this one's.
	sed '1s/^# count: nanoseconds$/[count: nanoseconds] 0/' "$FIX/wall.folded" > "$TMP/wall.folded"
	head -1 "$TMP/wall.folded" | grep -qxF '[count: nanoseconds] 0'
	prof-svg --minwidth 0 "$FIX/wall.folded" > "$TMP/old.svg"
	prof-svg --minwidth 0 "$TMP/wall.folded" > "$TMP/new.svg"
	cmp "$TMP/old.svg" "$TMP/new.svg"
	grep -qF '<title>all (1.57 s, 100.00%)</title>' "$TMP/new.svg"
	# And straight from prof-fold: times, with the blocked ones blue.
	prof-fold "$BATS_TEST_DIRNAME/fixtures/fold-offcpu/offcpu.txt" > "$TMP/off.folded"
	head -1 "$TMP/off.folded" | grep -qxF '[count: nanoseconds] 0'
	prof-svg --minwidth 0 "$TMP/off.folded" > "$TMP/off.svg"
	xmllint --noout "$TMP/off.svg"
	frames "$TMP/off.svg" | grep -qE '^\[off-cpu\] \([0-9.]+ (ns|us|ms|s), [0-9.]+%\)\|rgb\(([0-9]+),([0-9]+),2[0-9][0-9]\)$'
	run ! grep -qF 'count: nanoseconds' "$TMP/off.svg"
	grep -qF 'ns: 1 };' "$TMP/off.svg"
}

@test "frames whose whole time is blocked are blue; mixed and on-CPU frames, wakers and -- keep their colours" {
	prof-svg --minwidth 0 -o "$TMP/w.svg" "$FIX/wall.folded"
	frames "$TMP/w.svg" > "$TMP/f"
	# Blocked: the markers, and the frames of stacks that all end in one
	# (the blue shades of their names' hash).
	grep -qxF 'schedule (1.52 s, 97.12%)|rgb(99,99,221)' "$TMP/f"
	grep -qxF '[off-cpu] (1.52 s, 97.12%)|rgb(108,108,228)' "$TMP/f"
	grep -qxF 'sleep (850 us, 0.05%)|rgb(98,98,220)' "$TMP/f"
	grep -qxF '[off-cpu] (850 us, 0.05%)|rgb(108,108,228)' "$TMP/f"
	# Mixed: a kernel frame stays orange, user frames red.
	grep -qxF 'vfs_read (1.52 s, 97.12%)|rgb(253,153,0)' "$TMP/f"
	grep -qxF 'read (1.52 s, 97.12%)|rgb(232,97,97)' "$TMP/f"
	grep -qxF 'main (1.56 s, 99.87%)|rgb(236,103,103)' "$TMP/f"
	# On-CPU, the same name as a blocked frame included.
	grep -qxF 'compute (42.3 ms, 2.70%)|rgb(228,91,91)' "$TMP/f"
	grep -qxF 'copy_page (420 ns, 0.00%)|rgb(225,125,0)' "$TMP/f"
	grep -qxF 'sleep (2 ms, 0.13%)|rgb(217,74,74)' "$TMP/f"
	# Past the marker: the separator grey, the waker's frames yellow.
	grep -qxF -- '-- (20 ms, 1.28%)|rgb(160,160,160)' "$TMP/f"
	grep -qxF 'try_to_wake_up (20 ms, 1.28%)|rgb(199,199,58)' "$TMP/f"
	grep -qxF 'writer (20 ms, 1.28%)|rgb(214,214,64)' "$TMP/f"
	# Nothing else is blue.
	[ "$(grep -c '|rgb(\([0-9]*\),\1,2[0-9][0-9])$' "$TMP/f")" -eq 4 ]
}

@test "--reverse: the blocked thread's frames follow the marker" {
	prof-svg --reverse --minwidth 0 -o "$TMP/r.svg" "$FIX/wall.folded"
	frames "$TMP/r.svg" > "$TMP/f"
	grep -qxF '[off-cpu] (1.5 s, 95.89%)|rgb(108,108,228)' "$TMP/f"
	grep -qxF 'schedule (1.5 s, 95.84%)|rgb(99,99,221)' "$TMP/f"
	# a frame is blocked or not where it is: vfs_read is both here
	grep -qxF 'vfs_read (1.5 s, 95.84%)|rgb(138,138,254)' "$TMP/f"
	grep -qxF 'vfs_read (420 ns, 0.00%)|rgb(253,153,0)' "$TMP/f"
	# the waker's frames come first, then --, the marker, the blocked ones
	grep -qxF 'writer (20 ms, 1.28%)|rgb(214,214,64)' "$TMP/f"
	grep -qxF -- '-- (20 ms, 1.28%)|rgb(160,160,160)' "$TMP/f"
	grep -qxF 'schedule (20 ms, 1.28%)|rgb(99,99,221)' "$TMP/f"
	grep -qxF 'sleep (2 ms, 0.13%)|rgb(217,74,74)' "$TMP/f"
}

@test "a legend names on-CPU, blocked and waker colours, beside the kinds" {
	prof-svg -o "$TMP/w.svg" "$FIX/wall.folded"
	[ "$(legend "$TMP/w.svg" offcpu-legend)" = $'on-CPU=rgb(227,90,90)\noff-CPU (blocked)=rgb(110,110,230)\nwaker=rgb(202,202,60)' ]
	# The kinds legend leaves the wakers to it.
	[ "$(legend "$TMP/w.svg" legend)" = $'user=rgb(227,90,90)\nkernel=rgb(222,122,0)' ]
	# Without waker frames, no waker entry; without other kinds, no kinds legend.
	prof-svg -o "$TMP/o.svg" "$FIX/offcpu.folded"
	[ "$(legend "$TMP/o.svg" offcpu-legend)" = $'on-CPU=rgb(227,90,90)\noff-CPU (blocked)=rgb(110,110,230)' ]
	run ! grep -q '<g id="legend">' "$TMP/o.svg"
	# ... and frames are drawn in their legend entry's colour: user frames red
	frames "$TMP/o.svg" | grep -qxF 'query (2.59 ms, 25.67%)|rgb(215,72,72)'
	# No blocked frames, no off-CPU legend: a waker graph keeps its kinds legend.
	printf 'a;[off-cpux] 3\nb;--;w_[w] 2\n' | prof-svg > "$TMP/n.svg"
	run ! grep -q 'offcpu-legend' "$TMP/n.svg"
	[ "$(legend "$TMP/n.svg" legend)" = $'user=rgb(227,90,90)\nwaker=rgb(202,202,60)' ]
}

@test "palettes without a legend, and differential graphs, colour blocked frames as any other" {
	# Renamed, the marker makes no frame blocked: every other frame keeps
	# its colour, in these palettes only.
	sed 's/\[off-cpu\]/[off-cpx]/' "$FIX/wall.folded" > "$TMP/x.folded"
	for opts in "--colors io" "--colors chain" "--colors red" "--colors perl" "--colors hot"; do
		prof-svg $opts -o "$TMP/a.svg" "$FIX/wall.folded"
		prof-svg $opts -o "$TMP/b.svg" "$TMP/x.folded"
		frames "$TMP/a.svg" | grep -v '^\[off-cpu\]' > "$TMP/a"
		frames "$TMP/b.svg" | grep -v '^\[off-cpx\]' > "$TMP/b"
		if [ "$opts" = "--colors hot" ]; then
			run ! cmp "$TMP/a" "$TMP/b"
			grep -q 'offcpu-legend' "$TMP/a.svg"
		else
			cmp "$TMP/a" "$TMP/b"
			run ! grep -q 'legend' "$TMP/a.svg"
		fi
	done
	prof-svg --diff -o "$TMP/d.svg" "$FIX/offcpu.folded" "$FIX/offcpu.folded"
	run ! grep -q 'legend' "$TMP/d.svg"
	frames "$TMP/d.svg" | grep -qxF 'poll (7.5 ms, 74.33%; 0.00%)|rgb(255,255,255)'
}

@test "the legend sits in its own band: clear of the frames, the title and the buttons" {
	for opts in "" "--inverted" "--subtitle s" "--width 400" "--width 400 --inverted"; do
		prof-svg $opts -o "$TMP/w.svg" "$FIX/wall.folded"
		xmllint --noout "$TMP/w.svg"
		# Every legend swatch: x, y, height, its label's x and the label.
		# The label's right is estimated as prof-svg does, at the font's
		# average width (the browser test measures the real one).
		top=$(grep -o '^<g class="f.*<rect x="[^"]*" y="[^"]*"' "$TMP/w.svg" | sed 's/.*y="//; s/"//' | sort -n | head -1)
		titles=$(grep -o '^<text id="\(title\|subtitle\|search\|ignorecase\)" [^>]* y="[^"]*"' "$TMP/w.svg" | sed 's/.*y="//; s/"//' | sort -n | tail -1)
		W=$(grep -o '<svg [^>]* width="[0-9]*"' "$TMP/w.svg" | grep -o '[0-9]*"$' | tr -d '"')
		grep '^<g id="\(legend\|offcpu-legend\)">' "$TMP/w.svg" | grep -o '<rect [^>]*/><text [^>]*>[^<]*' |
			sed 's/<rect x="\([^"]*\)" y="\([^"]*\)" width="\([^"]*\)" height="\([^"]*\)".*<text x="\([^"]*\)"[^>]*>\(.*\)/\1 \2 \4 \5 \6/' |
			awk -v top="$top" -v titles="$titles" -v W="$W" -v opts="$opts" '{
				label = substr($0, index($0, $5)); right = $4 + length(label) * 12 * 0.59
				if ($1 < 10 || right > W - 10 || $2 + $3 >= top || $2 <= titles) {
					print opts ": legend entry " label " at " $1 "," $2 " (right " right ") meets the frames (" top "), the titles (" titles ") or the margin"
					bad = 1
				}
				n++ }
			END { exit bad || n < 5 }'
	done
	# Where both legends fit in a row they share it, else the off-CPU one
	# has a row of its own.
	prof-svg "$FIX/wall.folded" > "$TMP/a.svg"
	prof-svg --width 400 "$FIX/wall.folded" > "$TMP/b.svg"
	y() { grep "^<g id=\"$2\">" "$1" | grep -o 'y="[^"]*"' | head -1; }
	[ "$(y "$TMP/a.svg" legend)" = "$(y "$TMP/a.svg" offcpu-legend)" ]
	[ "$(y "$TMP/b.svg" legend)" != "$(y "$TMP/b.svg" offcpu-legend)" ]
}

@test "the script writes times as the titles do" {
	command -v node >/dev/null || skip "node is not installed"
	# Counts over 13 orders of magnitude, some at the edges of a unit.
	awk 'BEGIN { print "# count: nanoseconds"; s = 7
		split("1 9 10 99 100 999 1000 9994 9995 9996 99949 99950 999499 999500 999999 1520000000 1125000000 3600000000000", e, " ")
		for (i in e) printf "e%d %s\n", i, e[i]
		for (i = 0; i < 2000; i++) { s = (s * 48271) % 2147483647; d = s % 14; s = (s * 48271) % 2147483647
			printf "r%d %d\n", i, s % (10 ^ d) + 1 } }' > "$TMP/t.folded"
	prof-svg --minwidth 0 --maxframes 0 "$TMP/t.folded" |
		sed -n 's/^<g class="f" data-x="[^"]*" data-w="\([^"]*\)".*<title>[^<]* (\([^,]*\), [^<]*<\/title>.*/\1|\2/p' > "$TMP/c"
	[ "$(wc -l < "$TMP/c")" -ge 2000 ]
	node -e '
		const fs = require("fs");
		const src = fs.readFileSync(process.argv[1], "utf8").match(/function fmtTime[\s\S]*?\n}\n/)[0];
		const fmtTime = new Function(src + "return fmtTime;")();
		let bad = 0;
		for (const l of fs.readFileSync(process.argv[2], "utf8").trim().split("\n")) {
			const [w, c] = l.split("|");
			if (fmtTime(+w) !== c && bad++ < 5) console.log(`${w} ns: the title says ${c}, the script ${fmtTime(+w)}`);
		}
		process.exit(bad ? 1 : 0);' "$SCRIPT" "$TMP/c"
}
