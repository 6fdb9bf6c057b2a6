#!/bin/bash
# VM test of the datagram service and rdma_cm: UD QPs, address handles and
# the GSI QP (QP1) that carries CM MADs. Two namespaces on a veth pair,
# one device each; every server runs in h1, every client in h2, each
# bounded by timeout. Raw outputs are kept in $OUT/raw.
. "$REPO/tools/vm/guest-lib.sh"

MV=$REPO/tests/tools/build/mroce-verify
SRV=10.12.0.1
raw=$OUT/raw
mkdir -p "$raw"

# ready_when SPEC: the server in h1 listens. tcp:PORT or cm.
ready_when() {
	case $1 in
	tcp:*) wait_for 30 listening h1 "${1#tcp:}" ;;
	cm) cm_listening ;;
	esac
}

# pair NAME TMO READY SERVER-CMD... -- CLIENT-CMD...: the server in h1,
# the client in h2; one TAP line each.
step=0
pair() {
	local name=$1 tmo=$2 rdy=$3 scmd=() ccmd=() pid rc
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	step=$((step + 1))
	echo "== $step $name: server: ${scmd[*]}; client: ${ccmd[*]}"
	ns h1 timeout -k 5 "$tmo" "${scmd[@]}" >"$raw/$step-$name.server.txt" 2>&1 &
	pid=$!
	if ! ready_when "$rdy"; then
		kill $pid 2>/dev/null
		wait $pid
		fail "$name: server never got ready"
		fail "$name: client not run"
		return
	fi
	ns h2 timeout -k 5 "$tmo" "${ccmd[@]}" >"$raw/$step-$name.client.txt" 2>&1
	rc=$?
	tail -4 "$raw/$step-$name.client.txt"
	check "$name: client (rc $rc)" [ $rc = 0 ]
	for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	kill -0 $pid 2>/dev/null && kill $pid
	wait $pid
	rc=$?
	tail -4 "$raw/$step-$name.server.txt"
	check "$name: server (rc $rc)" [ $rc = 0 ]
}

setup_modules
check "ib core loads" load_ib_core
veth_hosts h1 v1 h2 v2 "${SRV%.*}"
dmesg_clear
check "rdma link add mroce1 in h1" ns h1 rdma link add mroce1 type metaroce netdev v1
check "rdma link add mroce2 in h2" ns h2 rdma link add mroce2 type metaroce netdev v2
check "ib_mad created QP1 (no 'Couldn't create ib_mad QP1')" \
	sh -c "! dmesg | grep -qi \"couldn't create ib_mad qp1\""
check "QP1 of mroce1 is a GSI QP in RTS" \
	sh -c "rdma res show qp link mroce1/1 | grep -Eq 'lqpn 1 .*type GSI state RTS'"
check "QP1 of mroce2 is a GSI QP in RTS" \
	sh -c "rdma res show qp link mroce2/1 | grep -Eq 'lqpn 1 .*type GSI state RTS'"
check "mroce1 has its IPv4 GID" wait_for 10 gid_index mroce1 $SRV
check "mroce2 has its IPv4 GID" wait_for 10 gid_index mroce2 10.12.0.2
G1=$(gid_index mroce1 $SRV)
G2=$(gid_index mroce2 10.12.0.2)
echo "GID index: mroce1 $G1, mroce2 $G2"
check "peer reachable over IP" ns h2 ping -c1 -W2 $SRV
check "mroce-verify built" test -x "$MV"

# --- UD verbs from userspace: AHs, UD QPs, GRH in the receive buffer ---
pair ud_pingpong 120 tcp:18600 \
	ibv_ud_pingpong -d mroce1 -g "$G1" -p 18600 -n 200 -s 512 -c -- \
	ibv_ud_pingpong -d mroce2 -g "$G2" -p 18600 -n 200 -s 512 -c $SRV
pair ud_pingpong-inline 120 tcp:18601 \
	ibv_ud_pingpong -d mroce1 -g "$G1" -p 18601 -n 100 -s 64 -c -- \
	ibv_ud_pingpong -d mroce2 -g "$G2" -p 18601 -n 100 -s 64 -c $SRV
pair ud_pingpong-mtu 120 tcp:18602 \
	ibv_ud_pingpong -d mroce1 -g "$G1" -p 18602 -n 50 -s 1024 -c -- \
	ibv_ud_pingpong -d mroce2 -g "$G2" -p 18602 -n 50 -s 1024 -c $SRV

# --- rdma_cm: CM MADs over QP1, then RC ---
pair rping 120 cm \
	rping -s -a $SRV -p 7174 -C 100 -S 4000 -V -- \
	rping -c -a $SRV -p 7174 -C 100 -S 4000 -V
pair ucmatose 120 cm \
	ucmatose -p 7471 -c 4 -C 50 -S 1000 -- \
	ucmatose -s $SRV -p 7471 -c 4 -C 50 -S 1000
pair ib_write_bw-R 180 cm \
	ib_write_bw -R -F -d mroce1 -p 18610 -n 1000 -- \
	ib_write_bw -R -F -d mroce2 -p 18610 -n 1000 $SRV
pair ib_send_bw-R 180 cm \
	ib_send_bw -R -F -d mroce1 -p 18611 -n 1000 -- \
	ib_send_bw -R -F -d mroce2 -p 18611 -n 1000 $SRV
pair ib_read_bw-R 180 cm \
	ib_read_bw -R -F -d mroce1 -p 18613 -n 1000 -- \
	ib_read_bw -R -F -d mroce2 -p 18613 -n 1000 $SRV
pair mroce-verify-cm 300 cm \
	"$MV" -s -m cm -d mroce1 -p 18612 -W 120 -w 60 -- \
	"$MV" -c $SRV -m cm -d mroce2 -p 18612 -S 1M -x 3 -T 200 -w 60

for d in mroce1 mroce2; do
	rdma statistic show link $d/1 >"$OUT/stats-$d.txt"
	check "$d: no datagram dropped for its Q_Key" counter_is $d rx_drop_ud_qkey 0
	check "$d: no packet dropped for its QP type" counter_is $d rx_drop_qp_type 0
done

# Teardown with QP1 present: device delete, then module unload.
check "rdma link delete mroce2" rdma link delete mroce2
ip netns del h1
ip netns del h2
check "devices gone" wait_for 10 sh -c "! ls /sys/class/infiniband | grep -q mroce"
check "rmmod rdma_metaroce" rmmod rdma_metaroce

leak_check
check "kernel log has no warnings" dmesg_clean
dmesg >"$OUT/dmesg.txt"
tap_summary
