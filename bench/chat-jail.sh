#!/bin/sh
# chat-jail.sh: a chat turn's time with loopd's jail against without (issue
# 32: the jail must cost nothing a person notices). Starts fake-llama and
# brokerd once, on a temporary home, with scripts/daemons.sh's helpers.
# Then, ROUNDS times: starts two loopds on that home, one with the jail
# ([jail] mode on, the default) and one with [jail] mode = "off" (each its
# own loop.sock), times the first turn of each, runs WARM - 1 more turns of
# each, then N/ROUNDS short turns with one model reply and no tool call,
# then N/ROUNDS turns with one read_file tool call (an auto grant; the
# model asks once, reads the result, replies), alternating jailed and
# unjailed turn by turn (in the order on off, off on, on off...) so that
# the machine's changing load falls on both alike and neither always runs
# right after the other; and stops both. Each turn is `bxctl chat --say`
# in a new session, timed with date +%s%N around it, and its answer is
# checked. The first turns too alternate which loopd goes first, round by
# round. It prints the median and p90 of each set with the jail and
# without, and their differences; then it runs build/bench/bench-relay
# (the relay alone, per model request).
#
# It prints figures only; nothing here is a test. Run as root here (the
# jail's uid is boxmaker-loop) or as a user with a subordinate range.
#
#	bench/chat-jail.sh [--build DIR] [--runtime bwrap|podman] [--rounds R]
#	    [--no-relay] [N]
#	(defaults: build, bwrap, 3 rounds, N = 30 turns per set and mode;
#	--no-relay skips bench-relay, which scripts/run-bench.sh runs anyway)
set -u

build=build
runtime=bwrap
rounds=3
n=30
relay=yes
WARM=3
while [ $# -gt 0 ]; do
	case "$1" in
	--build) build=$2; shift 2 ;;
	--runtime) runtime=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--no-relay) relay=no; shift ;;
	[0-9]*) n=$1; shift ;;
	*) echo "usage: $0 [--build DIR] [--runtime bwrap|podman] [--rounds R] [--no-relay] [N]" >&2
	   exit 2 ;;
	esac
done
case "$build" in
/*) ;;
*) build=$(pwd)/$build ;;
esac
per=$((n / rounds))
[ "$per" -ge 1 ] || { echo "chat-jail: N must be at least ROUNDS" >&2; exit 2; }
WAIT_S=120
status=1
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/daemons.sh
. "$src/scripts/daemons.sh"
find_programs
[ -x "$fake" ] || fail "$fake is missing; run make first"

tmp=${TMPDIR:-/tmp}
[ ${#tmp} -le 48 ] || tmp=/tmp
top=$(mktemp -d "$tmp/bx-chatjail.XXXXXX") || exit 1
home=$top/home
files=$top/files
mkdir -m 700 "$home" || exit 1
mkdir -p "$home/logs" "$home/grants" "$home/model" "$files"
export BOXMAKER_HOME="$home"
# shellcheck disable=SC2034 # set and read through eval
loop_on=
# shellcheck disable=SC2034
loop_off=

on_exit() {
	stop_all
	if [ "$status" -eq 0 ]; then
		rm -rf "$top"
		return
	fi
	show_logs
	echo "chat-jail: stopped before the end; the home is $home" >&2
}
trap on_exit EXIT
trap 'exit 1' INT TERM HUP

printf 'Buy oat milk.\n' > "$files/notes.txt"
cat > "$home/grants/read.toml" <<EOF
tool = "read_file"
mode = "auto"
max_taint = "secret"
result_class = "private"
untrusted = false
expires = "2099-01-01T00:00:00.000Z"

[constraints]
paths = ["$files"]
EOF

# The model's whole script, in the order the turns come: per round, WARM
# plain replies for each loopd, then per plain replies for each, then per
# pairs of a read_file call and its reply for each.
text='{"text": "Noted."}'
read="{\"tool_calls\": [{\"name\": \"call_tool\", \"arguments\": {\"name\": \"read_file\", \"arguments\": {\"path\": \"$files/notes.txt\"}}}]}"
{
	echo '['
	sep=
	r=0
	while [ $r -lt "$rounds" ]; do
		i=0
		while [ $i -lt $((2 * (WARM + per))) ]; do
			printf '%s%s\n' "$sep" "$text"; sep=,
			i=$((i + 1))
		done
		i=0
		while [ $i -lt $((2 * per)) ]; do
			printf ',%s\n,{"text": "It says: buy oat milk."}\n' "$read"
			i=$((i + 1))
		done
		r=$((r + 1))
	done
	echo ']'
} > "$home/model/script.json"

now_ns() { date +%s%N; }

# turn MODE TEXT: one bxctl chat --say TEXT to the loopd of MODE (on: the
# jailed one, off: the other), in a new session; prints its time in ns.
# Checks the answer: the model's reply, and for a read the file's text.
turn() {
	t0=$(now_ns)
	"$bxctl" chat --loop-socket "$home/run/loop-$1/loop.sock" --say "$2" \
	    > "$top/turn.out" 2>&1
	rc=$?
	t1=$(now_ns)
	[ $rc -eq 0 ] || { cat "$top/turn.out" >&2; fail "bxctl chat exited $rc"; }
	case "$2" in
	read*)	grep -qF 'result (private): Buy oat milk.' "$top/turn.out" &&
		    grep -q '^model: It says' "$top/turn.out" ;;
	*)	grep -q '^model: Noted.' "$top/turn.out" ;;
	esac || { cat "$top/turn.out" >&2; fail "the turn's answer is not the scripted one"; }
	echo $((t1 - t0))
}

# start_loop MODE: loopd with the jail (on) or without (off), its socket
# run/loop-MODE/loop.sock, its pid left in loop_MODE.
start_loop() {
	write_loopd_toml "http://127.0.0.1:$port" bench 60
	sed -i "s|/run/owner-loop/loop.sock|/run/loop-$1/loop.sock|" "$home/loopd.toml"
	[ "$1" = off ] && printf '\n[jail]\nmode = "off"\n' >> "$home/loopd.toml"
	mv "$home/loopd.toml" "$home/loopd-$1.toml"
	rm -f "$home/run/loop-$1/loop.sock"
	start "loopd-$1" "$loopd" serve --config "$home/loopd-$1.toml"
	eval "loop_$1=\$started"
	wait_up "loopd-$1" "$started" sock_ready "$home/run/loop-$1/loop.sock"
	if [ "$1" = on ]; then
		grep -q 'runs in its jail' "$home/logs/loopd-on.log" ||
		    fail "loopd's turn loop is not jailed (logs/loopd-on.log)"
	else
		grep -q 'mode is "off"' "$home/logs/loopd-off.log" ||
		    fail "loopd with [jail] mode = \"off\" did not say so (logs/loopd-off.log)"
	fi
}

stop_loop() {
	eval "pid=\$loop_$1"
	kill -TERM "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	forget "$pid"
}

# stats FILE: "median p90" in ms of the ns values in FILE.
stats() {
	sort -n "$1" | awk '{ v[NR] = $1 } END {
	    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	    p = v[int(NR * 0.9 + 0.999999)]
	    printf "%.2f %.2f\n", m / 1e6, p / 1e6 }'
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "chat-jail: $n turns per set and mode over $rounds rounds, $WARM warm-up turns after each start, read_file through $runtime; load average $(load)"
start fake-llama "$fake" --script "$home/model/script.json" \
    --port-file "$home/model/port"
wait_up fake-llama "$started" test -s "$home/model/port"
port=$(cat "$home/model/port")
write_brokerd_toml "kind = \"$runtime\""
admin=$home/run/owner-broker/admin.sock
if needs_delegation; then
	start_delegated brokerd "$brokerd" serve --config "$home/brokerd.toml"
	wait_for unit_active_or_ready "$started_unit" "$admin"
	sock_ready "$admin" || fail "brokerd did not start (logs/brokerd.log)"
else
	start brokerd "$brokerd" serve --config "$home/brokerd.toml"
	wait_up brokerd "$started" sock_ready "$admin"
fi

for mode in on off; do
	: > "$top/first-$mode"
	: > "$top/plain-$mode"
	: > "$top/read-$mode"
done
# pair I: the two loopds in the order of the I-th pair of turns, jailed
# first in one pair and second in the next, so that neither always runs
# right after the other.
pair() {
	if [ $(($1 % 2)) -eq 0 ]; then echo on off; else echo off on; fi
}

r=0
while [ $r -lt "$rounds" ]; do
	start_loop on
	start_loop off
	for mode in $(pair $r); do
		turn "$mode" 'Hello.' >> "$top/first-$mode"
		i=1
		while [ $i -lt $WARM ]; do
			turn "$mode" 'Hello.' > /dev/null
			i=$((i + 1))
		done
	done
	i=0
	while [ $i -lt "$per" ]; do
		for mode in $(pair $i); do
			turn "$mode" 'Hello.' >> "$top/plain-$mode"
		done
		i=$((i + 1))
	done
	i=0
	while [ $i -lt "$per" ]; do
		for mode in $(pair $i); do
			turn "$mode" 'read my notes' >> "$top/read-$mode"
		done
		i=$((i + 1))
	done
	stop_loop on
	stop_loop off
	r=$((r + 1))
done
echo "chat-jail: done; load average $(load)"

# A row: set, mode, median, p90.
printf 'chat-jail: %-44s %10s %10s\n' "turn (ms)" median p90
for set in first plain read; do
	case $set in
	first) label="first turn after a start" ;;
	plain) label="one reply, no tool" ;;
	read) label="one read_file, then a reply" ;;
	esac
	# shellcheck disable=SC2046
	set -- $(stats "$top/$set-on") $(stats "$top/$set-off")
	printf 'chat-jail: %-44s %10s %10s\n' "$label, jailed" "$1" "$2"
	printf 'chat-jail: %-44s %10s %10s\n' "$label, jail off" "$3" "$4"
	awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" -v l="$label" 'BEGIN {
	    printf "chat-jail: %-44s %+10.2f %+10.2f\n", l ", jail - off", a - c, b - d }'
done
echo "chat-jail: ($(wc -l < "$top/plain-on") turns in each set but the first turn's, $rounds of those)"
stop_all

if [ $relay = yes ] && [ -x "$build/bench/bench-relay" ]; then
	echo "chat-jail: build/bench/bench-relay (the relay alone, per model request):"
	"$build/bench/bench-relay" | sed 's/^/  /'
fi
status=0
