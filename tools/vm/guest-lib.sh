#!/bin/bash
# Helpers sourced by guest test scripts. Expects REPO and KDIR in the
# environment (run-vm.sh passes them on the kernel command line) and OUT.
#
# Results are TAP lines in $OUT/results.tap, one per check.

: "${OUT:=/tmp}" "${REPO:?}" "${KDIR:?}"
export RDMAV_DRIVERS=$REPO/userspace-provider/build/libmetaroce
TAP=$OUT/results.tap
_tap_n=0
: >"$TAP"

# A failing check may leave diagnostics in $_tap_diag: they follow its line.
# A passing one drops what it left.
_tap_diag=$OUT/.tap-diag
ok() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $*" | tee -a "$TAP"
	rm -f "$_tap_diag"
}
fail() {
	_tap_n=$((_tap_n + 1))
	echo "not ok $_tap_n - $*" | tee -a "$TAP"
	[ -s "$_tap_diag" ] && sed 's/^/# /' "$_tap_diag" >>"$TAP"
	rm -f "$_tap_diag"
}

# check DESC CMD...: one TAP line from a command's exit status.
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else fail "$desc"; fi
}

# ns NETNS CMD...: run CMD in a network namespace.
ns() { local n=$1; shift; ip netns exec "$n" "$@"; }

# listening NETNS PORT: a TCP listener on PORT in NETNS (perftest's server).
listening() { ns "$1" ss -Hltn "sport = :$2" | grep -q .; }

# one_host NETNS ADDR/PREFIX: a namespace holding one end (v1) of a veth
# pair with ADDR, the other end up in init_net, and lo up (traffic between
# two QPs of one device loops through it).
one_host() {
	ip netns add "$1"
	ip link add v1 netns "$1" type veth peer name v2
	ns "$1" ip addr add "$2" dev v1
	ns "$1" ip link set v1 up
	ns "$1" ip link set lo up
	ip link set v2 up
}

# verbs_start NAME: the module stack loaded by name, and the verbs test
# program NAME built on the host (two TAP lines); sets VERBS_BIN to it.
verbs_start() {
	VERBS_BIN=$REPO/tests/verbs/build/$1
	setup_modules
	check "ib core loads by name" load_ib_core
	check "$1 is built (make -C tests/verbs)" test -x "$VERBS_BIN"
}

# mroce1_in_h1 ADDR/PREFIX [gid]: one_host h1 with ADDR, the kernel log
# cleared, and mroce1 bound to v1; with "gid", also waits for its IPv4
# RoCEv2 GID (traffic between two of its QPs loops through lo).
mroce1_in_h1() {
	one_host h1 "$1"
	dmesg_clear
	check "rdma link add mroce1 in netns h1" \
		ns h1 rdma link add mroce1 type metaroce netdev v1
	[ "$2" = gid ] || return 0
	check "mroce1 has the IPv4 GID" wait_for 5 gid_index mroce1 "${1%/*}"
}

dev_gone() { ! [ -e /sys/class/infiniband/"$1" ]; }

# killed_user SECS: VERBS_BIN in h1 killed SECS into its run, holding
# objects the kernel must clean up; mroce1 stays (one TAP line).
killed_user() {
	ns h1 sh -c "'$VERBS_BIN' mroce1 >/dev/null 2>&1 & pid=\$!; sleep $1; kill -9 \$pid; wait \$pid" 2>/dev/null
	check "device still there after a killed user" test -e /sys/class/infiniband/mroce1
}

# relink_rmmod: mroce1 deleted and gone, re-added in h1, VERBS_BIN passing
# on it again, then rmmod with the device present removing it (six TAP
# lines); h1 is deleted afterwards.
relink_rmmod() {
	local name=${VERBS_BIN##*/}
	check "rdma link delete mroce1" rdma link delete mroce1
	check "mroce1 gone" wait_for 5 dev_gone mroce1
	check "re-add after delete" ns h1 rdma link add mroce1 type metaroce netdev v1
	check "$name on the re-added device" \
		sh -c "ip netns exec h1 '$VERBS_BIN' mroce1 >'$OUT/$name-readd.tap' 2>&1"
	check "rmmod with the device present" rmmod rdma_metaroce
	check "rmmod removed the device" wait_for 5 dev_gone mroce1
	ip netns del h1
}

# veth_hosts HA VA HB VB NET [MTUA MTUB]: namespaces HA (NET.1 on VA) and
# HB (NET.2 on VB) joined by a veth pair whose ends have the given MTUs
# (1500 each by default), every link up.
veth_hosts() {
	local ha=$1 va=$2 hb=$3 vb=$4 net=$5 h

	ip netns add "$ha"
	ip netns add "$hb"
	ip link add "$va" netns "$ha" mtu "${6:-1500}" type veth \
		peer name "$vb" netns "$hb" mtu "${7:-1500}"
	ns "$ha" ip addr add "$net.1/24" dev "$va"
	ns "$hb" ip addr add "$net.2/24" dev "$vb"
	for h in "$ha:$va" "$hb:$vb"; do
		ns "${h%:*}" ip link set lo up
		ns "${h%:*}" ip link set "${h#*:}" up
	done
}

# two_hosts: namespaces h2 (10.14.0.1, mroce2 on v3) and h3 (10.14.0.2,
# mroce3 on v4) joined by a veth pair; g2 and g3 are the devices' IPv4
# RoCEv2 GID indexes.
two_hosts() {
	veth_hosts h2 v3 h3 v4 10.14.0
	check "bind mroce2 in h2" ns h2 rdma link add mroce2 type metaroce netdev v3
	check "bind mroce3 in h3" ns h3 rdma link add mroce3 type metaroce netdev v4
	wait_for 5 gid_index mroce2 10.14.0.1 >/dev/null
	wait_for 5 gid_index mroce3 10.14.0.2 >/dev/null
	g2=$(gid_index mroce2 10.14.0.1)
	g3=$(gid_index mroce3 10.14.0.2)
}

# two_hosts_qdisc add|del [QDISC ARGS...]: the same root qdisc on both
# ends of two_hosts' veth (netem there acts on each direction once).
two_hosts_qdisc() {
	local op=$1
	shift
	tc -n h2 qdisc "$op" dev v3 root "$@" &&
		tc -n h3 qdisc "$op" dev v4 root "$@"
}

# host_pair NAME SECS TOOL GIDOPT ARGS...: a client/server tool between
# two_hosts, each on its own device and GID index (passed with GIDOPT):
# the server in h2, the client in h3; both must exit 0 within SECS.
# Their output is in $OUT/NAME.srv and $OUT/NAME.cli.
host_pair() {
	local name=$1 secs=$2 tool=$3 gopt=$4 rc rs
	shift 4
	ns h2 timeout "$secs" "$tool" -d mroce2 "$gopt" "$g2" "$@" \
		>"$OUT/$name.srv" 2>&1 &
	sleep 1
	ns h3 timeout "$secs" "$tool" -d mroce3 "$gopt" "$g3" "$@" \
		10.14.0.1 >"$OUT/$name.cli" 2>&1
	rc=$?
	wait $!
	rs=$?
	tail -2 "$OUT/$name.cli"
	[ $rc = 0 ] && [ $rs = 0 ]
}

# two_hosts_end: no RC QP left, both devices deleted (three TAP lines),
# the namespaces gone.
two_hosts_end() {
	check "no QP left (rdma resource)" sh -c "! rdma resource show qp | grep -q 'mroce.*type RC'"
	check "rdma link delete mroce2" rdma link delete mroce2
	check "rdma link delete mroce3" rdma link delete mroce3
	ip netns del h2
	ip netns del h3
}

# nap SECONDS: sleep in the shell, a read that times out on a pipe no
# one writes. Under TCG every sleep(1) is a process to start: the poll
# loops of the benchmarks' two hosts took 10-25% of the guest CPU that
# the transfers they time run on.
exec {nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$nap_fd" || :; }

# wait_for SECONDS CMD...: poll until CMD succeeds.
wait_for() {
	local t=$(($1 * 10))
	shift
	while [ $t -gt 0 ]; do
		"$@" 2>/dev/null && return 0
		nap 0.1
		t=$((t - 1))
	done
	return 1
}

# Make modprobe (and so request_module autoloading) work for the test kernel:
# a tmpfs /lib/modules/<version> holding its modules and ours, then depmod.
setup_modules() {
	local ver dir
	ver=$(uname -r)
	mount -t tmpfs tmpfs /usr/lib/modules
	dir=/usr/lib/modules/$ver/kernel
	mkdir -p "$dir/extra"
	(cd "$KDIR" && find . -name '*.ko' -exec cp --parents {} "$dir/" \;)
	# MODDIR: where our modules were built for this kernel (default REPO).
	cp "${MODDIR:-$REPO}"/drivers/infiniband/sw/metaroce/rdma_metaroce.ko "$dir/extra/"
	[ -f "${MODDIR:-$REPO}/kunit/metaroce_kunit.ko" ] &&
		cp "${MODDIR:-$REPO}/kunit/metaroce_kunit.ko" "$dir/extra/"
	cp "$KDIR/modules.order" "$KDIR/modules.builtin" /usr/lib/modules/"$ver"/ 2>/dev/null
	cp "$KDIR/modules.builtin.modinfo" /usr/lib/modules/"$ver"/ 2>/dev/null
	depmod -a "$ver"
	kmemleak_clear
}

# trace_events EVENTS: record the metaroce tracepoints EVENTS (a comma
# list, as BENCH_TRACE; "all" for every one) in the global trace buffer,
# of 64 MiB.
# trace_save FILE: stop them, move what they recorded to FILE.
trace_events() {
	local ev tr=/sys/kernel/tracing
	echo 65536 >$tr/buffer_size_kb || return 1
	if [ "$1" = all ]; then
		echo 1 >$tr/events/metaroce/enable
		return
	fi
	for ev in ${1//,/ }; do
		echo 1 >"$tr/events/metaroce/$ev/enable" || return 1
	done
}
trace_save() {
	echo 0 >/sys/kernel/tracing/events/metaroce/enable
	cp /sys/kernel/tracing/trace "$1" && echo >/sys/kernel/tracing/trace
}

# perf_start: sample every CPU (cpu-clock: TCG has no PMU) with call
# graphs into /run/perf.data until perf_stop PREFIX, which writes
# PREFIX-report.txt (flat, by symbol), PREFIX-dso.txt and
# PREFIX-callers.txt (call graphs of the top symbols). `command`: a
# caller may have a function named perf.
perf_pid=
perf_start() {
	command perf record -e cpu-clock -F 999 -a -g -o /run/perf.data \
		>/dev/null 2>&1 &
	perf_pid=$!
	# perf takes seconds to start under TCG: sample the run, not that.
	for _ in $(seq 100); do
		[ -s /run/perf.data ] && break
		sleep 0.2
	done
	sleep 2
}
perf_stop() {
	local r=(command perf report -i /run/perf.data --no-children --stdio)
	kill -INT "$perf_pid"
	wait "$perf_pid"
	perf_pid=
	"${r[@]}" --sort sym -g none 2>/dev/null | grep -v '^#' | grep -v '^$' |
		head -80 >"$1-report.txt"
	"${r[@]}" --sort dso -g none 2>/dev/null | grep -v '^#' | grep -v '^$' |
		head -20 >"$1-dso.txt"
	"${r[@]}" --sort sym -G 2>/dev/null | head -600 >"$1-callers.txt"
	rm -f /run/perf.data
}

# Load the ib stack the way a distribution would: by name, with dependencies.
load_ib_core() {
	modprobe ib_uverbs && modprobe rdma_ucm
}

# counters DEV: every "rdma statistic" counter of DEV's port 1 at one
# moment, a "NAME VALUE" line each (the output is "link DEV/1" and then
# the pairs).
counters() {
	rdma statistic show link "$1"/1 | tr ' ' '\n' | grep . | tail -n +3 |
		paste -d ' ' - -
}
# counter DEV NAME: one of them.
counter() { counters "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
# qdisc_drops DEV [NETNS]: packets DEV's qdiscs dropped (a loss no wire
# saw). The root's count includes its children's (mq, tbf's inner fifo),
# so only the root is read, as tools/fabric/stats.sh does.
qdisc_drops() {
	tc ${2:+-n "$2"} -s qdisc show dev "$1" |
		awk '$1 == "qdisc" { root = ($0 ~ / root( |$)/); next }
		     $1 == "Sent" && root { x = $0; sub(/.*dropped /, "", x); sub(/,.*/, "", x); s += x; root = 0 }
		     END { print s + 0 }'
}
qdisc_drops_is() { [ "$(qdisc_drops "$1" "$2")" -eq "$3" ]; }

counter_is() { [ "$(counter "$1" "$2")" -eq "$3" ]; }
counter_ge() { [ "$(counter "$1" "$2")" -ge "$3" ]; }

# send_udp ADDR HEXBYTES: one datagram to the MetaRoCE port of ADDR.
send_udp() { "$REPO/tools/vm/send-udp" "$@"; }

# The spec's Appendix A packet (protocol.rst): a valid SEND_IMM, 904 bytes of
# payload, addressed to a QP that does not exist.
# shellcheck disable=SC2034 # used by the scripts that source this file
APPENDIX_A="0102001c0a00000500000123010203040000001122334455000000090000100000001388deadbeef$(printf '%01808d' 0)"

# gid_index DEV IPV4: the RoCEv2 GID table index holding IPV4 (v4-mapped).
gid_index() {
	local hex i a b c d
	IFS=. read -r a b c d <<<"$2"
	hex=$(printf '%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	for i in $(seq 0 15); do
		if grep -q "0000:0000:0000:0000:0000:ffff:$hex" \
			"/sys/class/infiniband/$1/ports/1/gids/$i" 2>/dev/null &&
		   grep -q "RoCE v2" "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2>/dev/null; then
			echo "$i"
			return 0
		fi
	done
	return 1
}

# run_tap NAME CMD...: run a program that prints TAP and fold its lines
# into ours; succeeds when it exited 0.
run_tap() {
	local name=$1 rc line
	shift
	"$@" >"$OUT/$name.tap" 2>"$OUT/$name.err"
	rc=$?
	cat "$OUT/$name.err"
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "$name: ${line#ok * - }" ;;
		"not ok "*) fail "$name: ${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$OUT/$name.tap"
	[ "$rc" = 0 ] || echo "# $name exited with $rc"
	[ "$rc" = 0 ]
}

kmemleak_enabled() { [ -w /sys/kernel/debug/kmemleak ]; }

# Forget what boot left behind, so a later report is the test's doing.
kmemleak_clear() {
	kmemleak_enabled || return 0
	echo scan >/sys/kernel/debug/kmemleak
	echo clear >/sys/kernel/debug/kmemleak
}

# Scan for leaks; prints any leak report. Succeeds when there is none;
# fails on a kernel without kmemleak, which cannot tell (leak_check).
kmemleak_clean() {
	kmemleak_enabled || { echo "kmemleak: not in this kernel"; return 1; }
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	local rep
	rep=$(cat /sys/kernel/debug/kmemleak)
	[ -z "$rep" ] && return 0
	echo "$rep" | head -60
	return 1
}

# Succeeds when the kernel log shows no warning, oops or refcount trouble.
# cm_listening: an rdma_cm server is ready. rdma_listen() shows LISTEN
# before the CM has the listener: a REQ in between is rejected (invalid
# service ID) and perftest's client does not retry; hence the second.
cm_listening() {
	wait_for 30 sh -c "rdma res show cm_id | grep -q LISTEN" && sleep 1
}

# dmesg_clear: empty the kernel log so a test can look for its own lines,
# keeping what it held for dmesg_clean: a warning must not be cleared away.
dmesg_clear() { dmesg -c >>"$OUT/dmesg-cleared.txt"; }

# The kernel log from here on is the test's: this line marks where the
# boot ends. Under TCG the debug kernel now and then reports a KASAN wild
# access in an interrupt taken during identify_cpu(), a second into boot,
# before init runs and long before any MetaRoCE code is loaded; dmesg_clean
# keeps such boot reports apart (see _boot_reports).
_dmesg_mark="metaroce tests: ${0##*/} starts"
echo "$_dmesg_mark" >"${MROCE_KMSG:-/dev/kmsg}" 2>/dev/null

_dmesg_bad="WARNING:|BUG:|Oops|refcount_t|unregister_netdevice: waiting|KASAN|possible circular|inconsistent lock|sleeping function called"

# _dmesg_all: the whole kernel log, with what dmesg_clear took of it.
_dmesg_all() { cat "$OUT/dmesg-cleared.txt" 2>/dev/null; dmesg; }

# _dmesg_part boot|test: the kernel log before the start mark, or after
# it. If the mark was lost nothing is known to be the boot's: the whole
# log is the test's.
_dmesg_part() {
	_dmesg_all | awk -v m="$_dmesg_mark" -v boot=$([ "$1" = boot ] && echo 1 || echo 0) '
		found { if (!boot) print; next }
		index($0, m) { found = 1; next }
		{ pre[n++] = $0 }
		END { if (found == boot) for (i = 0; i < n; i++) print pre[i] }'
}

# _boot_reports: a kernel report from before the start mark is kept in
# $OUT/dmesg-boot-reports.txt and noted in the TAP file, not failed: no
# test step had run.
_boot_reports() {
	_dmesg_part boot | grep -E -A6 "$_dmesg_bad" \
		>"$OUT/dmesg-boot-reports.txt" || return 0
	echo "# note: the boot log, before any test step, has a kernel report: $(head -1 "$OUT/dmesg-boot-reports.txt")" >>"$TAP"
}

# dmesg_clean: no kernel warning in the log since the start mark, or in
# what was cleared of it. What matched, with the lines after it, follows
# the TAP line as diagnostics, so that a CI log shows why without the
# guest's files.
dmesg_clean() {
	local bad
	_boot_reports
	bad=$(_dmesg_part test | grep -E -A6 "$_dmesg_bad")
	[ -z "$bad" ] && return 0
	echo "$bad"
	echo "$bad" | head -40 >"$_tap_diag"
	return 1
}

# leak_check: "no leaks (kmemleak)" on a kernel with kmemleak (the debug
# kernel's suites); on one without, a TAP comment saying it did not run,
# not an "ok" for a check that was not made.
leak_check() {
	if kmemleak_enabled; then
		check "no leaks (kmemleak)" kmemleak_clean
	else
		echo "# no leak check: this kernel has no kmemleak" | tee -a "$TAP"
	fi
}

# tap_finish: the closing checks every test makes (no leak where the
# kernel can tell, a clean kernel log), the log kept in $OUT/dmesg.txt,
# the summary.
tap_finish() {
	leak_check
	check "kernel log has no warnings" dmesg_clean
	dmesg >"$OUT/dmesg.txt"
	tap_summary
}

tap_summary() {
	local p f
	p=$(grep -c '^ok ' "$TAP")
	f=$(grep -c '^not ok ' "$TAP")
	echo "guest: $p passed, $f failed"
	[ "$f" = 0 ]
}
