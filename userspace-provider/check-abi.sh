#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# check-abi.sh PROVIDER.so [LIBIBVERBS.so.1]
#
# The provider is compiled against rdma-core 56.1 headers but must load into
# the system libibverbs. Verify that every symbol it imports with a
# libibverbs version (IBVERBS_*) is exported by the system libibverbs with
# exactly that version, that no symbol is imported unversioned (an
# unversioned import would bind to whatever happens to be there), and that
# the provider registers itself with the private ABI of that libibverbs.

set -eu

lib=${1:?usage: check-abi.sh PROVIDER.so [LIBIBVERBS.so.1]}
verbs=${2:-/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/libibverbs.so.1}

[ -f "$lib" ] || { echo "check-abi: $lib not found" >&2; exit 1; }
[ -f "$verbs" ] || { echo "check-abi: $verbs not found" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# objdump -T lines end in "... version name"; the version is "Base" for
# unversioned symbols and parenthesised for non-default (hidden) versions.
dynsyms() {
	LC_ALL=C objdump -T "$1" | awk -v want="$2" '
		!/^[0-9a-f]+ / { next }
		{
			ver = $(NF - 1)
			gsub(/[()]/, "", ver)
			und = ($0 ~ /\*UND\*/)
			if (want == "und" && und)
				print $NF, ver, ($0 ~ /^[0-9a-f]+  w /) ? "weak" : "strong"
			else if (want == "def" && !und && ver != "Base")
				print $NF, ver
		}'
}

dynsyms "$lib" und | sort -u >"$tmp/und"
dynsyms "$verbs" def | sort -u >"$tmp/def"

fail=0
checked=0
while read -r sym ver weak; do
	case $ver in
	IBVERBS_*)
		checked=$((checked + 1))
		if ! grep -qx "$sym $ver" "$tmp/def"; then
			have=$(awk -v s="$sym" '$1 == s { printf " %s", $2 }' "$tmp/def")
			echo "check-abi: $sym@$ver not exported by $verbs${have:+ (has:$have)}" >&2
			fail=1
		fi
		;;
	Base)
		# An unversioned import binds to any provider of the name.
		if [ "$weak" = strong ]; then
			echo "check-abi: $sym imported unversioned" >&2
			fail=1
		fi
		;;
	*)
		# Versioned import from another library (glibc): not ours.
		;;
	esac
done <"$tmp/und"

# The registration symbol carries the private ABI number; it was checked
# above like any other import, so only make sure it is there.
if ! grep -q '^verbs_register_driver_[0-9]* IBVERBS_PRIVATE_' "$tmp/und"; then
	echo "check-abi: $lib does not import verbs_register_driver_*@IBVERBS_PRIVATE_*" >&2
	fail=1
fi

if [ "$fail" -ne 0 ]; then
	echo "check-abi: FAILED: $lib does not fit $verbs" >&2
	exit 1
fi
echo "check-abi: OK: $checked libibverbs imports of $(basename "$lib") match $verbs"
