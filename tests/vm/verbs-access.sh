#!/bin/bash
# VM test of RC error handling: tests/verbs/access_test (built on the host
# with "make -C tests/verbs") connects two RC QPs of one device to each
# other through its IPv4 RoCEv2 GID and checks remote access errors (bad
# rkey, bounds, MR and QP access flags, atomics), RNR, retry exhaustion,
# flushing after an error and an oversized SEND, on both sides, with
# canaries around the target MR. Then leak and log checks.
. "$REPO/tools/vm/guest-lib.sh"

verbs_start access_test
# One host: self-loopback traffic goes through the namespace's lo.
mroce1_in_h1 10.13.0.1/24 gid

# access_test bounds every wait itself; timeout is a backstop.
check "access_test exits 0" run_tap access_test ns h1 timeout 300 "$VERBS_BIN" mroce1
rdma statistic show link mroce1/1 >"$OUT/counters.txt" 2>&1
cat "$OUT/counters.txt"
check "no QP left (rdma resource)" sh -c "! rdma resource show qp | grep -q 'mroce1.*type RC'"

check "rdma link delete mroce1" rdma link delete mroce1
ip netns del h1
check "rmmod rdma_metaroce" rmmod rdma_metaroce
tap_finish
