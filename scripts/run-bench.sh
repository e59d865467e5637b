#!/bin/sh
# Runs every benchmark built in BUILD/bench/ (each bench-* program), one at a
# time, and lets each print its own figures. Exit status 1 if any failed.
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
exit $status
