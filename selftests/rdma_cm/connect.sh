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

# connect_rebind: cm_rebind (patches/0001): a failed rdma_resolve_addr() to
# fe80::1%1 on an id with a RoCE route must leave the id on the id table
# under its key; KASAN on the debug kernel, events everywhere.  Not on
# stock rdma_cm, which has the use-after-free and would be corrupted.
connect_rebind() {
	name="connect: rdma_resolve_addr(fe80::1%1) refused on an id with a route leaves its id-table key; a neighbour change reaches the ids after it"
	if [ "$(my_module)" = stock ]; then
		skip "$name (stock rdma_cm has the use-after-free that patches/0001 fixes)"
		return
	fi
	run timeout 120 cm_rebind "$srv" "$IP neigh replace $srv lladdr 52:54:00:00:00:99 dev eth0" > /tmp/rebind.out 2>&1
	rc=$?
	sed 's/^/[client cm_rebind] /' /tmp/rebind.out
	run $IP neigh del "$srv" dev eth0
	checkd /tmp/rebind.out "$name" [ $rc = 0 ]
}

connect_client() {
	srv=$RCG_peer
	wait_peer 9101
	check "connect: rping -C 10 to $srv" \
		run timeout 60 rping -c -a "$srv" -p 7174 -C 10 -S 64 -V
	check "connect: ucmatose 2 connections x 10 messages to $srv" \
		run timeout 60 ucmatose -s "$srv" -p 7471 -c 2 -C 10
	run timeout 120 cmtime -s "$srv" -p 7472 -c 10 > /tmp/cmtime.out 2>&1
	rc=$?
	cat /tmp/cmtime.out
	check "connect: cmtime 10 connections to $srv" [ $rc = 0 ]
	connect_rebind
	signal_peer 9102
	ms=$(awk '$1 == "connect" && $2 == ":" {print $3}' /tmp/cmtime.out)
	if [ $rc = 0 ]; then
		demo "rping, ucmatose, cmtime connect (10 connects: ${ms} ms)"
	else
		demo "connect fails"
	fi
}
