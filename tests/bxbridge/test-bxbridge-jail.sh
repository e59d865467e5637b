#!/bin/sh
# The real bxbridge's jail, checked from outside and from inside (issue
# 42), as tests/loopd/test-jailed.sh checks loopd's. NEEDS ROOT, and the
# user boxmaker-bridge (scripts/install-deps.sh makes it), nsenter, curl,
# socat and bash; it fails (never skips) without them. On a temporary home it
# starts the fake Mattermost server (HTTP on 127.0.0.1), brokerd (whose
# bridge.sock is the default one) and `bxbridge serve`, and checks:
#
#  - outside: the jailed bridge (the launcher's child with --in-jail) has
#    Uid and Gid boxmaker-bridge's, never 0; NoNewPrivs 1, Seccomp 2,
#    CapEff and CapBnd 0; user, mnt, pid, net, ipc and uts namespaces all
#    unlike this shell's; the token in neither its nor the launcher's
#    cmdline or environ; its state.json says Mattermost and brokerd are
#    connected (it got through both of its doors);
#  - inside: a shell entered into the bridge's own namespaces and root
#    with nsenter, as the bridge's uid (so without the bridge's seccomp
#    filter, checked above from outside), reports what it reaches: its
#    config read-only, its state dir writable, bridge.sock there but not
#    its directory's list; admin.sock, grants/, audit/, secrets/ and a
#    file of the owner's outside the home absent; TCP to loopback (the
#    fake's own port) and to any other host unreachable; and the relay
#    answering as the fake server whatever host the request names;
#  - an ask call end to end: a tool_request on broker.sock (socat, as
#    loopd sends it) under the ask grant a.toml becomes pending; the jailed
#    bridge posts it to the fake server; the owner's white_check_mark
#    reaction (the fake's /fake/react) approves it: the call runs and
#    answers the file's text, the audit log's Approval record says by the
#    owner's id and post the post's id, and the fake gets a PUT .../patch
#    saying approved; a second call refused by the owner's thread reply
#    `refuse not now` is denied approval_refused, recorded with that reason,
#    and patched to say refused. It prints the post, the answer, the
#    Approval record and the patched post of each;
#  - `bxbridge check` beside the running bridge: exit 0, its findings, and
#    the fake's request log showing the test post made and deleted; with
#    a wrong token exit 1 naming token-refused and its runbook entry;
#  - SIGTERM to the launcher: exit 0, and the jailed bridge is gone.
#
# Whatever happens it stops what it started. It ends with the evidence.
#
#   tests/bxbridge/test-bxbridge-jail.sh [SOURCE_ROOT [BUILD_ROOT]]
set -u

src=${1:-${BX_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}}
build=${2:-${BX_BUILD_ROOT:-$src/build}}
case "$build" in
/*) ;;
*) build=$(pwd)/$build ;;
esac
# Generous: the machine may be slow and shared. Every wait is for a thing.
WAIT_S=120
status=1
home=
# shellcheck source=scripts/daemons.sh
. "$src/scripts/daemons.sh"

brokerd=$build/src/brokerd/brokerd
bxbridge=$build/src/bxbridge/bxbridge
fake=$build/tests/bxbridge/fake-mattermost/fake-mattermost
for prog in "$brokerd" "$bxbridge" "$fake"; do
	[ -x "$prog" ] || fail "$prog is missing; build first (make)"
done
[ "$(id -u)" -eq 0 ] ||
    fail "this test needs root (it enters the bridge's jail with nsenter); run it as root"
for tool in nsenter curl bash socat; do
	command -v "$tool" > /dev/null ||
	    fail "$tool is missing: this test needs it (scripts/install-deps.sh)"
done
jail_uid=$(id -u boxmaker-bridge 2> /dev/null) ||
    fail "no user boxmaker-bridge (scripts/install-deps.sh and bxctl init make it; runbook jail-unavailable)"
jail_gid=$(id -g boxmaker-bridge)

TOKEN=faketoken00000000000000000
OWNER=owner000000000000000000000

# Socket paths must fit 107 bytes: a long TMPDIR falls back to /tmp.
tmp=${TMPDIR:-/tmp}
[ ${#tmp} -le 48 ] || tmp=/tmp
top=$(mktemp -d "$tmp/bx-bridge.XXXXXX") || exit 1
chmod 755 "$top"
evidence=$top/evidence
: > "$evidence"

on_exit() {
	stop_all
	if [ "$status" -eq 0 ]; then
		rm -rf "$top"
		return
	fi
	[ -n "$home" ] && [ -d "$home/logs" ] && show_logs
	echo "test-bxbridge-jail: failed; the evidence so far:" >&2
	cat "$evidence" >&2
	echo "test-bxbridge-jail: the files are kept in $top" >&2
}
trap on_exit EXIT
trap 'echo "test-bxbridge-jail: interrupted" >&2; exit 1' INT TERM HUP

note() {
	printf '%s\n' "$*" | tee -a "$evidence"
}

# write_bridge_toml FILE TOKEN_FILE: bxbridge.toml for the fake server.
write_bridge_toml() {
	cat > "$1" <<EOF
[mattermost]
url = "http://127.0.0.1:$port"
token_file = "$2"
owner = "$OWNER"
poll_s = 1

[broker]
socket = "$home/run/bridge-broker/bridge.sock"
EOF
	chmod 644 "$1"
}

bridge_pid() {
	pgrep -P "$launcher" -f -- '--in-jail' | head -n 1
}

has_bridge() {
	[ -n "$(bridge_pid)" ]
}

state_connected() {
	grep -q '"mattermost":"connected","broker":"connected"' \
	    "$home/bridge/state.json"
}

# --- the home, the owner's files, the fake server, brokerd, the bridge
home=$top/home
mkdir -m 700 "$home" && mkdir -p "$home/logs" "$home/grants" ||
    fail "cannot make $home"
cat > "$home/grants/a.toml" <<EOF
# A grant the bridge must not see.
tool = "read_file"
mode = "ask"
max_taint = "secret"
result_class = "private"
untrusted = false
expires = "2099-01-01T00:00:00.000Z"

[constraints]
paths = ["$top/owner"]
EOF
mkdir -m 700 "$home/secrets" &&
    printf 'kind = "bearer"\nhosts = ["api.example.org"]\nvalue = "BRIDGE-JAIL-SECRET"\n' \
    > "$home/secrets/github.toml" && chmod 600 "$home/secrets/github.toml" ||
    fail "cannot write $home/secrets/github.toml"
# A file of the owner's outside the home, readable by anyone on the host.
mkdir -p "$top/owner" && printf 'the owner'"'"'s notes\n' > "$top/owner/notes.txt" &&
    chmod 644 "$top/owner/notes.txt" || fail "cannot write $top/owner/notes.txt"
mkdir -m 700 "$top/config" && printf '%s\n' "$TOKEN" > "$top/config/token" &&
    chmod 600 "$top/config/token" || fail "cannot write the token file"
export BOXMAKER_HOME="$home"

say "the fake Mattermost server, brokerd and bxbridge serve on $home"
start fake-mattermost "$fake" --log "$home/logs/mm-requests.jsonl" \
    --token "$TOKEN" --owner "$OWNER"
fake_pid=$started
port_line() {
	grep -qE '^[0-9]+$' "$home/logs/fake-mattermost.log"
}
wait_up fake-mattermost "$fake_pid" port_line
port=$(head -n 1 "$home/logs/fake-mattermost.log")
write_bridge_toml "$top/config/bxbridge.toml" "$top/config/token"

write_brokerd_toml 'kind = "bwrap"'
start brokerd "$brokerd" serve --config "$home/brokerd.toml"
wait_up brokerd "$started" sock_ready "$home/run/bridge-broker/bridge.sock"

start bxbridge "$bxbridge" serve --config "$top/config/bxbridge.toml"
launcher=$started
wait_up bxbridge "$launcher" has_bridge
inner=$(bridge_pid)
note "== bxbridge serve (home $home, Mattermost http://127.0.0.1:$port)"
note "  launcher: $(head -n 1 "$home/logs/bxbridge.log")"
wait_for up_or_gone "$launcher" state_connected
state_connected || fail "state.json never said Mattermost and brokerd connected: $(cat "$home/bridge/state.json" 2> /dev/null)"
note "  state.json: $(cat "$home/bridge/state.json")"
# The pid bxctl status checks is the launcher's, which the host sees; the
# bridge itself is pid 1 of its own namespace.
grep -q "\"pid\":$launcher," "$home/bridge/state.json" ||
	fail "state.json does not name the launcher's pid $launcher"

# --- from outside
say "the jailed bridge from outside"
note "  bridge: pid $inner, child of the launcher $launcher: $(tr '\0' ' ' < "/proc/$inner/cmdline")"
st=/proc/$inner/status
note "  /proc/$inner/status:"
grep -E '^(Uid|Gid|Groups|NoNewPrivs|Seccomp|CapEff|CapPrm|CapBnd):' "$st" |
    sed 's/^/    /' | tee -a "$evidence"
[ "$jail_uid" -ne 0 ] && [ "$jail_gid" -ne 0 ] || fail "the jail's ids are root's"
[ "$jail_uid" != "$(id -u boxmaker-loop 2> /dev/null)" ] ||
    fail "boxmaker-bridge has loopd's jail's uid"
grep -qE "^Uid:\s+$jail_uid\s+$jail_uid\s+$jail_uid\s+$jail_uid\$" "$st" ||
    fail "the bridge's uid is not boxmaker-bridge's ($jail_uid)"
grep -qE "^Gid:\s+$jail_gid\s+$jail_gid\s+$jail_gid\s+$jail_gid\$" "$st" ||
    fail "the bridge's gid is not boxmaker-bridge's ($jail_gid)"
grep -qE '^NoNewPrivs:\s+1$' "$st" || fail "NoNewPrivs is not 1"
grep -qE '^Seccomp:\s+2$' "$st" || fail "Seccomp is not 2"
grep -qE '^CapEff:\s+0000000000000000$' "$st" || fail "CapEff is not 0"
grep -qE '^CapBnd:\s+0000000000000000$' "$st" || fail "CapBnd is not 0"
for k in user mnt pid net ipc uts; do
	a=$(readlink "/proc/$$/ns/$k")
	b=$(readlink "/proc/$inner/ns/$k")
	note "  namespace $k: this shell $a, bridge $b"
	[ -n "$b" ] && [ "$a" != "$b" ] ||
	    fail "the bridge shares this shell's $k namespace"
done
for p in "$inner" "$launcher"; do
	for f in cmdline environ; do
		[ -r "/proc/$p/$f" ] || fail "cannot read /proc/$p/$f"
		tr '\0' '\n' < "/proc/$p/$f" | grep -qF "$TOKEN" &&
		    fail "the token is in /proc/$p/$f"
	done
done
note "  the token: in neither /proc/PID/cmdline nor /proc/PID/environ of the bridge ($inner) or the launcher ($launcher)"

# --- from inside: a shell in the bridge's namespaces and root, as its uid
say "the jailed bridge's doors from inside"
relay=$home/run/bridge-mattermost/mattermost.sock
probes='exec 2>/dev/null
p() { n=$1; shift; e=$("$@" 2>&1 >/dev/null) && e=ok
  case $e in ok) ;; *"No such file"*) e=ENOENT ;;
  *"Permission denied"*) e=EACCES ;; *"Read-only"*) e=EROFS ;;
  *"Network is unreachable"*) e=ENETUNREACH ;;
  *"Connection refused"*) e=ECONNREFUSED ;;
  *"Cannot assign requested address"*) e=EADDRNOTAVAIL ;;
  *) e="other: $(echo "$e" | head -n 1)" ;;
  esac; echo "$n $e"; }
echo "uid $(id -u) $(id -g)"
p read-config cat "$CONFIG"
p write-config sh -c "echo x >> \"$CONFIG\""
p write-state sh -c "echo s > \"$HOME_DIR/bridge/probe\""
p bridge-sock test -S "$HOME_DIR/run/bridge-broker/bridge.sock"
p list-bridge-sock-dir ls "$HOME_DIR/run/bridge-broker"
p admin-sock ls "$HOME_DIR/run/owner-broker/admin.sock"
p broker-sock ls "$HOME_DIR/run/loop-broker/broker.sock"
p grants ls "$HOME_DIR/grants"
p audit ls "$HOME_DIR/audit"
p secrets ls "$HOME_DIR/secrets/github.toml"
p owner-file cat "$OWNER_FILE"
p tcp-loopback-fake-port bash -c "exec 4<>/dev/tcp/127.0.0.1/$PORT"
p tcp-loopback-22 bash -c "exec 4<>/dev/tcp/127.0.0.1/22"
p tcp-other-host bash -c "exec 4<>/dev/tcp/192.0.2.1/443"
p tcp6-loopback bash -c "exec 4<>/dev/tcp/::1/$PORT"
echo "relay-to-url-host HTTP $(curl -s -o /dev/null -w "%{http_code}" --max-time 20 --unix-socket "$RELAY" "http://127.0.0.1:$PORT/api/v4/users/me")"
echo "relay-naming-example.org HTTP $(curl -s -o /dev/null -w "%{http_code}" --max-time 20 --unix-socket "$RELAY" "http://example.org/api/v4/users/me?via=relay")"
echo "home-holds $(ls "$HOME_DIR" | tr "\n" " ")"
echo end'
nsenter -t "$inner" -U -m -n -p -i -u -r -w -S "$jail_uid" -G "$jail_gid" -- \
    env -i PATH=/usr/bin:/bin CONFIG="$top/config/bxbridge.toml" \
    HOME_DIR="$home" OWNER_FILE="$top/owner/notes.txt" PORT="$port" \
    RELAY="$relay" sh -c "$probes" > "$top/inside" ||
    fail "nsenter into the bridge's jail failed"
note "  inside (nsenter -t $inner -U -m -n -p -i -u -r -S $jail_uid -G $jail_gid):"
sed 's/^/    /' "$top/inside" | tee -a "$evidence"
expect_inside() {
	grep -qxF "$1" "$top/inside" || fail "inside the jail: no line \"$1\""
}
expect_inside "uid $jail_uid $jail_gid"
expect_inside "read-config ok"
expect_inside "write-config EACCES"
expect_inside "write-state ok"
expect_inside "bridge-sock ok"
expect_inside "list-bridge-sock-dir EACCES"
expect_inside "admin-sock ENOENT"
expect_inside "broker-sock ENOENT"
expect_inside "grants ENOENT"
expect_inside "audit ENOENT"
expect_inside "secrets ENOENT"
expect_inside "owner-file ENOENT"
expect_inside "tcp-loopback-fake-port ENETUNREACH"
expect_inside "tcp-loopback-22 ENETUNREACH"
expect_inside "tcp-other-host ENETUNREACH"
expect_inside "tcp6-loopback EADDRNOTAVAIL"
expect_inside "relay-to-url-host HTTP 401"
expect_inside "relay-naming-example.org HTTP 401"
expect_inside "home-holds bridge run "
# The request naming example.org reached the fake server, nothing else.
grep -q '"path":"/api/v4/users/me?via=relay","body":null,"authorized":false' \
    "$home/logs/mm-requests.jsonl" ||
    fail "the request naming example.org did not reach the fake server"
[ -s "$top/owner/notes.txt" ] && [ -s "$home/secrets/github.toml" ] &&
    [ -S "$home/run/owner-broker/admin.sock" ] &&
    [ -S "$home/run/loop-broker/broker.sock" ] &&
    [ -s "$home/grants/a.toml" ] && [ -d "$home/audit" ] ||
    fail "the owner's files or admin.sock are gone on the host: their absence inside means nothing"
note "  on the host meanwhile: $top/owner/notes.txt (0644), secrets/github.toml, admin.sock, broker.sock, grants/a.toml and audit/ are there"

# --- bxbridge check, beside the running bridge
say "bxbridge check against the fake server"
before=$(wc -l < "$home/logs/mm-requests.jsonl")
"$bxbridge" check --config "$top/config/bxbridge.toml" > "$top/check.out" \
    2> "$top/check.err"
rc=$?
sed 's/^/    /' "$top/check.out" "$top/check.err"
[ $rc -eq 0 ] || fail "bxbridge check exited $rc"
grep -qx 'bxbridge check: ok' "$top/check.out" || fail "bxbridge check did not say ok"
post=$(sed -n 's/^  test post: \([a-z0-9]*\) made and deleted$/\1/p' "$top/check.out")
[ ${#post} -eq 26 ] || fail "bxbridge check named no test post"
tail -n "+$((before + 1))" "$home/logs/mm-requests.jsonl" > "$top/check.requests"
grep -q '"method":"POST","path":"/api/v4/posts","body":{"channel_id":"[a-z0-9]*","message":"bxbridge check: ' \
    "$top/check.requests" || fail "the fake got no test post from bxbridge check"
grep -q "\"method\":\"DELETE\",\"path\":\"/api/v4/posts/$post\"" \
    "$top/check.requests" || fail "the fake got no DELETE of the test post $post"
grep -q '"authorized":false' "$top/check.requests" &&
    fail "bxbridge check sent a request without the right token"
note "  bxbridge check: exit 0; $(grep -c . "$top/check.out") lines, the post $post"
grep -o '"method":"[A-Z]*","path":"[^"]*"' "$top/check.requests" |
    sed 's/^/    fake got: /' | tee -a "$evidence"
state_connected || fail "the running bridge lost a door while check ran: $(cat "$home/bridge/state.json")"

printf 'wrongtoken0000000000000000\n' > "$top/config/wrong-token" &&
    chmod 600 "$top/config/wrong-token" || fail "cannot write the wrong token"
write_bridge_toml "$top/config/wrong.toml" "$top/config/wrong-token"
"$bxbridge" check --config "$top/config/wrong.toml" > "$top/wrong.out" \
    2> "$top/wrong.err"
rc=$?
sed 's/^/    /' "$top/wrong.out" "$top/wrong.err"
[ $rc -eq 1 ] || fail "bxbridge check with a wrong token exited $rc, not 1"
grep -q 'check failed: token-refused: users/me failed: .*see docs/runbook.md#bridge-token-refused' \
    "$top/wrong.err" || fail "bxbridge check with a wrong token did not name token-refused and its runbook entry"
grep -q 'wrongtoken' "$top/wrong.err" && fail "the wrong token is in check's message"
note "  wrong token: exit 1: $(grep 'check failed' "$top/wrong.err" | cut -c 1-90)..."

# --- an ask call answered in Mattermost, through the jailed bridge
# A tool call as loopd makes it (one tool_request frame on broker.sock,
# the connection held open while it waits; root is brokerd's own uid, which
# broker.sock serves) under the ask grant a.toml: brokerd holds it pending,
# the jailed bridge posts it, the owner answers in the fake server, and the
# call ends as the answer says, with the Approval record naming the owner
# and the post, and the post patched to say the outcome.
broker_sock=$home/run/loop-broker/broker.sock
session=chat-$(date +%s)000
mm_log=$home/logs/mm-requests.jsonl
asks='**Boxmaker asks: may this tool call run?**'

# ask_call CALL: the call's connection, its frames in logs/CALL.log. The
# request file is read with ignoreeof, so that socat never half-closes the
# connection (which brokerd would take for the caller going away) and ends
# only when brokerd closes it after the final frame.
ask_call() {
	printf '{"kind":"tool_request","session":"%s","call":"%s","tool":"read_file","arguments":"{\\"path\\":\\"%s\\"}"}\n' \
	    "$session" "$1" "$top/owner/notes.txt" > "$top/$1.request"
	start "$1" socat -t 5 "OPEN:$top/$1.request,rdonly,ignoreeof!!STDOUT" \
	    "UNIX-CONNECT:$broker_sock"
}

# approval_of CALL: the approval id in the call's pending_approval frame.
approval_of() {
	sed -n 's/.*"status":"pending_approval","approval":\([0-9]*\),.*/\1/p' \
	    "$home/logs/$1.log" | head -n 1
}

has_approval_of() {
	[ -n "$(approval_of "$1")" ]
}

# post_of N: the id of the live post that asks about approval N, from the
# fake server's own state (GET /fake/posts).
post_of() {
	curl -s --max-time 20 "http://127.0.0.1:$port/fake/posts" |
	    sed -n "s/.*\"id\":\"\([a-z0-9]\{26\}\)\"[^{}]*\"message\":\"\*\*Boxmaker asks: may this tool call run?\*\* (approval $1)\\\\n.*/\1/p"
}

has_post_of() {
	[ -n "$(post_of "$1")" ]
}

# posted_message N: the message of the POST /api/v4/posts that asked about
# approval N, as the fake server logged it (JSON string escapes kept).
posted_message() {
	grep -F '"method":"POST","path":"/api/v4/posts",' "$mm_log" |
	    grep -F "\"message\":\"$asks (approval $1)\\n" | head -n 1 |
	    sed 's/.*"message":"\(\([^"\\]\|\\.\)*\)".*/\1/'
}

# patch_of POST: the message of the PUT .../POST/patch the fake got.
patch_of() {
	grep -F "\"method\":\"PUT\",\"path\":\"/api/v4/posts/$2/patch\"" "$mm_log" |
	    head -n 1 | sed 's/.*"message":"\(\([^"\\]\|\\.\)*\)".*/\1/'
}

has_patch_of() {
	[ -n "$(patch_of "$@")" ]
}

# approval_record CALL: the audit log's Approval record of the call.
approval_record() {
	cat "$home"/audit/*.jsonl 2> /dev/null |
	    grep -F "\"type\":\"approval\",\"session\":\"$session\",\"call\":\"$1\"," |
	    head -n 1
}

has_approval_record() {
	[ -n "$(approval_record "$1")" ]
}

final_frame() {
	grep '"final":true' "$home/logs/$1.log" | head -n 1
}

has_final_frame() {
	[ -n "$(final_frame "$1")" ]
}

# show_message TEXT: a JSON string's text, one note line per line.
show_message() {
	printf '%s\n' "$1" | sed 's/\\n/\n/g; s/\\"/"/g; s/\\\\/\\/g' |
	    sed 's/^/    | /' | tee -a "$evidence"
}

# asked CALL: starts the call, waits for it to be pending and posted; sets
# approval and post.
asked() {
	ask_call "$1"
	wait_for has_approval_of "$1" ||
	    fail "$1: no pending_approval frame from brokerd: $(cat "$home/logs/$1.log")"
	approval=$(approval_of "$1")
	wait_for has_post_of "$approval" ||
	    fail "$1: the bridge posted no request for approval $approval to the fake server"
	post=$(post_of "$approval")
	msg=$(posted_message "$approval")
	[ -n "$msg" ] || fail "$1: no POST /api/v4/posts asking about approval $approval in the fake's log"
	note "  $1: pending as approval $approval; the bridge posted $post; its message as the fake received it:"
	show_message "$msg"
	printf '%s\n' "$msg" | grep -qF "$top/owner/notes.txt" ||
	    fail "$1: the post does not show the call's path"
}

# answered CALL POST PATCH_START: waits for the final frame, the Approval
# record and the patch; prints them.
answered() {
	wait_for has_final_frame "$1" ||
	    fail "$1: no final frame from brokerd after the owner's answer: $(cat "$home/logs/$1.log")"
	note "  $1: brokerd's final frame: $(final_frame "$1")"
	wait_for has_approval_record "$1" ||
	    fail "$1: no Approval record in the audit log"
	record=$(approval_record "$1")
	note "  $1: the audit log's Approval record: $record"
	wait_for has_patch_of "$1" "$2" ||
	    fail "$1: the fake got no PUT /api/v4/posts/$2/patch"
	patched=$(patch_of "$1" "$2")
	note "  $1: the fake got PUT /api/v4/posts/$2/patch; the message:"
	show_message "$patched"
	case $patched in
	"$3"*) ;;
	*) fail "$1: the patched message does not start with \"$3\"" ;;
	esac
}

say "an ask call approved by the owner's reaction, refused by a thread reply"
note "== an ask call under grants/a.toml (read_file $top/owner/notes.txt, mode ask), session $session"
asked call_approve
reaction="{\"user_id\":\"$OWNER\",\"post_id\":\"$post\",\"emoji_name\":\"white_check_mark\"}"
curl -s --max-time 20 -o /dev/null -w '%{http_code}' -d "$reaction" \
    "http://127.0.0.1:$port/fake/react" | grep -qx 200 ||
    fail "POST /fake/react was not taken"
note "  call_approve: the owner reacts: POST /fake/react $reaction"
answered call_approve "$post" "**Approved** here in Mattermost (approval $approval). The call runs."
grep -q '"status":"approved"' "$home/logs/call_approve.log" ||
    fail "call_approve: no approved frame before the result"
final_frame call_approve | grep -q '"status":"result","content":"the owner'"'"'s notes\\n"' ||
    fail "call_approve: the call did not run and answer the file's text"
# The re-decision under the ask grant is ask, which approved means the call
# runs (docs/protocol.md, approve_result).
printf '%s\n' "$record" | grep -qF "\"answer\":\"approved\",\"by\":\"$OWNER\",\"post\":\"$post\",\"reason\":null,\"outcome\":{\"outcome\":\"ask\"}" ||
    fail "call_approve: the Approval record does not say approved by $OWNER in post $post"

asked call_refuse
reply="{\"user_id\":\"$OWNER\",\"root_id\":\"$post\",\"message\":\"refuse not now\"}"
curl -s --max-time 20 -o /dev/null -w '%{http_code}' -d "$reply" \
    "http://127.0.0.1:$port/fake/reply" | grep -qx 201 ||
    fail "POST /fake/reply was not taken"
note "  call_refuse: the owner replies in the thread: POST /fake/reply $reply"
answered call_refuse "$post" "**Refused** here in Mattermost (approval $approval). The reason:"
final_frame call_refuse | grep -qF '"status":"denied","reason":"approval_refused"' ||
    fail "call_refuse: the call was not denied as refused"
printf '%s\n' "$record" | grep -qF "\"answer\":\"refused\",\"by\":\"$OWNER\",\"post\":\"$post\",\"reason\":\"not now\",\"outcome\":{\"outcome\":\"denied\",\"reason\":\"approval_refused\"}" ||
    fail "call_refuse: the Approval record does not say refused by $OWNER in post $post for \"not now\""
printf '%s\n' "$patched" | grep -qF 'not now' ||
    fail "call_refuse: the patched post does not give the reason"
state_connected || fail "the bridge lost a door while answering: $(cat "$home/bridge/state.json")"

# --- the stop
say "SIGTERM to the launcher"
kill -TERM "$launcher"
wait "$launcher"
rc=$?
forget "$launcher"
[ $rc -eq 0 ] || fail "bxbridge serve exited $rc on SIGTERM"
kill -0 "$inner" 2> /dev/null && fail "the bridge (pid $inner) outlived its launcher"
grep -q 'bxbridge: stopped' "$home/logs/bxbridge.log" || fail "the bridge did not say stopped"
note "  SIGTERM: the launcher exited 0, the bridge said stopped and is gone"
grep -rlF "$TOKEN" "$home" "$top/check.out" "$top/check.err" &&
    fail "the token is in a file above (logs, state, check's output)"
note "  the token: in no file of the home (logs, state.json, posts) nor in check's output"

echo
echo "==== test-bxbridge-jail: evidence"
cat "$evidence"
echo "test-bxbridge-jail: ok"
status=0
