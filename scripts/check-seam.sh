#!/bin/sh
# The seam gate: the runner (src/brokerd/runner/) and the rest of the tree
# meet only at runner.h (design section 2). Outside the runner's folder, src/
# includes no runner header but brokerd/runner/runner.h; inside it, the
# runner includes of the decision path only what a decision is made of
# (args.h, policy.h) and where lines go (log.h). Fails naming each include
# that crosses the seam, by file and line.
set -u

# The decision path's headers the runner may read.
runner_may='brokerd/args\.h|brokerd/policy\.h|brokerd/log\.h'

check() {
	root=$1
	if [ ! -f "$root/src/brokerd/runner/runner.h" ]; then
		echo "check-seam: $root/src/brokerd/runner/runner.h does not exist" >&2
		return 1
	fi
	status=0
	out=$(cd "$root" && grep -rnE '#include "brokerd/runner/' src \
	    --include='*.c' --include='*.h' | grep -v '^src/brokerd/runner/' |
	    grep -vF '"brokerd/runner/runner.h"')
	if [ -n "$out" ]; then
		echo "$out" | sed 's/$/: only brokerd\/runner\/runner.h may be included from outside the runner/' >&2
		status=1
	fi
	out=$(cd "$root" && grep -rnE '#include "brokerd/[a-z_]+\.h"' \
	    src/brokerd/runner --include='*.c' --include='*.h' |
	    grep -vE "\"($runner_may)\"")
	if [ -n "$out" ]; then
		echo "$out" | sed 's/$/: the runner reads only args.h, policy.h and log.h of the decision path/' >&2
		status=1
	fi
	if [ $status -eq 0 ]; then
		echo "check-seam: the runner and the decision path meet only at runner.h"
	fi
	return $status
}

self_test() {
	tmp=$(mktemp -d) || return 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
	mkdir -p "$tmp/src/brokerd/runner" "$tmp/src/loopd"
	printf '#include "brokerd/policy.h"\n#include "brokerd/runner/exec.h"\n' \
	    > "$tmp/src/brokerd/runner/runner.h"
	printf '#include "brokerd/runner/runner.h"\n' > "$tmp/src/brokerd/broker.c"
	if ! check "$tmp" > "$tmp/out" 2>&1; then
		echo "self-test: FAIL: a tree that keeps the seam was refused:" >&2
		cat "$tmp/out" >&2
		return 1
	fi
	echo "self-test: includes of runner.h alone pass"
	printf 'int x;\n#include "brokerd/runner/exec.h"\n' > "$tmp/src/loopd/a.c"
	if check "$tmp" > "$tmp/out" 2>&1 ||
	    ! grep -qF 'src/loopd/a.c:2:' "$tmp/out"; then
		echo "self-test: FAIL: an include of a runner's inner header was not named:" >&2
		cat "$tmp/out" >&2
		return 1
	fi
	echo "self-test: an inner runner header included from outside fails: $(cat "$tmp/out")"
	rm "$tmp/src/loopd/a.c"
	printf '#include "brokerd/broker.h"\n' > "$tmp/src/brokerd/runner/b.c"
	if check "$tmp" > "$tmp/out" 2>&1 ||
	    ! grep -qF 'src/brokerd/runner/b.c:1:' "$tmp/out"; then
		echo "self-test: FAIL: the runner including broker.h was not named:" >&2
		cat "$tmp/out" >&2
		return 1
	fi
	echo "self-test: the runner including broker.h fails"
	echo "self-test: ok"
	return 0
}

. "$(dirname "$0")/gate.sh"
gate_main "$@"
