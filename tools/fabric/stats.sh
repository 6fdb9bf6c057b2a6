#!/bin/bash
# Fabric counters and path lookup. Sourced by lib.sh.
#
# fabric_stats: one line per object, "WHAT... KEY VALUE KEY VALUE ...",
# every key holding an underscore, every value a plain integer:
#
#   plane P tx_bytes . tx_packets . rx_bytes . rx_packets . qdisc_drops .
#           ce_marks . fail_drops .
#       what plane P forwarded (tx: sent out of the plane, after its qdiscs
#       and the failure filter) and received (rx: from the leaves, before
#       them), summed over its ports;
#   plane P leaf I (same keys)
#       the same for one port of the plane: tx towards leaf I (traffic to
#       host I), rx from leaf I (traffic from host I);
#   link hI tx_bytes . tx_packets . rx_bytes . rx_packets . qdisc_drops .
#           ce_marks .
#       the host link: tx from leaf I to host I, rx from host I.
#
# Byte counts are Ethernet frames (UDP payload + 42). qdisc_drops counts
# netem loss and queue overflow, ce_marks red/fq_codel ECN marks,
# fail_drops what a blackholed plane swallowed.
#
# fabric_stat PREFIX KEY [FILE]: one value, e.g. fabric_stat "plane 0" tx_bytes
#   (from FILE, a saved fabric_stats output, or measured now).
# fabric_stat_delta BEFORE AFTER PREFIX KEY: its growth between two files.
# fabric_path hS hD SPORT DPORT [udp|tcp]: the plane the leaf of hS picks
#   for that 5-tuple towards hD (the kernel's own lookup, ip route get).
# fabric_paths hS hD DPORT SPORTS [udp|tcp]: "sport S plane P" lines for
#   many source ports (SPORTS: 40000-40063[,41000...]), one batch.

# _fab_ns_counters NS: interface and qdisc statistics of a namespace, two
# commands run from here (ip -n / tc -n enter the namespace themselves;
# forking "ip netns exec" shells is slow under TCG).
_fab_ns_counters() {
	echo LINK
	ip -n "$1" -s -o link show
	echo QDISC
	tc -n "$1" -s qdisc show
}

# _fab_parse PREFIX DEVRE [NAME]: turn _fab_ns_counters output into stats
# lines, one per port whose name matches DEVRE: "PREFIX NAME tx_bytes ..."
# (NAME: the port's name without its leading letter). A port's drops are
# its root qdisc's (they include the children's tail drops) plus the
# marking queue's own; its fail drops are those of the clsact qdisc, where
# the failure filter sits.
_fab_parse() {
	awk -v pre="$1" -v devre="$2" -v name="$3" '
	$1 == "LINK" || $1 == "QDISC" { sect = $1; next }
	sect == "LINK" {
		d = $2; sub(/:$/, "", d); sub(/@.*/, "", d)
		if (d !~ devre) next
		devs[++n] = d
		k = split($0, seg, "\\")
		for (i = 1; i < k; i++) {
			split(seg[i + 1], v, " ")
			if (seg[i] ~ /RX:/) { rxb[d] = v[1]; rxp[d] = v[2] }
			if (seg[i] ~ /TX:/) { txb[d] = v[1]; txp[d] = v[2] }
		}
		next
	}
	$1 == "qdisc" {
		kind = $2; root = ($0 ~ / root /)
		for (i = 3; i < NF; i++) if ($i == "dev") d = $(i + 1)
		next
	}
	$1 == "Sent" && (root || kind == "clsact" || kind == "fq_codel") {
		x = $0; sub(/.*dropped /, "", x); sub(/,.*/, "", x)
		if (kind == "clsact") fail[d] += x; else drops[d] += x
		root = 0
	}
	# red and fq_codel report their own drops to the parent as congestion
	# (NET_XMIT_CN), not as drops: add them (red: "early").
	$1 == "marked" && kind == "red" { marks[d] += $2; drops[d] += $4 }
	kind == "fq_codel" {
		for (i = 1; i < NF; i++) if ($i == "ecn_mark") marks[d] += $(i + 1)
	}
	END {
		for (i = 1; i <= n; i++) {
			d = devs[i]
			printf "%s %s tx_bytes %d tx_packets %d rx_bytes %d rx_packets %d qdisc_drops %d ce_marks %d fail_drops %d\n",
				pre, (name != "" ? name : substr(d, 2)), txb[d], txp[d],
				rxb[d], rxp[d], drops[d], marks[d], fail[d]
		}
	}'
}

fabric_stats() {
	local hosts planes p i

	hosts=$(fabric_hosts) && planes=$(fabric_planes) || return 1
	for p in $(seq 0 $((planes - 1))); do
		_fab_ns_counters "p$p" | _fab_parse "plane $p leaf" '^l[0-9]+$' |
		awk -v p="$p" '
		{ for (i = 5; i < NF; i += 2) sum[i] += $(i + 1); keys = NF; line[NR] = $0
		  for (i = 5; i < NF; i += 2) name[i] = $i }
		END {
			printf "plane %s", p
			for (i = 5; i < keys; i += 2) printf " %s %d", name[i], sum[i]
			printf "\n"
			for (n = 1; n <= NR; n++) print line[n]
		}'
	done
	for i in $(seq 1 "$hosts"); do
		_fab_ns_counters "l$i" | _fab_parse link '^host$' "h$i" |
			sed "s/ fail_drops [0-9]*$//"
	done
}

# _fab_stat_get PREFIX KEY: the value of KEY on the line that starts with
# the words of PREFIX followed directly by keys.
_fab_stat_get() {
	awk -v pre="$1" -v key="$2" '
	BEGIN { n = split(pre, w, " ") }
	{
		for (i = 1; i <= n; i++) if ($i != w[i]) next
		if ($(n + 1) !~ /_/) next
		for (i = n + 1; i < NF; i += 2) if ($i == key) { print $(i + 1); found = 1; exit }
	}
	END { if (!found) exit 1 }'
}

fabric_stat() {
	if [ -n "$3" ]; then
		_fab_stat_get "$1" "$2" <"$3"
	else
		fabric_stats | _fab_stat_get "$1" "$2"
	fi
}

fabric_stat_delta() {
	local a b

	a=$(fabric_stat "$3" "$4" "$1") && b=$(fabric_stat "$3" "$4" "$2") || return 1
	echo $((b - a))
}

fabric_path() {
	fabric_paths "$1" "$2" "$4" "$3" "${5:-udp}" | sed -n 's/^sport [0-9]* plane //p'
}

# fabric_paths hS hD DPORT SPORTS [udp|tcp]: "sport S plane P" for each
# source port of SPORTS (e.g. 40000-40063 or 40000,40010), in one batch.
fabric_paths() {
	local s d sp lo hi ports=() part

	s=$(_fab_num "$1") && d=$(_fab_num "$2") || return 1
	for part in ${4//,/ }; do
		lo=${part%-*} hi=${part#*-}
		for sp in $(seq "$lo" "$hi"); do ports+=("$sp"); done
	done
	for sp in "${ports[@]}"; do
		echo "route get 10.0.$d.1 from 10.0.$s.1 iif host ipproto ${5:-udp} sport $sp dport $3"
	done | ip -n "l$s" -b - | sed -n 's/.* dev p\([0-9]*\) .*/\1/p' |
	paste -d' ' <(printf '%s\n' "${ports[@]}") - |
	awk 'NF == 2 { print "sport", $1, "plane", $2; n++ }
	     END { if (n == 0) { print "fabric: path: no route" > "/dev/stderr"; exit 1 } }'
}
