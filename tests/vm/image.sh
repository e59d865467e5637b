#!/bin/bash
# tests/vm/image.sh: builds, once, the Debian 12 (bookworm) disk image that
# `make check-vm` boots under qemu as an owner's machine: systemd on cgroup
# v2, podman and bubblewrap, an owner user (uid 1000) with lingering on,
# and a oneshot unit that runs the test disk's guest.sh at boot and powers
# off after. Needs root (debootstrap, chroot).
#
#   tests/vm/image.sh        prints the image's directory on stdout (the
#                            progress goes to stderr): disk.img (raw ext4),
#                            vmlinuz, initrd.img
#
# The image lives outside the checkout, in $BOXMAKER_VM_CACHE (default
# /var/cache/boxmaker-vm), in a directory named by a hash of the package
# lists and of this file, so an edit here builds a new one. It is built in a
# temporary directory and renamed into place only when complete, so an
# interrupted build is never used. Bash: arrays and pipefail.
set -euo pipefail

cache=${BOXMAKER_VM_CACHE:-/var/cache/boxmaker-vm}
suite=bookworm
owner=owner

# What debootstrap installs. minbase plus what an owner's systemd machine
# has (logind, a user manager, a user D-Bus) and the kernel to boot.
# sudo: the README's quick start may have root lines (sudo ...), which the
# guest runs as written. curl: http_fetch runs /usr/bin/curl in its
# sandbox; an owner who built Boxmaker has it (scripts/install-deps.sh).
# nftables: the firewall of tests/egress/testnet.sh, the test network the
# secret check's HTTPS host runs in (openssl, its other need beside
# iproute2 and util-linux, comes with ca-certificates).
base_packages=(systemd systemd-sysv udev dbus dbus-user-session
	linux-image-amd64 kmod e2fsprogs procps iproute2 ca-certificates sudo
	curl libjansson4 libssl3 libcurl4 libseccomp2 libacl1 libedit2 nftables)
# What apt-get installs in the chroot after debootstrap: the sandbox
# runtimes. Not through debootstrap, which cannot resolve podman's virtual
# dependency container-network-stack and fails half way (measured on
# bookworm); apt-get resolves it, and containernetworking-plugins and
# iptables are named so that it picks that provider.
runtime_packages=(podman bubblewrap uidmap runc crun catatonit conmon
	containernetworking-plugins iptables)

say() {
	echo "image.sh: $*" >&2
}

# die TEXT: the reason, and the end of the build's log when there is one.
die() {
	echo "image.sh: $*" >&2
	if [ -s "${log:-}" ]; then
		echo "image.sh: the last lines of $log:" >&2
		tail -n 40 "$log" >&2
	fi
	exit 1
}

# The key: a hash of both package lists and of this script's text.
image_key() {
	{
		echo "${base_packages[*]}"
		echo "${runtime_packages[*]}"
		cat "${BASH_SOURCE[0]}"
	} | sha256sum | cut -c1-16
}

# The bookworm mirror from the host's deb822 sources (the stanza whose
# Suites has bookworm itself, not bookworm-security).
find_mirror() {
	local src=/etc/apt/sources.list.d/debian.sources
	[ -r "$src" ] || die "no $src to take the mirror from"
	awk -v suite="$suite" '
		/^$/ { uri = ""; ok = 0 }
		/^URIs:/ { uri = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) ok = 1 }
		uri != "" && ok { print uri; exit }
	' "$src"
}

# in_root CMD...: runs CMD in the chroot being built, without a network
# of services: policy-rc.d keeps package scripts from starting daemons.
in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"
}

mount_pseudo() {
	mount -t proc proc "$root/proc"
	mounted="$root/proc"
	mount -t sysfs sysfs "$root/sys"
	mounted="$root/sys $mounted"
	# apt-get logs through a pseudo-terminal.
	mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
	mounted="$root/dev/pts $mounted"
}

# Unmounts before anything is removed: rm -rf must never walk into /proc
# or /sys of the host.
umount_pseudo() {
	local m
	for m in ${mounted:-}; do
		umount "$m" || umount -l "$m" || true
	done
	mounted=""
}

cleanup() {
	umount_pseudo
	if [ -n "${work:-}" ] && [ -d "$work" ]; then
		rm -rf --one-file-system "$work"
	fi
}

bootstrap() {
	local mirror
	mirror=$(find_mirror)
	[ -n "$mirror" ] || die "no $suite mirror in /etc/apt/sources.list.d/debian.sources"
	say "debootstrap $suite from $mirror (a few minutes; output in $log)"
	local IFS=,
	debootstrap --variant=minbase --include="${base_packages[*]}" \
		"$suite" "$root" "$mirror" >> "$log" 2>&1 || {
		cat "$root/debootstrap/debootstrap.log" >> "$log" 2> /dev/null
		die "debootstrap failed"
	}
}

install_runtimes() {
	say "apt-get install ${runtime_packages[*]}"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	mount_pseudo
	in_root apt-get update >> "$log" 2>&1 || die "apt-get update failed"
	in_root apt-get install -y --no-install-recommends \
		"${runtime_packages[@]}" >> "$log" 2>&1 || die "apt-get install failed"
	# Whatever debootstrap left half configured.
	in_root apt-get --fix-broken install -y >> "$log" 2>&1 ||
		die "apt-get --fix-broken install failed"
	in_root apt-get clean
	umount_pseudo
	rm -f "$root/usr/sbin/policy-rc.d"
	: > "$root/etc/resolv.conf"
	rm -rf "$root"/var/lib/apt/lists/*
}

make_owner() {
	in_root useradd -m -u 1000 -s /bin/bash "$owner"
	# Rootless podman needs subordinate ids; useradd gives them when
	# /etc/subuid exists, so make sure of both.
	grep -q "^$owner:" "$root/etc/subuid" ||
		in_root usermod --add-subuids 100000-165535 \
			--add-subgids 100000-165535 "$owner"
	grep -q "^$owner:" "$root/etc/subuid" || die "no subuid range for $owner"
	grep -q "^$owner:" "$root/etc/subgid" || die "no subgid range for $owner"
	# An owner's machine lets its owner use sudo; no password in a test VM.
	echo "$owner ALL=(ALL) NOPASSWD: ALL" > "$root/etc/sudoers.d/$owner"
	chmod 440 "$root/etc/sudoers.d/$owner"
	# Lingering: user@1000.service (the owner's systemd) starts at boot.
	mkdir -p "$root/var/lib/systemd/linger"
	touch "$root/var/lib/systemd/linger/$owner"
}

configure_system() {
	echo boxmaker-vm > "$root/etc/hostname"
	printf '127.0.0.1 localhost\n127.0.1.1 boxmaker-vm\n' > "$root/etc/hosts"
	echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' > "$root/etc/fstab"
	in_root passwd -d root >/dev/null
	make_owner
	# No network in the VM: apt's timers would only fail.
	in_root systemctl mask apt-daily.timer apt-daily-upgrade.timer \
		e2scrub_all.timer fstrim.timer >/dev/null 2>&1 || true
	install_test_unit
}

# The unit that drives the guest: mounts the test disk, runs its guest.sh
# with the output on that disk, and powers off whatever happened, so that
# qemu (-no-reboot) exits.
install_test_unit() {
	cat > "$root/usr/local/sbin/boxmaker-vmtest" <<'EOF'
#!/bin/sh
# Runs the test disk's guest.sh, then powers off. Installed by
# boxmaker's tests/vm/image.sh.
mkdir -p /mnt/vmtest
if mount /dev/vdb /mnt/vmtest; then
	mkdir -p /mnt/vmtest/out
	echo "boxmaker-vmtest: running guest.sh" > /dev/console
	/mnt/vmtest/guest.sh > /mnt/vmtest/out/guest.log 2>&1
	echo "guest.sh exited $?" > /mnt/vmtest/out/exit-status
	echo "boxmaker-vmtest: guest.sh ended" > /dev/console
	journalctl -b --no-pager > /mnt/vmtest/out/journal.txt 2>&1
	sync
	umount /mnt/vmtest
else
	echo "boxmaker-vmtest: cannot mount /dev/vdb" > /dev/console
fi
systemctl --no-block poweroff
EOF
	chmod 755 "$root/usr/local/sbin/boxmaker-vmtest"
	cat > "$root/etc/systemd/system/boxmaker-vmtest.service" <<'EOF'
[Unit]
Description=Boxmaker VM test (tests/vm/guest.sh from /dev/vdb)
After=multi-user.target user@1000.service
Wants=user@1000.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/boxmaker-vmtest
StandardOutput=journal+console
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
EOF
	in_root systemctl enable boxmaker-vmtest.service >> "$log" 2>&1
}

# The kernel and initrd sit beside the image: qemu boots them directly.
extract_kernel() {
	local k i
	k=$(find "$root/boot" -name 'vmlinuz-*' | sort -V | tail -n 1)
	i=$(find "$root/boot" -name 'initrd.img-*' | sort -V | tail -n 1)
	if [ ! -f "$k" ] || [ ! -f "$i" ]; then
		die "no kernel or initrd in $root/boot"
	fi
	cp "$k" "$work/vmlinuz"
	cp "$i" "$work/initrd.img"
}

make_disk() {
	say "mkfs.ext4 -d (4 GiB, sparse)"
	truncate -s 4G "$work/disk.img"
	mkfs.ext4 -q -L boxmaker-vm -d "$root" "$work/disk.img"
}

main() {
	[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot)"
	local key dir
	key=$(image_key)
	dir=$cache/$suite-$key
	if [ -f "$dir/disk.img" ]; then
		echo "$dir"
		return
	fi
	mkdir -p "$cache"
	# One build at a time; a second caller waits and then finds it made.
	exec 9> "$cache/lock"
	flock 9
	if [ -f "$dir/disk.img" ]; then
		echo "$dir"
		return
	fi
	# The build's output: long, so kept out of make check-vm's.
	log=$cache/image-build.log
	: > "$log"
	work=$(mktemp -d "$cache/tmp.XXXXXX")
	trap cleanup EXIT
	# A signal exits through the EXIT trap: unmount, remove the half build.
	trap 'exit 130' INT TERM HUP
	root=$work/root
	mkdir "$root"
	local t0=$SECONDS
	bootstrap
	install_runtimes
	configure_system
	extract_kernel
	make_disk
	rm -rf --one-file-system "$root"
	mv "$work" "$dir"
	work=""
	say "built $dir in $((SECONDS - t0)) s"
	# Older images (other keys) and leftovers of interrupted builds.
	local old
	for old in "$cache"/"$suite"-* "$cache"/tmp.*; do
		[ "$old" = "$dir" ] || [ ! -d "$old" ] || rm -rf --one-file-system "$old"
	done
	echo "$dir"
}

main "$@"
