#!/bin/sh
# Builds every libFuzzer harness in fuzz/ with clang, ASan and UBSan (in
# build-fuzz/) and runs each for SECONDS, one job at a time (the machine is
# shared). A harness fuzz/<name>-fuzzer.c is listed in fuzz/meson.build and
# seeded from fuzz/corpus/<name>/ (and fuzz/<name>.dict if present); new inputs go to fuzz/corpus-work/<name>/
# (not committed). Exit status 1 if a fuzzer found a crash or a leak; its
# reproducer is left in build-fuzz/artifacts/. Each run's output is kept in
# build-fuzz/logs/<name>.log, and the end is a table: per fuzzer the time,
# runs, runs per second, new inputs, corpus size and result. A reproducer
# worth keeping goes to fuzz/regress/<name>/, which make check replays
# (fuzz/replay.c) with the seeds.
#   scripts/run-fuzz.sh SECONDS [FUZZER...]
set -eu
seconds=${1:-60}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
cd "$root"

if [ ! -f "$build/build.ninja" ]; then
	# Coverage for the libraries too; UBSan findings abort like ASan's.
	CC=clang meson setup "$build" -Dtests=false -Db_sanitize=address,undefined \
	    -Db_lundef=false -Dbuildtype=debugoptimized \
	    "-Dc_args=-fsanitize=fuzzer-no-link -fno-sanitize-recover=all"
fi

if [ $# -gt 0 ]; then
	names="$*"
else
	names=$(ls fuzz/*-fuzzer.c | sed 's|fuzz/\(.*\)\.c|\1|')
fi

status=0
summary=
mkdir -p "$build/logs"
for name in $names; do
	ninja -C "$build" -j2 "fuzz/$name"
	short=${name%-fuzzer}
	work="fuzz/corpus-work/$short"
	log="$build/logs/$name.log"
	mkdir -p "$work" "$build/artifacts"
	dict=
	[ -f "fuzz/$short.dict" ] && dict="-dict=fuzz/$short.dict"
	echo "run-fuzz: $name for ${seconds}s (log: $log)"
	started=$(date +%s)
	result=clean
	# shellcheck disable=SC2086 # $dict is one word or nothing
	if ! "$build/fuzz/$name" -max_total_time="$seconds" $dict \
	    -print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" \
	    "$work" "fuzz/corpus/$short" >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		echo "run-fuzz: $name FAILED; see $build/artifacts/" >&2
		result=FOUND
		status=1
	fi
	took=$(( $(date +%s) - started ))
	stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -n 1; }
	summary="$summary$(printf '%-14s %6ss %11s %8s/s %6s new %6s inputs  %s' \
	    "$name" "$took" "$(stat number_of_executed_units)" \
	    "$(stat average_exec_per_sec)" "$(stat new_units_added)" \
	    "$(ls "$work" | wc -l)" "$result")
"
done
echo "run-fuzz: summary"
printf '%-14s %7s %11s %10s %10s %13s  %s\n' fuzzer time runs speed found \
    corpus result
printf '%s' "$summary"
exit $status
