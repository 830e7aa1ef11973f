#!/usr/bin/env bats
# prof-svg's time view of timed folded stacks (docs/FORMATS.md sections 3
# and 4): the heatmap's cells against the input's counts, the data a range
# is drawn from, the graph itself unchanged, and hostile time lines.  Its
# interaction in a browser is in svg-browser.bats.

load helpers
bats_require_minimum_version 1.5.0

@test "a timed input draws a heatmap above the graph: a column a second, a row per 20 ms, the cells' counts the input's" {
	timed_phases "$TMP/in"
	run prof-svg -o "$TMP/g.svg" "$TMP/in"
	[ "$status" -eq 0 ]
	xmllint --noout "$TMP/g.svg"
	grep -q '<g id="heatmap">' "$TMP/g.svg"
	conf=$(grep -o 'heat: {[^}]*}' "$TMP/g.svg")
	echo "$conf"
	[[ $conf == *"rows: 50, cols: 6, rowNs: 20000000, t0: 0"* ]]
	cw=$(sed 's/.*cw: \([0-9.]*\).*/\1/' <<<"$conf")
	y0=$(sed 's/.*y: \([0-9.]*\),.*/\1/' <<<"$conf")
	# The input's counts by cell, by awk, against the cells drawn.
	awk '/^\[time/ { t = $2 * 1000 + 0.5; next } { n[int(t / 1000) " " int((t % 1000) / 20)] += $NF }
		END { for (k in n) print k, n[k] }' "$TMP/in" | sort -n -k1,1 -k2,2 >"$TMP/want"
	awk -F'"' '/<rect x=.*data-n=/ { printf "%d %d %s\n", ($2 - 10) / cw + 0.001, ($4 - y0) / 4 + 0.001, $10 }' \
		cw="$cw" y0="$y0" "$TMP/g.svg" | sort -n -k1,1 -k2,2 >"$TMP/got"
	diff "$TMP/want" "$TMP/got"
	# The phases: the first three columns full, the others busy only in
	# the 10 rows of their 200 ms, "other" alone after them.
	[ "$(awk '$1 < 3 && $3 >= 2' "$TMP/got" | wc -l)" -eq 150 ]
	[ "$(awk '$1 >= 3 && $2 < 10 && $3 >= 4' "$TMP/got" | wc -l)" -eq 30 ]
	[ "$(awk '$1 >= 3 && $2 >= 10 && $3 != 1' "$TMP/got" | wc -l)" -eq 0 ]
	# The deepest colour is the busiest cell's.
	busiest=$(sort -k3,3n "$TMP/got" | tail -1 | awk '{ print $3 }')
	grep -q "data-n=\"$busiest\" fill=\"rgb(180,0,0)\"" "$TMP/g.svg"
}

@test "the graph of a timed input is the untimed graph; an untimed input has no time view" {
	timed_phases "$TMP/in"
	prof-svg -o "$TMP/timed.svg" "$TMP/in"
	prof-fold "$TMP/in" | prof-svg -o "$TMP/plain.svg"
	[ "$(grep -c '<g id="heatmap">\|<metadata\|#heatmap\|heat: {' "$TMP/plain.svg")" -eq 0 ]
	# The same frames, in the same order, with the same titles; only
	# their height on the page differs.
	frames() { grep '^<g class="f"' "$1" | sed 's/ y="[0-9.]*"//g'; }
	diff <(frames "$TMP/plain.svg") <(frames "$TMP/timed.svg")
	[ "$(frames "$TMP/plain.svg" | wc -l)" -eq 7 ]
	# A flame chart and a differential graph have no time view.
	prof-svg --flamechart -o "$TMP/chart.svg" "$TMP/in"
	[ "$(grep -c '<g id="heatmap">\|<metadata' "$TMP/chart.svg")" -eq 0 ]
	prof-svg --diff -o "$TMP/diff.svg" "$TMP/in" "$TMP/in"
	[ "$(grep -c '<g id="heatmap">\|<metadata' "$TMP/diff.svg")" -eq 0 ]
}

@test "the range data: every node in preorder, every slot's leaves, as FORMATS.md says" {
	timed_phases "$TMP/in"
	prof-svg -o "$TMP/g.svg" "$TMP/in"
	meta() { perl -0ne "print \$1 if /<metadata id=\"fg-$1\">(.*?)<\/metadata>/s" "$TMP/g.svg"; }
	# Names, then the tree: app, main, burst, one, other, two in preorder.
	names=$(meta names | grep -v '^$' | tr '\n' ' ')
	tree=$(meta tree | tr -s ' \n' ' ' | sed 's/ $//')
	echo "names: $names; tree: $tree"
	decoded=$(awk -v names="$names" -v tree="$tree" 'BEGIN {
		n = split(names, nm, " "); m = split(tree, tk, " "); d = 0; up = 0
		for (i = 1; i <= m; i++) {
			if (tk[i] ~ /^,/) { up = substr(tk[i], 2) + 0; continue }
			d = d + 1 - up; up = 0; printf "%d:%s ", d, nm[tk[i] + 1] }
	}')
	[ "$decoded" = "1:app 2:main 3:burst 3:one 3:other 3:two " ]
	# A line per slot that holds a count.
	slots=$(awk '/^\[time/ { t = 1; next } t { n++; t = 0 } END { print n }' "$TMP/in")
	[ "$slots" -eq 395 ]
	[ "$(meta time | grep -c .)" -eq "$slots" ]
	# Leaves by preorder: burst 3, one 4, other 5, two 6.
	meta time | grep -qx '1500000000 6 1'
	meta time | grep -qx '0 4 1 5 1'
	meta time | grep -qx '3010000000 3 2 5 1'
}

@test "stacks before the first time line are said; hostile time lines and names cannot break the page" {
	printf 'a;early 1\n[time: 0.000000000 0.010000000] 0\na;b 1\n' >"$TMP/in"
	run prof-svg -o "$TMP/g.svg" "$TMP/in"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$TMP/in:1: 1 stack before the first time line: in the whole graph, in no range of time"* ]]
	grep -q '<g id="heatmap">' "$TMP/g.svg"
	# Names that are markup, a CR, ]]>; a slot 500 years on; a slot of 1 ns.
	printf '[time: 0 1] 0\n<script>alert(1)</script>;x]]>y 1\n[time: 15778800000 0.000000001] 0\na\rb;&amp; 2\n' >"$TMP/h"
	run prof-svg -o "$TMP/h.svg" "$TMP/h"
	[ "$status" -eq 0 ]
	xmllint --noout "$TMP/h.svg"
	[ "$(grep -c '<script>alert' "$TMP/h.svg")" -eq 0 ]
	grep -q 'cols: 15778800001' "$TMP/h.svg"
	# Two cells, however far apart: the file stays small.
	[ "$(grep -c 'data-n=' "$TMP/h.svg")" -eq 2 ]
	[ "$(stat -c %s "$TMP/h.svg")" -lt 100000 ]
	grep -q $'a\xef\xbf\xbdb' "$TMP/h.svg"
}
