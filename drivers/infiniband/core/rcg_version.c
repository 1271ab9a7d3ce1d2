// SPDX-License-Identifier: GPL-2.0-only
/*
 * Built only out of tree (DKMS): marks the rdma_cm.ko of rdma-cm-guard, so
 * /sys/module/rdma_cm/version tells it from the stock module.
 */
#include <linux/module.h>

MODULE_VERSION("rdma-cm-guard " RDMA_CM_GUARD_VERSION);
