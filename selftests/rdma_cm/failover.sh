# SPDX-License-Identifier: GPL-2.0
#
# failover: the seed's own case.  The server's address is on an
# active-backup bond; the bond fails over to its other slave and takes
# that slave's MAC (fail_over_mac active), and its gratuitous ARP is lost
# (num_grat_arp 0).  The client's entry for the server stays REACHABLE on
# the old MAC: RDMA traffic never confirms an entry, and nothing tells
# the client.  The old slave, now the backup, drops what comes to it.
#
#   +----------------------+                +-----------------------------+
#   | client               | one L2 segment | server                      |
#   | eth0 192.0.2.100/24  |----------------| eth0 -+- bond0 192.0.2.1/24 |
#   | rxe0                 |                | eth1 -+  rxe0 on bond0      |
#   +----------------------+                +-----------------------------+
#
#   round    each time: the client's entry is confirmed (an ARP exchange),
#            it connects once, and the bond fails over to the other slave
#            2 s after the last IP exchange between the two (the test's
#            own, which confirms the entry too): more than retrans_time, as
#            after a while of RDMA traffic only.  Then, at once:
#   rping    rping -C 1: ours (gid_reject_retries=2, dkms/0015) solicits
#            the entry first (one solicitation) and connects within 5 s,
#            the entry on the new MAC; stock's REQ goes to the old MAC,
#            and it has not connected after 10 s
#   burst    ucmatose -c 20: the same, all 20 with one solicitation,
#            within 10 s more than 20 connects before the fail-over took
#            (5 s, and a REQ retransmission for a REQ that rxe lost);
#            stock's have not all connected after 10 s
#   nvme     an NVMe over RDMA controller (keep_alive_tmo=5,
#            reconnect_delay=2) across the fail-over: its keep-alive fails,
#            and ours reconnects at its first attempt and reads back what
#            it wrote; stock's is not live again 10 s after its
#            keep-alive failed
#   control  the fail-over sends its gratuitous ARP (num_grat_arp 1): the
#            client's entry takes the new MAC, and a connect right after
#            connects within 5 s, stock and ours
# Stock's and ours' figures are printed (make demo's row); in the HCA
# mode (failover-hw, and failover-hw-off for stock) the REQs and QPs send
# to the MAC of their address vector.

FO_NQN=nqn.2026-12.org.rdma-cm-guard:failover

# fo_ours: this configuration solicits unconfirmed entries (dkms/0015).
fo_ours() {
	[ "$(my_module)" != stock ] && [ "$RCG_defaults" != none ]
}

# fo_bond: bond0, active-backup over eth0 and eth1, in place of the
# harness's NICs, with rxe0 on it and the server's address.
fo_bond() {
	local a=$1

	$RDMA link del rxe0 && $RDMA link del rxe1 || return 1
	$IP addr flush dev eth0 && $IP addr flush dev eth1 || return 1
	$IP link set eth0 down && $IP link set eth1 down || return 1
	[ "$(my_module)" = builtin ] || run $MODPROBE bonding max_bonds=0 || return 1
	$IP link del bond0 2> /dev/null
	run $IP link add bond0 type bond mode active-backup fail_over_mac active \
		num_grat_arp 0 miimon 100 || return 1
	$IP link set eth0 master bond0 && $IP link set eth1 master bond0 || return 1
	# No IPv6: its neighbour advertisements would tell the client.
	sysctl -qw net.ipv6.conf.bond0.disable_ipv6=1
	sysctl -qw net.ipv4.conf.bond0.arp_notify=0
	$IP link set bond0 up && run $IP addr add "$a/24" dev bond0 || return 1
	run $IP link set bond0 type bond active_slave eth0 || return 1
	rdma_add rxe0 rxe bond0
}

# fo_backup: the backup slave.
fo_backup() {
	if [ "$(cat /sys/class/net/bond0/bonding/active_slave)" = eth0 ]; then
		echo eth1
	else
		echo eth0
	fi
}

# fo_switch GARP: fail over to the backup slave, with (1) or without (0)
# its gratuitous ARP, and tell the client that it is done by a datagram.
# Nothing else may reach the client: the bond's change of MAC flushes
# the server's neighbour entries, and the ARP request of any packet to
# the client would tell the client the new MAC.  The entry for the
# client goes back, permanent, and stays so (nvmet's teardown of a queue,
# say, sends too); the word needs no answer.
fo_switch() {
	local cmac

	cmac=$(neigh_lladdr "$RCG_peer" bond0)
	echo "$1" > /sys/class/net/bond0/bonding/num_grat_arp
	$IP link set bond0 type bond active_slave "$(fo_backup)"
	$IP neigh replace "$RCG_peer" lladdr "$cmac" dev bond0 nud permanent
	for i in 1 2 3; do
		udp_send "$RCG_peer" 9404 1
		sleep 0.3
	done
}

failover_server() {
	local a w

	a=$(addr_of 0)
	check "failover: bond0 (active-backup, fail_over_mac active) holds $a, rxe0 on it" fo_bond "$a"
	rping -s -a "$a" -p 7174 -P > /tmp/rping.log 2>&1 &
	rping_pid=$!
	(while :; do ucmatose -b "$a" -p 7471 -c 20 -C 1 || sleep 0.2; done) > /tmp/ucmatose.log 2>&1 &
	ucm_pid=$!
	check "failover: nvmet-rdma exports null_blk at $a:4420" nvmet_export $FO_NQN "$a"
	wait_listen 7174 7471 4420
	signal_peer 9401
	# The client says when to fail over, and with a gratuitous ARP or not.
	while :; do
		w=$(hear_peer 9402)
		[ "$w" = done ] && break
		signal_peer 9403 "$(cat /sys/class/net/"$(fo_backup)"/address)"
		# That exchange confirmed the client's entry (TCP): the
		# fail-over comes more than retrans_time after it, as after
		# a while of RDMA traffic only.
		sleep 2
		fo_switch "$w"
		echo "[server] fail-over ($w): bond0 now $(cat /sys/class/net/bond0/address) on $(cat /sys/class/net/bond0/bonding/active_slave)"
	done
	kill $rping_pid $ucm_pid 2>/dev/null
}


# fo_prepare [burst]: the client's entry confirmed now, on the bond's MAC,
# and a connect through it (rping, or ucmatose -c 20); sets before, its ms.
fo_prepare() {
	local t r

	$IP neigh flush dev eth0
	ping -c 1 -W 5 "$srv" > /dev/null
	t=$(ms_now)
	if [ "$1" = burst ]; then
		run timeout 60 ucmatose -s "$srv" -p 7471 -c 20 -C 1 > /tmp/fo.ucm 2>&1
		r=$?
	else
		run timeout 30 rping -c -a "$srv" -p 7174 -C 1 -S 64 > /tmp/fo.rping 2>&1
		rping_ok $? /tmp/fo.rping
		r=$?
	fi
	before=$(($(ms_now) - t))
	[ $r = 0 ] || echo "[client] the connect before the fail-over failed"
	echo "[client] before: ${1:-rping} in $before ms, entry $($IP neigh show "$srv" dev eth0)"
}

# fo_failover GARP: the server fails over; sets newmac, t0 when the
# server's word came that it is done, and refresh0.  The server sends
# that word three times, 0.3 s apart (fo_switch): the next fail-over
# listens for it 1.5 s after the last one's came at the earliest, or a
# late copy of the last word would say done before the switch.
fo_failover() {
	local u old

	while [ -n "$fo_word" ] && [ $(($(ms_now) - fo_word)) -lt 1500 ]; do
		sleep 0.1
	done
	old=$(neigh_lladdr "$srv")
	udp_recv 9404 30 &
	u=$!
	signal_peer 9402 "$1"
	newmac=$(hear_peer 9403)
	wait $u || echo "[client] no word from the server after the fail-over"
	t0=$(ms_now) fo_word=$(ms_now)
	refresh0=$(fo_refreshed)
	echo "[client] fail-over, gratuitous ARP $1: the server's MAC is $newmac; entry $($IP neigh show "$srv" dev eth0)"
	[ "$1" = 1 ] ||
		check "failover: the premise: the client's entry is REACHABLE on the old MAC $old" \
			fo_premise "$old"
}
fo_premise() {
	$IP neigh show "$srv" dev eth0 | grep -q "lladdr $1 .*REACHABLE" &&
		[ "$1" != "$newmac" ]
}

# fo_refreshed: the solicitations of rxe0's port so far (dkms/0014).
fo_refreshed() {
	cat /sys/kernel/config/rdma_cm/rxe0/ports/1/neigh_refresh_count 2>/dev/null || echo 0
}

# fo_stock_waited RC MS: stock's connect was ended by timeout after its
# whole wait (124 or 143), not by some other failure.
fo_stock_waited() {
	[ "$1" = 124 -o "$1" = 143 ] && [ "$2" -ge $(($(fo_wait) * 1000)) ]
}

# fo_wait: seconds that stock's connects are given (ours have 30);
# make bench gives them rcg.failover_wait, for their real outcome.
fo_wait() { if fo_ours; then echo 30; else echo "${RCG_failover_wait:-10}"; fi; }

# fo_bench CASE: make bench's line (scripts/bench, its fail-over table).
fo_bench() {
	echo "BENCH failover case=$1 module=$(my_module) hca=$(hca_mode && echo 1 || echo 0) rc=$rc ms=$ms"
}

fo_rping() {
	fo_prepare
	fo_failover 0
	run timeout "$(fo_wait)" rping -c -a "$srv" -p 7174 -C 1 -S 64 > /tmp/fo.rping 2>&1
	rc=$? ms=$(($(ms_now) - t0))
	rping_ok $rc /tmp/fo.rping && rc=0
	echo "[client] rping right after the fail-over: rc $rc in $ms ms, entry $(neigh_lladdr "$srv")"
	fo_bench rping
	if fo_ours; then
		check "failover: rping right after a fail-over whose gratuitous ARP was lost connects within 5 s ($ms ms), the entry on the new MAC, one solicitation" \
			[ $rc = 0 -a $ms -lt 5000 -a "$(neigh_lladdr "$srv")" = "$newmac" -a \
			  $(($(fo_refreshed) - refresh0)) = 1 ]
	else
		check "failover: stock: rping right after the fail-over has not connected after $(fo_wait) s (rc $rc, $ms ms)" \
			fo_stock_waited $rc $ms
	fi
	demo "$(my_module)$(fo_mode): rping right after a fail-over without gratuitous ARP: rc $rc in $ms ms"
}

fo_burst() {
	fo_prepare burst
	fo_failover 0
	run timeout "$(fo_wait)" ucmatose -s "$srv" -p 7471 -c 20 -C 1 > /tmp/fo.ucm 2>&1
	rc=$? ms=$(($(ms_now) - t0))
	tail -n 3 /tmp/fo.ucm | sed 's/^/[client ucmatose] /'
	fo_bench burst
	# 20 connects at once take seconds on a debug kernel under TCG, where
	# rxe can lose one of 20 REQs: the fail-over may add 5 s to what they
	# took before it, and a lost REQ one retransmission (about 4.6 s);
	# stock's wait for ib_cm's last one (about 74 s on an HCA).
	if fo_ours; then
		check "failover: ucmatose -c 20 right after the fail-over: all connect within 10 s more than before it ($ms ms, before $before ms), one solicitation" \
			[ $rc = 0 -a $ms -lt $((before + 10000)) -a $(($(fo_refreshed) - refresh0)) = 1 ]
	else
		check "failover: stock: ucmatose -c 20 right after the fail-over has not connected them all after $(fo_wait) s (rc $rc, $ms ms)" \
			fo_stock_waited $rc $ms
	fi
	demo "$(my_module)$(fo_mode): ucmatose -c 20 right after the fail-over: rc $rc in $ms ms"
}

# fo_live DIR: the controller is live.
fo_live() { [ "$(cat "$1/state" 2>/dev/null)" = live ]; }

# fo_nvme_ok ATTEMPTS DEV: one attempt, and the data path works again.
fo_nvme_ok() { [ "$1" = 1 ] && blk_rw "$2" /tmp/fo.nvme; }

fo_nvme() {
	local c d n wait=${RCG_failover_wait:-10}

	$IP neigh flush dev eth0
	ping -c 1 -W 5 "$srv" > /dev/null
	: > /tmp/fo.nvme
	echo "transport=rdma,traddr=$srv,trsvcid=4420,nqn=$FO_NQN,keep_alive_tmo=5,reconnect_delay=2,ctrl_loss_tmo=120" > /dev/nvme-fabrics 2>> /tmp/fo.nvme
	c=$(nvme_ctrl $FO_NQN)
	d=/dev/${c##*/}n1
	if [ -z "$c" ] || ! wait_for 30 blk_read "$d" /tmp/fo.nvme || ! blk_rw "$d" /tmp/fo.nvme; then
		checkd /tmp/fo.nvme "failover: nvme-rdma connects and moves data before the fail-over" false
		return
	fi
	dmesg -c > /dev/null
	fo_failover 0
	# The keep-alive fails (up to twice keep_alive_tmo), then the host
	# reconnects every reconnect_delay.
	wait_for 20 eval '! fo_live "$c"'
	fo_ours && wait=60
	wait_for $wait fo_live "$c"
	ms=$(($(ms_now) - t0))
	rc=1
	fo_live "$c" && rc=0
	fo_bench nvme
	n=$(dmesg | sed -n 's/.*Successfully reconnected (\([0-9]*\) attempts).*/\1/p' | tail -n1)
	dmesg | grep -i "nvme" | sed 's/^/[client dmesg] /'
	if fo_ours; then
		checkd /tmp/fo.nvme "failover: nvme-rdma reconnects at its first attempt after the fail-over (${n:-no} attempts, live after $ms ms) and reads back what it writes" \
			fo_nvme_ok "$n" "$d"
	else
		check "failover: stock: nvme-rdma is not live again $ms ms after the fail-over (state $(cat "$c/state"))" \
			eval '! fo_live "$c"'
	fi
	demo "$(my_module)$(fo_mode): nvme-rdma across the fail-over: state $(cat "$c/state") after $ms ms, ${n:-no} successful reconnect"
	echo 1 > "$c/delete_controller"
}

# fo_moved: the client's entry names the server's new MAC.
fo_moved() { [ "$(neigh_lladdr "$srv")" = "$newmac" ]; }

fo_control() {
	fo_prepare
	fo_failover 1
	wait_for 10 fo_moved
	moved=0
	fo_moved && moved=1
	echo "[client] after the gratuitous ARP: $($IP neigh show "$srv" dev eth0)"
	t0=$(ms_now)
	run timeout 30 rping -c -a "$srv" -p 7174 -C 1 -S 64 > /tmp/fo.rping 2>&1
	rc=$? ms=$(($(ms_now) - t0))
	rping_ok $rc /tmp/fo.rping && rc=0
	fo_bench control
	# Ours solicits the entry, which the gratuitous ARP left stale, and
	# waits for the answer, one retrans_time (1 s) at most: as the case
	# without the ARP, within 5 s, stock and ours.
	check "failover: control: the gratuitous ARP moves the entry; rping then connects within 5 s ($ms ms, before the fail-over $before ms)" \
		[ $moved = 1 -a $rc = 0 -a $ms -lt 5000 ]
	demo "$(my_module)$(fo_mode): rping after a fail-over with its gratuitous ARP: rc $rc in $ms ms"
}

# fo_mode: how a demo line's figures were taken, beside my_module.
fo_mode() {
	if [ "$RCG_defaults" = none ]; then printf ', every feature off'; fi
	if hca_mode; then printf ', HCA mode'; fi
}

failover_client() {
	srv=$RCG_peer
	# The entry stays REACHABLE between its confirmation and the connect
	# (reachable_time is 15-45 s by default): the case of dkms/0015, not
	# the stale one of dkms/0014.
	sysctl -qw net.ipv4.neigh.eth0.base_reachable_time_ms=600000
	[ "$(my_module)" = builtin ] || run $MODPROBE nvme-rdma
	wait_peer 9401
	fo_rping
	fo_burst
	if [ -c /dev/nvme-fabrics ]; then
		fo_nvme
	else
		skip "failover: nvme-rdma (no /dev/nvme-fabrics)"
	fi
	fo_control
	$IP neigh flush dev eth0
	signal_peer 9402 done
}
