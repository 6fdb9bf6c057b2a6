#!/bin/bash
# VM test of shared receive queues: tests/verbs/srq_test (one device,
# self-loopback through its IPv4 RoCEv2 GID: several QPs on one SRQ,
# limit event, EBUSY, bad posts, RNR and recovery, error isolation, UD on
# an SRQ), then Debian's ibv_srq_pingpong unmodified between two network
# namespaces (16 QPs on one SRQ by default), then leak and log checks.
. "$REPO/tools/vm/guest-lib.sh"

SRQ_TEST=$REPO/tests/verbs/build/srq_test

setup_modules
check "ib core loads by name" load_ib_core
check "srq_test is built (make -C tests/verbs)" test -x "$SRQ_TEST"

one_host h1 10.13.0.1/24
dmesg -c >/dev/null
check "rdma link add mroce1 in netns h1" ns h1 rdma link add mroce1 type metaroce netdev v1
check "mroce1 has the IPv4 GID" wait_for 5 gid_index mroce1 10.13.0.1
check "srq_test exits 0" run_tap srq_test ns h1 timeout 300 "$SRQ_TEST" mroce1
check "rdma link delete mroce1" rdma link delete mroce1
ip netns del h1

# Two hosts as namespaces joined by a veth pair.
ip netns add h2
ip netns add h3
ip link add v3 netns h2 type veth peer name v4 netns h3
ns h2 ip addr add 10.14.0.1/24 dev v3
ns h3 ip addr add 10.14.0.2/24 dev v4
for h in h2:v3 h3:v4; do
	ns "${h%:*}" ip link set lo up
	ns "${h%:*}" ip link set "${h#*:}" up
done
check "bind mroce2 in h2" ns h2 rdma link add mroce2 type metaroce netdev v3
check "bind mroce3 in h3" ns h3 rdma link add mroce3 type metaroce netdev v4
wait_for 5 gid_index mroce2 10.14.0.1 >/dev/null
wait_for 5 gid_index mroce3 10.14.0.2 >/dev/null
g2=$(gid_index mroce2 10.14.0.1)
g3=$(gid_index mroce3 10.14.0.2)

# pp NAME SECS ARGS...: server in h2, client in h3; both must exit 0.
pp() {
	local name=$1 secs=$2 rc rs
	shift 2
	ns h2 timeout "$secs" ibv_srq_pingpong -d mroce2 -g "$g2" "$@" \
		>"$OUT/$name.srv" 2>&1 &
	sleep 1
	ns h3 timeout "$secs" ibv_srq_pingpong -d mroce3 -g "$g3" "$@" \
		10.14.0.1 >"$OUT/$name.cli" 2>&1
	rc=$?
	wait $!
	rs=$?
	tail -2 "$OUT/$name.cli"
	[ $rc = 0 ] && [ $rs = 0 ]
}
check "ibv_srq_pingpong (16 QPs on one SRQ), defaults" pp srq_pp 120
check "ibv_srq_pingpong 4 QPs, 3000-byte messages, rx-depth 64, data checked" \
	pp srq_pp2 120 -q 4 -s 3000 -r 64 -n 200 -c
check "ibv_srq_pingpong with CQ events" pp srq_pp3 120 -e -n 200
# Reordering: packets of later messages arrive first, so WQEs are bound
# ahead of the messages still missing; the data must still be right. No
# loss: a pingpong cannot survive losing the ACK of its last message once
# the peer has exited (the retries then run out).
ooo0=$(counter mroce2 rx_out_of_order)
for h in h2:v3 h3:v4; do
	ns "${h%:*}" tc qdisc add dev "${h#*:}" root netem delay 2ms \
		reorder 30% 50% duplicate 1%
done
check "ibv_srq_pingpong with reordering and duplicates, data checked" \
	pp srq_pp_reorder 300 -q 4 -s 3000 -r 64 -n 100 -c
check "packets did arrive out of order (rx_out_of_order grew)" \
	counter_ge mroce2 rx_out_of_order $((ooo0 + 1))
for h in h2:v3 h3:v4; do ns "${h%:*}" tc qdisc del dev "${h#*:}" root; done
check "no QP left (rdma resource)" sh -c "! rdma resource show qp | grep -q 'mroce.*type RC'"
check "rdma link delete mroce2" rdma link delete mroce2
check "rdma link delete mroce3" rdma link delete mroce3
ip netns del h2
ip netns del h3
check "rmmod rdma_metaroce" rmmod rdma_metaroce

check "no leaks (kmemleak)" kmemleak_clean
check "kernel log has no warnings" dmesg_clean
dmesg >"$OUT/dmesg.txt"
tap_summary
