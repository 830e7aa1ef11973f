#!/usr/bin/env bats
# prof-svg's interaction in a real browser: Debian's chromium driven by
# playwright-core (tests/browser, pinned by its package-lock.json).

load helpers

FIX="$BATS_TEST_DIRNAME/fixtures/svg"
CHECK="$BATS_TEST_DIRNAME/browser/check.js"

# One browser for the file, each check in a context of its own.
setup_file() {
	[ -x "${CHROMIUM:-/usr/bin/chromium}" ] &&
		[ -d "$BATS_TEST_DIRNAME/browser/node_modules/playwright-core" ] || return 0
	coproc BROWSER { exec node "$BATS_TEST_DIRNAME/browser/server.js"; }
	echo "$BROWSER_PID" > "$BATS_FILE_TMPDIR/browser.pid"
	read -r -t 60 PROF_BROWSER_WS <&"${BROWSER[0]}"
	export PROF_BROWSER_WS
}

teardown_file() {
	[ -e "$BATS_FILE_TMPDIR/browser.pid" ] || return 0
	kill "$(cat "$BATS_FILE_TMPDIR/browser.pid")" 2>/dev/null || true
}

setup() {
	[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || skip "chromium is not installed (apt-get install chromium)"
	[ -d "$BATS_TEST_DIRNAME/browser/node_modules/playwright-core" ] ||
		skip "playwright-core is not installed (npm ci --prefix tests/browser)"
	[[ ${PROF_BROWSER_WS:-} == ws://* ]]
	TMP="$BATS_TEST_TMPDIR"
}

@test "clicking a frame zooms it to the full width; ancestors dim; Reset Zoom restores" {
	prof-svg -o "$TMP/s.svg" "$FIX/simple.folded"
	run node "$CHECK" zoom "$TMP/s.svg" work
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"zoomed work: 3 ancestors, 3 in view, 3 hidden"* ]]
}

@test "zooming works in an icicle graph and a corpus profile" {
	prof-svg --inverted -o "$TMP/i.svg" "$FIX/simple.folded"
	run node "$CHECK" zoom "$TMP/i.svg" burn
	echo "$output"
	[ "$status" -eq 0 ]
	[ -d "${PROF_CORPUS:-}/inferno/flamegraph-inputs" ] || skip "corpus not found"
	prof-svg -o "$TMP/v.svg" "$PROF_CORPUS/inferno/flamegraph-inputs/unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt"
	run node "$CHECK" zoom "$TMP/v.svg" 'JavaThread::run'
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "search highlights the matching frames and reports their share once" {
	prof-svg -o "$TMP/s.svg" "$FIX/simple.folded"
	# r: work (20..100) holds burn, other (100..200) holds run: 180 of 200
	run node "$CHECK" search "$TMP/s.svg" r 90.00 4
	echo "$output"
	[ "$status" -eq 0 ]
	run node "$CHECK" search "$TMP/s.svg" '^(burn|spin)$' 40.00 2
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "a search's share is marked as a lower bound when frames too narrow to draw were left out" {
	printf 'main;wide 9990\nmain;narrow;tiny 10\n' > "$TMP/n.folded"
	# A budget of three frames draws all, main and wide: narrow and tiny,
	# a thousandth of the width, are not in the page to be searched.
	prof-svg --maxframes 3 -o "$TMP/n.svg" "$TMP/n.folded"
	run node "$CHECK" search "$TMP/n.svg" '^(wide|narrow)$' '≥99.90' 1
	echo "$output"
	[ "$status" -eq 0 ]
	# Drawn whole, the same search is exact.
	prof-svg -o "$TMP/n.svg" "$TMP/n.folded"
	run node "$CHECK" search "$TMP/n.svg" '^(wide|narrow)$' 100.00 2
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "zoom and search are kept in the URL and restored on load" {
	prof-svg -o "$TMP/s.svg" "$FIX/simple.folded"
	run node "$CHECK" url "$TMP/s.svg" work 'burn|idle'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"restored from ?x=20&y=3&s=burn%7Cidle"* ]]
}

# rep STRING N: STRING N times.
rep() {
	local s= k
	for ((k = 0; k < $2; k++)); do s+=$1; done
	printf '%s' "$s"
}

@test "a link cannot hang the page: its search runs in time pattern x name and matches as RegExp would" {
	# Long C++ names, 40 a's then a '!', and 3000 a's: on them RegExp would
	# backtrack for hours through each pattern below (.?.?...#: 25 s at 22
	# on an 80-character name, doubling with each .?).  Each is checked
	# against a pattern RegExp runs without backtracking that matches the
	# same names, on load, zoomed, ignoring case and from the prompt; a
	# page that hangs fails by the timeout, and SIGTERM makes Playwright
	# close the browser on its way out.
	a40=$(rep a 40) a3k=$(rep a 3000)
	{ cat "$FIX/cpp.folded"; printf 'server;main;%s! 1\nserver;main;%s 1\n' "$a40" "$a3k"; } > "$TMP/long.folded"
	prof-svg -o "$TMP/l.svg" "$TMP/long.folded"
	run timeout -k 10 120 node "$CHECK" link "$TMP/l.svg" \
		"$(rep '.?' 25)$(rep . 25)#" '.{25}#' \
		"$(rep '.?' 30)$(rep . 30)#" '.{30}#' \
		"$(rep '.{0,16}' 12)#" '#' \
		"^(.{0,16}){12}\$" '^.{0,192}$' \
		'(a+)+$' 'a$' \
		'(a|aa)*b' 'b' \
		'a*a*a*b' 'b' \
		'^(a|a?)+$' '^a*$' \
		'(.*)*#' '#'
	echo "$output"
	[ "$status" -eq 0 ]
	# {lambda()#1} is 58 characters into its frame's name, {lambda()#2} 9:
	# only the first frame has 30 before a '#', 65 of the 110 samples.
	[[ "$output" == *"# $(rep '.?' 30)$(rep . 30)#: 1 of 21 frames, \"Matched: 59.09%\""* ]]
}

@test "a link's pattern that the page cannot match in linear time is matched as text, and the page says so" {
	# Backreferences, lookaround, counts that unroll past 500 instructions:
	# frames named after the patterns, so that the text finds one each.
	{ cat "$FIX/cpp.folded"; printf 'server;regex;%s 1\n' '(a)\1' '(?=a)b' 'a{600}'; } > "$TMP/re.folded"
	prof-svg -o "$TMP/re.svg" "$TMP/re.folded"
	run timeout -k 10 120 node "$CHECK" link "$TMP/re.svg" '(a)\1' '' '(?=a)b' '' 'a{600}' ''
	echo "$output"
	[ "$status" -eq 0 ]
	# one frame each, 1 of the 111 samples
	[ "$(grep -c "1 of 23 frames, \"Matched: 0.90% (the link's pattern, as text)\"" <<< "$output")" -eq 3 ]
}

@test "a link's pattern highlights the same frames as the viewer's own search for it" {
	prof-svg -o "$TMP/c.svg" "$FIX/cpp.folded"
	run timeout -k 10 120 node "$CHECK" link "$TMP/c.svg" \
		'Server::' 'Server::' \
		'^std::' '^std::' \
		'vector<.*>' 'vector<.*>' \
		'\{lambda\(\)#\d\}' '\{lambda\(\)#\d\}' \
		'(?:parse|handle)\(' '(?:parse|handle)\(' \
		'^[A-Z]\w+::\w+' '^[A-Z]\w+::\w+' \
		'\bmain\b|^server$' '\bmain\b|^server$' \
		'größe|STRASSE' 'größe|STRASSE' \
		':\d+$' ':\d+$' \
		'[^\x00-\x7f]' '[^\x00-\x7f]' \
		'^[^ ]+$' '^[^ ]+$' \
		'(_M_\w+){1,2}\(' '(_M_\w+){1,2}\('
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the link matcher answers as RegExp.test does on generated patterns and names, with and without case" {
	prof-svg -o "$TMP/s.svg" "$FIX/simple.folded"
	run timeout -k 10 300 node "$CHECK" matcher "$TMP/s.svg" 1 3000
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 disagreements"* ]]
}

@test "hostile frame names run nothing" {
	prof-svg -o "$TMP/h.svg" "$FIX/hostile.folded"
	run node "$CHECK" hostile "$TMP/h.svg"
	echo "$output"
	[ "$status" -eq 0 ]
	printf 'demo\thref=javascript:alert(1)\tg_extra=onload="alert(2)" onmouseover="alert(3)"\ttitle=<script>alert(4)</script>\n' > "$TMP/attr"
	prof-svg --nameattr "$TMP/attr" --title '<script>alert(5)</script>' -o "$TMP/a.svg" "$FIX/hostile.folded" 2>/dev/null || [ $? -eq 1 ]
	run node "$CHECK" hostile "$TMP/a.svg"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "no network request is made, not even by name attributes that ask for one" {
	# url() in presentation attributes, as a name attribute file may put
	# them, in any spelling: each would make Chromium fetch.
	root=$(head -1 "$FIX/kinds.folded" | cut -d';' -f1)
	printf '%s\tg_extra=fill="url(http://127.0.0.1:9/f)" mask="URL ( http://127.0.0.1:9/m )" filter="\\75 rl(http://127.0.0.1:9/x)" cursor="url(http://127.0.0.1:9/c), auto" stroke="red"\n' \
		"$root" > "$TMP/attr"
	run prof-svg --nameattr "$TMP/attr" -o "$TMP/s.svg" "$FIX/kinds.folded"
	[[ "$output" == *"4 unsafe or malformed"* ]]
	grep -q 'stroke="red"' "$TMP/s.svg"
	run node "$CHECK" network "$TMP/s.svg"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 request(s), all for the SVG itself"* ]]
}

@test "a differential graph loads and zooms" {
	prof-svg --diff -o "$TMP/d.svg" "$FIX/before.folded" "$FIX/after.folded"
	run node "$CHECK" zoom "$TMP/d.svg" b
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "a graph taller than the window opens on its frames, controls in view" {
	# One stack 300 deep, as a broken frame-pointer walk or deep recursion
	# makes: the SVG is several windows tall.
	awk 'BEGIN { for (i = 0; i < 300; i++) printf "%sf%d", i ? ";" : "", i; print " 10"; print "main;a;b 5" }' > "$TMP/deep.folded"
	prof-svg -o "$TMP/deep.svg" "$TMP/deep.folded"
	run node "$CHECK" tall "$TMP/deep.svg"
	echo "$output"
	[ "$status" -eq 0 ]
	prof-svg --inverted -o "$TMP/icicle.svg" "$TMP/deep.folded"
	run node "$CHECK" tall "$TMP/icicle.svg" inverted
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "frames are drawn in the colour of their kind's legend entry (hot, js and java palettes)" {
	# Kernel, JIT (with and without a source path), inlined, waker and
	# user frames, many names each so the hash spans each palette's range.
	awk 'BEGIN { for (i = 0; i < 40; i++) printf "proc;u_main;u_f%d;k_sys_%d_[k];k_vfs_%d_[k] %d\n", i, i, i, i + 1
		for (i = 0; i < 20; i++) printf "proc;u_main;j_LazyCompile:*fib%d /x.js:3_[j];j_JS:*h%d [eval]:1_[j] 3\n", i, i
		for (i = 0; i < 20; i++) printf "proc;u_main;u_w%d;i_inl%d_[i] 2\n", i, i
		for (i = 0; i < 20; i++) printf "proc;u_main;--;w_wake%d_[w];w_Ljava/Waker.run%d_[w] 2\n", i, i }' > "$TMP/kinds.folded"
	for pal in hot js java; do
		prof-svg --colors "$pal" -o "$TMP/$pal.svg" "$TMP/kinds.folded"
		run node "$CHECK" legend "$TMP/$pal.svg"
		echo "$pal: $output"
		[ "$status" -eq 0 ]
	done
}

@test "a graph of times: a blocked frame's details and search totals are times; the legends are clear of the rest" {
	prof-svg -o "$TMP/w.svg" "$FIX/wall.folded"
	run node "$CHECK" details "$TMP/w.svg" schedule 'Function: schedule (1.52 s, 97.12%)'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"hovered schedule (rgb(99, 99, 221))"* ]]
	run node "$CHECK" details "$TMP/w.svg" sleep 'Function: sleep (850 us, 0.05%)'
	echo "$output"
	[ "$status" -eq 0 ]
	# both sleep frames, the blocked one and the one that ran; one frame
	# of the profile is under the default 0.1 px and not drawn, so the
	# share is a lower bound
	run node "$CHECK" search "$TMP/w.svg" '^sleep$' '≥0.18' 2 '2.85 ms'
	echo "$output"
	[ "$status" -eq 0 ]
	run node "$CHECK" search "$TMP/w.svg" '^schedule$' '≥97.12' 1 '1.52 s'
	echo "$output"
	[ "$status" -eq 0 ]
	for opts in "" "--width 400" "--inverted --subtitle s"; do
		prof-svg $opts -o "$TMP/l.svg" "$FIX/wall.folded"
		run node "$CHECK" legends "$TMP/l.svg"
		echo "$opts: $output"
		[ "$status" -eq 0 ]
	done
}

@test "the browser benchmark times prof-svg's SVG and checks what each action did" {
	# Figures only, no limits: what is tested is that every timed action
	# (load, click, Reset Zoom, a search and its reset) did its work.
	prof-svg -o "$TMP/s.svg" "$FIX/simple.folded"
	run node "$BATS_TEST_DIRNAME/browser/bench.js" --runs 1 --search r a="$TMP/s.svg" b="$TMP/s.svg"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"# search /r/: a 4 frames, \"Matched: 90.00%\""* ]]
	[[ "$output" == *"# clicked: a \"demo (100 samples, 50.00%)\""* ]]
}

@test "a timed profile: ?t= draws a phase's range as prof-svg draws its stacks alone; search works in it" {
	timed_phases "$TMP/in"
	prof-svg -o "$TMP/t.svg" "$TMP/in"
	timed_range "$TMP/in" 0 1.5 | prof-svg -o "$TMP/ref.svg"
	run node "$CHECK" range "$TMP/t.svg" 0-1.5 "$TMP/ref.svg" '^o' +one -two -burst +other
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"0–1.5 s: 172 samples × (show all)"'* ]]
	# A range across phases, not on a row's edge: the slots that start in it.
	timed_range "$TMP/in" 2.95 3.105 | prof-svg -o "$TMP/ref2.svg"
	run node "$CHECK" range "$TMP/t.svg" 2.95-3.105 "$TMP/ref2.svg" 'burst|two' +two +burst -one
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "dragging over the heatmap draws that range; a zoom in it is kept in the link with the range" {
	timed_phases "$TMP/in"
	prof-svg -o "$TMP/t.svg" "$TMP/in"
	# From second 1's row 10 (1.2 s) to second 3's row 4 (3.1 s, its end).
	timed_range "$TMP/in" 1.2 3.1 | prof-svg -o "$TMP/ref.svg"
	run node "$CHECK" range "$TMP/t.svg" 1,10,3,4 "$TMP/ref.svg" - +one +two +burst
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"?t=1.2-3.1"* ]]
	run node "$CHECK" rangeZoom "$TMP/t.svg" 1.5-3 two
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "a range of a profile of many deep stacks is drawn as prof-svg draws it, frame budget and all" {
	"$PROF_WORKLOADS/gen_cxx_stacks" 5000 |
		awk '{ printf "%d\t%s\n", (NR * 7919) % 500, $0 }' | sort -s -n -k1,1 |
		awk -F'\t' 'BEGIN { last = -1 } $1 != last { printf "[time: %d.%02d0000000 0.010000000] 0\n", $1 / 100, $1 % 100; last = $1 } { print $2 }' >"$TMP/in"
	prof-svg -o "$TMP/t.svg" "$TMP/in"
	timed_range "$TMP/in" 1 3.5 | prof-svg -o "$TMP/ref.svg"
	run node "$CHECK" range "$TMP/t.svg" 1-3.5 "$TMP/ref.svg" 'Parser'
	echo "$output" | head -5
	[ "$status" -eq 0 ]
	# Drawn after other ranges, each zoomed, on the elements they left.
	run node "$CHECK" range "$TMP/t.svg" '0-5;3.2-3.3;4-4.5;1-3.5' "$TMP/ref.svg" 'Parser'
	echo "$output" | head -8
	[ "$status" -eq 0 ]
	# The whole range is the whole graph.
	prof-fold "$TMP/in" | prof-svg -o "$TMP/all.svg"
	run node "$CHECK" range "$TMP/t.svg" 0-5 "$TMP/all.svg" 'Parser'
	echo "$output" | head -3
	[ "$status" -eq 0 ]
}
