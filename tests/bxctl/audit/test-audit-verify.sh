#!/bin/sh
# test-audit-verify.sh: build/bxctl audit verify on every case of the
# tampering suite (tests/fixtures/audit/<case>/): its exact output and exit
# status. Also: the committed fixtures are what the generator makes, the
# home comes from BOXMAKER_HOME when --home is absent, usage errors exit 2;
# bxctl audit head, and anchors passing on the intact log and failing on a
# cut tail and on a log rewritten from seq 0.
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

# expect NAME STATUS WANT_STDOUT CMD...: the exact stdout and exit status.
expect() {
	name=$1 want_status=$2 want=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" = "$want_status" ] && [ "$(cat "$tmp/out")" = "$want" ]; then
		pass
	else
		fail "$name: exit $got"
		cat "$tmp/out" "$tmp/err"
	fi
}

# audit head: the last record as SEQ:HASH, after verifying.
good_head=10:d5fb8f67fb3c9decb2c8215b274e573ea4e7ffecfefe744ffb609182692b06e1
expect "head" 0 "$good_head" "$bxctl" audit head --home "$fixtures/good"
expect "head of a cut tail" 0 \
    9:5824e76e33f2451598e286d90ade23f4c45c875f9ca6209c0d2fee02f6a0ec19 \
    "$bxctl" audit head --home "$fixtures/cut-tail"
BOXMAKER_HOME="$fixtures/good" expect "head from BOXMAKER_HOME" 0 \
    "$good_head" "$bxctl" audit head
# A log that does not verify has no head: nothing on stdout, why on stderr.
expect "head of a broken log" 1 "" "$bxctl" audit head --home \
    "$fixtures/seq-gap"
grep -q "does not verify: 2025-09-19.jsonl:3: seq 6 where 5" "$tmp/err" &&
    pass || fail "head of a broken log: $(cat "$tmp/err")"
expect "head of an empty log" 1 "" "$bxctl" audit head --home "$tmp/empty"
grep -q "holds no record yet" "$tmp/err" && pass || fail "empty head"
expect "head without audit/" 1 "" "$bxctl" audit head --home "$tmp/none"
expect "head with an operand" 2 "" "$bxctl" audit head extra

# Anchors: the intact log keeps good's head and an older record.
old=3:74d8cb9ffd2633b843591bc0faea1d402421820cce9e84f5c93e8118961bf615
expect "anchors on the intact log" 0 "$(cat "$fixtures/good/verify.out")
anchor $old: ok (2025-09-19.jsonl:1)
anchor $good_head: ok (2025-09-19.jsonl:8)" \
    "$bxctl" audit verify --home "$fixtures/good" --anchor "$good_head" \
    --anchor "$old"
# The tail cut: the log verifies, the anchor does not.
expect "anchor on a cut tail" 1 "$(cat "$fixtures/cut-tail/verify.out")
anchor $good_head: failed: the log has no record 10 (its last is 9): its tail was cut; see docs/runbook.md#audit-anchor-failed" \
    "$bxctl" audit verify --home "$fixtures/cut-tail" --anchor "$good_head"
# Rewritten from seq 0: the same count, another hash at seq 10.
expect "anchor on a rewritten log" 1 "$(cat "$fixtures/rewritten/verify.out")
anchor $old: ok (2025-09-19.jsonl:1)
anchor $good_head: failed: record 10 (2025-09-19.jsonl:8) has hash 05e4764492af6c35d88379fc24255f1e03a6646ba2a0e9d28f339dbbc009bebf: the log was rewritten; see docs/runbook.md#audit-anchor-failed" \
    "$bxctl" audit verify --home "$fixtures/rewritten" --anchor "$good_head" \
    --anchor "$old"
# An anchor past a failure is not checked, and says so.
"$bxctl" audit verify --home "$fixtures/seq-gap" --anchor "$good_head" \
    >"$tmp/out" 2>&1
if [ $? = 1 ] && grep -q "failed: not checked: the chain failed" "$tmp/out"
then pass; else fail "anchor after a failure"; cat "$tmp/out"; fi
# An empty log holds no anchor.
"$bxctl" audit verify --home "$tmp/empty" --anchor "$old" >"$tmp/out" 2>&1
if [ $? = 1 ] && grep -q "holds no record at all" "$tmp/out"; then pass
else fail "anchor on an empty log"; cat "$tmp/out"; fi

# --anchors FILE: comments, blank lines and CRLF skipped; the bad line named.
printf '# kept by cron\n\n%s\r\n%s\n' "$old" "$good_head" >"$tmp/anchors"
"$bxctl" audit verify --home "$fixtures/cut-tail" --anchors "$tmp/anchors" \
    >"$tmp/out" 2>&1
if [ $? = 1 ] && grep -q "^anchor $old: ok" "$tmp/out" &&
    grep -q "^anchor $good_head: failed: .*its tail was cut" "$tmp/out"
then pass; else fail "--anchors"; cat "$tmp/out"; fi
printf '%s\n3:NOTHEX\n' "$old" >"$tmp/bad-anchors"
expect "a bad anchors file" 1 "" "$bxctl" audit verify --home \
    "$fixtures/good" --anchors "$tmp/bad-anchors"
grep -q "bad-anchors:2: the hash of an anchor is 64 lowercase hex digits" \
    "$tmp/err" && pass || fail "bad anchors file: $(cat "$tmp/err")"
expect "a missing anchors file" 1 "" "$bxctl" audit verify --home \
    "$fixtures/good" --anchors "$tmp/nothing-here"
for bad in 10 ":$good_head" "-1:${good_head#*:}" "10:${good_head#*:}0" \
    "99999999999999999999:${good_head#*:}"; do
	expect "--anchor '$bad'" 2 "" "$bxctl" audit verify --home \
	    "$fixtures/good" --anchor "$bad"
	grep -q "^bxctl audit verify: --anchor " "$tmp/err" && pass ||
	    fail "--anchor '$bad': $(cat "$tmp/err")"
done

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
