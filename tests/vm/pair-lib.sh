#!/bin/bash
# Helpers shared by the two-host scripts (run-pair.sh): host identity,
# the rendezvous over /mnt/shared, eth0 and a device bound to it, and
# pair(), which runs a server on host a and its client on host b and
# times the client by wall clock. Sourced after guest-lib.sh; the caller
# sets dev (the RDMA device to use).
#
# After pair() the client (host b) has PAIR_RC, PAIR_DT (wall seconds),
# PAIR_BYTES, PAIR_RATE (Mb/s over PAIR_DT), PAIR_END (epoch seconds the
# client exited) and PAIR_OUT (its output file).
me=$HOSTID
case $me in a) peer=b; n=1; m=2 ;; *) peer=a; n=2; m=1 ;; esac
srv_ip=10.50.0.1
sync_dir=/mnt/shared
arrive() { touch "$sync_dir/$me.$1"; }
await() { wait_for "$2" test -e "$sync_dir/$peer.$1"; }
now() { date +%s.%N; }

# eth0_up: eth0 up with this host's address, 10.50.0.$n.
eth0_up() {
	ip link set eth0 up
	ip addr add "10.50.0.$n/24" dev eth0
}

# bind_eth0 DEV TYPE: DEV, an RDMA device of TYPE, bound to eth0 with its
# port active.
bind_eth0() {
	check "rdma link add $1 type $2 netdev eth0" \
		rdma link add "$1" type "$2" netdev eth0
	check "$1 port ACTIVE" \
		wait_for 20 sh -c "ibv_devinfo -d $1 | grep -q PORT_ACTIVE"
}

# meet_peer STEP: both hosts have reached STEP (their devices bound), and
# the peer answers over IP.
meet_peer() {
	arrive "$1"
	check "peer reached $1" await "$1" 120
	check "peer reachable over IP" wait_for 30 ping -c1 -W1 "10.50.0.$m"
}
raw=$OUT/raw
mkdir -p "$raw"
FIG=$OUT/figures.txt
: >"$FIG"

# GID index of our IPv4 address (RoCEv2, IPv4-mapped), for perftest and the
# pingpongs; falls back to 0.
gid_v4() {
	local f hex
	hex=$(printf '0a32:%04x' "$n")
	for f in /sys/class/infiniband/$dev/ports/1/gids/*; do
		if grep -qi "ffff:$hex\$" "$f"; then basename "$f"; return; fi
	done
	echo 0
}

# gid_v4_wait: gid_v4, once the address's GID is in the table (10 s at
# most: it follows the device's binding).
gid_v4_known() { [ "$(gid_v4)" != 0 ]; }
gid_v4_wait() {
	wait_for 10 gid_v4_known
	gid_v4
}

# ready_when SPEC: the server is listening. tcp:PORT, cm (an rdma_cm
# listener exists) or sleep:N.
ready_when() {
	case $1 in
	tcp:*) wait_for 30 sh -c "ss -ltn | grep -q ':${1#tcp:} '" ;;
	cm) cm_listening ;;
	sleep:*) sleep "${1#sleep:}" ;;
	esac
}

# bytes_of FILE MULT: bytes moved according to perftest's result lines
# (#bytes #iterations ...), times MULT; pingpong's "N bytes in" line;
# mroce-verify's verdict. MULT =N: N bytes (tools that print no figures).
bytes_of() {
	case $2 in =*) echo "${2#=}"; return ;; esac
	awk -v k="$2" '
		/^(not )?ok [0-9]+ - mroce-verify:/ {
			for (i = 2; i <= NF; i++) if ($i ~ /^bytes,?$/) b += $(i - 1)
		}
		$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 4 { b += $1 * $2 }
		/ bytes in .* seconds/ { b += $1 }
		END { printf "%.0f\n", b * k }' "$1"
}

# Throughput perftest reports, for the record (may read 0 under TCG).
tool_bw() {
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 5 { v = $4 } END { print v }' "$1"
}

# pair NAME TMO READY MULT SERVER-CMD... -- CLIENT-CMD...
# Host a runs the server command in the background, signals when it
# listens; host b runs the client. Each side adds one TAP line; the client's
# names the wall-clock rate. A client that runs and moves no bytes, or an
# absurd rate (over 100 Gb/s), fails.
step=0
pair() {
	local name=$1 tmo=$2 rdy=$3 mult=$4 scmd=() ccmd=() t0 dt rc pid bytes rate
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	step=$((step + 1))
	local tag="$step-$name" out="$raw/$step-$name.$me.txt"
	if [ "$me" = a ]; then
		echo "== server $tag: ${scmd[*]}"
		timeout -k 5 "$tmo" "${scmd[@]}" >"$out" 2>&1 &
		pid=$!
		ready_when "$rdy"
		arrive "$tag.ready"
		await "$tag.done" $((tmo + 60))
		# Give the server a moment to finish after its client, then stop it.
		for _ in $(seq 200); do kill -0 $pid 2>/dev/null || break; nap 0.1; done
		kill -0 $pid 2>/dev/null && kill $pid
		wait $pid
		rc=$?
		tail -5 "$out"
		check "server $name (rc $rc)" [ $rc = 0 ]
		return
	fi
	PAIR_RC=124 PAIR_DT=0 PAIR_BYTES=0 PAIR_RATE=0 PAIR_END=$(now) PAIR_OUT=$out
	if ! await "$tag.ready" $((tmo + 60)); then
		arrive "$tag.done"
		fail "$name: server never got ready"
		return
	fi
	echo "== client $tag: ${ccmd[*]}"
	t0=$(now)
	timeout -k 5 "$tmo" "${ccmd[@]}" >"$out" 2>&1
	rc=$?
	PAIR_END=$(now)
	dt=$(echo "$PAIR_END - $t0" | bc)
	arrive "$tag.done"
	tail -8 "$out"
	bytes=$(bytes_of "$out" "$mult")
	rate=$(awk -v b="$bytes" -v t="$dt" 'BEGIN { printf "%.6f", (t > 0 ? b * 8 / t / 1e6 : 0) }')
	PAIR_RC=$rc PAIR_DT=$dt PAIR_BYTES=$bytes PAIR_RATE=$rate
	printf '%-28s rc %3s  %7.1fs  %12s bytes  wall %9s Mb/s  tool-bw %s\n' \
		"$name" "$rc" "$dt" "$bytes" "$rate" "$(tool_bw "$out")" | tee -a "$FIG"
	if [ $rc = 0 ] && [ "$bytes" -gt 0 ] &&
	   awk -v r="$rate" 'BEGIN { exit !(r > 0 && r < 100000) }'; then
		ok "$name (${dt}s, $rate Mb/s wall clock)"
	else
		fail "$name (rc $rc, ${dt}s, $bytes bytes, $rate Mb/s)"
	fi
}
