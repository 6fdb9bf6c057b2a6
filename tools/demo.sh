#!/bin/bash
# "make demo": build everything, boot two QEMU hosts on one virtual wire, bind
# a MetaRoCE device on each and show it through Debian's own RDMA tools.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
out=$repo/build/demo

echo "== building the test kernel (cached after the first time)"
kdir=$(tools/kernel/build-kernel.sh normal)
echo "== building rdma_metaroce.ko and the rdma-core provider"
make -s KDIR="$kdir" modules
make -s provider
echo "== booting two hosts under QEMU (about a minute under TCG)"
rc=0
tools/vm/run-pair.sh -k "$kdir/arch/x86/boot/bzImage" -s tests/vm/twohost.sh \
	-o "$out" -t 600 -e REPO="$repo" -e KDIR="$kdir" || rc=$?
for h in a b; do
	echo
	echo "== host $h"
	sed -n '/^=== host/,/^ok 5 /p' "$out/$h/guest.log" | grep -v '^ok 5 '
	grep -A1 '^link mroce0' "$out/$h/guest.log" || true
	grep -m1 -A2 '^=== ib_write_bw' "$out/$h/guest.log" || true
	grep '^guest:' "$out/$h/guest.log" || true
done
echo
if [ $rc = 0 ]; then
	echo "demo: both hosts' mroce0 PORT_ACTIVE; ib_write_bw ran over MetaRoCE between them."
else
	echo "demo: FAILED (rc $rc); logs in $out/{a,b}/"
fi
exit $rc
