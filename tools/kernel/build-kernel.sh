#!/bin/bash
# Build (or reuse) the lean 6.12 test kernel from Debian's linux-source-6.12.
#
# usage: build-kernel.sh [normal|debug]
# Prints the build directory (O=) on stdout; bzImage is in arch/x86/boot/.
# The result is cached outside the clone, keyed by the source package version,
# the fragments and a recipe number, so a changed fragment rebuilds by itself.
set -euo pipefail
variant=${1:-normal}
here=$(cd "$(dirname "$0")" && pwd)
cache=${METAROCE_CACHE:-/var/cache/metaroce}
tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || { echo "build-kernel: $tarball missing; run tools/install-deps.sh" >&2; exit 1; }

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
frags="$here/config.fragment"
[ "$variant" = debug ] && frags="$frags $here/debug.fragment"
# Bump when a change to this script must rebuild cached kernels.
recipe=1
key=$( (echo "$srcver $recipe"; cat $frags) | sha256sum | cut -c1-16)
src="$cache/src-$srcver"
out="$cache/build-$variant-$key"

if [ -f "$out/.metaroce-done" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$cache"
# One builder at a time per cache; a second caller waits and reuses.
exec 9>"$cache/.build-kernel.lock"
flock 9
if [ -f "$out/.metaroce-done" ]; then
	echo "$out"
	exit 0
fi
if [ ! -f "$src/.metaroce-unpacked" ]; then
	echo "build-kernel: unpacking $tarball" >&2
	rm -rf "$src" && mkdir -p "$src"
	tar -C "$src" --strip-components=1 -xJf "$tarball"
	touch "$src/.metaroce-unpacked"
fi

echo "build-kernel: building $variant kernel in $out (about 10 min on 2 cores)" >&2
rm -rf "$out" && mkdir -p "$out"
log="$out/build.log"
{
	make -C "$src" O="$out" allnoconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags
	make -C "$src" O="$out" olddefconfig
} >"$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }

# merge_config drops options whose dependencies are missing without failing.
missing=0
for f in $frags; do
	grep -E '^CONFIG_[A-Z0-9_]+=[ym]' "$f" | while read -r line; do
		grep -qx "$line" "$out/.config" || echo "build-kernel: warning: $line not in .config" >&2
	done
done
for opt in INFINIBAND RDMA_RXE KUNIT NET_9P_VIRTIO 9P_FS VETH NET_SCH_NETEM MODULES; do
	grep -qE "^CONFIG_$opt=[ym]" "$out/.config" || { echo "build-kernel: CONFIG_$opt missing" >&2; missing=1; }
done
[ $missing = 0 ] || exit 1

jobs=$(( $(nproc) + 1 ))
if ! make -C "$src" O="$out" -j"$jobs" bzImage modules >>"$log" 2>&1; then
	tail -40 "$log" >&2
	exit 1
fi
touch "$out/.metaroce-done"
echo "$out"
