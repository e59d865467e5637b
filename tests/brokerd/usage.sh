#!/bin/sh
# brokerd's command line: no subcommand or an unknown one prints the usage
# and exits 2, and so does explain with its operands missing.
#   usage.sh BROKERD
set -u
brokerd=$1
status=0

expect() {
	want=$1
	shift
	"$brokerd" "$@" >/dev/null 2>"${TMPDIR:-/tmp}/bx-usage.$$"
	got=$?
	if [ "$got" -ne "$want" ] || ! grep -q "usage: brokerd" \
	    "${TMPDIR:-/tmp}/bx-usage.$$"; then
		echo "FAIL: brokerd $*: exit $got, want $want with the usage"
		status=1
	else
		echo "ok: brokerd $*: exit $got"
	fi
	rm -f "${TMPDIR:-/tmp}/bx-usage.$$"
}

expect 2
expect 2 frobnicate
expect 2 explain
expect 2 explain --config /nonexistent read_file
exit $status
