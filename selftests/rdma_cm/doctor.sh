# SPDX-License-Identifier: GPL-2.0
#
# doctor: rdma-cm-doctor on a two-NIC server and a one-NIC client.
#
#   client  eth0 192.0.2.100 ----+---- eth0 192.0.2.1  rxe0   server
#                                +---- eth1 192.0.2.2  rxe1   (one subnet)
#
# With arp_ignore=0 (the default) both server NICs answer ARP for both
# addresses: the doctor must report it, with the fix, and exit 1.  With
# arp_ignore=2 it must exit 0.  The client has nothing to report.

AI=/proc/sys/net/ipv4/conf/all/arp_ignore

# doctor_run NAME [ARGS]: run the doctor, keep its output and exit status.
doctor_run() {
	name=$1
	shift
	rdma-cm-doctor "$@" > /tmp/doctor.$name 2>&1
	echo $? > /tmp/doctor.$name.rc
	sed "s/^/[doctor $name] /" /tmp/doctor.$name
}
rc_of() { cat /tmp/doctor.$1.rc; }

doctor_server() {
	echo 0 > $AI
	doctor_run ai0
	check "doctor: arp_ignore=0, two NICs in 192.0.2.0/24: exit 1" [ "$(rc_of ai0)" = 1 ]
	check "doctor: the finding names eth0, eth1 and the subnet" \
		grep -q 'RDMA netdevs eth0 eth1 share subnet 192.0.2.0/24 with arp_ignore other than 1, 2 or 8' /tmp/doctor.ai0
	check "doctor: the fix gives the sysctl and a sysctl.d drop-in" \
		grep -q 'fix: sysctl -w net.ipv4.conf.eth0.arp_ignore=2' /tmp/doctor.ai0
	check "doctor: it reports the loaded rdma_cm and both devices' read limits" \
		grep -q "^rdma_cm: " /tmp/doctor.ai0
	doctor_run json --json
	check "doctor --json: exit 1 with the finding and its fixes" \
		grep -q '"findings": \[{"finding": "RDMA netdevs eth0 eth1 share subnet' /tmp/doctor.json
	echo 2 > $AI
	doctor_run ai2
	check "doctor: arp_ignore=2: exit 0, no findings" \
		[ "$(rc_of ai2)" = 0 -a -n "$(grep -x 'no findings' /tmp/doctor.ai2)" ]
	echo 0 > $AI
	signal_peer 9300
}

doctor_client() {
	wait_peer 9300
	doctor_run one
	check "doctor: one NIC: exit 0, no findings" [ "$(rc_of one)" = 0 ]
}
