#!/bin/bash
# Two hosts: boot two guests whose eth0s are on one virtual wire and run
# the same script in both, with HOSTID=a or b. Results land in OUTDIR/a
# and OUTDIR/b; exits non-zero if either guest failed.
#
# The wire is a UNIX stream socket between the two QEMUs (-w unix, the
# default): a FIFO that neither drops nor reorders and whose speed does
# not depend on the host's TCP settings. -w tcp joins them over a TCP
# connection on loopback instead (QEMU's socket netdev), as the figures
# before 2026-12-05 were measured: that TCP runs the host's congestion
# control and retransmits now and then under load, stalling the wire.
#
# usage: run-pair.sh -k BZIMAGE -s SCRIPT -o OUTDIR [-t TIMEOUT_S] [-w unix|tcp]
#                    [-e VAR=VALUE]...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel="" script="" out="" timeout=900 wire=unix
extra=()
while getopts "k:s:o:t:w:e:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	s) script=$OPTARG ;;
	o) out=$OPTARG ;;
	t) timeout=$OPTARG ;;
	w) wire=$OPTARG ;;
	e) extra+=(-e "$OPTARG") ;;
	*) echo "usage: see $0" >&2; exit 2 ;;
	esac
done
[ -n "$kernel" ] && [ -n "$script" ] && [ -n "$out" ] ||
	{ echo "run-pair: need -k BZIMAGE -s SCRIPT -o OUTDIR" >&2; exit 2; }
rm -rf "$out/shared"
mkdir -p "$out/a" "$out/b" "$out/shared"
# What the figures were measured on (make bench's report says so).
echo "$wire" >"$out/wire"

case $wire in
unix)	# A short path: sun_path holds 108 bytes, OUTDIR may be longer.
	sockdir=$(mktemp -d /tmp/mroce-wire.XXXXXX)
	trap 'rm -rf "$sockdir"' EXIT
	addr=$sockdir/sock
	listening() { [ -S "$addr" ]; } ;;
tcp)	# A free port on loopback.
	addr=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	listening() { ss -ltn "sport = :$addr" | grep -q LISTEN; } ;;
*)	echo "run-pair: -w unix or -w tcp" >&2; exit 2 ;;
esac

common=(-k "$kernel" -s "$script" -t "$timeout" -m 1024 -S "$out/shared" "${extra[@]}")
"$here/run-vm.sh" "${common[@]}" -o "$out/a" -n "listen:$addr" \
	-a 52:54:00:00:00:0a -e HOSTID=a &
pid_a=$!
# The listener must be up before the other side connects.
for _ in $(seq 50); do
	listening && break
	sleep 0.1
done
"$here/run-vm.sh" "${common[@]}" -o "$out/b" -n "connect:$addr" \
	-a 52:54:00:00:00:0b -e HOSTID=b &
pid_b=$!

# A TCP wire drops and retransmits now and then under load (measured: a
# frame or a few in most 64 MiB runs, 41 in one); every repair stalls
# the wire for both guests. So the guests can tell such a run from the
# rest, the segments it retransmitted so far, a->b then b->a, are in
# /mnt/shared/wire, refreshed every 0.2 s while the guests run.
#
# One ss for both ends (a's socket has the listening port as its local
# one): the host's CPU is what the guests run on.
retrans() {
	ss -tiHn state established "( sport = :$addr or dport = :$addr )" |
		awk -v p=":$addr" '
		/^[^ \t]/ { a = substr($3, length($3) - length(p) + 1) == p; next }
		{ for (i = 1; i <= NF; i++) if ($i ~ /^retrans:/) { split($i, r, "/"); n[a] += r[2] } }
		END { print n[1] + 0, n[0] + 0 }'
}
# Ends with the guests, even if this script is killed first.
pid_w=
if [ "$wire" = tcp ]; then
	while kill -0 $pid_a 2>/dev/null || kill -0 $pid_b 2>/dev/null; do
		retrans >"$out/shared/wire.tmp" &&
			mv "$out/shared/wire.tmp" "$out/shared/wire"
		sleep 0.2
	done &
	pid_w=$!
fi
rc=0
wait $pid_a || rc=$?
wait $pid_b || rc=$?
[ -z "$pid_w" ] || kill "$pid_w" 2>/dev/null
exit $rc
