#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Print the path of an unpacked, prepared rdma-core source tree whose
# provider private ABI matches Debian 12's libibverbs (IBVERBS_PABI 34).
#
# libibverbs-dev does not ship <infiniband/driver.h>, so the MetaRoCE
# provider is compiled against rdma-core 56.1 (same private ABI as
# Debian 12's 44.0) and linked against the system libibverbs.so.1.
#
# "Prepared" means <tree>/build holds what an out-of-tree provider needs:
# config.h, the published include/ tree and the generated
# include/kernel-abi/ headers (cmake configure + the kern-abi target).
#
# Environment:
#   RDMA_CORE_SRC   use this rdma-core tree instead of the cached one;
#                   it is prepared in place (<tree>/build) if not built yet.
#   METAROCE_CACHE  cache directory (default /var/cache/metaroce).
#
# Only the tree path goes to stdout; all messages go to stderr.

set -eu

RC_VERSION=56.1
RC_DEB_VERSION=56.1-1
RC_SHA256=63ce7f2baa7242c2dbc76375dac957c420187dd27f8c5e148efc07971ee522a8
RC_PABI=34
RC_TARBALL=rdma-core_${RC_VERSION}.orig.tar.gz
RC_POOL_URL=http://deb.debian.org/debian/pool/main/r/rdma-core/$RC_TARBALL
DEBIAN_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
STAMP_NAME=.metaroce-prepared

msg() { echo "fetch-rdma-core: $*" >&2; }
die() { msg "error: $*"; exit 1; }

# The private ABI of the tree must be the one of the system libibverbs.
check_pabi() {
	pabi=$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")$/\1/p' \
		"$1/CMakeLists.txt" 2>/dev/null || true)
	[ -n "$pabi" ] ||
		die "$1 does not look like an rdma-core source tree"
	[ "$pabi" = "$RC_PABI" ] ||
		die "$1 has IBVERBS_PABI_VERSION $pabi, need $RC_PABI (Debian 12 libibverbs)"
}

is_prepared() {
	[ -f "$1/build/$STAMP_NAME" ] && return 0
	# A tree already built by the user (./build.sh) is good as is.
	[ -f "$1/build/include/config.h" ] &&
		[ -f "$1/build/include/infiniband/driver.h" ] &&
		[ -f "$1/build/include/kernel-abi/ib_user_verbs.h" ]
}

prepare() {
	src=$1
	bld=$src/build
	log=$bld/metaroce-prepare.log

	is_prepared "$src" && return 0

	command -v cmake >/dev/null || die "cmake not found (apt-get install cmake)"
	command -v python3 >/dev/null || die "python3 not found (apt-get install python3)"
	gen=
	command -v ninja >/dev/null && gen="-GNinja"

	msg "configuring $src (log: $log)"
	mkdir -p "$bld"
	# Only headers are needed: configure, then generate the kernel-abi
	# wrappers. Nothing of rdma-core itself is compiled or installed.
	if ! cmake -S "$src" -B "$bld" $gen \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DNO_MAN_PAGES=1 -DNO_PYVERBS=1 -DENABLE_STATIC=0 \
		>"$log" 2>&1 ||
	   ! cmake --build "$bld" --target kern-abi >>"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "preparing $src failed, see $log"
	fi
	is_prepared "$src" || die "$src/build is incomplete after preparation"
	touch "$bld/$STAMP_NAME"
}

sha256_of() {
	sha256sum "$1" | cut -d' ' -f1
}

# Download the orig tarball into directory $1 through a private apt
# configuration (trixie deb-src), so the host's apt state is untouched.
download() {
	dl=$1
	apt=$dl/apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	echo "deb-src [signed-by=$DEBIAN_KEYRING] http://deb.debian.org/debian trixie main" \
		>"$apt/sources.list"
	set -- -o Dir::Etc::SourceList="$apt/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$apt/lists" \
		-o Dir::Cache="$apt/cache" \
		-o APT::Sandbox::User=root -q

	msg "downloading $RC_TARBALL (trixie deb-src)"
	if apt-get "$@" update >"$dl/apt.log" 2>&1; then
		# Fetching the .dsc fails on the mirror, so apt-get exits non-zero
		# even when the orig tarball arrived; judge by the tarball.
		(cd "$dl" && apt-get "$@" source --download-only \
			"rdma-core=$RC_DEB_VERSION") >>"$dl/apt.log" 2>&1 || true
	else
		msg "apt-get update failed, see below"
		tail -n 10 "$dl/apt.log" >&2
	fi

	if [ ! -f "$dl/$RC_TARBALL" ]; then
		# Debian revision no longer in the index: the pool file stays.
		msg "not in the trixie index, fetching $RC_POOL_URL"
		/usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file \
			"$RC_POOL_URL" "$dl/$RC_TARBALL" >>"$dl/apt.log" 2>&1 || {
			tail -n 10 "$dl/apt.log" >&2
			die "could not download $RC_TARBALL"
		}
	fi

	sum=$(sha256_of "$dl/$RC_TARBALL")
	[ "$sum" = "$RC_SHA256" ] || {
		msg "SHA256 MISMATCH for $RC_TARBALL"
		msg "  expected $RC_SHA256"
		msg "  got      $sum"
		die "refusing to use $RC_TARBALL"
	}
}

if [ -n "${RDMA_CORE_SRC:-}" ]; then
	[ -d "$RDMA_CORE_SRC" ] || die "RDMA_CORE_SRC=$RDMA_CORE_SRC is not a directory"
	src=$(cd "$RDMA_CORE_SRC" && pwd)
	check_pabi "$src"
	prepare "$src"
	echo "$src"
	exit 0
fi

cache=${METAROCE_CACHE:-/var/cache/metaroce}
src=$cache/rdma-core-$RC_VERSION

if is_prepared "$src"; then
	echo "$src"
	exit 0
fi

mkdir -p "$cache" || die "cannot create $cache (set METAROCE_CACHE)"
cache=$(cd "$cache" && pwd)
src=$cache/rdma-core-$RC_VERSION

# Serialise concurrent builds sharing the cache, then look again.
exec 9>"$cache/.lock"
flock 9
if is_prepared "$src"; then
	echo "$src"
	exit 0
fi

if [ ! -f "$src/CMakeLists.txt" ]; then
	tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 1' HUP INT TERM

	download "$tmp"
	msg "unpacking into $src"
	tar -C "$tmp" -xzf "$tmp/$RC_TARBALL"
	[ -f "$tmp/rdma-core-$RC_VERSION/CMakeLists.txt" ] ||
		die "$RC_TARBALL did not unpack to rdma-core-$RC_VERSION/"
	rm -rf "$src"
	# Atomic within the cache directory: a half-unpacked tree never
	# appears under the final name.
	mv "$tmp/rdma-core-$RC_VERSION" "$src"
fi

check_pabi "$src"
prepare "$src"
echo "$src"
