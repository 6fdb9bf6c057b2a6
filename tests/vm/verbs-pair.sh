#!/bin/bash
# Two hosts (run-pair.sh): the verbs data path between two kernels over one
# virtual wire, with DEVTYPE=rxe (today's reference) or metaroce. Host a
# serves, host b is the client. Runs mroce-verify over rdma_cm, Debian's
# perftest, the ibverbs pingpongs, rping and ucmatose; with NETEM=1 also
# mroce-verify under netem loss, duplication, reordering and corruption.
# Every command is bounded by timeout; raw outputs are kept in $OUT.
#
# env: DEVTYPE (rxe), NETEM (0), NETEM_ONLY (0: 1 runs only the netem part),
#      MV_SIZE (8M), QUICK=1 (skip perftest -a)
. "$REPO/tools/vm/guest-lib.sh"
# guest-lib points libibverbs at our provider; rxe needs only Debian's, and
# a provider under construction must not take rxe's tests down with it.
[ "${DEVTYPE:-rxe}" = rxe ] && unset RDMAV_DRIVERS

DEVTYPE=${DEVTYPE:-rxe}
NETEM=${NETEM:-0}
MV_SIZE=${MV_SIZE:-8M}
dev=${DEVTYPE}0
MV=$REPO/tests/tools/build/mroce-verify
. "$REPO/tests/vm/pair-lib.sh"

setup_modules
check "ib core loads" load_ib_core
[ "$DEVTYPE" = rxe ] && check "rdma_rxe loads" modprobe rdma_rxe
eth0_up
bind_eth0 "$dev" "$DEVTYPE"
check "mroce-verify built" test -x "$MV"
G=$(gid_v4)
echo "host $me: $dev, IPv4 GID index $G"
ibv_devinfo -v -d "$dev" >"$OUT/devinfo.txt" 2>&1
meet_peer bound

if [ "${NETEM_ONLY:-0}" != 1 ]; then
# --- mroce-verify: every opcode, sizes to 8 MiB, over rdma_cm ---
MVS=("$MV" -s -d "$dev" -p 18515 -W 120 -w 60)
pair mroce-verify-cm 900 cm 1 "${MVS[@]}" -- \
	"$MV" -c $srv_ip -d "$dev" -p 18515 -S "$MV_SIZE" -x 7 -T 600 -w 60
pair mroce-verify-tcp 600 tcp:18516 1 "$MV" -s -m tcp -d "$dev" -p 18516 -W 120 -- \
	"$MV" -c $srv_ip -m tcp -d "$dev" -p 18516 -S 1M -r 4 -x 8 -T 300

# --- perftest (Debian's, unmodified) ---
P=(-d "$dev" -x "$G" -F)
pt() {	# pt NAME TMO MULT READY TOOL ARGS...: same args on both sides
	local name=$1 tmo=$2 mult=$3 rdy=$4 tool=$5 port
	shift 5
	port=$((19000 + step))
	pair "$name" "$tmo" "$rdy" "$mult" "$tool" "${P[@]}" -p $port "$@" -- \
		"$tool" "${P[@]}" -p $port "$@" $srv_ip
}
tcp() { echo "tcp:$((19000 + step))"; }
pt ib_write_bw 180 1 "$(tcp)" ib_write_bw -n 1000
pt ib_read_bw 180 1 "$(tcp)" ib_read_bw -n 1000
pt ib_send_bw 180 1 "$(tcp)" ib_send_bw -n 1000
pt ib_atomic_bw 180 1 "$(tcp)" ib_atomic_bw -n 1000
pt ib_write_lat 180 2 "$(tcp)" ib_write_lat -n 200
pt ib_send_lat 180 2 "$(tcp)" ib_send_lat -n 200
pt ib_read_lat 180 1 "$(tcp)" ib_read_lat -n 200
if [ "${QUICK:-0}" != 1 ]; then
	pt ib_write_bw-a 300 1 "$(tcp)" ib_write_bw -a -n 5
	pt ib_read_bw-a 300 1 "$(tcp)" ib_read_bw -a -n 5
	pt ib_send_bw-a 300 1 "$(tcp)" ib_send_bw -a -n 5
	pt ib_write_lat-a 300 2 "$(tcp)" ib_write_lat -a -n 5
fi
pt ib_write_bw-q4 180 1 "$(tcp)" ib_write_bw -q 4 -n 250
pt ib_send_bw-q4 180 1 "$(tcp)" ib_send_bw -q 4 -n 250
pt ib_write_bw-b 180 2 "$(tcp)" ib_write_bw -b -n 500
pt ib_send_bw-b 180 2 "$(tcp)" ib_send_bw -b -n 500
pt ib_write_bw-R 180 1 cm ib_write_bw -R -n 1000
pt ib_read_bw-R 180 1 cm ib_read_bw -R -n 1000
pt ib_send_lat-R 180 2 cm ib_send_lat -R -n 200

# --- ibverbs examples (buffers validated with -c) ---
pg() {	# pg NAME TOOL ARGS...
	local name=$1 tool=$2 port
	shift 2
	port=$((19500 + step))
	pair "$name" 180 "tcp:$((19500 + step))" 1 \
		"$tool" -d "$dev" -g "$G" -p $port -c "$@" -- \
		"$tool" -d "$dev" -g "$G" -p $port -c "$@" $srv_ip
}
pg ibv_rc_pingpong ibv_rc_pingpong -n 200 -s 4096
pg ibv_ud_pingpong ibv_ud_pingpong -n 200 -s 512
pg ibv_srq_pingpong ibv_srq_pingpong -n 100 -q 4 -s 4096

# --- librdmacm examples ---
pair rping 180 cm =1600000 rping -s -a $srv_ip -p 7174 -C 200 -S 4000 -V -- \
	rping -c -a $srv_ip -p 7174 -C 200 -S 4000 -V
pair ucmatose 180 cm =400000 ucmatose -p 7471 -c 4 -C 50 -S 1000 -- \
	ucmatose -s $srv_ip -p 7471 -c 4 -C 50 -S 1000

fi # NETEM_ONLY

# --- netem: mroce-verify on an impaired wire (NETEM=1) ---
# rxe (RoCEv2 go-back-N) is not built for this: it may time out or fail with
# retry-exceeded. The DEVTYPE-specific rule: metaroce must complete intact;
# any device must never deliver corrupt bytes.
netem_case() {
	local name=$1 tag="netem-$1" out rc
	shift
	step=$((step + 1))
	tc qdisc add dev eth0 root netem "$@"
	arrive "$tag.ready"
	await "$tag.ready" 60
	out="$raw/$step-$tag.$me.txt"
	if [ "$me" = a ]; then
		timeout -k 5 400 "$MV" -s -d "$dev" -p $((18600 + step)) -W 120 -w 60 \
			>"$out" 2>&1 &
		local pid=$!
		ready_when cm
		arrive "$tag.listen"
		await "$tag.done" 460
		for _ in $(seq 200); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
		kill -0 $pid 2>/dev/null && kill $pid
		wait $pid
		rc=$?
	else
		await "$tag.listen" 60
		local t0
		t0=$(now)
		timeout -k 5 400 "$MV" -c $srv_ip -d "$dev" -p $((18600 + step)) \
			-S 1M -r 4 -x $step -T 180 -w 60 -W 60 >"$out" 2>&1
		rc=$?
		arrive "$tag.done"
		printf '%-28s rc %3s  %7.1fs  %s\n' "$tag" $rc \
			"$(echo "$(now) - $t0" | bc)" "$(grep '^ok\|^not ok' "$out")" | tee -a "$FIG"
		grep '^#' "$out" | sed 's/^/    /' | tee -a "$FIG"
	fi
	tc qdisc del dev eth0 root
	tail -3 "$out"
	if grep -q 'corrupt bytes' "$out"; then
		fail "$tag ($*): corrupt data delivered (rc $rc)"
	elif [ $rc = 0 ]; then
		ok "$tag ($*): completed intact"
	elif [ "$DEVTYPE" = metaroce ]; then
		fail "$tag ($*): did not complete (rc $rc)"
	else
		ok "$tag ($*): $DEVTYPE did not complete (rc $rc), no corruption # expected for $DEVTYPE"
	fi
	arrive "$tag.end"
	await "$tag.end" 120
}
if [ "$NETEM" = 1 ] || [ "${NETEM_ONLY:-0}" = 1 ]; then
	netem_case loss1 loss 1%
	netem_case loss10 loss 10%
	netem_case dup duplicate 5%
	netem_case reorder delay 2ms reorder 25% 50%
	netem_case corrupt corrupt 1%
fi

arrive done
check "peer finished" await done 300
[ -s "$FIG" ] && { echo "=== figures (host $me) ==="; cat "$FIG"; }
check "rdma link delete $dev" rdma link delete "$dev"
check "kernel log has no warnings" dmesg_clean
tap_summary
