#!/bin/bash
# VM test of completion queues: tests/verbs/cq_test (built on the host with
# "make -C tests/verbs") against a device in a namespace, the kernel's MAD
# agent creating and freeing its CQ, device removal and rmmod afterwards,
# then leak and kernel log checks.
. "$REPO/tools/vm/guest-lib.sh"

dev_gone() { ! [ -e /sys/class/infiniband/"$1" ]; }
CQ_TEST=$REPO/tests/verbs/build/cq_test


setup_modules
check "ib core loads by name" load_ib_core
check "cq_test is built (make -C tests/verbs)" test -x "$CQ_TEST"

one_host h1 10.21.0.1/24

dmesg -c >/dev/null
check "rdma link add mroce1 in netns h1" ns h1 rdma link add mroce1 type metaroce netdev v1
# ib_mad opens port 1 when the device registers: it allocates a CQ, then
# (until QPs exist) fails at QP creation and frees it again.
sleep 1
dmesg >"$OUT/dmesg-add.txt"
check "MAD agent's CQ created without a CQ error" sh -c "! grep -Ei 'create_cq:|resize_cq:|CQ [0-9]+ overflowed' '$OUT/dmesg-add.txt'"

check "cq_test passes" run_tap cq_test ns h1 "$CQ_TEST" mroce1
check "cq_test passes a second time (state left clean)" sh -c "ip netns exec h1 '$CQ_TEST' mroce1 >'$OUT/cq_test-2.tap' 2>&1"

# Bad input leaves a (ratelimited) log line.
check "log line for an oversized CQ" sh -c "dmesg | grep -q 'create_cq: cqe 65537 out of range'"

# A process killed while holding CQs: the kernel cleans them up.
ns h1 sh -c "'$CQ_TEST' mroce1 >/dev/null 2>&1 & pid=\$!; sleep 0.3; kill -9 \$pid; wait \$pid" 2>/dev/null
check "device still there after a killed user" test -e /sys/class/infiniband/mroce1

check "rdma link delete mroce1" rdma link delete mroce1
check "mroce1 gone" wait_for 5 dev_gone mroce1
check "re-add after delete" ns h1 rdma link add mroce1 type metaroce netdev v1
check "cq_test on the re-added device" sh -c "ip netns exec h1 '$CQ_TEST' mroce1 >'$OUT/cq_test-3.tap' 2>&1"
check "rmmod with the device present" rmmod rdma_metaroce
check "rmmod removed the device" wait_for 5 dev_gone mroce1
ip netns del h1

check "no leaks (kmemleak)" kmemleak_clean
check "kernel log has no warnings" dmesg_clean
dmesg >"$OUT/dmesg.txt"
tap_summary
