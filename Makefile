# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# MetaRoCE for Linux.
#
#   make demo      build everything, boot two VM hosts, bind the device on each
#   make check     build everything and run every test (host, KUnit, VM)
#   make bench     run the benchmarks against rdma_rxe in VMs and write
#                  Documentation/benchmarks.md (about 45-55 minutes)
#   make modules   build the modules (KDIR= a kernel build tree; default:
#                  the cached test kernel)
#   make install   install the modules for the running kernel and the
#                  rdma-core provider (KDIR=/lib/modules/$(uname -r)/build)
#
# The test kernel is cached outside the clone, in $(METAROCE_CACHE).

REPO := $(CURDIR)
export METAROCE_CACHE ?= /var/cache/metaroce
DEBIAN_KDIR ?= $(firstword $(wildcard /usr/src/linux-headers-6.12*-amd64))

# The test kernels; resolved lazily since building one takes minutes.
TEST_KDIR = $(shell tools/kernel/build-kernel.sh normal)
KDIR ?= $(TEST_KDIR)

.PHONY: all deps kernel kernel-debug modules modules-debian provider install \
	check demo bench clean

all: modules provider

deps:
	@tools/install-deps.sh

kernel: deps
	tools/kernel/build-kernel.sh normal >/dev/null

kernel-debug: deps
	tools/kernel/build-kernel.sh debug >/dev/null

modules:
	$(MAKE) -C $(KDIR) M=$(REPO) W=1 $(if $(C),C=$(C)) modules

# What a user on a stock Debian 6.12 kernel builds; must be warning-free.
# Built in a copy so its objects don't mix with the test kernel's.
modules-debian:
	rm -rf build/debian && mkdir -p build/debian
	cp -r drivers include build/debian/
	$(MAKE) -C $(DEBIAN_KDIR) M=$(REPO)/build/debian/drivers/infiniband/sw/metaroce \
		W=1 modules

provider:
	$(MAKE) -C userspace-provider

install:
	$(MAKE) -C $(KDIR) M=$(REPO) modules_install
	depmod -a
	$(MAKE) -C userspace-provider install

check: deps
	@tools/run-checks.sh

demo: deps
	@tools/demo.sh

bench: deps
	@tools/bench/run.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(REPO) clean
	-$(MAKE) -C userspace-provider clean
	rm -rf build
