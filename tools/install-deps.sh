#!/bin/sh
# Install every Debian package the build, the VM harness and the tests need.
# Idempotent; run as root on Debian 12.
set -e
PKGS="build-essential bc bison flex libelf-dev libssl-dev dwarves cpio kmod
      xz-utils python3 git
      linux-source-6.12 linux-headers-6.12-amd64
      qemu-system-x86 qemu-utils
      iproute2 iputils-ping ethtool procps psmisc
      rdma-core ibverbs-utils rdmacm-utils perftest infiniband-diags
      libibverbs-dev librdmacm-dev libnl-3-dev libnl-route-3-dev
      cmake ninja-build pkg-config dpkg-dev sparse
      gnuplot-nox"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing
