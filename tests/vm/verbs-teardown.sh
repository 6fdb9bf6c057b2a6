#!/bin/bash
# VM test of how long destroy_qp takes: tests/verbs/teardown_test (built
# on the host with "make -C tests/verbs") connects 64 pairs of RC QPs of
# one device to each other through its IPv4 RoCEv2 GID, has every pair
# move data, then times destroying all 128 QPs. Then tests/verbs/qp_mem:
# the kernel memory 512 QPs take, alone and on an SRQ. Run on the normal
# kernel: the debug kernel's grace periods, checks and slab debugging say
# nothing about either.
. "$REPO/tools/vm/guest-lib.sh"

verbs_start teardown_test
mroce1_in_h1 10.13.0.1/24 gid
check "teardown_test exits 0" run_tap teardown_test ns h1 timeout 300 "$VERBS_BIN" mroce1
check "no QP left (rdma resource)" sh -c "! rdma resource show qp | grep -q 'mroce1.*type RC'"
check "qp_mem exits 0" run_tap qp_mem ns h1 timeout 300 \
	"$REPO/tests/verbs/build/qp_mem" mroce1 512
check "rdma link delete mroce1" rdma link delete mroce1
ip netns del h1
check "rmmod rdma_metaroce" rmmod rdma_metaroce
tap_finish
