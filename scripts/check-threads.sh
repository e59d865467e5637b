#!/bin/sh
# The threads gate: in brokerd only serve.c starts threads (design section 2),
# so every thread has one owner that also stops it. Fails naming each file
# and line outside src/brokerd/serve.c that calls pthread_create or
# thrd_create.
#
#   scripts/check-threads.sh [ROOT]     check ROOT (default: this repository)
#   scripts/check-threads.sh --self-test
#                                      prove the check passes on serve.c and
#                                      fails on another file, naming its line
set -u

# check ROOT: prints one line per call outside serve.c, exit 1 if any.
check() {
	root=$1
	if [ ! -f "$root/src/brokerd/serve.c" ]; then
		echo "check-threads: $root/src/brokerd/serve.c does not exist" >&2
		return 1
	fi
	hits=$(cd "$root" && grep -rnE '(pthread|thrd)_create[[:space:]]*\(' \
	    src/brokerd | grep -v '^src/brokerd/serve\.c:')
	if [ -n "$hits" ]; then
		echo "$hits" | while IFS= read -r hit; do
			echo "${hit%%:*}:$(echo "$hit" | cut -d: -f2): starts a thread; only src/brokerd/serve.c may" >&2
		done
		return 1
	fi
	echo "check-threads: only src/brokerd/serve.c starts threads"
	return 0
}

self_test() {
	tmp=$(mktemp -d) || return 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
	mkdir -p "$tmp/src/brokerd"
	printf 'static void\nf(void)\n{\n\tpthread_create(&t, NULL, run, s);\n}\n' \
	    > "$tmp/src/brokerd/serve.c"
	printf '/* threads start in serve */\nint x;\n' > "$tmp/src/brokerd/broker.c"
	if ! check "$tmp" > "$tmp/out" 2>&1; then
		echo "self-test: FAIL: a thread started in serve.c was refused:" >&2
		cat "$tmp/out" >&2
		return 1
	fi
	echo "self-test: serve.c may start threads"
	printf 'int x;\nvoid\ng(void)\n{\n\tthrd_create (&t, run, s);\n}\n' \
	    > "$tmp/src/brokerd/broker.c"
	printf '#define SPAWN(t) pthread_create(t, NULL, f, NULL)\n' \
	    > "$tmp/src/brokerd/sneaky.h"
	if check "$tmp" > "$tmp/out" 2>&1; then
		echo "self-test: FAIL: threads started outside serve.c were accepted" >&2
		return 1
	fi
	if ! grep -qF 'src/brokerd/broker.c:5: starts a thread' "$tmp/out" ||
	    ! grep -qF 'src/brokerd/sneaky.h:1: starts a thread' "$tmp/out"; then
		echo "self-test: FAIL: the failure does not name each file and line:" >&2
		cat "$tmp/out" >&2
		return 1
	fi
	echo "self-test: a thread outside serve.c fails: $(cat "$tmp/out" | tr '\n' ' ')"
	echo "self-test: ok"
	return 0
}

. "$(dirname "$0")/gate.sh"
gate_main "$@"
