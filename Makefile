# SPDX-License-Identifier: GPL-2.0
#
# rdma-cm-guard: see README.md.  'make help' lists the targets.
# (The out-of-tree kernel build reads Kbuild, not this file.)

SHELL		:= /bin/bash
CACHE		?= $(or $(RCG_CACHE),$(HOME)/.cache/rdma-cm-guard)
export RCG_CACHE := $(CACHE)
KVER		?= $(shell . bases/6.12 && echo $$BASE_KVER)
KVER_6_1	:= $(shell . bases/6.1 && echo $$BASE_KVER)

PREFIX		?= /usr/local

.PHONY: help deps base tree export module abi-check abi-check-selftest kunit \
	selftests stress kcsan check-series check-backports check check-more check-bases check-archive check-all demo bench dkms-install dkms-uninstall deb package-test \
	install clean

help:
	@echo "make deps          install the Debian packages the builds and tests need"
	@echo "make base          download and unpack the Debian 6.12, 6.1 and 7.3 kernels"
	@echo "make tree          7.3 kernel git tree with the series as commits (TREE=, TREE_BASE=6.12)"
	@echo "make export        write the trees' commits back to patches/ (and patches/bases/6.12/)"
	@echo "make module        rdma_cm.ko for KVER= (default $(KVER))"
	@echo "make abi-check     CRCs and struct layout against stock, 6.12 and 6.1"
	@echo "make kunit         KUnit in QEMU on the patched 7.3 tree; builds the debug kernel"
	@echo "make selftests     two-VM end-to-end tests over rxe (stock, ours, debug)"
	@echo "make stress        the stress group at full size on the debug kernel (rcg.stress=full), fault phase included"
	@echo "make kcsan         a KCSAN debug kernel: KUnit, the stress group's CI pairs, its data-race reports sorted"
	@echo "make check-series  the series on 7.3: applies, exports back, checkpatch, builds per patch"
	@echo "make check-backports  the 6.12 backport: applies, drift, checkpatch, builds per patch (make check: no builds)"
	@echo "make check         what CI runs (Documentation/developing.md, \"make check and its budget\")"
	@echo "make check-more    what make check leaves out: abi-check-selftest, the stock 6.12 baseline, selftests/groups.more"
	@echo "make check-bases   Debian's 7.3 and 7.2 kernels: module, abi-check, DKMS, VM tests (sid root)"
	@echo "make check-archive which pinned versions of bases/* the Debian archive still has"
	@echo "make check-all     check, check-more, check-backports (per-patch builds), check-bases, stress (full size), kcsan, check-archive"
	@echo "make demo          the before/after table, stock rdma_cm against ours"
	@echo "make bench         stock rdma_cm against ours in one boot: cmtime, recovery, storm (BENCH_SIZE=small)"
	@echo "make dkms-install  build and install the module with DKMS on this host"
	@echo "make deb           build/rdma-cm-guard-dkms_<version>_all.deb (dh, dh_dkms)"
	@echo "make package-test  the .deb in a debootstrapped bookworm root: install, kernel updates, remove"
	@echo "make install       install rdma-cm-doctor into \$$(PREFIX)/sbin"

deps:
	.ci/install-deps

base:
	scripts/prepare-base

tree:
	scripts/tree

export:
	scripts/export
	@for b in $$(sed -n 's/^SOURCE_BASES="\(.*\)"/\1/p' scripts/lib.sh); do \
		[ ! -d $(CACHE)/dev/linux-$$b/.git ] || \
		TREE=$(CACHE)/dev/linux-$$b EXPORT_BASE=$$b scripts/export patches/bases/$$b; \
	done

module:
	scripts/build-module $(KVER)

abi-check:
	scripts/build-module $(shell . bases/6.12 && echo $$BASE_KVER) >/dev/null
	scripts/build-module $(KVER_6_1) >/dev/null
	scripts/abi-check

abi-check-selftest:
	scripts/abi-check-selftest

kunit:
	kunit/run

selftests:
	selftests/run

stress:
	SELFTEST_GROUPS="stress:2:stress:debug:kmemleak=on" SELFTEST_CMDLINE="rcg.stress=full $${SELFTEST_CMDLINE:-}" \
		VM_TIMEOUT=$${VM_TIMEOUT:-5400} selftests/run debug

kcsan:
	kunit/kcsan

check-series:
	scripts/check-series

check-backports:
	scripts/check-backports

check:
	scripts/check

check-more:
	scripts/check more

check-bases:
	scripts/check bases

check-archive:
	scripts/check-archive

# Everything, each target whatever the one before did; fails if one did.
check-all:
	@rc=0; for t in check check-more check-backports check-bases stress kcsan check-archive; do \
		$(MAKE) --no-print-directory $$t || { echo "=== make $$t FAILED"; rc=1; }; \
	done; exit $$rc

demo:
	scripts/demo

bench:
	scripts/bench

dkms-install:
	scripts/dkms install

dkms-uninstall:
	scripts/dkms uninstall

deb:
	scripts/dkms deb

package-test:
	scripts/package-test

install:
	install -D -m 755 tools/rdma-cm-doctor $(DESTDIR)$(PREFIX)/sbin/rdma-cm-doctor

clean:
	rm -rf build
