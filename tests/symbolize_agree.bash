# Helpers for the symbolize_*.bats files: compare prof-symbolize's frames
# for a list of addresses with addr2line's and eu-addr2line's.
#
# Each tool's answer for an address becomes one line:
#   name@file:line|name@file:line...   innermost frame first
# with file reduced to its base name and GCC clone suffixes (.constprop.0,
# .isra.0, .part.0, .cold) removed from names, since tools differ on them.

# pick_addresses SYMFILE [FUNCS] [STEP]: hex addresses inside the text
# symbols of SYMFILE that have a size and no alias at their address, every
# STEP bytes (default 1) in at most FUNCS functions (default all), spread
# over the file.
pick_addresses() {
	nm -n -S --defined-only "$1" | awk -v max="${2:-0}" -v step="${3:-1}" '
		function hex(h,   i, v) { v = 0; h = tolower(h); for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
		NF == 4 && $3 ~ /^[tTWiI]$/ { if (!($1 in n)) order[++k] = $1; n[$1]++; if ($3 !~ /[iI]/) size[$1] = hex($2) }
		END {
			for (i = 1; i <= k; i++) if (n[order[i]] == 1 && size[order[i]] >= 2) list[++m] = order[i]
			every = (max > 0 && m > max) ? m / max : 1
			for (i = 1; i <= m; i += every) {
				a = list[int(i)]; s = hex(a)
				for (o = 0; o < size[a]; o += step) printf "%x\n", s + o
			}
		}'
}

normalize_name='{ gsub(/\.(constprop|isra|part|cold|lto_priv)(\.[0-9]+)?/, "", name) }'

# ours ELF ADDRFILE [MAPPED-PATH] [prof-symbolize options...]
ours() {
	local elf=$1 addrs=$2 mapped=${3:-$1}
	shift 3
	"$PROF_WORKLOADS/mkcapture" "$elf" "$mapped" < "$addrs" > "$TMP/agree.prof"
	prof-symbolize --inline --lines "$@" "$TMP/agree.prof" | awk '
		function flush_pending() { if (pend != "") { rec = rec sep pend "@??:0"; sep = "|"; pend = "" } }
		/^\t/ { flush_pending(); name = $0; sub(/^\t *[0-9a-f]+ /, "", name); sub(/\+0x[0-9a-f]+( \(.*\))?$/, "", name); '"$normalize_name"' pend = name; next }
		/^  / { fl = $1; sub(/.*\//, "", fl); rec = rec sep pend "@" fl; sep = "|"; pend = ""; next }
		/^$/ { flush_pending(); print rec; rec = ""; sep = "" }'
}

# theirs addr2line|eu-addr2line ELF ADDRFILE
theirs() {
	local tool=$1 elf=$2 addrs=$3
	sed 's/^/0x/' "$addrs" | xargs "$tool" -a -f -i -C -e "$elf" | awk '
		/^0x[0-9a-f]+$/ { if (started) print rec; started = 1; rec = ""; sep = ""; n = 0; next }
		{
			if (n++ % 2 == 0) { name = $0; sub(/ inlined at .*/, "", name); '"$normalize_name"'; next }
			fl = $1; sub(/.*\//, "", fl)
			if (fl ~ /:[0-9]+:[0-9]+$/) sub(/:[0-9]+$/, "", fl)
			sub(/:\?$/, ":0", fl)
			rec = rec sep name "@" fl; sep = "|"
		}
		END { if (started) print rec }'
}

# names_only FILE: the same lines keeping only the outermost function name.
names_only() {
	awk -F'|' '{ f = $NF; sub(/@.*/, "", f); print f }' "$1"
}

# agreement A B: prints "same/total" and the first differences.
agreement() {
	paste -d'\n' "$1" "$2" | awk 'NR % 2 { a = $0; next } { t++; if (a == $0) s++; else if (d++ < 5) print "differs: " a " <> " $0 > "/dev/stderr" } END { print s + 0 "/" t + 0 }'
}
