#!/bin/sh
# The compile-fail runner's own check: when a file that should not compile
# does, the failure names the opaque type the test is about (it once said
# "struct decision" for run_spec's files too). runspec-ok.c compiles, so
# given as a file that must not, run.sh must fail and say so for run_spec.
#   names-type.sh RUN_SH INCDIR RUNSPEC_OK -- CC [CC ARGS...]
set -u
run=$1
inc=$2
ok=$3
shift 3
out=$(sh "$run" "struct run_spec" "$inc" "$ok" "$ok" "$@" 2>&1)
status=$?
if [ $status -eq 0 ]; then
	echo "FAIL: run.sh passed a file that compiles:"
	echo "$out"
	exit 1
fi
if ! echo "$out" | grep -qF "compiled; struct run_spec is not opaque" ||
    echo "$out" | grep -qF "struct decision"; then
	echo "FAIL: the failure does not name struct run_spec alone:"
	echo "$out"
	exit 1
fi
echo "ok: $(echo "$out" | grep -F 'is not opaque')"
