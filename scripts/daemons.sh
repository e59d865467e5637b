# shellcheck shell=sh
# daemons.sh: shell functions shared by scripts/demo.sh and
# scripts/check-live.sh, sourced, not run. They start brokerd, loopd and a
# model server on a test home, stop exactly what they started (by pid, or
# by unit name for a brokerd that a user other than root runs on cgroup v2
# as a transient user service, so that it has a delegated cgroup), and wait
# for sockets and approvals with generous limits.
#
# The sourcing script sets: build (the build directory, absolute), home (the
# test home), WAIT_S (seconds to wait for anything), and status (its exit
# status so far; on_exit reads it).

pids=""
units=""

say() {
	printf '\n==> %s\n' "$*"
}

fail() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# find_programs: sets brokerd, loopd, bxctl and fake from $build.
find_programs() {
	brokerd=$build/brokerd
	loopd=$build/loopd
	bxctl=$build/bxctl
	fake=$build/fake-llama
	[ -x "$fake" ] || fake=$build/tests/fake-llama/fake-llama
	for prog in "$brokerd" "$loopd" "$bxctl"; do
		[ -x "$prog" ] || fail "$prog is missing; run make first"
	done
}

# start NAME COMMAND...: runs a daemon in the background, its output in
# $home/logs/NAME.log; its pid is remembered for stop_all and left in
# $started.
start() {
	name=$1
	shift
	"$@" > "$home/logs/$name.log" 2>&1 &
	started=$!
	pids="$started $pids"
}

# forget PID: a process that has ended by itself.
forget() {
	pids=$(echo " $pids " | sed "s/ $1 / /; s/^ *//; s/ *$//")
}

# stop_all: SIGTERM to every process started here, newest first, then wait;
# then every transient unit started here, which systemctl waits for.
stop_all() {
	for pid in $pids; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in $pids; do
		wait "$pid" 2>/dev/null
	done
	for unit in $units; do
		systemctl --user stop "$unit" 2>/dev/null
	done
	units=""
	pids=""
}

# wait_for COMMAND...: until it succeeds, at most WAIT_S seconds.
wait_for() {
	waited=0
	while ! "$@" 2>/dev/null; do
		waited=$((waited + 1))
		[ $waited -le $((WAIT_S * 10)) ] || return 1
		sleep 0.1
	done
}

sock_ready() {
	[ -S "$1" ]
}

# up_or_gone PID TEST...: the test passes, or the process has ended.
up_or_gone() {
	pid=$1
	shift
	"$@" || ! kill -0 "$pid" 2>/dev/null
}

# unit_active_or_ready UNIT SOCKET: the socket is there, or the unit has
# ended (a transient unit is collected when it ends).
unit_active_or_ready() {
	sock_ready "$2" || ! unit_active "$1"
}

# wait_up NAME PID TEST...: waits until the test passes; fails at once,
# naming the log, if the process ends first.
wait_up() {
	name=$1
	pid=$2
	shift 2
	wait_for up_or_gone "$pid" "$@" && "$@" ||
	    fail "$name did not start (logs/$name.log)"
}

# The first pending approval's id, from bxctl approvals.
first_approval() {
	"$bxctl" approvals 2>/dev/null |
	    awk '$1 ~ /^[0-9]+$/ { print $1; exit }'
}

has_approval() {
	[ -n "$(first_approval)" ]
}

# show_logs: the end of every daemon log, for a failure.
show_logs() {
	for log in "$home"/logs/*.log; do
		[ -s "$log" ] || continue
		echo "--- ${log#"$home"/}" >&2
		tail -n 20 "$log" >&2
	done
}

# write_brokerd_toml [RUNNER]: brokerd.toml for $home, grants in
# $home/grants; RUNNER is the body of its [runner] table (default: empty,
# so podman, brokerd's default runtime).
write_brokerd_toml() {
	cat > "$home/brokerd.toml" <<EOF
[paths]
home = "$home"
grants = "$home/grants"

[sockets]
broker = "$home/run/loop-broker/broker.sock"
admin = "$home/run/owner-broker/admin.sock"

[approvals]
ttl_ms = 600000

[runner]
${1:-}
EOF
}

# write_loopd_toml URL MODEL TIMEOUT_S: loopd.toml for $home.
write_loopd_toml() {
	cat > "$home/loopd.toml" <<EOF
[paths]
home = "$home"

[sockets]
loop = "$home/run/owner-loop/loop.sock"

[model]
url = "$1"
model = "$2"
timeout_s = $3

[broker]
socket = "$home/run/loop-broker/broker.sock"
EOF
}

# Whether brokerd must run in a cgroup subtree delegated to it: a user other
# than root on cgroup v2, whose login shell's cgroup it may not write.
needs_delegation() {
	[ "$(id -u)" -ne 0 ] && [ -e /sys/fs/cgroup/cgroup.controllers ]
}

unit_active() {
	systemctl --user is-active --quiet "$1"
}

# start_delegated NAME COMMAND...: runs a daemon as a transient systemd user
# service with Delegate=yes (as the brokerd unit has), its output in
# $home/logs/NAME.log; its unit is remembered for stop_all and left in
# $started_unit.
start_delegated() {
	name=$1
	shift
	started_unit=boxmaker-$name-$$
	systemd-run --user --quiet --collect --unit="$started_unit" \
	    -p Delegate=yes -p StandardOutput="truncate:$home/logs/$name.log" \
	    -p StandardError="append:$home/logs/$name.log" \
	    -E BOXMAKER_HOME="$home" "$@" ||
	    fail "systemd-run --user could not start $name (is a systemd user manager running? loginctl enable-linger $(id -un))"
	units="$started_unit $units"
}

# start_broker_and_loop: brokerd, then loopd, each waited for by its socket.
start_broker_and_loop() {
	admin=$home/run/owner-broker/admin.sock
	if needs_delegation; then
		start_delegated brokerd "$brokerd" serve --config "$home/brokerd.toml"
		wait_for unit_active_or_ready "$started_unit" "$admin"
		sock_ready "$admin" || fail "brokerd did not start (logs/brokerd.log)"
		echo "  brokerd (transient user service $started_unit, delegated)"
	else
		start brokerd "$brokerd" serve --config "$home/brokerd.toml"
		wait_up brokerd "$started" sock_ready "$admin"
		echo "  brokerd (pid $started)"
	fi
	start loopd "$loopd" serve --config "$home/loopd.toml"
	wait_up loopd "$started" sock_ready "$home/run/owner-loop/loop.sock"
	echo "  loopd (pid $started)"
}

# audit_records: every Decision, Approval and Result record, in order.
audit_records() {
	cat "$home"/audit/*.jsonl | grep -e '"type":"decision"' \
	    -e '"type":"approval"' -e '"type":"result"'
}

# need_records: fails unless there is a record of each kind.
need_records() {
	for type in decision approval result; do
		cat "$home"/audit/*.jsonl | grep -q "\"type\":\"$type\"" ||
		    fail "the audit log has no $type record"
	done
}
