# SPDX-License-Identifier: GPL-2.0
#
# gidmismatch: the passive side detects, reports and rejects an IP-to-GID
# mismatch (issue 4).
#
#   client  eth0 192.0.2.100 ----+---- eth0 192.0.2.1  rxe0   server
#   rxe0                         +---- eth1 192.0.2.2  rxe1   (one subnet)
#
# The client's neighbour entry for 192.0.2.1 is planted 'nud stale' on
# eth1's MAC, as a lost gratuitous ARP leaves it, and gid_client sets a
# path record (RDMA_OPTION_IB_PATH) whose DGID is rxe1's GID
# ::ffff:192.0.2.2: the REQ for 192.0.2.1 lands on rxe1, as an IPoIB ARP
# reply from the wrong HCA makes it do on InfiniBand.
#
# For each policy of rxe1 port 1 (off, warn, auto, reject) and each
# listener (wildcard 0.0.0.0, bound to 192.0.2.1), the client checks the
# outcome it sees and the server its log line, counters and tracepoint:
#
#   listener   stock / off   warn          auto          reject
#   wildcard   REJ 28        REJ 28 + log  REJ 12 + log  REJ 12 + log
#   bound      REJ 8         REJ 8 + log   REJ 12 + log  REJ 12 + log
#
# On RoCE a wildcard listener cannot take the REQ either: rxe1 has no GID
# for 192.0.2.1 to bind the connection to, so stock rejects with 28 and
# auto turns that into 12 (on IB the wildcard listener accepts on the
# arrival port, and auto lets it).  A listener bound to 192.0.2.1 listens
# on rxe0; stock ib_cm rejects the REQ at rxe1 with reason 8.  Ours also
# listens on rxe1 for it (a guard), to check the REQ, and rejects with 8
# as before unless the policy says 12.  Every REJ 12 carries rxe0's GID.
# A control connect without misdirection must produce no warning.
#
# With policy off at rxe1, nothing of ours may listen there: a kprobe on
# cma_ib_req_handler() (where the kernel has kprobe events) must see no
# call for the bound listener's misdirected REQ, as with stock.  A burst
# of misdirected REQs logs at most 5 warnings in 5 s, and the next
# warning after the interval says how many were suppressed.

CFS=/sys/kernel/config/rdma_cm
T=/sys/kernel/tracing
GM_POLICIES="off warn auto reject"

gm_ours() { [ "$(my_module)" != stock ]; }
# rcg.gidmismatch_part=1 or 2 runs a part of the rounds: on the debug
# kernel, where all of them take five minutes, selftests/groups runs the
# parts as VM pairs of their own (gidmismatch-1: the policies, notify, a
# re-added device, the rate limit; gidmismatch-2: the addresses, an
# address on both NICs, VLAN, IPv6 and VRF).  Without it, both.
gm_part() { [ -z "$RCG_gidmismatch_part" ] || [ "$RCG_gidmismatch_part" = "$1" ]; }
# gm_part_known: a part that is neither fails, rather than run nothing.
gm_part_known() {
	case $RCG_gidmismatch_part in
	''|1|2) return 0 ;;
	esac
	not_ok "gidmismatch: rcg.gidmismatch_part=$RCG_gidmismatch_part is not 1 or 2"
	return 1
}
gm_warnings() { dmesg | grep -c 'IP-to-GID mismatch at port'; }
gm_neigh_is() { $IP neigh show "$1" dev eth0 | grep -q "lladdr $2"; }
gm_count() { cat "$CFS/rxe1/ports/1/gid_$1_count"; }
# gm_kprobe on|off|count: calls of cma_ib_req_handler(), the handler of
# every rdma_cm listen at ib_cm, guards included; 'on' fails without
# kprobe events.
gm_kprobe() {
	case $1 in
	on)
		[ -w $T/kprobe_events ] || return 1
		echo 'p:rcg_req cma_ib_req_handler' >> $T/kprobe_events || return 1
		echo > $T/trace
		echo 1 > $T/events/kprobes/rcg_req/enable ;;
	off)
		echo 0 > $T/events/kprobes/rcg_req/enable
		echo '-:rcg_req' >> $T/kprobe_events ;;
	count) grep -c 'rcg_req:' $T/trace ;;
	esac
}

# gm_expect LISTENER POLICY: the outcome the client must see.
gm_expect() {
	case "$1:$2" in
	*:auto|*:reject) echo "rejected status=12" ;;
	wildcard:*) echo "rejected status=28" ;;
	bound:*) echo "rejected status=8" ;;
	esac
}

# gm_serve NAME ADDR [CMD...]: one round: listen on ADDR, run CMD, then
# let the client connect, until it is done; GM_N connections are served.
gm_serve() {
	rd_limits -s "$2" -p 7490 -t 30 -n "${GM_N:-1}" > /tmp/gm.$1.srv 2>&1 &
	srv=$!
	wait_for 30 grep -q listening /tmp/gm.$1.srv
	shift 2
	"$@"
	signal_peer 9401
	wait_peer 9402
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
}

# gm_round NAME LISTEN WHAT LOG TRACE: serve round NAME on LISTEN, in which
# the client sends one misdirected REQ to rxe1, then one that connects.
# Ours logs the REQ once, as the grep pattern LOG says (WHAT in words), and
# traces TRACE (the ARI); stock logs nothing.
gm_round() {
	local rn=$1 rlisten=$2 rwhat=$3 rlog=$4 rtrace=$5 w0 w1

	if gm_ours; then
		echo 1 > $T/events/rdma_cma/cm_gid_mismatch/enable
		echo > $T/trace
	fi
	w0=$(gm_warnings)
	gm_serve "$rn" "$rlisten"
	w1=$(gm_warnings)
	if ! gm_ours; then
		check "gidmismatch: $rn: no warning" [ "$w1" = "$w0" ]
		return 0
	fi
	grep cm_gid_mismatch $T/trace | tee /tmp/gm.$rn.trace
	echo 0 > $T/events/rdma_cma/cm_gid_mismatch/enable
	dmesg | grep 'IP-to-GID mismatch at port' | tail -n1 > /tmp/gm.$rn.log
	check "gidmismatch: $rn: one warning, for the REQ at rxe1" [ $((w1 - w0)) = 1 ]
	check "gidmismatch: $rn: it says $rwhat" grep -q "$rlog" /tmp/gm.$rn.log
	check "gidmismatch: $rn: the tracepoint shows the owner and the ARI" \
		grep -q "$rtrace" /tmp/gm.$rn.trace
}

gidmismatch_server() {
	gm_part_known || return 0
	sysctl -qw net.ipv4.conf.all.arp_ignore=1
	if gm_ours; then
		mkdir -p "$CFS/rxe0" "$CFS/rxe1"
		check "gidmismatch: rxe1 port 1 starts with policy auto" \
			[ "$(cat $CFS/rxe1/ports/1/gid_mismatch)" = auto ]
		echo bogus > "$CFS/rxe1/ports/1/gid_mismatch" 2>/dev/null
		check "gidmismatch: 'bogus' is refused and auto kept" \
			[ "$(cat $CFS/rxe1/ports/1/gid_mismatch)" = auto ]
		echo 1 > $T/events/rdma_cma/cm_gid_mismatch/enable
	fi
	gm_part 1 && gm_server_policies
	gm_part 2 && gm_server_addresses
	sysctl -qw net.ipv4.conf.all.arp_ignore=0
}

gm_server_policies() {
	# Control: a correctly addressed connect under the strictest policy.
	if gm_ours; then
		echo reject > "$CFS/rxe0/ports/1/gid_mismatch"
		echo reject > "$CFS/rxe1/ports/1/gid_mismatch"
	fi
	w0=$(gm_warnings)
	gm_serve control 0.0.0.0
	check "gidmismatch: a correctly addressed connect logs no warning" \
		[ "$(gm_warnings)" = "$w0" ]

	for l in wildcard bound; do
		a=0.0.0.0
		[ $l = bound ] && a=$(addr_of 0)
		# The rate limit logs 5 lines per 5 s per port, and each loop
		# logs 3 (warn, auto, reject): let the first loop's interval
		# end, so that each line checked below is logged, not counted
		# as suppressed (the burst round tests the suppression).
		[ $l = bound ] && gm_ours && sleep 6
		for p in $GM_POLICIES; do
			if gm_ours; then
				echo $p > "$CFS/rxe1/ports/1/gid_mismatch"
				echo > $T/trace
				m0=$(gm_count mismatch) r0=$(gm_count reject)
			fi
			w0=$(gm_warnings)
			kp=
			if [ $l.$p = bound.off ]; then
				if gm_kprobe on; then
					kp=1
				else
					skip "gidmismatch: bound off: nothing listens at rxe1 (no kprobe events in this kernel)"
				fi
			fi
			gm_serve $l.$p $a
			w1=$(gm_warnings)
			if [ -n "$kp" ]; then
				calls=$(gm_kprobe count)
				gm_kprobe off
				check "gidmismatch: bound off: nothing listens at rxe1 for the bound listener (rdma_cm saw $calls REQs)" \
					[ "$calls" = 0 ]
			fi
			if ! gm_ours || [ $p = off ]; then
				check "gidmismatch: $l $p: no warning" [ "$w1" = "$w0" ]
				gm_ours && check "gidmismatch: $l $p: counters unchanged" \
					[ "$(gm_count mismatch)" = "$m0" -a "$(gm_count reject)" = "$r0" ]
				continue
			fi
			dmesg | grep 'IP-to-GID mismatch at port' | tail -n1 > /tmp/gm.$l.$p.log
			cat /tmp/gm.$l.$p.log
			check "gidmismatch: $l $p: one warning" [ $((w1 - w0)) = 1 ]
			case $p in warn) act="handled as before" ;; *) act="rejected with reason 12 (invalid GID)" ;; esac
			check "gidmismatch: $l $p: one short line names rxe1 port 1, both addresses, where 192.0.2.1 maps and what was done" \
				grep -q "rxe1: IP-to-GID mismatch at port 1: request from 192.0.2.100 for 192.0.2.1, which maps to rxe0 port 1 (eth0); $act\$" /tmp/gm.$l.$p.log
			check "gidmismatch: $l $p: gid_mismatch_count counts it" \
				[ "$(gm_count mismatch)" = $((m0 + 1)) ]
			grep cm_gid_mismatch $T/trace | tee /tmp/gm.$l.$p.trace
			if [ $p = reject -o $p = auto ]; then
				check "gidmismatch: $l $p: gid_reject_count counts it" \
					[ "$(gm_count reject)" = $((r0 + 1)) ]
				check "gidmismatch: $l $p: the tracepoint shows the reject and the ARI (rxe0's GID, 16 bytes)" \
					grep -q "device=rxe1 port=1 dst=192.0.2.1 src=192.0.2.100 .* mismatch owner=eth0 owner_device=rxe0 owner_port=1 expected_gid=0000:0000:0000:0000:0000:ffff:c000:0201 policy=$p action=reject ari_len=16" /tmp/gm.$l.$p.trace
			else
				check "gidmismatch: $l $p: no reject counted" \
					[ "$(gm_count reject)" = "$r0" ]
				check "gidmismatch: $l $p: the tracepoint shows the report" \
					grep -q "device=rxe1 port=1 .* mismatch owner=eth0 owner_device=rxe0 .* policy=$p action=report" /tmp/gm.$l.$p.trace
			fi
		done
	done
	# gid_mismatch_notify: eth0 announces 192.0.2.1, the client heals.
	if gm_ours; then
		echo auto > "$CFS/rxe1/ports/1/gid_mismatch"
		echo 1 > "$CFS/rxe1/ports/1/gid_mismatch_notify"
		gm_serve notify "$(addr_of 0)"
		echo 0 > "$CFS/rxe1/ports/1/gid_mismatch_notify"
	fi

	# A device that appears under a bound listener gets its guard too.
	readd_rxe1() {
		run $RDMA link del rxe1 && rdma_add rxe1 rxe eth1
		sleep 1
	}
	gm_serve readd "$(addr_of 0)" readd_rxe1
	# The new rxe1 starts with policy auto and fresh counters.
	gm_ours && check "gidmismatch: re-added rxe1: the bound listener's REQ is counted and rejected" \
		[ "$(gm_count mismatch)" = 1 -a "$(gm_count reject)" = 1 ]
	gm_ours && echo 0 > $T/events/rdma_cma/cm_gid_mismatch/enable
	if gm_ours; then
		rdma-cm-doctor > /tmp/gm.doctor 2>&1
		echo $? > /tmp/gm.doctor.rc
		sed 's/^/[doctor] /' /tmp/gm.doctor
		check "gidmismatch: rdma-cm-doctor reports rxe1's mismatch counters (exit 1)" \
			grep -q 'rxe1 port 1 received 1 connection request(s) for an IP address that this host maps' /tmp/gm.doctor
	fi
	# burst: 12 misdirected REQs, then one more after the interval.
	if gm_ours; then
		echo warn > "$CFS/rxe1/ports/1/gid_mismatch"
		# The rate limit's window starts at the first line after the
		# last one ended: let the rounds' window end, so that the
		# burst's first REQ starts one (the interval is what is tested).
		sleep 6
		w0=$(gm_warnings)
		gm_serve burst "$(addr_of 0)"
		w1=$(gm_warnings)
		dmesg | grep 'earlier reports suppressed' | sed 's/^/[server burst] /'
		sup=$(dmesg | sed -n 's/.*IP-to-GID mismatch.* (\([0-9]*\) earlier reports suppressed)$/\1/p' | tail -n1)
		# 5 lines per 5 s: the 6th REQ within 5 s of the first is
		# suppressed.  A machine slower than that suppresses nothing,
		# which the kernel log's timestamps show.
		span=$(dmesg | grep 'IP-to-GID mismatch at port' | tail -n $((w1 - w0)) |
			sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p' |
			awk 'NR == 1 { t1 = $1 } NR == 6 { print $1 - t1 }')
		if [ -n "$sup" ]; then
			check "gidmismatch: burst: the warning after the interval says how many were suppressed ($sup)" \
				[ "$sup" -ge 1 ]
		else
			check "gidmismatch: burst: nothing suppressed, as the 6th REQ came ${span:-?} s after the first (>= 5 s)" \
				awk -v s="${span:-0}" 'BEGIN { exit !(s >= 5) }'
		fi
		check "gidmismatch: burst: 13 mismatches, $((w1 - w0)) warnings: each logged or counted as suppressed" \
			[ $((w1 - w0 + ${sup:-0})) = 13 ]
	fi
}

gm_server_addresses() {
	# sameaddr: 192.0.2.9 on both NICs, eth0's added last so that the
	# address lookup meets it first.  A REQ for it at either port is where
	# the IP stack maps the address: stock accepts both, so must ours under
	# the strictest policy, without a warning.
	run $IP addr add 192.0.2.9/32 dev eth1
	run $IP addr add 192.0.2.9/32 dev eth0
	for d in rxe0 rxe1; do
		wait_for 10 grep -qs 0000:0000:0000:0000:0000:ffff:c000:0209 \
			/sys/class/infiniband/$d/ports/1/gids/*
		gm_ours && echo reject > "$CFS/$d/ports/1/gid_mismatch"
	done
	w0=$(gm_warnings)
	GM_N=2 gm_serve sameaddr 0.0.0.0
	check "gidmismatch: sameaddr: no warning for a REQ at either port that holds the address" \
		[ "$(gm_warnings)" = "$w0" ]
	run $IP addr del 192.0.2.9/32 dev eth0
	run $IP addr del 192.0.2.9/32 dev eth1

	# vlan: 198.51.100.1 on eth0.100 and .2 on eth1.100, VLAN uppers whose
	# GIDs carry the upper.  A REQ for .1 that reaches rxe1 through
	# eth1.100 is a mismatch; the expected port is found through eth0.100's
	# lower netdev: rxe0 port 1, with its GID of eth0.100.  The REQ for .1
	# through eth0.100 is none.
	for i in 0 1; do
		run $IP link add link eth$i name eth$i.100 type vlan id 100
		run $IP addr add 198.51.100.$((i + 1))/24 dev eth$i.100
		run $IP link set eth$i.100 up
		wait_for 10 grep -qs "0000:0000:0000:0000:0000:ffff:c633:640$((i + 1))" \
			/sys/class/infiniband/rxe$i/ports/1/gids/*
	done
	gm_round vlan 0.0.0.0 "198.51.100.1 maps to rxe0 port 1 through eth0.100" \
		'rxe1: IP-to-GID mismatch at port 1: request from [^ ]* for 198.51.100.1, which maps to rxe0 port 1 (eth0.100); rejected' \
		'owner=eth0.100 owner_device=rxe0 owner_port=1 expected_gid=0000:0000:0000:0000:0000:ffff:c633:6401 policy=reject action=reject ari_len=16'
	for i in 0 1; do run $IP link del eth$i.100; done

	# ipv6: fd00::1 on eth0, fd00::2 on eth1.  A REQ for fd00::1 whose
	# DGID is rxe1's GID fd00::2 is a mismatch: fd00::1 maps to rxe0 port
	# 1, GID fd00::1.  The REQ for fd00::1 through neighbour discovery,
	# which only eth0 answers, is none.
	run $IP -6 addr add fd00::1/64 dev eth0 nodad
	run $IP -6 addr add fd00::2/64 dev eth1 nodad
	rxe_fixed || rxe_guard6 add fd00::1 fd00::2
	wait_for 10 grep -qs "fd00:0000:0000:0000:0000:0000:0000:0001" /sys/class/infiniband/rxe0/ports/1/gids/*
	wait_for 10 grep -qs "fd00:0000:0000:0000:0000:0000:0000:0002" /sys/class/infiniband/rxe1/ports/1/gids/*
	gm_round ipv6 :: "fd00::1 maps to rxe0 port 1, GID fd00::1 (eth0)" \
		'rxe1: IP-to-GID mismatch at port 1: request from [^ ]* for fd00::1, which maps to rxe0 port 1 (eth0); rejected' \
		'owner=eth0 owner_device=rxe0 owner_port=1 expected_gid=fd00:0000:0000:0000:0000:0000:0000:0001 policy=reject action=reject ari_len=16'
	rxe_fixed || rxe_guard6 del fd00::1 fd00::2
	run $IP -6 addr del fd00::1/64 dev eth0
	run $IP -6 addr del fd00::2/64 dev eth1

	# vrf: fd00:200::1 on eth0.200, a VLAN upper of eth0 enslaved to VRF
	# blue, fd00::2 on eth1.  A REQ for fd00:200::1 whose DGID is rxe1's
	# GID fd00::2 arrives at eth1, in the default L3 domain, where the IP
	# stack has no fd00:200::1 either: the owner is looked for in the
	# arrival netdev's domain only, so the REQ is for no local netdev,
	# and no ARI names a port of another domain (VRFs may hold the same
	# address).  (A REQ at a VRF's netdev, whose owner is then looked for
	# among that VRF's netdevs, cannot be tried: rxe takes no RoCE packet
	# that arrives at a VRF's netdev, which the VRF hands on as its own.)
	run $IP link add blue type vrf table 200
	run $IP link set blue up
	run $IP link add link eth0 name eth0.200 type vlan id 200
	run $IP link set eth0.200 master blue
	run $IP -6 addr add fd00:200::1/64 dev eth0.200 nodad
	run $IP link set eth0.200 up
	run $IP -6 addr add fd00::2/64 dev eth1 nodad
	# rxe1's REJ goes back to the client's fd00:200::100 through eth1.
	run $IP -6 route add fd00:200::100/128 dev eth1
	rxe_fixed || rxe_guard6 add fd00:200::1 fd00::2
	wait_for 10 grep -qs "fd00:0200:0000:0000:0000:0000:0000:0001" /sys/class/infiniband/rxe0/ports/1/gids/*
	wait_for 10 grep -qs "fd00:0000:0000:0000:0000:0000:0000:0002" /sys/class/infiniband/rxe1/ports/1/gids/*
	gm_round vrf :: "fd00:200::1, in VRF blue, maps to no netdev of eth1's domain" \
		'rxe1: IP-to-GID mismatch at port 1: request from [^ ]* for fd00:200::1, which maps to no local netdev; rejected' \
		'dst=fd00:200::1 .* not_local owner=- owner_device=- owner_port=0 .* policy=reject action=reject ari_len=0'
	rxe_fixed || rxe_guard6 del fd00:200::1 fd00::2
	run $IP -6 route del fd00:200::100/128 dev eth1
	run $IP -6 addr del fd00::2/64 dev eth1
	run $IP link del eth0.200
	run $IP link del blue

	# vrf4: the same for IPv4, whose address table keeps one netdev per
	# address whatever its VRF: 203.0.113.1 on eth0.201 in VRF blue only.
	# A REQ for it whose DGID is rxe1's GID of 192.0.2.2 arrives at eth1,
	# in the default domain, where no netdev holds it.
	run $IP link add blue type vrf table 200
	run $IP link set blue up
	run $IP link add link eth0 name eth0.201 type vlan id 201
	run $IP link set eth0.201 master blue
	run $IP addr add 203.0.113.1/24 dev eth0.201
	run $IP link set eth0.201 up
	# rxe1's REJ goes back to the client's 203.0.113.100 through eth1.
	run $IP route add 203.0.113.100/32 dev eth1
	wait_for 10 grep -qs "0000:0000:0000:0000:0000:ffff:cb00:7101" /sys/class/infiniband/rxe0/ports/1/gids/*
	gm_round vrf4 0.0.0.0 "203.0.113.1, in VRF blue, maps to no netdev of eth1's domain" \
		'rxe1: IP-to-GID mismatch at port 1: request from [^ ]* for 203.0.113.1, which maps to no local netdev; rejected' \
		'dst=203.0.113.1 .* not_local owner=- owner_device=- owner_port=0 .* policy=reject action=reject ari_len=0'
	run $IP route del 203.0.113.100/32 dev eth1
	run $IP link del eth0.201
	run $IP link del blue
}

# gm_connect NAME ARGS...: one round's client side.
gm_connect() {
	name=$1
	shift
	wait_peer 9401
	run gid_client -c "$RCG_peer" -p 7490 "$@" > /tmp/gm.$name.cli 2>&1
	sed "s/^/[client $name] /" /tmp/gm.$name.cli
	signal_peer 9402
}

# gm_misdirect NAME ADDR DGID DEV: the client sends a REQ for ADDR whose
# DGID is rxe1's GID of the address DGID, the neighbour entry of ADDR on
# DEV planted on rxe1's MAC; stock's netdev lookup rejects it with 28,
# ours with 12 (the server's policy is reject).  The entry goes again.
gm_misdirect() {
	run $IP neigh replace "$2" lladdr "$mac1" dev "$4" nud permanent
	run gid_client -c "$2" -p 7490 -d "$3" > /tmp/gm.$1.cli 2>&1
	sed "s/^/[client $1] /" /tmp/gm.$1.cli
	want="rejected status=12"
	[ "$server" = stock ] && want="rejected status=28"
	check "gidmismatch: ${1%1}: a REQ for $2 at rxe1 through $4: $want" \
		grep -q "^GID $want" /tmp/gm.$1.cli
	run $IP neigh del "$2" dev "$4"
}

gidmismatch_client() {
	gm_part_known || return 0
	srv0=$RCG_peer srv1=$(echo "$RCG_peer" | sed 's/\.1$/.2/')
	# This test looks at what the server does: our client would retry a
	# REJ 12 by itself (gidretry.sh tests that), so it must not here.
	if [ "$(my_module)" != stock ]; then
		mkdir -p "$CFS/rxe0"
		run sh -c "echo 0 > $CFS/rxe0/ports/1/gid_reject_retries"
	fi
	run $IP neigh flush dev eth0
	server=$(echo "$RCG_module" | cut -d/ -f1)
	gm_part 1 && gm_client_policies
	gm_part 2 && gm_client_addresses

	if [ "$server" = stock ]; then
		demo "wildcard listener: REJ 28, bound: REJ 8; nothing logged"
	else
		demo "logged + counted; REJ 12 with ARI = rxe0's GID"
	fi
}

# gm_macs: srv0's and srv1's MACs, eth0's and eth1's (the server has
# arp_ignore=1 by now).
gm_macs() {
	ping -c 1 -W 2 "$srv0" > /dev/null
	ping -c 1 -W 2 "$srv1" > /dev/null
	smac0=$($IP neigh show "$srv0" dev eth0 | sed -n 's/.*lladdr \([^ ]*\).*/\1/p')
	mac1=$($IP neigh show "$srv1" dev eth0 | sed -n 's/.*lladdr \([^ ]*\).*/\1/p')
}

gm_client_policies() {
	gm_connect control
	check "gidmismatch: a correctly addressed connect is established" \
		grep -q '^GID established' /tmp/gm.control.cli
	# eth1's MAC plants the stale entry that a lost gratuitous ARP leaves.
	gm_macs
	for l in wildcard bound; do
		for p in $GM_POLICIES; do
			$IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
			gm_connect $l.$p -d "$srv1"
			want=$(gm_expect $l $p)
			[ "$server" = stock ] && want=$(gm_expect $l off)
			check "gidmismatch: $l $p: the client sees: $want" \
				grep -q "^GID $want" /tmp/gm.$l.$p.cli
		done
	done
	if [ "$server" != stock ]; then
		$IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
		gm_connect notify -d "$srv1"
		check "gidmismatch: notify: the client sees: rejected status=12" \
			grep -q "^GID rejected status=12" /tmp/gm.notify.cli
		for i in $(seq 1 30); do
			mac0=$($IP neigh show "$srv0" dev eth0 | sed -n 's/.*lladdr \([^ ]*\).*/\1/p')
			[ -n "$mac0" ] && [ "$mac0" != "$mac1" ] && break
			sleep 0.1
		done
		run $IP neigh show "$srv0" dev eth0
		check "gidmismatch: notify: the server's announcement healed the client's entry for $srv0 ($mac1 -> $mac0)" \
			[ -n "$mac0" -a "$mac0" != "$mac1" ]
	fi
	$IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
	gm_connect readd -d "$srv1"
	# Without gid_mismatch_notify nothing heals the entry so soon.
	sleep 1
	run $IP neigh show "$srv0" dev eth0
	check "gidmismatch: without notify the client's entry for $srv0 stays on $mac1" \
		gm_neigh_is "$srv0" "$mac1"
	want="rejected status=12"
	[ "$server" = stock ] && want="rejected status=8"
	check "gidmismatch: a device re-added under a bound listener: the client sees: $want" \
		grep -q "^GID $want" /tmp/gm.readd.cli
	if [ "$server" != stock ]; then
		wait_peer 9401
		# At once, so that the burst falls in one interval of 5 s.
		$IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
		for i in $(seq 1 12); do
			gid_client -c "$RCG_peer" -p 7490 -d "$srv1" > /tmp/gm.burst.$i.cli 2>&1 &
		done
		wait
		sleep 6
		$IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
		gid_client -c "$RCG_peer" -p 7490 -d "$srv1" > /tmp/gm.burst.13.cli 2>&1
		signal_peer 9402
		check "gidmismatch: burst: 13 misdirected connects, each rejected" \
			[ "$(cat /tmp/gm.burst.*.cli | grep -c '^GID rejected')" = 13 ]
	fi
}

gm_client_addresses() {
	# sameaddr: the server holds 192.0.2.9 on both NICs; steer a connect
	# to each with a permanent entry.
	wait_peer 9401
	[ -n "$mac1" ] || gm_macs
	n=0
	for mac in "$smac0" "$mac1"; do
		run $IP neigh replace 192.0.2.9 lladdr "$mac" dev eth0 nud permanent
		run gid_client -c 192.0.2.9 -p 7490 > /tmp/gm.sameaddr$n.cli 2>&1
		sed "s/^/[client sameaddr$n] /" /tmp/gm.sameaddr$n.cli
		check "gidmismatch: sameaddr: a connect to 192.0.2.9 that lands on eth$n ($mac) is established" \
			grep -q '^GID established' /tmp/gm.sameaddr$n.cli
		n=$((n + 1))
	done
	run $IP neigh del 192.0.2.9 dev eth0
	signal_peer 9402

	# vlan: first a REQ for 198.51.100.1 misdirected to eth1.100 (its
	# DGID rxe1's GID of eth1.100, 198.51.100.2), then one through ARP.
	run $IP link add link eth0 name eth0.100 type vlan id 100
	run $IP addr add 198.51.100.100/24 dev eth0.100
	run $IP link set eth0.100 up
	wait_peer 9401
	gm_misdirect vlan1 198.51.100.1 198.51.100.2 eth0.100
	run gid_client -c 198.51.100.1 -p 7490 > /tmp/gm.vlan0.cli 2>&1
	sed "s/^/[client vlan0] /" /tmp/gm.vlan0.cli
	check "gidmismatch: vlan: a connect to 198.51.100.1 through eth0.100 is established" \
		grep -q '^GID established' /tmp/gm.vlan0.cli
	signal_peer 9402
	run $IP link del eth0.100

	# ipv6: see the server.
	run $IP -6 addr add fd00::100/64 dev eth0 nodad
	wait_peer 9401
	gm_misdirect ipv6 fd00::1 fd00::2 eth0
	run gid_client -c fd00::1 -p 7490 > /tmp/gm.ipv6ok.cli 2>&1
	sed "s/^/[client ipv6ok] /" /tmp/gm.ipv6ok.cli
	check "gidmismatch: ipv6: a connect to fd00::1 through neighbour discovery is established" \
		grep -q '^GID established' /tmp/gm.ipv6ok.cli
	signal_peer 9402
	run $IP -6 addr del fd00::100/64 dev eth0

	# vrf: see the server.  fd00::100 lets rxe0 reach the DGID fd00::2.
	run $IP -6 addr add fd00:200::100/64 dev eth0 nodad
	run $IP -6 addr add fd00::100/64 dev eth0 nodad
	wait_peer 9401
	gm_misdirect vrf fd00:200::1 fd00::2 eth0
	signal_peer 9402
	run $IP -6 addr del fd00:200::100/64 dev eth0
	run $IP -6 addr del fd00::100/64 dev eth0

	# vrf4: see the server.
	run $IP addr add 203.0.113.100/24 dev eth0
	wait_peer 9401
	gm_misdirect vrf4 203.0.113.1 192.0.2.2 eth0
	signal_peer 9402
	run $IP addr del 203.0.113.100/24 dev eth0
}
