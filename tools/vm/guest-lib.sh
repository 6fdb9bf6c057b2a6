#!/bin/bash
# Helpers sourced by guest test scripts. Expects REPO and KDIR in the
# environment (run-vm.sh passes them on the kernel command line) and OUT.
#
# Results are TAP lines in $OUT/results.tap, one per check.

: "${OUT:=/tmp}" "${REPO:?}" "${KDIR:?}"
export RDMAV_DRIVERS=$REPO/userspace-provider/build/libmetaroce
TAP=$OUT/results.tap
_tap_n=0
: >"$TAP"

ok()   { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*" | tee -a "$TAP"; }
fail() { _tap_n=$((_tap_n + 1)); echo "not ok $_tap_n - $*" | tee -a "$TAP"; }

# check DESC CMD...: one TAP line from a command's exit status.
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else fail "$desc"; fi
}

# ns NETNS CMD...: run CMD in a network namespace.
ns() { local n=$1; shift; ip netns exec "$n" "$@"; }

# one_host NETNS ADDR/PREFIX: a namespace holding one end (v1) of a veth
# pair with ADDR, the other end up in init_net, and lo up (traffic between
# two QPs of one device loops through it).
one_host() {
	ip netns add "$1"
	ip link add v1 netns "$1" type veth peer name v2
	ns "$1" ip addr add "$2" dev v1
	ns "$1" ip link set v1 up
	ns "$1" ip link set lo up
	ip link set v2 up
}

# wait_for SECONDS CMD...: poll until CMD succeeds.
wait_for() {
	local t=$(($1 * 10))
	shift
	while [ $t -gt 0 ]; do
		"$@" 2>/dev/null && return 0
		sleep 0.1
		t=$((t - 1))
	done
	return 1
}

# Make modprobe (and so request_module autoloading) work for the test kernel:
# a tmpfs /lib/modules/<version> holding its modules and ours, then depmod.
setup_modules() {
	local ver dir
	ver=$(uname -r)
	mount -t tmpfs tmpfs /usr/lib/modules
	dir=/usr/lib/modules/$ver/kernel
	mkdir -p "$dir/extra"
	(cd "$KDIR" && find . -name '*.ko' -exec cp --parents {} "$dir/" \;)
	# MODDIR: where our modules were built for this kernel (default REPO).
	cp "${MODDIR:-$REPO}"/drivers/infiniband/sw/metaroce/rdma_metaroce.ko "$dir/extra/"
	[ -f "${MODDIR:-$REPO}/kunit/metaroce_kunit.ko" ] &&
		cp "${MODDIR:-$REPO}/kunit/metaroce_kunit.ko" "$dir/extra/"
	cp "$KDIR/modules.order" "$KDIR/modules.builtin" /usr/lib/modules/$ver/ 2>/dev/null
	cp "$KDIR/modules.builtin.modinfo" /usr/lib/modules/$ver/ 2>/dev/null
	depmod -a "$ver"
	kmemleak_clear
}

# Load the ib stack the way a distribution would: by name, with dependencies.
load_ib_core() {
	modprobe ib_uverbs && modprobe rdma_ucm
}

# counter DEV NAME: one "rdma statistic" counter of port 1.
counter() {
	rdma statistic show link "$1"/1 | tr ' ' '\n' | grep -A1 -x "$2" | tail -1
}
counter_is() { [ "$(counter "$1" "$2")" -eq "$3" ]; }
counter_ge() { [ "$(counter "$1" "$2")" -ge "$3" ]; }

# send_udp ADDR HEXBYTES: one datagram to the MetaRoCE port of ADDR.
send_udp() { "$REPO/tools/vm/send-udp" "$@"; }

# The spec's Appendix A packet (protocol.rst): a valid SEND_IMM, 904 bytes of
# payload, addressed to a QP that does not exist.
APPENDIX_A="0102001c0a00000500000123010203040000001122334455000000090000100000001388deadbeef$(printf '%01808d' 0)"

# gid_index DEV IPV4: the RoCEv2 GID table index holding IPV4 (v4-mapped).
gid_index() {
	local hex i
	hex=$(printf '%02x%02x:%02x%02x' $(echo "$2" | tr . ' '))
	for i in $(seq 0 15); do
		if grep -q "0000:0000:0000:0000:0000:ffff:$hex" \
			"/sys/class/infiniband/$1/ports/1/gids/$i" 2>/dev/null &&
		   grep -q "RoCE v2" "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2>/dev/null; then
			echo "$i"
			return 0
		fi
	done
	return 1
}

# run_tap NAME CMD...: run a program that prints TAP and fold its lines
# into ours; succeeds when it exited 0.
run_tap() {
	local name=$1 rc line
	shift
	"$@" >"$OUT/$name.tap" 2>"$OUT/$name.err"
	rc=$?
	cat "$OUT/$name.err"
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "$name: ${line#ok * - }" ;;
		"not ok "*) fail "$name: ${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$OUT/$name.tap"
	[ "$rc" = 0 ] || echo "# $name exited with $rc"
	[ "$rc" = 0 ]
}

kmemleak_enabled() { [ -w /sys/kernel/debug/kmemleak ]; }

# Forget what boot left behind, so a later report is the test's doing.
kmemleak_clear() {
	kmemleak_enabled || return 0
	echo scan >/sys/kernel/debug/kmemleak
	echo clear >/sys/kernel/debug/kmemleak
}

# Scan for leaks; prints any leak report. Succeeds when there is none.
kmemleak_clean() {
	kmemleak_enabled || return 0
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	local rep
	rep=$(cat /sys/kernel/debug/kmemleak)
	[ -z "$rep" ] && return 0
	echo "$rep" | head -60
	return 1
}

# Succeeds when the kernel log shows no warning, oops or refcount trouble.
dmesg_clean() {
	! dmesg | grep -E "WARNING:|BUG:|Oops|refcount_t|unregister_netdevice: waiting|KASAN|possible circular|inconsistent lock|sleeping function called"
}

tap_summary() {
	local p f
	p=$(grep -c '^ok ' "$TAP")
	f=$(grep -c '^not ok ' "$TAP")
	echo "guest: $p passed, $f failed"
	[ "$f" = 0 ]
}
