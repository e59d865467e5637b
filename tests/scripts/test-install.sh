#!/bin/sh
# make install's tree, staged with DESTDIR: the programs, the systemd user
# units where systemctl --user looks for the build's PREFIX, each unit's
# ExecStart naming an installed program with no --config and no
# BOXMAKER_HOME (the owner's defaults apply), and the examples under
# share/doc/boxmaker.
#   tests/scripts/test-install.sh BUILD_ROOT
set -u
build=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bx-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

prefix=$(meson introspect --buildoptions "$build" |
    python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
if ! meson install -C "$build" --no-rebuild --quiet --destdir "$tmp" \
    >"$tmp/log" 2>&1; then
	cat "$tmp/log"
	echo "0 passed, 1 failed"
	exit 1
fi
root=$tmp$prefix
for f in sbin/brokerd sbin/loopd bin/bxbridge bin/bxctl \
    libexec/boxmaker/bxtool libexec/boxmaker/bxegress; do
	[ -x "$root/$f" ] && pass || fail "$prefix/$f is not installed"
done
for unit in brokerd loopd bxbridge; do
	file=$root/lib/systemd/user/$unit.service
	if [ ! -f "$file" ]; then
		fail "$prefix/lib/systemd/user/$unit.service is not installed"
		continue
	fi
	exec=$(sed -n 's/^ExecStart=//p' "$file")
	# bxbridge is a command the owner types (bxbridge check): bin.
	dir=sbin
	[ "$unit" = bxbridge ] && dir=bin
	[ "$exec" = "$prefix/$dir/$unit serve" ] && pass ||
	    fail "$unit.service: ExecStart=$exec"
	[ -x "$tmp${exec%% *}" ] && pass || fail "$unit.service: ${exec%% *} is not installed"
	grep -q 'BOXMAKER_HOME\|@' "$file" &&
	    fail "$unit.service sets BOXMAKER_HOME or kept a placeholder" || pass
done
[ -f "$root/share/man/man8/bxbridge.8" ] && pass ||
    fail "$prefix/share/man/man8/bxbridge.8 is not installed"
# The bridge's unit comes with brokerd's and is not enabled by make install.
grep -qx 'Requires=brokerd.service' "$root/lib/systemd/user/bxbridge.service" &&
    grep -qx 'After=brokerd.service' "$root/lib/systemd/user/bxbridge.service" &&
    pass || fail "bxbridge.service does not require and follow brokerd.service"
[ -z "$(find "$tmp" -path '*wants*' -name 'bxbridge.service')" ] && pass ||
    fail "make install enabled bxbridge.service"
for f in brokerd.toml loopd.toml grants/notes-read.toml; do
	[ -f "$root/share/doc/boxmaker/examples/$f" ] && pass ||
	    fail "examples/$f is not under $prefix/share/doc/boxmaker"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
