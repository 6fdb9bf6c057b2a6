#!/bin/bash
# VM test of the userspace fast path: tests/verbs/ring_test (built on the
# host with "make -C tests/verbs") against a device in a namespace: one
# doorbell per batch, ibv_poll_cq without uverbs commands (the test polls
# with its uverbs fd replaced by /dev/null; here strace shows no write or
# ioctl on the uverbs fd between the test's "poll phase" lines, and one
# between its "batch post" lines), resize keeping completions, and
# hostile ring contents refused with a log line. Then the same for the
# SRQ ring (tests/verbs/srq_ring_test): ibv_post_srq_recv without uverbs
# commands (and no write or ioctl at all between its "srq post" lines under
# strace), RC and UD traffic, limit event, resize, hostile WQEs and
# producer. Then UD QPs on rings (tests/verbs/ud_ring_test): one doorbell
# per batch of datagrams, posts and polls without uverbs commands, hostile
# send and receive WQEs. Then leak and log checks; run on the debug kernel
# too (KASAN, kmemleak).
. "$REPO/tools/vm/guest-lib.sh"

RING_TEST=$REPO/tests/verbs/build/ring_test
SRQ_RING_TEST=$REPO/tests/verbs/build/srq_ring_test
UD_RING_TEST=$REPO/tests/verbs/build/ud_ring_test

setup_modules
check "ib core loads by name" load_ib_core
check "ring_test is built (make -C tests/verbs)" test -x "$RING_TEST"
check "srq_ring_test is built (make -C tests/verbs)" test -x "$SRQ_RING_TEST"
check "ud_ring_test is built (make -C tests/verbs)" test -x "$UD_RING_TEST"

one_host h1 10.23.0.1/24
dmesg_clear
check "rdma link add mroce1 in netns h1" ns h1 rdma link add mroce1 type metaroce netdev v1
check "mroce1 has the IPv4 GID" wait_for 5 gid_index mroce1 10.23.0.1

check "ring_test exits 0" run_tap ring_test ns h1 timeout 600 "$RING_TEST" mroce1
dmesg >"$OUT/dmesg-ring.txt"
for msg in "bad send WQE" "send ring producer .* out of range" \
	   "bad receive WQE" "receive ring producer .* out of range" \
	   "CQ [0-9]* overflowed"; do
	check "hostile ring logged: $msg" grep -q "$msg" "$OUT/dmesg-ring.txt"
done

# The same polls seen from outside: strace lists every write and ioctl.
S=$OUT/strace.txt
ns h1 timeout 600 strace -f -y -e trace=write,ioctl -o "$S" "$RING_TEST" mroce1 \
	>"$OUT/ring_test-strace.tap" 2>&1
# between WHAT: the strace lines between the test's "# WHAT begin/end".
between() { awk "/$1 begin/ { on = 1; next } /$1 end/ { on = 0 } on" "$S"; }
check "strace saw the uverbs commands" grep -q 'uverbs' "$S"
check "strace saw the poll phase" sh -c "grep -c 'poll phase' '$S' | grep -qx 2"
between "poll phase" >"$OUT/strace-poll.txt"
check "no write or ioctl on the uverbs fd while polling" sh -c "! grep -q uverbs '$OUT/strace-poll.txt'"
check "no write or ioctl at all while polling" sh -c "! grep -q . '$OUT/strace-poll.txt'"
between "batch post" >"$OUT/strace-post.txt"
# libibverbs sends the post_send command as an ioctl (INVOKE_WRITE).
check "a batch of 128 sends: one doorbell" sh -c "grep -c 'uverbs' '$OUT/strace-post.txt' | grep -qx 1"

# The SRQ ring, then UD rings: each test runs once, under strace (which
# only watches: the TAP lines are the test's).
dmesg_clear
S=$OUT/strace-srq.txt
check "srq_ring_test exits 0" run_tap srq_ring_test ns h1 timeout 900 \
	strace -f -y -e trace=write,ioctl -o "$S" "$SRQ_RING_TEST" mroce1
dmesg >"$OUT/dmesg-srq-ring.txt"
for msg in "srq: bad receive WQE" "srq: ring producer .* out of range"; do
	check "hostile SRQ ring logged: $msg" grep -q "$msg" "$OUT/dmesg-srq-ring.txt"
done
check "strace saw the SRQ posts" sh -c "[ \$(grep -c 'srq post begin' '$S') -ge 7 ]"
awk '/srq post begin/ { on = 1; next } /srq post end/ { on = 0 } on' "$S" \
	>"$OUT/strace-srq-post.txt"
check "no write or ioctl at all in ibv_post_srq_recv" sh -c "! grep -q . '$OUT/strace-srq-post.txt'"

dmesg_clear
S=$OUT/strace-ud.txt
check "ud_ring_test exits 0" run_tap ud_ring_test ns h1 timeout 600 \
	strace -f -y -e trace=write,ioctl -o "$S" "$UD_RING_TEST" mroce1
dmesg >"$OUT/dmesg-ud-ring.txt"
for msg in "bad send WQE" "bad receive WQE"; do
	check "hostile UD ring logged: $msg" grep -q "$msg" "$OUT/dmesg-ud-ring.txt"
done
awk '/ud batch post begin/ { on = 1; next } /ud batch post end/ { on = 0 } on' "$S" \
	>"$OUT/strace-ud-post.txt"
check "strace saw the UD batch post" grep -q 'ud batch post end' "$S"
# libibverbs sends the post_send command as an ioctl (INVOKE_WRITE).
check "a batch of 32 datagrams: one doorbell" sh -c "grep -c 'uverbs' '$OUT/strace-ud-post.txt' | grep -qx 1"

check "rdma link delete mroce1" rdma link delete mroce1
ip netns del h1
check "rmmod rdma_metaroce" rmmod rdma_metaroce
leak_check
check "kernel log has no warnings" dmesg_clean
dmesg >"$OUT/dmesg.txt"
tap_summary
