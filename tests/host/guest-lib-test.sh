#!/bin/bash
# dmesg_clean (tools/vm/guest-lib.sh) on a fake kernel log: a report from
# the boot, before the test's start mark, is noted and not failed; one
# after the mark fails, also once cleared (dmesg_clear); without the mark
# the whole log is judged. counters and counter read a fake "rdma
# statistic" line. Exits 0 when all hold.
set -u
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
REPO=$(cd "$(dirname "$0")/../.." && pwd)
export REPO KDIR=/nonexistent OUT=$dir MROCE_KMSG=/dev/null
log=$dir/log
dmesg() { cat "$log"; [ "${1:-}" = -c ] && : >"$log"; return 0; }
printf '[    1.5] BUG: KASAN: wild-memory-access in rcu_is_watching\n[    1.6] x\n' >"$log"
# shellcheck source=../../tools/vm/guest-lib.sh
. "$REPO/tools/vm/guest-lib.sh"
echo "[    2.0] $_dmesg_mark" >>"$log"
echo "[    3.0] fine" >>"$log"
bad=0
dmesg_clean >/dev/null || { echo "FAIL: a boot-time report failed the check"; bad=1; }
grep -q '^# note: the boot log' "$TAP" || { echo "FAIL: the boot-time report was not noted"; bad=1; }
dmesg_clear
echo "[    4.0] WARNING: CPU: 0 PID: 1 at foo" >>"$log"
dmesg_clear
dmesg_clean >/dev/null && { echo "FAIL: a cleared warning after the mark passed"; bad=1; }
rm -f "$OUT/dmesg-cleared.txt"
printf '[    1.5] WARNING: no mark\n' >"$log"
dmesg_clean >/dev/null && { echo "FAIL: without the mark a warning passed"; bad=1; }
rdma() {
	[ "$*" = "statistic show link mroce9/1" ] &&
		echo "link mroce9/1 rx_packets 12 tx_packets 7 path_rto_deferred 0 "
}
[ "$(counters mroce9 | tr '\n' ,)" = "rx_packets 12,tx_packets 7,path_rto_deferred 0," ] ||
	{ echo "FAIL: counters: $(counters mroce9 | tr '\n' ,)"; bad=1; }
[ "$(counter mroce9 tx_packets)" = 7 ] && [ "$(counter mroce9 path_rto_deferred)" = 0 ] &&
	[ -z "$(counter mroce9 packets)" ] ||
	{ echo "FAIL: counter read the wrong value"; bad=1; }
[ $bad = 0 ] && echo "guest-lib dmesg_clean, counters: 6 checks passed"
exit $bad
