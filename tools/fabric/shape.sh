#!/bin/bash
# Fabric qdiscs: rate, delay, loss and ECN marking of planes and host
# links, and plane failure. Sourced by lib.sh.
#
# Every shaped port (each egress port of a plane, towards each leaf; each
# leaf port towards its host) carries the same chain, built once:
#
#   root 1: netem [delay D] [loss L]     (delay and random loss)
#     1:1 -> 2: tbf rate R               (R unset: 10gbit, i.e. unlimited)
#       2:1 -> 3: red ecn nodrop | fq_codel ecn   (only with --ecn; else
#                                        tbf's own byte fifo, 100 ms deep)
#
# so a change is an in-place edit of one stage. netem is the root so its
# loss hits packets before they queue; the ECN queue sits under tbf, where
# the backlog builds when the offered load exceeds R.
#
# fabric_plane_set P [--rate R] [--delay D] [--loss L] [--ecn off|red|codel]
#   Change plane P; options not given keep their value; "" or "none"
#   clears one (e.g. --rate none). D may hold jitter ("5ms 1ms").
# fabric_link_set hI [same options]: the leaf's port towards host I.
# fabric_plane_fail P [--linkdown]: by default a silent blackhole: every
#   IPv4 packet entering plane P is dropped (a matchall drop filter on the
#   ingress of all its ports, so both directions) while routes and
#   carrier stay, as when a switch fails without telling anyone. ARP still
#   passes so a restore is instant. --linkdown instead takes the plane's
#   ports down: the leaves see no carrier and ECMP routes around it.
# fabric_plane_restore P: undo fabric_plane_fail.

_FAB_UNLIMITED=10gbit

# _fab_conf FILE KEY: a value from a shape state file.
_fab_conf() { sed -n "s/^$2=//p" "$1" 2>/dev/null; }

_fab_save() {
	printf 'RATE=%s\nDELAY=%s\nLOSS=%s\nECN=%s\nFAILED=%s\n' \
		"$2" "$3" "$4" "$5" "$6" >"$1"
}

# _fab_ports_plane P: "NS DEV" of every egress port of plane P.
_fab_ports_plane() {
	local i

	for i in $(seq 1 "$(fabric_hosts)"); do echo "p$1 l$i"; done
}

# The stage builders print tc batch lines ("qdisc ... dev DEV ..."); a
# namespace's lines go to one "tc -n NS -b -", far cheaper than a tc per
# port under TCG.

# _fab_netem DEV VERB DELAY LOSS
_fab_netem() {
	local args="limit 100000"

	[ -n "$3" ] && args+=" delay $3"
	[ -n "$4" ] && args+=" loss $4"
	echo "qdisc $2 dev $1 root handle 1: netem $args"
}

# _fab_tbf DEV VERB RATE: the rate stage; (re)creating it also resets its
# child to a plain byte fifo holding 100 ms at the rate.
_fab_tbf() {
	local rate=${3:-$_FAB_UNLIMITED} bps burst

	bps=$(_fab_rate_bps "$rate") || return 1
	# 10 ms of tokens, at least two full frames, at most 1 MB.
	burst=$((bps / 800))
	[ "$burst" -lt 3100 ] && burst=3100
	[ "$burst" -gt 1000000 ] && burst=1000000
	echo "qdisc $2 dev $1 parent 1:1 handle 2: tbf rate $rate burst $burst latency 100ms"
}

# _fab_ecn DEV RATE MODE: graft the marking queue under tbf.
_fab_ecn() {
	local rate=${2:-$_FAB_UNLIMITED} bps min max

	case $3 in
	'' | off | none) return 0 ;;
	red)
		# Marking starts at 5 ms of queue and is certain at 15 ms.
		# nodrop: not-ECT packets are queued (and tail-dropped at the
		# limit), not RED-dropped. Under tbf, red never sees its queue
		# idle, so its average stays high after a burst until packets
		# arrive; dropping not-ECT ones then would starve ARP and the
		# leaf would lose its neighbour entry for the host.
		bps=$(_fab_rate_bps "$rate") || return 1
		min=$((bps / 1600))
		[ "$min" -lt 6000 ] && min=6000
		max=$((3 * min))
		echo "qdisc replace dev $1 parent 2:1 handle 3: red limit $((8 * max))" \
			"min $min max $max avpkt 1000 burst $(((2 * min + max) / 3000 + 1))" \
			"probability 0.1 bandwidth $rate ecn nodrop"
		;;
	codel)
		echo "qdisc replace dev $1 parent 2:1 handle 3: fq_codel limit 1000" \
			"target 5ms interval 100ms ecn"
		;;
	*) fabric_err "bad ECN mode: $3 (off, red or codel)"; return 1 ;;
	esac
}

# _fab_port_init DEV RATE DELAY LOSS ECN: the lines building a port's chain.
_fab_port_init() {
	_fab_netem "$1" add "$3" "$4" &&
	_fab_tbf "$1" add "$2" &&
	_fab_ecn "$1" "$2" "$5"
}

# _fab_plane_init P RATE DELAY LOSS ECN
_fab_plane_init() {
	local p=$1 dev cmds

	cmds=$(while read -r _ dev; do
		_fab_port_init "$dev" "$2" "$3" "$4" "$5" || exit 1
		echo "qdisc add dev $dev clsact"
	done < <(_fab_ports_plane "$p")) || return 1
	echo "$cmds" | tc -n "p$p" -b - || return 1
	_fab_save "$FABRIC_STATE/shape/plane$p" "$2" "$3" "$4" "$5" ""
}

_fab_link_init() {
	_fab_port_init host "" "" "" off | tc -n "l$1" -b - &&
	_fab_save "$FABRIC_STATE/shape/host$1" "" "" "" off ""
}

# _fab_set FILE PORTS-CMD OPTIONS...: merge options into the state in FILE
# and edit the chain of each port PORTS-CMD lists where they changed.
_fab_set() {
	local f=$1 ports=$2 rate delay loss ecn failed
	local o_rate o_delay o_loss o_ecn dev cmds

	shift 2
	[ -f "$f" ] || { fabric_err "no such plane or host link"; return 1; }
	rate=$(_fab_conf "$f" RATE) delay=$(_fab_conf "$f" DELAY)
	loss=$(_fab_conf "$f" LOSS) ecn=$(_fab_conf "$f" ECN)
	failed=$(_fab_conf "$f" FAILED)
	o_rate=$rate o_delay=$delay o_loss=$loss o_ecn=$ecn
	while [ $# -gt 0 ]; do
		[ $# -ge 2 ] || { fabric_err "option $1 needs a value"; return 2; }
		case $2 in none) set -- "$1" "" "${@:3}" ;; esac
		case $1 in
		--rate) rate=$2 ;;
		--delay) delay=$2 ;;
		--loss) loss=$2 ;;
		--ecn) ecn=$2 ;;
		*) fabric_err "unknown option $1"; return 2 ;;
		esac
		shift 2
	done
	if [ -n "$rate" ]; then _fab_rate_bps "$rate" >/dev/null || return 2; fi
	case $ecn in '' | off | red | codel) ;; *)
		fabric_err "bad ECN mode: $ecn (off, red or codel)"; return 2 ;;
	esac
	# All ports of one object are in one namespace: one tc batch.
	cmds=$(while read -r _ dev; do
		if [ "$delay" != "$o_delay" ] || [ "$loss" != "$o_loss" ]; then
			_fab_netem "$dev" change "$delay" "$loss" || exit 1
		fi
		if [ "$rate" != "$o_rate" ] || [ "$ecn" != "$o_ecn" ]; then
			# A replaced tbf child stays known by its handle: a new
			# kind under handle 3: would be refused, so drop it first.
			case $o_ecn in red | codel) echo "qdisc del dev $dev parent 2:1 handle 3:" ;; esac
			_fab_tbf "$dev" change "$rate" &&
			_fab_ecn "$dev" "$rate" "$ecn" || exit 1
		fi
	done < <($ports)) || return 1
	if [ -n "$cmds" ]; then
		echo "$cmds" | tc -n "$($ports | awk 'NR == 1 { print $1 }')" -b - ||
			return 1
	fi
	_fab_save "$f" "$rate" "$delay" "$loss" "$ecn" "$failed"
}

# _fab_plane_check P: P names a plane of the fabric that is up.
_fab_plane_check() {
	local planes

	planes=$(fabric_planes) || return 1
	case $1 in '' | *[!0-9]*) fabric_err "not a plane: $1"; return 1 ;; esac
	[ "$1" -lt "$planes" ] || { fabric_err "no plane $1 (0..$((planes - 1)))"; return 1; }
}

fabric_plane_set() {
	local p=$1

	shift
	_fab_plane_check "$p" || return 1
	_fab_set "$FABRIC_STATE/shape/plane$p" "_fab_ports_plane $p" "$@"
}

fabric_link_set() {
	local i

	i=$(_fab_num "$1") || return 1
	shift
	_fab_set "$FABRIC_STATE/shape/host$i" "echo l$i host" "$@"
}

fabric_plane_fail() {
	local p=$1 mode=blackhole f dev

	_fab_plane_check "$p" || return 1
	case $2 in
	'') ;;
	--linkdown) mode=linkdown ;;
	*) fabric_err "plane-fail: unknown option $2"; return 2 ;;
	esac
	f=$FABRIC_STATE/shape/plane$p
	[ -z "$(_fab_conf "$f" FAILED)" ] || { fabric_err "plane $p is failed already"; return 1; }
	_fab_ports_plane "$p" | while read -r _ dev; do
		if [ $mode = linkdown ]; then
			echo "link set dev $dev down"
		else
			echo "filter add dev $dev ingress pref 1 protocol ip matchall action drop"
		fi
	done | if [ $mode = linkdown ]; then ip -n "p$p" -b -; else tc -n "p$p" -b -; fi ||
		return 1
	sed -i "s/^FAILED=.*/FAILED=$mode/" "$f"
}

fabric_plane_restore() {
	local p=$1 mode f dev i

	_fab_plane_check "$p" || return 1
	f=$FABRIC_STATE/shape/plane$p
	mode=$(_fab_conf "$f" FAILED)
	[ -n "$mode" ] || { fabric_err "plane $p is not failed"; return 1; }
	_fab_ports_plane "$p" | while read -r _ dev; do
		if [ "$mode" = linkdown ]; then
			# Taking a port down flushed the plane's routes over it.
			echo "link set dev $dev up"
			i=${dev#l}
			echo "route replace 10.0.$i.0/24 via 10.$((100 + p)).$i.1 dev $dev"
		else
			echo "filter del dev $dev ingress pref 1"
		fi
	done | if [ "$mode" = linkdown ]; then ip -n "p$p" -b -; else tc -n "p$p" -b -; fi ||
		return 1
	sed -i "s/^FAILED=.*/FAILED=/" "$f"
}

# fabric_show: the configuration of every plane and host link.
fabric_show() {
	local f name

	[ -d "$FABRIC_STATE/shape" ] || { fabric_err "no fabric is up"; return 1; }
	for f in "$FABRIC_STATE"/shape/*; do
		name=${f##*/}
		case $name in
		plane*) printf 'plane %s' "${name#plane}" ;;
		host*) printf 'link h%s' "${name#host}" ;;
		esac
		printf ' rate %s delay %s loss %s ecn %s failed %s\n' \
			"$(_fab_conf "$f" RATE | sed 's/^$/none/')" \
			"$(_fab_conf "$f" DELAY | sed 's/^$/none/; s/ /+/g')" \
			"$(_fab_conf "$f" LOSS | sed 's/^$/none/')" \
			"$(_fab_conf "$f" ECN | sed 's/^$/off/')" \
			"$(_fab_conf "$f" FAILED | sed 's/^$/no/')"
	done
}
