#!/usr/bin/env bats
# prof-svg on off-CPU and wall-clock profiles, without a browser: counts that
# are times.

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

@test "counts of nanoseconds are shown as times, in the unit that reads best" {
	prof-svg --minwidth 0 -o "$TMP/w.svg" "$FIX/wall.folded"
	xmllint --noout "$TMP/w.svg"
	frames "$TMP/w.svg" > "$TMP/f"
	grep -qF 'all (1.57 s, 100.00%)|' "$TMP/f"
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
	done
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
	grep -qF 'diff: false };' "$TMP/s.svg"
	printf '# count: cycles\na 1500\n' | prof-svg | grep -qF '<title>a (1,500 cycles, 100.00%)</title>'
	printf '# count: Seconds\na 1500\n' | prof-svg | grep -qF '<title>a (1,500 Seconds, 100.00%)</title>'
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
