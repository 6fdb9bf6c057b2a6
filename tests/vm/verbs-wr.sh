#!/bin/bash
# VM test of the provider's extended post API (ibv_wr_*) and extended CQ:
# tests/verbs/wr_test (every opcode through ibv_wr_*, completions through
# ibv_cq_ex, on one device by self-loopback), then Debian's unmodified
# ibv_rc_pingpong with its new send API (-N) between two namespaces, its
# completion-timestamp mode (-t) refused cleanly, and perftest, whose QPs
# are now created through the provider's create_qp_ex.
. "$REPO/tools/vm/guest-lib.sh"

WR_TEST=$REPO/tests/verbs/build/wr_test

setup_modules
check "ib core loads by name" load_ib_core
check "wr_test is built (make -C tests/verbs)" test -x "$WR_TEST"

one_host h1 10.13.0.1/24
dmesg -c >/dev/null
check "rdma link add mroce1 in netns h1" ns h1 rdma link add mroce1 type metaroce netdev v1
check "mroce1 has the IPv4 GID" wait_for 5 gid_index mroce1 10.13.0.1
check "wr_test exits 0" run_tap wr_test ns h1 timeout 300 "$WR_TEST" mroce1
check "rdma link delete mroce1" rdma link delete mroce1
ip netns del h1

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

# pair NAME SECS TOOL ARGS...: server in h2, client in h3, both exit 0.
pair() {
	local name=$1 secs=$2 tool=$3 rc rs
	shift 3
	ns h2 timeout "$secs" "$tool" -d mroce2 "$@" >"$OUT/$name.srv" 2>&1 &
	sleep 1
	ns h3 timeout "$secs" "$tool" -d mroce3 "$@" 10.14.0.1 \
		>"$OUT/$name.cli" 2>&1
	rc=$?
	wait $!
	rs=$?
	tail -1 "$OUT/$name.cli"
	[ $rc = 0 ] && [ $rs = 0 ]
}
check "ibv_rc_pingpong -N (ibv_wr_* send API), data checked" \
	pair rc_pp_new 60 ibv_rc_pingpong -g "$g2" -N -c -n 200
check "ibv_rc_pingpong -N, 1-byte messages" \
	pair rc_pp_new1 60 ibv_rc_pingpong -g "$g2" -N -s 1 -n 200
# Completion timestamps are not offered (completion_timestamp_mask 0).
ts_refused() {
	! ns h2 timeout 20 ibv_rc_pingpong -d mroce2 -g "$g2" -t \
		>"$OUT/rc_pp_ts.srv" 2>&1 &&
		grep -q "isn't completion timestamp capable" "$OUT/rc_pp_ts.srv"
}
check "ibv_rc_pingpong -t: no completion timestamps offered, refused cleanly" ts_refused
check "ib_write_bw (QPs through create_qp_ex)" \
	pair write_bw 120 ib_write_bw -F -x "$g2" -s 65536 -n 200
check "ib_send_bw" pair send_bw 120 ib_send_bw -F -x "$g2" -s 65536 -n 200
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
