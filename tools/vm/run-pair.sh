#!/bin/bash
# Two hosts: boot two guests joined by a QEMU socket netdev (their eth0s
# are on one virtual wire) and run the same script in both, with HOSTID=a
# or b. Results land in OUTDIR/a and OUTDIR/b; exits non-zero if either
# guest failed.
#
# usage: run-pair.sh -k BZIMAGE -s SCRIPT -o OUTDIR [-t TIMEOUT_S] [-e VAR=VALUE]...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel="" script="" out="" timeout=900
extra=()
while getopts "k:s:o:t:e:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	s) script=$OPTARG ;;
	o) out=$OPTARG ;;
	t) timeout=$OPTARG ;;
	e) extra+=(-e "$OPTARG") ;;
	*) echo "usage: see $0" >&2; exit 2 ;;
	esac
done
[ -n "$kernel" ] && [ -n "$script" ] && [ -n "$out" ] ||
	{ echo "run-pair: need -k BZIMAGE -s SCRIPT -o OUTDIR" >&2; exit 2; }
rm -rf "$out/shared"
mkdir -p "$out/a" "$out/b" "$out/shared"

# A free TCP port on loopback for the socket netdev.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

common=(-k "$kernel" -s "$script" -t "$timeout" -m 1024 -S "$out/shared" "${extra[@]}")
"$here/run-vm.sh" "${common[@]}" -o "$out/a" -n "listen:$port" \
	-a 52:54:00:00:00:0a -e HOSTID=a &
pid_a=$!
# The listener must be up before the other side connects.
for _ in $(seq 50); do
	ss -ltn "sport = :$port" | grep -q LISTEN && break
	sleep 0.1
done
"$here/run-vm.sh" "${common[@]}" -o "$out/b" -n "connect:$port" \
	-a 52:54:00:00:00:0b -e HOSTID=b &
pid_b=$!

# The wire is a TCP connection on the host's loopback, and that TCP
# drops and retransmits now and then under load (measured: a frame or a
# few in most 64 MiB runs, 41 in one); every repair stalls the wire for
# both guests. So the guests can tell such a run from the rest, the
# segments it retransmitted so far, a->b then b->a, are in
# /mnt/shared/wire, refreshed every 0.2 s while the guests run.
#
# One ss for both ends (a's socket has the listening port as its local
# one): the host's CPU is what the guests run on.
retrans() {
	ss -tiHn state established "( sport = :$port or dport = :$port )" |
		awk -v p=":$port" '
		/^[^ \t]/ { a = substr($3, length($3) - length(p) + 1) == p; next }
		{ for (i = 1; i <= NF; i++) if ($i ~ /^retrans:/) { split($i, r, "/"); n[a] += r[2] } }
		END { print n[1] + 0, n[0] + 0 }'
}
# Ends with the guests, even if this script is killed first.
while kill -0 $pid_a 2>/dev/null || kill -0 $pid_b 2>/dev/null; do
	retrans >"$out/shared/wire.tmp" &&
		mv "$out/shared/wire.tmp" "$out/shared/wire"
	sleep 0.2
done &
pid_w=$!
rc=0
wait $pid_a || rc=$?
wait $pid_b || rc=$?
kill $pid_w 2>/dev/null
exit $rc
