#!/bin/bash
# Boot the test kernel under QEMU with the host's root shared read-only and
# run one guest script in it.
#
# usage: run-vm.sh -k BZIMAGE -s SCRIPT -o OUTDIR [-t TIMEOUT_S] [-m MEM_MB]
#                  [-n listen:ADDR|connect:ADDR] [-a MAC] [-S SHAREDIR]
#                  [-e VAR=VALUE]...
#
# SCRIPT runs as root in the guest (see guest-init.sh) with OUT=/mnt/out, a
# writable 9p share of OUTDIR. The guest writes its exit status to
# OUTDIR/status; this script exits with it. The console goes to
# OUTDIR/console.log; on a hang the guest is killed after TIMEOUT_S and the
# console tail printed. -S adds a writable share at /mnt/shared, which two
# guests of a pair use to wait for each other. -n joins eth0 to another
# guest's: ADDR is a TCP port on loopback, or the path of a UNIX socket.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel="" script="" out="" timeout=600 mem=1024 net="" mac="52:54:00:12:34:56"
shared=""
extra_env=()
while getopts "k:s:o:t:m:n:a:S:e:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	s) script=$OPTARG ;;
	o) out=$OPTARG ;;
	t) timeout=$OPTARG ;;
	m) mem=$OPTARG ;;
	n) net=$OPTARG ;;
	a) mac=$OPTARG ;;
	S) shared=$OPTARG ;;
	e) extra_env+=("$OPTARG") ;;
	*) echo "usage: see $0" >&2; exit 2 ;;
	esac
done
[ -f "$kernel" ] && [ -f "$script" ] && [ -n "$out" ] ||
	{ echo "run-vm: need -k BZIMAGE -s SCRIPT -o OUTDIR" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
script=$(cd "$(dirname "$script")" && pwd)/$(basename "$script")
rm -f "$out/status" "$out/console.log"

netargs=(-nic none)
if [ -n "$net" ]; then
	case ${net#*:} in
	/*)	[ "${net%%:*}" = listen ] && server=on || server=off
		netargs=(-netdev "stream,id=n0,server=$server,addr.type=unix,addr.path=${net#*:}") ;;
	*)	netargs=(-netdev "socket,id=n0,${net/:/=127.0.0.1:}") ;;
	esac
	netargs+=(-device "virtio-net-pci,netdev=n0,mac=$mac")
fi

# Under TCG the guest's TSC is the host's, but the test kernel cannot
# calibrate it (no PIT/HPET reference) and falls back to jiffies as its
# clock, which loses ticks when the vCPU is starved: guest time ran 20-40%
# slow, stretching every timer and inflating every measured rate. Tell
# the guest the host's TSC rate (measured once, kept in build/).
tsc_khz() {
	local tool=$here/../../build/tsc-mhz khz=$here/../../build/tsc-khz
	# Two guests of a pair may boot at once: each works on its own files.
	if [ ! -s "$khz" ]; then
		mkdir -p "$(dirname "$tool")"
		cc -O2 -Wall -o "$tool.$$" "$here/../bench/tsc-mhz.c" &&
			"$tool.$$" | awk '{ printf "%d\n", $1 * 1000 }' >"$khz.$$" &&
			mv "$khz.$$" "$khz"
		rm -f "$tool.$$"
	fi
	cat "$khz"
}

# Unknown key=value kernel parameters reach init as environment variables.
append="console=ttyS0 panic=-1 oops=panic root=/dev/root rootfstype=9p"
append+=" rootflags=trans=virtio,version=9p2000.L,cache=loose ro"
append+=" init=$here/guest-init.sh MROCE_SCRIPT=$script"
# METAROCE_GUEST_TSC=0 leaves the guest on jiffies: the debug kernel,
# told the TSC rate, now and then takes a KASAN report (wild access in
# rcu_is_watching from an interrupt during identify_cpu) early in boot.
if [ "${METAROCE_KVM:-0}" != 1 ] && [ "${METAROCE_GUEST_TSC:-1}" = 1 ]; then
	append+=" tsc_early_khz=$(tsc_khz) tsc=reliable"
fi
for kv in "${extra_env[@]}"; do
	append+=" $kv"
done

shareargs=()
if [ -n "$shared" ]; then
	mkdir -p "$shared"
	shareargs=(-fsdev "local,id=shared,path=$(cd "$shared" && pwd),security_model=none"
		   -device virtio-9p-pci,fsdev=shared,mount_tag=shared)
fi

accel="tcg,thread=multi"
[ "${METAROCE_KVM:-0}" = 1 ] && accel=kvm

set +e
timeout --signal=KILL "$timeout" qemu-system-x86_64 \
	-machine pc -accel "$accel" -cpu max -smp 1 -m "$mem" \
	-nodefaults -no-reboot -display none -monitor none \
	-serial "file:$out/console.log" \
	-kernel "$kernel" -append "$append" \
	-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \
	-fsdev local,id=out,path="$out",security_model=none \
	-device virtio-9p-pci,fsdev=out,mount_tag=out \
	"${shareargs[@]}" "${netargs[@]}" </dev/null >"$out/qemu.log" 2>&1
rc=$?
set -e
if [ $rc = 137 ]; then
	echo "run-vm: guest timed out after ${timeout}s; console tail:" >&2
	tail -40 "$out/console.log" >&2
	exit 124
fi
if [ ! -f "$out/status" ]; then
	echo "run-vm: guest died without a status (qemu rc $rc); console tail:" >&2
	tail -40 "$out/console.log" >&2
	cat "$out/qemu.log" >&2
	exit 125
fi
exit "$(cat "$out/status")"
