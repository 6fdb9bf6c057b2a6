#!/bin/bash
# Two hosts (run-pair.sh): 4096 RC QPs write at once from host b to host
# a, more than the netdev's queue holds packets, so most wait on the
# device's list for their turn (txq.c). A round of that list lasts
# seconds. A QP whose ACK request is answered while the queue's budget is
# spent must still send a packet that asks for the next ACK, or its last
# packets wait the round unanswered and its connection times out with
# nothing lost. Before it did, this run counted 282-408 connection
# timeouts at a verbs timeout of 4.3 s (-u 20) and failed one time in
# four; since, 0.
. "$REPO/tools/vm/guest-lib.sh"
dev=mroce0
. "$REPO/tests/vm/pair-lib.sh"

QPS=${MANY_QPS:-4096}

setup_modules
check "ib core loads" load_ib_core
eth0_up
bind_eth0 mroce0 metaroce
gid=$(gid_v4_wait)
meet_peer bound

rto0=$(counter mroce0 rto_events)
w0=$(counter mroce0 tx_local_queue_waits)
P=(-d mroce0 -x "$gid" -F -s 65536 -q "$QPS" -n 10 -u 20)
pair "ib_write_bw -q $QPS" 400 tcp:18515 1 ib_write_bw "${P[@]}" -- \
	ib_write_bw "${P[@]}" "$srv_ip"
if [ "$me" = b ]; then
	rto=$(($(counter mroce0 rto_events) - rto0))
	waits=$(($(counter mroce0 tx_local_queue_waits) - w0))
	echo "$QPS QPs: connection timeouts $rto, local queue waits $waits" |
		tee -a "$FIG"
	check "$QPS QPs waited their turn for the local queue ($waits waits)" \
		[ "$waits" -ge "$QPS" ]
	check "$QPS QPs: at most 30 connection timeouts ($rto)" [ "$rto" -le 30 ]
fi
rdma statistic show link mroce0/1 >"$OUT/stats.txt"
arrive finished
check "peer finished" await finished 600
check "kernel log has no warnings" dmesg_clean
tap_summary
