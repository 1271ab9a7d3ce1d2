// SPDX-License-Identifier: GPL-2.0
/*
 * nfs_mount SOURCE TARGET TYPE OPTIONS: mount(2) with text options, as
 * mount.nfs passes them to the kernel.  busybox's mount takes any type
 * that starts with "nfs" for its own NFSv2/v3 client, which cannot ask
 * for NFSv4 over RDMA, and the VMs have no nfs-utils.
 * Exit status: 0 mounted, 1 otherwise.
 */
#include <stdio.h>
#include <sys/mount.h>

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: nfs_mount SOURCE TARGET TYPE OPTIONS\n");
		return 1;
	}
	if (mount(argv[1], argv[2], argv[3], 0, argv[4])) {
		perror("nfs_mount");
		return 1;
	}
	return 0;
}
