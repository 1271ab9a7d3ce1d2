# SPDX-License-Identifier: GPL-2.0
#
# icount: make bench's instruction counts (scripts/bench, issue 32), not a
# test group of make check's selftests.  One VM of the stock Debian 6.12
# kernel, booted alone (rcg.solo=1) under QEMU's -icount shift=0,sleep=off
# (rcg.icount=1): its clock advances one nanosecond per instruction, so a
# time measured in it is the instructions that the kernel, librdmacm and
# the tools executed, whatever the host's load.  Both ends of every
# connection are in the VM:
#
#   cmtime client and server -- rxe0 -- eth0 192.0.2.1 --+ rxe loopback:
#   cm_bench -c .1 -d .2      -- rxe1 -- eth1 192.0.2.2 --+ no wire
#   (the storm, by ic_route)
#
# For each round and each mode of rcg.ic_modes, rdma_cm is swapped (b_swap
# of bench.sh: stock; off, ours as it loads, every feature off; defaults,
# the package's settings; reject, defaults with gid_mismatch=reject on
# every port; clamp, auto, retries: one setting alone).  Round R starts
# at the mode after the one that started round R-1, so that no mode is
# always first or always follows the same one.  Round 0, which
# scripts/bench leaves out, runs as the others do: the rounds that came
# first after boot came out apart from the later ones
# (Documentation/developing.md, the icount table).  User space runs
# without address space randomization (rcg.ic_aslr=1 keeps it): where a
# process's stack and heap land changes the instructions of its copies.
# Then, in each mode:
#
#   seq       rcg.ic_conns connects one at a time (cm_bench -S), in
#             rcg.ic_passes runs each after a swap and 50 unmeasured
#             connects (ic_seq): per step, the median connect's.  A step
#             ends at the client's event: what the server does after it,
#             in the 10 ms between connects, is in no step (cmtime's
#             tables have it).  Client and server run SCHED_FIFO, the
#             client above the server, and the client sleeps 1 ms
#             between two steps (ic_options): each step then takes the
#             same course in every round, from its call to its event.
#   plain     cmtime -c rcg.ic_conns (Debian 12's, rdma-core 44): per step,
#             the step's time over all connections divided by their
#             number: everything the VM ran meanwhile, the client's
#             sched_yield() loop that waits for the step's end included
#   threads   the same with cmtime-threads -n rcg.ic_threads (rdma-core
#             56's cmtime, whose calls a pool of threads issues:
#             selftests/rdma_cm/build-cmtime), when it was built
#   storm     rcg.ic_storm connects to 192.0.2.1 that leave by rxe1
#             (ic_route) misdirected to rxe1's GID (cm_bench -d): each REQ
#             lands on rxe1 while 192.0.2.1 belongs to eth0, and the
#             passive side rejects it (stock and off: ib_cm, with 8, as
#             rdma_cm listens on rxe0 only; ours with a port that checks
#             requests: rdma_cm, with 12 and the GID in the ARI, through
#             the guard listen of dkms/0002).  ftrace's function graph
#             times ib_cm's work item of each REQ (cm_work_handler, in
#             which cm_req_handler is inlined: it runs the RDMA CM's
#             handler and posts the REJ): the median per REQ.  The
#             client's port has no retries (gid_reject_retries=0, after
#             the mode's other runs), so that each connect is one REQ.
#   graph     with rcg.ic_graph=FUNC,...: ic_graph.
#
# What counts: QEMU counts each iteration of a REP string instruction;
# run-vms takes ERMS and FSRM from the CPU, so that the kernel and glibc
# copy and clear with loops of instructions, not REP MOVSB/STOSB.  A step
# that waits for a timer counts the guest clock's leap over the wait.
# First, icount_cal times a loop of known length: the clock must count
# instructions, or no figure means anything.  Every result is a
# "BENCH ic-..." line on the console (scripts/bench makes the table).

IC_T=/sys/kernel/tracing

ic_rounds() { echo "${RCG_ic_rounds:-5}"; }

# ic_filter [-some] FUNC...: the function graph on these functions only,
# set before the tracer, so that no other call site is patched meanwhile.
# Fails unless each was taken (with -some: one; ours has functions that
# stock lacks): an empty filter would trace every function.
ic_filter() {
	_need=
	[ "$1" != -some ] || { _need=1; shift; }
	_need=${_need:-$#}
	echo 0 > $IC_T/tracing_on
	echo nop > $IC_T/current_tracer
	echo > $IC_T/set_ftrace_filter
	for f; do echo "$f" >> $IC_T/set_ftrace_filter 2>/dev/null; done
	[ "$(grep -c . $IC_T/set_ftrace_filter)" -ge "$_need" ] || {
		echo "[$RCG_role] ftrace filter: $(tr '\n' ' ' < $IC_T/set_ftrace_filter), not all of $*"
		echo > $IC_T/set_ftrace_filter
		return 1
	}
	echo function_graph > $IC_T/current_tracer
	echo > $IC_T/trace
}

# ic_unfilter: no tracer, no filter.
ic_unfilter() {
	echo 0 > $IC_T/tracing_on
	echo nop > $IC_T/current_tracer
	echo > $IC_T/set_ftrace_filter
}

# ic_us_ns: the durations (" 1.234 us ", or " 1234567 us " from 1 s) of
# the trace lines on stdin, in ns.
ic_us_ns() {
	sed -n 's/.* \([0-9][0-9]*\(\.[0-9]*\)\{0,1\}\) us .*/\1/p' |
		awk '{ printf "%d\n", $1 * 1000 + 0.5 }'
}

# ic_mode_list R: the modes in round R's order, rotated by R - 1 (round 0
# starts at the last mode).
ic_mode_list() {
	_r=$1
	set -- $(ic_modes)
	_k=$((((_r - 1) % $# + $#) % $#))
	while [ $_k -gt 0 ]; do
		_f=$1
		shift
		set -- "$@" "$_f"
		_k=$((_k - 1))
	done
	echo "$@"
}
ic_modes() { echo "${RCG_ic_modes:-stock,off,defaults,reject}" | tr , ' '; }

# seq's cm_bench options (icount_server sets them): ic_srv and ic_cli run
# the server and the client SCHED_FIFO, at 1 and 2 (-P), unless
# rcg.ic_fifo=0: each then runs as soon as an event wakes it, whatever
# the fair scheduler's state, which otherwise decided whether a woken
# process ran before or after the rest of a worker's or the other
# process's work, and moved a step's median by thousands of instructions
# from one round to the next.  ic_gap (-G) makes the client sleep
# rcg.ic_gap microseconds (1000; 0: none) between two steps of a connect,
# in which what the last step set going and did not wait for (the
# server's handling of ESTABLISHED, the rest of its rdma_destroy_id()
# after the DREP, deferred work) runs, not in the next step; the guest's
# clock leaps over the sleep.  Each step then starts on a CPU woken from
# idle: the figures are not comparable with those of runs without it.
ic_options() {
	ic_srv='' ic_cli='' ic_gap=''
	[ "${RCG_ic_fifo:-1}" = 0 ] || { ic_srv="-P 1"; ic_cli="-P 2"; }
	[ "${RCG_ic_gap:-1000}" = 0 ] || ic_gap="-G ${RCG_ic_gap:-1000}"
}

# ic_cal: icount_cal's runs on the console, then the lowest and highest
# ratio of ns to instructions.
ic_cal() {
	icount_cal 25000000 > /tmp/ic.cal 2>&1
	sed "s/^/[$RCG_role] /" /tmp/ic.cal >&2
	awk '/^BENCH icount-cal/ {
			for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			r = v["ns"] / v["insns"]
			if (!n++ || r < lo) lo = r
			if (r > hi) hi = r
		}
		END { if (n) printf "runs=%d min=%.5f max=%.5f\n", n, lo, hi }' /tmp/ic.cal
}

# ic_settle: what earlier runs left to do (ib_cm's time wait, the RDMA
# CM's and rxe's deferred destruction, RCU) is done before a measurement
# starts: 3 s of the guest's clock, which leaps while the VM idles.
ic_settle() { sleep 3; }

# ic_step FILE STEP CONNS: microseconds per connection of STEP in cmtime's
# output, the step's time over all connections divided by their number:
# rdma-core 44's "us / conn" (the 4th of "step : total_ms max_ms min_us
# us/conn"), or rdma-core 56's "total(us)" (the 2nd of "step avg/iter
# total(us) us/conn sum(us) max(us) min(us)", in whole microseconds)
# divided by CONNS.  Only the first table of the output: cmtime 56 goes on
# with a test without QPs.
ic_step() {
	awk -v s="$2" -v n="$3" '
		{ line = $0; sub(/^ +/, "", line) }
		index(line, s) == 1 {
			rest = substr(line, length(s) + 1)
			if (rest !~ /^ *:? +[0-9]/) next
			sub(/^ *:? */, "", rest); k = split(rest, v, " ")
			if (k == 4) printf "%.3f\n", v[4]; else if (k >= 6) printf "%.3f\n", v[2] / n
			exit
		}' "$1"
}

# ic_cmtime R MODE VARIANT BIN [ARGS...]: one run of cmtime BIN against a
# server of the same BIN on 192.0.2.1, one BENCH line.
ic_cmtime() {
	r=$1 m=$2 v=$3 bin=$4 port=7472
	shift 4
	[ "$v" = plain ] || port=7473
	a=$(addr_of 0)
	case $v in
	plain) (while :; do cmtime -b "$a" -p $port || sleep 0.2; done) > /tmp/ic.srv 2>&1 & ;;
	*) "$bin" -b "$a" -p $port -c "$conns" "$@" > /tmp/ic.srv 2>&1 & ;;
	esac
	srv=$!
	wait_listen $port > /dev/null
	ic_settle
	run timeout 900 "$bin" -s "$a" -p $port -c "$conns" "$@" > /tmp/ic.cmt 2>&1
	rc=$?
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	kill $(pidof "$bin") 2>/dev/null
	while pidof "$bin" > /dev/null; do sleep 0.1; done
	ra=$(ic_step /tmp/ic.cmt "resolve addr" "$conns")
	rr=$(ic_step /tmp/ic.cmt "resolve route" "$conns")
	c=$(ic_step /tmp/ic.cmt "connect" "$conns")
	[ -n "$c" ] || c=$(ic_step /tmp/ic.cmt "cm connect" "$conns")
	d=$(ic_step /tmp/ic.cmt "disconnect" "$conns")
	echo "BENCH ic-cmtime r=$r mode=$m variant=$v conns=$conns rc=$rc resolve_addr=$ra resolve_route=$rr connect=$c disconnect=$d"
	good=0
	# cmtime 56 exits 1 after its first table: its test without QPs is
	# rejected (reason 8) on rxe, in every mode.
	[ $rc = 0 ] || [ "$v" != plain ] && [ -n "$ra" ] && [ -n "$rr" ] && [ -n "$c" ] && [ -n "$d" ] && good=1
	[ $good = 1 ] || sed "s/^/[$RCG_role cmtime $m $v] /" /tmp/ic.cmt
	checkd /tmp/ic.cmt "icount: round $r $m: cmtime $v, $conns connections: a number for each step" [ $good = 1 ]
}

# ic_seq_pass MODE N: N connects one at a time (cm_bench -S against a
# cm_bench server on 192.0.2.1), their steps added to /tmp/ic.pool.MODE.
ic_seq_pass() {
	m=$1 a=$(addr_of 0)
	cm_bench -s "$a" -p 7602 $ic_srv > /tmp/ic.seqsrv 2>&1 &
	srv=$!
	wait_listen 7602 > /dev/null
	# The first connects after a swap fill rdma_cm's new slab caches and
	# the rest of what a module's first use allocates: not measured.
	cm_bench -c "$a" -p 7602 $ic_cli -n 50 -t 60 > /dev/null 2>&1
	ic_settle
	run cm_bench -c "$a" -p 7602 $ic_cli -n "$2" -S $ic_gap -t 60 > /tmp/ic.seq 2>&1
	rc=$?
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	{ grep '^BENCH steps ' /tmp/ic.seq; echo "BENCH pass rc=$rc"; } >> "/tmp/ic.pool.$m"
	if [ "$(grep -c '^BENCH steps ' /tmp/ic.seq)" != "$2" ]; then
		tail -n 5 /tmp/ic.seq | sed "s/^/[$RCG_role seq $m] /"
		tail -n 5 /tmp/ic.seqsrv | sed "s/^/[$RCG_role seq server $m] /"
	fi
}

# ic_passes: seq's runs per mode and round (rcg.ic_passes, 1).
ic_passes() { echo "${RCG_ic_passes:-1}"; }

# ic_seq R MODE: the last of the round's seq passes in MODE, then per step
# the median over the round's rcg.ic_conns connects, all passes pooled.
# Each pass runs rcg.ic_conns / rcg.ic_passes of them (the last one the
# rest) right after its own swap; with more than one, each mode's passes
# but the last run first, in the round's order of modes (icount_server).
# How many steps refill SLUB's per-CPU slab changes from one run to the
# next, and a run's median with it (Documentation/developing.md, the
# icount table): the passes, each after a swap of its own, average that.
ic_seq() {
	r=$1 m=$2 _np=$(ic_passes)
	ic_seq_pass "$m" $((conns - (_np - 1) * (conns / _np)))
	line=
	for st in resolve_addr resolve_route connect disconnect destroy; do
		v=$(sed -n "s/^BENCH steps .* $st=\([0-9]*\).*/\1/p" "/tmp/ic.pool.$m" | sort -n |
			awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", v[int((NR + 1) / 2)] / 1000 }')
		line="$line $st=$v"
	done
	n=$(grep -c '^BENCH steps ' "/tmp/ic.pool.$m")
	rc=$(sed -n 's/^BENCH pass rc=//p' "/tmp/ic.pool.$m" | sort -n | tail -n 1)
	echo "BENCH ic-cmtime r=$r mode=$m variant=seq conns=$conns rc=$rc n=$n$line"
	# Each step's distribution over the connects, in thousands:
	# 10th, 25th, 50th, 75th and 90th percentile (nearest rank: the
	# 50th is the median above), the mean, and the mean of the middle
	# 80 %.  scripts/bench keeps them in bench.json.
	for st in resolve_addr resolve_route connect disconnect destroy; do
		sed -n "s/^BENCH steps .* $st=\([0-9]*\).*/\1/p" "/tmp/ic.pool.$m" | sort -n |
			awk -v h="BENCH ic-dist r=$r mode=$m step=$st" '{ v[NR] = $1; s += $1 }
			function q(p,  i) { i = int(NR * p); if (i < NR * p) i++; if (i < 1) i = 1; return v[i] / 1000 }
			END {
				if (!NR)
					exit
				lo = int(NR * .1) + 1; hi = NR - int(NR * .1)
				for (i = lo; i <= hi; i++)
					t += v[i]
				printf "%s p10=%.3f p25=%.3f p50=%.3f p75=%.3f p90=%.3f mean=%.3f tmean=%.3f\n", h,
					q(.1), q(.25), q(.5), q(.75), q(.9), s / NR / 1000, t / (hi - lo + 1) / 1000
			}'
	done
	rm -f "/tmp/ic.pool.$m"
	check "icount: round $r $m: $conns connects one at a time, each step timed ($n)" [ "$n" = "$conns" ]
}

# ic_graph R MODE: with rcg.ic_graph=FUNC[,FUNC...], where the
# instructions go: rcg.ic_conns connects as ic_seq's, in one run, with
# ftrace's function graph on those functions (each call's duration, its
# callees' included): per function, its calls per connect and the median
# call.  A run of its own, so that the tracing costs nothing to the
# table's figures.  Each line also gives the calls' sum per connect
# (per_connect_ns), which moves with the calls' number as well as their
# length.
ic_graph() {
	r=$1 m=$2 a=$(addr_of 0)
	[ -n "$RCG_ic_graph" ] || return 0
	# shellcheck disable=SC2046
	if ! ic_filter -some $(echo "$RCG_ic_graph" | tr , ' '); then
		check "icount: round $r $m: the function graph takes $RCG_ic_graph" false
		return
	fi
	cm_bench -s "$a" -p 7602 $ic_srv > /tmp/ic.seqsrv 2>&1 &
	srv=$!
	wait_listen 7602 > /dev/null
	ic_settle
	echo 1 > $IC_T/tracing_on
	cm_bench -c "$a" -p 7602 $ic_cli -n "$conns" -S $ic_gap -t 60 > /dev/null 2>&1
	echo 0 > $IC_T/tracing_on
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	lost=$(sed -n 's/^overrun: //p' $IC_T/per_cpu/cpu0/stats)
	for f in $(echo "$RCG_ic_graph" | tr , ' '); do
		# Not in this module (ours' own functions, in stock): no line.
		grep -qE "^$f( |\$)" $IC_T/set_ftrace_filter || continue
		# "0) + 1.234 us | f [mod]();" or "} /* f [mod] */" (funcgraph-tail)
		grep -E " $f( \[[a-z_]*\])?\(\);| \/\* $f( \[[a-z_]*\])? \*\/" $IC_T/trace |
			ic_us_ns | sort -n |
			awk -v f="$f" -v r="$r" -v m="$m" -v c="$conns" -v lost="$lost" '{ v[NR] = $1; s += $1 }
				END { printf "BENCH ic-graph r=%s mode=%s fn=%s calls_per_connect=%.2f median_ns=%d per_connect_ns=%d overrun=%s\n",
					r, m, f, NR / c, NR ? v[int((NR + 1) / 2)] : 0, s / c, lost }'
	done
	ic_unfilter
	check "icount: round $r $m: the function graph lost no event ($lost overrun)" [ "$lost" = 0 ]
}

# ic_route add|del: this host's own connects to 192.0.2.1 leave by eth1,
# from 192.0.2.2, to eth1's own MAC, as through a client's stale entry:
# rxe1 loops each packet back to itself.  Only for what this host sends
# (iif lo), ahead of the local table, which moves from 0 to 200.
ic_route() {
	a0=$(addr_of 0) a1=$(addr_of 1) old=0 new=200
	[ "$1" = add ] || { old=200; new=0; }
	if [ "$1" = add ]; then
		run $IP route add "$a0/32" dev eth1 src "$a1" table 100
		run $IP neigh replace "$a0" lladdr "$(cat /sys/class/net/eth1/address)" dev eth1 nud permanent
	fi
	run $IP rule add pref $new lookup local
	run $IP rule del pref $old lookup local
	run $IP rule "$1" pref 100 iif lo to "$a0/32" lookup 100
	if [ "$1" = del ]; then
		run $IP route del "$a0/32" dev eth1 table 100
		run $IP neigh del "$a0" dev eth1
	fi
}

# ic_storm R MODE: the storm's REQs, timed in ib_cm.
ic_storm() {
	r=$1 m=$2 n=${RCG_ic_storm:-200}
	a0=$(addr_of 0) a1=$(addr_of 1)
	[ "$m" = stock ] || [ "$m" = off ] || echo 0 > $B_CFS/rxe1/ports/1/gid_reject_retries
	cm_bench -s "$a0" -p 7601 > /tmp/ic.stsrv 2>&1 &
	srv=$!
	wait_listen 7601 > /dev/null
	ic_route add
	# The same two functions in every mode: the tracer's own cost is the
	# same in each work item.
	ic_filter cm_work_handler cm_create_timewait_info || {
		ic_route del
		kill $srv 2>/dev/null
		check "icount: round $r $m: the function graph takes ib_cm's functions" false
		return
	}
	ic_settle
	echo 1 > $IC_T/tracing_on
	cm_bench -c "$a0" -p 7601 -d "$a1" -n "$n" -t 30 > /tmp/ic.storm 2>&1
	echo 0 > $IC_T/tracing_on
	ic_route del
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	outcomes=$(sed -n 's/^BENCH conn=[0-9]* result=\([a-z_]*\) status=\([-0-9]*\).*/\1:\2/p' /tmp/ic.storm |
		sort | uniq -c | awk '{ printf "%s%s=%d", (NR > 1 ? "," : ""), $2, $1 }')
	# ib_cm's work items of the REQs: the ones that made a time-wait
	# record (the client's ib_send_cm_req() makes its own outside them):
	#   0)               |  cm_work_handler [ib_cm]() {
	#   0)   1.250 us    |    cm_create_timewait_info [ib_cm]();
	#   0) ! 112.912 us  |  } /* cm_work_handler [ib_cm] */
	awk '/cm_work_handler.*\{/ { req = 0; next }
		/cm_create_timewait_info/ { req = 1; next }
		/\} \/\* cm_work_handler/ { if (req) print; req = 0 }' $IC_T/trace | ic_us_ns > /tmp/ic.reqs
	lost=$(sed -n 's/^overrun: //p' $IC_T/per_cpu/cpu0/stats)
	grep -m 3 -E 'cm_work_handler|cm_create_timewait_info' $IC_T/trace | sed "s/^/[$RCG_role storm trace] /"
	reqs=$(wc -l < /tmp/ic.reqs)
	med=$(sort -n /tmp/ic.reqs | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
	ic_unfilter
	echo "BENCH ic-storm r=$r mode=$m connects=$n reqs=$reqs req_ns=${med:-} overrun=$lost outcomes=$outcomes"
	good=0
	[ "$reqs" -ge "$n" ] && [ -n "$med" ] && [ "$lost" = 0 ] && good=1
	[ $good = 1 ] || sed "s/^/[$RCG_role storm] /" /tmp/ic.storm | tail -n 5
	check "icount: round $r $m: storm, $n misdirected REQs timed in ib_cm ($reqs)" [ $good = 1 ]
}

icount_server() {
	. /selftests/rdma_cm/bench.sh
	# Closing braces name their function (ic_storm, ic_graph).
	echo 1 > $IC_T/options/funcgraph-tail
	# Room for ic_graph's calls of rcg.ic_conns connects (about 60 bytes
	# a call): the default 1.4 MB overruns.
	echo 32768 > $IC_T/buffer_size_kb
	conns=${RCG_ic_conns:-500}
	threads=${RCG_ic_threads:-4}
	ic_options
	# Every process at the same addresses: where its stack and heap land
	# changes the instructions that user space's copies take.
	[ "${RCG_ic_aslr:-0}" = 1 ] || echo 0 > /proc/sys/kernel/randomize_va_space
	cal=$(ic_cal)
	echo "BENCH ic-cal $cal"
	# 1 ns per instruction, and what the timer ticks during the loop
	# cost: a few hundred instructions per 4 ms tick, under 0.1 %.
	check "icount: the clock counts instructions: ns per instruction of a known loop ($cal) within 1-1.01" \
		awk -v c="$cal" 'BEGIN { split(c, f, /[ =]/); exit !(f[4] >= 1 && f[6] <= 1.01) }'
	have_threads=0
	command -v cmtime-threads > /dev/null && have_threads=1
	echo "BENCH ic-config rounds=$(ic_rounds) modes=$(ic_modes | tr ' ' ,) conns=$conns threads=$threads" \
		"have_threads=$have_threads storm=${RCG_ic_storm:-200} fifo=${RCG_ic_fifo:-1} gap_us=${RCG_ic_gap:-1000}" \
		"passes=$(ic_passes)" \
		"kernel=$(uname -r)"
	rm -f /tmp/ic.pool.*
	# Round 0 warms up, as the others run: scripts/bench leaves it out.
	for r in $(seq 0 "$(ic_rounds)"); do
		# seq's passes but the last (ic_seq).
		# b_swap's loops use p and d: the pass is _pass.
		for _pass in $(seq 2 "$(ic_passes)"); do
			for m in $(ic_mode_list "$r"); do
				check "icount: round $r $m: rdma_cm swapped (pass $((_pass - 1)))" b_swap "$m"
				ic_seq_pass "$m" $((conns / $(ic_passes)))
			done
		done
		for m in $(ic_mode_list "$r"); do
			check "icount: round $r $m: rdma_cm swapped" b_swap "$m"
			ic_seq "$r" "$m"
			ic_graph "$r" "$m"
			ic_cmtime "$r" "$m" plain cmtime
			[ $have_threads = 0 ] || ic_cmtime "$r" "$m" threads cmtime-threads -n "$threads"
			[ "${RCG_ic_storm:-200}" = 0 ] || ic_storm "$r" "$m"
		done
	done
}
