#!/bin/bash
# VM smoke test of the foundation: load, bind in two namespaces on a veth
# pair, device and port queries through Debian's ibverbs-utils, GID upkeep,
# counters, bad input, and every teardown path, with leak checks after.
. "$REPO/tools/vm/guest-lib.sh"

gids() { cat /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null; }
has_gid() { gids "$1" | grep -qi "$2"; }
no_gid() { ! has_gid "$1" "$2"; }
port_state() { cat /sys/class/infiniband/"$1"/ports/1/state; }
is_active() { port_state "$1" | grep -q ACTIVE; }
is_down() { port_state "$1" | grep -q DOWN; }
dev_exists() { [ -e /sys/class/infiniband/"$1" ]; }
dev_gone() { ! dev_exists "$1"; }
# expect_fail ERRTEXT CMD...: CMD must fail and print ERRTEXT.
expect_fail() {
	local want=$1 outp
	shift
	outp=$("$@" 2>&1) && return 1
	echo "$outp" | grep -qi -- "$want"
}

setup_modules
check "ib core loads by name" load_ib_core
veth_hosts h1 v1 h2 v2 10.11.0
ns h1 ip addr add fd00:11::1/64 dev v1 nodad
ns h2 ip addr add fd00:11::2/64 dev v2 nodad

# Autoload through the module alias rdma-link-metaroce.
check "rdma link add in netns h1 autoloads the module" \
	ns h1 rdma link add mroce1 type metaroce netdev v1
check "module is loaded" grep -q '^rdma_metaroce ' /proc/modules
check "rdma link add in netns h2" ns h2 rdma link add mroce2 type metaroce netdev v2
# The netdev is only named to callers in its own namespace.
check "rdma link show in h1 lists mroce1 on v1" sh -c "ip netns exec h1 rdma link show | grep -q 'mroce1/1 state ACTIVE.*netdev v1'"
check "rdma link show in h2 lists mroce2 on v2" sh -c "ip netns exec h2 rdma link show | grep -q 'mroce2/1 state ACTIVE.*netdev v2'"

# Debian's own ibverbs-utils through our provider.
devs=$(ibv_devices 2>&1)
echo "$devs"
check "ibv_devices lists mroce1" sh -c "echo '$devs' | grep -q mroce1"
check "ibv_devices lists mroce2" sh -c "echo '$devs' | grep -q mroce2"
# rdma_rxe beside us (init_net only): libibverbs then asks our provider
# about a device with a driver id it knows, which once crashed every verbs
# program in our provider's matching.
ip link add rxev0 type veth peer name rxev1 && ip link set rxev0 up &&
	ip link set rxev1 up
check "rdma_rxe device beside ours" rdma link add rxe0 type rxe netdev rxev0
both=$(ibv_devices 2>&1)
rc=$?
echo "$both"
check "ibv_devices with rxe0 present exits 0 ($rc)" test "$rc" = 0
check "... and still lists mroce1" sh -c "echo '$both' | grep -q mroce1"
rdma link delete rxe0
rmmod rdma_rxe
ip link del rxev0
for d in mroce1 mroce2; do
	info=$(ns h1 ibv_devinfo -v -d $d 2>&1)
	echo "$info" >"$OUT/devinfo-$d.txt"
	check "$d: ibv_devinfo -v succeeds" sh -c "echo \"\$0\" | grep -q 'hca_id:	$d'" "$info"
	check "$d: PORT_ACTIVE" sh -c "echo \"\$0\" | grep -q 'state:.*PORT_ACTIVE'" "$info"
	check "$d: Ethernet link layer" sh -c "echo \"\$0\" | grep -q 'link_layer:.*Ethernet'" "$info"
	check "$d: transport InfiniBand, node_guid set" sh -c "echo \"\$0\" | grep -q 'transport:.*InfiniBand' && ! echo \"\$0\" | grep -q 'node_guid:.*0000:0000:0000:0000'" "$info"
	check "$d: sane limits" sh -c "echo \"\$0\" | grep -Eq 'max_qp:[[:space:]]+65536' && echo \"\$0\" | grep -Eq 'max_cqe:[[:space:]]+65536' && echo \"\$0\" | grep -q 'active_mtu:.*1024'" "$info"
	check "$d: no provider warning" sh -c "! echo \"\$0\" | grep -qi 'warning\|couldn.t'" "$info"
done
check "mroce1 GID table has 10.11.0.1 (RoCEv2 v4-mapped)" wait_for 5 has_gid mroce1 "0000:0000:0000:0000:0000:ffff:0a0b:0001"
check "mroce1 GID table has fd00:11::1" wait_for 5 has_gid mroce1 "fd00:0011:0000:0000:0000:0000:0000:0001"
check "mroce2 GID table has 10.11.0.2" wait_for 5 has_gid mroce2 "0000:0000:0000:0000:0000:ffff:0a0b:0002"
check "mroce1 GID table lacks h2's address" no_gid mroce1 "0a0b:0002"
check "ibv_devinfo shows the GID" sh -c "ibv_devinfo -v -d mroce1 | grep -q '::ffff:10.11.0.1\|ffff:0a0b:0001'"

# The socket lives in each device's namespace: datagrams sent to h1's port
# from h2, over IPv4 and IPv6, reach mroce1 and are validated and counted.
# A valid header (the spec's Appendix A packet) passes the codec and is
# dropped only for want of a QP; garbage is dropped as truncated.
ns h2 ping -c1 -W2 10.11.0.1 >/dev/null
ns h2 ping -c1 -W2 fd00:11::1 >/dev/null
trunc0=$(counter mroce1 rx_drop_truncated)
noqp0=$(counter mroce1 rx_drop_no_qp)
ns h2 "$REPO/tools/vm/send-udp" 10.11.0.1 "676172626167650a"
ns h2 "$REPO/tools/vm/send-udp" fd00:11::1 "676172626167650a"
ns h2 "$REPO/tools/vm/send-udp" 10.11.0.1 "$APPENDIX_A"
ns h2 "$REPO/tools/vm/send-udp" fd00:11::1 "$APPENDIX_A"
check "rdma statistic lists per-reason drop counters" sh -c "rdma statistic show link mroce1/1 | grep -q rx_drop_bad_opcode"
check "garbage over IPv4 and IPv6 reaches mroce1 in netns h1: rx_drop_truncated +2" \
	wait_for 5 counter_is mroce1 rx_drop_truncated $((trunc0 + 2))
check "valid Appendix A packets pass the codec: rx_drop_no_qp +2" \
	wait_for 5 counter_is mroce1 rx_drop_no_qp $((noqp0 + 2))
check "mroce2 saw none of it" counter_is mroce2 rx_packets 0

# GID table follows address changes.
ns h1 ip addr add 10.12.0.1/24 dev v1
check "added address appears in GID table" wait_for 5 has_gid mroce1 "ffff:0a0c:0001"
ns h1 ip addr del 10.12.0.1/24 dev v1
check "removed address leaves GID table" wait_for 5 no_gid mroce1 "ffff:0a0c:0001"

# Port state follows the netdev.
ns h1 ip link set v1 down
check "port goes DOWN with the netdev" wait_for 5 is_down mroce1
ns h1 ip link set v1 up
check "port returns ACTIVE" wait_for 5 is_active mroce1
ns h1 ip link set v1 mtu 9000
ns h2 ip link set v2 mtu 9000
check "active_mtu follows netdev MTU" sh -c "ibv_devinfo -d mroce1 | grep -q 'active_mtu:.*4096'"
ns h1 ip link set v1 mtu 1500
ns h2 ip link set v2 mtu 1500

check "rdma resource show lists the devices" sh -c "rdma resource show | grep -q mroce1"
check "sysfs hca_type and parent" sh -c "grep -qx MetaRoCE /sys/class/infiniband/mroce1/hca_type && grep -qx v1 /sys/class/infiniband/mroce1/parent"

# Bad input: clear errno and a log line each.
dmesg_clear
check "nonexistent netdev is refused (ENODEV)" expect_fail "No such device" rdma link add bad0 type metaroce netdev nosuch0
check "already bound netdev is refused (EEXIST)" expect_fail "exists" ns h1 rdma link add again0 type metaroce netdev v1
check "log line for already bound" sh -c "dmesg | grep -q 'v1 is already bound to mroce1'"
check "loopback is refused (EINVAL)" expect_fail "Invalid argument" ns h1 rdma link add lo0 type metaroce netdev lo
check "log line for loopback" sh -c "dmesg | grep -q 'cannot bind to loopback'"
ns h1 ip link add d1 type dummy
ns h1 ip link set d1 up
check "duplicate device name is refused (EEXIST)" expect_fail "exists" ns h1 rdma link add mroce1 type metaroce netdev d1
check "log line for duplicate name" sh -c "dmesg | grep -q 'device name mroce1 is already in use'"
check "failed add left no device on d1" sh -c "! ip netns exec h1 rdma link show | grep -q 'netdev d1'"

# Teardown paths.
check "rdma link delete" rdma link delete mroce2
check "mroce2 gone" wait_for 5 dev_gone mroce2
check "re-add after delete" ns h2 rdma link add mroce2 type metaroce netdev v2
check "bind the dummy netdev too" ns h1 rdma link add mroced type metaroce netdev d1
check "deleting the dummy netdev removes its device" ns h1 ip link del d1
check "mroced gone after netdev delete" wait_for 5 dev_gone mroced
ns h1 ip link del v1
check "veth delete removes both ends' devices" wait_for 5 sh -c "! [ -e /sys/class/infiniband/mroce1 ] && ! [ -e /sys/class/infiniband/mroce2 ]"

ip netns add h3
ip link add v3 netns h3 type veth peer name v4 netns h2
ns h3 ip link set v3 up
check "bind in a third namespace" ns h3 rdma link add mroce3 type metaroce netdev v3
ip netns del h3
check "namespace delete removes its device" wait_for 10 dev_gone mroce3

ip link add v5 type veth peer name v6
ip link set v5 up
ip link set v6 up
check "bind in init_net" rdma link add mroce5 type metaroce netdev v5
check "second device in the same namespace shares the socket" rdma link add mroce6 type metaroce netdev v6
check "rmmod with devices present" rmmod rdma_metaroce
check "rmmod removed all devices" sh -c "! ls /sys/class/infiniband | grep -q mroce"
check "modprobe again after rmmod" modprobe rdma_metaroce
check "bind after reload" rdma link add mroce5 type metaroce netdev v5
check "final rmmod" rmmod rdma_metaroce
ip link del v5

leak_check
check "kernel log has no warnings" dmesg_clean
dmesg >"$OUT/dmesg.txt"
tap_summary
