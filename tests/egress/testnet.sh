#!/bin/sh
# testnet.sh: the test network the egress tests run inside. It makes two
# network namespaces on veth pairs, a firewall so that neither reaches
# anything of this machine's, a test CA and certificates, starts tls-host
# servers in the namespaces and runs a command with its own /etc/hosts,
# /etc/resolv.conf and /etc/nsswitch.conf (bound in a private mount
# namespace), so that the test names resolve to the servers and no other
# name resolves. Everything it made is removed when it ends, however it
# ends; a run killed before it could clean up is cleaned up by the next run
# of its slot.
#
#   testnet.sh [--slot N] TLS_HOST_BINARY -- CMD [ARGS...]
#
# Slot N (0..7, default 0) owns 10.200.0.B/27 with B = 32N; runs of one
# slot wait for each other. CMD sees:
#   BX_TESTNET_DIR     the temporary directory (ca.pem, hosts, log-*.txt)
#   BX_TESTNET_ALLOW   10.200.0.B/30
#   BX_TESTNET_A       10.200.0.(B+2)   good.test and the others, :443 :8443
#   BX_TESTNET_BAD     10.200.0.(B+3)   badcert.test, :443
#   BX_TESTNET_B       10.200.0.(B+10)  private.test, :443
#   BX_TESTNET_HOST_A  10.200.0.(B+1)   this machine's end towards A
#   BX_TESTNET_NS_A    namespace A's name, for ip netns exec
# The exit status is CMD's, or 1 when the network could not be made.
set -u

die() {
	echo "testnet: $*" >&2
	exit 1
}

usage() {
	echo "usage: testnet.sh [--slot N] TLS_HOST_BINARY -- CMD [ARGS...]" >&2
	exit 1
}

slot=0
if [ "${1-}" = --slot ]; then
	[ $# -ge 2 ] || usage
	slot=$2
	shift 2
fi
case $slot in
[0-7]) ;;
*) die "--slot $slot: a slot is 0 to 7" ;;
esac
[ $# -ge 3 ] && [ "$2" = -- ] || usage
bin=$1
shift 2
case $bin in
/*) ;;
*) bin=$(pwd)/$bin ;;
esac

[ "$(id -u)" = 0 ] ||
    die "needs root: it makes network namespaces and nft tables"
for c in ip ss nft openssl unshare flock mount; do
	command -v "$c" >/dev/null 2>&1 || die "$c is missing"
done
[ -f "$bin" ] && [ -x "$bin" ] || die "$bin: no such executable"

net=10.200.0
base=$((slot * 32))
host_a=$net.$((base + 1))
addr_a=$net.$((base + 2))
addr_bad=$net.$((base + 3))
host_b=$net.$((base + 9))
addr_b=$net.$((base + 10))
ns_a=bxtn$slot-$$-a
ns_b=bxtn$slot-$$-b
# Interface names stay under 16 bytes with any pid: bxh0-4194304a is 13.
if_ha=bxh$slot-$$a
if_hb=bxh$slot-$$b
if_na=bxn$slot-$$a
if_nb=bxn$slot-$$b
table=bxtn${slot}_$$
dir=
lock=/run/lock/bx-testnet-$slot.lock

mkdir -p /run/lock || die "cannot make /run/lock"
exec 9>"$lock" || die "cannot open $lock"
flock -w 600 9 || die "slot $slot is still in use after 600 s ($lock)"

# The pids of every process in namespace NS (none when it does not exist).
netns_pids() {
	[ -e "/run/netns/$1" ] && ip netns pids "$1" 2>/dev/null
	return 0
}

# Ends every process in the namespaces, the servers first with SIGTERM so
# that they end their children, then whatever is left with SIGKILL.
stop_processes() {
	left=$(netns_pids "$1"; netns_pids "$2")
	[ -n "$left" ] || return 0
	kill -TERM $left 2>/dev/null
	i=0
	while [ $i -lt 40 ]; do
		left=$(netns_pids "$1"; netns_pids "$2")
		[ -n "$left" ] || return 0
		sleep 0.05
		i=$((i + 1))
	done
	kill -KILL $left 2>/dev/null
	return 0
}

# Removes what a run made: its processes, veths, table and namespaces.
remove_net() {
	stop_processes "bxtn$1-$2-a" "bxtn$1-$2-b"
	for link in "bxh$1-$2a" "bxh$1-$2b"; do
		if ip link show dev "$link" >/dev/null 2>&1; then
			ip link del dev "$link"
		fi
	done
	if nft list table inet "bxtn$1_$2" >/dev/null 2>&1; then
		nft delete table inet "bxtn$1_$2"
	fi
	for ns in "bxtn$1-$2-a" "bxtn$1-$2-b"; do
		if [ -e "/run/netns/$ns" ]; then
			ip netns del "$ns"
		fi
	done
}

cleanup() {
	status=$?
	trap '' INT TERM HUP
	trap - EXIT
	remove_net "$slot" $$
	# The servers are this shell's children: collect them.
	wait
	if [ -n "$dir" ]; then
		rm -rf "$dir"
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# Holding the slot's lock, whatever else carries this slot's names is what
# a killed run left behind.
reap_stale() {
	for ns in $(ip netns list | awk '{ print $1 }'); do
		case $ns in
		bxtn"$slot"-*-a) ;;
		*) continue ;;
		esac
		pid=${ns#bxtn"$slot"-}
		pid=${pid%-a}
		echo "testnet: removing what run $pid of slot $slot left" >&2
		remove_net "$slot" "$pid"
	done
	for ns in $(ip netns list | awk '{ print $1 }'); do
		case $ns in
		bxtn"$slot"-*-b) ip netns del "$ns" ;;
		esac
	done
	for link in $(ip -o link show | awk -F': ' '{ print $2 }'); do
		link=${link%%@*}
		case $link in
		bxh"$slot"-*) ip link del dev "$link" ;;
		esac
	done
	for t in $(nft list tables inet | awk '{ print $3 }'); do
		case $t in
		bxtn"$slot"_*) nft delete table inet "$t" ;;
		esac
	done
	for d in /tmp/bx-testnet-*; do
		if [ -f "$d/slot" ] && [ "$(cat "$d/slot")" = "$slot" ]; then
			rm -rf "$d"
		fi
	done
}
reap_stale

taken=$(ip -4 -o addr show | awk '{ sub("/.*", "", $4); print $4 }' |
    while read -r a; do
	case $a in
	"$net".*)
		o=${a##*.}
		if [ "$o" -ge $base ] && [ "$o" -lt $((base + 32)) ]; then
			echo "$a"
		fi
		;;
	esac
    done)
[ -z "$taken" ] ||
    die "slot $slot's addresses are in use on this machine:" $taken

dir=$(mktemp -d /tmp/bx-testnet-XXXXXX) || die "mktemp failed"
# Readable, so a test that drops root can still read ca.pem.
chmod 0755 "$dir"
echo "$slot" >"$dir/slot"
# Whose it is, so a self-test can tell its own leftovers from another run's.
echo "$$" >"$dir/pid"

# quiet CMD...: runs CMD, shows its output only when it fails.
quiet() {
	"$@" >"$dir/quiet.out" 2>&1 && return 0
	cat "$dir/quiet.out" >&2
	die "$1 failed: $*"
}

cat >"$dir/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[good]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:good.test, DNS:*.good.test, DNS:also.test, DNS:other.test, DNS:private.test, DNS:slow.test
authorityKeyIdentifier = keyid
[bad]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:badcert.test
EOF
newkey="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
quiet openssl req -x509 -new -config "$dir/openssl.cnf" -extensions ca \
    $newkey -keyout "$dir/ca.key" -out "$dir/ca.pem" -days 2 \
    -subj "/CN=Boxmaker test CA $slot-$$"
quiet openssl req -new -config "$dir/openssl.cnf" $newkey \
    -keyout "$dir/good.key" -out "$dir/good.csr" -subj "/CN=good.test"
quiet openssl x509 -req -in "$dir/good.csr" -CA "$dir/ca.pem" \
    -CAkey "$dir/ca.key" -set_serial 2 -days 2 \
    -extfile "$dir/openssl.cnf" -extensions good -out "$dir/good.pem"
# Self-signed, so no CA of this run vouches for it.
quiet openssl req -x509 -new -config "$dir/openssl.cnf" -extensions bad \
    $newkey -keyout "$dir/bad.key" -out "$dir/bad.pem" -days 2 \
    -subj "/CN=badcert.test"
chmod 0644 "$dir/ca.pem" "$dir/good.pem" "$dir/bad.pem"

# The firewall comes first, so a namespace never has a moment unfiltered.
nft -f - <<EOF || die "nft could not load table inet $table"
table inet $table {
	chain input {
		type filter hook input priority 0; policy accept;
		iifname { "$if_ha", "$if_hb" } ct state established,related accept
		iifname { "$if_ha", "$if_hb" } drop
	}
	chain forward {
		type filter hook forward priority 0; policy accept;
		iifname { "$if_ha", "$if_hb" } drop
		oifname { "$if_ha", "$if_hb" } drop
	}
}
EOF

# veth NS HOSTIF NSIF: a pair with no IPv6, so the link is silent until
# a test talks on it.
veth() {
	ip netns add "$1" || die "cannot add namespace $1"
	ip link add "$2" type veth peer name "$3" netns "$1" ||
	    die "cannot add veth $2"
	if [ -e "/proc/sys/net/ipv6/conf/$2/disable_ipv6" ]; then
		echo 1 >"/proc/sys/net/ipv6/conf/$2/disable_ipv6"
		ip netns exec "$1" sh -c \
		    "echo 1 >/proc/sys/net/ipv6/conf/$3/disable_ipv6" ||
		    die "cannot turn IPv6 off on $3"
	fi
	ip -n "$1" link set lo up || die "cannot bring lo up in $1"
}
veth "$ns_a" "$if_ha" "$if_na"
veth "$ns_b" "$if_hb" "$if_nb"
ip addr add "$host_a/29" dev "$if_ha" &&
    ip link set "$if_ha" up &&
    ip -n "$ns_a" addr add "$addr_a/29" dev "$if_na" &&
    ip -n "$ns_a" addr add "$addr_bad/29" dev "$if_na" &&
    ip -n "$ns_a" link set "$if_na" up &&
    ip addr add "$host_b/29" dev "$if_hb" &&
    ip link set "$if_hb" up &&
    ip -n "$ns_b" addr add "$addr_b/29" dev "$if_nb" &&
    ip -n "$ns_b" link set "$if_nb" up ||
    die "cannot set the addresses up"

# server NS ADDR PORT CERT LOG
server() {
	ip netns exec "$1" "$bin" --addr "$2" --port "$3" \
	    --cert "$dir/$4.pem" --key "$dir/$4.key" --log "$dir/$5" \
	    </dev/null >/dev/null 2>>"$dir/servers.err" 9>&- &
}
server "$ns_a" "$addr_a" 443 good log-a.txt
server "$ns_a" "$addr_a" 8443 good log-a8443.txt
server "$ns_a" "$addr_bad" 443 bad log-bad.txt
server "$ns_b" "$addr_b" 443 good log-b.txt

# Ready when each listens, asked of the kernel so no probe reaches a log;
# at most 60 s in all: four servers start at once, and under a loaded CI
# run (the sanitizer passes beside it) 5 s was once not enough.
i=0
for want in "$ns_a $addr_a:443" "$ns_a $addr_a:8443" \
    "$ns_a $addr_bad:443" "$ns_b $addr_b:443"; do
	until [ -n "$(ss -N "${want% *}" -Hltn "src ${want#* }")" ]; do
		if [ $i -ge 1200 ]; then
			cat "$dir/servers.err" >&2
			die "tls-host is not listening on ${want#* } after 60 s"
		fi
		sleep 0.05
		i=$((i + 1))
	done
done
for log in log-a.txt log-a8443.txt log-bad.txt log-b.txt; do
	: >"$dir/$log"
done

cat >"$dir/hosts" <<EOF
127.0.0.1 localhost
::1 localhost
$addr_a good.test www.good.test also.test other.test slow.test
$addr_bad badcert.test
$addr_b private.test
127.0.0.1 loop.test
EOF
echo "nameserver 127.0.0.1" >"$dir/resolv.conf"
: >"$dir/nsswitch.conf"
for db in passwd group shadow gshadow hosts networks protocols services \
    ethers rpc netgroup; do
	echo "$db: files" >>"$dir/nsswitch.conf"
done
chmod 0644 "$dir/hosts" "$dir/resolv.conf" "$dir/nsswitch.conf"

export BX_TESTNET_DIR="$dir"
export BX_TESTNET_ALLOW="$net.$base/30"
export BX_TESTNET_A="$addr_a"
export BX_TESTNET_BAD="$addr_bad"
export BX_TESTNET_B="$addr_b"
export BX_TESTNET_HOST_A="$host_a"
export BX_TESTNET_NS_A="$ns_a"

# Inside the private mount namespace: bind the three files and run CMD. A
# symlink is followed, so the bind covers the file it names; a symlink to
# nothing cannot be covered and is refused.
inner='
d=$1
shift
for f in hosts resolv.conf nsswitch.conf; do
	t=/etc/$f
	if [ -L "$t" ]; then
		t=$(readlink -f "$t")
		if [ -z "$t" ] || [ ! -f "$t" ]; then
			echo "testnet: /etc/$f is a symlink to a missing file" >&2
			exit 1
		fi
	fi
	mount --bind "$d/$f" "$t" || exit 1
done
exec "$@"
'
unshare --mount --propagation private -- sh -c "$inner" testnet "$dir" \
    "$@" 9>&-
