#!/bin/bash
# VM test of memory windows: tests/verbs/mw_test (built on the host with
# "make -C tests/verbs") binds type 1 and type 2 windows on one RC QP of a
# device connected to another through its IPv4 RoCEv2 GID, and checks
# remote Write, Read and atomics inside and outside the windows, rebinding,
# invalidation, bind errors, dealloc and MR dereg with windows bound, with
# the whole target compared after every operation. Then leak and log checks.
. "$REPO/tools/vm/guest-lib.sh"

verbs_start mw_test
# One host: self-loopback traffic goes through the namespace's lo.
mroce1_in_h1 10.13.0.1/24 gid

# mw_test bounds every wait itself; timeout is a backstop.
check "mw_test exits 0" run_tap mw_test ns h1 timeout 300 "$VERBS_BIN" mroce1
# Exiting with windows bound: the kernel tears down MWs, MRs and QPs.
check "mw_test exits 0 with windows bound" run_tap mw_test_exit ns h1 env MW_EXIT_BOUND=1 timeout 300 "$VERBS_BIN" mroce1
check "no QP left (rdma resource)" sh -c "! rdma resource show qp | grep -q 'mroce1.*type RC'"
check "no MR left (rdma resource)" sh -c "! rdma resource show mr | grep -q mroce1"

check "rdma link delete mroce1" rdma link delete mroce1
ip netns del h1
check "rmmod rdma_metaroce" rmmod rdma_metaroce
tap_finish
