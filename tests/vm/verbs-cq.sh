#!/bin/bash
# VM test of completion queues: tests/verbs/cq_test (built on the host with
# "make -C tests/verbs") against a device in a namespace, the kernel's MAD
# agent creating and freeing its CQ, device removal and rmmod afterwards,
# then leak and kernel log checks.
. "$REPO/tools/vm/guest-lib.sh"

verbs_start cq_test
mroce1_in_h1 10.21.0.1/24
# ib_mad opens port 1 when the device registers: it allocates a CQ, then
# (until QPs exist) fails at QP creation and frees it again.
sleep 1
dmesg >"$OUT/dmesg-add.txt"
check "MAD agent's CQ created without a CQ error" sh -c "! grep -Ei 'create_cq:|resize_cq:|CQ [0-9]+ overflowed' '$OUT/dmesg-add.txt'"

check "cq_test passes" run_tap cq_test ns h1 "$VERBS_BIN" mroce1
check "cq_test passes a second time (state left clean)" sh -c "ip netns exec h1 '$VERBS_BIN' mroce1 >'$OUT/cq_test-2.tap' 2>&1"

# Bad input leaves a (ratelimited) log line.
check "log line for an oversized CQ" sh -c "dmesg | grep -q 'create_cq: cqe 65537 out of range'"

# A process killed while holding CQs: the kernel cleans them up.
killed_user 0.3

relink_rmmod
tap_finish
