#!/bin/sh
# The real loopd's jail, checked from outside (issue 32, roles.md section 8).
# Once for each runtime (brokerd.toml's [runner] kind: podman, then bwrap),
# on a temporary home: starts fake-llama, brokerd and loopd with
# scripts/daemons.sh's helpers, as scripts/demo.sh does, and checks:
#
#  - the process that listens on loop.sock (the child of loopd's launcher
#    whose command line has --in-jail, confirmed with ss in its network
#    namespace and by its descriptors): Uid and Gid the jail's (as root
#    boxmaker-loop's, as a user the top of its subordinate range), never 0;
#    NoNewPrivs 1, Seccomp 2, CapEff and CapBnd 0;
#  - its user, mnt, pid, net, ipc and uts namespaces all differ from this
#    shell's;
#  - its mounts: none of the home's grants/, audit/, broker/,
#    run/owner-broker/ or secrets/ (the secrets directory beside
#    brokerd.toml, with a secret in it), none under /home or /run, and none
#    of those paths, the secret file included, seen through its root
#    (/proc/PID/root);
#  - chats through bxctl chat with the scripted fake model: a read_file
#    under an ask grant approved with bxctl approve, a read_file denied by
#    a deny grant, a write_file, a shell and an http_fetch (no network
#    grant: it ends however the decision path says, but the turn completes
#    and the call is recorded), each in the chat's output and in the audit
#    log, and bxctl audit verify says ok;
#  - the session log under <home>/sessions is readable with cat and holds
#    the chat;
#  - bxctl status says the turn loop is jailed as the jail's uid.
#
# It needs podman and bwrap, and fails (never skips) without them. Whatever
# happens it stops what it started. It ends with an evidence summary.
#
#   tests/loopd/test-jailed.sh [SOURCE_ROOT [BUILD_ROOT]]
set -u

src=${1:-${BX_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}}
build=${2:-${BX_BUILD_ROOT:-$src/build}}
case "$build" in
/*) ;;
*) build=$(pwd)/$build ;;
esac
# Generous: the machine may be slow and shared. No sleep here is a wait
# for time itself: each waits for a thing, at most this long.
WAIT_S=120
status=1
home=
# shellcheck source=scripts/daemons.sh
. "$src/scripts/daemons.sh"

# The programs as meson builds them (make links them into $build too).
brokerd=$build/src/brokerd/brokerd
loopd=$build/src/loopd/loopd
bxctl=$build/src/bxctl/bxctl
fake=$build/tests/fake-llama/fake-llama
for prog in "$brokerd" "$loopd" "$bxctl" "$fake"; do
	[ -x "$prog" ] || fail "$prog is missing; build first (make)"
done
for tool in podman bwrap ss nsenter; do
	command -v "$tool" > /dev/null ||
	    fail "$tool is missing: this test needs it (scripts/install-deps.sh)"
done

# The jail's ids: as root Boxmaker's system user, as anyone else the top
# of the subordinate range (what jail_plan.c picks; proto/jailid.h).
if [ "$(id -u)" -eq 0 ]; then
	jail_uid=$(id -u boxmaker-loop 2> /dev/null) ||
	    fail "no user boxmaker-loop (bxctl init makes it; runbook jail-unavailable)"
	jail_gid=$(id -g boxmaker-loop)
else
	me=$(id -un)
	jail_uid=$(awk -F: -v u="$me" '$1 == u { print $2 + $3 - 1; exit }' /etc/subuid)
	jail_gid=$(awk -F: -v u="$me" '$1 == u { print $2 + $3 - 1; exit }' /etc/subgid)
	[ -n "$jail_uid" ] && [ -n "$jail_gid" ] ||
	    fail "$me has no subordinate range in /etc/subuid and /etc/subgid"
fi

# Socket paths must fit 107 bytes: a long TMPDIR falls back to /tmp.
tmp=${TMPDIR:-/tmp}
[ ${#tmp} -le 48 ] || tmp=/tmp
top=$(mktemp -d "$tmp/bx-jailed.XXXXXX") || exit 1
evidence=$top/evidence
: > "$evidence"

on_exit() {
	stop_all
	if [ "$status" -eq 0 ]; then
		rm -rf "$top"
		return
	fi
	[ -n "$home" ] && [ -d "$home/logs" ] && show_logs
	echo "test-jailed: failed; the evidence so far:" >&2
	cat "$evidence" >&2
	echo "test-jailed: the homes are kept in $top" >&2
}
trap on_exit EXIT
trap 'echo "test-jailed: interrupted" >&2; exit 1' INT TERM HUP

# note LINE: a line of the evidence summary, printed now as well.
note() {
	printf '%s\n' "$*" | tee -a "$evidence"
}

call_tool() {
	printf '{"tool_calls": [{"name": "call_tool", "arguments": {"name": "%s", "arguments": %s}}]}' "$1" "$2"
}

# grant NAME TOOL MODE PATH: a grant file on one path.
grant() {
	cat > "$home/grants/$1.toml" <<EOF
# test-jailed's grant $1.
tool = "$2"
mode = "$3"
max_taint = "secret"
result_class = "private"
untrusted = false
expires = "2099-01-01T00:00:00.000Z"

[constraints]
paths = ["$4"]
EOF
}

# chat OUTFILE TEXT: one bxctl chat --say in session jailed-1, its
# output in OUTFILE; fails on a non-zero status.
chat() {
	timeout "$WAIT_S" "$bxctl" chat --session jailed-1 --say "$2" \
	    > "$1" 2>&1 || { cat "$1" >&2; fail "bxctl chat '$2' exited $?"; }
	sed 's/^/    /' "$1"
}

# call_id OUTFILE TOOL: the id of the first call of TOOL in a chat's output
# ("call ID: TOOL {...}"); fails when there is none.
call_id() {
	id=$(awk -v t="$2" '$1 == "call" && $3 == t { sub(/:$/, "", $2); print $2; exit }' "$1")
	[ -n "$id" ] || fail "the chat did not show a $2 call ($1)"
	echo "$id"
}

# result_of OUTFILE ID: the text after "result ID: " in a chat's output.
result_of() {
	sed -n "s/^result $2: //p" "$1" | head -n 1
}

# audit_has ID TYPE: the audit log has a TYPE record for call ID.
audit_has() {
	cat "$home"/audit/*.jsonl |
	    grep "\"type\":\"$2\"" | grep -q "\"call\":\"$1\""
}

# The pid of the turn loop: the child of the launcher with --in-jail.
turn_loop_pid() {
	pgrep -P "$launcher" -f -- '--in-jail' | head -n 1
}

has_turn_loop() {
	[ -n "$(turn_loop_pid)" ]
}

# check_process: the turn loop's identity, kernel state, namespaces and
# mounts, from outside.
check_process() {
	wait_for has_turn_loop ||
	    fail "no child of loopd's launcher (pid $launcher) has --in-jail"
	inner=$(turn_loop_pid)
	note "  turn loop: pid $inner, child of the launcher $launcher:" \
	    "$(tr '\0' ' ' < "/proc/$inner/cmdline")"

	# It holds loop.sock's listener: the listening socket bound to
	# loop.sock in its network namespace, and among its descriptors.
	sock=$home/run/owner-loop/loop.sock
	line=$(nsenter -t "$inner" -n ss -xlpn | grep -F " $sock ")
	[ -n "$line" ] || fail "ss -xlp in the turn loop's network namespace shows no listener on $sock"
	note "  ss -xlp (its netns): $(echo "$line" | tr -s ' ')"
	echo "$line" | grep -q "pid=$inner," ||
	    fail "the listener on $sock is not the turn loop's (pid $inner)"
	inode=$(awk -v p="$sock" '$8 == p && $4 == "00010000" { print $7; exit }' \
	    "/proc/$inner/net/unix")
	[ -n "$inode" ] || fail "/proc/$inner/net/unix has no listener on $sock"
	fd=$(find "/proc/$inner/fd" -lname "socket:\[$inode\]" | head -n 1)
	[ -n "$fd" ] || fail "pid $inner holds no descriptor of socket $inode"
	note "  loop.sock's listener: socket:[$inode] is its ${fd#/proc/"$inner"/}"

	st=/proc/$inner/status
	note "  /proc/$inner/status:"
	grep -E '^(Uid|Gid|Groups|NoNewPrivs|Seccomp|CapEff|CapPrm|CapBnd):' "$st" |
	    sed 's/^/    /' | tee -a "$evidence"
	[ "$jail_uid" -ne 0 ] && [ "$jail_gid" -ne 0 ] || fail "the jail's ids are root's"
	grep -qE "^Uid:\s+$jail_uid\s+$jail_uid\s+$jail_uid\s+$jail_uid\$" "$st" ||
	    fail "the turn loop's uid is not $jail_uid"
	grep -qE "^Gid:\s+$jail_gid\s+$jail_gid\s+$jail_gid\s+$jail_gid\$" "$st" ||
	    fail "the turn loop's gid is not $jail_gid"
	grep -qE '^NoNewPrivs:\s+1$' "$st" || fail "NoNewPrivs is not 1"
	grep -qE '^Seccomp:\s+2$' "$st" || fail "Seccomp is not 2"
	grep -qE '^CapEff:\s+0000000000000000$' "$st" || fail "CapEff is not 0"
	grep -qE '^CapBnd:\s+0000000000000000$' "$st" || fail "CapBnd is not 0"

	for k in user mnt pid net ipc uts; do
		a=$(readlink "/proc/$$/ns/$k")
		b=$(readlink "/proc/$inner/ns/$k")
		note "  namespace $k: this shell $a, turn loop $b"
		[ -n "$b" ] && [ "$a" != "$b" ] ||
		    fail "the turn loop shares this shell's $k namespace"
	done

	note "  its mount points (/proc/$inner/mountinfo):"
	awk '{ print "    " $5 }' "/proc/$inner/mountinfo" | tee -a "$evidence"
	for p in "$home/grants" "$home/audit" "$home/broker" \
	    "$home/run/owner-broker" "$home/secrets" "$home/secrets/github.toml"; do
		awk -v p="$p" '$5 == p || index($5, p "/") == 1 { bad = 1 }
		    END { exit !bad }' "/proc/$inner/mountinfo" &&
		    fail "the jail has a mount of $p"
		# Nor may a mount of a parent show it.
		[ -e "/proc/$inner/root$p" ] &&
		    fail "$p is visible in the jail (/proc/$inner/root$p)"
	done
	awk '$5 ~ /^\/(home|run)(\/|$)/ || $5 == "'"$home"'" || $5 == "'"$top"'" { bad = 1 }
	    END { exit !bad }' "/proc/$inner/mountinfo" &&
	    fail "the jail has a mount of the whole home, or under /home or /run"
	# The secret is there on the host, so its absence above means something.
	[ -s "$home/secrets/github.toml" ] || fail "$home/secrets/github.toml is gone"
	note "  not in the jail: grants/ audit/ broker/ run/owner-broker/ secrets/ and its secret file (no mount, not there through /proc/$inner/root); nothing mounted on /home, /run or the home itself"
}

# run_runtime RUNTIME: a fresh home, the daemons, every check.
run_runtime() {
	runtime=$1
	home=$top/$runtime/home
	files=$top/$runtime/files
	mkdir -p "$top/$runtime" && mkdir -m 700 "$home" || fail "cannot make $home"
	mkdir -p "$home/logs" "$home/grants" "$home/model/requests" \
	    "$files/ask/private" "$files/work"
	# A secret beside brokerd.toml, as bxctl secrets add writes one.
	mkdir -m 700 "$home/secrets" &&
	    printf 'kind = "bearer"\nhosts = ["api.example.org"]\nvalue = "JAILED-SECRET-0123456789"\n' \
	    > "$home/secrets/github.toml" && chmod 600 "$home/secrets/github.toml" ||
	    fail "cannot write $home/secrets/github.toml"
	export BOXMAKER_HOME="$home"
	printf 'Buy oat milk.\nCall the plumber on Tuesday.\n' > "$files/ask/notes.txt"
	printf 'not for the model\n' > "$files/ask/private/key.txt"
	grant ask-read read_file ask "$files/ask"
	grant private-deny read_file deny "$files/ask/private"
	grant work-write write_file auto "$files/work"
	grant work-shell shell auto "$files/work"

	# Chat 1: the read under the ask grant. Chat 2: the denied read, a
	# write_file, a shell call and an http_fetch (no grant covers it).
	cat > "$home/model/script.json" <<EOF
[
$(call_tool read_file "{\"path\": \"$files/ask/notes.txt\"}"),
{"text": "Your list: oat milk, the plumber."},
$(call_tool read_file "{\"path\": \"$files/ask/private/key.txt\"}"),
$(call_tool write_file "{\"path\": \"$files/work/todo.txt\", \"content\": \"oat milk\\nplumber\\n\"}"),
$(call_tool shell "{\"command\": \"wc -l < todo.txt; uname -n\", \"cwd\": \"$files/work\"}"),
$(call_tool http_fetch '{"url": "https://example.org/"}'),
{"text": "Done: one read denied, the list written and counted, the fetch refused."}
]
EOF

	say "$runtime: fake-llama, brokerd ([runner] kind = \"$runtime\") and loopd on $home"
	note "== runtime $runtime (home $home)"
	start fake-llama "$fake" --script "$home/model/script.json" \
	    --port-file "$home/model/port" --record "$home/model/requests"
	wait_up fake-llama "$started" test -s "$home/model/port"
	port=$(cat "$home/model/port")
	write_brokerd_toml "kind = \"$runtime\""
	write_loopd_toml "http://127.0.0.1:$port" jailed 60
	start_broker_and_loop
	launcher=$started
	head -n 1 "$home/logs/loopd.log" | grep -q 'runs in its jail' ||
	    fail "loopd's log does not say the turn loop runs in its jail"
	note "  loopd: $(head -n 1 "$home/logs/loopd.log")"

	say "$runtime: the turn loop from outside"
	check_process

	say "$runtime: chat 1, a read_file under the ask grant"
	out1=$home/logs/chat-1.out
	timeout "$WAIT_S" "$bxctl" chat --session jailed-1 \
	    --say 'What is on my list?' > "$out1" 2>&1 &
	chat_pid=$!
	pids="$chat_pid $pids"
	wait_for up_or_gone "$chat_pid" has_approval
	has_approval || { cat "$out1" >&2; fail "no approval appeared for chat 1"; }
	"$bxctl" approvals | sed 's/^/    /'
	aid=$(first_approval)
	"$bxctl" approve "$aid" > /dev/null || fail "bxctl approve $aid failed"
	wait "$chat_pid"
	rc=$?
	forget "$chat_pid"
	sed 's/^/    /' "$out1"
	[ $rc -eq 0 ] || fail "chat 1 exited $rc"
	id=$(call_id "$out1" read_file) || exit 1
	result_of "$out1" "$id" | grep -qF 'result (private): Buy oat milk.\u000aCall the plumber on Tuesday.' ||
	    fail "the approved read's result is not the file's text"
	audit_has "$id" decision && audit_has "$id" approval && audit_has "$id" result ||
	    fail "the approved read $id lacks a decision, approval or result record"
	note "  read_file (ask, bxctl approve $aid): $(result_of "$out1" "$id" | cut -c 1-70); audit: decision, approval, result"

	say "$runtime: chat 2, a denied read, write_file, shell, http_fetch"
	out2=$home/logs/chat-2.out
	chat "$out2" 'Read the private key, write my list, count it, fetch example.org.'
	id=$(call_id "$out2" read_file) || exit 1
	r=$(result_of "$out2" "$id")
	echo "$r" | grep -q '^denied' || fail "the private read was not denied: $r"
	cat "$home"/audit/*.jsonl | grep "\"call\":\"$id\"" |
	    grep -q '"reason":"denied_by_grant"' ||
	    fail "the audit log has no denied_by_grant decision for $id"
	grep -q 'not for the model' "$out2" && fail "the denied file's text reached the chat"
	note "  read_file (deny grant): $r; audit: denied_by_grant"

	id=$(call_id "$out2" write_file) || exit 1
	r=$(result_of "$out2" "$id")
	[ "$r" = "result (private): wrote 17 bytes to $files/work/todo.txt" ] ||
	    fail "write_file: $r"
	[ "$(cat "$files/work/todo.txt")" = "$(printf 'oat milk\nplumber')" ] ||
	    fail "todo.txt does not hold what the model wrote"
	audit_has "$id" decision && audit_has "$id" result ||
	    fail "write_file $id lacks a decision or result record"
	note "  write_file: $r; audit: decision, result"

	id=$(call_id "$out2" shell) || exit 1
	r=$(result_of "$out2" "$id")
	[ "$r" = 'result (private): 2\u000aboxmaker\u000a' ] || fail "shell: $r"
	audit_has "$id" decision && audit_has "$id" result ||
	    fail "shell $id lacks a decision or result record"
	note "  shell: $r; audit: decision, result"

	id=$(call_id "$out2" http_fetch) || exit 1
	r=$(result_of "$out2" "$id")
	[ -n "$r" ] || fail "http_fetch $id has no result line in the chat"
	audit_has "$id" decision || fail "http_fetch $id has no decision record"
	note "  http_fetch (no grant): $r; audit: decision $(cat "$home"/audit/*.jsonl |
	    grep "\"call\":\"$id\"" | sed -n 's/.*"outcome":{\([^}]*\)}.*/{\1}/p' | head -n 1)"
	grep -q '^model: Done: one read denied' "$out2" ||
	    fail "chat 2 did not end with the model's reply"

	say "$runtime: the session log, read with cat"
	log=$home/sessions/jailed-1.jsonl
	cat "$log" > "$top/session.txt" || fail "cat $log failed"
	grep -q 'What is on my list?' "$top/session.txt" ||
	    fail "the session log does not hold chat 1's message"
	note "  cat sessions/jailed-1.jsonl: $(wc -l < "$top/session.txt") lines, $(stat -c '%U:%G %a' "$log"), first: $(head -n 1 "$top/session.txt" | cut -c 1-60)"

	say "$runtime: bxctl status"
	"$bxctl" status > "$home/logs/status.out" 2>&1
	sed 's/^/    /' "$home/logs/status.out"
	grep -q "jailed as uid $jail_uid" "$home/logs/status.out" ||
	    fail "bxctl status does not say jailed as uid $jail_uid"
	note "  bxctl status: $(grep 'jailed as uid' "$home/logs/status.out" | tr -s ' ')"

	say "$runtime: stopping fake-llama, loopd and brokerd"
	stop_all
	kill -0 "$inner" 2> /dev/null && fail "the turn loop (pid $inner) outlived its launcher"
	v=$("$bxctl" audit verify --home "$home" 2>&1)
	echo "    $v"
	case "$v" in
	"audit: ok"*) ;;
	*) fail "bxctl audit verify: $v" ;;
	esac
	note "  bxctl audit verify: $v"
}

run_runtime podman
run_runtime bwrap

echo
echo "==== test-jailed: evidence"
cat "$evidence"
echo "test-jailed: ok, both runtimes"
status=0
