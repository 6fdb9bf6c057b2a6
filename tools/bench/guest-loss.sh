#!/bin/bash
# What random loss costs with no wire between the hosts: one VM, two
# namespaces joined by a veth pair (guest-lib's two_hosts), ib_write_bw
# of 64 KiB messages at each loss in LOSS_SERIES (percent), the losses
# taking turns round by round, LOSS_ROUNDS rounds. Every run, lossless
# too, passes netem both ways, so the qdisc costs them alike. Writes one
# line per run to $OUT/figures.txt: perftest's average (Gbit/s) and the
# client's transport counters over the run.
#
#   tools/vm/run-vm.sh -k BZIMAGE -s tools/bench/guest-loss.sh -o OUT \
#       -e REPO=... -e KDIR=... [-e LOSS_SERIES="0 1 10" -e LOSS_ROUNDS=5 \
#       -e LOSS_ITERS=8000]
. "$REPO/tools/vm/guest-lib.sh"

SERIES=${LOSS_SERIES:-0 1 10}
ROUNDS=${LOSS_ROUNDS:-5}
ITERS=${LOSS_ITERS:-8000}
C="tx_packets tx_retransmits tx_stall_pipe tx_stall_cwnd tx_stall_psn_window
   path_losses path_rto_events path_rto_deferred path_tail_probes rto_events"

setup_modules
check "ib core loads" load_ib_core
two_hosts
# snap ARRAY: the client's counters, all at one moment, into ARRAY.
snap() {
	local -n a=$1
	local k v

	while read -r k v; do a["$k"]=$v; done < <(counters mroce3)
}
declare -A c0 c1
for r in $(seq "$ROUNDS"); do
	for l in $SERIES; do
		two_hosts_qdisc add netem loss "$l%"
		snap c0
		check "round $r, $l% loss: ib_write_bw" host_pair "loss-$r-$l" 300 \
			ib_write_bw -x -F -s 65536 -n "$ITERS" --report_gbits
		line="round $r loss $l gbits $(awk '$1 == 65536 { print $4 }' \
			"$OUT/loss-$r-$l.cli")"
		snap c1
		for k in $C; do line="$line $k $((c1[$k] - c0[$k]))"; done
		echo "$line" >>"$OUT/figures.txt"
		two_hosts_qdisc del
	done
done
two_hosts_end
tap_summary
