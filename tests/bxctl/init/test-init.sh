#!/bin/sh
# test-init.sh: build/bxctl init as an owner would run it, as a user other
# than root (nobody, when the test runs as root) with a home of its own:
# the files land in the XDG directories, a second run refuses to overwrite
# them and --force does (but never bxbridge.toml), the secrets directory beside them is 0700 and a
# looser one is refused, the grants directory is empty, the example
# beside it is no grant, and bad command lines exit 2. brokerd explain
# reads the brokerd.toml it wrote, with the example copied in as a grant.
#   test-init.sh BXCTL BROKERD
set -u
bxctl=$1 brokerd=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bx-init.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
user=$tmp/user
mkdir "$user"

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; cat "$tmp/out" "$tmp/err"; }

# Runs a program as the owner, with $user as HOME and nothing else set.
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		chown 65534:65534 "$user"
		chmod 755 "$tmp"
		env -i PATH=/usr/bin:/bin HOME="$user" setpriv --reuid=65534 \
		    --regid=65534 --clear-groups "$@"
	else
		env -i PATH=/usr/bin:/bin HOME="$user" "$@"
	fi >"$tmp/out" 2>"$tmp/err"
}

# expect STATUS TEXT-ON-STDOUT-OR-STDERR -- COMMAND...
expect() {
	want=$1 text=$2
	shift 3
	as_owner "$@"
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$*: exit $got, want $want"
	elif ! grep -qF -- "$text" "$tmp/out" "$tmp/err"; then
		fail "$*: no \"$text\""
	else
		pass
	fi
}

cfg=$user/.config/boxmaker
home=$user/.local/share/boxmaker
expect 0 "wrote $cfg/brokerd.toml" -- "$bxctl" init --runtime bwrap
expect 0 "missing" -- "$bxctl" init --force
if grep -qx 'kind = "podman"' "$cfg/brokerd.toml" &&
    grep -qx "home = \"$home\"" "$cfg/brokerd.toml" &&
    grep -qx "socket = \"$home/run/loop-broker/broker.sock\"" \
    "$cfg/loopd.toml" &&
    grep -qx 'url = "http://127.0.0.1:8080"' "$cfg/loopd.toml"; then
	pass
else
	fail "the files lack the home, the runtime, the socket or the url"
fi
# The secrets directory beside the files: empty, 0700 and the owner's, as
# brokerd's secret reader demands.
if [ "$(stat -c '%a %u' "$cfg/secrets")" = "700 $(stat -c %u "$user")" ] &&
    [ -z "$(ls -A "$cfg/secrets")" ] &&
    grep -qF "made $cfg/secrets: no secret yet" "$tmp/out"; then
	pass
else
	fail "$cfg/secrets is not an empty 0700 directory of the owner's: $(stat -c '%a %u' "$cfg/secrets" 2>&1)"
fi
expect 1 "$cfg/brokerd.toml exists; \`bxctl init --force\` overwrites it" \
    -- "$bxctl" init
# bxbridge.toml beside them: 0600, not set up, and kept even by --force.
if [ "$(stat -c %a "$cfg/bxbridge.toml")" = 600 ] &&
    grep -qx '# url = "https://chat.example.org"' "$cfg/bxbridge.toml" &&
    grep -qx "socket = \"$home/run/bridge-broker/bridge.sock\"" \
    "$cfg/bxbridge.toml"; then
	pass
else
	fail "bxbridge.toml is not 0600, or lacks the commented url or the socket"
fi
echo "# the owner's" >>"$cfg/bxbridge.toml"
expect 0 "kept $cfg/bxbridge.toml" -- "$bxctl" init --force
tail -n 1 "$cfg/bxbridge.toml" | grep -qx "# the owner's" && pass ||
    fail "init --force overwrote bxbridge.toml"
if [ -z "$(ls -A "$home/grants")" ] && [ -f "$home/example-grant.toml" ]
then
	pass
else
	fail "the grants directory is not empty, or the example is missing"
fi
expect 0 "systemctl --user enable --now brokerd loopd" -- "$bxctl" init \
    --force --runtime podman
expect 2 "--runtime is podman or bwrap, not 'docker'" -- "$bxctl" init \
    --runtime docker
expect 2 "unknown option '--frob'" -- "$bxctl" init --frob
expect 2 "usage: bxctl init" -- "$bxctl" init extra
expect 0 "usage: bxctl init" -- "$bxctl" init --help

# A secrets directory brokerd would not read is named, and left as it is.
chmod 755 "$cfg/secrets"
expect 1 "$cfg/secrets: the secrets directory has mode 0755, not 0700" -- \
    "$bxctl" init --force
[ "$(stat -c %a "$cfg/secrets")" = 755 ] && pass ||
    fail "init changed the mode of a secrets directory it refused"
chmod 700 "$cfg/secrets"

# brokerd reads what init wrote; the example loads once it is a grant.
as_owner "$brokerd" explain read_file "{\"path\": \"$user/notes/a\"}"
grep -qF "outcome: denied" "$tmp/out" && pass ||
    fail "brokerd explain with no grant did not deny"
cp "$home/example-grant.toml" "$home/grants/notes-read.toml"
chmod 644 "$home/grants/notes-read.toml"
expect 0 "outcome: allowed" -- "$brokerd" explain read_file \
    "{\"path\": \"$user/notes/a\"}"

# A home too long for its sockets writes nothing.
rm -rf "$cfg"
long=$user/$(printf '%090d' 0)
expect 1 "is too long for its sockets" -- env BOXMAKER_HOME="$long" \
    "$bxctl" init
[ ! -e "$cfg/brokerd.toml" ] && pass || fail "a refused init wrote a file"

# A file where the home's parent should be is named, and no configuration
# is written for a home that could not be made.
rm -rf "$cfg"
touch "$user/file"
expect 1 "$user/file is not a directory" -- \
    env BOXMAKER_HOME="$user/file/home" "$bxctl" init
[ ! -e "$cfg/brokerd.toml" ] && pass || fail "init wrote a file for no home"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
