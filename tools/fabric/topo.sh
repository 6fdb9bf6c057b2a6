#!/bin/bash
# Fabric topology: build and remove the namespaces, links, addresses and
# multipath routes described in lib.sh. Sourced by lib.sh.
#
# fabric_up [--hosts H] [--planes N] [--rate R] [--delay D] [--loss L]
#           [--ecn off|red|codel] [--ecn-bottleneck hI:RATE[:red|codel]]...
#           [--seed S]
#   H hosts (default 2, up to 200) and N planes (default 4, up to 32).
#   --rate/--delay/--loss/--ecn shape every plane (see fabric_plane_set);
#   --ecn-bottleneck limits the leaf's port towards host I to RATE with an
#   ECN-marking queue (default red), the place where incast congests.
#   --seed sets the ECMP hash seed of the leaves (default $FABRIC_SEED).
# fabric_down: remove every namespace of the fabric and its state.

fabric_up() {
	local hosts=2 planes=4 rate="" delay="" loss="" ecn=off seed=$FABRIC_SEED
	local bottlenecks=() n

	while [ $# -gt 0 ]; do
		case $1 in
		--hosts) hosts=$2; shift 2 ;;
		--planes) planes=$2; shift 2 ;;
		--rate) rate=$2; shift 2 ;;
		--delay) delay=$2; shift 2 ;;
		--loss) loss=$2; shift 2 ;;
		--ecn) ecn=$2; shift 2 ;;
		--ecn-bottleneck) bottlenecks+=("$2"); shift 2 ;;
		--seed) seed=$2; shift 2 ;;
		*) fabric_err "up: unknown option $1"; return 2 ;;
		esac
	done
	case "$hosts.$planes.$seed" in
	*[!0-9.]* | .* | *..*) fabric_err "up: counts and seed are numbers"; return 2 ;;
	esac
	if [ "$hosts" -lt 2 ] || [ "$hosts" -gt 200 ] ||
	   [ "$planes" -lt 1 ] || [ "$planes" -gt 32 ]; then
		fabric_err "up: need 2..200 hosts and 1..32 planes"
		return 2
	fi
	if [ -f "$FABRIC_STATE/fabric.conf" ]; then
		fabric_err "up: a fabric is up already (fabric.sh down first)"
		return 1
	fi
	for n in $(_fab_all_ns "$hosts" "$planes"); do
		if [ -e "/run/netns/$n" ]; then
			fabric_err "up: namespace $n exists already"
			return 1
		fi
	done
	mkdir -p "$FABRIC_STATE/shape"
	printf 'HOSTS=%s\nPLANES=%s\nSEED=%s\n' "$hosts" "$planes" "$seed" \
		>"$FABRIC_STATE/fabric.conf"
	# A half-built fabric is removed again, so a retry starts clean.
	if ! _fab_build "$hosts" "$planes" "$seed" "$rate" "$delay" "$loss" \
			"$ecn" "${bottlenecks[@]}"; then
		fabric_err "up: building the fabric failed; removed it again"
		fabric_down
		return 1
	fi
	fabric_summary
}

# _fab_build H N SEED RATE DELAY LOSS ECN BOTTLENECK...
_fab_build() {
	local hosts=$1 planes=$2 seed=$3 rate=$4 delay=$5 loss=$6 ecn=$7
	local i j p b h n

	shift 7

	# Namespaces and their sysctls first: interfaces created later take
	# the "default" values (rp_filter off; ECMP over asymmetric paths).
	for n in $(_fab_all_ns "$hosts" "$planes"); do
		ip netns add "$n" && ip -n "$n" link set lo up || return 1
	done
	for i in $(seq 1 "$hosts"); do
		_fab_sysctls "l$i" net.ipv4.ip_forward=1 \
			net.ipv4.fib_multipath_hash_policy=3 \
			net.ipv4.fib_multipath_hash_fields=0x0037 \
			net.ipv4.fib_multipath_hash_seed="$seed" \
			net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
			net.ipv4.conf.all.ignore_routes_with_linkdown=1 \
			net.ipv4.conf.default.ignore_routes_with_linkdown=1 || return 1
	done
	for p in $(seq 0 $((planes - 1))); do
		_fab_sysctls "p$p" net.ipv4.ip_forward=1 \
			net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 || return 1
	done

	# Links, created in place from here; then each namespace's addresses,
	# routes and link states in one "ip -n NS -b -" (fast under TCG).
	{
		for i in $(seq 1 "$hosts"); do
			echo "link add eth0 netns h$i type veth peer name host netns l$i"
			for p in $(seq 0 $((planes - 1))); do
				echo "link add p$p netns l$i type veth peer name l$i netns p$p"
			done
		done
	} | ip -b - || return 1
	for i in $(seq 1 "$hosts"); do
		printf '%s\n' "addr add 10.0.$i.1/24 dev eth0" "link set eth0 up" \
			"route add default via 10.0.$i.254" | ip -n "h$i" -b - || return 1
		{
			echo "addr add 10.0.$i.254/24 dev host"
			echo "link set host up"
			for p in $(seq 0 $((planes - 1))); do
				echo "addr add 10.$((100 + p)).$i.1/24 dev p$p"
				echo "link set p$p up"
			done
			# Every remote host subnet over all planes.
			for j in $(seq 1 "$hosts"); do
				[ "$i" = "$j" ] && continue
				h=""
				for p in $(seq 0 $((planes - 1))); do
					h+=" nexthop via 10.$((100 + p)).$i.2 dev p$p"
				done
				echo "route add 10.0.$j.0/24$h"
			done
		} | ip -n "l$i" -b - || return 1
	done
	for p in $(seq 0 $((planes - 1))); do
		for i in $(seq 1 "$hosts"); do
			echo "addr add 10.$((100 + p)).$i.2/24 dev l$i"
			echo "link set l$i up"
			# A plane reaches host I's subnet through leaf I.
			echo "route add 10.0.$i.0/24 via 10.$((100 + p)).$i.1 dev l$i"
		done | ip -n "p$p" -b - || return 1
	done

	# Qdiscs: every plane port and host port gets the same chain, so later
	# changes are in-place edits. Planes first, then the bottlenecks.
	for p in $(seq 0 $((planes - 1))); do
		_fab_plane_init "$p" "$rate" "$delay" "$loss" "$ecn" || return 1
	done
	for i in $(seq 1 "$hosts"); do
		_fab_link_init "$i" || return 1
	done
	for b in "$@"; do
		IFS=: read -r h rate ecn <<<"$b"
		fabric_link_set "$h" --rate "$rate" --ecn "${ecn:-red}" || return 1
	done
}

# _fab_all_ns H N: every namespace name of a fabric.
_fab_all_ns() {
	local i p

	for i in $(seq 1 "$1"); do echo "h$i l$i"; done
	for p in $(seq 0 $(($2 - 1))); do echo "p$p"; done
}

# fabric_summary: the addresses a test needs, one "key value..." a line.
fabric_summary() {
	local hosts planes i

	hosts=$(fabric_hosts) && planes=$(fabric_planes) || return 1
	echo "fabric hosts $hosts planes $planes seed $(_fab_get SEED)"
	for i in $(seq 1 "$hosts"); do
		echo "host h$i addr 10.0.$i.1 dev eth0 leaf l$i gw 10.0.$i.254"
	done
}

fabric_down() {
	local hosts planes n rc=0

	hosts=$(fabric_hosts 2>/dev/null)
	planes=$(fabric_planes 2>/dev/null)
	if [ -z "$hosts" ]; then
		fabric_err "down: no fabric is up"
		return 1
	fi
	# Deleting a namespace deletes its veth ends, and so their peers.
	for n in $(_fab_all_ns "$hosts" "$planes"); do
		[ -e "/run/netns/$n" ] || continue
		ip netns del "$n" || rc=1
	done
	rm -rf "$FABRIC_STATE"
	return $rc
}
