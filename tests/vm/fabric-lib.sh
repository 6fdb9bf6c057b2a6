#!/bin/bash
# Helpers for MetaRoCE over the fabric testbed in one VM (tools/fabric),
# shared by tests/vm/multipath.sh and tests/vm/bench-fabric.sh. Sourced
# after guest-lib.sh and tools/fabric/lib.sh. The caller sets OUT, SIZE
# (message size of write_bw), PATHS (paths per connection) and fig().

# fabric HOSTS PLANES ARGS...: a fresh fabric, mroceI bound in hI.
fabric() {
	local hosts=$1 planes=$2 i
	shift 2
	fabric_down >/dev/null 2>&1
	fabric_up --hosts "$hosts" --planes "$planes" "$@" >>"$OUT/fabric.log" 2>&1 ||
		return 1
	for i in $(seq 1 "$hosts"); do
		ns "h$i" ip link set lo up
		ns "h$i" rdma link add "mroce$i" type metaroce netdev eth0 || return 1
	done
	for i in $(seq 1 "$hosts"); do
		echo "$PATHS" >"/sys/class/infiniband/mroce$i/num_paths" || return 1
		wait_for 10 gid_index "mroce$i" "$(fabric_addr "h$i")" >/dev/null ||
			return 1
	done
}

# write_bw NAME SRC DST N [PORT]: ib_write_bw of N x 64 KiB from SRC to DST
# while sampling DST's link; prints goodput in Mbit/s: application bytes
# over the time from the link's first busy sample to the client's exit
# (GOODPUT_TO=data: to the end of the data phase, see goodput).
# With QP_SNAP set, SRC's QPs and their paths are saved every second to
# $OUT/NAME.qp while they exist.
write_bw() {
	local name=$1 src=$2 dst=$3 n=$4 port=${5:-18515} g s rc rs sampler snap=
	g=$(gid_index "mroce${dst#h}" "$(fabric_addr "$dst")")
	ns "$dst" timeout 300 ib_write_bw -F -d "mroce${dst#h}" -x "$g" -p "$port" \
		-s $SIZE -n "$n" >"$OUT/$name.srv" 2>&1 &
	s=$!
	sample_link "$dst" >"$OUT/$name.samples" &
	sampler=$!
	if [ -n "$QP_SNAP" ]; then
		snap_qps "mroce${src#h}" "$OUT/$name.qp" &
		snap=$!
	fi
	# perftest's client does not retry its TCP connect.
	wait_for 30 listening "$dst" "$port"
	ns "$src" timeout 300 ib_write_bw -F -d "mroce${src#h}" -x "$g" -p "$port" \
		-s $SIZE -n "$n" "$(fabric_addr "$dst")" >"$OUT/$name.cli" 2>&1
	rc=$?
	echo "$EPOCHREALTIME" >"$OUT/$name.end"
	wait $s
	rs=$?
	kill $sampler $snap 2>/dev/null
	wait $sampler $snap 2>/dev/null
	[ $rc = 0 ] && [ $rs = 0 ] || { fig "$name: ib_write_bw failed ($rc/$rs)"; return 1; }
	goodput "$OUT/$name.samples" "$(cat "$OUT/$name.end")" $((n * SIZE))
}

# sample_link hI: "seconds bytes" of the fabric's port towards host I every
# 0.1 s, from one shell in the leaf's namespace (no process per sample).
sample_link() {
	ip netns exec "l${1#h}" bash -c '
		exec 3<> <(:)
		while read -r b </sys/class/net/host/statistics/tx_bytes; do
			echo "$EPOCHREALTIME $b"
			read -r -t 0.1 -u 3 || :
		done'
}

# snap_qps DEV FILE: DEV's QPs with their per-path state, every second.
snap_qps() {
	while sleep 1; do
		rdma -dd resource show qp link "$1/1" >"$2.tmp" 2>&1
		grep -q 'sport=' "$2.tmp" && mv "$2.tmp" "$2"
	done
}

# goodput SAMPLES END BYTES: BYTES*8 over the time from the last sample
# before the link moved more than a trickle (ACKs only) to END, or with
# GOODPUT_TO=data to the last sample whose 0.1 s moved more than 16 KiB
# if that is earlier: the data phase, without perftest's TCP exchange
# and exit after it, which under TCG take 1-2 s.
goodput() {
	awk -v t1="$2" -v bytes="$3" -v data="$([ "${GOODPUT_TO:-}" = data ] && echo 1)" '
	NR == 1 { b0 = $2 }
	!t0 && $2 - b0 > 20000 { t0 = pt }
	NR > 1 && $2 - pb > 16384 { td = $1 }
	{ pt = $1; pb = $2 }
	END {
		if (data && td > t0 && td < t1) t1 = td
		if (!t0 || t1 <= t0) { print "0"; exit 1 }
		printf "%.1f\n", bytes * 8 / (t1 - t0) / 1e6
	}' "$1"
}

# rate_trace start | stop FILE: the rate hint events (a receiver's table
# taking a sender, a sender's new hint) in a trace instance of their own,
# apart from any other tracing; stop saves them to FILE, which must hold
# at least one of each. Remove $RT before unloading the module.
RT=/sys/kernel/tracing/instances/incast
rate_trace() {
	local ev
	if [ "$1" = start ]; then
		mkdir -p "$RT" && echo 4096 >"$RT/buffer_size_kb" && echo >"$RT/trace" || return 1
		for ev in mroce_rate_join mroce_rate_hint; do
			echo 1 >"$RT/events/metaroce/$ev/enable" || return 1
		done
		return 0
	fi
	echo 0 >"$RT/events/metaroce/enable"
	cp "$RT/trace" "$2" || return 1
	grep -q ' mroce_rate_join: ' "$2" && grep -q ' mroce_rate_hint: ' "$2"
}

# hints_fair_ms FILE K CAP_MBPS [JAIN]: milliseconds from the receiver's
# table taking its K-th sender (in a rate_trace FILE) until the senders'
# hints were fair: K of them held one, their Jain index was >= JAIN
# (default 0.95) and they added up to at most 1.05 x CAP; "none" if they
# never were. JAIN 0 asks only that every sender be told and the hints
# fit the capacity. The bench report (tools/bench/report_fabric.py)
# judges its traces with this too.
hints_fair_ms() {
	awk -v k="$2" -v cap="$(($3 * 1000))" -v jain="${4:-0.95}" '
	match($0, /[0-9]+\.[0-9]+: mroce_rate_(join|hint): [^ ]+ qp [0-9]+ [a-z_]+ [0-9]+/) {
		split(substr($0, RSTART, RLENGTH), f, " ")
		t = f[1] + 0; v = f[7] + 0
		if (f[2] == "mroce_rate_join:") { if (tj == "" && v >= k) tj = t; next }
		h[f[3] " " f[5]] = v
		if (tj == "" || t < tj) next
		n = s = q = 0
		for (d in h) if (h[d] > 0 && h[d] < 4294967295) { n++; s += h[d]; q += h[d] * h[d] }
		if (n >= k && s * s >= jain * n * q && s <= 1.05 * cap) {
			printf "%.3f\n", (t - tj) * 1000; found = 1; exit
		}
	}
	END { if (!found) print "none" }' "$1"
}
