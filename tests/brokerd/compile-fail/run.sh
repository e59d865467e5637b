#!/bin/sh
# A compile-fail test for an opaque type (baseline.md section 1): struct
# decision (policy.h) and struct run_spec (runner.h) each use it. The
# positive control OK must compile, and every other file must fail to
# compile with an error saying the type is incomplete (GCC's and Clang's
# words for it), so that a typo or a missing header cannot pass for proof.
# TYPE is the opaque type the files are about, named in every failure.
#   run.sh TYPE INCDIR OK BAD... -- CC [CC ARGS...]
set -u
[ $# -ge 3 ] || { echo "usage: run.sh TYPE INCDIR OK BAD... -- CC..." >&2; exit 2; }
type=$1
inc=$2
ok=$3
shift 3
bad=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	bad="$bad $1"
	shift
done
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || { echo "usage: run.sh TYPE INCDIR OK BAD... -- CC..." >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
flags="-std=c17 -Wall -Wextra -Werror -fsyntax-only -I$inc"
status=0

# shellcheck disable=SC2086 # flags are meant to split
if ! "$@" $flags "$ok" >"$out" 2>&1; then
	echo "FAIL: the positive control $ok does not compile:"
	cat "$out"
	exit 1
fi
echo "ok: $ok compiles"
for f in $bad; do
	# shellcheck disable=SC2086
	if "$@" $flags "$f" >"$out" 2>&1; then
		echo "FAIL: $f compiled; $type is not opaque"
		status=1
	elif ! grep "error:" "$out" | grep -Eq \
	    "incomplete|undefined type|storage size of .* known"; then
		echo "FAIL: $f failed for another reason:"
		cat "$out"
		status=1
	else
		echo "ok: $f does not compile"
	fi
done
exit $status
