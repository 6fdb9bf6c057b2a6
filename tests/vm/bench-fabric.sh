#!/bin/bash
# make bench, fabric part (one VM, tools/fabric): plane scaling, plane
# failure, incast and planes of unequal delay for MetaRoCE. rdma_rxe
# cannot take part: its UDP socket lives in init_net only, and the
# fabric's hosts are namespaces (besides, rxe uses one path, so more
# planes cannot help it).
#
# Writes $OUT/bench.csv (bench,stack,x,metric,value) and time series:
# failover.ts ("seconds Mb/s" at the receiver), failover.stalls (the
# guest's own stalls meanwhile, tools/bench/stallmon.c: "epoch ms"),
# incastN.ts ("seconds rate1 ... rateN jain marks" per 0.1 s sample,
# rates in Mb/s).
#
# env (lists comma-separated): BENCH_PLANES (1,2,4,8), BENCH_PLANE_RATE
# (Mbit/s per plane, 6), BENCH_PLANE_ECN (the planes' queues: red, the
# ECN-marking fabric the protocol is built for; codel; or off, tail drop
# at 100 ms), BENCH_PLANE_SECS (8: seconds a scaling run
# should take at full rate), BENCH_PATHS (paths per connection: 16, and
# at least 4 per plane), BENCH_FAIL_SECS (4: before, during and after the
# failure), BENCH_INCAST (2,4,8), BENCH_BOTTLENECK (Mbit/s, 16),
# BENCH_INCAST_SECS (12), BENCH_SKEW (ms of extra delay on one plane of
# 4 in the skew part, 0 for the baseline: 0,5,20), BENCH_PARTS
# (planes,failover,incast,skew),
# BENCH_TRACE (metaroce tracepoints to record into $OUT/trace.txt, e.g.
# mroce_rto,mroce_path,mroce_retransmit; none by default)
. "$REPO/tools/vm/guest-lib.sh"
. "$REPO/tools/fabric/lib.sh"

FIG=$OUT/figures.txt
: >"$FIG"
CSV=$OUT/bench.csv
echo "bench,stack,x,metric,value" >"$CSV"
SIZE=65536
RATE=${BENCH_PLANE_RATE:-6}
PECN=${BENCH_PLANE_ECN:-red}
PLANES=${BENCH_PLANES:-1,2,4,8}
PSECS=${BENCH_PLANE_SECS:-8}
FSECS=${BENCH_FAIL_SECS:-4}
INCAST=${BENCH_INCAST:-2,4,8}
BOTTLE=${BENCH_BOTTLENECK:-16}
ISECS=${BENCH_INCAST_SECS:-12}
SKEW=${BENCH_SKEW:-0,5,20}
PARTS=${BENCH_PARTS:-planes,failover,incast,skew}
STALL_MS=15	# the shortest guest stall the failover part logs

fig() { echo "$*" | tee -a "$FIG"; }
row() { echo "$1,metaroce,$2,$3,$4" >>"$CSV"; }
part() { [[ ",$PARTS," == *",$1,"* ]]; }
# paths N: paths per connection for N planes.
paths() { local p=${BENCH_PATHS:-16}; [ "$p" -lt $((4 * $1)) ] && p=$((4 * $1)); echo "$p"; }
# msgs MBIT SECS: 64 KiB messages that take SECS at MBIT Mbit/s.
msgs() { awk -v r="$1" -v s="$2" 'BEGIN { n = int(r * 1e6 * s / 8 / 65536); print (n < 10 ? 10 : n) }'; }

. "$REPO/tests/vm/fabric-lib.sh"

HWC="tx_packets tx_retransmits rto_events path_losses path_probes path_tail_probes path_failed path_recovered"
# hwc DEV: the $HWC counters of DEV.
hwc() {
	local c
	for c in $HWC; do
		printf '%s ' "$(cat "/sys/class/infiniband/$1/ports/1/hw_counters/$c" 2>/dev/null || echo 0)"
	done
}
# hwc_rows BENCH X BEFORE AFTER: the sender's counter deltas as rows.
hwc_rows() {
	local a b names i
	read -ra names <<<"$HWC"
	read -ra a <<<"$3"
	read -ra b <<<"$4"
	for i in "${!names[@]}"; do row "$1" "$2" "${names[i]}" $((b[i] - a[i])); done
}
# wire_bytes SAMPLES: bytes the sampled link carried over the run.
wire_bytes() { awk 'NR == 1 { b0 = $2 } END { print $2 - b0 }' "$1"; }

setup_modules
check "ib core loads" load_ib_core
# trace_on: record the BENCH_TRACE events, when any are asked for;
# called after each fabric comes up, since that is what loads the module.
trace_on() { [ -z "${BENCH_TRACE:-}" ] || check "tracepoints on: $BENCH_TRACE" trace_events "$BENCH_TRACE"; }
row info 0 plane_rate_mbps "$RATE"
row info 0 plane_ecn "$PECN"
row info 0 bottleneck_mbps "$BOTTLE"

# --- plane scaling: N planes of RATE Mbit/s each ------------------------
if part planes; then
	for n in ${PLANES//,/ }; do
		PATHS=$(paths "$n")
		check "fabric up: 2 hosts, $n planes of $RATE Mbit/s, $PATHS paths" \
			fabric 2 "$n" --rate "${RATE}mbit" --ecn "$PECN"
		trace_on
		t0=$EPOCHREALTIME
		c0=$(hwc mroce2)
		nm=$(msgs $((n * RATE)) "$PSECS")
		g=$(write_bw "planes$n" h2 h1 "$nm") || g=0
		hwc_rows planes "$n" "$c0" "$(hwc mroce2)"
		row planes "$n" app_bytes $((nm * SIZE))
		row planes "$n" wire_bytes "$(wire_bytes "$OUT/planes$n.samples")"
		fig "planes $n: goodput $g Mbit/s ($(awk -v g="$g" -v n="$n" -v r="$RATE" \
			'BEGIN { printf "%.3f", g / (n * r) }') of the plane rates)"
		row planes "$n" goodput_mbps "$g"
		row planes "$n" wall_s "$(echo "$EPOCHREALTIME - $t0" | bc)"
		row planes "$n" paths "$PATHS"
	done
fi

# --- plane failure: one of 4 planes blackholed, then restored -----------
# The receiver's link is sampled every 0.1 s through the transfer; the
# times the failure and the restore were issued are recorded (a tc
# command alone takes a while under TCG: both its start and end are kept).
if part failover; then
	PATHS=$(paths 4)
	check "fabric up: 4 planes of $RATE Mbit/s for failover" \
		fabric 2 4 --rate "${RATE}mbit" --ecn "$PECN"
	trace_on
	moving() { [ "$(wc -l <"$OUT/failover.samples" 2>/dev/null)" -gt 3 ] &&
		tail -1 "$OUT/failover.samples" | awk -v b="$(head -1 "$OUT/failover.samples" | cut -d' ' -f2)" '{ exit !($2 - b > 200000) }'; }
	c0=$(hwc mroce2)
	stm=
	if [ -x "$REPO/build/bench/stallmon" ]; then
		"$REPO/build/bench/stallmon" "$STALL_MS" >"$OUT/failover.stalls" &
		stm=$!
		row failover 4 stall_min_ms "$STALL_MS"
	fi
	write_bw failover h2 h1 "$(msgs $((4 * RATE)) $((FSECS * 4)))" >"$OUT/failover.gp" &
	job=$!
	wait_for 60 moving
	# Plane 1's bytes towards h1: when they stop is when the failure
	# took effect, somewhere inside the slow tc command.
	ip netns exec p1 bash -c 'exec 3<> <(:); while read -r b </sys/class/net/l1/statistics/tx_bytes; do echo "$EPOCHREALTIME $b"; read -r -t 0.1 -u 3 || :; done' \
		>"$OUT/failover.p1" &
	p1s=$!
	sleep "$FSECS"
	f0=$EPOCHREALTIME
	fabric_plane_fail 1
	f1=$EPOCHREALTIME
	sleep "$FSECS"
	r0=$EPOCHREALTIME
	fabric_plane_restore 1
	r1=$EPOCHREALTIME
	wait $job
	rc=$?
	kill $p1s $stm
	wait $p1s $stm 2>/dev/null
	# The failure's effective time: plane 1's last byte after f0.
	fe=$(awk -v f="$f0" -v e="$f1" '$1 >= f && $1 <= e + 1 && $2 > pb { t = $1 } { pb = $2 } END { print t ? t : f }' "$OUT/failover.p1")
	row failover 4 fail_effective "$fe"
	check "failover: transfer completes, no QP error" test $rc = 0
	hwc_rows failover 4 "$c0" "$(hwc mroce2)"
	row failover 4 rc "$rc"
	row failover 4 fail_start "$f0"
	row failover 4 fail_end "$f1"
	row failover 4 restore_start "$r0"
	row failover 4 restore_end "$r1"
	row failover 4 goodput_mbps "$(cat "$OUT/failover.gp")"
	fig "failover: rc $rc goodput $(cat "$OUT/failover.gp") Mbit/s; failed $f0..$f1 restored $r0..$r1"
	fig "path counters: failed $(counter mroce2 path_failed) recovered $(counter mroce2 path_recovered) rto $(counter mroce2 path_rto_events)"
	# Mb/s per sample interval, time relative to the failure taking effect.
	awk -v f="$fe" 'NR > 1 && $1 > pt { printf "%.2f %.3f\n", $1 - f, ($2 - pb) * 8 / ($1 - pt) / 1e6 }
		{ pt = $1; pb = $2 }' "$OUT/failover.samples" >"$OUT/failover.ts"
fi

# --- incast: N senders into h1 behind a shaped, ECN-marking port --------
# Senders start together; one shell in each sender's leaf samples its
# bytes into the leaf every 0.1 s, another the receiver's CE count.
if part incast; then
	for k in ${INCAST//,/ }; do
		PATHS=$(paths 2)
		hosts=$((k + 1))
		check "fabric up: $hosts hosts, bottleneck ${BOTTLE} Mbit/s to h1" \
			fabric "$hosts" 2 --ecn-bottleneck "h1:${BOTTLE}mbit"
		trace_on
		cap=$((BOTTLE * 8 / 10))
		echo "$cap" >/sys/class/infiniband/mroce1/rate_capacity_mbps
		row incast "$k" capacity_mbps "$cap"
		check "incast $k: rate hint tracepoints on" rate_trace start
		mkdir -p /run/incast && rm -f /run/incast/*
		# Base RTT: the median of 10 idle pings after one that resolves
		# the neighbour; the mean of 5 that included it read 0.67-2.1 ms.
		ns h2 ping -c 1 -W 2 "$(fabric_addr h1)" >/dev/null
		rtt=$(ns h2 ping -c 10 -i 0.2 "$(fabric_addr h1)" |
			sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' | sort -g |
			awk '{ v[NR] = $1 } END { if (NR) print (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }')
		row incast "$k" base_rtt_ms "${rtt:-0}"
		per=$(msgs $((BOTTLE / k)) "$ISECS")
		pids=()
		for i in $(seq 2 "$hosts"); do
			ip netns exec "l$i" bash -c 'exec 3<> <(:); while read -r b </sys/class/net/host/statistics/rx_bytes; do echo "$EPOCHREALTIME $b"; read -r -t 0.1 -u 3 || :; done' \
				>"/run/incast/$i" &
			pids+=($!)
		done
		( c=/sys/class/infiniband/mroce1/ports/1/hw_counters/ecn_ce_received
		  while :; do echo "$EPOCHREALTIME $(cat $c 2>/dev/null || counter mroce1 ecn_ce_received)"; sleep 0.2; done ) \
			>/run/incast/marks &
		pids+=($!)
		jobs_=()
		for i in $(seq 2 "$hosts"); do
			write_bw "incast$k-$i" "h$i" h1 "$per" $((18515 + i)) \
				>"$OUT/incast$k-$i.gp" &
			jobs_+=($!)
		done
		ok_all=1
		for j in "${jobs_[@]}"; do wait "$j" || ok_all=0; done
		kill "${pids[@]}" 2>/dev/null
		wait "${pids[@]}" 2>/dev/null
		check "incast $k: rate hints traced" rate_trace stop "$OUT/incast$k.trace"
		check "incast $k: all transfers complete" test $ok_all = 1
		row incast "$k" complete "$ok_all"
		for i in $(seq 2 "$hosts"); do
			row incast "$k" "goodput_mbps_h$i" "$(cat "$OUT/incast$k-$i.gp" 2>/dev/null || echo 0)"
			cp "/run/incast/$i" "$OUT/incast$k-h$i.samples"
		done
		cp /run/incast/marks "$OUT/incast$k.marks"
		fig "incast $k: complete $ok_all, rtt ${rtt} ms, goodputs $(cat "$OUT"/incast"$k"-*.gp | tr '\n' ' ')"
	done
fi

# --- skew: 4 planes, one of them SKEW ms slower both ways ----------------
# ECMP paths differ in delay; every packet of the slow plane arrives after
# later PSNs of the others, and must neither stall the connection nor be
# taken for lost. The receiver's counters tell what it cost: its
# tx_packets are its ACKs (ib_write_bw's receiver sends nothing else).
if part skew; then
	PATHS=$(paths 4)
	for d in ${SKEW//,/ }; do
		check "fabric up: 4 planes of $RATE Mbit/s, plane 1 ${d} ms slower" \
			fabric 2 4 --rate "${RATE}mbit" --ecn "$PECN"
		check "skew $d: plane 1 delayed" fabric_plane_set 1 --delay "${d}ms"
		trace_on
		c0=$(hwc mroce2)
		k0=$(counter mroce1 tx_packets) o0=$(counter mroce1 rx_out_of_order)
		nm=$(msgs $((4 * RATE)) "$PSECS")
		g=$(write_bw "skew$d" h2 h1 "$nm") || g=0
		check "skew $d: transfer completes" test "$g" != 0
		hwc_rows skew "$d" "$c0" "$(hwc mroce2)"
		acks=$(($(counter mroce1 tx_packets) - k0))
		ooo=$(($(counter mroce1 rx_out_of_order) - o0))
		row skew "$d" acks "$acks"
		row skew "$d" rx_out_of_order "$ooo"
		row skew "$d" app_bytes $((nm * SIZE))
		row skew "$d" wire_bytes "$(wire_bytes "$OUT/skew$d.samples")"
		row skew "$d" goodput_mbps "$g"
		row skew "$d" paths "$PATHS"
		fig "skew $d ms: goodput $g Mbit/s, acks $acks, out of order $ooo"
	done
fi

if [ -n "${BENCH_TRACE:-}" ]; then
	trace_save "$OUT/trace.txt"
fi
fabric_down >/dev/null 2>&1
rmdir "$RT" 2>/dev/null
check "rmmod" rmmod rdma_metaroce
check "kernel log has no warnings" dmesg_clean
dmesg >"$OUT/dmesg.txt"
tap_summary
