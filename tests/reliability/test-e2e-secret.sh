#!/bin/sh
# A whole turn with a secret (issue 41; docs/design.md, "Secrets"), under
# the runtime named first (podman or bwrap), inside tests/egress/testnet.sh's
# network, with the real programs: fake-llama asks for an http_fetch of
# good.test's /echo/authorization under a grant that names a bearer
# secret; loopd (jailed) runs the turn; brokerd runs the call in that
# runtime; bxctl chat is the client. Checks:
#
#  - good.test received the secret in its Authorization header (its log);
#  - the tool result, as fake-llama received it in its next request, holds
#    "[secret github]" and "[N occurrences of the secret github were
#    removed]", N the count brokerd's log gives for the call, and N is the
#    number of lines of the echo (each line holds one occurrence);
#  - no form of the value (secret-scan: every form tls-host echoes, and
#    any 8 bytes of the value in a row) is in the session log, any request
#    body fake-llama received, bxctl chat's stdout or stderr, brokerd's or
#    loopd's output, the audit log, or any other file of the home but the
#    secret's own;
#  - and, so that a clean search means something, secret-scan finds the
#    value in good.test's log, where it is.
#
# Without the wrapper, the runtime, podman or bwrap it fails, never skips.
# Whatever happens it stops what it started.
#
#   testnet.sh --slot N tls-host -- test-e2e-secret.sh RUNTIME SOURCE_ROOT BUILD_ROOT
set -u

runtime=${1-}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${3:-$src/build}
case "$build" in
/*) ;;
*) build=$(pwd)/$build ;;
esac
WAIT_S=120
status=1
home=
# shellcheck source=scripts/daemons.sh
. "$src/scripts/daemons.sh"

case $runtime in
podman | bwrap) ;;
*) fail "usage: test-e2e-secret.sh podman|bwrap [SOURCE_ROOT [BUILD_ROOT]]" ;;
esac
[ -n "${BX_TESTNET_DIR-}" ] && [ -n "${BX_TESTNET_ALLOW-}" ] ||
    fail "BX_TESTNET_DIR or BX_TESTNET_ALLOW is not set: run me through tests/egress/testnet.sh"

brokerd=$build/src/brokerd/brokerd
loopd=$build/src/loopd/loopd
bxctl=$build/src/bxctl/bxctl
fake=$build/tests/fake-llama/fake-llama
scan=$build/tests/egress/secret-scan
for prog in "$brokerd" "$loopd" "$bxctl" "$fake" "$scan"; do
	[ -x "$prog" ] || fail "$prog is missing; build first (make)"
done
for tool in podman bwrap; do
	command -v "$tool" > /dev/null ||
	    fail "$tool is missing: this test needs it (scripts/install-deps.sh)"
done

# Not the value of test-egress-secret.c, whose /proc search may run beside.
# Its '/' makes its JSON and percent forms differ from it, and its base64
# has a '+' or '/' at every alignment, so that base64url differs too: each
# form is a needle of its own.
VALUE='bxE2E/EMnY9tlicZLhC+UJwnHB~?>'
SECRET=github
SESSION=secret-1

tmp=${TMPDIR:-/tmp}
[ ${#tmp} -le 48 ] || tmp=/tmp
top=$(mktemp -d "$tmp/bx-e2e-secret.XXXXXX") || exit 1
home=$top/home

on_exit() {
	stop_all
	if [ "$status" -eq 0 ]; then
		rm -rf "$top"
		return
	fi
	[ -n "$home" ] && [ -d "$home/logs" ] && show_logs
	echo "test-e2e-secret: failed; the home is kept in $top" >&2
}
trap on_exit EXIT
trap 'echo "test-e2e-secret: interrupted" >&2; exit 1' INT TERM HUP

# scan_for_value PATH...: secret-scan of the paths, the value and its
# header on standard input (printf is the shell's, so no argv holds it).
scan_for_value() {
	printf 'Bearer %s\n%s\n' "$VALUE" "$VALUE" | "$scan" "$@"
}

mkdir -m 700 "$home" || fail "cannot make $home"
mkdir -p "$home/logs" "$home/grants" "$home/model/requests" "$top/chat"
export BOXMAKER_HOME="$home"
mkdir -m 700 "$home/secrets" &&
    printf 'kind = "bearer"\nhosts = ["good.test"]\nvalue = "%s"\n' "$VALUE" \
    > "$home/secrets/$SECRET.toml" && chmod 600 "$home/secrets/$SECRET.toml" ||
    fail "cannot write $home/secrets/$SECRET.toml"
cat > "$home/grants/fetch.toml" <<EOF
# test-e2e-secret's grant: good.test, with the secret.
tool = "http_fetch"
mode = "auto"
max_taint = "secret"
result_class = "private"
expires = "2099-01-01T00:00:00.000Z"
secret = "$SECRET"

[constraints]
hosts = ["good.test"]
EOF
cat > "$home/model/script.json" <<'EOF'
[
{"tool_calls": [{"name": "call_tool", "arguments": {"name": "http_fetch", "arguments": {"url": "https://good.test/echo/authorization"}}}]},
{"text": "Fetched; the token was taken out."}
]
EOF

say "$runtime: fake-llama, brokerd and loopd on $home (testnet $BX_TESTNET_DIR)"
start fake-llama "$fake" --script "$home/model/script.json" \
    --port-file "$home/model/port" --record "$home/model/requests"
wait_up fake-llama "$started" test -s "$home/model/port"
write_brokerd_toml "kind = \"$runtime\""
cat >> "$home/brokerd.toml" <<EOF

[egress]
connect_timeout_ms = 2000
ca_file = "$BX_TESTNET_DIR/ca.pem"
allow_addresses = ["$BX_TESTNET_ALLOW"]
EOF
write_loopd_toml "http://127.0.0.1:$(cat "$home/model/port")" e2e-secret 60
start_broker_and_loop
head -n 1 "$home/logs/loopd.log" | grep -q 'runs in its jail' ||
    fail "loopd's log does not say the turn loop runs in its jail"

say "$runtime: bxctl chat, one turn with the http_fetch"
out=$top/chat/stdout
err=$top/chat/stderr
timeout "$WAIT_S" "$bxctl" chat --session "$SESSION" \
    --say 'What does good.test echo of my token?' > "$out" 2> "$err"
rc=$?
sed 's/^/    /' "$out" | cut -c 1-160
sed 's/^/    err: /' "$err"
[ $rc -eq 0 ] || fail "bxctl chat exited $rc"
grep -q '^model: Fetched; the token was taken out.' "$out" ||
    fail "the chat did not end with the model's reply"
id=$(awk '$1 == "call" && $3 == "http_fetch" { sub(/:$/, "", $2); print $2; exit }' "$out")
[ -n "$id" ] || fail "the chat shows no http_fetch call"

say "$runtime: what good.test received"
grep -qxF "header good.test Authorization: Bearer $VALUE" "$BX_TESTNET_DIR/log-a.txt" ||
    fail "good.test's log has no Authorization header with the secret"
echo "    good.test's log has the header with the secret"
# The control: the search finds the value where it is.
scan_for_value "$BX_TESTNET_DIR/log-a.txt" > "$top/control.txt"
rc=$?
sed 's/^/    /' "$top/control.txt"
[ $rc -eq 1 ] && grep -q '^FOUND ' "$top/control.txt" ||
    fail "secret-scan does not find the value in good.test's log (exit $rc)"

say "$runtime: the tool result in the model's next request"
n_requests=$(find "$home/model/requests" -name 'request-*.json' | wc -l)
[ "$n_requests" -eq 2 ] ||
    fail "fake-llama received $n_requests requests, not 2 (the call, then its result)"
next=$home/model/requests/request-002.json
markers=$(grep -o "\[secret $SECRET\]" "$next" | wc -l)
said=$(grep -o "\[[0-9]* occurrences of the secret $SECRET were removed\]" "$next")
removed=$(echo "$said" | sed 's/^\[\([0-9]*\) .*/\1/')
[ -n "$said" ] && [ "$(echo "$said" | wc -l)" -eq 1 ] ||
    fail "request-002.json does not say once how many occurrences were removed"
logged=$(sed -n "s/.*call $id: \([0-9]*\) occurrences of the secret $SECRET removed from the result.*/\1/p" \
    "$home/logs/brokerd.log")
# The echo: 32 lines for each subject, the header value and the token in it.
lines=64
echo "    $markers markers, \"$said\"; brokerd's log: $logged; lines echoed: $lines"
[ "$markers" -eq "$removed" ] ||
    fail "request-002.json has $markers markers but says $removed were removed"
[ "$removed" = "$logged" ] ||
    fail "the model was told $removed were removed, brokerd's log says '$logged'"
[ "$removed" -eq "$lines" ] ||
    fail "$removed occurrences removed, not one for each of the echo's $lines lines"
grep -q '"role": *"tool"' "$next" ||
    fail "request-002.json has no tool message"

say "$runtime: no form of the value anywhere it must not be"
session_log=$home/sessions/$SESSION.jsonl
for f in "$session_log" "$home/model/requests/request-001.json" "$next" \
    "$out" "$home/logs/brokerd.log"; do
	[ -s "$f" ] || fail "$f is missing or empty: nothing to search"
done
[ -n "$(find "$home/audit" -name '*.jsonl' -size +0)" ] ||
    fail "the audit log is missing or empty: nothing to search"
grep -q "\[secret $SECRET\]" "$session_log" ||
    fail "the session log does not hold the redacted result"
# Every file of the home but the secret's own: the session log, every
# request body, brokerd's and loopd's output, the audit log, and the rest.
stop_all
files=$(find "$home" -path "$home/secrets" -prune -o -type f -print | sort)
# shellcheck disable=SC2086 # one path a line, none with spaces
scan_for_value --list $files "$out" "$err" > "$top/scan.txt"
rc=$?
sed 's/^/    /' "$top/scan.txt"
[ $rc -eq 0 ] || fail "secret-scan found the value (exit $rc); see above"
grep -q "^clean $session_log " "$top/scan.txt" &&
    grep -q "^clean $next " "$top/scan.txt" &&
    grep -q "^clean $home/logs/brokerd.log " "$top/scan.txt" ||
    fail "secret-scan did not search the session log, request-002.json and brokerd.log"

echo
echo "test-e2e-secret: ok ($runtime): $removed occurrences removed;" \
    "$(grep -c '^clean ' "$top/scan.txt") files clean of" \
    "$(sed -n 's/^secret-scan: //p' "$top/scan.txt")"
status=0
