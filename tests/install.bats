#!/usr/bin/env bats
# make install puts the four programs and their man pages where asked.

setup() {
	TMP=$(mktemp -d)
	ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
}

teardown() {
	rm -rf "$TMP"
}

@test "make install PREFIX=/usr DESTDIR=... installs binaries and man pages" {
	make -s -C "$ROOT" install BUILD="$BUILD" PREFIX=/usr DESTDIR="$TMP/stage" >/dev/null
	for p in prof-sample prof-symbolize prof-fold prof-svg; do
		[ -x "$TMP/stage/usr/bin/$p" ]
		[ -f "$TMP/stage/usr/share/man/man1/$p.1" ]
		"$TMP/stage/usr/bin/$p" --version | grep -qE "^$p [0-9]+\.[0-9]+\.[0-9]+$"
		# Every man page renders without warnings.
		[ -z "$(MANWIDTH=80 man --warnings -l "$TMP/stage/usr/share/man/man1/$p.1" 2>&1 >/dev/null)" ]
	done
}
