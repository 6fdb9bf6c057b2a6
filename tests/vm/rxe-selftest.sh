#!/bin/bash
# One VM: mroce-verify in self-loopback (two QPs on one device, both sides in
# one process) over DEVTYPE (rxe by default; metaroce later), through each
# connection method, plus self-tests of the tool: it must catch a flipped
# byte and must not hang without a peer. Needs tests/tools built on the host.
. "$REPO/tools/vm/guest-lib.sh"
# guest-lib points libibverbs at our provider; rxe needs only Debian's, and
# a provider under construction must not take rxe's tests down with it.
[ "${DEVTYPE:-rxe}" = rxe ] && unset RDMAV_DRIVERS

DEVTYPE=${DEVTYPE:-rxe}
dev=${DEVTYPE}0
MV=$REPO/tests/tools/build/mroce-verify
SIZE=${MV_SIZE:-8M}

# mv NAME TIMEOUT ARGS...: run mroce-verify, keep its output, show the summary.
mv() {
	local name=$1 t=$2 rc t0
	shift 2
	t0=$(date +%s.%N)
	timeout -k 5 "$t" "$MV" "$@" >"$OUT/mv-$name.txt" 2>&1
	rc=$?
	echo "== mroce-verify $name: rc $rc, $(echo "$(date +%s.%N) - $t0" | bc) s"
	cat "$OUT/mv-$name.txt"
	return $rc
}

setup_modules
check "ib core loads" load_ib_core
[ "$DEVTYPE" = rxe ] && check "rdma_rxe loads" modprobe rdma_rxe
ip link add v0 type veth peer name v1
ip link set v0 up
ip link set v1 up
ip addr add 10.60.0.1/24 dev v0
check "rdma link add $dev type $DEVTYPE netdev v0" \
	rdma link add "$dev" type "$DEVTYPE" netdev v0
check "$dev port ACTIVE" wait_for 10 sh -c "ibv_devinfo -d $dev | grep -q PORT_ACTIVE"
ibv_devinfo -v -d "$dev" >"$OUT/devinfo.txt" 2>&1
check "mroce-verify built" test -x "$MV"

check "loopback (direct QP attributes): all opcodes, sizes to $SIZE" \
	mv local 900 -L -d "$dev" -S "$SIZE" -x 1 -T 600
check "loopback over rdma_cm: all opcodes, sizes to 1M" \
	mv cm 600 -L -m cm -c 10.60.0.1 -d "$dev" -S 1M -x 2 -r 4 -T 300
check "loopback over TCP exchange: all opcodes, sizes to 1M" \
	mv tcp 600 -L -m tcp -c 127.0.0.1 -p 18600 -d "$dev" -S 1M -x 3 -r 4 -T 300

# The checker must see a flipped byte (exit 1, corrupt bytes reported).
mv inject 300 -L -d "$dev" -S 64K -r 0 -C 40 -o send,write
rc=$?
check "checker catches an injected corrupt byte (rc $rc)" \
	sh -c "[ $rc = 1 ] && grep -q '^not ok' $OUT/mv-inject.txt && grep -q 'corrupt bytes' $OUT/mv-inject.txt"

# No peer: a bounded failure, never a hang.
t0=$SECONDS
mv nopeer 120 -c 10.60.0.1 -p 1 -d "$dev" -W 5
rc=$?
check "no server: fails in bounded time (rc $rc, $((SECONDS - t0))s)" \
	sh -c "[ $rc != 0 ] && [ $rc != 124 ] && [ $((SECONDS - t0)) -lt 60 ]"

check "rdma link delete $dev" rdma link delete "$dev"
check "kernel log has no warnings" dmesg_clean
tap_summary
