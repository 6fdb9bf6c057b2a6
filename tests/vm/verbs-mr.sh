#!/bin/bash
# VM test of memory regions: KUnit cases of the kernel MR API
# (tests/kmod), then tests/verbs/mr_test (built on the host with
# "make -C tests/verbs") against a device in a namespace, the kernel's MAD
# agent taking a DMA MR through ib_alloc_pd, parallel users, a user killed
# while holding MRs, device removal and rmmod, then leak and log checks.
. "$REPO/tools/vm/guest-lib.sh"

verbs_start mr_test

# The kernel API the transport uses, directly: KUnit cases of mr.c against
# a fake device (built with make -C $KDIR M=$REPO/tests/kmod modules).
KUNIT_KO=${MODDIR:-$REPO}/tests/kmod/metaroce_mr_kunit.ko
if check "metaroce_mr_kunit loads" insmod "$KUNIT_KO"; then
	r=/sys/kernel/debug/kunit/metaroce_mr/results
	cp "$r" "$OUT/kunit-metaroce_mr.ktap" 2>/dev/null
	while read -r line; do
		case $line in
		"ok "*) ok "kunit metaroce_mr: ${line#ok }" ;;
		"not ok "*) fail "kunit metaroce_mr: ${line#not ok }" ;;
		esac
	done < <(grep -E '^    (not )?ok ' "$r" | sed 's/^    //')
	check "kunit metaroce_mr: suite passed" grep -qE '^ok [0-9]+ metaroce_mr' "$r"
	check "metaroce_mr_kunit unloads" rmmod metaroce_mr_kunit
fi

mroce1_in_h1 10.31.0.1/24
# ib_mad's ib_alloc_pd asks for a DMA MR (no IB_DEVICE_LOCAL_DMA_LKEY).
sleep 1
dmesg >"$OUT/dmesg-add.txt"
check "MAD agent's PD got its DMA MR" sh -c "! grep -Ei 'get_dma_mr|alloc_pd' '$OUT/dmesg-add.txt'"

check "mr_test passes" run_tap mr_test ns h1 "$VERBS_BIN" mroce1
check "mr_test passes a second time (state left clean)" \
	sh -c "ip netns exec h1 '$VERBS_BIN' mroce1 >'$OUT/mr_test-2.tap' 2>&1"

# Four users registering and deregistering at once.
ns h1 sh -c "for i in 1 2 3 4; do '$VERBS_BIN' mroce1 >'$OUT/mr_par'\$i.tap 2>&1 & done; wait"
check "four mr_test in parallel all pass" sh -c "! grep -q '^not ok' '$OUT'/mr_par*.tap && [ \$(grep -c ' 0 failed' '$OUT'/mr_par*.tap | grep -c ':1') = 4 ]"

# A process killed while holding MRs: the kernel deregisters them.
killed_user 0.2
check "mr_test after the killed user" sh -c "ip netns exec h1 '$VERBS_BIN' mroce1 >'$OUT/mr_test-3.tap' 2>&1"
check "no MR left registered (rdma resource)" sh -c "! rdma resource show mr | grep -q 'dev mroce1.*mrlen'"

relink_rmmod

check "no 'still in use' waits in dereg" sh -c "! dmesg | grep -q 'still in use'"
check "no unmapped-byte warnings" sh -c "! dmesg | grep -q 'not mapped'"
tap_finish
