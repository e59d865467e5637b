#!/bin/sh
# Runs every benchmark built in BUILD/bench/ (each bench-* program), one at a
# time, and lets each print its own figures; then bench/chat-jail.sh, a chat
# turn's time with loopd's jail against without (it needs what loopd's jail
# needs: root, or a subordinate range and newuidmap). Exit status 1 if any
# failed. bench/podman-concurrency.sh is run by hand.
#   scripts/run-bench.sh BUILD
set -u
build=${1:-build}
status=0
found=0
for b in "$build"/bench/bench-*; do
	[ -f "$b" ] && [ -x "$b" ] || continue
	found=1
	echo "run-bench: $(basename "$b")"
	"$b" || status=1
done
if [ $found -eq 0 ]; then
	echo "run-bench: no benchmarks in $build/bench/" >&2
	exit 1
fi
echo "run-bench: chat-jail.sh"
"$(dirname "$0")/../bench/chat-jail.sh" --build "$build" --no-relay || status=1
exit $status
