#!/bin/bash
# VM test of shared receive queues: tests/verbs/srq_test (one device,
# self-loopback through its IPv4 RoCEv2 GID: several QPs on one SRQ,
# limit event, EBUSY, bad posts, RNR and recovery, error isolation, UD on
# an SRQ), then Debian's ibv_srq_pingpong unmodified between two network
# namespaces (16 QPs on one SRQ by default), then leak and log checks.
. "$REPO/tools/vm/guest-lib.sh"

verbs_start srq_test
mroce1_in_h1 10.13.0.1/24 gid
check "srq_test exits 0" run_tap srq_test ns h1 timeout 300 "$VERBS_BIN" mroce1
# Holes: through lo (the device's loopback) half the packets are held 5
# ms and every 8th is lost, so the later messages of a QP bind WQEs while
# an earlier one is still missing a packet, and the QP's queue of bound
# WQEs grows (it starts at 1).
ooo0=$(counter mroce1 rx_out_of_order)
ns h1 tc qdisc add dev lo root netem delay 5ms reorder 50%
ns h1 tc qdisc add dev lo clsact
ns h1 tc filter add dev lo ingress matchall action gact pass random determ drop 8
check "trace mroce_srq_grow" trace_events mroce_srq_grow
check "srq_test shared, packets reordered and lost" run_tap srq_holes ns h1 timeout 300 \
	"$VERBS_BIN" mroce1 shared
trace_save "$OUT/trace-srq-grow.txt"
check "packets arrived past holes (rx_out_of_order grew)" \
	counter_ge mroce1 rx_out_of_order $((ooo0 + 1))
check "messages overtook others and the queue of bound WQEs grew" \
	grep -q 'mroce_srq_grow: qp [0-9]* size [0-9]* ok 1' "$OUT/trace-srq-grow.txt"
ns h1 tc qdisc del dev lo clsact
ns h1 tc qdisc del dev lo root
check "rdma link delete mroce1" rdma link delete mroce1
ip netns del h1

# Two hosts as namespaces joined by a veth pair.
two_hosts
check "ibv_srq_pingpong (16 QPs on one SRQ), defaults" host_pair srq_pp 120 ibv_srq_pingpong -g
check "ibv_srq_pingpong 4 QPs, 3000-byte messages, rx-depth 64, data checked" \
	host_pair srq_pp2 120 ibv_srq_pingpong -g -q 4 -s 3000 -r 64 -n 200 -c
check "ibv_srq_pingpong with CQ events" host_pair srq_pp3 120 ibv_srq_pingpong -g -e -n 200
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
	host_pair srq_pp_reorder 300 ibv_srq_pingpong -g -q 4 -s 3000 -r 64 -n 100 -c
check "packets did arrive out of order (rx_out_of_order grew)" \
	counter_ge mroce2 rx_out_of_order $((ooo0 + 1))
for h in h2:v3 h3:v4; do ns "${h%:*}" tc qdisc del dev "${h#*:}" root; done
two_hosts_end
check "rmmod rdma_metaroce" rmmod rdma_metaroce

tap_finish
