#!/bin/bash
# make bench, two hosts (run-pair.sh): rdma_rxe and MetaRoCE side by side
# on one virtual wire, in one boot: rxe0 is bound to eth0 and measured,
# deleted, then metaroce0 the same way (see bind() for why not both at
# once). rxe works only in init_net, hence two VMs.
#
# Host a serves, host b runs the clients and writes $OUT/bench.csv:
#   bench,stack,x,metric,value
# Goodput is application bytes over the time from the first data on the
# wire (eth0 byte counters sampled every 0.1 s) to the client's exit; the
# client's whole wall time and perftest's own figure (0 under TCG at
# times) are kept as well.
#
# env (lists comma-separated): BENCH_SIZES, BENCH_BYTES (per bw run),
# BENCH_MAX_ITERS, BENCH_LAT_ITERS, BENCH_LOSS (percent), BENCH_LOSS_BYTES,
# BENCH_LOSS_TMO, BENCH_QPS, BENCH_QP_TIMEOUT, BENCH_TMO, BENCH_SHAPE
# (Mbit/s of the one-link baseline, 6), BENCH_SHAPE_SECS (8),
# BENCH_PARTS (bw,lat,loss,lossshaped,shaped,qps,wire), BENCH_LOSS_SHAPE
# (Mbit/s of the link the lossshaped part loses on, 40),
# BENCH_LOSS_SHAPE_BYTES (per run there, 16 MiB), BENCH_STACKS ("rxe metaroce"),
# BENCH_REPEAT (5: runs of each loss point; run r >= 2 of bench B is
# stored as bench B-rR), BENCH_TARGET_REPEAT (5: runs of ib_write_bw and
# ib_read_bw at 64 KiB, the stacks taking turns after the first),
# BENCH_TURN_TOOLS (ib_write_bw,ib_read_bw: the perftests those turns
# run), BENCH_LAT_REPEAT (5:
# runs of the latency tests, the stacks taking turns in every round,
# the stacks and the two tests in reverse order every other round),
# BENCH_WIRE_SECS (3: each round's UDP flood, part wire),
# BENCH_TXQLEN (eth0's
# txqueuelen, whose half MetaRoCE may queue below it; unset: 1000),
# BENCH_RES (seconds between samples of the MetaRoCE QPs' path state,
# `rdma res show qp -dd`, kept in raw/; unset: none), BENCH_LOSS_AT
# (ingress: a drop filter where the wire ends, the default; netem: netem
# on the egress, as before 2026-12-02; see lose()), BENCH_PERF (1: sample
# both hosts' CPUs with perf during MetaRoCE's runs, reports in raw/;
# the sampling costs rate, so not for the figures), BENCH_ALT_KO (a
# second build of rdma_metaroce.ko, under REPO; the stack metaroce_b
# runs it, so BENCH_STACKS=metaroce,metaroce_b compares two builds on
# one wire in turns: the host drifts too much between two bench runs),
# BENCH_TRACE (metaroce tracepoints, e.g. mroce_rto,mroce_path, that
# each MetaRoCE run records on both hosts into raw/trace-*.txt),
# BENCH_TURN_LOSS (loss points, percent, that the turns below run too,
# ib_write_bw 64 KiB of BENCH_LOSS_BYTES each, stored as turnloss-rR),
# BENCH_QP_MOST (8192: the most QPs the search for as many as the VM
# holds tries, after BENCH_QPS; see qps_most())
. "$REPO/tools/vm/guest-lib.sh"
dev=none
. "$REPO/tests/vm/pair-lib.sh"

SIZES=${BENCH_SIZES:-64,4096,65536,1048576,4194304}
# 128 MiB per bw run: the data phase is timed only from 0.5 s (rates()),
# and MetaRoCE's 64 KiB writes moved 32 MiB in 0.4-0.5 s at 600 Mbit/s,
# so its fastest runs fell out of the medians.
BYTES=${BENCH_BYTES:-134217728}
MAXIT=${BENCH_MAX_ITERS:-2000}
LAT_ITERS=${BENCH_LAT_ITERS:-1000}
LOSS=${BENCH_LOSS:-0,0.1,1,5,10}
# 128 MiB (BENCH_MAX_ITERS of 64 KiB), about 3 s of data: one run swings
# with the host, and 64 MiB runs of 1.5 s put the ratio of a 1% run to
# its round's lossless one at a standard deviation of 0.14 (12 rounds);
# 128 MiB, 0.076 (8 rounds; Documentation/bench/findings.md).
LOSS_BYTES=${BENCH_LOSS_BYTES:-134217728}
LOSS_TMO=${BENCH_LOSS_TMO:-90}
QPS=${BENCH_QPS:-1,16,256}
# ACK timeout exponent for the many-QP runs: with perftest's default (14,
# 67 ms) 256 QPs x their queued 64 KiB writes on this slow wire hit
# "retry exceeded" on both stacks; 20 is 4.3 s.
QP_TIMEOUT=${BENCH_QP_TIMEOUT:-20}
QP_MOST=${BENCH_QP_MOST:-8192}
TMO=${BENCH_TMO:-180}
PARTS=${BENCH_PARTS:-bw,lat,loss,lossshaped,shaped,qps,wire}
WIRE_SECS=${BENCH_WIRE_SECS:-3}
# The lossy link of the lossshaped part: slow enough that neither stack's
# CPU (rxe moves 100-150 Mbit/s here) but the link sets the rate.
LOSS_SHAPE=${BENCH_LOSS_SHAPE:-40}
LOSS_SHAPE_BYTES=${BENCH_LOSS_SHAPE_BYTES:-16777216}
SHAPE=${BENCH_SHAPE:-6}
SHAPE_SECS=${BENCH_SHAPE_SECS:-8}
STACKS=${BENCH_STACKS:-rxe,metaroce}
STACKS=${STACKS//,/ }
RES=${BENCH_RES:-}
REPEAT=${BENCH_REPEAT:-5}
TARGET_REPEAT=${BENCH_TARGET_REPEAT:-5}
TURN_TOOLS=${BENCH_TURN_TOOLS:-ib_write_bw,ib_read_bw}
LAT_REPEAT=${BENCH_LAT_REPEAT:-5}
CSV=$OUT/bench.csv
[ "$me" = b ] && echo "bench,stack,x,metric,value" >"$CSV"
MROCE_DRIVERS=$RDMAV_DRIVERS
declare -A GID

part() { [[ ",$PARTS," == *",$1,"* ]]; }
# mroce STACK: whether STACK is MetaRoCE (metaroce or the alternative
# build, metaroce_b).
mroce() { [ "${1%_b}" = metaroce ]; }
row() { [ "$me" = b ] && echo "$1,$2,$3,$4,$5" >>"$CSV"; }

# bind STACK: STACK's device on eth0, port active, GID index in GID[].
# libibverbs 44 with our provider in RDMAV_DRIVERS segfaults listing
# devices while an rxe device exists, so one stack is bound at a time and
# rxe runs without it.
bind() {
	local d=${1}0
	if [ "$1" = rxe ]; then unset RDMAV_DRIVERS; else export RDMAV_DRIVERS=$MROCE_DRIVERS; fi
	mroce "$1" && load_build "$1"
	bind_eth0 "$d" "${1%_b}"
	dev=$d
	GID[$1]=$(gid_v4_wait)
	echo "host $me: $d, IPv4 GID index ${GID[$1]}"
}

# load_build STACK: the module STACK runs loaded (BENCH_ALT_KO for
# metaroce_b), replacing the other build if that one is in.
loaded=metaroce
load_build() {
	local ko=$BENCH_ALT_KO

	[ "$1" = "$loaded" ] && return
	rmmod rdma_metaroce
	if [ "$1" = metaroce_b ]; then
		# Relative to REPO, which is not the guest's working directory.
		[ "${ko#/}" = "$ko" ] && ko=$REPO/$ko
		check "alternative build loads" insmod "$ko"
	else
		check "rdma_metaroce loads again" modprobe rdma_metaroce
	fi
	loaded=$1
}

# bind_both STACK TAG: STACK's device bound on both hosts, the peer
# reachable. unbind_both STACK TAG: both hosts done with it, deleted.
bind_both() {
	bind "$1"
	meet_peer "$2.bound"
}
unbind_both() {
	arrive "$2.end"
	check "peer finished with $1" await "$2.end" 900
	check "rdma link delete ${1}0" rdma link delete "${1}0"
}

# sample_eth0: "seconds bytes" (rx + tx of eth0) every 0.1 s, from one
# shell (no process per sample).
sample_eth0() {
	local r t
	while read -r r </sys/class/net/eth0/statistics/rx_bytes &&
	      read -r t </sys/class/net/eth0/statistics/tx_bytes; do
		echo "$EPOCHREALTIME $((r + t))"
		nap 0.1
	done
}

# rates SAMPLES END BYTES: "GOODPUT DATA", Mb/s of BYTES from the last
# sample before the wire moved more than 2% of BYTES (at least 16 KiB:
# perftest's TCP exchange) to END (GOODPUT), and to the last sample whose
# 0.1 s moved more than 16 KiB (DATA, the data phase). perftest's own
# average likewise leaves out its setup and its TCP exchange at the end,
# which under TCG and at 10% loss (TCP timeouts) takes seconds. DATA is
# "-" when the phase is under 0.5 s: too short to time.
rates() {
	awk -v t1="$2" -v bytes="$3" '
	BEGIN { th = bytes * 0.02; if (th < 16384) th = 16384 }
	NR == 1 { b0 = $2 }
	!t0 && $2 - b0 > th { t0 = pt }
	NR > 1 && $2 - pb > 16384 { td = $1 }
	{ pt = $1; pb = $2 }
	END {
		if (!t0 || t1 <= t0 || bytes <= 0) { print "0 -"; exit }
		printf "%.3f ", bytes * 8 / (t1 - t0) / 1e6
		if (td - t0 >= 0.5) printf "%.3f\n", bytes * 8 / (td - t0) / 1e6
		else print "-"
	}' "$1"
}

# kmem_avail: "KMEM AVAIL" in kB: the kernel memory QPs live in (slab
# plus vmalloc, their queues) and what the host has left for anything.
# Read by the shell, no process: it is sampled while transfers run.
kmem_avail() {
	local k v s=0 a=
	while read -r k v _; do
		case $k in
		Slab: | VmallocUsed:) s=$((s + v)) ;;
		MemAvailable:) a=$v ;;
		esac
	done </proc/meminfo
	echo "$s $a"
}
memavail() { local k a; read -r k a < <(kmem_avail); echo "$a"; }
sample_kmem() { while :; do kmem_avail; nap 0.2; done; }

# sample_res SECS: the QPs' path state (windows, in flight, RTT) and
# eth0's queue (its drops are losses the wire never saw) with a
# timestamp, every SECS seconds: what limited a run.
sample_res() {
	while :; do
		echo "@ $EPOCHREALTIME"
		tc -s qdisc show dev eth0 | grep -m1 dropped
		rdma res show qp -dd 2>&1 | grep -v 'qpn 1 '
		sleep "$1"
	done
}

# wire_retrans: segments the host's TCP under the wire has retransmitted
# so far, both ways (run-pair.sh keeps them in the shared directory; 0
# without it). Each one stalled the wire for whatever stack was on it.
wire_retrans() { awk '{ print $1 + $2 }' "$sync_dir/wire" 2>/dev/null || echo 0; }

# hwc NAME: a MetaRoCE counter of metaroce0 (0 for rxe).
hwc_dir() { echo "/sys/class/infiniband/$dev/ports/1/hw_counters"; }
hwc() { cat "$(hwc_dir)/$1" 2>/dev/null || echo 0; }
# The MetaRoCE counters each run records: its repair work.
HWC="tx_packets tx_retransmits rto_events path_losses path_rto_events path_rto_spurious path_rto_deferred path_tail_probes path_failed tx_local_queue_waits tx_stall_psn_window tx_stall_pipe tx_stall_cwnd tx_stall_pace"

# perf STACK BENCH X TMO MULT TOOL ARGS...: TOOL between the hosts on
# STACK's device, same ARGS both sides; rows for BENCH at X on host b.
perf() {
	local stack=$1 bench=$2 x=$3 tmo=$4 mult=$5 tool=$6 port sp mp rp='' k0 c g d
	local -A c0
	local q0 w0
	shift 6
	port=$((19000 + step + 1))
	dev=${stack}0
	if [ -n "$RES" ] && mroce "$stack"; then
		sample_res "$RES" >"$raw/res-$bench-$x.$me.txt" &
		rp=$!
	fi
	if [ "$me" = b ]; then
		sample_eth0 >"$raw/samples" &
		sp=$!
		read -r k0 a0 < <(kmem_avail)
		q0=$(qdisc_drops eth0)
		w0=$(wire_retrans)
		if mroce "$stack"; then
			for c in $HWC; do c0[$c]=$(hwc "$c"); done
		fi
		sample_kmem >"$raw/kmem" &
		mp=$!
	fi
	local P=(-d "$dev" -x "${GID[$stack]}" -F -p "$port" --report_gbits)
	[ "${BENCH_PERF:-}" = 1 ] && mroce "$stack" &&
		perf_start
	[ -n "${BENCH_TRACE:-}" ] && mroce "$stack" &&
		check "tracepoints on: $BENCH_TRACE" trace_events "$BENCH_TRACE"
	pair "$bench-$stack-$x" "$tmo" "tcp:$port" "$mult" \
		"$tool" "${P[@]}" "$@" -- "$tool" "${P[@]}" "$@" "$srv_ip"
	[ -n "$perf_pid" ] && perf_stop "$raw/perf-$bench-$x.$me"
	[ -n "${BENCH_TRACE:-}" ] && mroce "$stack" &&
		trace_save "$raw/trace-$bench-$stack-$x.$me.txt"
	[ -n "$rp" ] && { kill "$rp"; wait "$rp"; } 2>/dev/null
	# Every counter of both hosts, for what the rows below leave out
	# (the server's drops and timeouts).
	mroce "$stack" && rdma statistic show link "$dev/1" \
		>"$raw/stat-$bench-$x.$me.txt" 2>&1
	[ "$me" = b ] || return 0
	kill $sp $mp 2>/dev/null
	wait $sp $mp 2>/dev/null
	row "$bench" "$stack" "$x" rc "$PAIR_RC"
	row "$bench" "$stack" "$x" wall_s "$PAIR_DT"
	row "$bench" "$stack" "$x" bytes "$PAIR_BYTES"
	row "$bench" "$stack" "$x" wall_mbps "$PAIR_RATE"
	cp "$raw/samples" "$raw/$bench-$stack-$x.samples"
	if [ "$PAIR_RC" = 0 ]; then
		read -r g d < <(rates "$raw/samples" "$PAIR_END" "$PAIR_BYTES")
		row "$bench" "$stack" "$x" goodput_mbps "$g"
		row "$bench" "$stack" "$x" data_mbps "${d#-}"
	else
		row "$bench" "$stack" "$x" goodput_mbps 0
	fi
	row "$bench" "$stack" "$x" wire_bytes \
		"$(awk 'NR == 1 { b = $2 } END { print $2 - b }' "$raw/samples")"
	row "$bench" "$stack" "$x" tool_mbps \
		"$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF == 5 { v = $4 * 1000 } END { print v + 0 }' "$PAIR_OUT")"
	# Latency tools: t_typical (column 5) and the 99% percentile (8).
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 8 { p50 = $5; p99 = $8; avg = $6 }
		END { if (p50 != "") printf "%s %s %s\n", p50, p99, avg }' "$PAIR_OUT" |
	while read -r p50 p99 avg; do
		row "$bench" "$stack" "$x" p50_us "$p50"
		row "$bench" "$stack" "$x" p99_us "$p99"
		row "$bench" "$stack" "$x" avg_us "$avg"
	done
	if mroce "$stack"; then
		for c in $HWC; do
			row "$bench" "$stack" "$x" "$c" $(($(hwc "$c") - c0[$c]))
		done
	fi
	row "$bench" "$stack" "$x" qdisc_drops $(($(qdisc_drops eth0) - q0))
	row "$bench" "$stack" "$x" wire_retrans $(($(wire_retrans) - w0))
	row "$bench" "$stack" "$x" kmem_kb \
		"$(sort -n "$raw/kmem" | tail -1 | awk -v b="$k0" '{ print $1 - b }')"
	# All the run took, perftest's buffers too: what the next size needs.
	row "$bench" "$stack" "$x" mem_used_kb \
		"$(sort -n -k2 "$raw/kmem" | head -1 | awk -v b="$a0" '{ print b - $2 }')"
}

# iters SIZE TOTAL [QPS]: iterations moving about TOTAL bytes, in
# [5, MAXIT] per QP.
iters() {
	local q=${3:-1}
	awk -v s="$1" -v t="$2" -v q="$q" -v m="$MAXIT" \
		'BEGIN { n = int(t / s / q); if (n > m) n = m; if (n < 5) n = 5; print n }'
}

# qps_run STACK N: ib_write_bw over N QPs at once.
qps_run() {
	perf "$1" qps "$2" "$TMO" 1 ib_write_bw -s 65536 -q "$2" -u "$QP_TIMEOUT" \
		-n "$(awk -v n="$(iters 65536 "$BYTES" "$2")" 'BEGIN { print (n < 10 ? 10 : n) }')"
}

# qps_most STACK: as many QPs as the VM holds. From twice the last count
# of BENCH_QPS, double while the run before succeeded, the count is
# within the device's max_qp and BENCH_QP_MOST, and twice what the run
# before took of the client host's memory fits in 80% of what it has
# available now (perftest's buffers and the kernel's alike; the server
# holds as many). Host b decides, host a follows; the row qpmost names
# the largest count that ran and why the search stopped.
qps_most() {
	local s=$1 q=${QPS##*,} last=${QPS##*,} why verdict
	[ "$QP_MOST" -gt "$q" ] || return 0
	while :; do
		if [ "$me" = b ]; then
			why=
			if [ "$(csv_get qps "$s" "$last" rc)" != 0 ]; then
				why=failed
			elif [ $((q * 2)) -gt "$QP_MOST" ]; then
				why=cap
			elif [ $((q * 2)) -gt "$(max_qp)" ]; then
				why=max_qp
			elif [ $((2 * $(csv_get qps "$s" "$last" mem_used_kb))) -gt \
			       $(($(memavail) * 8 / 10)) ]; then
				why=memory
			fi
			echo "${why:-go}" >"$sync_dir/b.qpmost-$s-$q"
			arrive "qpmost-$s-$q.set"
		else
			await "qpmost-$s-$q.set" 60
		fi
		verdict=$(cat "$sync_dir/b.qpmost-$s-$q" 2>/dev/null)
		[ "$verdict" = go ] || break
		q=$((q * 2))
		qps_run "$s" "$q"
		last=$q
	done
	# The largest count that ran to the end, and what ended the search.
	[ "$me" = b ] || return 0
	q=$(awk -F, -v s="$s" '$1 == "qps" && $2 == s && $4 == "rc" && $5 == 0 &&
		$3 + 0 > m { m = $3 + 0 } END { print m + 0 }' "$CSV")
	row qpmost "$s" "$q" stop "${verdict:-none}"
}

# max_qp: what the bound device says it holds.
max_qp() {
	ibv_devinfo -v -d "$dev" 2>/dev/null | awk '$1 == "max_qp:" { print $2; exit }' |
		grep . || echo 0
}

# csv_get BENCH STACK X METRIC: a value this host recorded.
csv_get() {
	awk -F, -v b="$1" -v s="$2" -v x="$3" -v m="$4" \
		'$1 == b && $2 == s && $3 == x && $4 == m { v = $5 } END { print v + 0 }' "$CSV"
}

# wire_run R: what the wire carries with no transport on it, in round R:
# datagrams of 1472 bytes (full 1500-byte frames) from a process on b to
# one on a for WIRE_SECS (tools/bench/udpflood.c), stored as bench wire,
# stack udp: about the most any stack moves on this wire at this MTU,
# taken every round as the host drifts.
wire_run() {
	local tag f=$raw/wire-r$1.$me.txt flood=$REPO/build/bench/udpflood
	local sp sb ss rp rb rs got
	tag=$(rep wire "$1")
	if [ "$me" = a ]; then
		timeout 60 "$flood" recv 5601 >"$f" 2>&1 &
		local pid=$!
		arrive "$tag.ready"
		wait $pid
		check "$tag: receiver counted datagrams" [ -s "$f" ]
		share a "$tag" 60 "$(cat "$f")" >/dev/null
		return
	fi
	await "$tag.ready" 60 && nap 0.5
	"$flood" send "$srv_ip" 5601 1472 "$WIRE_SECS" >"$f" 2>&1
	if ! got=$(share a "$tag" 60); then
		fail "$tag: no count from the receiver"
		return
	fi
	read -r sp sb ss <"$f"
	read -r rp rb rs <<<"$got"
	if ! [ "${sp:-0}" -gt 1 ] 2>/dev/null || ! [ "${rp:-0}" -gt 1 ] 2>/dev/null; then
		fail "$tag: sent '$sp', received '$rp' datagrams"
		return
	fi
	ok "$tag: $sp datagrams sent, $rp received"
	row "$tag" udp 1472 sent_mbps "$(echo "scale=3; $sb * 8 / $ss / 1000000" | bc)"
	row "$tag" udp 1472 data_mbps "$(echo "scale=3; $rb * 8 / $rs / 1000000" | bc)"
	row "$tag" udp 1472 recv_kpps "$(echo "scale=3; $rp / $rs / 1000" | bc)"
	row "$tag" udp 1472 lost "$(echo "scale=4; 1 - $rp / $sp" | bc)"
}

# rep BENCH R: the name run R of BENCH is stored under.
rep() { if [ "$2" = 1 ]; then echo "$1"; else echo "$1-r$2"; fi; }

# share FROM TAG SECS [VALUE]: host FROM's VALUE, on both hosts; the
# other waits up to SECS for it.
share() {
	if [ "$me" = "$1" ]; then
		echo "$4" >"$sync_dir/$me.$2.tmp" && mv "$sync_dir/$me.$2.tmp" "$sync_dir/$me.$2"
		echo "$4"
	else
		await "$2" "$3" && cat "$sync_dir/$1.$2"
	fi
}
# agree TAG [VALUE]: b's VALUE, on both hosts (they must take the same
# branch, and only b sees how a run ended).
agree() { share b "$1" 300 "${2:-}"; }

# lose PCT TAG [MBIT]: random loss of PCT% on the wire into each host (both
# hosts do it, so each direction loses PCT%). With MBIT the egress is
# shaped to it as well (tbf, 100 ms of queue, as in shape()). Both hosts
# meet after it is in place; lose_none TAG takes it all away.
#
# The loss is taken at eth0's ingress (clsact, matchall, gact dropping 1
# in N at random), where the link ends: the sender's stack cannot see it,
# and its egress keeps the qdisc the lossless runs have. netem on the
# egress (BENCH_LOSS_AT=netem, the instrument before 2026-12-02) is a
# queue of its own on the sender's CPU that the lossless runs did not
# have. The filter is in place at every level, 0% included, so all levels
# pay for the same instrument.
LOSS_AT=${BENCH_LOSS_AT:-ingress}
lose_clear() {
	tc qdisc del dev eth0 root 2>/dev/null
	tc qdisc del dev eth0 clsact 2>/dev/null
	return 0
}
lose() {
	local n where=root
	lose_clear
	if [ -n "${3:-}" ]; then
		tbf_root "$3"
		where="parent 1:1 handle 10:"
	fi
	if [ "$LOSS_AT" = netem ]; then
		[ "$1" = 0 ] || tc qdisc add dev eth0 $where netem loss "$1%"
	else
		# gact drops 1 in N: 0.1, 1, 5 and 10% are exact.
		n=$(awk -v p="$1" 'BEGIN { if (p > 0) printf "%d", 100 / p + 0.5 }')
		tc qdisc add dev eth0 clsact
		tc filter add dev eth0 ingress matchall action gact pass \
			${n:+random netrand drop "$n"}
	fi
	meet "lose-$2-$1"
}
lose_none() {
	lose_clear
	meet "lose-none-$1"
}

# tbf_root MBIT: eth0's egress shaped to MBIT Mbit/s with 100 ms of queue.
tbf_root() {
	tc qdisc add dev eth0 root handle 1: tbf rate "${1}mbit" burst 16k latency 100ms
}

# meet TAG: both hosts have got here (after changing their qdiscs).
meet() {
	arrive "$1"
	await "$1" 120
}

# cpu_mhz: a /proc/cpuinfo with the measured TSC rate in "cpu MHz". The
# test kernel cannot calibrate its TSC under TCG and leaves the line out;
# perftest then prints latencies of inf and bandwidths of 0. (Measured
# against CLOCK_MONOTONIC, which is only right when the kernel was told
# the TSC rate: see tools/bench/run.sh.)
cpu_mhz() {
	local mhz
	mhz=$("$REPO/build/bench/tsc-mhz") || return 1
	row info both 0 tsc_mhz "$mhz"
	# Booted with tsc_early_khz (tools/bench/run.sh): the kernel knows.
	grep -q '^cpu MHz' /proc/cpuinfo && return 0
	awk -v m="$mhz" '/^cpu MHz/ { next } { print } /^processor/ { printf "cpu MHz\t\t: %s\n", m }' \
		/proc/cpuinfo >/run/cpuinfo
	mount --bind /run/cpuinfo /proc/cpuinfo || return 1
	echo "cpu MHz for perftest: $mhz"
}

# shape MBIT TAG: egress of eth0 limited to MBIT Mbit/s on both hosts.
shape() {
	tc qdisc del dev eth0 root 2>/dev/null
	tbf_root "$1"
	meet "shape-$2-$1"
}

# turn_order R WORDS...: WORDS, one a line, reversed when R is even.
turn_order() {
	local r=$1
	shift
	if [ $((r % 2)) = 0 ]; then printf '%s\n' "$@" | tac; else printf '%s\n' "$@"; fi
}

# loss_series BENCH BYTES [MBIT]: ib_write_bw of BYTES at every loss level
# of LOSS, on a link shaped to MBIT if given, REPEAT times. The levels
# take turns, in reverse order every other round, so drift on the host
# over a round hits the lossless run and the lossy ones alike; a level
# that did not finish once (rxe at 10%) is not rerun.
loss_series() {
	local bench=$1 bytes=$2 mbit=${3:-} r pct levels
	local -A done_=()
	[ -n "$mbit" ] && row "$bench" "$s" 0 shape_mbps "$mbit"
	for r in $(seq 1 "$REPEAT"); do
		# shellcheck disable=SC2086 # LOSS is a list of words
		levels=$(turn_order "$r" ${LOSS//,/ })
		for pct in $levels; do
			if [ "$r" -gt 1 ] &&
			   [ "$(agree "$bench-$s-$pct-r$r" "${done_[$pct]:-0}")" != 1 ]; then
				continue
			fi
			lose "$pct" "$bench-$s-r$r" $mbit
			perf "$s" "$(rep "$bench" "$r")" "$pct" "$LOSS_TMO" 1 ib_write_bw \
				-s 65536 -n "$(iters 65536 "$bytes")"
			[ "$r" = 1 ] && [ "${PAIR_RC:-1}" = 0 ] && done_[$pct]=1
			# Both hosts: the receiver's duplicates tell spurious
			# resends from repairs.
			if mroce "$s"; then
				grep -H . "$(hwc_dir)"/* >"$OUT/hwc-$(rep "$bench" "$r")-$pct.txt"
			fi
		done
	done
	lose_none "$bench-$s-end"
}

# lat_runs STACK R: run R of the latency tests (bench B-rR for R >= 2),
# in reverse order every other round. Under TCG perftest's own TSC
# calibration fails now and then ("r^2 < 0.9") and it prints latencies
# of inf; such a run is run once more (its rows replace the first's).
lat_runs() {
	local tool bad
	for tool in $(turn_order "$2" ib_write_lat ib_send_lat); do
		perf "$1" "$(rep "$tool" "$2")" 2 "$TMO" 2 "$tool" -s 2 -n "$LAT_ITERS"
		bad=
		[ "$me" = b ] && grep -qs 'Correlation coefficient' "$PAIR_OUT" && bad=1
		[ "$(agree "lat-$1-$tool-$2" "$bad")" = 1 ] || continue
		perf "$1" "$(rep "$tool" "$2")" 2 "$TMO" 2 "$tool" -s 2 -n "$LAT_ITERS"
	done
}

setup_modules
check "perftest gets the measured TSC rate (cpu MHz)" cpu_mhz
check "ib core loads" load_ib_core
check "rdma_rxe loads" modprobe rdma_rxe
check "rdma_metaroce loads" modprobe rdma_metaroce
[ -n "${BENCH_TXQLEN:-}" ] && ip link set eth0 txqueuelen "$BENCH_TXQLEN"
eth0_up
row info both 0 vcpus "$(nproc)"
row info both 0 lat_iters "$LAT_ITERS"
row info both 0 loss_at "$LOSS_AT"

for s in $STACKS; do
	bind_both "$s" "$s"
	if part bw; then
		for tool in ib_write_bw ib_read_bw ib_send_bw; do
			for size in ${SIZES//,/ }; do
				perf "$s" "$tool" "$size" "$TMO" 1 "$tool" \
					-s "$size" -n "$(iters "$size" "$BYTES")"
			done
		done
	fi
	part loss && loss_series loss "$LOSS_BYTES"
	part lossshaped && loss_series lossshaped "$LOSS_SHAPE_BYTES" "$LOSS_SHAPE"
	# One path, one shaped link: the baseline the fabric's plane scaling is
# compared with. Both hosts shape their egress to SHAPE Mbit/s (tbf, 100
# ms of queue, as a fabric plane); rxe has one path, MetaRoCE sprays its
# paths over this one link.
if part shaped; then
	shape "$SHAPE" "$s"
	perf "$s" shaped "$SHAPE" "$TMO" 1 ib_write_bw -s 65536 \
		-n "$(awk -v r="$SHAPE" -v t="$SHAPE_SECS" 'BEGIN { n = int(r * 1e6 * t / 8 / 65536); print (n < 10 ? 10 : n) }')"
	lose_none "$s-shaped-end"
fi
if part qps; then
		for q in ${QPS//,/ }; do
			qps_run "$s" "$q"
		done
		qps_most "$s"
	fi
	unbind_both "$s" "$s"
done

# The targets' points (ib_write_bw at 64 KiB, the latencies) again, the
# stacks taking turns run by run, in reverse order every other round:
# one run swings by 30% here, and the host's speed drifts by a third
# within minutes, which is how far apart the stacks' parts above are.
# In a fixed order, whichever went second in every round met the same
# drift each time. Run r >= 2 of bench B is stored as B-rR.
# The latencies are all taken here, round 1 too: a p50 of one stack
# measured 20 minutes before the other's was the host's drift as much
# as the stacks' difference (rxe's round-1 write p50 read 409-1689 us
# from one bench run to the next).
for r in $(seq 1 $((TARGET_REPEAT > LAT_REPEAT ? TARGET_REPEAT : LAT_REPEAT))); do
	bw=0 lat=0 wire=0 turnloss=
	part bw && [ "$r" -ge 2 ] && [ "$r" -le "$TARGET_REPEAT" ] && bw=1
	part lat && [ "$r" -le "$LAT_REPEAT" ] && lat=1
	part wire && [ "$r" -le "$TARGET_REPEAT" ] && wire=1
	[ "$r" -ge 2 ] && turnloss=${BENCH_TURN_LOSS:-}
	[ $bw$lat$wire = 000 ] && [ -z "$turnloss" ] && continue
	[ $wire = 1 ] && wire_run "$r"
	# shellcheck disable=SC2086 # STACKS is a list of words
	for s in $(turn_order "$r" $STACKS); do
		bind_both "$s" "$s-r$r"
		[ $bw = 1 ] && for tool in ${TURN_TOOLS//,/ }; do
			perf "$s" "$(rep "$tool" "$r")" 65536 "$TMO" 1 "$tool" \
				-s 65536 -n "$(iters 65536 "$BYTES")"
		done
		[ $lat = 1 ] && lat_runs "$s" "$r"
		for pct in ${turnloss//,/ }; do
			lose "$pct" "turn-$s-r$r"
			perf "$s" "turnloss-r$r" "$pct" "$LOSS_TMO" 1 ib_write_bw \
				-s 65536 -n "$(iters 65536 "$LOSS_BYTES")"
		done
		[ -n "$turnloss" ] && lose_none "turn-$s-r$r-end"
		unbind_both "$s" "$s-r$r"
	done
done

check "kernel log has no warnings" dmesg_clean
dmesg >"$OUT/dmesg.txt"
tap_summary
