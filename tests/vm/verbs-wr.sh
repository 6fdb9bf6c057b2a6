#!/bin/bash
# VM test of the provider's extended post API (ibv_wr_*) and extended CQ:
# tests/verbs/wr_test (every opcode through ibv_wr_*, completions through
# ibv_cq_ex, on one device by self-loopback), then Debian's unmodified
# ibv_rc_pingpong with its new send API (-N) between two namespaces, its
# completion-timestamp mode (-t) refused cleanly, and perftest, whose QPs
# are now created through the provider's create_qp_ex.
. "$REPO/tools/vm/guest-lib.sh"

verbs_start wr_test
mroce1_in_h1 10.13.0.1/24 gid
check "wr_test exits 0" run_tap wr_test ns h1 timeout 300 "$VERBS_BIN" mroce1
check "rdma link delete mroce1" rdma link delete mroce1
ip netns del h1

two_hosts

check "ibv_rc_pingpong -N (ibv_wr_* send API), data checked" \
	host_pair rc_pp_new 60 ibv_rc_pingpong -g -N -c -n 200
check "ibv_rc_pingpong -N, 1-byte messages" \
	host_pair rc_pp_new1 60 ibv_rc_pingpong -g -N -s 1 -n 200
# Completion timestamps are not offered (completion_timestamp_mask 0).
ts_refused() {
	! ns h2 timeout 20 ibv_rc_pingpong -d mroce2 -g "$g2" -t \
		>"$OUT/rc_pp_ts.srv" 2>&1 &&
		grep -q "isn't completion timestamp capable" "$OUT/rc_pp_ts.srv"
}
check "ibv_rc_pingpong -t: no completion timestamps offered, refused cleanly" ts_refused
check "ib_write_bw (QPs through create_qp_ex)" \
	host_pair write_bw 120 ib_write_bw -x -F -s 65536 -n 200
check "ib_send_bw" host_pair send_bw 120 ib_send_bw -x -F -s 65536 -n 200
two_hosts_end
check "rmmod rdma_metaroce" rmmod rdma_metaroce
tap_finish
