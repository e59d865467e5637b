#!/bin/sh
# Installs, with apt-get, exactly the Debian 12 packages that building and
# testing Boxmaker need. Idempotent: packages already present are left alone,
# and when nothing is missing it changes nothing and needs no root.
#
#   scripts/install-deps.sh            install what is missing
#   scripts/install-deps.sh --check    exit 0 if nothing is missing, 1 if something is
#   scripts/install-deps.sh --fuzz     also the fuzzing toolchain (clang, libFuzzer runtime, llvm-cov)
#   scripts/install-deps.sh --vm       also what make check-vm needs (qemu, debootstrap, e2fsprogs)
set -eu

# The build: compiler, Meson/Ninja, and the four libraries of baseline.md section 2.
packages="gcc libc6-dev make meson ninja-build pkg-config
libjansson-dev libssl-dev libcurl4-openssl-dev libcmocka-dev"
# The tests: python3 runs the toml-test harness and summarises results;
# strace runs brokerd with injected syscall faults (tests/reliability/).
# socat: tests/bxbridge/test-bxbridge-jail.sh sends a tool call on
# broker.sock with it, and docs/runbook.md's checks use it to reach the
# sockets, so an owner who followed the README has it when the runbook asks.
packages="$packages python3 strace socat"
# The egress tests' HTTPS host (tests/egress/tls-host) gzips the body of
# its /echo-gzip route with zlib.
packages="$packages zlib1g-dev"
# The runner (M3b): the two sandbox runtimes brokerd drives and the tests run
# for real, podman's OCI runtime and its --init (catatonit), and libseccomp
# for bwrap's filter.
packages="$packages podman runc catatonit bubblewrap libseccomp-dev"
packages="$packages curl ca-certificates openssl iproute2 nftables"
# loopd's jail (docs/decisions.md, "loopd's jail"): newuidmap and newgidmap
# give an owner's loopd a uid of its own; libacl lets the owner and the
# jail share the home's few directories that both need.
packages="$packages uidmap acl libacl1-dev"
# bxctl chat's prompt: line editing and a history (libedit).
packages="$packages libedit-dev"
# The fuzzers: clang and its runtimes (libFuzzer, the sanitizers, the
# profile runtime of the coverage build), and llvm-14 for llvm-profdata-14
# and llvm-cov-14, which scripts/run-fuzz.sh reports coverage with.
fuzz_packages="clang libclang-rt-14-dev llvm-14"
# make check-vm (tests/vm/): qemu boots a Debian 12 image that debootstrap
# builds; mkfs.ext4 -d and debugfs move files in and out without a loop mount.
vm_packages="qemu-system-x86 qemu-utils debootstrap e2fsprogs"

mode=install
for arg in "$@"; do
	case "$arg" in
	--check) mode=check ;;
	--fuzz) packages="$packages $fuzz_packages" ;;
	--vm) packages="$packages $vm_packages" ;;
	*) echo "usage: scripts/install-deps.sh [--check] [--fuzz] [--vm]" >&2; exit 2 ;;
	esac
done

missing=""
for pkg in $packages; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	case "$status" in
	"install ok installed") ;;
	*) missing="$missing $pkg" ;;
	esac
done

# As root, loopd's jail and the Mattermost bridge's each run as a system
# user of Boxmaker's own (docs/decisions.md, "loopd's jail" and "The
# bridge's jail"); bxctl init checks for them too.
jail_users="boxmaker-loop boxmaker-bridge"
missing_users=""
if [ "$(id -u)" -eq 0 ]; then
	for user in $jail_users; do
		getent passwd "$user" >/dev/null || missing_users="$missing_users $user"
	done
fi
need_user=no
[ -z "$missing_users" ] || need_user=yes
make_user() {
	for user in $missing_users; do
		useradd --system --user-group --no-create-home \
		    --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
	done
}

if [ -z "$missing" ] && [ "$need_user" = no ]; then
	exit 0
fi
if [ -z "$missing" ] && [ "$mode" = install ]; then
	make_user
	exit 0
fi
if [ "$mode" = check ]; then
	[ -z "$missing" ] || echo "missing packages:$missing" >&2
	[ "$need_user" = no ] || echo "missing users:$missing_users" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: not root; run as root:" >&2
	echo "  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Once per run of CI: make check-vm (and make fuzz) install their packages
# after the build's, and lists fetched in the last hour are fresh enough.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' \
    -mmin -60 2>/dev/null | head -n 1)" ]; then
	apt-get update
fi
# shellcheck disable=SC2086 # the list is meant to split into words
apt-get install -y --no-install-recommends $missing
make_user
