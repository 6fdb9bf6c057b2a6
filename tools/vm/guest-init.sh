#!/bin/sh
# PID 1 of the test guest: mount the basics, run $MROCE_SCRIPT, report its
# exit status through the writable share, and leave QEMU (-no-reboot).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
# devtmpfs lacks these; bash process substitution needs /dev/fd.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
# Writable scratch over the read-only root, except where the test itself
# lives (a clone under /tmp must stay visible): then TMPDIR points to /run.
for d in /tmp /var/tmp /var/log; do
	case $MROCE_SCRIPT in
	"$d"/*) mkdir -p /run/tmp && export TMPDIR=/run/tmp ;;
	*) mount -t tmpfs tmpfs "$d" ;;
	esac
done
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /mnt/out 2>/dev/null || true
# /mnt is on the read-only root: put the results share on a tmpfs mountpoint.
mount -t tmpfs tmpfs /mnt
mkdir -p /mnt/out
mount -t 9p -o trans=virtio,version=9p2000.L out /mnt/out
mkdir -p /mnt/shared
mount -t 9p -o trans=virtio,version=9p2000.L shared /mnt/shared 2>/dev/null ||
	rmdir /mnt/shared
hostname guest
ip link set lo up
export OUT=/mnt/out HOME=/tmp
echo "guest-init: running $MROCE_SCRIPT"
sh -c "$MROCE_SCRIPT" >/mnt/out/guest.log 2>&1
rc=$?
echo "guest-init: script exited $rc"
echo $rc >/mnt/out/status
sync
reboot -f
