#!/bin/sh
# test-testnet.sh: the self-test of the egress test network (testnet.sh
# and tls-host). Prints one line for each check that fails and exits 1 if
# any did.
#
#   test-testnet.sh --inside
#       run by testnet.sh: the names, certificates, routes, logs and
#       firewall of the network it made
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
	bad=$(grep -v -e '^accept [0-9.]*$' -e '^request [^ ]* [A-Z]* /[^ ]*$' \
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
	# Only this run's: other tests on the machine may hold slot 0 now.
	for d in /tmp/bx-testnet-*; do
		if [ -f "$d/pid" ] && [ "$(cat "$d/pid")" = "$1" ]; then
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
