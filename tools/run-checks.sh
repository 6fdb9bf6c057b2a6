#!/bin/bash
# Everything "make check" runs: builds, static checks, host tests, KUnit and
# the VM tests. Each step is counted; the last line is "N passed, N failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
logs=$repo/build/check
rm -rf "$logs"
mkdir -p "$logs"
passed=0 failed=0

pass() { passed=$((passed + 1)); echo "PASS: $*"; }
flunk() { failed=$((failed + 1)); echo "FAIL: $*"; }

# step NAME CMD...: run CMD with its output in build/check/NAME.log.
step() {
	local name=$1
	shift
	local t0=$SECONDS
	if "$@" >"$logs/$name.log" 2>&1; then
		pass "$name ($((SECONDS - t0))s)"
		return 0
	fi
	flunk "$name ($((SECONDS - t0))s); log tail:"
	tail -25 "$logs/$name.log" | sed 's/^/    /'
	return 1
}

# count_tap NAME FILE: every TAP line of FILE counts as a test.
count_tap() {
	local name=$1 file=$2 p f
	[ -f "$file" ] || { flunk "$name: no results"; return; }
	p=$(grep -c '^ok ' "$file")
	f=$(grep -c '^not ok ' "$file")
	passed=$((passed + p))
	failed=$((failed + f))
	echo "$name: $p passed, $f failed"
	# Each failure with the diagnostics (# lines) the test put after it.
	awk '/^not ok /{d=1; print; next} /^#/{if (d) print; next} {d=0}' \
		"$file" | sed 's/^/    /'
}

finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}

no_warnings() { ! grep -E "warning:|error:" "$1"; }

step kernel tools/kernel/build-kernel.sh normal || finish
kdir=$(tools/kernel/build-kernel.sh normal)
step kernel-debug tools/kernel/build-kernel.sh debug || finish
kdir_debug=$(tools/kernel/build-kernel.sh debug)

step modules make -s KDIR="$kdir" modules && step modules-no-warnings no_warnings "$logs/modules.log"
step modules-debian make -s modules-debian && step modules-debian-no-warnings no_warnings "$logs/modules-debian.log"
step checkpatch tools/checkpatch.sh
step sparse make -s KDIR="$kdir" C=2 modules && step sparse-clean no_warnings "$logs/sparse.log"
step provider make -s provider && step provider-abi make -s -C userspace-provider check-abi
step test-programs sh -c "make -s -C tests/verbs && make -s -C tests/tools"
step guest-lib-dmesg tests/host/guest-lib-test.sh
make -s -C tests/host check >"$logs/host.log" 2>&1
hp=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$logs/host.log" | tail -1)
hf=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$logs/host.log" | tail -1)
if [ -n "$hp" ]; then
	passed=$((passed + hp)) failed=$((failed + hf))
	echo "host tests: $hp passed, $hf failed"
else
	flunk "host tests produced no summary"; tail -20 "$logs/host.log"
fi

# VM tests: KUnit and smoke on the debug kernel (KASAN, lockdep, kmemleak).
# The modules must be built for the kernel they load into: build them in a
# copy of the sources, so the tree keeps the normal kernel's build.
bz_debug=$kdir_debug/arch/x86/boot/bzImage
# Its tests are about correctness, not time; see run-vm.sh for why the
# debug kernel is not told the TSC rate.
export METAROCE_GUEST_TSC=0
moddir=$repo/build/kdebug
rm -rf "$moddir" && mkdir -p "$moddir"
tar -c --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude=modules.order --exclude=build \
	Kbuild drivers include kunit tests/kmod | tar -x -C "$moddir"
if step modules-for-debug make -s -C "$kdir_debug" M="$moddir" W=1 modules; then
	for t in kunit smoke verbs-mr verbs-cq verbs-ring; do
		step "vm-$t" tools/vm/run-vm.sh -k "$bz_debug" -s tests/vm/$t.sh \
			-o "$logs/vm-$t" -t 900 -m 2048 \
			-e REPO="$repo" -e KDIR="$kdir_debug" -e MODDIR="$moddir"
		count_tap "vm-$t" "$logs/vm-$t/results.tap"
	done
	step vm-twohost tools/vm/run-pair.sh -k "$bz_debug" -s tests/vm/twohost.sh \
		-o "$logs/vm-twohost" -t 900 -e REPO="$repo" -e KDIR="$kdir_debug" \
		-e MODDIR="$moddir" -e BW_ITERS=100
	count_tap "vm-twohost host a" "$logs/vm-twohost/a/results.tap"
	count_tap "vm-twohost host b" "$logs/vm-twohost/b/results.tap"
fi
# The data path on the normal kernel: perftest and the integrity tool are
# too slow under KASAN to run in full there.
bz=$kdir/arch/x86/boot/bzImage
export METAROCE_GUEST_TSC=1
for t in datapath verbs-access verbs-mw verbs-teardown rdmacm verbs-srq verbs-wr fabric multipath; do
	[ -f tests/vm/$t.sh ] || continue
	step "vm-$t" tools/vm/run-vm.sh -k "$bz" -s tests/vm/$t.sh \
		-o "$logs/vm-$t" -t 1200 -m 1024 -e REPO="$repo" -e KDIR="$kdir"
	count_tap "vm-$t" "$logs/vm-$t/results.tap"
done
# 4096 QPs between two VMs: the local queue's turns at full scale.
step vm-many-qps tools/vm/run-pair.sh -k "$bz" -s tests/vm/many-qps.sh \
	-o "$logs/vm-many-qps" -t 900 -e REPO="$repo" -e KDIR="$kdir"
count_tap "vm-many-qps host a" "$logs/vm-many-qps/a/results.tap"
count_tap "vm-many-qps host b" "$logs/vm-many-qps/b/results.tap"
finish
