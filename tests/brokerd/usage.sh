#!/bin/sh
# brokerd's command line: no subcommand or an unknown one prints the usage
# and exits 2, and so does explain with its operands missing. serve and
# explain without --config read the default brokerd.toml of the user who
# runs them (proto/defaults.h); a missing one says what writes it. As root
# that check runs as nobody, whose configuration directory the test sets.
# A file that names its home needs no HOME: as root that check runs as a
# uid with no password entry and no HOME at all. A runtime named without a
# path is looked for only in PATH's absolute directories, never in the one
# brokerd was started from.
#   usage.sh BROKERD
set -u
brokerd=$1
# Absolute: one check runs brokerd from another directory.
case $brokerd in /*) ;; *) brokerd=$PWD/$brokerd ;; esac
status=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bx-usage.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

expect() {
	want=$1
	shift
	"$brokerd" "$@" >/dev/null 2>"$tmp/stderr"
	got=$?
	if [ "$got" -ne "$want" ] || ! grep -q "usage: brokerd" "$tmp/stderr"
	then
		echo "FAIL: brokerd $*: exit $got, want $want with the usage"
		status=1
	else
		echo "ok: brokerd $*: exit $got"
	fi
}

# Runs brokerd as a user other than root, with $tmp as its config home.
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		chmod 755 "$tmp"
		env -i PATH=/usr/bin:/bin HOME="$tmp" XDG_CONFIG_HOME="$tmp" \
		    setpriv --reuid=65534 --regid=65534 --clear-groups \
		    "$brokerd" "$@"
	else
		env -i PATH=/usr/bin:/bin HOME="$tmp" XDG_CONFIG_HOME="$tmp" \
		    "$brokerd" "$@"
	fi
}

expect_missing_default() {
	as_owner "$@" >/dev/null 2>"$tmp/stderr"
	got=$?
	want="no configuration at $tmp/boxmaker/brokerd.toml: \`bxctl init\` writes one"
	if [ "$got" -ne 1 ] || ! grep -qF "$want" "$tmp/stderr"; then
		echo "FAIL: brokerd $*: exit $got, want 1 and \"$want\"; got:"
		cat "$tmp/stderr"
		status=1
	else
		echo "ok: brokerd $*: exit 1, $want"
	fi
}

expect_named_home() {
	mkdir -p "$tmp/named/grants"
	printf '[paths]\nhome = "%s/named"\n[runner]\nkind = "refuse"\n' \
	    "$tmp" > "$tmp/named.toml"
	chmod -R a+rX "$tmp"
	if [ "$(id -u)" -eq 0 ]; then
		env -i PATH=/usr/bin:/bin setpriv --reuid=12345 --regid=12345 \
		    --clear-groups "$brokerd" explain --config "$tmp/named.toml" \
		    read_file '{"path": "/a"}' >"$tmp/stdout" 2>"$tmp/stderr"
	else
		env -i PATH=/usr/bin:/bin "$brokerd" explain --config \
		    "$tmp/named.toml" read_file '{"path": "/a"}' \
		    >"$tmp/stdout" 2>"$tmp/stderr"
	fi
	got=$?
	if [ "$got" -ne 0 ] || ! grep -qF "outcome: denied (no_grant)" \
	    "$tmp/stdout"; then
		echo "FAIL: explain with [paths] home and no HOME: exit $got; got:"
		cat "$tmp/stdout" "$tmp/stderr"
		status=1
	else
		echo "ok: explain with [paths] home needs no HOME"
	fi
}

# PATH's relative entries are not searched: a bwrap in ./bin is not taken.
expect_no_relative_path() {
	mkdir -p "$tmp/rel/bin" "$tmp/rel/home/grants"
	printf '#!/bin/sh\nexit 0\n' > "$tmp/rel/bin/bwrap"
	chmod 755 "$tmp/rel/bin/bwrap"
	printf '[paths]\nhome = "%s/rel/home"\n[runner]\nkind = "bwrap"\n' \
	    "$tmp" > "$tmp/rel/brokerd.toml"
	(cd "$tmp/rel" && env -i PATH=bin:.:/nonexistent "$brokerd" serve \
	    --config "$tmp/rel/brokerd.toml") >/dev/null 2>"$tmp/stderr"
	got=$?
	want='runner.bwrap_path "bwrap" is not in PATH'"'"'s absolute directories'
	if [ "$got" -eq 0 ] || ! grep -qF "$want" "$tmp/stderr"; then
		echo "FAIL: brokerd serve with PATH=bin:.: exit $got, want an"
		echo "error with \"$want\"; got:"
		cat "$tmp/stderr"
		status=1
	else
		echo "ok: brokerd serve does not search PATH's relative entries"
	fi
}

expect 2
expect 2 frobnicate
expect 2 explain
expect 2 explain --config /nonexistent read_file
expect 2 serve --config
expect_missing_default serve
expect_missing_default explain read_file '{"path": "/a"}'
expect_named_home
expect_no_relative_path
exit $status
