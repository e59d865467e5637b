#!/bin/sh
# The example configuration under examples/ loads, and its grants decide as
# their comments say: examples/brokerd.toml with BOXMAKER_HOME pointing at a
# home whose grants are a copy of examples/grants, through brokerd explain.
#
#   tests/scripts/test-examples.sh SOURCE_ROOT BUILD_ROOT
set -u
src=$1
brokerd=$2/src/brokerd/brokerd
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/grants"
cp "$src"/examples/grants/*.toml "$tmp/grants/"
export BOXMAKER_HOME="$tmp"
failed=0

# expect OUTCOME [--taint CLASS] TOOL ARGUMENTS, decided at $now.
now=2026-06-01T00:00:00.000Z
expect() {
	want=$1
	shift
	out=$("$brokerd" explain --config "$src/examples/brokerd.toml" \
	    --now "$now" "$@" 2>&1)
	rc=$?
	got=$(printf '%s\n' "$out" | sed -n 's/^outcome: //p')
	if [ $rc -ne 0 ] || [ "$got" != "$want" ] ||
	    printf '%s\n' "$out" | grep -q '^problem:'; then
		echo "FAIL: $*: wanted outcome $want, got (exit $rc):" >&2
		printf '%s\n' "$out" >&2
		failed=1
		return
	fi
	echo "ok: $*: $got"
}

expect allowed read_file '{"path":"/home/you/notes/a.md"}'
expect 'denied (denied_by_grant)' read_file '{"path":"/home/you/.ssh/id_ed25519"}'
expect 'denied (no_grant)' read_file '{"path":"/etc/passwd"}'
expect ask shell '{"command":"make","cwd":"/home/you/scratch"}'
expect 'denied (taint_too_high)' --taint secret shell \
    '{"command":"make","cwd":"/home/you/scratch"}'
expect ask write_file '{"path":"/home/you/notes/drafts/a.md","content":"x"}'
expect 'denied (no_grant)' write_file '{"path":"/home/you/notes/drafts","content":"x"}'
expect allowed --taint private http_fetch '{"url":"https://docs.example.org/a"}'
expect 'denied (taint_too_high)' --taint secret http_fetch \
    '{"url":"https://example.org/"}'
now=2027-06-01T00:00:00.000Z
expect 'denied (grant_expired)' read_file '{"path":"/home/you/notes/a.md"}'
now=2026-06-01T00:00:00.000Z
expect 'denied (invalid_arguments)' read_file '{"path":"/home/you/notes/../.ssh/id"}'
exit $failed
