#!/bin/sh
# make demo: the whole decision path on a temporary home, with the scripted
# fake model server (build/fake-llama) in place of llama-server.
#
#   scripts/demo.sh [BUILD]        (make demo builds first, then runs this)
#
# It writes three grants (an ask grant for read_file on a demo folder, a deny
# grant inside it, an expired grant), brokerd.toml, loopd.toml and the
# model's script into a new home; starts fake-llama, brokerd and loopd;
# chats; approves the read through bxctl; shows the runner's answer, the
# model's reply and the denied calls with their reasons; stops everything;
# prints the Decision, Approval and Result records and ends with bxctl audit
# verify. Whatever happens (success, failure, Ctrl-C) it stops what it
# started and says where the home is, which it keeps for you to look at.
set -u

build=${1:-build}
case "$build" in
/*) ;;
*) build=$(pwd)/$build ;;
esac
# Generous: the machine may be slow and shared.
WAIT_S=60
status=1
# shellcheck source=scripts/daemons.sh
. "$(dirname "$0")/daemons.sh"
find_programs
[ -x "$fake" ] || fail "$fake is missing; run make first"

# Socket paths must fit 107 bytes: a long TMPDIR falls back to /tmp.
tmp=${TMPDIR:-/tmp}
[ ${#tmp} -le 48 ] || tmp=/tmp
home=$(mktemp -d "$tmp/boxmaker-demo.XXXXXX") || exit 1
export BOXMAKER_HOME="$home"

on_exit() {
	stop_all
	[ "$status" -eq 0 ] && return
	[ "$status" -eq 130 ] || show_logs
	echo "demo: stopped before the end; the home is $home" >&2
}
trap on_exit EXIT
trap 'echo; echo "demo: interrupted" >&2; status=130; exit 130' INT TERM HUP

mkdir -p "$home/logs" "$home/grants" "$home/demo/private" "$home/archive" \
    "$home/model/requests"
chmod 700 "$home"
printf 'Buy oat milk.\nCall the plumber on Tuesday.\n' > "$home/demo/notes.txt"
printf 'not for the model\n' > "$home/demo/private/key.txt"
printf 'an old report\n' > "$home/archive/report.txt"

cat > "$home/grants/demo-read.toml" <<EOF
# Ask before each read in the demo folder.
tool = "read_file"
mode = "ask"
max_taint = "secret"
result_class = "private"
untrusted = false
expires = "2099-01-01T00:00:00.000Z"

[constraints]
paths = ["$home/demo"]
EOF
cat > "$home/grants/demo-private-deny.toml" <<EOF
# Never read the private folder, although demo-read covers it: deny wins.
tool = "read_file"
mode = "deny"
max_taint = "secret"
result_class = "secret"
expires = "2099-01-01T00:00:00.000Z"

[constraints]
paths = ["$home/demo/private"]
EOF
cat > "$home/grants/archive-read.toml" <<EOF
# Read the archive without asking; but this grant expired in 2020.
tool = "read_file"
mode = "auto"
max_taint = "secret"
result_class = "private"
expires = "2020-01-01T00:00:00.000Z"

[constraints]
paths = ["$home/archive"]
EOF
say "a new home, $home, with three grants:"
for g in "$home"/grants/*.toml; do
	printf '  %-26s %s\n' "${g##*/}" "$(sed -n '1s/^# //p' "$g")"
done

# The model's script, one reply per request. Turn 1 reads the notes under
# the ask grant, then answers; turn 2 tries the private folder and the
# archive, then answers.
read_call() {
	printf '{"tool_calls": [{"name": "call_tool", "arguments": {"name": "read_file", "arguments": {"path": "%s"}}}]}' "$1"
}
cat > "$home/model/script.json" <<EOF
[
$(read_call "$home/demo/notes.txt"),
{"text": "I asked to read notes.txt and you approved it, but the tool could not run: the runner arrives in M3b."},
$(read_call "$home/demo/private/key.txt"),
$(read_call "$home/archive/report.txt"),
{"text": "Both reads were denied: a grant forbids the private folder, and the grant for the archive has expired."}
]
EOF

say "starting the fake model server, brokerd and loopd"
start fake-llama "$fake" --script "$home/model/script.json" \
    --port-file "$home/model/port" --record "$home/model/requests"
wait_up fake-llama "$started" test -s "$home/model/port"
port=$(cat "$home/model/port")
echo "  fake-llama on http://127.0.0.1:$port (pid $started)"
write_brokerd_toml
write_loopd_toml "http://127.0.0.1:$port" demo 60
start_broker_and_loop

say "bxctl grants check"
"$bxctl" grants check || fail "the demo grants do not load"

session=demo-1
ask='What is on my list in demo/notes.txt?'
say "bxctl chat --session $session --say '$ask'   (in the background)"
"$bxctl" chat --session "$session" --say "$ask" \
    > "$home/logs/chat-1.out" 2>&1 &
chat_pid=$!
pids="$chat_pid $pids"
wait_for has_approval || fail "no approval appeared (logs/chat-1.out)"

say "the model wants to read a file under the ask grant; bxctl approvals:"
"$bxctl" approvals
id=$(first_approval)
say "bxctl approve $id"
"$bxctl" approve "$id" || fail "bxctl approve $id failed"

wait "$chat_pid"
chat_status=$?
forget "$chat_pid"
say "the chat: the approval, the runner's answer, the model's reply"
cat "$home/logs/chat-1.out"
[ $chat_status -eq 0 ] || fail "bxctl chat exited $chat_status"
grep -q 'the runner arrives in M3b' "$home/logs/chat-1.out" ||
    fail "the chat did not show the runner's answer"
sent=$(grep -l 'the runner arrives in M3b' "$home"/model/requests/* | head -n 1)
[ -n "$sent" ] || fail "the model was not sent the runner's answer"
echo "  (the model's next request, ${sent#"$home"/}, carried the runner's answer)"

ask='Now read demo/private/key.txt and archive/report.txt.'
say "bxctl chat --session $session --say '$ask'"
"$bxctl" chat --session "$session" --say "$ask" ||
    fail "the second chat failed"

say "stopping fake-llama, loopd and brokerd"
stop_all

say "the denied calls and their reasons, from the Decision records:"
cat "$home"/audit/*.jsonl | grep '"type":"decision"' |
    grep '"outcome":"denied"' |
    sed -e 's/.*"arguments":"\(.*\)","outcome":{"outcome":"denied","reason":"\([a-z_]*\)".*/  \2: \1/' \
    -e 's/\\"/"/g'
cat "$home"/audit/*.jsonl | grep -q '"reason":"denied_by_grant"' ||
    fail "no call was denied by the deny grant"
cat "$home"/audit/*.jsonl | grep -q '"reason":"grant_expired"' ||
    fail "no call was denied for the expired grant"

say "the Decision, Approval and Result records, from $home/audit/:"
audit_records
need_records

echo
echo "The home is $home (logs in logs/); remove it with rm -rf $home"
say "bxctl audit verify --home $home"
"$bxctl" audit verify --home "$home" || fail "the audit log does not verify"
status=0
