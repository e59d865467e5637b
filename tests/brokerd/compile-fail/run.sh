#!/bin/sh
# The compile-fail test for struct decision (baseline.md section 1): the
# positive control OK must compile, and every other file must fail to
# compile with an error saying the type is incomplete (GCC's and Clang's
# words for it), so that a typo or a missing header cannot pass for proof.
#   run.sh INCDIR OK BAD... -- CC [CC ARGS...]
set -u
inc=$1
ok=$2
shift 2
bad=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	bad="$bad $1"
	shift
done
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || { echo "usage: run.sh INCDIR OK BAD... -- CC..." >&2; exit 2; }
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
		echo "FAIL: $f compiled; struct decision is not opaque"
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
