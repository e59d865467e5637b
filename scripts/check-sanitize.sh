#!/bin/sh
# The whole test suite under the sanitizers, each in its own build directory:
#
#   build-asan/   AddressSanitizer (with LeakSanitizer) and UndefinedBehavior-
#                 Sanitizer, built with -fno-sanitize-recover=all so that any
#                 finding aborts the program and fails its test
#   build-tsan/   ThreadSanitizer; the whole suite runs, which includes every
#                 test that starts threads (brokerd's serving modules, the
#                 audit writer, loopd's server, the fakes, the crash tests)
#
# Programs the tests start (build-*/brokerd and the others) are the
# sanitized builds too, since each test finds them through BX_BUILD_ROOT.
# Known TSan findings that were reported rather than fixed are listed, with
# the reason, in tests/sanitize/tsan.supp. Exit status 1 if any test failed.
#
#   scripts/check-sanitize.sh [asan] [tsan] [-- meson test arguments]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

passes=
while [ $# -gt 0 ]; do
	case "$1" in
	asan|tsan) passes="$passes $1" ;;
	--) shift; break ;;
	*) echo "usage: scripts/check-sanitize.sh [asan] [tsan]" \
	       "[-- meson test arguments]" >&2
	   exit 2 ;;
	esac
	shift
done
[ -n "$passes" ] || passes="asan tsan"

asan_options=abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1
asan_options=$asan_options:check_initialization_order=1
tsan_options="halt_on_error=1 second_deadlock_stack=1"
tsan_options="$tsan_options suppressions=$root/tests/sanitize/tsan.supp"

# Sanitized programs run several times slower; the tests' own timeouts are
# stretched rather than loosened one by one.
multiplier=${SANITIZE_TIMEOUT_MULTIPLIER:-4}

setup() {
	dir=$1
	shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" -Dwerror=true -Dbuildtype=debugoptimized "$@"
	fi
	ninja -C "$dir" -j2
	for p in brokerd loopd bxctl; do ln -sf "src/$p/$p" "$dir/$p"; done
}

status=0
for pass in $passes; do
	case $pass in
	asan)
		setup build-asan -Db_sanitize=address,undefined \
		    "-Dc_args=-fno-sanitize-recover=all -fno-omit-frame-pointer" \
		    -Dc_link_args=-fno-sanitize-recover=all
		echo "check-sanitize: ASan and UBSan (build-asan)"
		if ! env ASAN_OPTIONS="$asan_options" \
		    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		    scripts/run-tests.sh build-asan \
		    --timeout-multiplier "$multiplier" "$@"; then
			status=1
		fi
		;;
	tsan)
		setup build-tsan -Db_sanitize=thread \
		    "-Dc_args=-fno-omit-frame-pointer"
		echo "check-sanitize: TSan (build-tsan)"
		if ! env TSAN_OPTIONS="$tsan_options" \
		    scripts/run-tests.sh build-tsan \
		    --timeout-multiplier "$multiplier" "$@"; then
			status=1
		fi
		;;
	esac
done
exit $status
