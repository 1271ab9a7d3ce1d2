// SPDX-License-Identifier: GPL-2.0-only
/*
 * Built only out of tree (DKMS): marks the rdma_cm.ko of rdma-cm-guard, so
 * /sys/module/rdma_cm/version tells it from the stock module, and names the
 * kernel source it was built from (scripts/prepare-src), so the package
 * can tell a module built from an older source of the same kernel ABI.
 */
#include <linux/module.h>

MODULE_VERSION("rdma-cm-guard " RDMA_CM_GUARD_VERSION);
#if __has_include("rcg_source.h")
#include "rcg_source.h"
MODULE_INFO(rcg_source, RDMA_CM_GUARD_SOURCE);
#endif
