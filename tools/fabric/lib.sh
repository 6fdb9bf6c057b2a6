#!/bin/bash
# Fabric testbed library: a leaf/spine network of network namespaces to
# prove a multipath transport (MetaRoCE sprays one connection over several
# UDP source ports; ECMP on the leaves spreads those "paths" over planes).
#
# Source it from a (VM) test script, or use tools/fabric/fabric.sh, the
# command-line front end to the same functions:
#
#   . "$REPO/tools/fabric/lib.sh"
#   fabric_up --hosts 2 --planes 4 --ecn-bottleneck h2:8mbit
#   ip netns exec h1 ping -c1 "$(fabric_addr h2)"
#   fabric_plane_set 1 --rate 5mbit --loss 1%
#   fabric_plane_fail 2; fabric_plane_restore 2
#   fabric_stats; fabric_stat "plane 0 leaf 2" tx_bytes
#   fabric_down
#
# Functions (each documented where it is defined):
#   topo.sh   fabric_up, fabric_down, fabric_summary
#   shape.sh  fabric_plane_set, fabric_link_set, fabric_plane_fail,
#             fabric_plane_restore, fabric_show
#   stats.sh  fabric_stats, fabric_stat, fabric_stat_delta, fabric_path,
#             fabric_paths
#   here      fabric_addr, fabric_hosts, fabric_planes, fabric_exec
# They print errors as "fabric: ..." on stderr and return non-zero.
# Traffic: tools/fabric/udpflow.py (many source ports, per-port counts).
#
# Topology (one leaf per host, every leaf wired to every plane):
#
#   hI (eth0 10.0.I.1/24) -- (host 10.0.I.254) lI (pP 10.(100+P).I.1/24)
#       -- (lI 10.(100+P).I.2) pP ... pP (lJ) -- (pP) lJ (host) -- hJ
#
#   namespaces  hosts h1..hH, leaves l1..lH, planes (spines) p0..p(N-1)
#   interfaces  host: eth0; leaf: "host" towards its host, "pP" towards
#               plane P; plane: "lI" towards leaf I.
#
# Each leaf has one multipath route per remote host subnet with a nexthop
# per plane, hashed on the 5-tuple of the packet's headers with a fixed
# hash seed (FABRIC_SEED, default 1) so runs are reproducible;
# fabric_path tells which plane a 5-tuple takes. The hash policy is 3
# (custom fields: addresses, protocol, ports), not 1: policy 1 reuses an
# L4 hash the skb already carries, and over veth that is the sending
# socket's random sk_txhash, so the plane would not follow the source
# port as it does in a real switch. The kernel orders addresses and ports
# before hashing, so the hash is symmetric: hS:S -> hD:D and hD:S -> hS:D
# (or hD:D -> hS:S) take the same plane. Shaping of a plane
# (netem delay/loss -> tbf rate -> optional ECN-marking queue) sits on each
# of the plane's egress ports, so every packet crossing the plane meets it
# exactly once; see shape.sh. The qdiscs of a host link sit on the leaf's
# port towards the host (the incast bottleneck). Files: topo.sh builds and
# removes, shape.sh holds qdiscs and plane failure, stats.sh the counters.
#
# State (host and plane counts, current shaping) lives in $FABRIC_STATE
# (default /run/fabric), so separate fabric.sh invocations share it.

FABRIC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${FABRIC_STATE:=/run/fabric}"
: "${FABRIC_SEED:=1}"

fabric_err() { echo "fabric: $*" >&2; }

# _fab_num hN|N: the host/leaf number of "h3", "l3" or "3".
_fab_num() {
	local n=${1#[hl]}

	case $n in
	'' | *[!0-9]*) fabric_err "not a host: $1"; return 1 ;;
	esac
	echo "$n"
}

# fabric_addr hN: the IPv4 address of host N (10.0.N.1).
fabric_addr() {
	local n

	n=$(_fab_num "$1") || return 1
	echo "10.0.$n.1"
}

# fabric_hosts / fabric_planes: the counts of the fabric that is up.
fabric_hosts() { _fab_get HOSTS; }
fabric_planes() { _fab_get PLANES; }

_fab_get() {
	[ -f "$FABRIC_STATE/fabric.conf" ] || { fabric_err "no fabric is up"; return 1; }
	sed -n "s/^$1=//p" "$FABRIC_STATE/fabric.conf"
}

# fabric_exec NS CMD...: run CMD in a fabric namespace (h1, l1, p0, ...).
fabric_exec() {
	local n=$1

	shift
	ip netns exec "$n" "$@"
}

# _fab_sysctls NS KEY=VALUE...: set sysctls in a namespace in one exec.
_fab_sysctls() {
	local n=$1 kv script=""

	shift
	for kv in "$@"; do
		script+="echo ${kv#*=} >/proc/sys/$(echo "${kv%%=*}" | tr . /) || exit 1;"
	done
	ip netns exec "$n" sh -c "$script"
}

# _fab_rate_bps RATE: bits per second of a tc rate (N, Nbit, Nkbit, Nmbit,
# Ngbit; k/m/g are decimal as in tc).
_fab_rate_bps() {
	local r=${1%bit} mul=1

	case $r in
	*[kK]) mul=1000; r=${r%?} ;;
	*[mM]) mul=1000000; r=${r%?} ;;
	*[gG]) mul=1000000000; r=${r%?} ;;
	esac
	case $r in
	'' | *[!0-9.]*) fabric_err "bad rate: $1 (use e.g. 500kbit, 20mbit)"; return 1 ;;
	esac
	echo "$r * $mul / 1" | bc
}

. "$FABRIC_DIR/topo.sh"
. "$FABRIC_DIR/shape.sh"
. "$FABRIC_DIR/stats.sh"
