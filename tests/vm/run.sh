#!/bin/bash
# tests/vm/run.sh: `make check-vm`. Boxmaker on an owner's machine: a
# Debian 12 VM under qemu (TCG, no KVM needed) with systemd on cgroup v2,
# where the owner, uid 1000, runs brokerd and loopd as systemd user units.
#
#   tests/vm/run.sh              (as root, from anywhere in the checkout)
#
# It builds the project into $BOXMAKER_VM_BUILD (default build-vm),
# installs it into a staging tree (make install DESTDIR=… PREFIX=/usr/local),
# puts that tree, tests/vm/guest.sh, fake-llama, the demo's scripts and the
# egress tests' test network (tests/egress: testnet.sh, tls-host) on a
# small second disk, boots the cached image (tests/vm/image.sh) through a throwaway
# qcow2 overlay, and lets the guest run guest.sh and power off. Then it
# reads the guest's results back from the second disk (debugfs, no loop
# mount), prints the guest's log and ends with "N passed, N failed". Exit 1
# on any failure, when the guest leaves no result, or when the VM outlives
# BOXMAKER_VM_TIMEOUT_S (default 2400 s; qemu is killed then).
# Bash: pipefail and $SECONDS.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BOXMAKER_VM_BUILD:-build-vm}
limit_s=${BOXMAKER_VM_TIMEOUT_S:-2400}

say() {
	printf '\n==> %s\n' "$*"
}

die() {
	echo "check-vm: $*" >&2
	exit 1
}

need_tools() {
	local t
	[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap and chroot build the image)"
	for t in qemu-system-x86_64 qemu-img debootstrap mkfs.ext4 debugfs; do
		command -v "$t" > /dev/null ||
			die "$t is missing: scripts/install-deps.sh --vm installs it"
	done
}

# build_and_stage: the project built as CI builds it, installed as an owner
# would (make install), into $work/disk/stage.
build_and_stage() {
	say "make BUILD=$build all; make install DESTDIR=… PREFIX=/usr/local"
	make -C "$top" BUILD="$build" all > "$work/build.log" 2>&1 ||
		{ tail -n 40 "$work/build.log"; die "the build failed ($work/build.log)"; }
	make -C "$top" BUILD="$build" install DESTDIR="$work/disk/stage" \
		PREFIX=/usr/local >> "$work/build.log" 2>&1 ||
		{ tail -n 40 "$work/build.log"; die "make install failed ($work/build.log)"; }
}

# fill_disk: what the guest needs besides the installed tree: guest.sh,
# fake-llama (a test program, never installed), and a copy of the
# checkout's files (the README whose quick start the guest follows,
# scripts/demo.sh) with the programs demo.sh wants in src/build.
fill_disk() {
	local d=$work/disk b=$top/$build p
	install -m 755 "$here/guest.sh" "$d/guest.sh"
	mkdir -p "$d/bin" "$d/src/build" "$d/out"
	install -m 755 "$b/tests/fake-llama/fake-llama" "$d/bin/fake-llama"
	install -m 755 "$b/bench/bench-runner-call" "$d/bin/bench-runner-call"
	# The secret check's test network (tests/egress): the HTTPS host that
	# logs the headers it gets and echoes them, and the script that makes
	# the network namespaces, the firewall and the test CA and runs it.
	install -m 755 "$b/tests/egress/tls-host" "$d/bin/tls-host"
	install -m 755 "$top/tests/egress/testnet.sh" "$d/bin/testnet.sh"
	# The bridge check's fake Mattermost server, on the guest's loopback.
	install -m 755 "$b/tests/bxbridge/fake-mattermost/fake-mattermost" \
		"$d/bin/fake-mattermost"
	# The jail suite, run by the owner there: its attacker where the test
	# looks for it (BX_BUILD_ROOT), and cmocka, which the image lacks.
	mkdir -p "$d/jailtest/tests/jail" "$d/lib"
	install -m 755 "$b/tests/jail/test-jail" "$b/tests/jail/jail-attacker" \
		"$d/jailtest/tests/jail/"
	install -m 644 "$(readlink -f /usr/lib/x86_64-linux-gnu/libcmocka.so.0)" \
		"$d/lib/libcmocka.so.0"
	if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
		# The tracked files as they are in the working tree.
		(cd "$top" && git ls-files -z | tar --null -T - --ignore-failed-read -cf -) |
			tar -xf - -C "$d/src"
	else
		cp -a "$top/README.md" "$top/scripts" "$top/examples" "$d/src/"
	fi
	for p in src/brokerd/brokerd src/loopd/loopd src/bxctl/bxctl \
		tests/fake-llama/fake-llama; do
		install -m 755 "$b/$p" "$d/src/build/${p##*/}"
	done
}

# The guest writes its results into out/ on this disk; 1 GiB, sparse.
make_test_disk() {
	truncate -s 1G "$work/test.img"
	mkfs.ext4 -q -L vmtest -d "$work/disk" "$work/test.img"
}

# boot IMAGE_DIR: one boot; the guest powers off when guest.sh is done.
# Returns 124 when the limit killed qemu.
boot() {
	local img=$1 rc=0
	qemu-img create -q -f qcow2 -b "$img/disk.img" -F raw "$work/overlay.qcow2"
	say "booting the VM (TCG; limit ${limit_s} s); serial log: $work/serial.log"
	# In the background and waited for, so that an interrupt reaches
	# on_signal at once (timeout puts qemu in a process group of its own,
	# out of the terminal's reach).
	timeout -k 30 "$limit_s" qemu-system-x86_64 -accel tcg -m 4096 -smp 2 \
		-nographic -no-reboot -nic none \
		-kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 quiet panic=1" \
		-drive "file=$work/overlay.qcow2,format=qcow2,if=virtio" \
		-drive "file=$work/test.img,format=raw,if=virtio" \
		-serial "file:$work/serial.log" -monitor none -display none \
		< /dev/null > "$work/qemu.log" 2>&1 &
	qemu_pid=$!
	wait "$qemu_pid" || rc=$?
	qemu_pid=""
	rm -f "$work/overlay.qcow2"
	return "$rc"
}

# The guest's out/ directory, read from the ext4 image without mounting.
extract_results() {
	rm -rf "$work/out"
	debugfs -R "rdump /out $work" "$work/test.img" > /dev/null 2>&1 || true
}

no_result() {
	echo "check-vm: $*" >&2
	echo "--- the serial console's last lines ($work/serial.log):" >&2
	tail -n 60 "$work/serial.log" >&2 || true
	echo "--- qemu's own output:" >&2
	cat "$work/qemu.log" >&2 || true
	echo "0 passed, 1 failed"
	exit 1
}

# An interrupt stops the VM (timeout passes the TERM on to qemu).
on_signal() {
	if [ -n "${qemu_pid:-}" ]; then
		kill -TERM "$qemu_pid" 2> /dev/null
		wait "$qemu_pid" 2> /dev/null
	fi
	echo "check-vm: interrupted; the VM's files are in ${work:-nowhere yet}" >&2
	exit 130
}

main() {
	trap on_signal INT TERM HUP
	need_tools
	local t0=$SECONDS t img rc=0
	work=$(mktemp -d "${TMPDIR:-/tmp}/boxmaker-vm.XXXXXX")
	mkdir -p "$work/disk"
	say "the VM image (tests/vm/image.sh; built once, cached)"
	t=$SECONDS
	img=$("$here/image.sh") || die "tests/vm/image.sh failed"
	echo "  $img ($((SECONDS - t)) s)"
	t=$SECONDS
	build_and_stage
	fill_disk
	make_test_disk
	echo "  built, staged and the test disk made in $((SECONDS - t)) s"
	t=$SECONDS
	boot "$img" || rc=$?
	echo "  the VM ran $((SECONDS - t)) s (qemu exit $rc)"
	extract_results
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] ||
		echo "check-vm: the VM ran past ${limit_s} s; qemu was killed" >&2
	[ -s "$work/out/guest.log" ] || no_result "the guest left no out/guest.log"
	say "the guest's log (out/guest.log)"
	cat "$work/out/guest.log"
	[ -s "$work/out/summary" ] ||
		no_result "the guest's log has no summary: guest.sh did not finish"
	if [ -s "$work/out/figures" ]; then
		say "read_file against a bare sandbox, in the VM (out/figures)"
		cat "$work/out/figures"
	fi
	echo
	echo "check-vm: $((SECONDS - t0)) s in all; the VM's files are in $work"
	rm -f "$work/test.img"
	finish "$rc"
}

# finish QEMU_STATUS: the final line from the guest's summary; a VM that did
# not end by powering off counts as one more failure.
finish() {
	local passed failed
	read -r passed _ failed _ < "$work/out/summary"
	case "$passed$failed" in
	*[!0-9]*|"") no_result "the guest's summary is not N passed, N failed: $(cat "$work/out/summary")" ;;
	esac
	if [ "$1" -ne 0 ]; then
		echo "check-vm: qemu exited $1, not by the guest's poweroff" >&2
		failed=$((failed + 1))
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

main "$@"
