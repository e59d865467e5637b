#!/bin/sh
# The module-size gate: every brokerd module (src/brokerd/*.c, the runner's
# in src/brokerd/runner/ included) stays under 500 lines, so each keeps one
# purpose (design section 2). Fails naming each file that is too long and
# its line count.
#
#   scripts/check-module-size.sh [ROOT]     check ROOT (default: this repository)
#   scripts/check-module-size.sh --self-test
#                                          prove the check passes at 499 lines
#                                          and fails at 500, naming the file
set -u
limit=500

# check ROOT: prints one line per file too long, exit 1 if there is any.
check() {
	root=$1
	if [ ! -d "$root/src/brokerd" ]; then
		echo "check-module-size: $root/src/brokerd does not exist" >&2
		return 1
	fi
	status=0
	count=0
	for f in "$root"/src/brokerd/*.c "$root"/src/brokerd/runner/*.c; do
		[ -f "$f" ] || continue
		count=$((count + 1))
		lines=$(wc -l < "$f")
		if [ "$lines" -ge $limit ]; then
			echo "${f#"$root"/}: $lines lines; a brokerd module must stay under $limit" >&2
			status=1
		fi
	done
	if [ $count -eq 0 ]; then
		echo "check-module-size: no modules in $root/src/brokerd" >&2
		return 1
	fi
	if [ $status -eq 0 ]; then
		echo "check-module-size: $count modules, each under $limit lines"
	fi
	return $status
}

# lines N FILE: writes a C file of exactly N lines.
lines() {
	i=0
	while [ "$i" -lt "$1" ]; do
		echo "/* line $i */"
		i=$((i + 1))
	done > "$2"
}

self_test() {
	tmp=$(mktemp -d) || return 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
	mkdir -p "$tmp/src/brokerd/runner"
	lines 499 "$tmp/src/brokerd/a.c"
	lines 499 "$tmp/src/brokerd/runner/c.c"
	lines 10 "$tmp/src/brokerd/b.c"
	lines 900 "$tmp/src/brokerd/notes.txt"
	if ! check "$tmp" > "$tmp/out" 2>&1; then
		echo "self-test: FAIL: modules of 499 and 10 lines were refused:" >&2
		cat "$tmp/out" >&2
		return 1
	fi
	echo "self-test: 499 lines passes, and files other than .c are not counted"
	lines 500 "$tmp/src/brokerd/b.c"
	if check "$tmp" > "$tmp/out" 2>&1; then
		echo "self-test: FAIL: a module of 500 lines was accepted" >&2
		return 1
	fi
	if ! grep -qF 'src/brokerd/b.c: 500 lines' "$tmp/out" ||
	    grep -qF 'a.c' "$tmp/out"; then
		echo "self-test: FAIL: the failure does not name exactly the long file:" >&2
		cat "$tmp/out" >&2
		return 1
	fi
	echo "self-test: 500 lines fails: $(cat "$tmp/out")"
	lines 10 "$tmp/src/brokerd/b.c"
	lines 500 "$tmp/src/brokerd/runner/c.c"
	if check "$tmp" > "$tmp/out" 2>&1 ||
	    ! grep -qF 'src/brokerd/runner/c.c: 500 lines' "$tmp/out"; then
		echo "self-test: FAIL: a runner module of 500 lines was not named:" >&2
		cat "$tmp/out" >&2
		return 1
	fi
	echo "self-test: a runner module of 500 lines fails too"
	rm -f "$tmp"/src/brokerd/*.c "$tmp"/src/brokerd/runner/*.c
	if check "$tmp" > "$tmp/out" 2>&1; then
		echo "self-test: FAIL: a tree with no modules was accepted" >&2
		return 1
	fi
	echo "self-test: no modules at all fails"
	echo "self-test: ok"
	return 0
}

. "$(dirname "$0")/gate.sh"
gate_main "$@"
