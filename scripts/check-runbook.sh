#!/bin/sh
# The runbook gate: every fail-closed message in src/ ends with
# "see docs/runbook.md#<anchor>", and each such anchor must be a level-2
# heading "## <anchor>" in docs/runbook.md. Fails naming file:line and anchor.
#
#   scripts/check-runbook.sh [ROOT]     check ROOT (default: this repository)
#   scripts/check-runbook.sh --self-test
#                                       prove the check fails on a missing
#                                       heading and passes on a complete one
set -u

# check ROOT: prints one line per problem, exit 1 if there is any.
check() {
	root=$1
	runbook=$root/docs/runbook.md
	if [ ! -f "$runbook" ]; then
		echo "check-runbook: $runbook does not exist" >&2
		return 1
	fi
	if [ ! -d "$root/src" ]; then
		echo "check-runbook: $root/src does not exist" >&2
		return 1
	fi
	refs=$(cd "$root" && grep -rnoE 'docs/runbook\.md#[A-Za-z0-9_-]*' src)
	status=0
	count=0
	# A here-document, not a pipe, so that status survives the loop.
	while IFS= read -r ref; do
		[ -n "$ref" ] || continue
		count=$((count + 1))
		where=${ref%%:docs/runbook.md#*}
		anchor=${ref##*docs/runbook.md#}
		if [ -z "$anchor" ]; then
			# An anchor built at run time cannot be checked here.
			echo "$where: docs/runbook.md# is not followed by a literal anchor" >&2
			status=1
		elif ! grep -qxF "## $anchor" "$runbook"; then
			echo "$where: docs/runbook.md has no heading \"## $anchor\"" >&2
			status=1
		fi
	done <<REFS
$refs
REFS
	if [ $status -eq 0 ]; then
		echo "check-runbook: $count references, every anchor has its entry"
	fi
	return $status
}

# self_test: a temporary tree with two references, checked once with both
# headings present (must pass) and once with one missing (must fail, naming
# the file, line and anchor), once with a look-alike heading (must fail).
self_test() {
	tmp=$(mktemp -d) || return 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
	mkdir -p "$tmp/src/x" "$tmp/docs"
	cat > "$tmp/src/x/a.c" <<'C'
/* a file with two runbook pointers */
	warnx("grants are invalid, see docs/runbook.md#grants-invalid");
	warnx("the home is full, see docs/runbook.md#home-full");
C
	printf '# Runbook\n\n## grants-invalid\n\ntext\n\n## home-full\n\ntext\n' \
	    > "$tmp/docs/runbook.md"
	if ! check "$tmp" > "$tmp/out" 2>&1; then
		echo "self-test: FAIL: a complete runbook was refused:" >&2
		cat "$tmp/out" >&2
		return 1
	fi
	echo "self-test: a complete runbook passes"

	printf '# Runbook\n\n## grants-invalid\n\ntext\n' > "$tmp/docs/runbook.md"
	if check "$tmp" > "$tmp/out" 2>&1; then
		echo "self-test: FAIL: a missing heading was not found" >&2
		return 1
	fi
	if ! grep -qF 'src/x/a.c:3: docs/runbook.md has no heading "## home-full"' \
	    "$tmp/out"; then
		echo "self-test: FAIL: the failure does not name file, line and anchor:" >&2
		cat "$tmp/out" >&2
		return 1
	fi
	if grep -qF 'grants-invalid' "$tmp/out"; then
		echo "self-test: FAIL: a present heading was reported missing" >&2
		return 1
	fi
	echo "self-test: a missing heading fails: $(cat "$tmp/out")"

	# "### home-full" or "## home-full (disk)" is not the anchor.
	printf '## grants-invalid\n### home-full\n## home-full (disk)\n' \
	    > "$tmp/docs/runbook.md"
	if check "$tmp" > "$tmp/out" 2>&1; then
		echo "self-test: FAIL: a look-alike heading was accepted" >&2
		return 1
	fi
	echo "self-test: a look-alike heading fails"

	printf '\twarnx("see docs/runbook.md#%%s", a);\n' > "$tmp/src/x/b.c"
	printf '## grants-invalid\n## home-full\n' > "$tmp/docs/runbook.md"
	if check "$tmp" > "$tmp/out" 2>&1; then
		echo "self-test: FAIL: an anchor built at run time was accepted" >&2
		return 1
	fi
	echo "self-test: an anchor that is not a literal fails"
	echo "self-test: ok"
	return 0
}

. "$(dirname "$0")/gate.sh"
gate_main "$@"
