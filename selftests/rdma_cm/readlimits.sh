# SPDX-License-Identifier: GPL-2.0
#
# readlimits: responder resources and initiator depth are arbitrated, never
# failed (issue 3).  rd_limits (rd_limits.c) is a librdmacm client/server
# that prints the CONNECT_REQUEST offer and ibv_query_qp's values.
#
#   +-----------------------+          +-----------------------+
#   | client 192.0.2.100    |----------| server 192.0.2.1      |
#   | rxe0 (or siw0), max   |  one L2  | rxe0 (or siw0), max   |
#   | 128 reads each way    |          | 128; configfs caps    |
#   +-----------------------+          +-----------------------+
#
# Scenarios, server side / client side:
#   offer4    server asks 128/128 explicitly, client offers 4/4: the event
#             reports 4/4, the QPs hold 128 each way, as on stock
#   sentinel  server accepts with RDMA_MAX_* (the event's values), client 4/4
#   ps_ib200  PS_IB server accepts with responder_resources=200, client max
#   srvreads  server accepts with 64/64 explicitly, client offers 16/16;
#             the server issues 200 RDMA reads of the client's memory (64
#             in flight): each completes, as on stock, and the client's
#             max_dest_rd_atomic holds the server's 64
#   portcap   server port caps 16: the event reports <= 16, sentinels accept
#   readbw    server port caps 16, ib_read_bw -R -o 127 moves data
# With rcg.rd=off (group readlimits-off), every port of ours has
# read_limit_clamp 0 and each scenario must end as on stock: ps_ib200
# fails, and portcap's caps of 16 are ignored (the event reports the
# client's 128/128, nothing is traced, the QPs hold 128).
# The client side of ours bounds its initiator depth by its device and
# port caps and takes the REP's initiator depth as its responder resources;
# the server side of ours arbitrates the event, and the REP as far as its
# QP follows (a user-space QP keeps the initiator depth it was given).

CFS=/sys/kernel/config/rdma_cm

is_ours() { [ "$1" != stock ]; }
# arbitrates MODULE: that side lowers read limits (ours, read_limit_clamp 1).
arbitrates() { is_ours "$1" && [ "$RCG_rd" != off ]; }
server_mod() { echo "${RCG_module%%/*}"; }
client_mod() { echo "${RCG_module##*/}"; }
# val KEY FILE: the number after KEY= on the RD line of FILE.
val() { sed -n "s/.*[ ]$1=\([0-9]*\).*/\1/p" "$2" | head -n1; }
dev0() { ls /sys/class/infiniband | head -n1; }

# rd_switch MODULE: check read_limit_clamp's default and input, then set it
# as rcg.rd says.
rd_switch() {
	is_ours "$1" || return 0
	d=$(dev0)
	mkdir -p "$CFS/$d"
	a=$CFS/$d/ports/1/read_limit_clamp
	check "readlimits: read_limit_clamp is 1 (the package's /etc/rdma-cm-guard.conf)" [ "$(cat "$a")" = 1 ]
	echo maybe > "$a" 2>/dev/null && r=0 || r=1
	check "readlimits: configfs read_limit_clamp refuses 'maybe' and keeps 1" \
		[ $r = 1 -a "$(cat "$a")" = 1 ]
	if [ "$RCG_rd" = off ]; then
		echo 0 > "$a"
		check "readlimits: read_limit_clamp off on $d port 1" [ "$(cat "$a")" = 0 ]
	fi
}

set_caps() {
	d=$(dev0)
	mkdir -p "$CFS/$d" 2>/dev/null
	echo "$1" > "$CFS/$d/ports/1/max_responder_resources" &&
		echo "$1" > "$CFS/$d/ports/1/max_initiator_depth"
}

# rd_server NAME PORT ARGS...: serve one connection of scenario NAME.
rd_server() {
	name=$1 port=$2
	shift 2
	rd_limits -s "$(addr_of 0)" -p "$port" "$@" > /tmp/$name.srv 2>&1 &
	pid=$!
	wait_for 30 grep -q listening /tmp/$name.srv
	signal_peer $((port + 1000))
	wait $pid
	rc=$?
	sed "s/^/[server $name] /" /tmp/$name.srv
	return $rc
}

# rd_client NAME PORT ARGS...
rd_client() {
	name=$1 port=$2
	shift 2
	wait_peer $((port + 1000))
	run rd_limits -c "$RCG_peer" -p "$port" "$@" > /tmp/$name.cli 2>&1
	rc=$?
	sed "s/^/[client $name] /" /tmp/$name.cli
	return $rc
}

# le V MAX [V MAX...]: every V is a number no greater than its MAX.
le() {
	while [ $# -ge 2 ]; do
		[ -n "$1" ] && [ "$1" -le "$2" ] || return 1
		shift 2
	done
}
# established NAME SIDE MAX: the connection came up and SIDE's QP reads
# stay within MAX both ways.
established() {
	grep -q '^RD established' /tmp/$1.$2 &&
		le "$(val max_rd_atomic /tmp/$1.$2)" "$3" \
		   "$(val max_dest_rd_atomic /tmp/$1.$2)" "$3"
}

# portcap_check SIDE: with port caps 16 the connection is up and SIDE's QP
# within 16 both ways.  siw reports max_rd_atomic and max_dest_rd_atomic
# swapped in query_qp, and raises its IRD to the peer's ORD (relaxed IRD
# negotiation), so over siw only the connection itself says anything.
portcap_check() {
	if [ "$RCG_rdma" = siw ]; then
		check "readlimits: portcap: $1 established over siw" \
			grep -q '^RD established' /tmp/portcap.$1
	else
		check "readlimits: portcap: $1 QP <= 16 both ways" \
			established portcap "$1" 16
	fi
}

readlimits_server() {
	srv=$(server_mod)
	rd_switch "$srv"

	# The configfs attributes: 0-255, anything else EINVAL, old value kept.
	if is_ours "$srv"; then
		d=$(dev0)
		mkdir -p "$CFS/$d"
		a=$CFS/$d/ports/1/max_responder_resources
		check "readlimits: configfs max_responder_resources defaults to 255" \
			[ "$(cat "$a")" = 255 ]
		echo 16 > "$a"; echo 256 > "$a" 2>/dev/null; r1=$?
		echo abc > "$a" 2>/dev/null; r2=$?
		check "readlimits: configfs takes 16, refuses 256 and 'abc', keeps 16" \
			[ "$(cat "$a")" = 16 -a $r1 != 0 -a $r2 != 0 ]
		echo 255 > "$a"
	fi

	rd_server offer4 7481 -r 128 -i 128
	if is_ours "$srv"; then
		check "readlimits: offer4: CONNECT_REQUEST reports the peer's 4/4" \
			[ "$(val responder_resources /tmp/offer4.srv)" = 4 -a \
			  "$(val initiator_depth /tmp/offer4.srv)" = 4 ]
	fi

	rd_server sentinel 7482 -r max -i max
	check "readlimits: sentinel: server QP within the client's offer of 4" \
		established sentinel srv 4

	rd_server ps_ib200 7483 -P ib -r 200 -i max
	if arbitrates "$srv" || arbitrates "$(client_mod)"; then
		check "readlimits: ps_ib200: the server's connection establishes" \
			grep -q '^RD established' /tmp/ps_ib200.srv
	else
		check "readlimits: ps_ib200: stock: the client rejects the REP" \
			grep -q '^RD failed event=RDMA_CM_EVENT_REJECTED' /tmp/ps_ib200.srv
	fi

	rd_server srvreads 7485 -r 64 -i 64 -R 200
	check "readlimits: srvreads: the server's 200 reads of the client's memory complete" \
		grep -q '^RD reads n=200 ok=200 ' /tmp/srvreads.srv

	if is_ours "$srv"; then
		set_caps 16
		T=/sys/kernel/tracing
		echo 1 > $T/events/rdma_cma/cm_rd_limit/enable
		echo > $T/trace
		rd_server portcap 7484 -r max -i max
		grep cm_rd_limit $T/trace | tee /tmp/portcap.trace
		echo 0 > $T/events/rdma_cma/cm_rd_limit/enable
		if arbitrates "$srv"; then
			check "readlimits: portcap: cm_rd_limit traces the port cap (requested 128, effective 16)" \
				grep -q 'requested=128 effective=16 limit=port' /tmp/portcap.trace
			check "readlimits: portcap: CONNECT_REQUEST offer <= 16 with port caps 16" \
				le "$(val responder_resources /tmp/portcap.srv)" 16 \
				   "$(val initiator_depth /tmp/portcap.srv)" 16
			portcap_check srv
		else
			check "readlimits: off: portcap: caps ignored, CONNECT_REQUEST reports the client's 128/128" \
				[ "$(val responder_resources /tmp/portcap.srv)" = 128 -a \
				  "$(val initiator_depth /tmp/portcap.srv)" = 128 ]
			check "readlimits: off: portcap: nothing traced" \
				[ ! -s /tmp/portcap.trace ]
			check "readlimits: off: portcap: the server QP holds 128 both ways" \
				[ "$(val max_rd_atomic /tmp/portcap.srv)" = 128 -a \
				  "$(val max_dest_rd_atomic /tmp/portcap.srv)" = 128 ]
		fi
	fi

	[ "$RCG_rdma" = siw ] && return 0
	# perftest -R connects twice, and its server listens for the second
	# connect only after the first: on a busy host the second REQ can
	# come first and meet no listener (REJ 8, stock as ours), up to three
	# times in a row.  perftest's server serves one connect, good or
	# bad.  Each try runs
	# one server and one client in step: the server listens and tells the
	# client, which tells how its run ended.  A server whose client failed
	# waits for a peer that is gone: it is stopped, and the next try
	# starts both afresh.
	# What ib_cm and the RDMA CM did with a try's REQ, and the listeners,
	# are printed when the try fails (a REJ from ib_cm here, or no REQ).
	readbw_trace 1
	: > /tmp/readbw.srv
	for try in 1 2 3 4 5 6; do
		echo > $TR/trace 2>/dev/null || :
		echo "readbw try $try" >> /tmp/readbw.srv
		timeout 60 ib_read_bw -R -F -s 4096 -n 200 >> /tmp/readbw.srv 2>&1 &
		pid=$!
		wait_listen 18515
		signal_peer $((9200 + try))
		crc=$(hear_peer $((9210 + try)))
		if [ "$crc" != 0 ]; then
			$RDMA res show cm_id >> /tmp/readbw.srv 2>&1
			kill $pid 2>/dev/null
		fi
		rc=0
		wait $pid || rc=$?
		echo "readbw try $try: client $crc, server $rc" >> /tmp/readbw.srv
		[ "$crc" = 0 ] && break
		grep -v '^#' $TR/trace 2>/dev/null | tail -n 8 >> /tmp/readbw.srv
	done
	readbw_trace 0
	tail -n 5 /tmp/readbw.srv
	checkd /tmp/readbw.srv "readlimits: readbw: ib_read_bw -R server" [ $rc = 0 ]
	is_ours "$srv" && set_caps 255
	return 0
}

# readbw_trace 1|0: trace what ib_cm and the RDMA CM do with a REQ, or stop.
TR=/sys/kernel/tracing
readbw_trace() {
	for e in ib_cma/icm_no_listener_err ib_cma/icm_issue_rej \
		 ib_cma/icm_send_rej ib_cma/icm_send_rep rdma_cma/cm_req_handler; do
		echo "$1" > $TR/events/$e/enable 2>/dev/null || :
	done
}

readlimits_client() {
	srv=$(server_mod) cli=$(client_mod)
	rd_switch "$cli"

	rd_client offer4 7481 -r 4 -i 4
	# The server's QP holds 128 reads each way (librdmacm programs the
	# explicit values before the accept): the client's QP takes the
	# REP's 128 above its offer of 4, as on stock, so that neither side
	# issues more reads than the other holds.
	# siw negotiates IRD/ORD in MPA and swaps them in query_qp.
	if [ "$RCG_rdma" = siw ]; then
		check "readlimits: offer4: established over siw" \
			grep -q '^RD established' /tmp/offer4.cli
	else
		check "readlimits: offer4: the client QP takes the REP's 128 both ways, as stock does" \
			[ "$(val max_rd_atomic /tmp/offer4.cli)" = 128 -a \
			  "$(val max_dest_rd_atomic /tmp/offer4.cli)" = 128 ]
	fi

	rd_client sentinel 7482 -r 4 -i 4
	check "readlimits: sentinel: established" [ $? = 0 ]

	rd_client ps_ib200 7483 -P ib -r max -i max
	if arbitrates "$cli" || arbitrates "$srv"; then
		check "readlimits: ps_ib200: established, client QP <= 128" \
			established ps_ib200 cli 128
		demo "PS_IB accept with 200: established"
	else
		check "readlimits: ps_ib200: stock fails the connect" \
			grep -q '^RD failed' /tmp/ps_ib200.cli
		demo "PS_IB accept with 200: $(sed -n 's/^RD failed event=\([^ ]*\).*/\1/p' /tmp/ps_ib200.cli)"
	fi

	rd_client srvreads 7485 -r 16 -i 16 -R 200
	# siw swaps the two in query_qp (see portcap_check).
	[ "$RCG_rdma" = siw ] ||
		check "readlimits: srvreads: the client's responder holds the server's 64 reads (max_dest_rd_atomic >= 64)" \
			[ "$(val max_dest_rd_atomic /tmp/srvreads.cli)" -ge 64 ]

	if is_ours "$srv"; then
		rd_client portcap 7484 -r max -i max
		if arbitrates "$srv"; then
			portcap_check cli
		else
			check "readlimits: off: portcap: the client QP holds 128 both ways" \
				[ "$(val max_rd_atomic /tmp/portcap.cli)" = 128 -a \
				  "$(val max_dest_rd_atomic /tmp/portcap.cli)" = 128 ]
		fi
	fi

	[ "$RCG_rdma" = siw ] && return 0
	# In step with the server's tries (readlimits_server).
	: > /tmp/readbw.cli
	# The client's side of a failed try: its RDMA CM events and REQs.
	echo 1 > $TR/events/rdma_cma/enable 2>/dev/null || :
	echo 1 > $TR/events/ib_cma/icm_send_req/enable 2>/dev/null || :
	for try in 1 2 3 4 5 6; do
		wait_peer $((9200 + try))
		echo > $TR/trace 2>/dev/null || :
		echo "readbw try $try" >> /tmp/readbw.cli
		run timeout 60 ib_read_bw -R -o 127 -F -s 4096 -n 200 "$RCG_peer" >> /tmp/readbw.cli 2>&1
		rc=$?
		if [ $rc != 0 ]; then
			ip neigh show "$RCG_peer" >> /tmp/readbw.cli
			grep -v '^#' $TR/trace 2>/dev/null | tail -n 30 >> /tmp/readbw.cli
		fi
		signal_peer $((9210 + try)) $rc
		[ $rc = 0 ] && break
	done
	echo 0 > $TR/events/rdma_cma/enable 2>/dev/null || :
	echo 0 > $TR/events/ib_cma/icm_send_req/enable 2>/dev/null || :
	tail -n 5 /tmp/readbw.cli
	# A try that failed is a diagnostic in CI's output, not a failure.
	[ $try = 1 ] || sed "/^readbw try $try\$/,\$d" /tmp/readbw.cli | tail -n 40 |
		while IFS= read -r l; do ktap "# readbw: $l"; done
	checkd /tmp/readbw.cli "readlimits: readbw: ib_read_bw -R -o 127 moves data" [ $rc = 0 ]
}
