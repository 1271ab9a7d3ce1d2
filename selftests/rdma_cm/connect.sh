# SPDX-License-Identifier: GPL-2.0
#
# connect: baseline connectivity with the unmodified rdma-core tools.
#
#   +--------------------+   one L2 segment    +--------------------+
#   | client             |   (QEMU -netdev     | server             |
#   | eth0 192.0.2.2/24  |----  socket mcast)--| eth0 192.0.2.1/24  |
#   | rxe0               |                     | rxe0               |
#   +--------------------+                     +--------------------+
#
# The server listens with rping (persistent), ucmatose and cmtime; the
# client connects with each and checks that data moved, then runs
# cm_rebind (below).

connect_server() {
	a=$(addr_of 0)
	rping -s -a "$a" -p 7174 -P > /tmp/rping.log 2>&1 &
	rping_pid=$!
	(while :; do ucmatose -b "$a" -p 7471 -c 2 -C 10 || sleep 0.2; done) > /tmp/ucmatose.log 2>&1 &
	ucm_pid=$!
	(while :; do cmtime -b "$a" -p 7472 || sleep 0.2; done) > /tmp/cmtime.log 2>&1 &
	cmt_pid=$!
	wait_listen 7174 7471 7472
	signal_peer 9101
	wait_peer 9102
	kill $rping_pid $ucm_pid $cmt_pid 2>/dev/null
	sed 's/^/[server ucmatose] /' /tmp/ucmatose.log
	check "connect: the ucmatose server completed its test" \
		grep -q 'test complete' /tmp/ucmatose.log
}

# connect_rebind: cm_rebind (patches/cma-fixes/0001): a failed rdma_resolve_addr() to
# fe80::1%1 on an id with a RoCE route must leave the id on the id table
# under its key; KASAN on the debug kernel, events everywhere (with
# gid_reject_retries 0, as stock: the ids get UNREACHABLE).  Not on
# stock rdma_cm, which has the use-after-free and would be corrupted.
connect_rebind() {
	name="connect: rdma_resolve_addr(fe80::1%1) refused on an id with a route leaves its id-table key; a neighbour change reaches the ids after it"
	if [ "$(my_module)" = stock ]; then
		skip "$name (stock rdma_cm has the use-after-free that patches/cma-fixes/0001 fixes)"
		return
	fi
	# With gid_reject_retries set (the package sets 2), an id whose route
	# is resolved follows a neighbour change instead of UNREACHABLE
	# (patches/dkms/0012): stock's event needs the stock setting, 0.
	retries=/sys/kernel/config/rdma_cm/rxe0/ports/1/gid_reject_retries
	r0=$(cat $retries)
	run sh -c "echo 0 > $retries"
	run timeout 120 cm_rebind "$srv" "$IP neigh replace $srv lladdr 52:54:00:00:00:99 dev eth0" > /tmp/rebind.out 2>&1
	rc=$?
	run sh -c "echo $r0 > $retries"
	sed 's/^/[client cm_rebind] /' /tmp/rebind.out
	run $IP neigh del "$srv" dev eth0
	checkd /tmp/rebind.out "$name" [ $rc = 0 ]
}

# connect_qp1: patches/rxe-fixes/0002.  A REQ that ib_cm retransmits while the
# client's address is removed cannot be routed: QP1 must stay in RTS and
# the next connect, once the address is back, establish.  Stock rxe moves
# QP1 to the error state, from which ib_mad cannot bring it back, and the
# port's CM is silent until rxe0 is removed: not run there.  The REQ goes
# to 192.0.2.99, a static neighbour entry at a MAC that no NIC has, so
# that nothing answers it and ib_cm retransmits it.
rxe_send_err() { cat /sys/class/infiniband/rxe0/ports/1/hw_counters/send_err; }
send_err_above() { [ "$(rxe_send_err)" -gt "$1" ]; }
qp1_state() { $RDMA res show qp link rxe0/1 lqpn 1 | sed -n 's/.* state \([A-Z]*\) .*/\1/p'; }
connect_qp1() {
	local name="connect: a REQ retransmitted while the client's address is removed cannot be sent; QP1 stays in RTS and rping connects once the address is back"
	local mine ghost=192.0.2.99 e0 e1 st hold
	if ! rxe_fixed; then
		skip "$name (stock rxe moves QP1 to the error state for good: patches/rxe-fixes/0002)"
		return
	fi
	mine=$(echo "$RCG_ip" | cut -d, -f1)
	run $IP neigh replace $ghost lladdr 52:54:00:00:00:98 dev eth0
	cm_hold $ghost 7999 120 > /tmp/hold.out 2>&1 &
	hold=$!
	if ! wait_for 30 grep -q "REQ out" /tmp/hold.out; then
		kill $hold 2>/dev/null
		checkd /tmp/hold.out "$name" false
		return
	fi
	e0=$(rxe_send_err)
	run $IP addr del "$mine" dev eth0
	# ib_cm retransmits after about 4.5 s (packet life time and CM
	# response timeout); the retransmission fails in IP.
	wait_for 120 send_err_above "$e0"
	e1=$(rxe_send_err)
	run $IP addr add "$mine" dev eth0
	kill $hold 2>/dev/null
	wait $hold
	sed 's/^/[client cm_hold] /' /tmp/hold.out
	run $IP neigh del $ghost dev eth0
	st=$(qp1_state)
	echo "[client] rxe0 send_err $e0 -> $e1, QP1 state $st"
	wait_for 30 grep -qs "0000:0000:0000:0000:0000:ffff:c000" /sys/class/infiniband/rxe0/ports/1/gids/*
	run timeout 60 rping -c -a "$srv" -p 7174 -C 1 -S 64 > /tmp/qp1.rping 2>&1
	rc=$? pinged=0
	rping_ok $rc /tmp/qp1.rping && pinged=1
	checkd /tmp/qp1.rping "$name (send_err $e0 -> $e1, QP1 $st, rping rc $rc)" \
		[ "$e1" -gt "$e0" -a "$st" = RTS -a $pinged = 1 ]
}

connect_client() {
	srv=$RCG_peer
	wait_peer 9101
	run timeout 60 rping -c -a "$srv" -p 7174 -C 10 -S 64 -V > /tmp/connect.rping 2>&1
	rc=$?
	checkd /tmp/connect.rping "connect: rping -C 10 to $srv" rping_ok $rc /tmp/connect.rping
	check "connect: ucmatose 2 connections x 10 messages to $srv" \
		run timeout 60 ucmatose -s "$srv" -p 7471 -c 2 -C 10
	run timeout 120 cmtime -s "$srv" -p 7472 -c 10 > /tmp/cmtime.out 2>&1
	rc=$?
	cat /tmp/cmtime.out
	check "connect: cmtime 10 connections to $srv" [ $rc = 0 ]
	connect_rebind
	connect_qp1
	signal_peer 9102
	ms=$(awk '$1 == "connect" && $2 == ":" {print $3}' /tmp/cmtime.out)
	if [ $rc = 0 ]; then
		demo "rping, ucmatose, cmtime connect (10 connects: ${ms} ms)"
	else
		demo "connect fails"
	fi
}
