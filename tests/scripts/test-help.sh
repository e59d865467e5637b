#!/bin/sh
# Every program answers help the same way (src/proto/help.h): --help, -h
# and help print its usage on stdout and exit 0, help COMMAND and
# COMMAND --help that command's usage; an unknown command or option prints
# usage on stderr and exits 2, with nothing on stdout.
#
#   tests/scripts/test-help.sh BUILD_ROOT
set -u
build=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

# run PROGRAM ARGS...: the exit status in $rc, the streams in $tmp/out, err.
run() {
	"$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
	rc=$?
}

# asks PROGRAM WANTED ARGS...: help on stdout, WANTED in it, stderr empty.
asks() {
	prog=$1
	want=$2
	shift 2
	run "$prog" "$@"
	if [ $rc -ne 0 ] || ! head -1 "$tmp/out" | grep -q '^usage: ' ||
	    ! grep -qF -- "$want" "$tmp/out" || [ -s "$tmp/err" ]; then
		echo "FAIL: $(basename "$prog") $*: wanted usage with \"$want\" on stdout and exit 0, got exit $rc:" >&2
		cat "$tmp/out" "$tmp/err" >&2
		failed=1
		return
	fi
	echo "ok: $(basename "$prog") $*: $(head -1 "$tmp/out")"
}

# wrong PROGRAM ARGS...: usage on stderr, nothing on stdout, exit 2.
wrong() {
	prog=$1
	shift
	run "$prog" "$@"
	if [ $rc -ne 2 ] || ! grep -q 'usage: ' "$tmp/err" || [ -s "$tmp/out" ]; then
		echo "FAIL: $(basename "$prog") $*: wanted usage on stderr and exit 2, got exit $rc:" >&2
		cat "$tmp/out" "$tmp/err" >&2
		failed=1
		return
	fi
	echo "ok: $(basename "$prog") $*: exit 2, $(head -1 "$tmp/err")"
}

brokerd=$build/src/brokerd/brokerd
for word in --help -h help; do
	asks "$brokerd" 'brokerd serve [--config PATH]' $word
	asks "$brokerd" 'brokerd explain [--config PATH]' $word
done
asks "$brokerd" 'brokerd serve [--config PATH]' help serve
asks "$brokerd" 'brokerd explain [--config PATH]' help explain
asks "$brokerd" 'brokerd serve [--config PATH]' serve --help
asks "$brokerd" 'brokerd explain [--config PATH]' explain --config x -h
wrong "$brokerd"
wrong "$brokerd" --bogus
wrong "$brokerd" help bogus
wrong "$brokerd" serve --bogus
wrong "$brokerd" explain --bogus

loopd=$build/src/loopd/loopd
for word in --help -h help; do
	asks "$loopd" 'loopd serve [--config PATH]' $word
done
asks "$loopd" 'loopd serve [--config PATH]' help serve
asks "$loopd" 'loopd serve [--config PATH]' serve --help
wrong "$loopd"
wrong "$loopd" --bogus
wrong "$loopd" serve --bogus x

bxctl=$build/src/bxctl/bxctl
for word in --help -h help; do
	asks "$bxctl" 'bxctl chat' $word
	asks "$bxctl" 'bxctl audit verify' $word
done
asks "$bxctl" 'bxctl chat [--session ID]' help chat
asks "$bxctl" 'bxctl audit verify [--home PATH]' help audit verify
asks "$bxctl" 'bxctl approve' approve --help
asks "$bxctl" 'bxctl grants check' grants check -h
wrong "$bxctl"
wrong "$bxctl" --bogus
wrong "$bxctl" help bogus
wrong "$bxctl" chat --bogus

bxtool=$build/src/bxtool/bxtool
for word in --help -h help; do
	asks "$bxtool" 'bxtool fetch --max N' $word
done
asks "$bxtool" 'bxtool read --max N PATH' read --help
wrong "$bxtool" --bogus
wrong "$bxtool" read /etc/passwd
# After --, a word is the command's: bxtool runs it rather than helping.
run "$bxtool" run -- /usr/bin/printf '%s\n' --help
if [ $rc -ne 0 ] || ! grep -qxF -- '--help' "$tmp/out"; then
	echo "FAIL: bxtool run -- printf --help did not run printf (exit $rc):" >&2
	cat "$tmp/out" "$tmp/err" >&2
	failed=1
else
	echo "ok: bxtool run -- printf --help runs printf"
fi

bxbridge=$build/src/bxbridge/bxbridge
for word in --help -h help; do
	asks "$bxbridge" 'bxbridge serve [--config PATH]' $word
	asks "$bxbridge" 'bxbridge check [--config PATH]' $word
done
asks "$bxbridge" 'bxbridge check [--config PATH]' help check
asks "$bxbridge" 'bxbridge serve [--config PATH]' serve --help
asks "$bxbridge" 'bxbridge check [--config PATH]' check --config x -h
wrong "$bxbridge"
wrong "$bxbridge" --bogus
wrong "$bxbridge" help bogus
wrong "$bxbridge" serve --bogus
wrong "$bxbridge" check --bogus x

bxegress=$build/src/bxegress/bxegress
for word in --help -h help; do
	asks "$bxegress" 'bxegress --listen-fd N' $word
done
wrong "$bxegress"
wrong "$bxegress" --bogus 1

exit $failed
