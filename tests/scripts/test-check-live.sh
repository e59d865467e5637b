#!/bin/sh
# Runs scripts/check-live.sh against build/fake-llama instead of a real
# llama-server, to prove the script itself works: once with a model that
# reads the file and reports the runner's failure (every check must pass),
# once with one that tries twice (arguments as a JSON string, as models
# also send them; both approved, and it passes), once with a model that
# never calls a tool (the script must fail); and once with --file, the
# model asked about a path known before the run (written, then removed).
#
#   tests/scripts/test-check-live.sh SOURCE_ROOT BUILD_ROOT
set -u
src=$1
build=$2
fake=$build/tests/fake-llama/fake-llama
tmp=$(mktemp -d) || exit 1
fake_pid=

cleanup() {
	[ -n "$fake_pid" ] && kill -TERM "$fake_pid" 2>/dev/null &&
	    wait "$fake_pid" 2>/dev/null
	fake_pid=
}
trap 'cleanup; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# run NAME SCRIPT [ARGS...]: check-live (with ARGS) on home $tmp/NAME
# against a fake model answering with SCRIPT; prints its output to
# $tmp/NAME.out, returns its exit status.
run() {
	printf '%s\n' "$2" > "$tmp/$1.json"
	rm -f "$tmp/$1.port"
	"$fake" --script "$tmp/$1.json" --port-file "$tmp/$1.port" \
	    > /dev/null 2>&1 &
	fake_pid=$!
	i=0
	while [ ! -s "$tmp/$1.port" ]; do
		i=$((i + 1))
		if [ $i -gt 600 ]; then
			echo "fake-llama did not start" >&2
			return 99
		fi
		sleep 0.1
	done
	name=$1
	shift 2
	"$src/scripts/check-live.sh" "http://127.0.0.1:$(cat "$tmp/$name.port")" \
	    --model fake --build "$build" --home "$tmp/$name" --wait 60 "$@" \
	    > "$tmp/$name.out" 2>&1
	rc=$?
	cleanup
	return $rc
}

# The model's arguments come as llama-server sends them, raw whitespace and
# all; the owner sees them compact.
file=$tmp/good/files/shopping.txt
if ! run good '[
{"content": "", "tool_calls": [{"name": "clock", "arguments": "{\n}", "id": "0wP89PygB3OQv0M3nEdOdAg1tDkrWr8O"}]},
{"content": "", "tool_calls": [{"name": "call_tool", "arguments": "{ \"name\": \"read_file\", \"arguments\": {\n \"path\": \"'"$file"'\" } }"}]},
{"text": "I could not read it: the tool failed with \"no tool runs: the runner kind is refuse\"."}
]'; then
	echo "FAIL: check-live failed against a model that does it right:" >&2
	cat "$tmp/good.out" >&2
	exit 1
fi
for want in 'PASS  the runner' 'PASS  bxctl audit verify' \
    'check-live: every check passed'; do
	if ! grep -qF "$want" "$tmp/good.out"; then
		echo "FAIL: the output lacks \"$want\":" >&2
		cat "$tmp/good.out" >&2
		exit 1
	fi
done
if ! grep -qxF 'call 0wP89PygB3OQv0M3nEdOdAg1tDkrWr8O: clock {}' \
    "$tmp/good/logs/chat.out" ||
    ! grep -qF "read_file {\"path\":\"$file\"}" "$tmp/good/logs/chat.out"; then
	echo "FAIL: the chat does not show the arguments compact:" >&2
	cat "$tmp/good/logs/chat.out" >&2
	exit 1
fi
echo "ok: check-live passes against a model that reads the file"

file=$tmp/known-shopping.txt
if ! run known '[
{"tool_calls": [{"name": "call_tool", "arguments": {"name": "read_file", "arguments": {"path": "'"$file"'"}}}]},
{"text": "No tool runs here, so I could not read it."}
]' --file "$file"; then
	echo "FAIL: check-live --file failed against a model that does it right:" >&2
	cat "$tmp/known.out" >&2
	exit 1
fi
if [ -e "$file" ] || ! grep -qF "read_file on $file" "$tmp/known.out"; then
	echo "FAIL: check-live --file did not ask about $file, or left it:" >&2
	cat "$tmp/known.out" >&2
	exit 1
fi
echo "ok: check-live --file asks about the file it was given, and removes it"

file=$tmp/again/files/shopping.txt
call='{"tool_calls": [{"name": "call_tool", "arguments": {"name": "read_file", "arguments": "{\"path\": \"'"$file"'\"}"}}]}'
if ! run again "[$call, $call,
{\"text\": \"It failed twice; no tool runs here.\"}]"; then
	echo "FAIL: check-live failed against a model that tries twice:" >&2
	cat "$tmp/again.out" >&2
	exit 1
fi
if ! grep -qF 'the model asked again' "$tmp/again.out"; then
	echo "FAIL: the second ask was not approved:" >&2
	cat "$tmp/again.out" >&2
	exit 1
fi
echo "ok: check-live approves a model that tries again, and passes"

if run lazy '[{"text": "I would rather not.", "repeat": true}]'; then
	echo "FAIL: check-live passed against a model that never calls a tool:" >&2
	cat "$tmp/lazy.out" >&2
	exit 1
fi
if ! grep -qF 'the turn ended without asking' "$tmp/lazy.out"; then
	echo "FAIL: the failure does not say what went wrong:" >&2
	cat "$tmp/lazy.out" >&2
	exit 1
fi
echo "ok: check-live fails against a model that never calls the tool"
