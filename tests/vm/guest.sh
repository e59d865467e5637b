#!/bin/bash
# tests/vm/guest.sh: the checks `make check-vm` runs inside the Debian 12 VM
# (tests/vm/run.sh puts this file on the test disk; the image's
# boxmaker-vmtest.service runs it as root at boot and powers off after).
#
# It installs the staged `make install` tree into /, then acts as the owner
# (uid 1000, a login shell through su - as a person would, or runuser for
# the owner's systemd) and checks, once with podman and once with bwrap:
# the README's quick start word for word, bxctl init, chats through loopd
# with fake-llama as the model (an approval, a deny grant, each local tool,
# http_fetch offline), the sandbox limits under attack, a secret, an
# approval answered in Mattermost (bxbridge against the fake server), the
# audit log,
# restarting and stopping the units; then scripts/demo.sh once. Each check
# records pass or fail; a failure prints its evidence (the check's output,
# brokerd's and loopd's journal). The last line is "N passed, N failed",
# also written to out/summary for run.sh. Bash: arrays, local, pipefail.
set -u

disk=/mnt/vmtest
out=$disk/out
owner=owner
uid=1000
ohome=/home/$owner
ortdir=/run/user/$uid
# Where the owner's programs' state lives, as the units and bxctl init set it.
bxhome=$ohome/.local/share/boxmaker
bxconf=$ohome/.config/boxmaker
model_port=8080
# Generous: TCG is slow and a podman sandbox takes seconds to start there
# (a call is 5 to 30 s; the slowest here, the fork bomb, about 40 s).
CHAT_WAIT_S=180
# Past this the remaining checks fail unrun, so that the guest still
# writes its summary before run.sh's limit (40 min) kills the VM.
GUEST_BUDGET_S=1800

passed=0
failed=0
model_pid=""
runtime=""

mkdir -p "$out/checks"
: > "$out/results"

# ---- acting as the owner ------------------------------------------------

# as_owner SCRIPT: SCRIPT in the owner's login shell, as a person at their
# terminal would run it (a PAM session: XDG_RUNTIME_DIR and the user bus).
as_owner() {
	su - "$owner" -c "$1" < /dev/null
}

# owner_env COMMAND...: COMMAND as the owner outside any login session,
# reaching the owner's systemd and D-Bus as the notes say.
owner_env() {
	runuser -u "$owner" -- env HOME="$ohome" XDG_RUNTIME_DIR="$ortdir" \
		DBUS_SESSION_BUS_ADDRESS="unix:path=$ortdir/bus" "$@" < /dev/null
}

user_systemctl() {
	owner_env systemctl --user "$@"
}

# owner_write FILE: stdin into FILE, written by the owner (so it is theirs).
owner_write() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	runuser -u "$owner" -- sh -c 'mkdir -p "$(dirname "$1")" && cat > "$1"' sh "$1"
}

# ---- waiting ------------------------------------------------------------

# wait_until SECONDS WHAT COMMAND...: polls COMMAND until it succeeds; past
# the deadline says what was awaited and fails.
wait_until() {
	local limit=$1 what=$2 t0=$SECONDS
	shift 2
	while ! "$@" > /dev/null 2>&1; do
		if [ $((SECONDS - t0)) -ge "$limit" ]; then
			echo "gave up after ${limit} s waiting for: $what" >&2
			return 1
		fi
		sleep 0.5
	done
}

# ---- the check framework ------------------------------------------------

# check NAME COMMAND...: runs COMMAND with its output in
# out/checks/NAME.log; a failure prints that output and the daemons'
# journal since the check began.
check() {
	local name=$1 since log
	shift
	log=$out/checks/$(echo "$name" | tr -c 'A-Za-z0-9_.\n-' '-').log
	since=$(date +%s)
	echo
	echo "--- check: $name"
	if [ "$SECONDS" -ge "$GUEST_BUDGET_S" ]; then
		failed=$((failed + 1))
		echo "FAIL $name (not run: the guest's ${GUEST_BUDGET_S} s are spent)" |
			tee -a "$out/results"
		return 1
	fi
	if "$@" > "$log" 2>&1; then
		passed=$((passed + 1))
		echo "PASS $name ($(($(date +%s) - since)) s)" | tee -a "$out/results"
		return 0
	fi
	failed=$((failed + 1))
	echo "FAIL $name ($(($(date +%s) - since)) s)" | tee -a "$out/results"
	echo "  evidence, the check's output (last 60 lines of ${log#"$disk"/}):"
	tail -n 60 "$log" | sed 's/^/  | /'
	echo "  evidence, brokerd's and loopd's journal since the check began:"
	journalctl --no-pager -o short-precise --since "@$since" \
		_SYSTEMD_USER_UNIT=brokerd.service + \
		_SYSTEMD_USER_UNIT=loopd.service 2>&1 | tail -n 40 | sed 's/^/  | /'
	return 1
}

# say TEXT: a line in the check's log, so the evidence tells the story.
say() {
	echo "# $*"
}

# fail TEXT: the reason a check fails, as its last line.
fail() {
	echo "FAILED: $*"
	return 1
}

# ---- the model ----------------------------------------------------------

# json_str TEXT: TEXT as a JSON string (paths and commands here hold no
# control characters).
json_str() {
	local s=${1//\\/\\\\}
	printf '"%s"' "${s//\"/\\\"}"
}

# call_json TOOL ARGS_JSON: one scripted reply asking for one tool call.
call_json() {
	printf '{"tool_calls": [{"name": "call_tool", "arguments": {"name": "%s", "arguments": %s}}]}' "$1" "$2"
}

stop_model() {
	[ -n "$model_pid" ] || return 0
	kill -TERM "$model_pid" 2> /dev/null
	wait "$model_pid" 2> /dev/null
	model_pid=""
}

# start_model REPLY...: fake-llama as the owner on 127.0.0.1:8080 (the
# URL bxctl init and the README assume), serving the replies in order.
start_model() {
	local dir=$out/model/$runtime-$((++model_runs)) first=1 r
	stop_model
	mkdir -p "$dir/requests"
	chown -R "$owner" "$dir"
	{
		echo "["
		for r in "$@"; do
			[ $first -eq 1 ] || echo ","
			first=0
			printf '%s\n' "$r"
		done
		echo "]"
	} > "$dir/script.json"
	setpriv --reuid="$uid" --regid="$uid" --init-groups \
		"$disk/bin/fake-llama" --script "$dir/script.json" \
		--port "$model_port" --port-file "$dir/port" \
		--record "$dir/requests" > "$dir/fake-llama.log" 2>&1 &
	model_pid=$!
	wait_until 30 "fake-llama listening on port $model_port" \
		test -s "$dir/port" || { cat "$dir/fake-llama.log"; return 1; }
}
model_runs=0

# ---- chats --------------------------------------------------------------

# chat_start OUTFILE COMMAND: a bxctl chat in the owner's login shell, in
# the background; su's pid in $chat_pid (su passes a SIGTERM on).
chat_start() {
	chat_t0=$SECONDS
	su - "$owner" -c "$2" < /dev/null > "$1" 2>&1 &
	chat_pid=$!
}

chat_running() {
	kill -0 "$chat_pid" 2> /dev/null
}

chat_ended() {
	! chat_running
}

chat_kill() {
	kill -TERM "$chat_pid" 2> /dev/null
	wait "$chat_pid"
}

# The first pending approval's id, from bxctl approvals (as demo.sh reads
# it). Polled often, so without a login session each time.
pending_approval() {
	owner_env bxctl approvals 2> /dev/null |
		awk '$1 ~ /^[0-9]+$/ { print $1; exit }'
}

# chat_wait OUTFILE APPROVALS: waits for the running chat to end (at most
# CHAT_WAIT_S) with status 0. APPROVALS "none": a pending approval fails
# at once (nothing here should ask); "stop": returns 2 as soon as one is
# pending, the chat still running.
chat_wait() {
	local rc
	while chat_running; do
		if [ -n "$(pending_approval)" ]; then
			[ "$2" = stop ] && return 2
			chat_kill
			cat "$1"
			fail "the chat waits for an approval: $(as_owner 'bxctl approvals')"
			return 1
		fi
		if [ $((SECONDS - chat_t0)) -ge "$CHAT_WAIT_S" ]; then
			chat_kill
			cat "$1"
			fail "the chat did not end in ${CHAT_WAIT_S} s"
			return 1
		fi
		sleep 0.5
	done
	wait "$chat_pid"
	rc=$?
	cat "$1"
	[ $rc -eq 0 ] || { fail "bxctl chat exited $rc"; return 1; }
}

# result_lines FILE: the chat's result lines.
result_lines() {
	grep '^result ' "$1"
}

# ---- state --------------------------------------------------------------

# reset_owner: no unit running or enabled, no configuration, no home: the
# owner as before the quick start.
reset_owner() {
	stop_model
	stop_mm
	user_systemctl disable --now bxbridge.service brokerd.service loopd.service > /dev/null 2>&1
	user_systemctl reset-failed > /dev/null 2>&1
	# What a failed check left must not fail the next one too.
	owner_env podman rm -af > /dev/null 2>&1
	rm -rf "$bxconf" "$bxhome" "$ohome/vmt"
}

# set_runner_key KEY VALUE: KEY = VALUE in brokerd.toml's [runner] table,
# replacing any KEY there (the file is bxctl init's).
set_runner_key() {
	local f=$bxconf/brokerd.toml
	[ -f "$f" ] || { fail "no $f"; return 1; }
	sed -i "/^[[:space:]]*$1[[:space:]]*=/d" "$f"
	if grep -q '^\[runner\]' "$f"; then
		sed -i "/^\[runner\]/a $1 = $2" "$f"
	else
		printf '\n[runner]\n%s = %s\n' "$1" "$2" >> "$f"
	fi
	say "brokerd.toml's [runner] now:"
	sed -n '/^\[runner\]/,/^\[/p' "$f"
}

# ---- the checks ---------------------------------------------------------

# The staged `make install` tree into /, as `sudo make install` would put it.
check_install() {
	cp -a "$disk/stage/." / || return 1
	systemctl daemon-reload || return 1
	say "installed:"
	(cd "$disk/stage" && find . -type f | sort)
	command -v bxctl brokerd loopd || fail "the programs are not on root's PATH"
}

# bxctl init with no flags: both configuration files, an empty grants
# folder, and a second run refused.
check_init() {
	local rc
	say "bxctl init"
	as_owner 'bxctl init' || { fail "bxctl init exited $?"; return 1; }
	ls -la "$bxconf" "$bxhome" "$bxhome/grants" 2>&1
	[ -f "$bxconf/brokerd.toml" ] || { fail "no ~/.config/boxmaker/brokerd.toml"; return 1; }
	[ -f "$bxconf/loopd.toml" ] || { fail "no ~/.config/boxmaker/loopd.toml"; return 1; }
	[ -d "$bxhome/grants" ] || { fail "no ~/.local/share/boxmaker/grants"; return 1; }
	if [ -n "$(find "$bxhome/grants" -name '*.toml')" ]; then
		fail "bxctl init wrote a grant: $(find "$bxhome/grants" -name '*.toml')"
		return 1
	fi
	say "bxctl init again, without --force: must exit 1"
	as_owner 'bxctl init'
	rc=$?
	[ $rc -eq 1 ] || { fail "the second bxctl init exited $rc, not 1"; return 1; }
}

# quickstart_commands: the README's quick start block, split into
# commands (a heredoc or a continued line stays one command), one per
# file in $qs_dir: cmd-01, cmd-02, ...
quickstart_commands() {
	local readme=$disk/src/README.md
	rm -rf "$qs_dir"
	mkdir -p "$qs_dir"
	if ! grep -q '^<!-- quickstart -->' "$readme" ||
		! grep -q '^<!-- /quickstart -->' "$readme"; then
		fail "README.md has no <!-- quickstart --> ... <!-- /quickstart --> block"
		return 1
	fi
	awk -v dir="$qs_dir" -v sq="'" '
		/^<!-- quickstart -->/ { inq = 1; next }
		/^<!-- \/quickstart -->/ { inq = 0; next }
		!inq { next }
		/^[ \t]*```/ { fence = !fence; next }
		!fence { next }
		{ sub(/^    /, "") }
		term != "" {
			print > file
			if ($0 == term) { close(file); term = "" }
			next
		}
		cont { print > file; cont = /\\$/; if (!cont) close(file); next }
		/^[ \t]*$/ || /^[ \t]*#/ { next }
		{
			sub(/^\$ /, "")
			file = sprintf("%s/cmd-%02d", dir, ++n)
			print > file
			if (match($0, "<<-?[ \t]*[\"" sq "]?[A-Za-z_][A-Za-z_0-9]*")) {
				term = substr($0, RSTART, RLENGTH)
				sub("^<<-?[ \t]*[\"" sq "]?", "", term)
			} else if (/\\$/) {
				cont = 1
			} else {
				close(file)
			}
		}
	' "$readme"
	[ -n "$(ls "$qs_dir")" ] || { fail "the quick start block holds no command"; return 1; }
}

# quickstart_model CHAT_COMMAND: fake-llama scripted to read the file the
# quick start's chat asks about (a ~/ path in it) when the quick start's
# read grant covers it, else a file in that grant's folder. The owner
# writes the file when it is not there: the README asks about the
# reader's own notes.
quickstart_model() {
	local g path="" file="" asked
	for g in "$bxhome"/grants/*.toml; do
		[ -f "$g" ] || continue
		grep -q '^tool *= *"read_file"' "$g" || continue
		grep -q '^mode *= *"deny"' "$g" && continue
		path=$(sed -n 's/^paths *= *\[ *"\([^"]*\)".*/\1/p' "$g" | head -n 1)
		[ -n "$path" ] && break
	done
	[ -n "$path" ] || { fail "the quick start wrote no read_file grant with a path"; return 1; }
	say "the quick start's read grant ${g##*/} covers $path"
	# shellcheck disable=SC2088 # the ~ is the README's text, matched
	asked=$(printf '%s' "$1" | grep -o "~/[^ ?\"']*" | head -n 1)
	asked=${asked/#\~/$ohome}
	case "$asked" in
	"$path"/*) file=$asked ;;
	esac
	if [ -z "$file" ] && [ -f "$path" ]; then
		file=$path
	elif [ -z "$file" ]; then
		file=$(find "$path" -maxdepth 1 -type f 2> /dev/null | sort | head -n 1)
		[ -n "$file" ] || file=$path/vm-quickstart.txt
	fi
	if [ ! -f "$file" ]; then
		say "the owner writes $file"
		printf 'Water the plants.\nThe quick start read this in a sandbox.\n' |
			owner_write "$file"
	fi
	qs_file=$file
	start_model "$(call_json read_file "{\"path\": $(json_str "$file")}")" \
		'{"text": "quick start: the file is read."}'
}

# for_runtime COMMAND: a quick start command for this pass's runtime: the
# word of bxctl init --runtime replaced, or --runtime added to a bare
# bxctl init when the runtime is not the default (podman).
for_runtime() {
	case "$1" in
	*"bxctl init"*--runtime*)
		printf '%s' "$1" | sed -E "s/--runtime[ =](podman|bwrap)/--runtime $runtime/" ;;
	*"bxctl init"*)
		if [ "$runtime" = podman ]; then
			printf '%s' "$1"
		else
			printf '%s' "$1" | sed "s/bxctl init/bxctl init --runtime $runtime/"
		fi ;;
	*) printf '%s' "$1" ;;
	esac
}

# The README's quick start, word for word, in the owner's login shell. The
# root install (sudo make install) is the staged tree already; bxctl init
# gets this pass's runtime (for_runtime).
check_quickstart() {
	local f cmd first_line
	qs_dir=$out/quickstart-$runtime
	quickstart_commands || return 1
	for f in "$qs_dir"/cmd-*; do
		cmd=$(cat "$f")
		case "$cmd" in
		"sudo make install"*|"make"|"make all")
			say "skipped (run.sh staged make install): $cmd"
			continue ;;
		esac
		cmd=$(for_runtime "$cmd")
		if printf '%s' "$cmd" | grep -q 'bxctl chat'; then
			quickstart_model "$cmd" || return 1
			say "\$ $cmd"
			chat_start "$qs_dir/chat.out" "$cmd"
			chat_wait "$qs_dir/chat.out" none || return 1
			first_line=$(head -n 1 "$qs_file")
			result_lines "$qs_dir/chat.out" | grep -q "^result [^:]*: result (.*): .*$first_line" ||
				{ fail "the chat did not show the text of $qs_file in a result"; return 1; }
			grep -q '^model: quick start: the file is read.$' "$qs_dir/chat.out" ||
				{ fail "the chat did not show the model's reply"; return 1; }
			continue
		fi
		say "\$ $cmd"
		as_owner "$cmd" || { fail "the quick start's command exited $?: $cmd"; return 1; }
	done
	grep -q 'bxctl chat' "$qs_dir"/cmd-* ||
		{ fail "the quick start has no bxctl chat"; return 1; }
	grep -q "kind *= *\"$runtime\"" "$bxconf/brokerd.toml" ||
		{ fail "brokerd.toml does not say kind = \"$runtime\""; return 1; }
}

# one_call OUTFILE TOOL ARGS_JSON: the model asks for one call, then says
# "done."; the chat must end without an approval.
one_call() {
	start_model "$(call_json "$2" "$3")" '{"text": "done."}' || return 1
	chat_start "$1" "bxctl chat --say 'vm check'"
	chat_wait "$1" none
}

# grant NAME TOOL MODE KEY VALUES: a grant file of the owner's.
grant() {
	owner_write "$bxhome/grants/$1.toml" <<EOF
# tests/vm/guest.sh's grant $1.
tool = "$2"
mode = "$3"
max_taint = "secret"
result_class = "private"
untrusted = false
expires = "2099-01-01T00:00:00.000Z"

[constraints]
$4 = [$5]
EOF
}

# The checks' own files and grants, beside the quick start's.
make_fixtures() {
	local v=$ohome/vmt
	runuser -u "$owner" -- mkdir -p "$v/ask/private" "$v/work"
	printf 'Buy oat milk.\nCall the plumber on Tuesday.\n' | owner_write "$v/ask/notes.txt"
	printf 'not for the model\n' | owner_write "$v/ask/private/key.txt"
	grant vm-ask read_file ask paths "\"$v/ask\""
	grant vm-deny read_file deny paths "\"$v/ask/private\""
	grant vm-write write_file auto paths "\"$v/work\""
	grant vm-shell shell auto paths "\"$v/work\""
	grant vm-fetch http_fetch auto hosts '"example.org"'
}

# An ask grant: the call waits; bxctl approve lets it run; the file's text
# comes back from the sandbox.
check_approve() {
	local o=$out/checks/$runtime-approve.chat id rc
	make_fixtures || return 1
	start_model "$(call_json read_file "{\"path\": \"$ohome/vmt/ask/notes.txt\"}")" \
		'{"text": "done."}' || return 1
	chat_start "$o" "bxctl chat --say 'read my notes'"
	chat_wait "$o" stop
	rc=$?
	case $rc in
	2) ;;
	0) fail "the chat ended without asking for an approval"; return 1 ;;
	*) return 1 ;;
	esac
	as_owner 'bxctl approvals'
	id=$(pending_approval)
	say "bxctl approve $id"
	as_owner "bxctl approve $id" || { fail "bxctl approve $id exited $?"; chat_kill; return 1; }
	chat_wait "$o" none || return 1
	result_lines "$o" | grep -qF 'result (private): Buy oat milk.\u000aCall the plumber on Tuesday.' ||
		fail "the approved read's result is not the file's text"
}

# bxctl approve ID --for 1h: the grant it writes is the owner's and listed,
# the same read runs again without asking, and grants remove takes it away.
check_approve_for() {
	local o=$out/checks/$runtime-approve-for.chat o2=$out/checks/$runtime-approve-for-again.chat
	local call id g old rc
	call=$(call_json read_file "{\"path\": \"$ohome/vmt/ask/notes.txt\"}")
	start_model "$call" '{"text": "done."}' "$call" '{"text": "done again."}' || return 1
	chat_start "$o" "bxctl chat --say 'read my notes'"
	chat_wait "$o" stop
	rc=$?
	[ $rc -eq 2 ] || { [ $rc -eq 0 ] && fail "the chat ended without asking"; return 1; }
	id=$(pending_approval)
	g=$bxhome/grants/approved-read-file-$id.toml
	# What an approve --for of a month ago left, expired 30 days: this
	# approve --for prunes it before it writes its own.
	old=$bxhome/grants/approved-read-file-$((id + 100000)).toml
	su - "$owner" -c "cat > '$old'" <<-EOF
	# Written by bxctl approve $((id + 100000)) --for: approval $((id + 100000)), asked by grant vmt-ask.
	tool = "read_file"
	mode = "auto"
	max_taint = "private"
	result_class = "private"
	untrusted = false
	expires = "$(date -u -d '30 days ago' +%Y-%m-%dT%H:%M:%S.000Z)"

	[constraints]
	paths = ["$ohome/vmt/ask/notes.txt"]
	EOF
	[ -s "$old" ] || { fail "cannot write $old"; chat_kill; return 1; }
	say "bxctl approve $id --for 1h"
	as_owner "bxctl approve $id --for 1h" | tee "$o.approve" ||
		{ fail "bxctl approve --for exited $?"; chat_kill; return 1; }
	grep -q "^removed 1 grants of bxctl's that expired more than 7 d ago" "$o.approve" ||
		{ fail "bxctl approve --for did not prune the expired grant"; chat_kill; return 1; }
	[ ! -e "$old" ] || { fail "bxctl approve --for left $old"; chat_kill; return 1; }
	grep -q "^approved $id: runs; grant approved-read-file-$id lets the same call through until " "$o.approve" ||
		{ fail "bxctl approve --for did not name its grant"; chat_kill; return 1; }
	chat_wait "$o" none || return 1
	say "the grant it wrote, $g:"
	cat "$g" || { fail "no grant file $g"; return 1; }
	[ "$(stat -c %U "$g")" = "$owner" ] || { fail "the grant belongs to $(stat -c %U "$g")"; return 1; }
	grep -qxF "paths = [\"$ohome/vmt/ask/notes.txt\"]" "$g" ||
		{ fail "the grant is not for that one path"; return 1; }
	as_owner 'bxctl grants list' | tee "$o.list" | grep -E "^approved-read-file-$id +read_file +auto " ||
		{ fail "bxctl grants list does not show the grant"; return 1; }
	say "the same read again: no approval asked"
	chat_start "$o2" "bxctl chat --say 'read them again'"
	chat_wait "$o2" none || return 1
	result_lines "$o2" | grep -qF 'result (private): Buy oat milk.' ||
		{ fail "the second read did not run"; return 1; }
	as_owner "bxctl grants remove approved-read-file-$id" || { fail "grants remove exited $?"; return 1; }
	[ ! -e "$g" ] || fail "grants remove left $g"
}

# bxctl approvals --follow --json, started before the chat: the pending
# approval appears, then its answer, while it runs.
check_approvals_follow() {
	local o=$out/checks/$runtime-follow.chat f=$out/checks/$runtime-follow.json id fpid rc
	start_model "$(call_json read_file "{\"path\": \"$ohome/vmt/ask/notes.txt\"}")" \
		'{"text": "done."}' || return 1
	owner_env bxctl approvals --follow --json > "$f" 2>&1 &
	fpid=$!
	chat_start "$o" "bxctl chat --say 'read my notes'"
	chat_wait "$o" stop
	rc=$?
	[ $rc -eq 2 ] || { kill "$fpid"; [ $rc -eq 0 ] && fail "the chat ended without asking"; return 1; }
	id=$(pending_approval)
	wait_until 60 "approvals --follow to print approval $id" \
		grep -q "\"type\":\"pending\",\"approval\":$id," "$f" ||
		{ cat "$f"; chat_kill; kill "$fpid"; return 1; }
	as_owner "bxctl approve $id" || { fail "bxctl approve exited $?"; chat_kill; kill "$fpid"; return 1; }
	chat_wait "$o" none || { kill "$fpid"; return 1; }
	wait_until 60 "approvals --follow to print the answer to $id" \
		grep -q "\"type\":\"answer\",\"approval\":$id,\"answer\":\"approved\"" "$f"
	rc=$?
	pkill -INT -u "$owner" -f 'bxctl approvals --follow'
	wait "$fpid"
	cat "$f"
	return $rc
}

# The log of the session a chat's output names ("session ID"); loopd may
# write it only as the stopped turn ends.
session_log_of() {
	echo "$bxhome/sessions/$(sed -n 's/^session //p' "$1" | tail -n 1).jsonl"
}

# stop_chat: the chat's bxctl gets SIGINT, as Ctrl-C at its terminal sends;
# the chat must end then.
stop_chat() {
	local pid
	pid=$(pgrep -u "$owner" -f '^bxctl chat' | head -n 1)
	[ -n "$pid" ] || { fail "no bxctl chat process to stop"; return 1; }
	say "kill -INT $pid (bxctl chat)"
	kill -INT "$pid"
	wait_until 60 "bxctl chat to end after SIGINT" chat_ended ||
		{ chat_kill; return 1; }
	wait "$chat_pid"
	cat "$1"
	grep -q '^stopped (Ctrl-C)' "$1" || { fail "bxctl did not say the turn stopped"; return 1; }
}

no_pending_approval() {
	[ -z "$(pending_approval)" ]
}

# Ctrl-C while a call waits for approval: the turn stops, brokerd gives the
# approval up (audit verify: abandoned), and the session log keeps the stop.
check_ctrl_c_approval() {
	local o=$out/checks/$runtime-ctrl-c.chat id rc log
	start_model "$(call_json read_file "{\"path\": \"$ohome/vmt/ask/notes.txt\"}")" \
		'{"text": "done."}' || return 1
	chat_start "$o" "bxctl chat --say 'read my notes'"
	chat_wait "$o" stop
	rc=$?
	[ $rc -eq 2 ] || { [ $rc -eq 0 ] && fail "the chat ended without asking"; return 1; }
	id=$(pending_approval)
	stop_chat "$o" || return 1
	wait_until 60 "brokerd to give approval $id up" no_pending_approval || return 1
	log=$(session_log_of "$o")
	wait_until 60 "the stop in $log" grep -q 'The owner stopped this turn' "$log" ||
		{ fail "$log does not keep the stop"; return 1; }
	as_owner 'bxctl audit verify' | tee "$o.verify"
	grep -q "^abandoned: decision $id asked for approval and got no answer" "$o.verify" ||
		fail "audit verify does not report approval $id abandoned"
}

# Ctrl-C while a shell call runs: the call ends and its result is kept in
# the session log with the stop; nothing stays in a call cgroup.
check_ctrl_c_running() {
	local o=$out/checks/$runtime-ctrl-c-running.chat w=$ohome/vmt/work log
	rm -f "$w/started"
	start_model "$(call_json shell "{\"command\": \"touch started; sleep 3; echo slept through the stop\", \"cwd\": \"$w\"}")" \
		'{"text": "never asked"}' || return 1
	chat_start "$o" "bxctl chat --say 'run it'"
	wait_until "$CHAT_WAIT_S" "the shell call to start" test -e "$w/started" ||
		{ chat_kill; cat "$o"; return 1; }
	stop_chat "$o" || return 1
	log=$(session_log_of "$o")
	wait_until 60 "the call's result in $log" grep -q 'slept through the stop' "$log" ||
		{ fail "$log does not keep the running call's result"; return 1; }
	grep -q 'The owner stopped this turn' "$log" || { fail "$log does not keep the stop"; return 1; }
	wait_until 60 "no process in a call cgroup" no_call_running ||
		fail "the stopped turn left a call running"
}

# A deny grant wins over the ask grant that also covers the file.
check_deny() {
	local o=$out/checks/$runtime-deny.chat
	one_call "$o" read_file "{\"path\": \"$ohome/vmt/ask/private/key.txt\"}" || return 1
	result_lines "$o" | grep -qF 'denied (public): Denied: a grant forbids this call.' ||
		{ fail "the read was not denied by the deny grant"; return 1; }
	if grep -q 'not for the model' "$o"; then
		fail "the denied file's text reached the chat"
	fi
}

check_write_file() {
	local o=$out/checks/$runtime-write.chat f=$ohome/vmt/work/todo.txt
	one_call "$o" write_file "{\"path\": \"$f\", \"content\": \"oat milk\\nplumber\\n\"}" || return 1
	result_lines "$o" | grep -qF "result (private): wrote 17 bytes to $f" ||
		{ fail "write_file did not report 17 bytes written"; return 1; }
	[ "$(cat "$f")" = "$(printf 'oat milk\nplumber')" ] ||
		{ fail "todo.txt holds $(od -c "$f" | head -n 3)"; return 1; }
	[ "$(stat -c %U "$f")" = "$owner" ] || fail "todo.txt belongs to $(stat -c %U "$f"), not $owner"
}

check_shell() {
	local o=$out/checks/$runtime-shell.chat
	one_call "$o" shell "{\"command\": \"wc -l < todo.txt; uname -n\", \"cwd\": \"$ohome/vmt/work\"}" || return 1
	result_lines "$o" | grep -qF 'result (private): 2\u000aboxmaker\u000a' ||
		fail "the shell call did not count todo.txt's lines on host boxmaker"
}

# http_fetch with no network at all (qemu -nic none): the call must end
# failed, with a message naming the host, not hang.
check_fetch_offline() {
	local o=$out/checks/$runtime-fetch.chat
	one_call "$o" http_fetch '{"url": "https://example.org/"}' || return 1
	result_lines "$o" | grep -qE '^result [^:]*: failed \([a-z, ]*\): .*example\.org' ||
		fail "http_fetch offline did not fail with a message naming example.org"
}

# A 900 MiB allocation against the default 512 MiB: out of memory.
check_memory() {
	local o=$out/checks/$runtime-memory.chat
	one_call "$o" shell "{\"command\": \"dd if=/dev/zero of=/dev/null bs=900M count=1; echo survived\", \"cwd\": \"$ohome/vmt/work\"}" || return 1
	result_lines "$o" | grep -qF 'out of memory (512 MiB)' ||
		fail "the 900 MiB allocation did not end as out of memory (512 MiB)"
}

# The processes still in a call's cgroup (none once its call is answered).
call_cgroup_procs() {
	find /sys/fs/cgroup -path '*call-*' -name cgroup.procs -exec cat {} + 2> /dev/null
}

no_call_running() {
	[ -z "$(call_cgroup_procs)" ]
}

# A fork bomb against pids = 128: forks fail (the pids limit), the call
# ends saying which limit it reached, and nothing of it stays.
check_fork_bomb() {
	local o=$out/checks/$runtime-forkbomb.chat
	one_call "$o" shell "{\"command\": \"f() { f | f & }; f; sleep 60\", \"cwd\": \"$ohome/vmt/work\"}" || return 1
	result_lines "$o" | grep -qE '^result [^:]*: (failed|result) ' ||
		{ fail "the fork bomb's call has no result"; return 1; }
	result_lines "$o" | grep -qF 'Cannot fork' ||
		{ fail "no fork failed: the pids limit did not bite"; return 1; }
	# Under podman on Linux 6.1 the limit's event is counted in podman's
	# own container cgroup, which podman removes as the call ends: brokerd
	# watches it while it is there (src/brokerd/runner/cgroup_pids.c).
	result_lines "$o" | grep -qF 'the process limit (128) was reached' ||
		{ fail "the fork bomb's result does not say the process limit (128) was reached ($(uname -r))"; return 1; }
	if [ -n "$(call_cgroup_procs)" ]; then
		say "processes left in call cgroups:"
		call_cgroup_procs | xargs -r ps -o pid,user,cmd -p
		fail "the fork bomb left processes behind"
	fi
}

# The issue's case: 400 background sleeps under pids = 128. The shell
# exits 2 at the first refused fork, and under bwrap the call ends then.
# Under rootless podman here the call ran on to its timeout instead (seen
# on Linux 6.1; not as root on the build machine): either way the result
# must name the limit, which podman's removed cgroup once hid.
check_pids_quick_exit() {
	local o=$out/checks/$runtime-pids-quick.chat want
	one_call "$o" shell "{\"command\": \"for i in \$(seq 400); do sleep 30 & done\", \"cwd\": \"$ohome/vmt/work\"}" || return 1
	want='exit status 2; the process limit (128) was reached'
	[ "$runtime" = podman ] && want='the process limit (128) was reached'
	result_lines "$o" | grep -qF "$want" ||
		fail "the result does not say: $want ($(uname -r))"
}

# restart_brokerd: systemctl --user restart brokerd as the owner types it,
# then waits until the new brokerd answers bxctl.
restart_brokerd() {
	say "systemctl --user restart brokerd"
	as_owner 'systemctl --user restart brokerd' || { fail "restart exited $?"; return 1; }
	wait_until 60 "brokerd active again" user_systemctl is-active --quiet brokerd.service ||
		return 1
	wait_until 60 "bxctl grants check to reach the new brokerd" owner_env bxctl grants check
}

# systemctl --user restart brokerd (with a 15 s call timeout now), and a
# call after it works. Not 5 s: a podman sandbox under TCG on a busy host
# takes 3.4 to 3.8 s to start, and the call after the restart once timed
# out.
check_restart() {
	local o=$out/checks/$runtime-restart.chat
	set_runner_key timeout_ms 15000 || return 1
	restart_brokerd || return 1
	one_call "$o" shell "{\"command\": \"echo after the restart\", \"cwd\": \"$ohome/vmt/work\"}" || return 1
	result_lines "$o" | grep -qF 'result (private): after the restart\u000a' ||
		fail "the call after the restart did not run"
}

# sleep 1000 under timeout_ms = 15000: timed out, well before 1000 s.
check_timeout() {
	local o=$out/checks/$runtime-timeout.chat t0=$SECONDS
	one_call "$o" shell "{\"command\": \"sleep 1000\", \"cwd\": \"$ohome/vmt/work\"}" || return 1
	say "the chat took $((SECONDS - t0)) s"
	result_lines "$o" | grep -qF 'timed out after 15 s' ||
		fail "sleep 1000 did not end as timed out after 15 s"
}

# ---- a secret sent to a test host ---------------------------------------
#
# The owner adds a secret (bxctl secrets add, the value on standard input)
# and an http_fetch grant that sends it (bxctl grants add --secret); the
# model fetches https://good.test/echo/authorization from tls-host in
# tests/egress/testnet.sh's network (slot 0, 10.200.0.0/27, run by root:
# network namespaces, a firewall, a test CA), which logs each request's
# headers and answers with the header's value in every form the redaction
# must find (tests/egress/echo-forms.h). brokerd's egress proxy reaches it
# as the make check suites set it up: [egress] ca_file and allow_addresses
# in brokerd.toml. testnet.sh binds its hosts file only for the command it
# runs, and brokerd is no child of it, so for brokerd good.test resolves
# through a copy of the guest's /etc/hosts with the name added, bound over
# /etc/hosts while the check runs.

secret_name=vmtoken
secret_grant=vm-secret-fetch
# Root's: the value, what it is searched for as, the network's state.
sdir=/run/boxmaker-vmtest
net_pid=""

secret_net_ready() {
	[ -s "$sdir/net/env" ] || [ -e "$sdir/net/exit" ]
}

secret_net_ended() {
	[ -e "$sdir/net/exit" ]
}

# secret_net_up: testnet.sh in the background. Its command writes the
# network's BX_TESTNET_* to $sdir/net/env once the servers listen and
# holds the network until $sdir/net/stop appears; then testnet.sh removes
# everything it made. Sets net_dir, net_a and net_allow.
secret_net_up() {
	rm -rf "$sdir/net"
	mkdir -p "$sdir/net"
	(
		# shellcheck disable=SC2016 # expanded by the inner sh
		"$disk/bin/testnet.sh" --slot 0 "$disk/bin/tls-host" -- sh -c '
			env | grep "^BX_TESTNET_" > "$1.new" && mv "$1.new" "$1" || exit 1
			while [ ! -e "$2" ]; do sleep 0.2; done' \
			sh "$sdir/net/env" "$sdir/net/stop"
		echo $? > "$sdir/net/exit"
	) > "$sdir/net/testnet.log" 2>&1 &
	net_pid=$!
	wait_until 120 "testnet.sh's servers to listen" secret_net_ready ||
		{ cat "$sdir/net/testnet.log"; return 1; }
	if [ ! -s "$sdir/net/env" ]; then
		cat "$sdir/net/testnet.log"
		fail "testnet.sh ended with status $(cat "$sdir/net/exit") before its servers listened"
		return 1
	fi
	net_dir=$(sed -n 's/^BX_TESTNET_DIR=//p' "$sdir/net/env")
	net_a=$(sed -n 's/^BX_TESTNET_A=//p' "$sdir/net/env")
	net_allow=$(sed -n 's/^BX_TESTNET_ALLOW=//p' "$sdir/net/env")
	say "the test network: good.test is $net_a, allowed $net_allow, CA $net_dir/ca.pem"
	[ -s "$net_dir/ca.pem" ] || { fail "testnet.sh made no $net_dir/ca.pem"; return 1; }
	ip netns list
}

# secret_value: a fresh value for this runtime, random enough that no 8
# bytes of it in a row turn up anywhere by chance; with '/' and '+', which
# percent-encoding and JSON escaping change.
secret_value() {
	local r
	r=$(head -c 18 /dev/urandom | base64 | tr '+/' 'xy')
	secret="vm${r:0:12}/${r:12:12}+Tk"
}

# secret_needles: $sdir/needles, one fixed string a line, every form the
# value must be searched for in: the value and its header value, base64
# (padding and the last two characters off, which depend on what follows)
# and hex of each, any 8 bytes of the value in a row, and each line tls-host
# echoes for it (every form echo-forms.h lists), fetched here by root.
secret_needles() {
	local s i
	printf 'Authorization: Bearer %s\n' "$secret" > "$sdir/header"
	curl -sS --fail --max-time 60 --cacert "$net_dir/ca.pem" \
		--resolve "good.test:443:$net_a" -H "@$sdir/header" \
		https://good.test/echo/authorization > "$sdir/forms" ||
		{ fail "root's curl could not fetch the echo from good.test"; return 1; }
	{
		for s in "$secret" "Bearer $secret"; do
			printf '%s\n' "$s"
			printf '%s' "$s" | base64 -w 0 | tr -d = | sed 's/..$//'
			echo
			printf '%s' "$s" | od -An -tx1 | tr -d ' \n'
			echo
		done
		for ((i = 0; i + 8 <= ${#secret}; i++)); do
			printf '%s\n' "${secret:i:8}"
		done
		sed -n 's/^[a-z-]* [a-z0-9-]*: //p' "$sdir/forms"
	} | grep -v '^$' > "$sdir/needles"
	say "tls-host's echo has $(wc -l < "$sdir/forms") lines; $(wc -l < "$sdir/needles") forms to search for"
	# The owner's fetch is to be the only request the host logs.
	: > "$net_dir/log-a.txt"
}

# secret_egress: brokerd.toml's [egress] for the test network (the file as
# it was is kept, for check_secret_cleanup), and brokerd restarted to read it.
secret_egress() {
	local f=$bxconf/brokerd.toml
	cp -p "$f" "$sdir/brokerd.toml.before" || return 1
	printf '\n[egress]\nca_file = "%s/ca.pem"\nallow_addresses = ["%s"]\n' \
		"$net_dir" "$net_allow" >> "$f"
	say "brokerd.toml's [egress] now:"
	sed -n '/^\[egress\]/,$p' "$f"
	restart_brokerd
}

# secret_hosts: good.test resolves for brokerd's egress proxy.
secret_hosts() {
	{ cat /etc/hosts; echo "$net_a good.test"; } > "$sdir/hosts"
	chmod 644 "$sdir/hosts"
	mount --bind "$sdir/hosts" /etc/hosts || { fail "cannot bind $sdir/hosts"; return 1; }
	getent hosts good.test || fail "good.test does not resolve"
}

# The owner's commands: the secret from standard input, the grant that
# sends it, both listed. Their output is kept for check_secret_nowhere.
secret_owner_setup() {
	local b=$out/checks/$runtime-secret-bxctl.out
	say "bxctl secrets add $secret_name --host good.test --bearer (the value on stdin)"
	printf '%s\n' "$secret" | su - "$owner" -c \
		"bxctl secrets add $secret_name --host good.test --bearer" >> "$b" 2>&1 ||
		{ cat "$b"; fail "bxctl secrets add exited $?"; return 1; }
	ls -ld "$bxconf/secrets" "$bxconf/secrets/$secret_name.toml"
	[ "$(stat -c '%a %U' "$bxconf/secrets/$secret_name.toml")" = "600 $owner" ] ||
		{ fail "the secret file is not 0600 and the owner's"; return 1; }
	as_owner "bxctl grants add http_fetch --host good.test --secret $secret_name --mode auto --expires 1d --id $secret_grant" >> "$b" 2>&1 ||
		{ cat "$b"; fail "bxctl grants add --secret exited $?"; return 1; }
	as_owner 'bxctl grants check; bxctl secrets list; bxctl grants list' >> "$b" 2>&1 ||
		{ cat "$b"; fail "bxctl grants check or secrets list found a problem"; return 1; }
	cat "$b"
	grep -E "^$secret_name .*bearer.*good\.test.*$secret_grant" "$b" ||
		{ fail "bxctl secrets list does not show $secret_name, bearer, good.test, $secret_grant"; return 1; }
}

# secret_journal_count SINCE: brokerd's journal line since SINCE (epoch
# seconds) saying how many occurrences of the secret it removed; the
# number into $sdir/brokerd-count.
secret_journal_count() {
	journalctl --no-pager -o cat --since "@$1" _SYSTEMD_USER_UNIT=brokerd.service \
		> "$sdir/brokerd.log"
	grep -oE "[0-9]+ occurrences? of the secret $secret_name removed from the result" \
		"$sdir/brokerd.log" | grep -oE '^[0-9]+' > "$sdir/brokerd-count"
	[ -s "$sdir/brokerd-count" ]
}

# Under this runtime: the host gets the header, the model gets the echo
# with every form of the value replaced and the count of them, and
# brokerd's journal tells the owner the same count.
check_secret_fetch() {
	local o=$out/checks/$runtime-secret.chat log since n forms brokerd_n
	since=$(date +%s)
	rm -rf "$sdir"
	mkdir -m 700 "$sdir" || return 1
	secret_value
	secret_net_up || return 1
	secret_needles || return 1
	secret_hosts || return 1
	secret_egress || return 1
	secret_owner_setup || return 1
	one_call "$o" http_fetch '{"url": "https://good.test/echo/authorization"}' || return 1
	log=$net_dir/log-a.txt
	say "the host's log:"
	cat "$log"
	grep -qxF 'request good.test GET /echo/authorization' "$log" ||
		{ fail "good.test logged no GET /echo/authorization"; return 1; }
	[ "$(grep -cxF "header good.test Authorization: Bearer $secret" "$log")" -eq 1 ] ||
		{ fail "good.test did not log the request with Authorization: Bearer <the value>, once"; return 1; }
	if grep -qF -f "$sdir/needles" "$o"; then
		fail "the chat's output holds a form of the value"
		return 1
	fi
	result_lines "$o" | grep -qF "token raw: [secret $secret_name]" ||
		{ fail "the result does not show the echoed token as [secret $secret_name]"; return 1; }
	# What loopd sent the model (fake-llama's record of its requests).
	grep -rqF "[secret $secret_name]" "$out/model/$runtime-$model_runs/requests" ||
		{ fail "the model's requests do not hold [secret $secret_name]"; return 1; }
	n=$(result_lines "$o" | grep -oE "\[[0-9]+ occurrences? of the secret $secret_name (was|were) removed\]" |
		grep -oE '[0-9]+')
	forms=$(grep -c . "$sdir/forms")
	say "the model was told $n occurrences were removed; the echo had $forms lines"
	if [ -z "$n" ] || [ "$n" -lt "$forms" ]; then
		fail "the result does not say at least $forms occurrences were removed"
		return 1
	fi
	wait_until 30 "brokerd's journal to say how many occurrences it removed" \
		secret_journal_count "$since" || return 1
	brokerd_n=$(cat "$sdir/brokerd-count")
	say "brokerd's journal: $(grep -F "of the secret $secret_name" "$sdir/brokerd.log")"
	[ "$brokerd_n" = "$n" ] ||
		fail "brokerd's journal says ${brokerd_n:-nothing} occurrences removed, the model $n"
}

# The owner's files a value could land in: the whole home (the Boxmaker
# home with the audit log, the session logs, grants and run/; the
# configuration) but the secrets directory and podman's image layers, and
# whatever the owner has in /tmp, /var/tmp, /dev/shm and /run/user/1000.
owner_files() {
	local c=$ohome/.local/share/containers/storage
	find "$ohome" \( -path "$bxconf/secrets" -o -path "$c/overlay" -o -path "$c/vfs" \) -prune \
		-o -type f -print
	find /tmp /var/tmp /dev/shm "$ortdir" -xdev -user "$owner" -type f 2> /dev/null
}

# Nowhere but the secret's file: none of the owner's files, bxctl's output
# (the chat and the secrets and grants commands), what the model was sent
# (fake-llama's record), nor the boot's whole journal (brokerd's, loopd's,
# podman's) holds any form of the value. The
# search is first shown to find it where it is: the secret file and the
# host's log.
check_secret_nowhere() {
	local n=$sdir/needles files hits=0 f
	[ -s "$n" ] || { fail "no value to search for: the fetch check did not get that far"; return 1; }
	grep -qF -f "$n" "$bxconf/secrets/$secret_name.toml" ||
		{ fail "the search does not find the value in the secret's own file"; return 1; }
	grep -qF -f "$n" "$net_dir/log-a.txt" ||
		{ fail "the search does not find the value in the host's log"; return 1; }
	journalctl -b --no-pager -o cat > "$sdir/journal.txt"
	{
		owner_files
		ls "$out/checks/$runtime-secret"*
		find "$out/model/$runtime-$model_runs" -type f
		echo "$sdir/journal.txt"
	} > "$sdir/files"
	files=$(wc -l < "$sdir/files")
	say "searching $files files ($(wc -l < "$sdir/journal.txt") journal lines among them) for $(wc -l < "$n") forms"
	while IFS= read -r f; do
		if grep -qaF -f "$n" "$f"; then
			echo "holds a form of the value: $f"
			hits=$((hits + 1))
		fi
	done < "$sdir/files"
	[ "$hits" -eq 0 ] || fail "$hits of $files files hold a form of the value"
}

# Every step runs whatever the one before did: the grant and the secret
# removed with bxctl, /etc/hosts and brokerd.toml as they were, brokerd
# restarted on them, testnet.sh stopped, and nothing of its network left.
check_secret_cleanup() {
	local rc=0 left
	if [ -e "$bxhome/grants/$secret_grant.toml" ]; then
		as_owner "bxctl grants remove $secret_grant" || { say "grants remove exited $?"; rc=1; }
	fi
	if [ -e "$bxconf/secrets/$secret_name.toml" ]; then
		as_owner "bxctl secrets remove $secret_name" || { say "secrets remove exited $?"; rc=1; }
	fi
	[ ! -e "$bxconf/secrets/$secret_name.toml" ] || { say "the secret's file is still there"; rc=1; }
	if grep -q ' /etc/hosts ' /proc/self/mountinfo; then
		umount /etc/hosts || rc=1
	fi
	if [ -f "$sdir/brokerd.toml.before" ]; then
		cp "$sdir/brokerd.toml.before" "$bxconf/brokerd.toml" || rc=1
		restart_brokerd || rc=1
	fi
	if [ -n "$net_pid" ]; then
		touch "$sdir/net/stop"
		wait_until 120 "testnet.sh to remove its network" secret_net_ended || rc=1
		wait "$net_pid"
		net_pid=""
		say "testnet.sh's output:"
		cat "$sdir/net/testnet.log"
		[ "$(cat "$sdir/net/exit" 2> /dev/null)" = 0 ] ||
			{ say "testnet.sh's command ended $(cat "$sdir/net/exit" 2> /dev/null)"; rc=1; }
	fi
	left=$(
		ip netns list | grep bxtn
		ip -o link show | grep -o 'bxh[0-9]-[^:@]*'
		nft list tables 2> /dev/null | grep bxtn
		ls -d /tmp/bx-testnet-* 2> /dev/null
		pgrep -a -x tls-host
		grep ' /etc/hosts ' /proc/self/mountinfo
	)
	rm -rf "$sdir"
	[ -z "$left" ] || { echo "$left"; fail "the test network left the above"; return 1; }
	[ $rc -eq 0 ] || fail "a step of the cleanup failed (above)"
}

check_audit_verify() {
	local o
	o=$(as_owner 'bxctl audit verify' 2>&1)
	echo "$o"
	case "$o" in
	"audit: ok"*) ;;
	*) fail "bxctl audit verify did not print audit: ok" ;;
	esac
}

# loopd's turn loop as the owner's machine runs it (roles.md section 8):
# its /proc status, its namespaces against its launcher's, its mounts, and
# what it wrote, read by the owner with cat; bxctl status says jailed.
check_jailed_loopd() {
	local main inner st want k a b points
	main=$(user_systemctl show -p MainPID --value loopd.service)
	inner=$(pgrep -P "$main" -f 'in-jail' | head -n 1)
	[ -n "$inner" ] ||
		{ fail "no jailed turn loop under loopd's launcher (pid $main)"; return 1; }
	st=/proc/$inner/status
	say "the turn loop, pid $inner, child of the launcher $main"
	grep -E '^(Uid|Gid|Groups|NoNewPrivs|Seccomp|CapEff|CapBnd):' "$st"
	want=$(awk -F: -v u="$owner" '$1 == u { print $2 + $3 - 1; exit }' /etc/subuid)
	grep -qE "^Uid:\s+$want\s+$want\s+$want\s+$want\$" "$st" ||
		{ fail "the turn loop's uid is not $want, the top of $owner's range"; return 1; }
	grep -qE '^NoNewPrivs:\s+1$' "$st" || { fail "NoNewPrivs is not 1"; return 1; }
	grep -qE '^Seccomp:\s+2$' "$st" || { fail "Seccomp is not 2"; return 1; }
	grep -qE '^CapEff:\s+0+$' "$st" || { fail "CapEff is not 0"; return 1; }
	grep -qE '^CapBnd:\s+0+$' "$st" || { fail "CapBnd is not 0"; return 1; }
	for k in user mnt pid net ipc uts; do
		a=$(readlink "/proc/$main/ns/$k")
		b=$(readlink "/proc/$inner/ns/$k")
		echo "namespace $k: launcher $a, turn loop $b"
		[ "$a" != "$b" ] || { fail "the turn loop shares the $k namespace"; return 1; }
	done
	points=$(awk '{ print $5 }' "/proc/$inner/mountinfo")
	echo "its mounts:"
	echo "$points" | sed 's/^/  /'
	if echo "$points" | grep -E 'owner-broker|/grants$|/audit$|/broker$|^/home$|^/run'; then
		fail "the jail shows a mount it must not"
		return 1
	fi
	say "cat ~/.local/share/boxmaker/sessions/*.jsonl (written by the jail)"
	as_owner 'cat ~/.local/share/boxmaker/sessions/*.jsonl' | head -c 400 ||
		{ fail "the owner cannot read the session logs"; return 1; }
	echo
	as_owner 'bxctl status' | tee "$out/checks/$runtime-status" | grep loopd
	grep -q 'jailed as uid' "$out/checks/$runtime-status" ||
		{ fail "bxctl status does not say the turn loop is jailed"; return 1; }
}

# The jail suite (tests/jail/) as the owner: an attacker in loopd's jail
# tries every door of roles.md section 1.
check_jail_suite() {
	say "test-jail as $owner"
	runuser -u "$owner" -- env LD_LIBRARY_PATH="$disk/lib" \
		BX_BUILD_ROOT="$disk/jailtest" TMPDIR=/tmp \
		"$disk/jailtest/tests/jail/test-jail" < /dev/null
}

# ---- approvals in Mattermost: bxbridge against the fake server ----------

# The fake server's accounts: the owner's Mattermost id (26 of a-z0-9, as
# bxbridge.toml wants) and the bot's token.
mm_owner=vmowner0000000000000000000
mm_token=vmbottoken0000000000000000
mm_pid=""
mm_port=""
mm_dir=""

stop_mm() {
	[ -n "$mm_pid" ] || return 0
	kill -TERM "$mm_pid" 2> /dev/null
	wait "$mm_pid" 2> /dev/null
	mm_pid=""
}

# start_mm: the fake Mattermost server as the owner on 127.0.0.1, a port
# of its choosing (the line it prints) in $mm_port.
start_mm() {
	mm_dir=$out/mattermost/$runtime
	stop_mm
	mkdir -p "$mm_dir"
	chown -R "$owner" "$mm_dir"
	setpriv --reuid="$uid" --regid="$uid" --init-groups \
		"$disk/bin/fake-mattermost" --log "$mm_dir/requests.jsonl" \
		--token "$mm_token" --owner "$mm_owner" \
		> "$mm_dir/port" 2> "$mm_dir/fake-mattermost.log" &
	mm_pid=$!
	wait_until 30 "fake-mattermost to print its port" \
		grep -qE '^[0-9]+$' "$mm_dir/port" || { cat "$mm_dir/fake-mattermost.log"; return 1; }
	mm_port=$(head -n 1 "$mm_dir/port")
	say "fake-mattermost (pid $mm_pid) on http://127.0.0.1:$mm_port"
}

# mm PATH [CURL ARGS...]: a request to the fake server (its /fake/ routes
# script it and show what it holds).
mm() {
	local p=$1
	shift
	curl -sS --max-time 20 "$@" "http://127.0.0.1:$mm_port$p"
}

# The ids of the posts the fake server holds (the keys of /fake/posts'
# "posts" object), one a line.
mm_post_ids() {
	mm /fake/posts | grep -oE '[{,]"[a-z0-9]{26}":\{' | tr -dc 'a-z0-9\n' |
		sed -n '/^[a-z0-9]\{26\}$/p'
}

# mm_posts_say TEXT: a post the fake server holds has TEXT in it.
mm_posts_say() {
	mm /fake/posts | grep -qF "$1"
}

mm_has_post() {
	[ -n "$(mm_post_ids)" ]
}

# bxctl status's bridge line says it runs and reached Mattermost and brokerd.
bridge_connected() {
	owner_env bxctl status 2> /dev/null |
		grep -qE '^bridge +running as pid [0-9]+, up .*: Mattermost connected, brokerd connected'
}

bridge_gone() {
	! user_systemctl is-active --quiet bxbridge.service &&
		! pgrep -x bxbridge > /dev/null
}

# The bridge's side of a failure: its state file and its journal.
bridge_evidence() {
	say "bxctl status:"
	owner_env bxctl status 2>&1
	say "$bxhome/bridge/state.json: $(cat "$bxhome/bridge/state.json" 2>&1)"
	say "bxbridge's journal:"
	journalctl --no-pager -o short-precise -n 40 _SYSTEMD_USER_UNIT=bxbridge.service 2>&1
	say "the fake server's requests (last 20):"
	tail -n 20 "$mm_dir/requests.jsonl" 2>&1
}

# The owner sets the bridge up as bxbridge(8) says: bxbridge.toml (init's
# [broker] socket kept), the bot's token in a file of mode 0600, bxbridge
# check, then systemctl --user start bxbridge (the unit make install put
# in PREFIX/lib/systemd/user).
bridge_setup() {
	local f=$bxconf/bxbridge.toml tok=$bxconf/bxbridge.token sock
	sock=$(grep -E '^socket = ' "$f") ||
		{ fail "bxctl init's $f names no [broker] socket"; return 1; }
	cp -p "$f" "$mm_dir/bxbridge.toml.init"
	printf '%s\n' "$mm_token" | owner_write "$tok" && chmod 600 "$tok" || return 1
	owner_write "$f" <<EOT || return 1
[mattermost]
url = "http://127.0.0.1:$mm_port"
token_file = "$tok"
owner = "$mm_owner"
poll_s = 1

[broker]
$sock
EOT
	say "bxbridge.toml:"
	cat "$f"
	say "bxbridge check"
	as_owner 'bxbridge check' || { fail "bxbridge check exited $?"; return 1; }
	say "systemctl --user daemon-reload; systemctl --user start bxbridge"
	as_owner 'systemctl --user daemon-reload && systemctl --user start bxbridge' ||
		{ fail "systemctl --user start bxbridge exited $?"; return 1; }
	wait_until 120 "bxctl status: the bridge running, Mattermost and brokerd connected" \
		bridge_connected || return 1
	as_owner 'bxctl status' | grep '^bridge'
}

# Stops the bridge and the fake server; puts init's bxbridge.toml back and
# removes the token file; fails if a bxbridge or the fake server is left.
bridge_teardown() {
	local rc=0
	say "systemctl --user stop bxbridge"
	as_owner 'systemctl --user stop bxbridge' || { fail "stop exited $?"; rc=1; }
	wait_until 30 "bxbridge.service inactive, no bxbridge process" bridge_gone ||
		{ pgrep -a -x bxbridge; rc=1; }
	stop_mm
	pgrep -a -x fake-mattermost && { fail "a fake-mattermost is left"; rc=1; }
	if [ -f "$mm_dir/bxbridge.toml.init" ]; then
		cp -p "$mm_dir/bxbridge.toml.init" "$bxconf/bxbridge.toml" || rc=1
	fi
	rm -f "$bxconf/bxbridge.token"
	return $rc
}

# An ask call answered in Mattermost: bxbridge as the owner's user
# service posts the pending approval to the fake server, the owner's
# white_check_mark reaction approves it, the call runs, the audit log's
# Approval record names the owner's Mattermost id and the post, and the
# post is patched approved. Then the bridge and the server are stopped.
check_bridge_approve() {
	local rc=0
	chat_pid=""
	start_mm || return 1
	if ! bridge_approve; then
		bridge_evidence
		rc=1
	fi
	[ -n "$chat_pid" ] && chat_running && chat_kill
	bridge_teardown || rc=1
	return $rc
}

bridge_approve() {
	local o=$out/checks/$runtime-bridge-approve.chat id post rc n
	bridge_setup || return 1
	start_model "$(call_json read_file "{\"path\": \"$ohome/vmt/ask/notes.txt\"}")" \
		'{"text": "done."}' || return 1
	chat_start "$o" "bxctl chat --say 'read my notes'"
	chat_wait "$o" stop
	rc=$?
	case $rc in
	2) ;;
	0) fail "the chat ended without asking for an approval"; return 1 ;;
	*) return 1 ;;
	esac
	id=$(pending_approval)
	say "approval $id pending; waiting for the bridge's post"
	wait_until 120 "the fake server to hold the bridge's post" mm_has_post || return 1
	n=$(mm_post_ids | wc -l)
	[ "$n" -eq 1 ] || { fail "the fake server holds $n posts, not 1: $(mm /fake/posts)"; return 1; }
	post=$(mm_post_ids)
	mm /fake/posts | grep -qF "approval   $id" ||
		{ fail "post $post does not name approval $id: $(mm /fake/posts)"; return 1; }
	say "post $post; the owner ($mm_owner) reacts white_check_mark"
	mm /fake/react -X POST -H 'Content-Type: application/json' \
		-d "{\"user_id\": \"$mm_owner\", \"post_id\": \"$post\", \"emoji_name\": \"white_check_mark\"}" ||
		{ fail "POST /fake/react failed"; return 1; }
	echo
	# The bridge reads the reaction within poll_s; until it answers, the
	# approval is still pending (and chat_wait none would fail on it).
	wait_until 120 "the bridge to answer approval $id" no_pending_approval ||
		{ as_owner 'bxctl approvals'; return 1; }
	chat_wait "$o" none || return 1
	result_lines "$o" | grep -qF 'result (private): Buy oat milk.\u000aCall the plumber on Tuesday.' ||
		{ fail "the read approved in Mattermost did not run"; return 1; }
	say "bxctl log --json, the call's line:"
	as_owner 'bxctl log --json' > "$o.log" 2>&1
	grep -F "\"post\":\"$post\"" "$o.log"
	grep -F "\"post\":\"$post\"" "$o.log" | grep -qF "\"by\":\"$mm_owner\"" ||
		{ cat "$o.log"; fail "bxctl log --json has no line with by $mm_owner and post $post"; return 1; }
	say "the audit log's Approval record:"
	find "$bxhome" -path '*audit*' -type f -exec cat {} + 2> /dev/null |
		grep -F '"type":"approval"' | grep -F "\"post\":\"$post\"" | tee "$o.audit"
	grep -qF "\"by\":\"$mm_owner\"" "$o.audit" ||
		{ fail "no Approval record in the audit log with by $mm_owner and post $post"; return 1; }
	wait_until 60 "post $post patched: **Approved** here in Mattermost" \
		mm_posts_say "**Approved** here in Mattermost (approval $id)" ||
		{ mm /fake/posts; return 1; }
	say "post $post patched approved"
	mm /fake/posts | grep -oF "**Approved** here in Mattermost (approval $id)."
}

# Nothing of the sandboxes outlives the units.
leftovers() {
	local c
	c=$(owner_env podman ps -a --format '{{.Names}} {{.Status}}' 2>&1)
	[ -z "$c" ] || echo "podman ps -a: $c"
	find /sys/fs/cgroup -name 'call-*' -type d | sed 's/^/cgroup: /'
	pgrep -a -x 'bwrap|bxtool|conmon|bxegress|bxbridge|fake-mattermost' | sed 's/^/process: /'
}

check_stop() {
	user_systemctl is-active --quiet brokerd.service ||
		{ fail "brokerd was not running before the stop"; return 1; }
	say "systemctl --user stop brokerd loopd"
	as_owner 'systemctl --user stop brokerd loopd' || { fail "stop exited $?"; return 1; }
	if ! wait_until 30 "no container, call cgroup or sandbox process left" \
		test -z "$(leftovers)"; then
		leftovers
		return 1
	fi
}

# The owner's brokerd's read_file round trip against a bare sandbox of the
# same runtime, in the same run (TCG makes absolute times meaningless; the
# ratio is the figure). Passes when both ran; the figures go to
# out/figures, which run.sh prints.
check_read_file_cost() {
	local f=$out/checks/$runtime-figures
	say "bench-runner-call --running (5 read_files of ~/notes/todo.txt, each beside a bare $runtime)"
	as_owner "$disk/bin/bench-runner-call --running $bxhome/run/loop-broker/broker.sock $runtime $ohome/notes/todo.txt 5" \
		> "$f" 2>&1
	cat "$f"
	grep -q "^$runtime *read_file .*ratio" "$f" ||
		{ fail "no read_file figure for $runtime"; return 1; }
	grep "^$runtime " "$f" >> "$out/figures"
}

# Every check for one runtime, from a fresh owner.
run_runtime() {
	runtime=$1
	reset_owner
	echo
	echo "=== runtime $runtime"
	check "$runtime: README quick start, word for word" check_quickstart
	check "$runtime: loopd's turn loop is jailed" check_jailed_loopd
	check "$runtime: ask grant, bxctl approve" check_approve
	check "$runtime: bxctl approve --for 1h, then no asking" check_approve_for
	check "$runtime: bxctl approvals --follow" check_approvals_follow
	check "$runtime: Ctrl-C while an approval waits" check_ctrl_c_approval
	check "$runtime: deny grant wins over ask" check_deny
	check "$runtime: write_file" check_write_file
	check "$runtime: shell" check_shell
	check "$runtime: Ctrl-C while a call runs" check_ctrl_c_running
	check "$runtime: http_fetch offline ends with a message" check_fetch_offline
	check "$runtime: 900 MiB allocation is out of memory" check_memory
	check "$runtime: fork bomb ends" check_fork_bomb
	check "$runtime: 400 sleeps name the process limit" check_pids_quick_exit
	check "$runtime: restart brokerd, a call works after" check_restart
	check "$runtime: sleep 1000 times out" check_timeout
	check "$runtime: http_fetch sends a secret, the echo comes back redacted" check_secret_fetch
	check "$runtime: the secret is in none of the owner's files and logs" check_secret_nowhere
	check "$runtime: secret removed, test network gone, brokerd as before" check_secret_cleanup
	check "$runtime: bxbridge as a user service, approved by a reaction in Mattermost" check_bridge_approve
	check "$runtime: bxctl audit verify" check_audit_verify
	check "$runtime: read_file time against a bare sandbox" check_read_file_cost
	check "$runtime: stop leaves no container, cgroup or process" check_stop
	stop_model
}

# scripts/demo.sh from the owner's login shell, on a copy of the checkout
# with the build's programs (make demo minus the compiler).
check_demo() {
	local rc
	reset_owner
	rm -rf "$ohome/boxmaker"
	cp -a "$disk/src" "$ohome/boxmaker" && chown -R "$owner:" "$ohome/boxmaker" || return 1
	say "cd ~/boxmaker && scripts/demo.sh build"
	timeout 900 su - "$owner" -c 'cd ~/boxmaker && scripts/demo.sh build' \
		< /dev/null > "$out/checks/demo.out" 2>&1
	rc=$?
	cat "$out/checks/demo.out"
	[ $rc -eq 0 ] || { fail "scripts/demo.sh exited $rc"; return 1; }
	tail -n 1 "$out/checks/demo.out" | grep -q '^audit: ok' ||
		fail "the demo's last line is not bxctl audit verify's audit: ok"
}

main() {
	echo "guest.sh on $(uname -n): $(uname -r), $(stat -fc %T /sys/fs/cgroup), $(nproc) CPUs"
	echo "owner $owner: $(id "$owner"); user@$uid.service $(systemctl is-active user@$uid.service)"
	if check "install the staged tree" check_install; then
		check "bxctl init (no flags)" check_init
		check "the jail suite as the owner" check_jail_suite
		run_runtime podman
		run_runtime bwrap
		check "demo: scripts/demo.sh as the owner" check_demo
	fi
	reset_owner
	echo
	echo "=== results"
	cat "$out/results"
	echo "$passed passed, $failed failed" | tee "$out/summary"
}

main "$@"
