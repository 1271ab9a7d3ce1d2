# SPDX-License-Identifier: GPL-2.0
#
# nfs: NFS over RDMA, a kernel ULP whose server issues the RDMA Reads
# (svcrdma pulls the data of a client's WRITE from the client's memory),
# stock against ours with the package's defaults.  The VMs have no
# nfs-utils: the server's exports go into nfsd's caches through their
# channels, as rpc.mountd would write them, and the client mounts with
# mount(2) (nfs_mount).
#
#   +---------------------------+              +---------------------------+
#   | client                    |  one L2      | server                    |
#   | eth0 192.0.2.2/24         |  segment     | eth0 192.0.2.1/24         |
#   | rxe0                      |--------------| rxe0                      |
#   | NFSv4.1, proto=rdma       |              | nfsd: rdma 20049 only,    |
#   | /mnt                      |              | /export (tmpfs, fsid=0)   |
#   +---------------------------+              +---------------------------+
#
#   round      client's entry for 192.0.2.1  expected
#   mount      the server's MAC              mounts; 1 MiB written, the
#                                            client's caches dropped, read
#                                            back the same; the server
#                                            posted RDMA Reads
#   stalewrong 'nud stale', a MAC that no    mounts and moves the same data;
#              NIC has (a fail-over whose    ours (gid_reject_retries=2:
#              gratuitous ARP was lost)      dkms/0014) solicits the entry
#                                            afresh and mounts before
#                                            ib_cm's first REQ
#                                            retransmission (4 s); stock's
#                                            figure is printed

NFS_GHOST=52:54:00:00:00:98
NFS_FLAGS=9218	# insecure (0x2), no_subtree_check (0x400), fsid= (0x2000)
NFS_FOREVER=2147483647
NFS_STAT=/proc/sys/sunrpc/svc_rdma/rdma_stat_read


# nfs_put FILE LINE: write LINE to FILE, saying so, and what went wrong.
nfs_put() {
	echo "[$RCG_role] $2 > $1"
	echo "$2" 2> /tmp/nfs.err > "$1" && return 0
	echo "[$RCG_role] failed: $(cat /tmp/nfs.err)"
	return 1
}

# nfs_export CLIENT: export /export (tmpfs) to CLIENT read-write as the
# NFSv4 root (fsid=0): the client's domain, the root's file handle key
# and the export, as rpc.mountd answers nfsd's upcalls.
nfs_export() {
	mkdir -p /export && mount -t tmpfs tmpfs /export || return 1
	nfs_put /proc/net/rpc/auth.unix.ip/channel "nfsd $1 $NFS_FOREVER rcg" &&
		nfs_put /proc/net/rpc/nfsd.fh/channel "rcg 1 \\x00000000 $NFS_FOREVER /export" &&
		nfs_put /proc/net/rpc/nfsd.export/channel "rcg /export $NFS_FOREVER $NFS_FLAGS 65534 65534 0"
}

# nfs_start: nfsd for NFSv4 only (v3 would need lockd and rpcbind), on an
# RDMA listener only.  Without a client tracking daemon the grace period
# of a start cannot be ended early: it is set to its minimum, 10 s, and
# waited for, so that the client's first OPEN is not refused.
nfs_start() {
	mount -t nfsd nfsd /proc/fs/nfsd || return 1
	nfs_put /proc/fs/nfsd/versions "-3 +4 +4.1 +4.2" &&
		nfs_put /proc/fs/nfsd/nfsv4gracetime 10 &&
		nfs_put /proc/fs/nfsd/portlist "rdma 20049" &&
		nfs_put /proc/fs/nfsd/threads 4 &&
		wait_for 60 grep -q Y /proc/fs/nfsd/v4_end_grace
}

nfs_server() {
	local a reads

	a=$(addr_of 0)
	if ! grep -qw nfsd /proc/filesystems && ! run $MODPROBE -a nfsd rpcrdma; then
		skip "nfs: no nfsd or rpcrdma in this kernel"
		signal_peer 9301 skip
		return
	fi
	check "nfs: nfsd exports a tmpfs to the client" nfs_export "$RCG_peer"
	check "nfs: nfsd listens on rdma 20049 only, out of its grace period" nfs_start
	echo "[server] portlist: $(cat /proc/fs/nfsd/portlist | tr '\n' ' ')"
	wait_listen 20049
	signal_peer 9301
	wait_peer 9302
	reads=$(cat $NFS_STAT 2>/dev/null)
	check "nfs: svcrdma pulled the client's writes with RDMA Reads ($reads)" \
		[ "${reads:-0}" -gt 0 ]
	echo 0 > /proc/fs/nfsd/threads
}


# nfs_io: write 1 MiB of random data to the server, drop the client's
# caches and read it back.
nfs_io() {
	dd if=/dev/urandom of=/tmp/nfs.out bs=4096 count=256 2> /dev/null &&
		dd if=/tmp/nfs.out of=/mnt/f bs=65536 conv=fsync 2>> /tmp/nfs.log &&
		echo 3 > /proc/sys/vm/drop_caches &&
		dd if=/mnt/f of=/tmp/nfs.in bs=65536 2>> /tmp/nfs.log &&
		cmp /tmp/nfs.out /tmp/nfs.in >> /tmp/nfs.log 2>&1
}

# nfs_round ENTRY: mount through the client's entry for the server (right
# or wrong), move 1 MiB each way, unmount; sets rc and ms (the mount's).
nfs_round() {
	local t0

	$IP neigh del "$srv" dev eth0 2>/dev/null
	case $1 in
	right) run $IP neigh replace "$srv" lladdr "$srvmac" dev eth0 nud reachable ;;
	wrong) run $IP neigh replace "$srv" lladdr "$NFS_GHOST" dev eth0 nud stale ;;
	esac
	: > /tmp/nfs.log
	t0=$(ms_now)
	run timeout -s KILL 90 nfs_mount "$srv:/" /mnt nfs4 \
		"vers=4.1,proto=rdma,port=20049,addr=$srv" >> /tmp/nfs.log 2>&1
	rc=$? ms=$(($(ms_now) - t0))
	if [ $rc = 0 ]; then
		nfs_io || rc=1
		umount /mnt || rc=1
	fi
	echo "[client] NFS over RDMA through entry '$1': rc $rc, mount $ms ms, entry now $(neigh_lladdr "$srv")"
	sed 's/^/[client nfs] /' /tmp/nfs.log
}

nfs_client() {
	local m0

	srv=$RCG_peer
	grep -qw nfs4 /proc/filesystems || run $MODPROBE -a nfsv4 rpcrdma
	if [ "$(hear_peer 9301)" = skip ]; then
		skip "nfs: no nfsd or rpcrdma on the server"
		return
	fi
	run ping -c 1 -W 5 "$srv" > /dev/null
	srvmac=$(neigh_lladdr "$srv")
	mkdir -p /mnt

	nfs_round right
	m0=$ms
	checkd /tmp/nfs.log "nfs: NFSv4.1 over RDMA mounts, writes 1 MiB and reads back the same ($ms ms)" [ $rc = 0 ]
	nfs_round wrong
	if [ "$(my_module)" = ours ]; then
		checkd /tmp/nfs.log "nfs: through a stale entry on a MAC that no NIC has, mounts before ib_cm's first retransmission and moves the same data ($ms ms, right entry $m0 ms)" \
			[ $rc = 0 -a $ms -lt $((m0 + 4000)) ]
	fi
	demo "$(my_module): NFS over RDMA through a stale wrong entry: rc $rc, mount in $ms ms (right entry: $m0 ms)"
	signal_peer 9302
}
