#!/bin/sh
# make demo: the whole decision path on a temporary home, with the scripted
# fake model server (build/fake-llama) in place of llama-server.
#
#   scripts/demo.sh [BUILD]        (make demo builds first, then runs this)
#
# It writes five grants (an ask grant for read_file on a demo folder, a deny
# grant inside it, an expired grant, a write_file and a shell grant on a work
# folder), brokerd.toml, loopd.toml and the model's script into a new home;
# starts fake-llama, brokerd (with its default runtime, podman) and loopd;
# chats; approves the read through bxctl; shows the file's text as the
# sandbox read it, the model's reply, the denied calls with their reasons,
# and a write_file and a shell call that really ran; stops everything;
# prints the Decision, Approval and Result records and ends with bxctl audit
# verify. As a user other than root on cgroup v2, brokerd runs as a
# transient systemd user service with Delegate=yes (daemons.sh), since a
# login shell's cgroup gives it no subtree for the sandboxes' limits.
# The files the model works on live beside the home, not in it:
# brokerd never shows a sandbox its own home. Whatever happens (success, failure, Ctrl-C) it stops what it
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
top=$(mktemp -d "$tmp/boxmaker-demo.XXXXXX") || exit 1
home=$top/home
files=$top/files
mkdir -m 700 "$home" || exit 1
export BOXMAKER_HOME="$home"

on_exit() {
	stop_all
	[ "$status" -eq 0 ] && return
	[ "$status" -eq 130 ] || show_logs
	echo "demo: stopped before the end; the home is $home, the files $files" >&2
}
trap on_exit EXIT
trap 'echo; echo "demo: interrupted" >&2; status=130; exit 130' INT TERM HUP

mkdir -p "$home/logs" "$home/grants" "$home/model/requests" \
    "$files/demo/private" "$files/archive" "$files/work"
printf 'Buy oat milk.\nCall the plumber on Tuesday.\n' > "$files/demo/notes.txt"
printf 'not for the model\n' > "$files/demo/private/key.txt"
printf 'an old report\n' > "$files/archive/report.txt"

cat > "$home/grants/demo-read.toml" <<EOF
# Ask before each read in the demo folder.
tool = "read_file"
mode = "ask"
max_taint = "secret"
result_class = "private"
untrusted = false
expires = "2099-01-01T00:00:00.000Z"

[constraints]
paths = ["$files/demo"]
EOF
cat > "$home/grants/demo-private-deny.toml" <<EOF
# Never read the private folder, although demo-read covers it: deny wins.
tool = "read_file"
mode = "deny"
max_taint = "secret"
result_class = "secret"
expires = "2099-01-01T00:00:00.000Z"

[constraints]
paths = ["$files/demo/private"]
EOF
cat > "$home/grants/archive-read.toml" <<EOF
# Read the archive without asking; but this grant expired in 2020.
tool = "read_file"
mode = "auto"
max_taint = "secret"
result_class = "private"
expires = "2020-01-01T00:00:00.000Z"

[constraints]
paths = ["$files/archive"]
EOF
for tool in write_file shell; do
	cat > "$home/grants/work-${tool%_file}.toml" <<EOF
# $tool in the work folder without asking, each call in a fresh sandbox.
tool = "$tool"
mode = "auto"
max_taint = "secret"
result_class = "private"
expires = "2099-01-01T00:00:00.000Z"

[constraints]
paths = ["$files/work"]
EOF
done
say "a new home, $home, with five grants on files in $files:"
for g in "$home"/grants/*.toml; do
	printf '  %-26s %s\n' "${g##*/}" "$(sed -n '1s/^# //p' "$g")"
done

# The model's script, one reply per request. Turn 1 reads the notes under
# the ask grant, then answers; turn 2 tries the private folder and the
# archive, then answers; turn 3 writes a file and runs a shell command on it.
call_tool() {
	printf '{"tool_calls": [{"name": "call_tool", "arguments": {"name": "%s", "arguments": %s}}]}' "$1" "$2"
}
read_call() {
	call_tool read_file "{\"path\": \"$1\"}"
}
cat > "$home/model/script.json" <<EOF
[
$(read_call "$files/demo/notes.txt"),
{"text": "Your list: buy oat milk, and call the plumber on Tuesday."},
$(read_call "$files/demo/private/key.txt"),
$(read_call "$files/archive/report.txt"),
{"text": "Both reads were denied: a grant forbids the private folder, and the grant for the archive has expired."},
$(call_tool write_file "{\"path\": \"$files/work/todo.txt\", \"content\": \"oat milk\\nplumber\\n\"}"),
$(call_tool shell "{\"command\": \"wc -l < todo.txt; sort todo.txt; uname -n\", \"cwd\": \"$files/work\"}"),
{"text": "I wrote todo.txt and counted its lines in a sandbox."}
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

say "bxctl grants check --config $home/brokerd.toml"
"$bxctl" grants check --config "$home/brokerd.toml" || fail "the demo grants do not load"

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
say "the chat: the approval, the file's text as the sandbox read it, the model's reply"
cat "$home/logs/chat-1.out"
[ $chat_status -eq 0 ] || fail "bxctl chat exited $chat_status"
grep -q 'Call the plumber on Tuesday' "$home/logs/chat-1.out" ||
    fail "the chat did not show the file's text"
sent=$(grep -l 'Call the plumber on Tuesday' "$home"/model/requests/* | head -n 1)
[ -n "$sent" ] || fail "the model was not sent the file's text"
echo "  (the model's next request, ${sent#"$home"/}, carried the file's text)"

ask='Now read demo/private/key.txt and archive/report.txt.'
say "bxctl chat --session $session --say '$ask'"
"$bxctl" chat --session "$session" --say "$ask" ||
    fail "the second chat failed"

ask='Write my todo list to work/todo.txt and count its lines.'
say "bxctl chat --session $session --say '$ask'"
"$bxctl" chat --session "$session" --say "$ask" > "$home/logs/chat-3.out" 2>&1 ||
    fail "the third chat failed (logs/chat-3.out)"
cat "$home/logs/chat-3.out"
grep -q "wrote 17 bytes to $files/work/todo.txt" "$home/logs/chat-3.out" ||
    fail "write_file did not run"
[ "$(cat "$files/work/todo.txt")" = "$(printf 'oat milk\nplumber')" ] ||
    fail "todo.txt does not hold what the model wrote"
grep -qF '2\u000aoat milk\u000aplumber\u000aboxmaker' "$home/logs/chat-3.out" ||
    fail "the shell call did not run in the sandbox (hostname boxmaker)"
echo "  (the sandbox wrote $files/work/todo.txt; its hostname is boxmaker)"

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
echo "The home is $home (logs in logs/), the files $files; remove both with rm -rf $top"
say "bxctl audit verify --home $home"
"$bxctl" audit verify --home "$home" || fail "the audit log does not verify"
status=0
