# SPDX-License-Identifier: GPL-2.0
#
# bench: the measurements of make bench (scripts/bench, issue 14), not a
# test group of make check's selftests: stock rdma_cm and ours alternate
# on both VMs of one boot of the stock kernel, round after round.
#
#   client  eth0 192.0.2.100 ----+---- eth0 192.0.2.1  rxe0   server
#   rxe0                         +---- eth1 192.0.2.2  rxe1   (one subnet,
#                                                             arp_ignore=1)
#
# The VMs boot with rcg.module=ours (our rdma_cm.ko under updates/, the
# stock one under kernel/).  For each round and each mode of
# rcg.bench_modes (ABAB...), both VMs swap rdma_cm (rmmod rdma_ucm
# rdma_cm, then insmod of the stock .ko or modprobe of ours with the
# package's settings from rdma-cm-guard-apply: gid_mismatch=auto,
# read_limit_clamp=1, gid_reject_retries=2; mode reject: ours with
# gid_mismatch=reject on every port), then the client measures:
#
#   cmtime     cmtime -c rcg.bench_conns to a cmtime server on .1 (rdma-core
#              44's, which has no threaded mode); per step the
#              microseconds per connection
#   normal     cm_bench: rcg.bench_normal connects to .1, each the first
#              of its process as in every other case, time from
#              rdma_resolve_addr() to ESTABLISHED (median)
#   staleok    the client's entry for .1 'nud stale' on the right MAC
#              (eth0's), as after 30 s idle
#   stale      the entry for .1 'nud stale' on eth1's MAC: the REQ lands
#              on rxe1, which drops it; the time until ESTABLISHED or the
#              failure (stock: UNREACHABLE when ARP heals the entry)
#   mismatch   the entry planted as in gidretry.sh and the REQ misdirected
#              to rxe1's GID (cm_bench -d): rejected with 12 by our server,
#              retried by our client; stock's outcome is recorded as is
#   (rcg.bench_recovery=0: none of the recovery cases)
#   normal6, stale6, mismatch6   the same over IPv6 (rcg.bench_ipv6=0: not):
#              fd00::1 on eth0, fd00::2 on eth1, the client fd00::100; the
#              server drops IPv6 packets for one NIC's address that arrive
#              at the other before UDP (rxe_guard6: stock rxe oopses on
#              them, issue 15), as a RoCE NIC drops a DGID it lacks
#
# In the last round of each mode: the storm, rcg.bench_storm misdirected
# connects from rcg.bench_procs client processes at once; the server
# reports its rdma_cm warning lines per 5 s window and the most in any
# 5 s (dmesg time stamps between two marks it writes to /dev/kmsg at the
# burst's start and end) and its system and softirq CPU time during the
# burst (/proc/stat); the client each connect's outcome, the retries
# (counters, cm_gid_retry trace), ib_cm's REQ retransmissions and a
# normal connect right after the storm.
#
# In the last round of each mode, before the storm: the burst,
# rcg.bench_burst_runs runs (default 10) of rcg.bench_burst connects
# (default 100) at once, from as many cm_bench processes that start
# together (cm_bench -f), plain and misdirected (as mismatch) in turn:
# the wall time of each, ib_cm's REQ retransmissions and our retries.
#
# Every result is a "BENCH ..." line on the client's or server's console
# (scripts/bench turns them into the table and build/bench/bench.json).
# The test points only say that each measurement produced its numbers:
# make bench is a report, its ratios never fail anything.

B_CFS=/sys/kernel/config/rdma_cm
B_T=/sys/kernel/tracing
B_RMMOD=/usr/local/bin/rmmod

b_rounds() { echo "${RCG_bench_rounds:-3}"; }
b_modes() { echo "${RCG_bench_modes:-stock,ours}" | tr , ' '; }
b_ipv6() { [ "${RCG_bench_ipv6:-1}" = 1 ]; }
b_recovery() { [ "${RCG_bench_recovery:-1}" = 1 ]; }

# b_swap MODE: unload whatever rdma_cm is loaded and load MODE's: stock,
# ours (alias defaults: the package's settings), reject (ours, every port
# gid_mismatch=reject), off (ours as it loads: every feature off), or one
# of the package's settings alone on every port: clamp
# (read_limit_clamp=1), auto (gid_mismatch=auto), retries
# (gid_reject_retries=2).
b_swap() {
	# configfs groups of rdma_cm hold a reference to the module.
	for d in "$B_CFS"/*; do
		[ -d "$d" ] && rmdir "$d"
	done
	run $B_RMMOD rdma_ucm rdma_cm || return 1
	case $1 in
	stock)
		run $INSMOD "$(ls /lib/modules/"$(uname -r)"/kernel/drivers/infiniband/core/rdma_cm.ko*)" ||
			return 1
		[ ! -e /sys/module/rdma_cm/version ] || return 1
		;;
	ours|defaults|reject|off|clamp|auto|retries)
		# depmod puts updates/ ahead of the stock kernel/ tree.
		run $MODPROBE rdma_cm || return 1
		grep -q rdma-cm-guard /sys/module/rdma_cm/version || return 1
		;;
	*) echo "b_swap: unknown mode $1"; return 1 ;;
	esac
	run $MODPROBE rdma_ucm || return 1
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config
	case $1 in stock|off) return 0 ;; esac
	for d in $(ls /sys/class/infiniband); do mkdir -p "$B_CFS/$d"; done
	case $1 in
	clamp|auto|retries)
		for p in "$B_CFS"/*/ports/*; do
			case $1 in
			clamp) echo 1 > "$p/read_limit_clamp" ;;
			auto) echo auto > "$p/gid_mismatch" ;;
			retries) echo 2 > "$p/gid_reject_retries" ;;
			esac || return 1
		done
		port_settings | sed "s/^/[$RCG_role settings] /"
		return 0 ;;
	esac
	run /usr/local/bin/rdma-cm-guard-apply || return 1
	if [ "$1" = reject ]; then
		for p in "$B_CFS"/*/ports/*; do echo reject > "$p/gid_mismatch"; done
	fi
	port_settings | sed "s/^/[$RCG_role settings] /"
}

# b_port K N: the sync port of point N of step K (a round and mode).
b_port() { echo $((9600 + $1 * 8 + $2)); }

# b_cpu: system and softirq jiffies of /proc/stat's cpu line.
b_cpu() { awk '$1 == "cpu" { print $4, $8 }' /proc/stat; }
b_uptime() { cut -d' ' -f1 /proc/uptime; }
# b_retx: REQs that ib_cm retransmitted from rxe0 port 1 (-1: no counter).
b_retx() { cat /sys/class/infiniband/rxe0/ports/1/cm_tx_retries/req 2>/dev/null || echo -1; }

bench_server() {
	a=$(addr_of 0)
	# Each NIC answers ARP only for its own address: the fixture of
	# gidretry.sh, and what a two-NIC host needs (rdma-cm-doctor).
	sysctl -qw net.ipv4.conf.all.arp_ignore=1
	if b_ipv6; then
		run $IP -6 addr add fd00::1/64 dev eth0 nodad
		run $IP -6 addr add fd00::2/64 dev eth1 nodad
		rxe_fixed || rxe_guard6 add fd00::1 fd00::2
		wait_for 10 grep -qs "fd00:0000:0000:0000:0000:0000:0000:0001" /sys/class/infiniband/rxe0/ports/1/gids/*
		wait_for 10 grep -qs "fd00:0000:0000:0000:0000:0000:0000:0002" /sys/class/infiniband/rxe1/ports/1/gids/*
	fi
	rounds=$(b_rounds) k=0
	for r in $(seq 1 "$rounds"); do
		for m in $(b_modes); do
			k=$((k + 1))
			check "bench: round $r $m: rdma_cm swapped" b_swap "$m"
			echo "[server] # cmtime -b $a -p 7472 (again after each run); cm_bench -s $a -p 7601$(b_ipv6 && echo '; cm_bench -s fd00::1 -p 7602')"
			(while :; do cmtime -b "$a" -p 7472 || sleep 0.2; done) > /tmp/b.cmtime.$k 2>&1 &
			cmt=$!
			cm_bench -s "$a" -p 7601 > /tmp/b.srv.$k 2>&1 &
			srv=$!
			srv6=
			if b_ipv6; then
				cm_bench -s fd00::1 -p 7602 > /tmp/b.srv6.$k 2>&1 &
				srv6=$!
				wait_listen 7602
			fi
			wait_listen 7472 7601
			signal_peer "$(b_port $k 0)"
			if [ "$r" = "$rounds" ] && [ "${RCG_bench_storm:-1000}" -gt 0 ]; then
				bench_server_storm "$m" "$k"
			fi
			wait_peer "$(b_port $k 4)"
			kill $cmt $srv $srv6 2>/dev/null
			wait $cmt $srv $srv6 2>/dev/null
			kill $(pidof cmtime) 2>/dev/null
			while pidof cmtime > /dev/null; do sleep 0.1; done
			grep -vE '^(create|resolv|connect|disconnect|destroy|step|[a-z ]*:)' /tmp/b.cmtime.$k |
				sort | uniq -c | sed "s/^/[server cmtime $k] /" | head -n 20
		done
	done
	sysctl -qw net.ipv4.conf.all.arp_ignore=0
	! b_ipv6 || rxe_fixed || rxe_guard6 del fd00::1 fd00::2
}

# bench_server_storm MODE K: the server's side of the storm.
bench_server_storm() {
	sm=$1 sk=$2
	wait_peer "$(b_port $2 1)"
	# The marks give the burst's start and end on dmesg's clock, which
	# under TCG drifts from /proc/uptime's by seconds.
	echo "rdma-cm-guard bench: storm start" > /dev/kmsg
	c0=$(b_cpu) t0=$(b_uptime)
	j0=0
	[ "$1" = stock ] || j0=$(cat $B_CFS/rxe1/ports/1/gid_reject_count)
	signal_peer "$(b_port $2 2)"
	wait_peer "$(b_port $2 3)"
	c1=$(b_cpu) t1=$(b_uptime)
	echo "rdma-cm-guard bench: storm end" > /dev/kmsg
	j1=0
	[ "$1" = stock ] || j1=$(cat $B_CFS/rxe1/ports/1/gid_reject_count)
	dmesg > /tmp/b.dmesg.$2
	# rdma_cm's lines from the burst's start to its end: IP-to-GID
	# mismatch warnings (and a "callbacks suppressed" line, which the
	# rate limit no longer logs on its own),
	# per 5 s window from the start, and the most in any 5 s (sliding).
	win=$(tr -d '[]' < /tmp/b.dmesg.$2 | awk '
		/rdma-cm-guard bench: storm start/ { t0 = $1; on = 1; next }
		/rdma-cm-guard bench: storm end/ { t1 = $1; on = 0; next }
		on && /IP-to-GID mismatch/ { t[++n] = $1; w[n] = "w" }
		on && /cma_gid_report: [0-9]+ callbacks suppressed/ { t[++n] = $1; w[n] = "s" }
		END {
			last = int((t1 - t0) / 5)
			for (i = 1; i <= n; i++) {
				k = int((t[i] - t0) / 5); c[k]++
				if (w[i] == "s") sup[k]++
				if (k > last) last = k
				m = 0
				for (j = i; j <= n && t[j] < t[i] + 5; j++) m++
				if (m > max) max = m
			}
			for (i = 0; i <= last; i++) {
				a = a (i ? "," : "") (c[i] + 0); b = b (i ? "," : "") (sup[i] + 0)
			}
			printf "warn_windows=%s suppressed_windows=%s warn_max_5s=%d", a, b, max
		}')
	set -- $c0 $c1
	echo "BENCH storm-server mode=$sm wall_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')" \
		"sys_ms=$((($3 - $1) * 10)) softirq_ms=$((($4 - $2) * 10)) rejects=$((j1 - j0)) $win"
	grep -E 'IP-to-GID mismatch|callbacks suppressed' /tmp/b.dmesg.$sk | tail -n 5 | sed "s/^/[server storm dmesg] /"
	check "bench: storm $sm: server CPU time and warning lines recorded" [ -n "$win" ]
}

# b_median FILE: the median us of cm_bench's established connects.
b_median() {
	sed -n 's/^BENCH conn=[0-9]* result=established status=[-0-9]* us=\([0-9]*\)$/\1/p' "$1" |
		sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
# b_normal FILE ARGS: $normal normal connects, each the first of a cm_bench
# process, as the one connect of every other case is: a process's later
# connects are faster (its QP and CQ memory is warm).
b_normal() {
	f=$1
	shift
	: > "$f"
	for i in $(seq 1 "$normal"); do
		run cm_bench "$@" -t 60 >> "$f" 2>&1
	done
}
# b_one CASE FILE ROUND MODE [RETX0]: the BENCH line of a one-connect
# case; with RETX0 (b_retx before it) the REQs retransmitted since.
b_one() {
	line=$(grep '^BENCH conn=1 ' "$2")
	sed "s/^/[client $1] /" "$2"
	echo "BENCH recovery r=$3 mode=$4 case=$1 ${line#BENCH conn=1 }${5:+ req_retx=$(($(b_retx) - $5))}"
	[ -n "$line" ]
}

# b_cmtime_step FILE STEP: microseconds per connection of STEP in the
# output of cmtime (rdma-core 44: "step : total_ms max_ms min_us
# us/conn"; newer: "step avg/conn total(us) ...", avg/conn first).
b_cmtime_step() {
	awk -v s="$2" '
		{ line = $0; sub(/^ +/, "", line) }
		index(line, s) == 1 {
			rest = substr(line, length(s) + 1)
			if (rest !~ /^ *:? +[0-9]/) next
			sub(/^ *:? */, "", rest); n = split(rest, v, " ")
			if (n == 4) print v[4]; else if (n >= 6) print v[1]
			exit
		}' "$1"
}

# bench_cmtime K R MODE VARIANT ARGS...: one cmtime run, one BENCH line.
bench_cmtime() {
	k=$1 r=$2 m=$3 v=$4
	shift 4
	x0=$(b_retx)
	run timeout 900 cmtime -s "$srv0" -p 7472 -c "$conns" "$@" > /tmp/b.cmt.$k.$v 2>&1
	rc=$?
	x1=$(b_retx)
	grep -E ':|step' /tmp/b.cmt.$k.$v | sed "s/^/[client cmtime $m $v] /"
	a=$(b_cmtime_step /tmp/b.cmt.$k.$v "resolve addr")
	rt=$(b_cmtime_step /tmp/b.cmt.$k.$v "resolve route")
	c=$(b_cmtime_step /tmp/b.cmt.$k.$v "connect")
	[ -n "$c" ] || c=$(b_cmtime_step /tmp/b.cmt.$k.$v "cm connect")
	d=$(b_cmtime_step /tmp/b.cmt.$k.$v "disconnect")
	echo "BENCH cmtime r=$r mode=$m variant=$v conns=$conns rc=$rc resolve_addr=$a resolve_route=$rt connect=$c disconnect=$d req_retx=$((x1 - x0))"
	good=0
	[ $rc = 0 ] && [ -n "$a" ] && [ -n "$rt" ] && [ -n "$c" ] && [ -n "$d" ] && good=1
	checkd /tmp/b.cmt.$k.$v "bench: round $r $m: cmtime $v, $conns connections: a number for each step" [ $good = 1 ]
}

b_plant_right() { run $IP neigh replace "$srv0" lladdr "$mac0" dev eth0 nud reachable; }

# bench_client_burst MODE: N connects at once, plain, then misdirected
# through the stale entry as in the storm, RUNS times.
bench_client_burst() {
	m=$1 n=${RCG_bench_burst:-100} runs=${RCG_bench_burst_runs:-10}
	run $IP neigh replace "$srv1" lladdr "$mac1" dev eth0 nud permanent
	for i in $(seq 1 "$runs"); do
		for kind in plain misdirected; do
			if [ $kind = plain ]; then
				b_plant_right
				set --
			else
				run $IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
				set -- -d "$srv1"
			fi
			r0=0
			[ "$m" = stock ] || r0=$(cat $B_CFS/rxe0/ports/1/gid_retry_count)
			x0=$(b_retx)
			cm_bench -c "$srv0" -p 7601 -f "$n" -n 1 -t 60 "$@" > /tmp/b.burst 2>&1
			x1=$(b_retx)
			r1=0
			[ "$m" = stock ] || r1=$(cat $B_CFS/rxe0/ports/1/gid_retry_count)
			line=$(grep '^BENCH burst ' /tmp/b.burst)
			est=$(grep -c 'result=established' /tmp/b.burst)
			echo "BENCH burst mode=$m run=$i kind=$kind n=$n established=$est" \
				"${line#BENCH burst } req_retx=$((x1 - x0)) retries=$((r1 - r0))"
		done
	done
	b_plant_right
	run $IP neigh replace "$srv1" lladdr "$mac1" dev eth0 nud reachable
	check "bench: burst $m: $runs runs of $n connects at once, plain and misdirected, timed" \
		[ -n "$line" ]
}

# bench_client_storm MODE K: the client's side of the storm.
bench_client_storm() {
	m=$1 k=$2 n=${RCG_bench_storm:-1000} p=${RCG_bench_procs:-4}
	each=$(((n + p - 1) / p))
	# As gidretry.sh's gr_plant: .2's entry permanent (the misdirected
	# REQs go there), .1's stale on eth1's MAC.
	run $IP neigh replace "$srv1" lladdr "$mac1" dev eth0 nud permanent
	run $IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
	r0=0 f0=0
	if [ "$m" != stock ]; then
		r0=$(cat $B_CFS/rxe0/ports/1/gid_retry_count)
		f0=$(cat $B_CFS/rxe0/ports/1/gid_retry_failed_count)
		budget=$(cat $B_CFS/rxe0/ports/1/gid_reject_retries)
		echo > $B_T/trace
		echo 1 > $B_T/events/rdma_cma/cm_gid_retry/enable
	fi
	signal_peer "$(b_port $k 1)"
	wait_peer "$(b_port $k 2)"
	t0=$(awk '{ print int($1 * 1000) }' /proc/uptime)
	x0=$(b_retx)
	pids=
	for i in $(seq 1 "$p"); do
		timeout 1800 cm_bench -c "$srv0" -p 7601 -d "$srv1" -n "$each" -t 60 > /tmp/b.storm.$k.$i 2>&1 &
		pids="$pids $!"
	done
	echo "[client] # $p x cm_bench -c $srv0 -p 7601 -d $srv1 -n $each -t 60"
	wait $pids
	t1=$(awk '{ print int($1 * 1000) }' /proc/uptime)
	x1=$(b_retx)
	signal_peer "$(b_port $k 3)"
	cat /tmp/b.storm.$k.* > /tmp/b.storm.$k
	grep summary /tmp/b.storm.$k | sed "s/^/[client storm] /"
	sums=$(awk '/^BENCH summary/ {
			for (i = 3; i <= NF; i++) { split($i, kv, "="); s[kv[1]] += kv[2] }
			procs++
		}
		END {
			printf "procs=%d established=%d rejected=%d unreachable=%d other=%d timeout=%d",
				procs, s["established"], s["rejected"], s["unreachable"], s["other"], s["timeout"]
		}' /tmp/b.storm.$k)
	outcomes=$(sed -n 's/^BENCH conn=[0-9]* result=\([a-z_]*\) status=\([-0-9]*\).*/\1:\2/p' /tmp/b.storm.$k |
		sort | uniq -c | awk '{ printf "%s%s=%d", (NR > 1 ? "," : ""), $2, $1 }')
	slow=$(sed -n 's/^BENCH conn=.* us=\([0-9]*\)$/\1/p' /tmp/b.storm.$k | sort -n | tail -n1)
	retries=0 failed=0 maxatt=0 budget=${budget:-0}
	if [ "$m" != stock ]; then
		echo 0 > $B_T/events/rdma_cma/cm_gid_retry/enable
		retries=$(($(cat $B_CFS/rxe0/ports/1/gid_retry_count) - r0))
		failed=$(($(cat $B_CFS/rxe0/ports/1/gid_retry_failed_count) - f0))
		maxatt=$(grep -o 'attempt=[0-9]*' $B_T/trace | cut -d= -f2 | sort -n | tail -n1)
		grep cm_gid_retry $B_T/trace | tail -n 3 | sed 's/^ */[client storm trace] /'
	fi
	echo "BENCH storm mode=$m connects=$((each * p)) wall_ms=$((t1 - t0)) $sums outcomes=$outcomes" \
		"slowest_us=${slow:-0} retries=$retries retries_failed=$failed max_attempt=${maxatt:-0} budget=$budget req_retx=$((x1 - x0))"
	b_plant_right
	run $IP neigh replace "$srv1" lladdr "$mac1" dev eth0 nud reachable
	# A normal connect right after the storm.
	run cm_bench -c "$srv0" -p 7601 -t 60 > /tmp/b.after.$k 2>&1
	b_one after-storm /tmp/b.after.$k "$(b_rounds)" "$m"
	check "bench: storm $m: every client process reported, a connect after it has an outcome" \
		sh -c "[ \$(grep -c '^BENCH summary' /tmp/b.storm.$k) = $p ] && grep -q '^BENCH conn=1 ' /tmp/b.after.$k"
}

# b_neigh6 ADDR MAC NUD: the client's IPv6 neighbour entry for ADDR.
b_neigh6() { run $IP -6 neigh replace "$1" lladdr "$2" dev eth0 nud "$3"; }

# bench_client_ipv6 K ROUND MODE: normal, stale and mismatch over IPv6.
# The entries are planted, as for IPv4: fd00::2's permanent on eth1's MAC
# (where misdirected REQs go), fd00::1's on eth0's or, stale, eth1's.
bench_client_ipv6() {
	b_neigh6 fd00::2 "$mac1" permanent
	b_neigh6 fd00::1 "$mac0" reachable
	b_normal /tmp/b.normal6.$1 -c fd00::1 -p 7602
	sed "s/^/[client normal6] /" /tmp/b.normal6.$1
	med6=$(b_median /tmp/b.normal6.$1)
	echo "BENCH recovery r=$2 mode=$3 case=normal6 result=$([ -n "$med6" ] && echo established || echo failed) n=$normal" \
		"ok=$(grep -c 'result=established' /tmp/b.normal6.$1) us=${med6:-0}"

	b_neigh6 fd00::1 "$mac1" stale
	x0=$(b_retx)
	run cm_bench -c fd00::1 -p 7602 -t 120 > /tmp/b.stale6.$1 2>&1
	b_one stale6 /tmp/b.stale6.$1 $2 $3 "$x0"
	ok1=$?

	b_neigh6 fd00::1 "$mac1" stale
	x0=$(b_retx)
	run cm_bench -c fd00::1 -p 7602 -d fd00::2 -t 60 > /tmp/b.mismatch6.$1 2>&1
	b_one mismatch6 /tmp/b.mismatch6.$1 $2 $3 "$x0"
	ok2=$?
	b_neigh6 fd00::1 "$mac0" reachable
	good=0
	[ -n "$med6" ] && [ $ok1 = 0 ] && [ $ok2 = 0 ] && good=1
	check "bench: round $2 $3: IPv6 normal ($med6 us), stale and mismatch connects have an outcome" [ $good = 1 ]
}

bench_client() {
	srv0=$RCG_peer srv1=$(echo "$RCG_peer" | sed 's/\.1$/.2/')
	conns=${RCG_bench_conns:-500}
	normal=${RCG_bench_normal:-5}
	rounds=$(b_rounds) k=0
	# rdma-core 44's cmtime (Debian 12) has no threaded mode.  Newer
	# ones have (-n), with another command line (-L, -C: an OOB mesh),
	# which this script does not speak yet: it says so and runs none.
	threads=0
	if cmtime -h 2>&1 | grep -q 'num_threads'; then
		echo "[client] this cmtime has a threaded mode and a command line that bench.sh does not speak"
		threads=unsupported
	fi
	echo "BENCH config rounds=$rounds modes=$(b_modes | tr ' ' ,) conns=$conns normal=$normal" \
		"storm=${RCG_bench_storm:-1000} procs=${RCG_bench_procs:-4} burst=${RCG_bench_burst:-100} burst_runs=${RCG_bench_burst_runs:-10} ipv6=${RCG_bench_ipv6:-1} recovery=${RCG_bench_recovery:-1} cmtime_threads=$threads kernel=$(uname -r)"
	for r in $(seq 1 "$rounds"); do
		for m in $(b_modes); do
			k=$((k + 1))
			check "bench: round $r $m: rdma_cm swapped" b_swap "$m"
			wait_peer "$(b_port $k 0)"
			if [ $k = 1 ]; then
				ping -c 1 -W 2 "$srv0" > /dev/null
				ping -c 1 -W 2 "$srv1" > /dev/null
				mac0=$($IP neigh show "$srv0" dev eth0 | sed -n 's/.*lladdr \([^ ]*\).*/\1/p')
				mac1=$($IP neigh show "$srv1" dev eth0 | sed -n 's/.*lladdr \([^ ]*\).*/\1/p')
				echo "[client] $srv0 is at $mac0, $srv1 at $mac1"
				if b_ipv6; then
					run $IP -6 addr add fd00::100/64 dev eth0 nodad
					wait_for 10 grep -qs "fd00:0000:0000:0000:0000:0000:0000:0100" /sys/class/infiniband/rxe0/ports/1/gids/*
				fi
			fi
			bench_cmtime $k $r $m plain

			if b_recovery; then
				bench_client_recovery $k $r $m
				! b_ipv6 || bench_client_ipv6 $k $r $m
			fi

			if [ "$r" = "$rounds" ] && [ "${RCG_bench_burst:-100}" -gt 0 ]; then
				bench_client_burst "$m"
			fi
			if [ "$r" = "$rounds" ] && [ "${RCG_bench_storm:-1000}" -gt 0 ]; then
				bench_client_storm "$m" "$k"
			fi
			signal_peer "$(b_port $k 4)"
		done
	done
}

# bench_client_recovery K ROUND MODE: normal, stale-ok, stale, mismatch.
bench_client_recovery() {
	k=$1 r=$2 m=$3
	b_plant_right
	b_normal /tmp/b.normal.$k -c "$srv0" -p 7601
	sed "s/^/[client normal] /" /tmp/b.normal.$k
	med=$(b_median /tmp/b.normal.$k)
	echo "BENCH recovery r=$r mode=$m case=normal result=$([ -n "$med" ] && echo established || echo failed) n=$normal" \
		"ok=$(grep -c 'result=established' /tmp/b.normal.$k) us=${med:-0}"

	# Stale but right: what soliciting before use would cost.
	run $IP neigh replace "$srv0" lladdr "$mac0" dev eth0 nud stale
	x0=$(b_retx)
	run cm_bench -c "$srv0" -p 7601 -t 60 > /tmp/b.staleok.$k 2>&1
	b_one staleok /tmp/b.staleok.$k $r $m "$x0"
	ok1=$?

	# Stale and wrong: the entry points at the server's eth1.
	run $IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
	x0=$(b_retx)
	run cm_bench -c "$srv0" -p 7601 -t 120 > /tmp/b.stale.$k 2>&1
	b_one stale /tmp/b.stale.$k $r $m "$x0"
	ok2=$?
	b_plant_right

	# Mismatch: the REQ misdirected to rxe1 (gidretry.sh).
	run $IP neigh replace "$srv1" lladdr "$mac1" dev eth0 nud permanent
	run $IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
	x0=$(b_retx)
	run cm_bench -c "$srv0" -p 7601 -d "$srv1" -t 60 > /tmp/b.mismatch.$k 2>&1
	b_one mismatch /tmp/b.mismatch.$k $r $m "$x0"
	ok3=$?
	b_plant_right
	run $IP neigh replace "$srv1" lladdr "$mac1" dev eth0 nud reachable
	good=0
	[ -n "$med" ] && [ $ok1 = 0 ] && [ $ok2 = 0 ] && [ $ok3 = 0 ] && good=1
	check "bench: round $r $m: normal ($med us), stale-right, stale and mismatch connects have an outcome" [ $good = 1 ]
}
