#!/bin/sh
# test-main.sh: bxbridge's command line, before any jail is built: help
# and --version on stdout with exit 0, a usage error with exit 2, a bad or
# missing configuration and a token file others may read refused with
# exit 1 and a message naming the file and the fix, and --in-jail refused
# outside the jail (it is the launcher's word).
#
#	test-main.sh BUILD/src/bxbridge/bxbridge
set -u

bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

fail() {
	echo "test-main: FAIL: $*" >&2
	exit 1
}

# run WANT_RC ARGS...: stdout in $dir/out, stderr in $dir/err.
run() {
	want=$1
	shift
	"$bin" "$@" > "$dir/out" 2> "$dir/err"
	rc=$?
	[ "$rc" -eq "$want" ] ||
	    fail "bxbridge $* exited $rc, not $want: $(cat "$dir/err")"
}

says() {
	grep -qF -- "$2" "$dir/$1" || fail "$1 lacks \"$2\": $(cat "$dir/$1")"
}

run 0 --help
says out "usage: bxbridge serve [--config PATH]"
says out "bxbridge check [--config PATH]"
run 0 help check
run 0 check --help
run 0 --version
grep -qE '^bxbridge [0-9]+\.[0-9]+\.[0-9]+$' "$dir/out" ||
    fail "--version printed $(cat "$dir/out")"
run 2 frobnicate
says err "usage: bxbridge serve"
run 2 serve --conf x
run 2 check --config a b

run 1 serve --config "$dir/missing.toml"
says err "bxbridge: "
says err "missing.toml"

mkdir -m 700 "$dir/home"
printf 'faketoken00000000000000000\n' > "$dir/token"
chmod 644 "$dir/token"
cat > "$dir/bxbridge.toml" <<EOT
[mattermost]
url = "http://127.0.0.1:9"
token_file = "$dir/token"
owner = "owner000000000000000000000"

[broker]
socket = "$dir/home/run/bridge-broker/bridge.sock"
EOT
printf '[mattermost]\nurl = "http://example.org"\n' > "$dir/bad.toml"
run 1 check --config "$dir/bad.toml"
says err "bad.toml"

# The token's file is refused before the jail is planned or any request.
BOXMAKER_HOME=$dir/home run 1 check --config "$dir/bxbridge.toml"
says err "[mattermost] token_file $dir/token has mode 0644"
says err "chmod 600 $dir/token"
says err "docs/runbook.md#bridge-token-refused"
grep -q faketoken "$dir/err" && fail "the token is in a message"

run 1 serve --config "$dir/bxbridge.toml" --in-jail 0 --launcher 1
says err "--in-jail is for bxbridge's launcher"
echo "test-main: ok"
