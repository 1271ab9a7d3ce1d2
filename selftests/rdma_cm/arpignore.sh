# SPDX-License-Identifier: GPL-2.0
#
# arpignore: two RDMA NICs in one subnet with arp_ignore=0 (issue 6).
#
#   client  eth0 192.0.2.100 ----+---- eth0 192.0.2.1  rxe0   server
#   rxe0                         +---- eth1 192.0.2.2  rxe1   (one subnet)
#
# For arp_ignore 0 and then 1, the server starts a listener on 192.0.2.1
# and runs rdma-cm-doctor; the client makes 10 connects to 192.0.2.1, each
# after flushing its neighbour cache, each given 3 s.  With 0 both NICs
# answer ARP for 192.0.2.1 and the REQs that go to eth1 are dropped by
# rxe1 (no GID for 192.0.2.1).  Our rdma_cm warns when the listener
# starts with 0, not with 1; the doctor exits 1 with 0 and 0 with 1.

AI_ALL=/proc/sys/net/ipv4/conf/all/arp_ignore
ai_warnings() { dmesg | grep -c 'RDMA CM: eth0 (rxe0 port 1) and eth1 (rxe1 port 1) have addresses in 192.0.2.0/24'; }
ai_ours() { [ "$(my_module)" != stock ]; }
ai_filter_warnings() { dmesg | grep -c 'have addresses in 198.51.100.0/24'; }

arpignore_server() {
	for ai in 0 1; do
		echo $ai > $AI_ALL
		w0=$(ai_warnings)
		rd_limits -s "$(addr_of 0)" -p 7494 -n 10 -t 60 > /tmp/ai.srv 2>&1 &
		srv=$!
		wait_for 30 grep -q listening /tmp/ai.srv
		w1=$(ai_warnings)
		dmesg | grep 'RDMA CM: eth0' | tail -n 1
		if ai_ours && [ $ai = 0 ]; then
			check "arpignore: arp_ignore=0: the listener's start warns, naming both netdevs, devices, the subnet and the sysctl" \
				sh -c "[ $((w1 - w0)) = 1 ] && dmesg | grep -q 'set net.ipv4.conf.eth0.arp_ignore=2 and net.ipv4.conf.eth1.arp_ignore=2'"
		else
			check "arpignore: arp_ignore=$ai: no warning" [ "$w1" = "$w0" ]
		fi
		rdma-cm-doctor > /tmp/ai.doctor 2>&1
		rc=$?
		if [ $ai = 0 ]; then
			check "arpignore: arp_ignore=0: rdma-cm-doctor exits 1 with the finding" \
				sh -c "[ $rc = 1 ] && grep -q 'share subnet 192.0.2.0/24 with arp_ignore other than 1, 2 or 8' /tmp/ai.doctor"
		else
			check "arpignore: arp_ignore=1: rdma-cm-doctor exits 0" [ $rc = 0 ]
		fi
		if [ $ai = 0 ]; then
			warned=no
			[ "$w1" != "$w0" ] && warned=yes
			demo "server arp_ignore=0: warning logged: $warned; rdma-cm-doctor: exit $rc, $(grep -m1 -o 'fix: sysctl -w net.ipv4.conf.eth0.arp_ignore=2' /tmp/ai.doctor || echo 'no fix')"
		fi
		signal_peer 9601
		wait_peer 9602
		kill $srv 2>/dev/null
		wait $srv 2>/dev/null
	done
	# A second listener with arp_ignore=0 does not repeat the warning.
	echo 0 > $AI_ALL
	w0=$(ai_warnings)
	rd_limits -s "$(addr_of 0)" -p 7495 -t 1 > /dev/null 2>&1
	ai_ours && check "arpignore: the warning comes once per pair of netdevs" [ "$(ai_warnings)" = "$w0" ]
	# arp_filter=1 is no fix without source-based routing (ip-sysctl.rst:
	# "you must use source based routing for this to work"): the netdev
	# with the route back answers for both addresses.  A new subnet on
	# both NICs, with arp_filter=1 and arp_ignore=0, still warns.
	if ai_ours; then
		run $IP addr add 198.51.100.1/24 dev eth0
		run $IP addr add 198.51.100.2/24 dev eth1
		echo 1 > /proc/sys/net/ipv4/conf/all/arp_filter
		w0=$(ai_filter_warnings)
		rd_limits -s 198.51.100.1 -p 7496 -t 1 > /dev/null 2>&1
		check "arpignore: arp_ignore=0 with arp_filter=1 and no source-based routing: that subnet warns" \
			[ "$(ai_filter_warnings)" = $((w0 + 1)) ]
		echo 0 > /proc/sys/net/ipv4/conf/all/arp_filter
		run $IP addr del 198.51.100.1/24 dev eth0
		run $IP addr del 198.51.100.2/24 dev eth1
		# With gid_mismatch off on every port, the log is stock's.
		CFS=/sys/kernel/config/rdma_cm
		for d in rxe0 rxe1; do
			mkdir -p $CFS/$d
			echo off > $CFS/$d/ports/1/gid_mismatch
		done
		run $IP addr add 203.0.113.1/24 dev eth0
		run $IP addr add 203.0.113.2/24 dev eth1
		w0=$(dmesg | grep -c 'have addresses in 203.0.113.0/24')
		rd_limits -s 203.0.113.1 -p 7497 -t 1 > /dev/null 2>&1
		check "arpignore: gid_mismatch off on every port: no warning, as stock" \
			[ "$(dmesg | grep -c 'have addresses in 203.0.113.0/24')" = "$w0" ]
		run $IP addr del 203.0.113.1/24 dev eth0
		run $IP addr del 203.0.113.2/24 dev eth1
		for d in rxe0 rxe1; do
			echo auto > $CFS/$d/ports/1/gid_mismatch
		done
	fi
	echo 0 > $AI_ALL
}

arpignore_client() {
	for ai in 0 1; do
		wait_peer 9601
		ok=0
		for i in $(seq 1 10); do
			$IP neigh flush dev eth0
			gid_client -c "$RCG_peer" -p 7494 -t 3 > /tmp/ai.cli 2>&1 && ok=$((ok + 1))
		done
		echo "[client] arp_ignore=$ai on the server: $ok of 10 connects established"
		eval ok_$ai=$ok
		[ $ai = 1 ] && check "arpignore: arp_ignore=1: 10 of 10 connects established" [ $ok = 10 ]
		signal_peer 9602
	done
	demo "arp_ignore=0: $ok_0/10 connects; arp_ignore=1: $ok_1/10"
}
