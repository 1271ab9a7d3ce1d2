# SPDX-License-Identifier: GPL-2.0
#
# gidretry: the active side recovers from a reject with reason 12 (invalid
# GID) without the application's involvement (issue 5).
#
#   client  eth0 192.0.2.100 ----+---- eth0 192.0.2.1  rxe0   server
#   rxe0                         +---- eth1 192.0.2.2  rxe1   (one subnet)
#
# The server runs our rdma_cm with policy auto and arp_ignore=1, and a
# listener bound to 192.0.2.1.  The client plants its neighbour entry for
# 192.0.2.1 'nud reachable' on eth1's MAC and gid_client misdirects the first
# REQ to rxe1's GID (RDMA_OPTION_IB_PATH); rxe1 rejects it with 12.
#
#   round      client rdma_cm       expected
#   retry      ours                 established, one retry traced
#   20x        ours                 20 of 20 established (5 of 5 on the
#                                   debug kernel, see gr_runs)
#   race       ours: cm_race connects 500 times (100 with our module on
#              the stock kernel), misdirected, and tears each connect
#              down at a random moment (none, rdma_disconnect() or
#              rdma_destroy_id()): every id that is not destroyed gets
#              exactly one final event, a destroyed one none; then half
#              as many, not misdirected, each through an entry made stale
#              first, a third destroyed while their address resolves and
#              they wait for the answer to their solicitation (race-wait)
#   budget0    gid_reject_retries=0 REJECTED status 12
#   permanent  ours, the client's entry for .1 is 'nud permanent' on the
#              right MAC (what an admin sets as a workaround): the retry
#              resolves through it and it stays PERMANENT; a remote REJ
#              never changes local admin state
#   stock      stock (ours-server)  REJECTED status 12
#   noarp      ours, server ignores ARP: the retry's resolution times out:
#              REJECTED status 12, the failure traced and counted
#   destroy    ours, rdma_destroy_id() during the retry: no event follows
#   disconnect ours, rdma_disconnect during the retry, whose resolution
#              then succeeds: the disconnect returns 0 and ends the
#              connect (REJECTED 12), no new REQ goes out
#   linkdel    ours, 'rdma link del rxe0' on the client during the retry
#   netdown    ours, 'ip link set eth0 down' on the client during the retry
#   stale      unmodified rping (20 times) and ucmatose, no misdirection by
#              the application, with the neighbour layer's default timers:
#              the stale entry sends stock's REQ to eth1, whose rxe1 drops
#              it (no GID for 192.0.2.1), and when ARP heals the entry
#              (delay_first_probe_time 5 s, then probes) stock aborts the
#              connect (UNREACHABLE).  Ours solicits the stale entry afresh
#              by broadcast when the address is resolved, and waits for
#              the answer (neigh_refresh_count, one per connect): the REQ
#              goes to eth0, in rxe's mode and in the HCA's (-hw groups),
#              and each connect establishes well before 5 s.  Then, ours
#              only: the entry stale but right (one solicitation, connects);
#              the same for a user without CAP_NET_ADMIN (su nobody: no
#              solicitation, connects); 20 ucmatose connects at once
#              through one stale entry (one solicitation for all 20);
#              gid_reject_retries 0 (none, as stock)
#   req-out    unmodified rping whose entry changes, while its REQ is
#              out, to a MAC that no NIC has: nothing answers, as on an HCA,
#              which keeps the AV's MAC: stock and ours end it UNREACHABLE
#              at the change (gr_req_out)
# At the end no cm_id may be left ('rdma res show cm_id').  The console
# scan of the debug kernel catches KASAN and lockdep reports on the way,
# and kmemleak (groups: kmemleak=on) what the rounds leaked.

GR_CFS=/sys/kernel/config/rdma_cm
GR_T=/sys/kernel/tracing
# rcg.gidretry_part=1, race or 2 runs a part of the client's rounds:
# on the debug kernel, where all of them take six minutes, selftests/groups
# runs the parts as VM pairs of their own (gidretry-1-hw,
# gidretry-race-a with rcg.gidretry_race=125, gidretry-2-hw; groups.more:
# gidretry-1, -2, race-b to -d).
# Without it, all of them.  rcg.gidretry_runs=N: N misdirected connects
# in a row (default gr_runs).
gr_part() { [ -z "$RCG_gidretry_part" ] || [ "$RCG_gidretry_part" = "$1" ]; }
gr_server_ours() { [ "$(echo "$RCG_module" | cut -d/ -f1)" != stock ]; }
gr_client_ours() { [ "$(echo "$RCG_module" | cut -d/ -f2)" != stock ]; }

gidretry_server() {
	a=$(addr_of 0)
	sysctl -qw net.ipv4.conf.all.arp_ignore=1
	if gr_server_ours; then
		mkdir -p "$GR_CFS/rxe1"
		echo auto > "$GR_CFS/rxe1/ports/1/gid_mismatch"
	fi
	# retry, 20x (rcg.gidretry_runs), permanent: 22 connections at most
	# reach the listener.
	rd_limits -s "$a" -p 7491 -n $((${RCG_gidretry_runs:-20} + 3)) -t 600 > /tmp/gr.srv 2>&1 &
	srv=$!
	# race: connections torn down at random moments, any number.
	cm_race -s "$a" -p 7494 -t 900 > /tmp/gr.race.srv 2>&1 &
	race=$!
	wait_for 30 grep -q listening /tmp/gr.srv
	wait_for 30 grep -q listening /tmp/gr.race.srv
	signal_peer 9501
	# The client asks for the server to stop answering ARP (noarp).
	wait_peer 9502
	sysctl -qw net.ipv4.conf.all.arp_ignore=8
	signal_peer 9503
	wait_peer 9504
	sysctl -qw net.ipv4.conf.all.arp_ignore=1
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	# stale: rping and ucmatose servers for unmodified clients.
	rping -s -a "$a" -p 7492 -P > /tmp/gr.rping.srv 2>&1 &
	rp=$!
	(while :; do ucmatose -b "$a" -p 7493 -c 1 -C 1 || sleep 0.2; done) > /tmp/gr.ucm.srv 2>&1 &
	um=$!
	(while :; do ucmatose -b "$a" -p 7495 -c 20 -C 1 || sleep 0.2; done) > /tmp/gr.ucm20.srv 2>&1 &
	um20=$!
	wait_listen 7492 7493 7495
	signal_peer 9505
	wait_peer 9506
	kill $rp $um $um20 $race 2>/dev/null
	sed 's/^/[server rping] /' /tmp/gr.rping.srv | tail -n 30
	sed 's/^/[server ucmatose] /' /tmp/gr.ucm.srv | tail -n 10
	# Part 2 misdirects REQs only from a client of ours (noarp and
	# after); the race's connects may all end before their REJ.
	gr_server_ours && [ "$RCG_gidretry_part" != race ] && { gr_part 1 || gr_client_ours; } &&
		check "gidretry: the server rejected misdirected REQs with 12" \
		[ "$(cat $GR_CFS/rxe1/ports/1/gid_reject_count)" -ge 1 ]
	sysctl -qw net.ipv4.conf.all.arp_ignore=0
}

# gr_plant: the client's entry for .1 on eth1's MAC, 'reachable', as after
# a fail-over whose gratuitous ARP was lost (a stale one would be solicited
# afresh before the REQ, see gr_stale).  rxe sends the misdirected REQ to
# the DGID's address, .2, whose entry is made permanent: while the server
# ignores ARP (noarp and after), an entry that aged out would lose the REQ.
# An HCA (hca_mode) sends it to the route's MAC, the entry's for .1: eth1
# as well.  Our client solicits afresh, as the address resolves, an entry
# that nothing confirmed within the last second (dkms/0015): gid_client
# plants the entry for .1 again ($gr_wrong, -x) right before it resolves.
gr_plant() {
	$IP neigh replace "$srv1" lladdr "$mac1" dev eth0 nud permanent
	$IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud reachable
}
# gr_connect NAME [ARGS]: connect misdirected.  A connect that solicited
# the planted entry all the same (neigh_refresh_count) is counted in
# gr_early, the connects in gr_conns: gidretry_client says them.  On an
# HCA, where its REQ then went to eth0's MAC with rxe1's GID and nothing
# answered (a timeout), it did not test what it means to, and runs
# again, three times at most.
gr_connect() {
	name=$1
	shift
	gr_conns=$((gr_conns + 1))
	for try in 1 2 3; do
		gr_plant
		r0=$(gr_refreshed)
		gid_client -c "$srv0" -p 7491 -d "$srv1" -x "$gr_wrong" "$@" > /tmp/gr.$name.cli 2>&1
		echo $? > /tmp/gr.$name.rc
		sed "s/^/[client $name] /" /tmp/gr.$name.cli
		[ "$(gr_refreshed)" != "$r0" ] || break
		gr_early=$((gr_early + 1))
		echo "[client $name] try $try: the planted entry was solicited before the REQ"
		hca_mode && grep -q '^GID failed event=timeout' /tmp/gr.$name.cli || break
	done
}
# gr_refreshed: the stale entries that the client's port solicited afresh.
gr_refreshed() { cat "$GR_CFS/rxe0/ports/1/neigh_refresh_count" 2>/dev/null || echo 0; }
# gr_stale: unmodified rping and ucmatose through a stale entry for .1.
gr_stale() {
	r0=$(gr_refreshed)
	# rcg.stale_runs=N (kernel command line) runs rping N times.
	n=1
	gr_client_ours && n=${RCG_stale_runs:-$(gr_runs)}
	# All rdma_cma events: a failed run prints its own.
	gr_client_ours && echo 1 > $GR_T/events/rdma_cma/enable
	okr=0 worst=0
	for i in $(seq 1 $n); do
		echo > $GR_T/trace
		$IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
		t0=$(gr_ms)
		timeout 30 rping -c -a "$srv0" -p 7492 -C 1 > /tmp/gr.rping.$i 2>&1
		rc=$? ok=
		rping_ok $rc /tmp/gr.rping.$i && ok=1
		[ -n "$ok" ] && okr=$((okr + 1))
		dt=$(( $(gr_ms) - t0 ))
		[ $dt -gt $worst ] && worst=$dt
		echo "[client stale rping $i] $dt ms, exit $rc: $(tr '\n' ' ' < /tmp/gr.rping.$i | cut -c1-100)"
		[ -n "$ok" ] || ! gr_client_ours ||
			grep -v '^#' $GR_T/trace | tail -n 60 | sed "s/^/[client stale rping $i trace] /"
	done
	echo > $GR_T/trace
	$IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
	timeout 30 ucmatose -s "$srv0" -p 7493 -c 1 -C 1 > /tmp/gr.ucm 2>&1
	okt=$?
	gr_client_ours && grep cm_gid_retry $GR_T/trace | tail -n 12
	gr_client_ours && echo 0 > $GR_T/events/rdma_cma/enable
	sed 's/^/[client stale ucmatose] /' /tmp/gr.ucm
	if gr_client_ours; then
		# 100 runs (rcg.stale_runs=100): 100 connections, one of them
		# with rping's exit race above.  Once, in a full make check, a
		# run ended without any output, before failed runs printed
		# their trace: one miss is allowed, and it shows its trace.
		check "gidretry: stale neighbour: rping $okr of $n established (slowest $worst ms)" [ $okr -ge $((n - 1)) ]
		check "gidretry: stale neighbour: ucmatose completes" [ $okt = 0 ]
		refreshed=$(( $(gr_refreshed) - r0 ))
		check "gidretry: stale neighbour: each of the $((n + 1)) connects solicited the stale entry afresh (neigh_refresh_count +$refreshed)" \
			[ $refreshed = $((n + 1)) ]
		check "gidretry: stale neighbour: no connect waited for the neighbour layer's delay_first_probe_time (5 s): slowest $worst ms" \
			[ $worst -lt 5000 ]
		$IP neigh show "$srv0" dev eth0 | sed 's/^/[client stale neigh] /'
		check "gidretry: stale neighbour: the entry names eth0's MAC now" \
			sh -c "$IP neigh show $srv0 dev eth0 | grep -q $mac0"
		demo "stale neighbour: rping $okr/$n, slowest $worst ms; ucmatose ok"
		gr_stale_more
	else
		check "gidretry: stale neighbour: stock rping fails" [ $okr = 0 ]
		check "gidretry: stale neighbour: stock ucmatose fails" [ $okt != 0 ]
		demo "stale neighbour: rping fails ($(grep -o 'UNREACHABLE\|error' /tmp/gr.rping.1 | head -n1))"
	fi
}

# gr_stale_more: ours only.  The entry stale but right; 20 connects at once
# through one stale entry; and gid_reject_retries 0.
gr_stale_more() {
	$IP neigh replace "$srv0" lladdr "$mac0" dev eth0 nud stale
	r1=$(gr_refreshed) t0=$(gr_ms)
	timeout 30 rping -c -a "$srv0" -p 7492 -C 1 > /tmp/gr.staleok 2>&1
	rc=$? dt=$(( $(gr_ms) - t0 )) pinged=0
	rping_ok $rc /tmp/gr.staleok && pinged=1
	checkd /tmp/gr.staleok "gidretry: stale but right: rping connects in $dt ms, one solicitation (neigh_refresh_count +$(( $(gr_refreshed) - r1 )))" \
		sh -c "[ $pinged = 1 ] && [ $(( $(gr_refreshed) - r1 )) = 1 ]"

	# The entry is the network namespace's: a user without CAP_NET_ADMIN
	# connects through it as it is.
	grep -q '^nobody:' /etc/passwd 2>/dev/null ||
		echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
	check "gidretry: su runs a command as nobody (uid 65534)" \
		sh -c '[ "$(su nobody -c "id -u")" = 65534 ]'
	$IP neigh replace "$srv0" lladdr "$mac0" dev eth0 nud stale
	r1=$(gr_refreshed)
	timeout 30 su nobody -c "rping -c -a $srv0 -p 7492 -C 1" > /tmp/gr.nobody 2>&1
	rc=$? pinged=0
	rping_ok $rc /tmp/gr.nobody && pinged=1
	checkd /tmp/gr.nobody "gidretry: stale but right, an unprivileged user's rping: connects without soliciting the entry (neigh_refresh_count +$(( $(gr_refreshed) - r1 )))" \
		sh -c "[ $pinged = 1 ] && [ $(gr_refreshed) = $r1 ]"

	$IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
	r1=$(gr_refreshed)
	timeout 60 ucmatose -s "$srv0" -p 7495 -c 20 -C 1 > /tmp/gr.burst 2>&1
	rc=$?
	checkd /tmp/gr.burst "gidretry: stale neighbour: 20 ucmatose connects at once complete with one solicitation for all (neigh_refresh_count +$(( $(gr_refreshed) - r1 )))" \
		sh -c "[ $rc = 0 ] && [ $(( $(gr_refreshed) - r1 )) = 1 ]"

	echo 0 > "$GR_CFS/rxe0/ports/1/gid_reject_retries"
	$IP neigh replace "$srv0" lladdr "$mac0" dev eth0 nud stale
	r1=$(gr_refreshed)
	timeout 30 rping -c -a "$srv0" -p 7492 -C 1 > /tmp/gr.refoff 2>&1
	rc=$? pinged=0
	rping_ok $rc /tmp/gr.refoff && pinged=1
	checkd /tmp/gr.refoff "gidretry: gid_reject_retries 0: the stale entry is used as it is, as stock does (rping connects, no solicitation)" \
		sh -c "[ $pinged = 1 ] && [ $(gr_refreshed) = $r1 ]"
	echo 2 > "$GR_CFS/rxe0/ports/1/gid_reject_retries"
}

# gr_req_out: the neighbour entry of a connect whose REQ is out changes
# to a MAC that no NIC has, and stays there ('nud permanent'): no
# retransmission of the REQ is answered, as on an HCA, which sends them to
# the MAC of the REQ's address vector whatever the entry says.  Stock and
# ours report UNREACHABLE at the change (under 3 s), not after ib_cm's
# last retransmission (about 77 s): waiting for an answer would only delay
# the report.
# The scenario needs the REQ out at the change: a connect that was answered
# before it (rping ran to its end and disconnected) says nothing, so it is
# tried again, three times at most.
gr_req_out() {
	for try in 1 2 3; do
		# Permanent: ours solicits a stale entry afresh before the REQ
		# (dkms/0014), and a reachable one that nothing confirmed
		# within a second (dkms/0015), but leaves admin entries alone.
		$IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud permanent
		timeout 150 rping -c -a "$srv0" -p 7492 -C 1 > /tmp/gr.reqout 2>&1 &
		pid=$!
		wait_for 10 sh -c "$RDMA res show cm_id | grep -q 'state CONNECT'"
		t0=$(gr_ms)
		$IP neigh replace "$srv0" lladdr 52:54:00:00:99:99 dev eth0 nud permanent
		wait $pid
		dt=$(( $(gr_ms) - t0 ))
		$IP neigh replace "$srv0" lladdr "$mac0" dev eth0 nud reachable
		echo "[client req-out] try $try: $dt ms after the change: $(tr '\n' ' ' < /tmp/gr.reqout | cut -c1-100)"
		grep -q 'DISCONNECT EVENT' /tmp/gr.reqout || break
	done
	checkd /tmp/gr.reqout "gidretry: req-out: a neighbour change while the REQ is out ends the connect UNREACHABLE at the change (under 3 s), as stock does: $dt ms" \
		sh -c "grep -q UNREACHABLE /tmp/gr.reqout && [ $dt -lt 3000 ]"
}

# gr_runs: how many connects the loops make.  Issue 5's 20 in a row run
# on the stock kernel with our module; on the debug kernel, where KASAN
# under TCG makes a connect through a stale entry take 6 s, 5 are enough
# to find KASAN, lockdep and kmemleak reports.
gr_runs() { if [ "$(my_module)" = builtin ]; then echo 5; else echo 20; fi; }
# gr_race_runs: connects of the race round: 500 on the debug kernel, where
# KASAN, lockdep and kmemleak watch; 100 with our module on the stock one.
gr_race_runs() { if [ "$(my_module)" = builtin ]; then echo 500; else echo 100; fi; }
gr_ms() { awk '{ print int($1 * 1000) }' /proc/uptime; }
# gr_wait_trace PATTERN: wait up to 20 s for PATTERN in the trace.
gr_wait_trace() {
	wait_for 20 grep -q "$1" $GR_T/trace && return 0
	echo "[client] no '$1' in the trace"
	return 1
}
# gr_during_retry NAME 'CMD': a misdirected connect in the background;
# CMD (evaluated: $pid is the client's) runs once its retry resolves the
# address, which takes 2 s as the server ignores ARP.  The client's output
# and the retry's trace go to /tmp/gr.NAME.log.
gr_during_retry() {
	name=$1 cmd=$2
	echo > $GR_T/trace
	gr_plant
	gid_client -c "$srv0" -p 7491 -d "$srv1" -t 20 -x "$gr_wrong" > /tmp/gr.$name.cli 2>&1 &
	pid=$!
	gr_wait_trace step=resolve && eval "run $cmd"
	wait $pid
	echo "client exit $?" >> /tmp/gr.$name.cli
	grep cm_gid_retry $GR_T/trace | sed 's/^ *//' > /tmp/gr.$name.trace
	cat /tmp/gr.$name.cli /tmp/gr.$name.trace > /tmp/gr.$name.log
	sed "s/^/[client $name] /" /tmp/gr.$name.log
}
# gr_check_after_reject NAME: the REJECTED id of round NAME is left as a
# REJ leaves it, in state CONNECT: resolving and connecting again fail
# with -EINVAL (gid_client.c), also after a retry that gave up (issue 10).
# The stock client's round shows the same line from stock code.
gr_check_after_reject() {
	checkd /tmp/gr.$1.cli "gidretry: $1: the rejected id is in state CONNECT: resolve_addr, resolve_route and connect fail with -EINVAL" \
		grep -q '^GID after reject: resolve_addr=-22 resolve_route=-22 connect=-22' /tmp/gr.$1.cli
}
# gr_active: rxe0 port 1 is ACTIVE.
gr_active() { $RDMA link show rxe0/1 2>/dev/null | grep -q 'state ACTIVE'; }
gr_count() { cat "$GR_CFS/rxe0/ports/1/gid_$1_count"; }

gidretry_client() {
	srv0=$RCG_peer srv1=$(echo "$RCG_peer" | sed 's/\.1$/.2/')
	wait_peer 9501
	ping -c 1 -W 2 "$srv0" > /dev/null
	ping -c 1 -W 2 "$srv1" > /dev/null
	mac0=$($IP neigh show "$srv0" dev eth0 | sed -n 's/.*lladdr \([^ ]*\).*/\1/p')
	mac1=$($IP neigh show "$srv1" dev eth0 | sed -n 's/.*lladdr \([^ ]*\).*/\1/p')
	gr_wrong="$IP neigh replace $srv0 lladdr $mac1 dev eth0 nud reachable"
	gr_early=0 gr_conns=0
	if gr_client_ours; then
		mkdir -p "$GR_CFS/rxe0"
		check "gidretry: rxe0 port 1 starts with gid_reject_retries 2" \
			[ "$(cat $GR_CFS/rxe0/ports/1/gid_reject_retries)" = 2 ]
		echo 1 > $GR_T/events/rdma_cma/cm_gid_retry/enable
	fi

	if gr_client_ours; then
		gr_part 1 && gr_client_part1
		gr_part race && { gr_client_race; gr_client_race_wait; }
		gr_part 1 && gr_client_budget0
	else
		gr_part 1 && gr_client_stock
	fi
	signal_peer 9502
	wait_peer 9503
	gr_client_ours && gr_part 2 && gr_client_part2
	# Said, not checked: with our module on 6.12, in rxe's mode, 6 of 23
	# connects solicited the entry within milliseconds of its plant in
	# one run (1 of 23 in another), for a reason not found; there the
	# REQ is rejected and retried all the same.
	gr_client_ours && [ $gr_conns -gt 0 ] &&
		echo "[client] the planted entry was solicited before the REQ in $gr_early of $gr_conns misdirected connects"
	signal_peer 9504
	wait_peer 9505
	gr_part 2 && gr_stale
	gr_part 2 && gr_req_out
	$IP neigh replace "$srv0" lladdr "$mac0" dev eth0 nud reachable
	signal_peer 9506
	gr_client_ours && echo 0 > $GR_T/events/rdma_cma/cm_gid_retry/enable
	gr_no_cm_id
}

# gr_client_stock: a stock client's misdirected connect is rejected.
gr_client_stock() {
	gr_connect stock
	# A stock server has no guard at rxe1 for the bound listener.
	want=12
	gr_server_ours || want=8
	check "gidretry: stock client: the application sees REJECTED status $want" \
		grep -q "^GID rejected status=$want" /tmp/gr.stock.cli
	gr_check_after_reject stock
}

# gr_events 1|0: trace what the RDMA CM, ib_cm and the neighbour layer do
# (0: the retries only).
gr_events() {
	for e in rdma_cma ib_cma neigh; do
		echo "$1" > $GR_T/events/$e/enable 2>/dev/null || :
	done
	echo 1 > $GR_T/events/rdma_cma/cm_gid_retry/enable
}

# gr_client_part1: the retry, and misdirected connects in a row.
gr_client_part1() {
	# The first retry after boot takes 0.7-3.7 s; once it failed
	# gid_client's 10 s in a VM whose clock ran five times too fast
	# (tsc_early_khz in scripts/lib.sh).  It gets 30 s, and one slower
	# than 5 s prints what the RDMA CM, ib_cm and the neighbour layer
	# traced.
	gr_events 1
	echo > $GR_T/trace
	t0=$(gr_ms)
	gr_connect retry -t 30
	t1=$(gr_ms)
	gr_events 0
	[ $((t1 - t0)) -lt 5000 ] ||
		grep -v '^#' $GR_T/trace | tail -n 120 | sed "s/^/[client retry trace] /"
	checkd /tmp/gr.retry.cli "gidretry: retry: established, no REJECTED event for the application" \
		grep -qx 'GID established' /tmp/gr.retry.cli
	grep cm_gid_retry $GR_T/trace | tee /tmp/gr.retry.trace
	check "gidretry: retry: the tracepoint shows the retry to the right GID" \
		grep -q 'attempt=1 old_dgid=0000:0000:0000:0000:0000:ffff:c000:0202 new_dgid=0000:0000:0000:0000:0000:ffff:c000:0201 step=connect' /tmp/gr.retry.trace
	check "gidretry: retry: counted" [ "$(gr_count retry)" = 1 ]
	ms=$((t1 - t0))
	echo "[client] retry: established in $ms ms"

	ok20=0 n=${RCG_gidretry_runs:-$(gr_runs)}
	gr_events 1
	for i in $(seq 1 $n); do
		echo > $GR_T/trace
		gr_connect run$i
		if grep -qx 'GID established' /tmp/gr.run$i.cli; then
			ok20=$((ok20 + 1))
		else
			grep -v '^#' $GR_T/trace | tail -n 150 | sed "s/^/[client run$i trace] /"
		fi
	done
	gr_events 0
	check "gidretry: $n misdirected connects in a row: $ok20 of $n established" [ $ok20 = $n ]
	echo "[client] misdirected REQ: established after 1 retry ($ms ms), $ok20/$n"
}

# gr_client_race: rdma_disconnect() and rdma_destroy_id() at random
# moments of misdirected connects, the retry's included (issue 10, item 1).
gr_client_race() {
	n=${RCG_gidretry_race:-$(gr_race_runs)}
	gr_plant
	run timeout 1500 cm_race -c "$srv0" -p 7494 -d "$srv1" -n $n > /tmp/gr.race.cli 2>&1
	rc=$?
	grep -v '^RACE [0-9]' /tmp/gr.race.cli | sed 's/^/[client race] /'
	checkd /tmp/gr.race.cli "gidretry: race: $n connects torn down at random moments: one final event each, none after destroy" [ $rc = 0 ]
}
# gr_client_race_wait: connects to .1 whose entry (right MAC) is made
# stale before each one, so that each solicits it afresh and waits for the
# answer before ADDR_RESOLVED; a third are destroyed 0-4 ms after
# rdma_resolve_addr(), before, during or after that wait (cm_race -A).
gr_client_race_wait() {
	n=$(( ${RCG_gidretry_race:-$(gr_race_runs)} / 2 ))
	r0=$(gr_refreshed)
	run timeout 1500 cm_race -c "$srv0" -p 7494 -n $n -A \
		-x "$IP neigh replace $srv0 lladdr $mac0 dev eth0 nud stale" > /tmp/gr.racew.cli 2>&1
	rc=$?
	grep -v '^RACE [0-9]' /tmp/gr.racew.cli | sed 's/^/[client race-wait] /'
	r=$(( $(gr_refreshed) - r0 ))
	checkd /tmp/gr.racew.cli "gidretry: race-wait: $n connects through an entry made stale before each ($r solicitations), a third destroyed while the address resolves: one final event each, none after destroy" \
		[ $rc = 0 -a $r -gt 0 ]
}

# gr_client_budget0: a budget of 0, and the admin's permanent entry.
gr_client_budget0() {
	echo 0 > "$GR_CFS/rxe0/ports/1/gid_reject_retries"
	gr_connect budget0
	checkd /tmp/gr.budget0.cli "gidretry: gid_reject_retries=0: REJECTED status 12" \
		grep -q '^GID rejected status=12' /tmp/gr.budget0.cli
	gr_check_after_reject budget0
	echo 2 > "$GR_CFS/rxe0/ports/1/gid_reject_retries"

	# permanent: the admin's entry for .1, on the right NIC, survives
	# the REJ 12 of a misdirected REQ and serves the retry.  An HCA sends
	# the REQ to that entry's MAC, where no port holds .2's GID: no REJ.
	if hca_mode; then
		skip "gidretry: permanent: an HCA sends the REQ to the admin's right MAC, so nothing rejects it (rxe's mode only)"
		return
	fi
	gr_plant
	run $IP neigh replace "$srv0" lladdr "$mac0" dev eth0 nud permanent
	gid_client -c "$srv0" -p 7491 -d "$srv1" > /tmp/gr.permanent.cli 2>&1
	$IP neigh show "$srv0" dev eth0 >> /tmp/gr.permanent.cli
	sed 's/^/[client permanent] /' /tmp/gr.permanent.cli
	checkd /tmp/gr.permanent.cli "gidretry: permanent: the retry goes through the admin's entry" \
		grep -qx 'GID established' /tmp/gr.permanent.cli
	checkd /tmp/gr.permanent.cli "gidretry: permanent: a remote REJ leaves the entry PERMANENT" \
		grep -q "^$srv0 lladdr $mac0 PERMANENT" /tmp/gr.permanent.cli
}

# gr_client_part2: while the server ignores ARP, a retry whose
# solicitation goes unanswered, and a retry that the application or the
# admin ends (destroy, disconnect, link del, netdev down).
gr_client_part2() {
	# noarp: the retry's fresh solicitation gets no answer.
	f0=$(gr_count retry_failed)
	echo > $GR_T/trace
	gr_connect noarp -t 15
	checkd /tmp/gr.noarp.cli "gidretry: noarp: the failed retry reaches the application as REJECTED status 12" \
		grep -q '^GID rejected status=12' /tmp/gr.noarp.cli
	check "gidretry: noarp: counted as failed" [ "$(gr_count retry_failed)" = $((f0 + 1)) ]
	check "gidretry: noarp: traced as failed" grep -q 'step=failed' $GR_T/trace
	gr_check_after_reject noarp

	# The rounds below act once the trace shows the retry resolving the
	# address (gr_during_retry), however slow the machine.
	# destroy: the application calls rdma_destroy_id() while the retry
	# resolves.  No event may follow, neither to it nor in the trace.
	gr_during_retry destroy 'kill -USR2 $pid'
	checkd /tmp/gr.destroy.log "gidretry: destroy during a retry: no event follows, the retry stops" \
		sh -c "grep -q '^GID no event after destroy' /tmp/gr.destroy.cli &&
			! grep -qE 'step=(connect|failed)' /tmp/gr.destroy.trace"

	# disconnect: the application gives up while the retry resolves;
	# then the resolution succeeds (the right entry, planted by hand, as
	# the server ignores ARP).  The disconnect ends the connect: no new
	# REQ goes out and the application sees the REJECTED of the REQ
	# that was rejected.
	gr_during_retry disconnect 'kill -USR1 $pid; wait_for 10 grep -q "^GID disconnect" /tmp/gr.disconnect.cli; $IP neigh replace "$srv0" lladdr "$mac0" dev eth0 nud reachable'
	checkd /tmp/gr.disconnect.log "gidretry: rdma_disconnect during a retry returns 0" \
		grep -q '^GID disconnect ret=0' /tmp/gr.disconnect.cli
	checkd /tmp/gr.disconnect.log "gidretry: rdma_disconnect during a retry: no new REQ, the application sees REJECTED status 12" \
		sh -c "grep -q '^GID rejected status=12' /tmp/gr.disconnect.cli &&
			! grep -q 'step=connect' /tmp/gr.disconnect.trace"
	gr_check_after_reject disconnect

	# linkdel: the device goes away while the retry resolves.  rxe has
	# no disassociate_ucontext, so ib_uverbs holds the removal until the
	# process closes its verbs context: the retry ends first (REJECTED
	# 12 when its resolution times out), then the removal completes.
	gr_during_retry linkdel '$RDMA link del rxe0'
	checkd /tmp/gr.linkdel.log "gidretry: rdma link del during a retry completes; the application sees REJECTED 12 or DEVICE_REMOVAL" \
		grep -qE 'DEVICE_REMOVAL|^GID rejected status=12' /tmp/gr.linkdel.cli
	check "gidretry: rdma link del during a retry: rxe0 is gone" \
		sh -c "! $RDMA link show rxe0/1 2>/dev/null | grep -q rxe0"
	rdma_add rxe0 rxe eth0
	# The retries left the server's entry failed and the server ignores
	# ARP: restore it, for the signal.
	run $IP neigh replace "$srv0" lladdr "$mac0" dev eth0 nud reachable
	check "gidretry: rdma link add after the removal: rxe0 is active" wait_for 20 gr_active

	# netdown: the client's NIC goes down while the retry resolves.
	gr_during_retry netdown '$IP link set eth0 down'
	run $IP link set eth0 up
	# The server ignores ARP: the flushed entries come back by hand.
	run $IP neigh replace "$srv0" lladdr "$mac0" dev eth0 nud reachable
	run $IP neigh replace "$srv1" lladdr "$mac1" dev eth0 nud reachable
	checkd /tmp/gr.netdown.log "gidretry: netdev down during a retry: the application sees REJECTED status 12" \
		grep -q '^GID rejected status=12' /tmp/gr.netdown.cli
	check "gidretry: netdev down during a retry: rxe0 is active again once eth0 is up" wait_for 20 gr_active
}

# gr_no_cm_id: every round's cm_ids are gone (ib_core's restrack, which
# reads struct rdma_id_private of our module).
gr_no_cm_id() {
	$RDMA res show cm_id > /tmp/gr.cm_id 2>&1
	sed 's/^/[client cm_id] /' /tmp/gr.cm_id
	check "gidretry: no cm_id left behind (rdma res show cm_id)" [ ! -s /tmp/gr.cm_id ]
}
