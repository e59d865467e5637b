#!/bin/sh
# Runs the whole Meson test suite in BUILD and ends with the one line the
# README promises: "N passed, N failed". Exit status 1 if anything failed.
#   scripts/run-tests.sh BUILD [meson test arguments, e.g. a test name]
set -u
build=${1:-build}
[ $# -gt 0 ] && shift
meson test -C "$build" --print-errorlogs "$@"
status=$?
python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
with open(sys.argv[1]) as log:
    for line in log:
        result = json.loads(line)["result"]
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
if skipped:
    print(f"{skipped} skipped")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
summary=$?
[ $status -eq 0 ] && [ $summary -eq 0 ]
