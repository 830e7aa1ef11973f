#!/usr/bin/env bats
# prof-svg's flamegraph.pl options and differential graphs, without a browser.

bats_require_minimum_version 1.5.0

FIX="$BATS_TEST_DIRNAME/fixtures/svg"
INPUTS="${PROF_CORPUS:-}/inferno/flamegraph-inputs"

setup() {
	TMP="$BATS_TEST_TMPDIR"
}

need_corpus() {
	[ -d "$INPUTS" ] || skip "corpus not found at $INPUTS (set PROF_CORPUS)"
}

# attr FILE NAME ATTR: the attribute of the rect of the first frame NAME
attr() {
	grep "<title>$2 (" "$1" | head -1 | grep -o " $3=\"[^\"]*\"" | head -1 | cut -d'"' -f2
}

@test "--title, --subtitle, --notes, --countname, --nametype, fonts" {
	prof-svg --title 'My CPU' --subtitle 'host 1' --notes 'some notes' --countname ms \
		--nametype 'Frame:' --fonttype 'DejaVu Sans; } * { x: url(evil)' --fontsize 10 \
		"$FIX/simple.folded" > "$TMP/a.svg"
	xmllint --noout "$TMP/a.svg"
	grep -q '<text id="title" [^>]*>My CPU</text>' "$TMP/a.svg"
	grep -q '<text id="subtitle" [^>]*>host 1</text>' "$TMP/a.svg"
	grep -q '<desc id="notes">some notes</desc>' "$TMP/a.svg"
	grep -q '<title>all (200 ms, 100.00%)</title>' "$TMP/a.svg"
	grep -q 'data-nametype="Frame:"' "$TMP/a.svg"
	# the font name cannot inject CSS
	grep -q '^text { font-family: DejaVu Sans    x urlevil; font-size: 10px;' "$TMP/a.svg"
	run ! grep -q 'url(evil)' "$TMP/a.svg"
	prof-svg --inverted "$FIX/simple.folded" | grep -q '>Icicle Graph</text>'
	prof-svg --flamechart "$FIX/simple.folded" | grep -q '>Flame Chart</text>'
	prof-svg "$FIX/simple.folded" | grep -q '>Flame Graph</text>'
}

@test "--countname wins over the input's unit line; --diff takes the unit of either file" {
	{ echo '[count: cycles] 0'; cat "$FIX/simple.folded"; } > "$TMP/u.folded"
	prof-svg --countname ms "$TMP/u.folded" > "$TMP/a.svg"
	grep -q '<title>all (200 ms, 100.00%)</title>' "$TMP/a.svg"
	run ! grep -q 'cycles' "$TMP/a.svg"
	{ echo '[count: cycles] 0'; cat "$FIX/before.folded"; } > "$TMP/b.folded"
	{ echo '[count: cycles] 0'; cat "$FIX/after.folded"; } > "$TMP/c.folded"
	prof-svg --diff "$TMP/b.folded" "$TMP/c.folded" > "$TMP/d.svg"
	grep -qF '<title>all (30 cycles, 100.00%; +33.33%)</title>' "$TMP/d.svg"
	prof-svg --diff "$TMP/b.folded" "$FIX/after.folded" > "$TMP/d.svg"
	grep -qF '<title>all (30 cycles, 100.00%; +33.33%)</title>' "$TMP/d.svg"
	prof-svg --diff "$FIX/before.folded" "$FIX/after.folded" > "$TMP/d.svg"
	grep -qF '<title>all (30 samples, 100.00%; +33.33%)</title>' "$TMP/d.svg"
}

@test "--width and --height set the geometry" {
	prof-svg --width 600 --height 20 "$FIX/simple.folded" > "$TMP/a.svg"
	grep -q '<svg [^>]*width="600" height="' "$TMP/a.svg"
	[ "$(attr "$TMP/a.svg" all width)" = "580.00" ]
	[ "$(attr "$TMP/a.svg" burn width)" = "174.00" ]
	[ "$(attr "$TMP/a.svg" all height)" = "19.0" ]
	# five levels of 20 px: all..burn
	h=$(grep -o '<svg [^>]*height="[0-9]*"' "$TMP/a.svg" | grep -o '[0-9]*"$' | tr -d '"')
	prof-svg --width 600 --height 30 "$FIX/simple.folded" > "$TMP/b.svg"
	h2=$(grep -o '<svg [^>]*height="[0-9]*"' "$TMP/b.svg" | grep -o '[0-9]*"$' | tr -d '"')
	[ $((h2 - h)) -eq 50 ]
	run prof-svg --width abc "$FIX/simple.folded"
	[ "$status" -eq 2 ]
}

@test "--inverted puts the root at the top" {
	prof-svg "$FIX/simple.folded" > "$TMP/a.svg"
	prof-svg --inverted "$FIX/simple.folded" > "$TMP/b.svg"
	ya=$(attr "$TMP/a.svg" all y); yb=$(attr "$TMP/b.svg" all y)
	wa=$(attr "$TMP/a.svg" burn y); wb=$(attr "$TMP/b.svg" burn y)
	awk -v a="$ya" -v b="$wa" 'BEGIN { exit !(a > b) }'
	awk -v a="$yb" -v b="$wb" 'BEGIN { exit !(a < b) }'
}

@test "--reverse makes the leaves the roots" {
	prof-svg --reverse "$FIX/simple.folded" > "$TMP/a.svg"
	# burn (60) and spin (20) are now children of all, each with work above
	grep -q 'data-d="1"><title>burn (60 samples' "$TMP/a.svg"
	grep -q 'data-d="1"><title>run (100 samples' "$TMP/a.svg"
	grep -q 'data-d="2"><title>work (60 samples' "$TMP/a.svg"
	# main appears as a leaf-root for its self time (10)
	grep -q 'data-d="1"><title>main (10 samples' "$TMP/a.svg"
}

@test "--flamechart keeps input order and merges only neighbours" {
	printf 'b;x 1\na;y 2\nb;x 3\nb;z 1\n' > "$TMP/in"
	prof-svg --flamechart "$TMP/in" > "$TMP/a.svg"
	grep -q 'data-x="0" data-w="1" data-d="1"><title>b (1 samples' "$TMP/a.svg"
	grep -q 'data-x="1" data-w="2" data-d="1"><title>a (2 samples' "$TMP/a.svg"
	grep -q 'data-x="3" data-w="4" data-d="1"><title>b (4 samples' "$TMP/a.svg"
	grep -q 'data-x="3" data-w="3" data-d="2"><title>x (3 samples' "$TMP/a.svg"
	grep -q 'data-x="6" data-w="1" data-d="2"><title>z (1 samples' "$TMP/a.svg"
	# without it, the b frames merge and sort after a
	prof-svg "$TMP/in" > "$TMP/b.svg"
	grep -q 'data-x="2" data-w="5" data-d="1"><title>b (5 samples' "$TMP/b.svg"
}

@test "--colors picks flamegraph.pl's palettes" {
	for p in hot mem io wakeup chain java js perl red green blue aqua yellow purple orange; do
		prof-svg --colors $p "$FIX/kinds.folded" > "$TMP/$p.svg"
		xmllint --noout "$TMP/$p.svg"
	done
	[ "$(attr "$TMP/mem.svg" main fill | cut -d'(' -f2 | cut -d, -f1)" = 0 ]
	attr "$TMP/blue.svg" main fill | awk -F'[(,)]' '{ ok = $4 >= 205 && $2 == $3 } END { exit !ok }'
	attr "$TMP/green.svg" main fill | awk -F'[(,)]' '{ ok = $3 >= 200 && $2 == $4 } END { exit !ok }'
	# java: JIT frames green, kernel orange; perl: no legend
	attr "$TMP/java.svg" Interp fill | awk -F'[(,)]' '{ ok = $3 >= 200 && $2 < 120 } END { exit !ok }'
	attr "$TMP/java.svg" sys_read fill | grep -q ',0)$'
	run ! grep -q 'id="legend"' "$TMP/perl.svg"
	# grey frames for "-" and "--"
	printf 'a;- 1\na;-- 1\n' | prof-svg > "$TMP/g.svg"
	[ "$(attr "$TMP/g.svg" - fill)" = "rgb(200,200,200)" ]
	[ "$(attr "$TMP/g.svg" -- fill)" = "rgb(160,160,160)" ]
}

@test "--bgcolors sets the background and rejects anything but a colour" {
	prof-svg --bgcolors blue "$FIX/simple.folded" | grep -q 'stop-color="#e0e0ff"'
	prof-svg --bgcolors '#123456' "$FIX/simple.folded" | grep -q 'stop-color="#123456" offset="5%"'
	prof-svg --colors mem "$FIX/simple.folded" | grep -q 'stop-color="#e0ffe0"'
	run prof-svg --bgcolors 'red" onload="alert(1)' "$FIX/simple.folded"
	[ "$status" -eq 2 ]
}

@test "--hash uses flamegraph.pl's name hash; --random changes colours" {
	# namehash weighs the first three characters only: "work" and "wor"
	# match where a palette uses only the forward hash
	printf 'wor 1\nwork 1\n' | prof-svg --hash --colors red > "$TMP/m.svg"
	[ "$(attr "$TMP/m.svg" wor fill)" = "$(attr "$TMP/m.svg" work fill)" ]
	printf 'wor 1\nwork 1\n' | prof-svg --colors red > "$TMP/n.svg"
	[ "$(attr "$TMP/n.svg" wor fill)" != "$(attr "$TMP/n.svg" work fill)" ]
	for i in 1 2 3; do prof-svg --random "$FIX/simple.folded" | md5sum; done | sort -u > "$TMP/sums"
	[ "$(wc -l < "$TMP/sums")" -gt 1 ]
}

@test "--cp keeps colours in a palette file" {
	need_corpus
	cp "$INPUTS/palette-map/palette.map" "$TMP/palette.map"
	(cd "$TMP" && prof-svg --cp --colors java "$INPUTS/unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt" > a.svg)
	# a pinned colour is used
	grep -q '^JavaThread::run->rgb(243,120,41)$' "$TMP/palette.map"
	[ "$(attr "$TMP/a.svg" 'JavaThread::run' fill)" = "rgb(243,120,41)" ]
	# the file was rewritten sorted by name (not by line: the frame " "
	# comes after the root's empty name), with new names added
	sed 's/->rgb([^)]*)$//' "$TMP/palette.map" | LC_ALL=C sort -c
	[ "$(wc -l < "$TMP/palette.map")" -gt "$(wc -l < "$INPUTS/palette-map/palette.map")" ]
	# a second run gives the same graph
	(cd "$TMP" && prof-svg --cp --colors java "$INPUTS/unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt" > b.svg)
	cmp "$TMP/a.svg" "$TMP/b.svg"
	# malformed lines are reported and skipped
	cp "$INPUTS/palette-map/palette_invalid.map" "$TMP/bad.map"
	run prof-svg --palfile "$TMP/bad.map" -o "$TMP/c.svg" "$INPUTS/unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"bad.map:2: not NAME->rgb(R,G,B)"* ]]
}

@test "--nameattr adds attributes and links from the corpus files" {
	need_corpus
	prof-svg --nameattr "$INPUTS/nameattr/nameattr.txt" "$INPUTS/fractional-samples/no-fractionals.txt" > "$TMP/a.svg"
	xmllint --noout "$TMP/a.svg"
	grep -q '<g class="f inferno" stroke-width="1" stroke="green" data-name="main"[^>]*><title>foo</title><a xlink:href="https://github.com/jonhoo/inferno" target="_blank" rel="external" hreflang="en-us">' "$TMP/a.svg"
	grep -q '<g class="f" id="test" data-x="[^"]*" data-w="[^"]*" data-d="1"><title>noploop (' "$TMP/a.svg"
	for f in "$INPUTS"/nameattr/nameattr_*.txt; do
		prof-svg --nameattr "$f" "$INPUTS/fractional-samples/no-fractionals.txt" > "$TMP/b.svg" 2>/dev/null || [ $? -eq 1 ]
		xmllint --noout "$TMP/b.svg"
	done
}

@test "--total and --factor" {
	prof-svg --total 400 "$FIX/simple.folded" > "$TMP/a.svg"
	[ "$(attr "$TMP/a.svg" all width)" = "590.00" ]
	grep -q '<title>all (200 samples, 50.00%)</title>' "$TMP/a.svg"
	prof-svg --factor 1000 "$FIX/simple.folded" > "$TMP/b.svg"
	grep -q '<title>all (200,000 samples, 100.00%)</title>' "$TMP/b.svg"
	[ "$(attr "$TMP/b.svg" all width)" = "1180.00" ]
}

@test "--diff: widths from after, inclusive change in every frame's colour and title" {
	prof-svg --diff "$FIX/before.folded" "$FIX/after.folded" > "$TMP/d.svg"
	xmllint --noout "$TMP/d.svg"
	# after total 30: widths from after
	[ "$(attr "$TMP/d.svg" c width)" = "786.67" ]
	# c grew by 10 (the largest change): full red; so did its parent b
	[ "$(attr "$TMP/d.svg" c fill)" = "rgb(255,0,0)" ]
	[ "$(attr "$TMP/d.svg" b fill)" = "rgb(255,0,0)" ]
	grep -q '<title>b (25 samples, 83.33%; +33.33%)</title>' "$TMP/d.svg"
	# d unchanged: white; e shrank by 4: blue; f is new (+4): light red
	[ "$(attr "$TMP/d.svg" d fill)" = "rgb(255,255,255)" ]
	[ "$(attr "$TMP/d.svg" e fill)" = "rgb(126,126,255)" ]
	[ "$(attr "$TMP/d.svg" f fill)" = "rgb(255,126,126)" ]
	grep -q '<title>e (1 samples, 3.33%; -13.33%)</title>' "$TMP/d.svg"
	# --negate swaps the hues
	prof-svg --diff --negate "$FIX/before.folded" "$FIX/after.folded" > "$TMP/n.svg"
	[ "$(attr "$TMP/n.svg" e fill)" = "rgb(255,126,126)" ]
	[ "$(attr "$TMP/n.svg" c fill)" = "rgb(0,0,255)" ]
}

@test "--diff --normalize scales before to after's total" {
	prof-svg --diff --normalize "$FIX/before.folded" "$FIX/after.folded" > "$TMP/d.svg"
	# before x1.5: a 30 -> 30 unchanged, c 15 -> 20, e 7.5 -> 1 (largest change)
	grep -q '<title>a (30 samples, 100.00%; 0.00%)</title>' "$TMP/d.svg"
	grep -q '<title>c (20 samples, 66.67%; +16.67%)</title>' "$TMP/d.svg"
	[ "$(attr "$TMP/d.svg" e fill)" = "rgb(0,0,255)" ]
	[ "$(attr "$TMP/d.svg" a fill)" = "rgb(255,255,255)" ]
}

@test "two-column input (difffolded.pl) equals --diff of the two files" {
	printf 'a;b;c 10 20\na;b;d 5 5\na;e 5 1\na;f 0 4\n' > "$TMP/two"
	prof-svg "$TMP/two" > "$TMP/a.svg"
	prof-svg --diff "$FIX/before.folded" "$FIX/after.folded" > "$TMP/b.svg"
	cmp "$TMP/a.svg" "$TMP/b.svg"
}

@test "the corpus differential input renders with inclusive deltas" {
	need_corpus
	f="$INPUTS/differential/perf-cycles-instructions-01-collapsed-all-diff.txt"
	prof-svg "$f" > "$TMP/d.svg"
	xmllint --noout "$TMP/d.svg"
	# widths from the second column: 513 samples in all
	grep -q '<title>all (513 samples, 100.00%; +' "$TMP/d.svg"
	# not only leaves are coloured: the root-most cksum frame is red
	attr "$TMP/d.svg" cksum fill | awk -F'[(,)]' '{ ok = $2 == 255 && $3 < 255 && $3 == $4 } END { exit !ok }'
}

@test "difffolded.pl's output of the corpus pair draws the same graph as --diff" {
	d="${PROF_CORPUS:-}/inferno/diff-folded"
	[ -d "$d" ] || skip "corpus not found at $d (set PROF_CORPUS)"
	prof-svg "$d/results/default.txt" > "$TMP/a.svg"
	prof-svg --diff "$d/before.txt" "$d/after.txt" > "$TMP/b.svg"
	cmp "$TMP/a.svg" "$TMP/b.svg"
	# kernel frames keep their inclusive change in the title
	grep -q '<title>system_call (' "$TMP/b.svg"
	run prof-svg --diff "$d/bad_before.txt" "$d/after.txt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"bad_before.txt:3: skipped"* ]]
}

@test "--fontwidth and --fontsize decide how much of a name fits" {
	printf 'abcdefghijklmnopqrstuvwxyz 1\nb 1\n' > "$TMP/in"
	prof-svg "$TMP/in" | grep -q '>abcdefghijklmnopqrstuvwxyz</text></g>'
	# 590 px / (12 px x 5) = 9 characters: 7 and ".."
	prof-svg --fontwidth 5 "$TMP/in" | grep -q '>abcdefg..</text></g>'
	# 590 px / (100 px x 0.59) = 10 characters
	prof-svg --fontsize 100 "$TMP/in" | grep -q '>abcdefgh..</text></g>'
	# too narrow for 3 characters: no label
	prof-svg --fontwidth 5 --width 200 "$TMP/in" | grep -q '<title>b (1 samples, 50.00%)</title><rect [^>]*/><text [^>]*></text>'
}
