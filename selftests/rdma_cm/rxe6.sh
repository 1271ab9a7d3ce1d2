# SPDX-License-Identifier: GPL-2.0
#
# rxe6: one UDP packet to port 4791 crashes a host with an rxe device
# (issue 15, patches/rxe-fixes/0001).
#
#   client  eth0 fd00::100 ----+---- eth0 fd00::1  rxe0   server
#                              +---- eth1 fd00::2  rxe1
#
# The client sends a short datagram for fd00::1 to eth1's MAC, as a client
# with a stale neighbour entry sends a REQ.  IPv6 delivers it to rxe's
# socket, the address being the host's, and rxe1 drops it, fd00::1 not
# being in its GID table.  Stock rxe_rcv() then puts a pkt->qp that the
# IPv6 layer left in skb->cb, and oopses in softirq: the host is gone.
#
#   1. guarded (rxe_guard6 in lib.sh): an 'ip -6 rule ... blackhole' for
#      fd00::1 arriving at eth1 (and fd00::2 at eth0) drops the packet
#      before UDP, as a RoCE NIC drops a packet for a DGID it does not
#      hold.  The packet arrives (Ip6InReceives), UDP never sees it, the
#      server lives.  The IPv6 rounds of gidmismatch run so on stock rxe.
#   2. bare: no rule.  A kernel with the fix (the patched debug kernel)
#      takes the packet to UDP and drops it in rxe: Udp6InDatagrams goes
#      up and nothing is reported.  A stock kernel oopses: selftests/run
#      expects that on the configurations that selftests/groups lists in
#      rcg.xfail (an expected failure, recorded as such), and fails if
#      they do not.

rxe6_snmp() { sed -n "s/^$1[[:space:]]*//p" /proc/net/snmp6; }
rxe6_udp_in() { rxe6_snmp Udp6InDatagrams; }
rxe6_udp_above() { [ "$(rxe6_udp_in)" -gt "$1" ]; }

rxe6_server() {
	local u0 u1 r0 r1

	run $IP -6 addr add fd00::1/64 dev eth0 nodad
	run $IP -6 addr add fd00::2/64 dev eth1 nodad
	wait_for 10 grep -qs "fd00:0000:0000:0000:0000:0000:0000:0002" /sys/class/infiniband/rxe1/ports/1/gids/*

	rxe_guard6 add fd00::1 fd00::2
	u0=$(rxe6_udp_in) r0=$(rxe6_snmp Ip6InReceives)
	signal_peer 9411
	wait_peer 9412
	u1=$(rxe6_udp_in) r1=$(rxe6_snmp Ip6InReceives)
	check "rxe6: guarded: the packet for fd00::1 arrives at eth1 (Ip6InReceives $r0 -> $r1) and is dropped before UDP (Udp6InDatagrams $u0 -> $u1)" \
		[ "$r1" -gt "$r0" -a "$u1" = "$u0" ]
	rxe_guard6 del fd00::1 fd00::2

	echo "[server] rxe6: now without the rule; where rxe lacks the fix, this is expected to oops (rcg.xfail=$RCG_xfail)"
	u0=$(rxe6_udp_in)
	signal_peer 9413
	wait_for 10 rxe6_udp_above "$u0"
	u1=$(rxe6_udp_in)
	check "rxe6: bare: rxe1 got the packet for fd00::1 (Udp6InDatagrams $u0 -> $u1) and dropped it without an oops" \
		[ "$u1" -gt "$u0" ]
	run $IP -6 addr del fd00::1/64 dev eth0
	run $IP -6 addr del fd00::2/64 dev eth1
}

rxe6_client() {
	# The server's eth1, as selftests/qemu/run-vms numbers its MACs.
	local mac1=52:54:00:00:01:11

	run $IP -6 addr add fd00::100/64 dev eth0 nodad
	run $IP -6 neigh replace fd00::1 lladdr $mac1 dev eth0 nud permanent
	wait_peer 9411
	run udp_send fd00::1 4791 64
	sleep 1
	signal_peer 9412
	wait_peer 9413
	run udp_send fd00::1 4791 64
	run $IP -6 neigh del fd00::1 dev eth0
	run $IP -6 addr del fd00::100/64 dev eth0
}
