#!/bin/sh
# The owner's check on their own machine against a real llama-server
# (design section 12, "On straylight"): brokerd serve and loopd serve on a
# test home holding one ask grant for read_file; a bxctl chat asks the model
# to read a file there; the approval block appears; approving it gives the
# M3a runner's failure, which the model reports; the audit log verifies, with
# Decision, Approval and Result records.
#
#   scripts/check-live.sh URL [--model NAME] [--build DIR] [--home DIR]
#                             [--file PATH] [--wait SECONDS]
#
# URL is the llama-server base URL (http://127.0.0.1:8080), started with
# --jinja so that it takes tool schemas. --model is the name loopd sends
# (a router-mode server, --models-dir, wants the model file's stem). --home
# uses DIR (absent or empty) instead of a new temporary directory. --file
# is the file the model is asked to read (default <home>/files/shopping.txt;
# an absolute path such as /tmp/shopping.txt, so that the path the model
# must copy into its call is short and known in advance); the only grant
# covers that one file; a file that is absent is written with a shopping
# list and removed at the end. --wait bounds each wait for the model
# (default 600 s). Exit 0 when every check passes. It stops what it started
# and keeps the home for you to look at.
#
# What a real model must do for each check (the daemons and bxctl do the
# rest):
#   approval block     call find_tool, then call_tool with name read_file and
#                      arguments {"path": "<the file>"}, the path exactly as
#                      the prompt gives it (a model that shortens or invents
#                      the path gets a denial instead, and no approval)
#   approve answers    nothing: bxctl approve and brokerd
#   chat ended well    after the tool result, answer in plain text within
#                      [turn] max_steps (16) model steps, and not be cut off
#                      at llama-server's -n limit or its context
#   runner's failure   nothing: the runner is "refuse", so the approved call
#                      fails with "no tool runs: the runner kind is refuse"
#                      and bxctl shows it
#   reply reports it   a last reply that speaks of the failure (runner, no
#                      tool, could not, unable, fail, ...); read it to be sure
#   audit records      nothing: brokerd writes them
set -u

usage() {
	echo "usage: scripts/check-live.sh URL [--model NAME] [--build DIR]" \
	    "[--home DIR] [--file PATH] [--wait SECONDS]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
url=$1
shift
case "$url" in
http://*|https://*) ;;
*) usage ;;
esac
model=local
build=build
home=
file=
made_file=
WAIT_S=600
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case "$1" in
	--model) model=$2 ;;
	--build) build=$2 ;;
	--home) home=$2 ;;
	--file) file=$2 ;;
	--wait) WAIT_S=$2 ;;
	*) usage ;;
	esac
	shift 2
done
case "$WAIT_S" in
''|*[!0-9]*) usage ;;
esac
# brokerd takes only absolute paths without empty, . or .. components.
case "$file" in
'') ;;
*//*|*/./*|*/../*|*/.|*/..|*/) usage ;;
/*) ;;
*) usage ;;
esac
case "$build" in
/*) ;;
*) build=$(pwd)/$build ;;
esac
status=1
# shellcheck source=scripts/daemons.sh
. "$(dirname "$0")/daemons.sh"
find_programs

if [ -z "$home" ]; then
	home=$(mktemp -d "${TMPDIR:-/tmp}/boxmaker-live.XXXXXX") || exit 1
else
	mkdir -p "$home" || exit 1
	[ -z "$(ls -A "$home")" ] || fail "--home $home is not empty"
	home=$(cd "$home" && pwd)
fi
export BOXMAKER_HOME="$home"

on_exit() {
	stop_all
	[ -n "$made_file" ] && rm -f "$made_file"
	[ "$status" -eq 0 ] && return
	show_logs
	echo "check-live: FAILED; the home is $home" >&2
}
trap on_exit EXIT
trap 'echo; echo "check-live: interrupted" >&2; status=130; exit 130' INT TERM HUP

# check WHAT COMMAND...: one named check, PASS or FAIL (which stops here).
check() {
	what=$1
	shift
	if "$@"; then
		echo "PASS  $what"
	else
		echo "FAIL  $what"
		exit 1
	fi
}

mkdir -p "$home/logs" "$home/grants" "$home/files"
chmod 700 "$home"
[ -n "$file" ] || file=$home/files/shopping.txt
if [ ! -e "$file" ]; then
	printf 'oat milk\nlemons\n' > "$file" || fail "cannot write $file"
	made_file=$file
fi
cat > "$home/grants/files-read.toml" <<EOF
# The only grant: ask before each read of the file the model is asked about.
tool = "read_file"
mode = "ask"
max_taint = "secret"
result_class = "private"
untrusted = false
expires = "2099-01-01T00:00:00.000Z"

[constraints]
paths = ["$file"]
EOF
write_brokerd_toml 'kind = "refuse"'
write_loopd_toml "$url" "$model" "$WAIT_S"

say "the home is $home; one ask grant for read_file on $file"
start_broker_and_loop
check "bxctl grants check" "$bxctl" grants check --config "$home/brokerd.toml"

session=live-$(date +%s)
ask="Please read the file $file with the read_file tool (find it with find_tool, run it with call_tool) and tell me what it says. If the tool fails, tell me exactly what the failure said."
say "bxctl chat --session $session --say '$ask'"
"$bxctl" chat --session "$session" --say "$ask" \
    > "$home/logs/chat.out" 2>&1 &
chat_pid=$!
pids="$chat_pid $pids"

chat_done() {
	! kill -0 "$chat_pid" 2>/dev/null
}
approval_or_done() {
	has_approval || chat_done
}
wait_for approval_or_done || fail "no approval within $WAIT_S s (logs/chat.out)"
if ! has_approval; then
	cat "$home/logs/chat.out"
	fail "the turn ended without asking to read $file"
fi
say "bxctl approvals"
"$bxctl" approvals
id=$(first_approval)
check "the approval block names read_file and the file" \
    sh -c '"$1" approvals | grep -F "$2" | grep -q read_file' sh "$bxctl" "$file"
say "bxctl approve $id"
"$bxctl" approve "$id" | tee "$home/logs/approve.out"
check "bxctl approve $id answers approved" grep -q "^approved $id" \
    "$home/logs/approve.out"

# A real model may try again after the failure: approve each further ask
# too (a few at most), as the owner would, until the turn ends.
more=0
while :; do
	wait_for approval_or_done || fail "the turn did not end within $WAIT_S s"
	chat_done && break
	more=$((more + 1))
	[ $more -le 4 ] || fail "the model keeps asking; see logs/chat.out"
	id=$(first_approval)
	say "the model asked again; bxctl approve $id"
	"$bxctl" approve "$id"
done
wait "$chat_pid"
chat_status=$?
forget "$chat_pid"
say "the chat"
cat "$home/logs/chat.out"
check "bxctl chat ended well (exit $chat_status)" [ "$chat_status" -eq 0 ]
check "the chat showed the approval block" grep -q "^$id " "$home/logs/chat.out"
check "the runner's failure reached the chat" \
    grep -q 'no tool runs: the runner kind is refuse' "$home/logs/chat.out"
# The model's own words are not scripted: a reply after the tool result that
# speaks of the failure counts. Read it above to be sure.
reply=$(sed -n '/no tool runs: the runner kind is refuse/,$p' \
    "$home/logs/chat.out" |
    sed 1d | grep '^model: ')
check "the model's reply reports the failure" sh -c 'printf "%s\n" "$1" |
    grep -qiE "m3b|runner|no tool|not (yet )?(run|available|read)|could ?n.t|unable|fail|unavailable"' \
    sh "$reply"

say "stopping loopd and brokerd"
stop_all
say "the Decision, Approval and Result records"
audit_records
check "the audit log holds Decision, Approval and Result records" need_records
say "bxctl audit verify --home $home"
"$bxctl" audit verify --home "$home" | tee "$home/logs/verify.out"
check "bxctl audit verify" grep -q '^audit: ok' "$home/logs/verify.out"
echo
echo "check-live: every check passed; the home is $home"
status=0
