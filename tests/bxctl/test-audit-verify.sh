#!/bin/sh
# test-audit-verify.sh: build/bxctl audit verify on every case of the
# tampering suite (tests/fixtures/audit/<case>/): its exact output and exit
# status. Also: the committed fixtures are what the generator makes, the
# home comes from BOXMAKER_HOME when --home is absent, usage errors exit 2.
#   test-audit-verify.sh BXCTL FIXTURES GENERATOR
set -u
bxctl=$1 fixtures=$2 gen=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bx-verify.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

for dir in "$fixtures"/*/; do
	case=$(basename "$dir")
	"$bxctl" audit verify --home "$dir" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" != "$(cat "$dir/verify.status")" ]; then
		fail "$case: exit status $status"
		cat "$tmp/out" "$tmp/err"
	elif ! cmp -s "$tmp/out" "$dir/verify.out"; then
		fail "$case: output differs"
		diff "$dir/verify.out" "$tmp/out"
	elif [ -s "$tmp/err" ]; then
		fail "$case: wrote to stderr"
		cat "$tmp/err"
	else
		pass
	fi
done

# The fixtures are reproducible: the generator makes exactly them.
"$gen" "$tmp/gen" || fail "the generator failed"
for dir in "$fixtures"/*/; do
	case=$(basename "$dir")
	if diff -r "$dir" "$tmp/gen/$case" >"$tmp/diff"; then
		pass
	else
		fail "$case: the committed fixture is not the generator's output"
		head -20 "$tmp/diff"
	fi
done

# BOXMAKER_HOME is the default home.
BOXMAKER_HOME="$fixtures/good" "$bxctl" audit verify >"$tmp/out" 2>&1
if [ $? = 0 ] && cmp -s "$tmp/out" "$fixtures/good/verify.out"; then pass
else fail "BOXMAKER_HOME not used"; fi

# A home without audit/ is an error, exit 1, on stderr.
"$bxctl" audit verify --home "$tmp/none" >"$tmp/out" 2>"$tmp/err"
if [ $? = 1 ] && grep -q "cannot open" "$tmp/err"; then pass
else fail "missing audit directory"; fi

# An empty log verifies with no head.
mkdir -p "$tmp/empty/audit"
out=$("$bxctl" audit verify --home "$tmp/empty")
if [ $? = 0 ] && [ "$out" = "audit: ok, 0 records, head none" ]; then pass
else fail "empty log: $out"; fi

# Usage errors.
"$bxctl" audit verify --frob >/dev/null 2>&1
if [ $? = 2 ]; then pass; else fail "unknown option"; fi
"$bxctl" audit verify extra >/dev/null 2>&1
if [ $? = 2 ]; then pass; else fail "extra operand"; fi
if "$bxctl" audit verify --help | grep -q -- "--home PATH"; then pass
else fail "--help"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
