#!/bin/sh
# The standalone gate: what a user reads (README.md, docs/, man/, examples/)
# stands on its own, so it never points outside the repository: not into a
# sibling directory ("../"), nor at the design papers the project was built
# from, which a user of the project does not have. Fails naming each file and
# line.
#
#   scripts/check-standalone.sh [ROOT]  check ROOT (default: this repository)
#   scripts/check-standalone.sh --self-test
#                                      prove the check fails on each kind of
#                                      pointer, naming its line, and passes
#                                      on text without one
set -u

# What counts as a pointer out: a path that climbs out of the tree, or the
# file name of one of the owner's design papers.
pattern="(^|[[:space:]\`\"'(<])\\.\\./[A-Za-z]|m3[a-z]-[a-z-]+\\.md|baseline\\.md"

# check ROOT: prints one line per pointer, exit 1 if there is any.
check() {
	root=$1
	if [ ! -f "$root/README.md" ] || [ ! -d "$root/docs" ]; then
		echo "check-standalone: $root has no README.md or docs/" >&2
		return 1
	fi
	dirs=
	for d in docs man examples; do
		[ -d "$root/$d" ] && dirs="$dirs $d"
	done
	# shellcheck disable=SC2086 # dirs is a list of names without spaces
	hits=$(cd "$root" && grep -rnE "$pattern" README.md $dirs)
	if [ -n "$hits" ]; then
		echo "$hits" | while IFS= read -r hit; do
			file=${hit%%:*}
			rest=${hit#*:}
			line=${rest%%:*}
			echo "$file:$line: points outside the repository: $(echo "${rest#*:}" | cut -c1-100)" >&2
		done
		return 1
	fi
	echo "check-standalone: README.md, docs/, man/ and examples/ point nowhere outside the repository"
	return 0
}

self_test() {
	tmp=$(mktemp -d) || return 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
	mkdir -p "$tmp/docs" "$tmp/man" "$tmp/examples"
	printf '# Tool\n\nSee docs/design.md and brokerd(8).\n' > "$tmp/README.md"
	printf 'The design in brief; paths like a/../b are not pointers out.\n' \
	    > "$tmp/docs/design.md"
	if ! check "$tmp" > "$tmp/out" 2>&1; then
		echo "self-test: FAIL: text without a pointer was refused:" >&2
		cat "$tmp/out" >&2
		return 1
	fi
	echo "self-test: text without a pointer passes"
	printf 'one\nThe spec: `../shared/spec/x.md`.\n' > "$tmp/README.md"
	printf 'as baseline.md says\n' > "$tmp/man/tool.8"
	printf '# see m3b-runner.md\n' > "$tmp/examples/tool.toml"
	if check "$tmp" > "$tmp/out" 2>&1; then
		echo "self-test: FAIL: pointers out were accepted" >&2
		return 1
	fi
	if ! grep -qF 'README.md:2: points outside the repository: The spec: `../shared/spec/x.md`.' "$tmp/out" ||
	    ! grep -qF 'man/tool.8:1: points outside the repository: as baseline.md says' "$tmp/out" ||
	    ! grep -qF 'examples/tool.toml:1: points outside the repository: # see m3b-runner.md' "$tmp/out"; then
		echo "self-test: FAIL: the failure does not name each file and line:" >&2
		cat "$tmp/out" >&2
		return 1
	fi
	echo "self-test: pointers out fail: $(tr '\n' ' ' < "$tmp/out")"
	echo "self-test: ok"
	return 0
}

. "$(dirname "$0")/gate.sh"
gate_main "$@"
