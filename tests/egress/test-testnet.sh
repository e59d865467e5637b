#!/bin/sh
# test-testnet.sh: the self-test of the egress test network (testnet.sh
# and tls-host). Prints one line for each check that fails and exits 1 if
# any did.
#
#   test-testnet.sh --inside
#       run by testnet.sh: the names, certificates, routes (the echo
#       routes' every form of a header too), logs and firewall of the
#       network it made
#   test-testnet.sh --cleanup TESTNET_SH TLS_HOST
#       runs testnet.sh (slot 0) to success, to a failing command, to a
#       setup that fails half way, to SIGTERM and to SIGKILL, and checks
#       that no namespace, veth, nft table, directory or process is left
set -u

fails=0

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# expect WHAT WANT GOT
expect() {
	if [ "$2" != "$3" ]; then
		fail "$1: wanted '$2', got '$3'"
	fi
}

finish() {
	if [ $fails -gt 0 ]; then
		echo "test-testnet: $fails checks failed" >&2
		exit 1
	fi
	echo "test-testnet: all checks passed"
	exit 0
}

fetch() {
	curl -sS --noproxy '*' --max-time 10 \
	    --cacert "$BX_TESTNET_DIR/ca.pem" "$@"
}

# connect ADDR PORT and ns_connect ADDR PORT (from namespace A): print
# connected, refused, timeout (after 2 s) or error ERRNO.
connect_py='
import socket, sys
s = socket.socket()
s.settimeout(2)
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
    print("connected")
except socket.timeout:
    print("timeout")
except ConnectionRefusedError:
    print("refused")
except OSError as e:
    print("error", e.errno)
'

connect() {
	python3 -c "$connect_py" "$1" "$2"
}

ns_connect() {
	ip netns exec "$BX_TESTNET_NS_A" python3 -c "$connect_py" "$1" "$2"
}

# The processes of namespace A other than its three servers, waited for up
# to 5 s: a child must end once its client is gone.
children_gone() {
	i=0
	while [ $i -lt 50 ]; do
		n=$(ip netns pids "$BX_TESTNET_NS_A" | wc -l)
		[ "$n" -eq 3 ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	fail "namespace A still has $n processes, not its 3 servers"
}

check_env() {
	for v in BX_TESTNET_DIR BX_TESTNET_ALLOW BX_TESTNET_A BX_TESTNET_BAD \
	    BX_TESTNET_B BX_TESTNET_HOST_A BX_TESTNET_NS_A; do
		eval "val=\${$v-}"
		[ -n "$val" ] || fail "$v is not set"
	done
	b=${BX_TESTNET_ALLOW#10.200.0.}
	b=${b%/30}
	expect BX_TESTNET_A "10.200.0.$((b + 2))" "$BX_TESTNET_A"
	expect BX_TESTNET_BAD "10.200.0.$((b + 3))" "$BX_TESTNET_BAD"
	expect BX_TESTNET_B "10.200.0.$((b + 10))" "$BX_TESTNET_B"
	expect BX_TESTNET_HOST_A "10.200.0.$((b + 1))" "$BX_TESTNET_HOST_A"
	for f in ca.pem hosts resolv.conf nsswitch.conf log-a.txt \
	    log-a8443.txt log-bad.txt log-b.txt; do
		[ -f "$BX_TESTNET_DIR/$f" ] || fail "no $f in $BX_TESTNET_DIR"
	done
	for f in log-a.txt log-a8443.txt log-bad.txt log-b.txt; do
		[ -s "$BX_TESTNET_DIR/$f" ] && fail "$f does not start empty"
	done
}

check_names() {
	expect "getent hosts loop.test" "127.0.0.1 loop.test" \
	    "$(getent hosts loop.test | awk '{ print $1, $2 }')"
	expect "getent hosts good.test" "$BX_TESTNET_A" \
	    "$(getent hosts good.test | awk '{ print $1 }')"
	expect "getent hosts private.test" "$BX_TESTNET_B" \
	    "$(getent hosts private.test | awk '{ print $1 }')"
	expect "/etc/resolv.conf" "nameserver 127.0.0.1" "$(cat /etc/resolv.conf)"
	expect "hosts in /etc/nsswitch.conf" "hosts: files" \
	    "$(grep '^hosts:' /etc/nsswitch.conf)"
	# A name not in the file does not resolve, and no query is sent: a
	# listener on the nameserver's port sees nothing.
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.bind(("127.0.0.1", 53))
except OSError as e:
    print("cannot listen on 127.0.0.1:53:", e, flush=True)
    sys.exit(0)
print("listening", flush=True)
s.settimeout(3)
try:
    s.recvfrom(512)
    print("query")
except socket.timeout:
    print("none")
' >"$work/dns" &
	dns=$!
	i=0
	until [ -s "$work/dns" ] || [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	getent hosts not-in-the-file.example >/dev/null
	expect "getent hosts of a name not in the file (status)" 2 $?
	getent ahosts example.com >/dev/null
	expect "getent ahosts example.com (status)" 2 $?
	wait $dns
	case $(sed -n 1p "$work/dns") in
	listening) expect "queries sent to 127.0.0.1:53" none \
	    "$(sed -n 2p "$work/dns")" ;;
	*) echo "note: $(cat "$work/dns"); only nsswitch.conf was checked" ;;
	esac
}

check_routes() {
	expect "https://good.test/ok" "hello from good.test" \
	    "$(fetch https://good.test/ok)"
	expect "https://www.good.test/" "hello from www.good.test" \
	    "$(fetch https://www.good.test/)"
	expect "https://good.test:8443/ok" "hello from good.test" \
	    "$(fetch https://good.test:8443/ok)"
	expect "https://private.test/ok" "hello from private.test" \
	    "$(fetch https://private.test/ok)"
	expect "https://$BX_TESTNET_A/ok (no SNI)" "hello from -" \
	    "$(fetch -k "https://$BX_TESTNET_A/ok")"
	expect "-L https://good.test/chain/3" "end of chain" \
	    "$(fetch -L https://good.test/chain/3)"
	expect "https://good.test/chain/3 Location" "/chain/2" \
	    "$(fetch -o /dev/null -w '%{redirect_url}' \
	    https://good.test/chain/3 | sed 's|^https://good.test||')"
	expect "https://good.test/chain/21" "not found" \
	    "$(fetch https://good.test/chain/21)"
	expect "-L /redirect/other.test/status/201" "status 201 201" \
	    "$(fetch -L -w '%{http_code}' \
	    https://good.test/redirect/other.test/status/201 | tr '\n' ' ')"
	expect "-L /redirect-port/also.test/8443/ok" "hello from also.test" \
	    "$(fetch -L https://good.test/redirect-port/also.test/8443/ok)"
	expect "/redirect Location" "https://also.test/a/b?c=d" \
	    "$(fetch -o /dev/null -w '%{redirect_url}' \
	    'https://good.test/redirect/also.test/a/b?c=d')"
	expect "/status/418/big" "4096 status 418 xx" \
	    "$(fetch https://good.test/status/418/big | wc -c) $(fetch \
	    https://good.test/status/418/big | head -c 13)"
	expect "/status/600" "404" \
	    "$(fetch -o /dev/null -w '%{http_code}' https://good.test/status/600)"
	expect "/latin1" " 63 61 66 e9 0a" \
	    "$(fetch https://good.test/latin1 | od -An -tx1)"
	fetch -o "$work/big" https://good.test/big/1000000
	expect "/big/1000000" "1000000 0" \
	    "$(wc -c <"$work/big") $(tr -d a <"$work/big" | wc -c)"
	expect "/nothing" "not found 404" \
	    "$(fetch -w '%{http_code}' https://good.test/nothing | tr '\n' ' ')"
	fetch -L --max-redirs 5 https://good.test/loop >/dev/null 2>&1
	expect "-L /loop (curl status)" 47 $?
	fetch https://badcert.test/ >/dev/null 2>&1
	expect "https://badcert.test/ (curl status)" 60 $?
	fetch --max-time 1 https://good.test/silent >/dev/null 2>&1
	expect "/silent (curl status)" 28 $?
	n=$(fetch --max-time 1 https://good.test/forever 2>/dev/null | wc -c)
	[ "$n" -gt 100000 ] || fail "/forever sent only $n bytes in 1 s"
	fetch --max-time 2 https://good.test/slowloris >/dev/null 2>&1
	expect "/slowloris (curl status)" 28 $?
	fetch --max-time 1 https://good.test/big/1073741824 >/dev/null 2>&1
	expect "/big/1073741824 in 1 s (curl status)" 28 $?
	children_gone
}

# has_line FILE LINE: FILE (a body or a log) holds LINE as a whole line.
has_line() {
	grep -qxF -- "$2" "$1" || fail "$(basename "$1") has no line '$2'"
}

# no_line FILE PATTERN: no line of FILE matches the basic regex PATTERN.
no_line() {
	if grep -q -- "$2" "$1"; then
		fail "$(basename "$1") has a line matching '$2'"
	fi
}

# hex_bytes TEXT: the bytes of TEXT as lower-case hex pairs, one line.
hex_bytes() {
	printf '%s' "$1" | od -An -v -tx1 | tr -d '\n'
}

# The forms below are computed in the shell character by character, with
# as few programs run as can be: each costs tens of ms on a loaded host.

# next_byte: takes the first character of $rest into $c and its hex into
# $lower and $upper, from the lists $lows and $ups.
next_byte() {
	c=${rest%"${rest#?}"}
	rest=${rest#?}
	lows=${lows# }
	ups=${ups# }
	lower=${lows%% *}
	upper=${ups%% *}
	lows=${lows#"$lower"}
	ups=${ups#"$upper"}
}

# pct FORM TEXT LOWS UPS: TEXT (its bytes' hex LOWS and UPS) as tls-host's
# line FORM (pct-upper, pct-lower, pct-mix) writes it.
pct() {
	out=
	i=0
	rest=$2
	lows=$3
	ups=$4
	while [ -n "$rest" ]; do
		next_byte
		case $c in
		[[:alnum:]._~-]) unreserved=yes ;;
		*) unreserved=no ;;
		esac
		case $1.$unreserved.$((i % 2)) in
		pct-upper.*) out=$out%$upper ;;
		pct-lower.yes.*) out=$out$c ;;
		pct-lower.no.*) out=$out%$lower ;;
		pct-mix.yes.1) out=$out$c ;;
		pct-mix.*)
			if [ $((i % 4)) -lt 2 ]; then
				out=$out%$upper
			else
				out=$out%$lower
			fi
			;;
		esac
		i=$((i + 1))
	done
	printf '%s' "$out"
}

# json FORM TEXT LOWS UPS: {"auth":"TEXT"} as tls-host's line FORM (json,
# json-mix) writes it; TEXT is printable ASCII.
json() {
	out=
	i=0
	rest=$2
	lows=$3
	ups=$4
	while [ -n "$rest" ]; do
		next_byte
		case $1.$((i % 3)) in
		json-mix.1) out="$out\\u00$upper" ;;
		json-mix.2) out="$out\\u00$lower" ;;
		*)
			case $c in
			'"' | '\' | /) out="$out\\$c" ;;
			*) out=$out$c ;;
			esac
			;;
		esac
		i=$((i + 1))
	done
	printf '{"auth":"%s"}' "$out"
}

# urlsafe B64: sets url to B64 in the base64url alphabet.
urlsafe() {
	url=$1
	while :; do
		case $url in
		*+*) url=${url%%+*}-${url#*+} ;;
		*/*) url=${url%%/*}_${url#*/} ;;
		*) return ;;
		esac
	done
}

# expected_forms SUBJECT TEXT: the 32 lines tls-host's /echo should send
# for SUBJECT, in its order, each form of TEXT as written here.
expected_forms() {
	: >"$work/b64"
	: >"$work/b64url"
	for k in 0 1 2; do
		case $k in
		0) fill= ;;
		1) fill=- ;;
		2) fill=-- ;;
		esac
		for where in end inside; do
			trailer=
			[ $where = end ] || trailer=-trailer
			std=$(printf '%s%s%s' "$fill" "$2" "$trailer" | base64 -w0)
			urlsafe "$std"
			printf '%s b64-%s-%s: %s\n%s b64-%s-%s-nopad: %s\n' \
			    "$1" $k $where "$std" "$1" $k $where "${std%%=*}" \
			    >>"$work/b64"
			printf '%s b64url-%s-%s: %s\n%s b64url-%s-%s-nopad: %s\n' \
			    "$1" $k $where "$url" "$1" $k $where "${url%%=*}" \
			    >>"$work/b64url"
		done
	done
	hex=$(hex_bytes "$2")
	hex_up=$(printf '%s' "$hex" | tr a-f A-F)
	printf '%s raw: %s\n' "$1" "$2"
	cat "$work/b64" "$work/b64url"
	for form in pct-upper pct-lower pct-mix; do
		printf '%s %s: %s\n' "$1" $form \
		    "$(pct $form "$2" "$hex" "$hex_up")"
	done
	for form in json json-mix; do
		printf '%s %s: %s\n' "$1" $form \
		    "$(json $form "$2" "$hex" "$hex_up")"
	done
	printf '%s hex-upper: %s\n' "$1" "$(printf '%s' $hex_up)"
	printf '%s hex-lower: %s\n' "$1" "$(printf '%s' $hex)"
}

# check_forms FILE SUBJECT TEXT: the lines of SUBJECT in FILE, an /echo
# body, are exactly expected_forms'.
check_forms() {
	expected_forms "$2" "$3" >"$work/want-$2"
	grep "^$2 " "$1" >"$work/got-$2"
	if ! cmp -s "$work/want-$2" "$work/got-$2"; then
		fail "the $2 lines of $(basename "$1") are not the forms of '$3':" \
		    "$(diff "$work/want-$2" "$work/got-$2")"
	fi
}

# The echo routes and the header lines of the log, with a bearer token, a
# Basic credential whose forms need escaping, and a header of no scheme.
check_echo() {
	log=$BX_TESTNET_DIR/log-a.txt
	token=s3cr3t-v4lue-xyz
	auth="Bearer $token"
	fetch -H "Authorization: $auth" -o "$work/echo" \
	    https://good.test/echo/authorization
	check_forms "$work/echo" value "$auth"
	check_forms "$work/echo" token "$token"
	expect "lines of /echo/authorization (bearer)" 64 \
	    "$(wc -l <"$work/echo")"
	has_line "$log" "header good.test Authorization: $auth"
	has_line "$log" "header good.test Host: good.test"
	fetch -H "authorization:   $auth  " -o "$work/echo-upper" \
	    https://good.test/echo/AUTHORIZATION
	cmp -s "$work/echo" "$work/echo-upper" ||
	    fail "/echo/AUTHORIZATION of '  $auth  ' differs from /echo/authorization"

	# Basic: the header value, its base64, the decoded text, the password.
	password='p4ss/w0rd+"q\'
	basic=$(printf 'kyle:%s' "$password" | base64 -w0)
	fetch -u "kyle:$password" -o "$work/echo-basic" \
	    https://good.test/echo/authorization
	check_forms "$work/echo-basic" value "Basic $basic"
	check_forms "$work/echo-basic" basic "$basic"
	check_forms "$work/echo-basic" basic-decoded "kyle:$password"
	check_forms "$work/echo-basic" basic-password "$password"
	expect "lines of /echo/authorization (basic)" 128 \
	    "$(wc -l <"$work/echo-basic")"
	has_line "$work/echo-basic" \
	    "basic-password json: {\"auth\":\"p4ss\\/w0rd+\\\"q\\\\\"}"
	has_line "$work/echo-basic" "basic-password pct-lower: p4ss%2fw0rd%2b%22q%5c"
	has_line "$log" "header good.test Authorization: Basic $basic"

	# A header of no scheme; a header that was not sent.
	fetch -H "X-Api-Key: k3y-0f-n0-sch3me" -o "$work/echo-key" \
	    https://good.test/echo/x-api-key
	check_forms "$work/echo-key" value k3y-0f-n0-sch3me
	expect "lines of /echo/x-api-key" 32 "$(wc -l <"$work/echo-key")"
	expect "/echo/x-missing" "no x-missing header" \
	    "$(fetch https://good.test/echo/x-missing)"
	expect "/echo/bad name" 404 "$(fetch -o /dev/null -w '%{http_code}' \
	    'https://good.test/echo/a:b')"

	# gzip: the same body, compressed and said to be.
	fetch -H "Authorization: $auth" -D "$work/gzip-head" -o "$work/gzip" \
	    https://good.test/echo-gzip/authorization
	grep -qix 'content-encoding: gzip.' "$work/gzip-head" ||
	    fail "/echo-gzip has no Content-Encoding: gzip"
	gzip -dc <"$work/gzip" >"$work/gunzipped" ||
	    fail "/echo-gzip's body is not gzip"
	cmp -s "$work/echo" "$work/gunzipped" ||
	    fail "/echo-gzip's body, decompressed, differs from /echo's"
	expect "/echo-gzip/x-missing" "no x-missing header" \
	    "$(fetch --compressed https://good.test/echo-gzip/x-missing)"

	# big: N bytes of 'x', the value, 1024 of 'x'.
	fetch -H "Authorization: $auth" -o "$work/big-echo" \
	    https://good.test/echo-big/authorization/100000
	expect "/echo-big/authorization/100000 length" \
	    $((100000 + ${#auth} + 1024)) "$(wc -c <"$work/big-echo")"
	expect "/echo-big: 'x' before the value" 0 \
	    "$(head -c 100000 "$work/big-echo" | tr -d x | wc -c)"
	expect "/echo-big: the value at 100000" "$auth" \
	    "$(tail -c +100001 "$work/big-echo" | head -c ${#auth})"
	expect "/echo-big: 'x' after the value" "1024 0" \
	    "$(tail -c 1024 "$work/big-echo" | wc -c) $(tail -c 1024 \
	    "$work/big-echo" | tr -d x | wc -c)"
	expect "/echo-big/x-missing/5" "no x-missing header" \
	    "$(fetch https://good.test/echo-big/x-missing/5)"

	# Redirects: curl keeps the header to the same host, drops it to
	# another unless told, and the log shows which host got it.
	fetch -L -H "Authorization: $auth" -o "$work/echo-same" \
	    https://good.test/redirect/good.test/echo/authorization
	has_line "$work/echo-same" "value raw: $auth"
	fetch -L -H "Authorization: $auth" -o "$work/echo-other" \
	    https://good.test/redirect/other.test/echo/authorization
	expect "-L /redirect/other.test/echo/authorization" \
	    "no authorization header" "$(cat "$work/echo-other")"
	has_line "$log" "request other.test GET /echo/authorization"
	has_line "$log" "header other.test Host: other.test"
	no_line "$log" "^header other.test Authorization"
	fetch -L --location-trusted -H "Authorization: $auth" \
	    -o "$work/echo-trusted" \
	    https://good.test/redirect/other.test/echo/authorization
	has_line "$work/echo-trusted" "value raw: $auth"
	has_line "$log" "header other.test Authorization: $auth"

	# A byte outside 0x20..0x7e is \xNN in the log; a backslash is not.
	fetch -H "$(printf 'X-Odd: a\tb\351c\\d')" https://good.test/ok \
	    >/dev/null
	has_line "$log" 'header good.test X-Odd: a\x09b\xe9c\d'
}

check_logs() {
	d=$BX_TESTNET_DIR
	grep -qx "accept $BX_TESTNET_HOST_A" "$d/log-a.txt" ||
	    fail "log-a.txt has no 'accept $BX_TESTNET_HOST_A'"
	grep -qx "request good.test GET /ok" "$d/log-a.txt" ||
	    fail "log-a.txt has no 'request good.test GET /ok'"
	grep -qx "request - GET /ok" "$d/log-a.txt" ||
	    fail "log-a.txt has no 'request - GET /ok'"
	grep -qx "request also.test GET /ok" "$d/log-a8443.txt" ||
	    fail "log-a8443.txt has no 'request also.test GET /ok'"
	grep -qx "request private.test GET /ok" "$d/log-b.txt" ||
	    fail "log-b.txt has no 'request private.test GET /ok'"
	expect "accept lines in log-b.txt" 1 "$(grep -c '^accept ' "$d/log-b.txt")"
	# A failed handshake is accepted but never becomes a request.
	expect "log-bad.txt" "accept $BX_TESTNET_HOST_A" "$(cat "$d/log-bad.txt")"
	bad=$(LC_ALL=C grep -v -e '^accept [0-9.]*$' \
	    -e '^request [^ ]* [A-Z]* /[^ ]*$' -e '^header [^ ]* [[:print:]]*$' \
	    "$d"/log-*.txt)
	[ -z "$bad" ] || fail "log lines of no known form: $bad"
}

check_firewall() {
	python3 -c '
import socket, time
s = socket.socket()
s.bind(("0.0.0.0", 0))
s.listen(8)
print(s.getsockname()[1], flush=True)
time.sleep(30)
' >"$work/port" &
	listener=$!
	i=0
	until [ -s "$work/port" ] || [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	port=$(cat "$work/port")
	expect "the host to its own listener on $BX_TESTNET_HOST_A:$port" \
	    connected "$(connect "$BX_TESTNET_HOST_A" "$port")"
	start=$(date +%s)
	expect "namespace A to the host's listener on $BX_TESTNET_HOST_A:$port" \
	    timeout "$(ns_connect "$BX_TESTNET_HOST_A" "$port")"
	took=$(($(date +%s) - start))
	[ $took -le 4 ] || fail "namespace A's connect took $took s, not 2"
	expect "namespace A to namespace B" "error 101" \
	    "$(ns_connect "$BX_TESTNET_B" 443)"
	expect "the host to namespace A" connected \
	    "$(connect "$BX_TESTNET_A" 443)"
	expect "the host to namespace B" connected \
	    "$(connect "$BX_TESTNET_B" 443)"
	kill $listener
	wait $listener 2>/dev/null
}

inside() {
	work=$BX_TESTNET_DIR/self-test
	mkdir "$work" || exit 1
	check_env
	check_names
	check_routes
	check_echo
	check_logs
	check_firewall
	finish
}

# leftovers PID DIR: what the run of testnet.sh as PID left behind.
leftovers() {
	ip netns list | grep "^bxtn0-$1-" &&
	    fail "run $1 left a namespace"
	ip -o link show | grep -E "bx[hn]0-$1[ab]" &&
	    fail "run $1 left a veth"
	nft list tables | grep "bxtn0_$1\$" &&
	    fail "run $1 left an nft table"
	for d in /tmp/bx-testnet-*; do
		if [ -f "$d/slot" ] && [ "$(cat "$d/slot")" = 0 ]; then
			fail "run $1 left $d"
		fi
	done
	if [ -n "$2" ]; then
		[ -e "$2" ] && fail "run $1 left $2"
		pgrep -a -f -- "$2" && fail "run $1 left processes"
	fi
	return 0
}

# run WANT_STATUS NAME BINARY CMD...: testnet.sh in its own session,
# recording its directory and namespace in $work/rec.
run() {
	want=$1
	name=$2
	bin=$3
	shift 3
	rm -f "$work/rec"
	setsid "$testnet" --slot 0 "$bin" -- sh -c \
	    'echo "$BX_TESTNET_DIR" >"$0"; exec "$@"' "$work/rec" "$@" &
	pid=$!
	wait $pid
	expect "$name: the status" "$want" $?
	leftovers $pid "$(cat "$work/rec" 2>/dev/null)"
}

# signalled SIGNAL: testnet.sh (pid $pid) running sleep gets SIGNAL in its
# process group once its command has started.
signalled() {
	rm -f "$work/rec"
	setsid "$testnet" --slot 0 "$tls_host" -- sh -c \
	    'echo "$BX_TESTNET_DIR" >"$0"; exec sleep 30' "$work/rec" \
	    >/dev/null &
	pid=$!
	i=0
	until [ -s "$work/rec" ] || [ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill "-$1" "-$pid"
}

cleanup_checks() {
	testnet=$1
	tls_host=$2
	work=$(mktemp -d /tmp/bx-selftest-XXXXXX) || exit 1
	trap 'rm -rf "$work"' EXIT

	start=$(date +%s%N)
	run 0 "true" "$tls_host" true
	echo "a run of testnet.sh -- true took" \
	    "$((($(date +%s%N) - start) / 1000000)) ms"
	run 7 "exit 7" "$tls_host" sh -c 'exit 7'
	# A process the command leaves in namespace A is ended too.
	run 0 "a process left in namespace A" "$tls_host" sh -c \
	    'ip netns exec "$BX_TESTNET_NS_A" sleep 1000 >/dev/null 2>&1 &
	    echo $! >"$1"' sh "$work/sleep"
	i=0
	while kill -0 "$(cat "$work/sleep")" 2>/dev/null; do
		[ $i -lt 20 ] || { fail "the sleep left in namespace A runs on"; break; }
		sleep 0.1
		i=$((i + 1))
	done
	# tls-host that never listens: setup fails half way, after the
	# namespaces and the table.
	run 1 "a server that does not start" /bin/false true
	run 1 "a missing binary" /nonexistent true

	signalled TERM
	start=$(date +%s%N)
	wait $pid
	expect "SIGTERM: the status" 143 $?
	echo "cleanup after SIGTERM took" \
	    "$((($(date +%s%N) - start) / 1000000)) ms"
	leftovers $pid "$(cat "$work/rec")"

	# A run killed outright leaves everything; the next run removes it.
	signalled KILL
	wait $pid 2>/dev/null
	ip netns list | grep -q "^bxtn0-$pid-a" ||
	    fail "SIGKILL: run $pid left nothing to clean up"
	killed=$(cat "$work/rec")
	run 0 "a run after a killed one" "$tls_host" true
	leftovers $pid "$killed"
	finish
}

case ${1-} in
--inside)
	[ $# -eq 1 ] || exit 1
	inside
	;;
--cleanup)
	[ $# -eq 3 ] || exit 1
	cleanup_checks "$2" "$3"
	;;
*)
	echo "usage: test-testnet.sh --inside | --cleanup TESTNET_SH TLS_HOST" >&2
	exit 1
	;;
esac
