#!/bin/bash
# Where MetaRoCE spends the CPU in a perftest run: one VM, two namespaces
# joined by a veth pair (guest-lib's two_hosts), PROF_TOOL (ib_write_bw;
# ib_read_bw and ib_send_bw work too) of PROF_SIZE-byte messages while
# perf samples every CPU (cpu-clock: TCG has no PMU). Writes
# $OUT/perf-report.txt (flat, by symbol) and $OUT/perf-callers.txt (call
# graph of the top kernel symbols).
#
#   tools/vm/run-vm.sh -k BZIMAGE -s tools/bench/guest-profile.sh -o OUT \
#       -e REPO=... -e KDIR=... [-e PROF_SIZE=65536 -e PROF_ITERS=1500 \
#       -e PROF_TOOL=ib_write_bw -e PROF_LOSS=0]
#
# PROF_LOSS (percent, 0) drops that share of packets both ways (netem on
# both ends of the veth): where the CPU goes while repairing.
. "$REPO/tools/vm/guest-lib.sh"

SIZE=${PROF_SIZE:-65536}
ITERS=${PROF_ITERS:-1500}
TOOL=${PROF_TOOL:-ib_write_bw}
LOSS=${PROF_LOSS:-0}

setup_modules
check "ib core loads" load_ib_core
two_hosts
if [ "$LOSS" != 0 ]; then
	check "netem loss $LOSS% both ways" two_hosts_qdisc add netem loss "$LOSS%"
fi
ns h2 "$TOOL" -F -d mroce2 -x "$g2" -s "$SIZE" -n "$ITERS" >"$OUT/srv.txt" 2>&1 &
srv=$!
sleep 1
perf_start
t0=$EPOCHREALTIME
ns h3 "$TOOL" -F -d mroce3 -x "$g3" -s "$SIZE" -n "$ITERS" 10.14.0.1 >"$OUT/cli.txt" 2>&1
rc=$?
t1=$EPOCHREALTIME
perf_stop "$OUT/perf"
wait $srv
check "$TOOL ran (rc $rc)" test $rc = 0
awk -v b=$((SIZE * ITERS)) -v t0="$t0" -v t1="$t1" \
	'BEGIN { printf "wall %.2f s, %.1f Mbit/s incl. setup\n", t1 - t0, b * 8 / (t1 - t0) / 1e6 }' |
	tee "$OUT/rate.txt"
check "perf report has samples" test -s "$OUT/perf-report.txt"
two_hosts_end
tap_summary
