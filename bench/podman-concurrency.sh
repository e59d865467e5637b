#!/bin/sh
# podman-concurrency.sh: what four podman starts at once cost against one
# (issue 27). Each variant runs `podman run --rootfs SKELETON /usr/bin/true`
# with the flags brokerd's runner_podman.c passes (no grant binds), changed
# by the variant's flags, ROUNDS times alone and ROUNDS times as four at
# once. It prints, per variant, the median of one start alone, the median
# wall time of four started together (all four done), that over one, and
# the machine's CPU time per run in the four-at-once window (all CPUs'
# busy ticks in /proc/stat over it, divided by four: podman, conmon, runc
# and anything else that ran; on 2 CPUs, four runs that need only CPU
# take at least 4 x cpu / 2).
# It prints figures only; nothing here is a test. Run as root.
#
#	bench/podman-concurrency.sh [ROUNDS] [VARIANT...]	(default 5, all)
#	bench/podman-concurrency.sh --strace	(four at once under strace)
set -u

ROUNDS=5
case "${1:-}" in
[0-9]*) ROUNDS=$1; shift ;;
esac

TOP=$(mktemp -d /var/lib/bench-podman-XXXXXX)
# conmon's cgroups are left below the parent: remove them leaf first.
trap 'rm -rf "$TOP"; find /sys/fs/cgroup/*/bench-podman -depth -type d \
	-exec rmdir {} + 2>/dev/null' EXIT INT TERM
SKEL=$TOP/skel
mkdir -p "$SKEL"/usr "$SKEL"/etc "$SKEL"/tmp "$SKEL"/proc "$SKEL"/dev \
	"$SKEL"/sys "$SKEL"/run "$SKEL"/var/tmp
ln -s usr/bin "$SKEL"/bin
ln -s usr/lib "$SKEL"/lib
ln -s usr/lib64 "$SKEL"/lib64
N=0

# podman's global flags come before "run"; the variant's may be either.
GLOBAL_BASE="--cgroup-manager=cgroupfs"
RUN_BASE="--rm --pull=never --network=none --http-proxy=false
--env-host=false --sdnotify=ignore --no-hosts --hostname=boxmaker --read-only
--init --log-driver=passthrough --cap-drop=all
--security-opt=no-new-privileges --pids-limit=128
--ulimit=nofile=1024:1024 --ulimit=nproc=128:128
--cgroup-parent=/bench-podman --timeout=70 -v /usr:/usr:ro
--tmpfs=/tmp:rw,nosuid,nodev,notmpcopyup,size=524288k,mode=1777
--tmpfs=/run:rw,nosuid,nodev,notmpcopyup,size=524288k,mode=755
--tmpfs=/var/tmp:rw,nosuid,nodev,notmpcopyup,size=524288k,mode=1777
--workdir=/"

now_ns() { date +%s%N; }
# The whole machine's busy time so far, in clock ticks (USER_HZ, 100/s).
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

# one GLOBAL RUN: one podman run, its wall time in ns on stdout.
one() {
	N=$((N + 1))
	t0=$(now_ns)
	# shellcheck disable=SC2086
	podman $1 run $2 --name="bench-pc-$$-$N-$3" --rootfs "$SKEL" \
		/usr/bin/true </dev/null >/dev/null 2>>"$TOP/err" ||
		echo "failed: podman $1 run $2" >>"$TOP/failed"
	echo $(($(now_ns) - t0))
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# variant NAME GLOBAL RUN: ROUNDS alone, then ROUNDS of four at once.
variant() {
	: >"$TOP/alone"
	: >"$TOP/four"
	: >"$TOP/busy"
	rm -f "$TOP/failed"
	one "$2" "$3" w >/dev/null	# warm the page cache for this variant
	i=0
	while [ $i -lt "$ROUNDS" ]; do
		one "$2" "$3" a >>"$TOP/alone"
		b0=$(busy_ticks)
		t0=$(now_ns)
		for j in 1 2 3 4; do one "$2" "$3" "c$j" >/dev/null & done
		wait
		echo $(($(now_ns) - t0)) >>"$TOP/four"
		echo $(($(busy_ticks) - b0)) >>"$TOP/busy"
		i=$((i + 1))
	done
	a=$(median <"$TOP/alone")
	f=$(median <"$TOP/four")
	b=$(median <"$TOP/busy")
	if [ -e "$TOP/failed" ]; then
		printf '%-28s failed: %s\n' "$1" "$(tail -n 1 "$TOP/err")"
		return
	fi
	awk -v n="$1" -v a="$a" -v f="$f" -v b="$b" 'BEGIN { printf "%-28s alone %4.0f ms  four at once %4.0f ms  x%.2f  cpu %3.0f ms/run\n", n, a / 1e6, f / 1e6, f / a, b * 10 / 4 }'
}

# Four at once under strace: the lock and sync calls, and how long each took.
strace_four() {
	for j in 1 2 3 4; do
		# shellcheck disable=SC2086
		strace -f -T -tt -o "$TOP/trace.$j" \
			-e trace=flock,fcntl,fsync,fdatasync,sync_file_range \
			podman $GLOBAL_BASE run $RUN_BASE --name="bench-pc-$$-s$j" \
			--rootfs "$SKEL" /usr/bin/true </dev/null >/dev/null 2>&1 &
	done
	wait
	echo "calls per podman run (four at once), by kind:"
	cat "$TOP"/trace.* | grep -oE '(flock|fcntl|fsync|fdatasync)\([^)]*' |
		sed -E 's/\(([0-9]+), /(FD, /; s/\{.*//' | sort | uniq -c |
		awk '{ $1 = $1 / 4; print }'
	echo "seconds inside those calls per podman run (four at once), by kind:"
	cat "$TOP"/trace.* | grep -oE '(flock|fcntl|fsync|fdatasync)\(.*<[0-9.]+>' |
		awk '{ k = $1; sub(/\(.*/, "", k); if (k == "fcntl") k = k " " $2;
			sub(/,$/, "", k); t = $NF; gsub(/[<>]/, "", t); s[k] += t }
			END { for (k in s) printf "%8.4f %s\n", s[k] / 4, k }' |
		sort -rn
	echo "the slowest 15 of those calls (seconds inside the call):"
	cat "$TOP"/trace.* | grep -E 'flock|fcntl|fsync|fdatasync' |
		grep -oE '(flock|fcntl|fsync|fdatasync)\(.*<[0-9.]+>' |
		awk -F'<' '{ print $NF, $0 }' | sort -rn | head -n 15 |
		cut -c1-160
}

if [ "${1:-}" = "--strace" ]; then
	strace_four
	exit 0
fi

run_variant() {
	case "$1" in
	base) variant base "$GLOBAL_BASE" "$RUN_BASE" ;;
	systemd) variant cgroup-manager=systemd --cgroup-manager=systemd \
		"$(echo "$RUN_BASE" | sed 's|--cgroup-parent=/bench-podman|--cgroup-parent=bench.slice|')" ;;
	log-none) variant log-driver=none "$GLOBAL_BASE" \
		"$(echo "$RUN_BASE" | sed 's/--log-driver=passthrough/--log-driver=none/')" ;;
	log-k8s) variant log-driver=k8s-file "$GLOBAL_BASE" \
		"$(echo "$RUN_BASE" | sed 's/--log-driver=passthrough/--log-driver=k8s-file/')" ;;
	events-none) variant events-backend=none "$GLOBAL_BASE --events-backend=none" "$RUN_BASE" ;;
	events-file) variant events-backend=file "$GLOBAL_BASE --events-backend=file" "$RUN_BASE" ;;
	net-host) variant network=host "$GLOBAL_BASE" \
		"$(echo "$RUN_BASE" | sed 's/--network=none/--network=host/')" ;;
	no-pull-flag) variant "no --pull=never" "$GLOBAL_BASE" \
		"$(echo "$RUN_BASE" | sed 's/--pull=never//')" ;;
	vfs) variant storage-driver=vfs "$GLOBAL_BASE --storage-driver=vfs" "$RUN_BASE" ;;
	overlay-nodev) variant "overlay mountopt=nodev" \
		"$GLOBAL_BASE --storage-opt=overlay.mountopt=nodev" "$RUN_BASE" ;;
	runc) variant runtime=runc "$GLOBAL_BASE --runtime=runc" "$RUN_BASE" ;;
	hosts) variant "without --no-hosts" "$GLOBAL_BASE" \
		"$(echo "$RUN_BASE" | sed 's/--no-hosts//')" ;;
	tmpdir) mkdir -p /dev/shm/bench-podman-tmp
		variant tmpdir=/dev/shm "$GLOBAL_BASE --tmpdir=/dev/shm/bench-podman-tmp" "$RUN_BASE"
		;;
	no-init) variant "without --init" "$GLOBAL_BASE" \
		"$(echo "$RUN_BASE" | sed 's/--init//')" ;;
	no-parent) variant "without --cgroup-parent" "$GLOBAL_BASE" \
		"$(echo "$RUN_BASE" | sed 's|--cgroup-parent=/bench-podman||')" ;;
	cgroups-disabled) variant "--cgroups=disabled" "$GLOBAL_BASE" \
		"$(echo "$RUN_BASE" | sed 's|--cgroup-parent=/bench-podman|--cgroups=disabled|; s|--pids-limit=128||')" ;;
	root-tmpfs) variant "--root,--runroot on tmpfs" \
		"$GLOBAL_BASE --root=/dev/shm/bench-podman-root --runroot=/dev/shm/bench-podman-run" "$RUN_BASE" ;;
	root-tmpfs-vfs) variant "tmpfs root, vfs driver" \
		"$GLOBAL_BASE --root=/dev/shm/bench-podman-root2 --runroot=/dev/shm/bench-podman-run2 --storage-driver=vfs" "$RUN_BASE" ;;
	combined) variant "events=none,tmpdir,log=none" \
		"$GLOBAL_BASE --events-backend=none --tmpdir=/dev/shm/bench-podman-tmp" \
		"$(echo "$RUN_BASE" | sed 's/--log-driver=passthrough/--log-driver=none/')" ;;
	*) echo "unknown variant $1" >&2 ;;
	esac
}

echo "podman-concurrency: $ROUNDS rounds each; load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ $# -eq 0 ]; then
	set -- base systemd log-none log-k8s events-none events-file net-host \
		no-pull-flag vfs overlay-nodev runc hosts tmpdir no-init \
		no-parent cgroups-disabled root-tmpfs root-tmpfs-vfs combined \
		base
fi
mkdir -p /dev/shm/bench-podman-tmp
for v in "$@"; do
	run_variant "$v"
done
rm -rf /dev/shm/bench-podman-tmp /dev/shm/bench-podman-root* /dev/shm/bench-podman-run*
