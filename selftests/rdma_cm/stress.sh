# SPDX-License-Identifier: GPL-2.0
#
# stress: many connects in flight through every path of the series, torn
# down at random moments and under device, netdev, address, configfs and
# listener churn, then a fuzzer of /dev/infiniband/rdma_cm (issue 12).
#
#   client  eth0 192.0.2.100 ----+---- eth0 192.0.2.1  fd00::1  rxe0  server
#   rxe0    fd00::100            |         192.0.2.3 (listener race)
#                                +---- eth1 192.0.2.2  fd00::2  rxe1
#
# Size: rcg.stress=full on the kernel command line (make stress) or CI
# (selftests/groups), see st_size.
#
#   load     cm_stress: ST_N connects, 200 in flight at once, mixed: IPv4
#            and IPv6, normal, misdirected to rxe1's GID (REJ 12, then our
#            client's retry; the client's entry for 192.0.2.1 is planted
#            stale on eth1's MAC, as in gidretry.sh, so that the first
#            normal connects go through a stale neighbour too), clamp (the
#            server accepts with more than the client offered), bound and
#            wildcard listener; each destroyed, disconnected or its QP
#            destroyed at a random moment, or left alone.  Meanwhile:
#            server: rxe1 deleted and added again, eth1 down and up,
#            192.0.2.2, fd00::2 and fd00::1 removed and added again, a
#            listener churn (ST_CHURN listen/destroy cycles, bound and
#            wildcard, both families), a configfs writer flipping every
#            attribute of rxe0 and rxe1 and removing and making rxe1's
#            directory; client: eth0 down and up, fd00::100 removed and
#            added, a configfs writer on rxe0 (gid_reject_retries 0-3,
#            read_limit_clamp, the caps).
#   linkdel  a shorter load during which the client's rxe0 is deleted;
#            rxe lacks disassociate_ucontext, so the removal completes
#            when cm_stress has closed its ids; rxe0 is then added again.
#   fuzz     both VMs run cm_fuzz (write() of rdma_ucm commands) and
#            cm_stress -F (librdmacm calls) for ST_FUZZ seconds, against
#            each other's addresses, seeds printed.
#
# Checked by the test: cm_stress's accounting (attempted = established +
# rejected + failed + destroyed, nothing lost, duplicated or stray, 200
# in flight; a DISCONNECTED that stock cannot give, of a connection that
# began on the deleted fd00::100, is counted apart: st_disc_unsent),
# retries <= budget (3, the writer's largest) x connects, the server's
# mismatch warnings within the rate limit (5 per 5 s), no cm_id
# left; by the harness: no WARN, BUG, KASAN, lockdep or RCU stall report
# on either console, kmemleak (kmemleak=on in selftests/groups).

ST_CFS=/sys/kernel/config/rdma_cm
ST_PORT=7700

# st_size: ST_N connects in waves of ST_WAVE, ST_LINKDEL_N, ST_CHURN
# cycles, ST_FUZZ seconds.  A wave starts once every connect of the one
# before ended: 200 connects in flight for more than about four minutes
# outrun the debug kernel under TCG, and ib_cm, whose REQs time out after
# 4 s, then collapses into retransmissions (stress item 5).
st_size() {
	ST_INFLIGHT=200 ST_WAVE=400
	if [ "$RCG_stress" = full ]; then
		ST_N=${RCG_stress_n:-4000} ST_LINKDEL_N=600 ST_CHURN=10000 ST_FUZZ=300
	else
		# CI: each of its two VM pairs (selftests/groups) must end
		# within half of its VM timeout (300 s) on an idle 2-core
		# machine.  The load lasts as long as the server's teardown
		# and ib_cm's timeouts of the REQs it lost, whatever ST_N.
		ST_N=${RCG_stress_n:-300} ST_WAVE=300 ST_LINKDEL_N=100 ST_CHURN=300 ST_FUZZ=15
	fi
	st_noise_all || ST_CHURN=1
	echo "[$RCG_role] stress size ${RCG_stress:-ci}: $ST_N connects ($ST_INFLIGHT in flight, waves of $ST_WAVE), $ST_LINKDEL_N with link del, $ST_CHURN listener cycles, fuzz $ST_FUZZ s"
}

# st_prereq: what the test needs; prints what is missing.
st_prereq() {
	for b in cm_stress cm_fuzz; do
		command -v $b > /dev/null || { echo "no $b"; return 1; }
	done
	[ -c /dev/infiniband/rdma_cm ] || { echo "no /dev/infiniband/rdma_cm"; return 1; }
	[ -f $ST_CFS/rxe0/ports/1/gid_reject_retries ] || mkdir -p $ST_CFS/rxe0 2>/dev/null
	[ -f $ST_CFS/rxe0/ports/1/gid_reject_retries ] || { echo "no rdma-cm-guard configfs attributes"; return 1; }
	if [ "$RCG_role" = server ] && [ -z "$(addr_of 1)" ]; then
		echo "no second NIC"; return 1
	fi
	return 0
}

# rcg.stress_noise=0: the loads without teardown, churn and configfs
# writers (a baseline while developing).
# rcg.stress_noise=noflap: all of it but the client's eth0 down/up.
# rcg.stress_noise=addr: only the client's fd00::100 removed and added.
st_noise() { [ "${RCG_stress_noise:-1}" != 0 ]; }
st_noise_all() { st_noise && [ "$RCG_stress_noise" != addr ]; }
# rcg.stress_only=fuzz: only the fuzzers (replaying a seed).
# rcg.stress_only=load or linkdel,fuzz: selftests/groups runs the CI size
# as two VM pairs, each within half of its VM timeout.
st_phase() { [ -z "$RCG_stress_only" ] || case ",$RCG_stress_only," in *",$1,"*) true ;; *) false ;; esac; }
# st_dump WHY: what the kernel is doing, for a stall: tasks in D state
# and kernel workers with their stacks, the CM ids by state, rxe's
# packet counters.
st_dump() {
	echo "[$RCG_role dump] $1"
	# One awk reads every process's files: three processes per PID took
	# a minute of the debug kernel's time, beside the load.
	ls -d /proc/[0-9]* | awk -v p="[$RCG_role dump]" '
	{
		st = ""; c = ""; f = $0 "/status"
		while ((getline l < f) > 0)
			if (l ~ /^State:/) { split(l, a, /[ \t]+/); st = a[2] }
		close(f)
		f = $0 "/comm"; getline c < f; close(f)
		if (st != "D" && c !~ /^(kworker|cm_stress)/)
			next
		n = 0; keep = 0; f = $0 "/stack"
		while ((getline l < f) > 0) {
			s[++n] = l
			if (l !~ /worker_thread|rescuer_thread|kthread|ret_from_fork|smpboot_thread_fn/)
				keep = 1
		}
		close(f)
		if (!keep)
			next
		sub(/^\/proc\//, "")
		print p " " $0 " " c " state " st
		for (i = 1; i <= n; i++)
			print p "   " s[i]
	}'
	$RDMA res show cm_id 2>/dev/null | sed -n 's/.*state \([A-Z_]*\).*/\1/p' | sort | uniq -c | sed "s/^/[$RCG_role dump] cm_id /"
	for d in /sys/class/infiniband/*; do
		echo "[$RCG_role dump] ${d##*/}: $(cd $d/ports/1/hw_counters 2>/dev/null && grep -H . * | tr '\n' ' ')"
	done
	$RDMA res show qp 2>/dev/null | grep -E 'lqpn (0|1) ' | sed "s/^/[$RCG_role dump] qp /"
	$IP neigh show | sed "s/^/[$RCG_role dump] neigh /"
	$IP -s -o link show | sed "s/^/[$RCG_role dump] link /"
	$IP route show | sed "s/^/[$RCG_role dump] route /"
}
# st_stall_watch FILE: while FILE (a cm_stress client or server) runs, one
# st_dump when its progress lines show no new establishment for 60 s
# while connects are still asked for (stress item 5).
st_stall_watch() {
	local last="" cur est asked asked0="" same=0
	while [ ! -e /tmp/st.stop ]; do
		sleep 20
		cur=$(grep 'progress' "$1" | tail -n 1)
		est=$(echo "$cur" | grep -o ' est=[0-9]*')
		# connects asked for: started (client), REQs (server)
		asked=$(echo "$cur" | grep -o ' started=[0-9]*\| req=[0-9]*' | cut -d= -f2)
		if [ -z "$est" ] || [ "$est" != "$last" ]; then
			same=0 last=$est asked0=$asked
			continue
		fi
		same=$((same + 1))
		[ $same -ge 3 ] && [ "$asked" -gt "$asked0" ] || continue
		st_dump "no connection established for 60 s: $cur"
		st_cm_msgs
		st_trace_window 15
		st_cm_msgs
		$RDMA res show qp 2>/dev/null | sed -n 's/.*type \([A-Z]*\) state \([A-Z]*\).*/\1 \2/p' |
			sort | uniq -c | sed "s/^/[$RCG_role dump] qps /"
		$RDMA statistic show 2>/dev/null | sed "s/^/[$RCG_role dump] stat /"
		grep -h 'STRESS rejected by status' "$1" | tail -n 1 | sed "s/^/[$RCG_role dump] /"
		return
	done
}
# st_cm_msgs: ib_cm's MAD counters of each port (tx, retries, rx,
# duplicates) for the connection messages.
st_cm_msgs() {
	local cp m
	for cp in /sys/class/infiniband/*/ports/*; do
		[ -d $cp/cm_tx_msgs ] || continue
		for m in req mra rej rep rtu; do
			echo "$m $(cat $cp/cm_tx_msgs/$m)/$(cat $cp/cm_tx_retries/$m)/$(cat $cp/cm_rx_msgs/$m)/$(cat $cp/cm_rx_duplicates/$m)"
		done | tr '\n' ' ' | sed "s|^|[$RCG_role dump] ib_cm ${cp#/sys/class/infiniband/} tx/retries/rx/dup: |"
		echo
	done 2>/dev/null
}
# st_trace_window SECONDS: ib_cm's and ib_mad's tracepoints for SECONDS,
# counted by event.
st_trace_window() {
	st_trace_on ib_mad || return 0
	echo > $ST_TR/trace
	for e in ib_mad ib_cma; do
		[ -d $ST_TR/events/$e ] && echo 1 > $ST_TR/events/$e/enable
	done
	sleep "$1"
	for e in ib_mad ib_cma; do
		[ -d $ST_TR/events/$e ] && echo 0 > $ST_TR/events/$e/enable
	done
	sed -n 's/.* \([a-z_0-9]*\): .*/\1/p' $ST_TR/trace | sort | uniq -c | sed "s/^/[$RCG_role dump] in $1 s: /"
	grep -v '^#' $ST_TR/trace | grep -v 'ib_mad_recv_done_handler\|ib_mad_ib_send_mad\|ib_mad_send_done' | tail -n 20 | sed "s/^/[$RCG_role dump]   /"
}
st_ms() { awk '{ print int($1 * 1000) }' /proc/uptime; }
# st_mark PHASE: when a phase starts, in the VM's uptime, for sizing.
st_mark() { echo "[$RCG_role] stress: $1 at $(( $(st_ms) / 1000 )) s"; }
# st_cm_counters WHEN: ib_cm's disconnect MADs of each port (stress item 4).
st_cm_counters() {
	local cp
	for cp in /sys/class/infiniband/*/ports/*; do
		echo "[$RCG_role cm $1] $cp: tx dreq $(cat $cp/cm_tx_msgs/dreq) drep $(cat $cp/cm_tx_msgs/drep)" \
			"retries dreq $(cat $cp/cm_tx_retries/dreq) rx dreq $(cat $cp/cm_rx_msgs/dreq)" \
			"drep $(cat $cp/cm_rx_msgs/drep) duplicates dreq $(cat $cp/cm_rx_duplicates/dreq)"
	done 2>/dev/null
}
st_cm_ids_gone() { [ -z "$($RDMA res show cm_id 2>/dev/null)" ]; }
# st_field FILE NAME: the value of NAME=V in FILE's last STRESS line with it.
st_field() { grep -o "$2=[0-9]*" "$1" | tail -n1 | cut -d= -f2; }

# st_writer DEV...: flip every writable attribute of each port of DEV in a
# loop until /tmp/st.stop exists; the server also removes and makes rxe1's
# directory (while rxe1 itself comes and goes).  Writes that a device
# going away refuses are fine: only the kernel's reports count.
st_writer() {
	n=0
	while [ ! -e /tmp/st.stop ]; do
		for d; do
			mkdir -p $ST_CFS/$d 2>/dev/null
			p=$ST_CFS/$d/ports/1
			case $((n % 8)) in
			0) echo $((RANDOM % 4)) > $p/gid_reject_retries ;;
			1) echo $((RANDOM % 2)) > $p/read_limit_clamp ;;
			2) echo $((RANDOM % 20)) > $p/max_responder_resources ;;
			3) echo $((RANDOM % 20)) > $p/max_initiator_depth ;;
			4) [ "$RCG_role" = server ] &&
				echo "$(echo off warn auto reject auto | cut -d' ' -f$((RANDOM % 5 + 1)))" > $p/gid_mismatch ;;
			5) [ "$RCG_role" = server ] && echo $((RANDOM % 2)) > $p/gid_mismatch_notify ;;
			6) echo $((RANDOM % 8 * 32)) > $p/default_roce_tos ;;
			7) [ "$RCG_role" = server ] && [ "$d" = rxe1 ] && [ $((RANDOM % 4)) = 0 ] &&
				rmdir $ST_CFS/$d ;;
			esac
			cat $p/gid_mismatch_count $p/gid_retry_count > /dev/null
		done 2>/dev/null
		n=$((n + 1))
		sleep 0.05
	done
	echo "$n" > /tmp/st.writer.$RCG_role
}

# st_trace_on SYSTEM: tracefs is there, with SYSTEM's events; an 8 MB buffer.
st_trace_on() {
	grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
	[ -d $ST_TR/events/$1 ] || return 1
	echo 8192 > $ST_TR/buffer_size_kb
}
# st_mad_trace_on: ib_mad's tracepoints of QP1 sends and their completions
# (stress item 3: a destruction that waits for a send).
ST_TR=/sys/kernel/debug/tracing
st_mad_trace_on() {
	st_trace_on ib_mad || return 0
	echo 1 > $ST_TR/events/ib_mad/ib_mad_ib_send_mad/enable
	echo 1 > $ST_TR/events/ib_mad/ib_mad_send_done_handler/enable
	echo 1 > $ST_TR/events/ib_mad/ib_mad_error_handler/enable
}
# st_mad_trace_dump: the sends posted to a QP without a completion yet,
# and the last completions that were not successes.
st_mad_trace_dump() {
	[ -r $ST_TR/trace ] || return 0
	cat $ST_TR/trace > /tmp/st.trace
	echo "[$RCG_role dump] ib_mad: $(grep -c ib_mad_ib_send_mad: /tmp/st.trace) sends posted," \
		"$(grep -c ib_mad_send_done_handler: /tmp/st.trace) completed," \
		"$(grep -c ib_mad_error_handler: /tmp/st.trace) errors; without completion:"
	awk '/ib_mad_ib_send_mad:/ { w = $0; sub(/.*wrtid /, "", w); sub(/[;:].*/, "", w); out[w] = $0 }
		/ib_mad_send_done_handler:/ { w = $0; sub(/.*wrtid /, "", w); sub(/ .*/, "", w); delete out[w] }
		END { for (w in out) print out[w] }' /tmp/st.trace | head -n 20 | sed "s/^/[$RCG_role dump]   /"
	grep 'ib_mad_send_done_handler:' /tmp/st.trace | grep -v 'Status 0 ' | tail -n 10 | sed "s/^/[$RCG_role dump]   /"
	grep 'ib_mad_error_handler:' /tmp/st.trace | tail -n 5 | sed "s/^/[$RCG_role dump]   /"
	echo "[$RCG_role dump] ib_mad: sends that wait 10 s or more for a response:"
	awk '/ib_mad_ib_send_mad:/ { t = $0; sub(/.*timeout /, "", t); sub(/ .*/, "", t); if (t + 0 >= 10000) print }' \
		/tmp/st.trace | tail -n 10 | sed "s/^/[$RCG_role dump]   /"
}

# st_cma_trace_on: the RDMA CM's tracepoints, for the ids of a connection
# without DISCONNECTED (st_cma_trace_lost).
st_cma_trace_on() {
	st_trace_on rdma_cma || return 0
	echo 1 > $ST_TR/events/rdma_cma/enable
	# What ib_cm did with each rdma_disconnect() (st_disc_unsent).
	for e in icm_send_dreq icm_dreq_skipped icm_send_drep_err; do
		echo 1 > $ST_TR/events/ib_cma/$e/enable 2>/dev/null || :
	done
}
# st_cma_trace_lost LOG: what the RDMA CM traced of each id that LOG (a
# cm_stress load) names as without DISCONNECTED.
st_cma_trace_lost() {
	local n
	[ -r $ST_TR/trace ] || return 0
	for n in $(sed -n 's/^STRESS .* cm-idn \([0-9]*\) .*/\1/p' "$1" | head -n 4); do
		grep "cm\.id=$n " $ST_TR/trace | tail -n 30 | sed "s/^/[$RCG_role trace $n] /"
	done
}

# st_disc_unsent LOG: how many connections of LOG (a cm_stress load) that
# saw no DISCONNECTED are stock's: a RoCE v2 id's MAD address handle needs
# its source GID (the flow label makes rdma_create_ah() read its netdev),
# so once the client's teardown has deleted fd00::100, ib_send_cm_dreq()
# of a connection established on it fails into timewait, the DREP is
# refused, and the RDMA CM, still CONNECT, reports neither DISCONNECTED
# nor TIMEWAIT_EXIT (developing.md, Known limitations).  Counted is a
# connection whose cm_stress report names exactly one id from fd00::100,
# with rdma_disconnect() returning 0, whose cm_disconnect the trace shows
# after the marker written before the deletion, followed in that task by
# ib_cm refusing the DREP in TIMEWAIT, with no DREQ sent and none
# skipped: a DREQ that
# ib_cm skipped (an id of a retry that is not the established one) or
# any other path is not stock's and still fails.
st_disc_unsent() {
	[ -r $ST_TR/trace ] || { echo 0; return; }
	awk '
	function flush() { if (inblk && ok && nids == 1) print id; inblk = 0 }
	/^STRESS no DISCONNECTED/ {
		flush(); inblk = 1; nids = 0
		ok = /errno 0,/ && /TIMEWAIT_EXIT not seen/; next
	}
	inblk && /^STRESS   / {
		if (/ src-addr fd00::100:/) { nids++; id = $0; sub(/.* cm-idn /, "", id); sub(/ .*/, "", id) }
		next
	}
	{ flush() }
	END { flush() }' "$1" | sort -u | while read -r n; do
		awk -v n="$n" '
		function ts(l) { sub(/:$/, "", l); return l + 0 }
		# the task by its pid: the comm may read "<...>"
		function pid(t) { sub(/.*-/, "", t); return t }
		/tracing_mark_write: rcg: deleting fd00::100/ { del = ts($4); next }
		!task && $0 ~ (" cm_disconnect: cm\\.id=" n " ") {
			if (del && ts($4) > del) { task = pid($1); next }
		}
		task && pid($1) == task {
			if (/ icm_send_dreq: | icm_dreq_skipped: /) exit
			if (/ icm_send_drep_err: .* state=TIMEWAIT /) { print n; exit }
			if (/ cm_[a-z_]*: cm\.id=/) exit
		}' $ST_TR/trace
	done | grep -c .
}

# st_no_recent_hang: ib_cm reported no waiting destruction in the last 15 s.
st_no_recent_hang() {
	local last
	last=$(dmesg | sed -n 's/^\[ *\([0-9]*\)\..*cm_destroy_id_wait_timeout.*/\1/p' | tail -n 1)
	[ -z "$last" ] || [ $(($(cut -d. -f1 /proc/uptime) - last)) -gt 15 ]
}

# st_fuzz ADDRS: cm_fuzz and cm_stress -F for ST_FUZZ seconds, seeds and
# counts to the console.  A fuzzer that does not end within 120 s after
# its time (a task stuck in the kernel) fails, with the kernel's stacks.
st_fuzz() {
	st_mad_trace_on
	cm_fuzz -a "$1" -p 7800 -T $ST_FUZZ ${RCG_stress_seed:+-S $RCG_stress_seed} > /tmp/st.fuzz 2>&1 &
	fz=$!
	cm_stress -F $ST_FUZZ -a "$1" -p 7800 ${RCG_stress_seed:+-S $RCG_stress_seed} > /tmp/st.lfuzz 2>&1 &
	lfz=$!
	# ib_cm's report of an ib_cm_id whose destruction waits (10 s each):
	# the kernel's stacks while it waits.
	(wait_for $((ST_FUZZ + 120)) sh -c "dmesg | grep -q cm_destroy_id_wait_timeout" &&
		st_dump "cm_destroy_id_wait_timeout" && st_mad_trace_dump) &
	sleep 1
	grep -h 'seed' /tmp/st.fuzz /tmp/st.lfuzz | sed "s/^/[$RCG_role fuzz] /"
	if ! wait_for $((ST_FUZZ + 120)) sh -c "! kill -0 $fz 2>/dev/null && ! kill -0 $lfz 2>/dev/null"; then
		st_dump "fuzzers still running $((ST_FUZZ + 120)) s after they started"
		not_ok "stress: fuzzers end (cm_fuzz $(head -n1 /tmp/st.fuzz), $(head -n1 /tmp/st.lfuzz))"
		return
	fi
	wait $fz
	frc=$?
	wait $lfz
	lrc=$?
	grep -h '^FUZZ\|^STRESS' /tmp/st.fuzz /tmp/st.lfuzz | sed "s/^/[$RCG_role fuzz] /"
	checkd /tmp/st.fuzz "stress: cm_fuzz $(st_field /tmp/st.fuzz ops) commands, seed $(st_field /tmp/st.fuzz seed)" [ $frc = 0 ]
	# ib_cm reports every 10 s that an ib_cm_id's destruction still waits
	# for a reference (item 3 of developing.md, not understood): each
	# wait must end, which 15 s without a new report shows.
	wait_for 120 st_no_recent_hang
	rc=$?
	dmesg | grep 'cm_destroy_id_wait_timeout' > /tmp/st.hang
	hang_n=$(grep -c . /tmp/st.hang) hang_ids=$(grep -o 'cm_id=[0-9a-fx]*' /tmp/st.hang | sort -u | grep -c .)
	checkd /tmp/st.hang "stress: every ib_cm_id destruction ended ($hang_ids waited 10 s or more: $hang_n reports of cm_destroy_id_wait_timeout)" \
		[ $rc = 0 ]
	checkd /tmp/st.lfuzz "stress: librdmacm fuzz $(st_field /tmp/st.lfuzz ops) calls, seed $(st_field /tmp/st.lfuzz seed)" [ $lrc = 0 ]
}

# The fault phase (issue 31): the kernel's own calls fail under a smaller
# load, in rounds, on both VMs at once: each round arms one target in
# both kernels, the client runs ST_FAULT_N connects of the load's mix
# through it (the same seed each round), and both disarm and count.
#   none             the control round: nothing injected
#   slab-async:P     kmalloc (failslab) and alloc_pages() (fail_page_alloc)
#                    fail with P %, where rdma_cm's text is on the stack
#                    (rcg.fault_text's cma, from selftests/run) and ucma's
#                    is not: what rdma_cm does and calls in ib_cm's and
#                    ib_core's work (its REQ, REP and REJ handlers, its
#                    address and route callbacks) and in its own (the
#                    retries), not what ib_cm does before it calls
#                    rdma_cm; ucma's event queue is left alone, as it
#                    drops an event whose allocation fails
#                    (ucma_event_handler(), stock); the server removes
#                    and makes rxe1's configfs directory meanwhile
#   slab-sync:P      the same in the system calls of the cm_stress
#                    processes only (task-filter, make-it-fail), but
#                    rdma_disconnect()'s DREQ: stock then reports nothing
#                    (Known limitations)
#   FUNCTION:P       fail_function (patches/debug/0003): FUNCTION returns
#                    an error (-ENOMEM; NULL for neigh_lookup(), only
#                    where rdma_cm's text is on the stack) with P %
#   fuzz:P           both fuzzers (st_fuzz) for ST_FAULT_FUZZ seconds
#                    under slab-async: odd REQs, odd calls, failed
#                    allocations under them
#   none (again)     the last round: the kernels recovered
# Checked per round: cm_stress's accounting as in the load (exactly one
# final event per connect, nothing lost, duplicated or stray), faults
# injected (but in a control round), nothing established where every
# call fails (rdma_resolve_ip, ib_send_cm_req, ib_send_cm_rep at 100 %),
# at least half of the first control round's connections established in
# the last one; at the end: no cm_id left, and
# 'rdma link del' of every device completes (rdma_cm is built in: that
# is what waits for every reference that rmmod would); the harness adds
# the console scan and kmemleak.
ST_FI=/sys/kernel/debug
ST_FT=1000000
st_fault_size() {
	if [ "$RCG_stress" = full ]; then
		ST_FAULT_N=${RCG_stress_fault_n:-400} ST_FAULT_FUZZ=60
		ST_FAULT_ROUNDS="none slab-async:2 slab-async:10 slab-async:30 slab-sync:2 slab-sync:10 slab-sync:30
			rdma_resolve_ip:20 rdma_resolve_ip:100 ib_send_cm_req:20 ib_send_cm_req:100
			ib_send_cm_rep:20 ib_send_cm_rep:100
			neigh_lookup:50 neigh_lookup:100 fuzz:10"
	else
		# CI: within half of the VM timeout with the harness's
		# kmemleak scan (seven rounds took 291 of 300 s on an idle
		# machine: slab-sync and ib_send_cm_rep run in make stress);
		# the fuzzers run without faults in stress-b (their exit under
		# faults took 16-92 s).
		ST_FAULT_N=${RCG_stress_fault_n:-60} ST_FAULT_FUZZ=0
		ST_FAULT_ROUNDS="none slab-async:10 rdma_resolve_ip:30 ib_send_cm_req:30 neigh_lookup:50"
	fi
}
# st_fault_text NAME: the START-END of NAME (cma, ucma, disc) in
# rcg.fault_text (cma=S-E,ucma=S-E,disc=S-E).
st_fault_text() { echo "$RCG_fault_text" | tr , '\n' | sed -n "s/^$1=//p"; }
st_fault_prereq() {
	grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs $ST_FI
	for d in failslab fail_page_alloc fail_function; do
		[ -d $ST_FI/$d ] || { echo "no $ST_FI/$d (CONFIG_FAILSLAB, FAIL_PAGE_ALLOC, FAIL_FUNCTION)"; return 1; }
	done
	[ -f $ST_FI/failslab/require-start ] || { echo "no stack filter (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)"; return 1; }
	for t in cma ucma disc; do
		[ -n "$(st_fault_text $t)" ] || { echo "no $t range in rcg.fault_text (selftests/run)"; return 1; }
	done
	return 0
}
# st_fault_attr DIR PERCENT REQUIRE REJECT TASK: arm a fault_attr; REQUIRE
# and REJECT are START-END or empty, TASK Y or N.  TIMES counts down.
st_fault_attr() {
	local d=$ST_FI/$1
	echo 0 > $d/probability
	echo 0 > $d/verbose
	echo 1 > $d/interval
	echo 0 > $d/space
	echo $ST_FT > $d/times
	echo "$5" > $d/task-filter
	echo 32 > $d/stacktrace-depth
	st_fault_range $d require "${3:-0-0xffffffffffffffff}"
	st_fault_range $d reject "${4:-0-0}"
	echo "$2" > $d/probability
}
# st_fault_range DIR require|reject START-END: a range of the stack filter.
st_fault_range() {
	echo "${3%-*}" > $1/$2-start
	echo "${3#*-}" > $1/$2-end
}
# st_fault_slab PERCENT REJECT TASK: failslab and fail_page_alloc, of
# every allocation that may sleep or not, of every order, under rdma_cm.
st_fault_slab() {
	echo N > $ST_FI/failslab/ignore-gfp-wait
	echo N > $ST_FI/fail_page_alloc/ignore-gfp-wait
	echo N > $ST_FI/fail_page_alloc/ignore-gfp-highmem
	echo 0 > $ST_FI/fail_page_alloc/min-order
	st_fault_attr failslab "$1" "$(st_fault_text cma)" "$2" "$3"
	st_fault_attr fail_page_alloc "$1" "$(st_fault_text cma)" "$2" "$3"
}
# st_fault_arm SPEC: arm SPEC (TARGET:PERCENT) in this kernel.
st_fault_arm() {
	local t=${1%%:*} p=${1#*:} cma ucma
	cma=$(st_fault_text cma) ucma=$(st_fault_text ucma)
	case $t in
	none) ;;
	slab-async|fuzz) st_fault_slab "$p" "$ucma" N ;;
	slab-sync) st_fault_slab "$p" "$(st_fault_text disc)" Y ;;
	*)
		echo > $ST_FI/fail_function/inject
		echo "$t" > $ST_FI/fail_function/inject || return 1
		if [ "$t" = neigh_lookup ]; then
			st_fault_attr fail_function "$p" "$cma" "" N
		else
			# -ENOMEM, what most of their failures are, not the
			# default -EINVAL.
			echo 0xfffffffffffffff4 > $ST_FI/fail_function/$t/retval
			st_fault_attr fail_function "$p" "" "" N
		fi ;;
	esac
}
# st_fault_disarm SPEC: disarm; prints the faults that SPEC injected here.
st_fault_disarm() {
	local t=${1%%:*} n=0 d
	case $t in
	none) ;;
	slab-async|slab-sync|fuzz)
		for d in failslab fail_page_alloc; do
			echo 0 > $ST_FI/$d/probability
			n=$((n + ST_FT - $(cat $ST_FI/$d/times)))
		done ;;
	*)
		echo 0 > $ST_FI/fail_function/probability
		echo > $ST_FI/fail_function/inject
		n=$((ST_FT - $(cat $ST_FI/fail_function/times))) ;;
	esac
	echo $n
}
# st_fault_split: of a slab round's faults, "K kmalloc, P pages".
st_fault_split() {
	echo "$((ST_FT - $(cat $ST_FI/failslab/times))) kmalloc, $((ST_FT - $(cat $ST_FI/fail_page_alloc/times))) pages"
}
# st_fault_missing WHY: the phase cannot run.  A skip where the phase
# runs because the whole test does (make stress on another kernel), a
# failure where it was asked for (rcg.stress_only=fault: stress-fault).
st_fault_missing() {
	if [ -n "$RCG_stress_only" ]; then
		not_ok "stress: fault phase: $1"
	else
		skip "stress: fault phase: $1"
	fi
}

# st_fault_cfs: rxe1's configfs directory removed and made again until
# /tmp/st.cfs.stop exists; counts to /tmp/st.cfs.
st_fault_cfs() {
	local n=0 f=0
	while [ ! -e /tmp/st.cfs.stop ]; do
		rmdir $ST_CFS/rxe1 2>/dev/null
		mkdir $ST_CFS/rxe1 2>/dev/null || f=$((f + 1))
		n=$((n + 1))
		sleep 0.1
	done
	echo "$n $f" > /tmp/st.cfs
}
# st_fault_cfs_restore SPEC: rxe1's directory and policy as set up.
st_fault_cfs_restore() {
	local n f
	read -r n f < /tmp/st.cfs
	echo "[server] fault $1: rxe1's configfs directory made $n times, $f refused"
	mkdir -p $ST_CFS/rxe1
	apply_defaults rxe1
	echo auto > $ST_CFS/rxe1/ports/1/gid_mismatch
	check "stress: fault $1: rxe1's configfs directory after $n removals ($f makes refused)" \
		[ "$(cat $ST_CFS/rxe1/ports/1/gid_mismatch)" = auto ]
}

# st_hear PORT: hear_peer until the peer's word comes: on a loaded host
# a connection of signal_peer's that timed out brings no word.
st_hear() {
	local w=
	while [ -z "$w" ]; do w=$(hear_peer "$1"); done
	echo "$w"
}

# st_fault_server: arm each round that the client names, disarm when it
# is done, and send back the count (ports 9610 + 4 x round), until the
# client names "end".
st_fault_server() {
	local r=0 spec port n wp noarm= cfs
	st_fault_size
	# Without its prerequisites this side arms nothing, and still answers.
	if ! why=$(st_fault_prereq); then
		st_fault_missing "$why"
		noarm=1
	fi
	st_mark fault
	while :; do
		port=$((9610 + r * 4))
		spec=$(st_hear $port)
		[ "$spec" != end ] || break
		case $spec in slab-sync:*) echo 1 > /proc/$srv/make-it-fail ;; esac
		[ -n "$noarm" ] || st_fault_arm "$spec" || not_ok "stress: fault $spec: armed"
		# configfs's allocations fail too: rxe1's directory made and
		# removed while the round runs.
		rm -f /tmp/st.cfs.stop
		cfs=
		case $spec in slab-async:*) st_fault_cfs & cfs=$! ;; esac
		# The client's "done" may come while this side still fuzzes.
		wait_peer $((port + 2)) &
		wp=$!
		signal_peer $((port + 1))
		case $spec in fuzz:*) ST_FUZZ=$ST_FAULT_FUZZ; st_fuzz "$(addr_of 0),$(addr_of 1),fd00::1,fd00::2,$RCG_peer,fd00::100" ;; esac
		wait $wp
		touch /tmp/st.cfs.stop
		[ -z "$cfs" ] || wait $cfs
		n=0
		[ -n "$noarm" ] || n=$(st_fault_disarm "$spec")
		[ -z "$cfs" ] || st_fault_cfs_restore "$spec"
		echo 0 > /proc/$srv/make-it-fail 2>/dev/null
		case $spec in slab*|fuzz*) echo "[server] fault $spec: $n faults ($(st_fault_split))" ;; esac
		signal_peer $((port + 3)) "$n"
		r=$((r + 1))
	done
}

# st_fault_client: the rounds, each through the load's mix, and a last
# control round: the kernels recovered.
st_fault_client() {
	local r=0 spec port n sn rc seed est0= f att est rej fail des good secs all
	st_fault_size
	if ! why=$(st_fault_prereq); then
		st_fault_missing "$why"
		signal_peer 9610 end
		return
	fi
	st_mark fault
	: > /tmp/st.fault.sum
	seed=${RCG_stress_seed:-$(( $(st_ms) % 1000000 + 1 ))}
	echo "[client] fault phase: $ST_FAULT_N connects per round, seed $seed, rounds: $(echo $ST_FAULT_ROUNDS) none"
	for spec in $ST_FAULT_ROUNDS none end; do
		port=$((9610 + r * 4))
		signal_peer $port "$spec"
		[ "$spec" != end ] || break
		wait_peer $((port + 1))
		f=/tmp/st.fault.$r
		: > $f
		st_fault_arm "$spec" || not_ok "stress: fault $spec: armed"
		t0=$(st_ms)
		# Where each connect fails: none need be established.
		all=
		case $spec in rdma_resolve_ip:100|ib_send_cm_req:100|ib_send_cm_rep:100) all=1 ;; esac
		case $spec in
		fuzz:*)
			ST_FUZZ=$ST_FAULT_FUZZ
			st_fuzz "$srv0,$srv1,fd00::1,fd00::2,$(addr_of 0),fd00::100"
			rc=0 ;;
		*)
			(echo 1 > /proc/self/make-it-fail
			 exec cm_stress -c "$srv0" -6 fd00::1 -d "$srv1" -D fd00::2 -p $ST_PORT \
				-n $ST_FAULT_N -f 50 -w $ST_FAULT_N -T 120 -S $seed ${all:+-E}) > $f 2>&1
			rc=$? ;;
		esac
		n=$(st_fault_disarm "$spec")
		signal_peer $((port + 2))
		sn=$(st_hear $((port + 3)))
		case $spec in slab*|fuzz*) echo "[client] fault $spec: $n faults ($(st_fault_split))" ;; esac
		grep '^STRESS' $f | sed "s/^/[client fault $spec] /" | tail -n 4
		case $spec in
		fuzz:*)
			check "stress: fault $spec: the fuzzers under failed allocations; faults injected: client $n, server $sn" \
				[ $((n + sn)) -gt 0 ] ;;
		*)
			att=$(st_field $f attempted) est=$(st_field $f established)
			rej=$(st_field $f rejected) fail=$(st_field $f failed) des=$(st_field $f destroyed)
			secs=$(( ($(st_ms) - t0) / 1000 ))
			echo "$spec $n $sn $att $est $rej $fail $des $secs" >> /tmp/st.fault.sum
			ktap "# stress: fault $spec: $(sed -n 's/^STRESS rejected by status/rejected by status/p' $f | tail -n 1) ($secs s)"
			good=0
			[ "$rc" = 0 ] && [ -n "$att" ] && good=1
			# Faults were injected, but in a control round; the first
			# control round sets the baseline, the last one must come
			# near it; where every call fails, nothing is established.
			if [ -z "$est0" ]; then
				est0=$est
			elif [ "$spec" = none ]; then
				[ "$est" -ge $((est0 / 2)) ] || good=0
			else
				[ $((n + sn)) -gt 0 ] || good=0
			fi
			[ -z "$all" ] || [ "$est" = 0 ] || good=0
			checkd $f "stress: fault $spec: $att connects = $est established + $rej rejected + $fail failed + $des destroyed (control: $est0 established${all:+; none may be}), none lost, duplicated or stray; faults injected: client $n, server $sn" \
				[ $good = 1 ] ;;
		esac
		r=$((r + 1))
	done
	# The table of the closing note: per round, the faults injected and
	# how the connects ended.
	ktap "# stress: fault rounds: round, faults client/server, connects: attempted established rejected failed destroyed, seconds"
	while read -r spec n sn att est rej fail des secs; do
		ktap "# stress: fault   $spec  $n/$sn  $att $est $rej $fail $des  ${secs}s"
	done < /tmp/st.fault.sum
}

# st_fault_devices: every RDMA device deleted, which waits for every
# reference to it that the RDMA CM holds (cma_remove_one()), within 60 s;
# the kernel's stacks if not.
st_fault_devices() {
	local d pids=
	for d in $(ls /sys/class/infiniband); do
		$RDMA link del "$d" &
		pids="$pids $!"
	done
	if ! wait_for 60 sh -c "[ -z \"\$(ls /sys/class/infiniband)\" ]"; then
		st_dump "rdma link del of every device did not end within 60 s"
		not_ok "stress: fault phase: every RDMA device deleted (rdma link del), as rmmod would need"
		return
	fi
	wait $pids
	ok "stress: fault phase: every RDMA device deleted (rdma link del), as rmmod would need"
}

stress_server() {
	st_size
	if ! why=$(st_prereq); then
		skip "stress: $why"
		return
	fi
	a0=$(addr_of 0) a1=$(addr_of 1)
	# A second address of eth0, for the listener race.
	a3=${a0%.*}.3
	sysctl -qw net.ipv4.conf.all.arp_ignore=1
	# Addresses are removed by the test, not by a link going down.
	sysctl -qw net.ipv6.conf.all.keep_addr_on_down=1
	run $IP -6 addr add fd00::1/64 dev eth0 nodad
	run $IP -6 addr add fd00::2/64 dev eth1 nodad
	run $IP addr add "$a3/24" dev eth0
	wait_for 10 grep -qs "fd00:0000:0000:0000:0000:0000:0000:0002" /sys/class/infiniband/rxe1/ports/1/gids/*
	mkdir -p $ST_CFS/rxe1
	echo auto > $ST_CFS/rxe1/ports/1/gid_mismatch
	st_phase load || st_phase linkdel || st_phase fault || signal_peer 9601
	if st_phase load || st_phase linkdel || st_phase fault; then
		w0=$(dmesg | grep -c 'IP-to-GID mismatch at port')
		t0=$(st_ms)
		cm_stress -s "$a0,fd00::1" -p $ST_PORT -t 900 > /tmp/st.srv 2>&1 &
		srv=$!
		tail -f /tmp/st.srv &
		srvtail=$!
		wait_for 60 grep -q listening /tmp/st.srv
		wait_listen $ST_PORT $((ST_PORT + 1))
		signal_peer 9601
	fi
	# The client's end: it may come while this side still ends the load
	# (signal_peer gives up after a minute).
	wait_peer 9605 &
	w5=$!
	if st_phase load; then
		# load: churn, configfs and teardown while the client connects.
		wait_peer 9602
		# The client's next signals may come while this side is busy.
		wait_peer 9603 &
		w3=$!
		rm -f /tmp/st.stop
		(sleep 60; st_dump "60 s into the load") &
		st_stall_watch /tmp/st.srv &
		st_noise_all && cm_stress -L $ST_CHURN -a "$a0,fd00::1" -p 7710 > /tmp/st.churn 2>&1 &
		churn=$!
		# The listener race: listeners bound to 192.0.2.3 on the load's
		# port come and go while the client's race connects reach them.
		# Their ib_cm listen at rxe0 is the one of the listener on
		# 192.0.2.1, so destroying them does not wait for ib_cm's
		# handlers (patches/cma-fixes/0003).  Not on rxe1: a process with rxe1
		# open holds up its 'rdma link del' (rxe cannot disassociate
		# user contexts), and a half-removed rxe1 under a long load ends
		# in a retransmission collapse (stress item 5).
		cm_stress -L $ST_CHURN -o -a "$a3" -p $ST_PORT > /tmp/st.churn2 2>&1 &
		churn2=$!
		st_noise_all && st_writer rxe0 rxe1 &
		wr=$!
		td=0
		st_noise_all || { td=10; cm_stress -L 1 -a "$a0" -p 7710 > /tmp/st.churn 2>&1 & churn=$!; }
		st_noise_all && sleep 5 &&
		run $RDMA link del rxe1 && td=$((td + 1))
		st_noise_all && {
			sleep 3
			run $RDMA link add rxe1 type rxe netdev eth1 && td=$((td + 1))
			# The package's settings for the new rxe1 race the configfs
			# writer, which removes rxe1's directory: their refusal is
			# not a failed step.
			apply_defaults rxe1 || echo "[server] rxe1's settings met the configfs writer"
			sleep 3
			run $IP link set eth1 down && td=$((td + 1))
			sleep 2
			run $IP link set eth1 up && td=$((td + 1))
			sleep 3
			run $IP addr del "$a1/24" dev eth1 && td=$((td + 1))
			run $IP -6 addr del fd00::2/64 dev eth1 && td=$((td + 1))
			sleep 2
			run $IP addr add "$a1/24" dev eth1 && td=$((td + 1))
			run $IP -6 addr add fd00::2/64 dev eth1 nodad && td=$((td + 1))
			sleep 2
			run $IP -6 addr del fd00::1/64 dev eth0 && td=$((td + 1))
			sleep 1
			run $IP -6 addr add fd00::1/64 dev eth0 nodad && td=$((td + 1))
		}
		wait $churn
		crc=$?
		sed 's/^/[server churn] /' /tmp/st.churn
		checkd /tmp/st.churn "stress: listener churn: $(st_field /tmp/st.churn listened) of $ST_CHURN cycles listened" \
			[ $crc = 0 -a "$(st_field /tmp/st.churn cycles)" = $ST_CHURN ]
		wait $churn2
		crc=$?
		sed 's/^/[server churn2] /' /tmp/st.churn2
		checkd /tmp/st.churn2 "stress: listener race: $(st_field /tmp/st.churn2 listened) of $ST_CHURN listeners on $a3:$ST_PORT, $(st_field /tmp/st.churn2 events) connect requests, each rejected ($(st_field /tmp/st.churn2 rejected)) or its id destroyed" \
			[ $crc = 0 -a "$(st_field /tmp/st.churn2 cycles)" = $ST_CHURN ]
		wait $w3
		grep progress /tmp/st.srv | tail -n 1 | grep -q ' est=0 ' && st_dump "after the load"
		touch /tmp/st.stop
		wait $wr
		mkdir -p $ST_CFS/rxe1 $ST_CFS/rxe0
		echo "[server] configfs writer: $(cat /tmp/st.writer.server 2>/dev/null) rounds; teardown steps $td"
		check "stress: server teardown under load: rxe1 deleted and added, eth1 down/up, 3 addresses removed and added ($td of 10 steps)" \
			[ $td = 10 ]
		check "stress: rxe1 is active again" wait_for 30 sh -c "$RDMA link show rxe1/1 | grep -q 'state ACTIVE'"
	fi
	# linkdel: the client's device goes; the server keeps serving.
	st_phase linkdel && wait_peer 9604
	# fuzz: both sides, against each other.
	st_phase fuzz && st_mark fuzz && st_fuzz "$a0,$a1,fd00::1,fd00::2,$RCG_peer,fd00::100"
	st_phase fault && st_fault_server
	wait $w5
	if st_phase load || st_phase linkdel || st_phase fault; then
		kill -TERM $srv
		wait $srv
		kill $srvtail
		t1=$(st_ms)
		sed 's/^/[server stress] /' /tmp/st.srv | tail -n 5
		# linkdel alone (stress-b) may establish nothing: the client's
		# device goes two seconds into its load.
		st_phase load &&
		check "stress: the server served connections ($(st_field /tmp/st.srv established) established)" \
			[ "$(st_field /tmp/st.srv established)" -gt 0 ]
		w=$(( $(dmesg | grep -c 'IP-to-GID mismatch at port') - w0 ))
		sup=$(dmesg | sed -n 's/.*IP-to-GID mismatch.* (\([0-9]*\) earlier reports suppressed)$/\1/p' | awk '{ s += $1 } END { print s + 0 }')
		secs=$(( (t1 - t0) / 1000 ))
		echo "[server] mismatch counts: rxe1 gid_mismatch_count $(cat $ST_CFS/rxe1/ports/1/gid_mismatch_count) gid_reject_count $(cat $ST_CFS/rxe1/ports/1/gid_reject_count) (since rxe1 was added again)"
		check "stress: mismatch warnings within the rate limit: $w in $secs s ($sup suppressed), at most 5 per 5 s" \
			[ $w -le $(( (secs / 5 + 2) * 5 )) ]
	fi
	st_no_cm_id
	sysctl -qw net.ipv4.conf.all.arp_ignore=0
	run $IP -6 addr del fd00::1/64 dev eth0
	run $IP -6 addr del fd00::2/64 dev eth1
	run $IP addr del "$a3/24" dev eth0
	st_phase fault && st_fault_devices
}

# st_no_cm_id: no cm_id once every process is done (ids of connections
# that the peer still ends may take a moment).
st_no_cm_id() {
	st_mark "the end"
	wait_for 60 st_cm_ids_gone
	$RDMA res show cm_id > /tmp/st.cm_id 2>&1
	sed "s/^/[$RCG_role cm_id] /" /tmp/st.cm_id | head -n 20
	checkd /tmp/st.cm_id "stress: no cm_id left (rdma res show cm_id)" [ ! -s /tmp/st.cm_id ]
}

# st_check_load NAME FILE RC [UNSENT]: cm_stress's accounting.  UNSENT
# (st_disc_unsent) of its connections without DISCONNECTED are stock's
# and fail nothing when everything else adds up.
st_check_load() {
	local rc=$3 uns=${4:-0} dl
	f=$2
	att=$(st_field "$f" attempted) est=$(st_field "$f" established)
	rej=$(st_field "$f" rejected) fail=$(st_field "$f" failed)
	des=$(st_field "$f" destroyed) dl=$(st_field "$f" disc_lost)
	if [ "$rc" = 2 ] && [ "$uns" -gt 0 ] && [ "$dl" = "$uns" ] &&
	   [ "$(st_field "$f" lost)" = 0 ] && [ "$(st_field "$f" dup)" = 0 ] &&
	   [ "$(st_field "$f" stray)" = 0 ] && [ "$est" -gt 0 ] &&
	   [ "$att" = $((est + rej + fail + des)) ]; then
		ktap "# stress: $1: $uns disconnects sent no DREQ: their source GID fd00::100 was deleted (stock, Known limitations)"
		rc=0
	fi
	checkd "$f" "stress: $1: $att connects = $est established + $rej rejected + $fail failed + $des destroyed, none lost, duplicated or stray (seed $(st_field "$f" seed))" \
		[ "$rc" = 0 -a -n "$att" ]
}

stress_client() {
	st_size
	if ! why=$(st_prereq); then
		skip "stress: $why"
		return
	fi
	srv0=$RCG_peer srv1=$(echo "$RCG_peer" | sed 's/\.1$/.2/') srv3=$(echo "$RCG_peer" | sed 's/\.1$/.3/')
	sysctl -qw net.ipv6.conf.all.keep_addr_on_down=1
	run $IP -6 addr add fd00::100/64 dev eth0 nodad
	wait_peer 9601
	ping -c 1 -W 2 "$srv0" > /dev/null
	ping -c 1 -W 2 "$srv1" > /dev/null
	mac1=$($IP neigh show "$srv1" dev eth0 | sed -n 's/.*lladdr \([^ ]*\).*/\1/p')
	$IP neigh replace "$srv1" lladdr "$mac1" dev eth0 nud permanent
	$IP neigh replace "$srv0" lladdr "$mac1" dev eth0 nud stale
	p=$ST_CFS/rxe0/ports/1
	if st_phase load; then
		r0=$(cat $p/gid_retry_count) f0=$(cat $p/gid_retry_failed_count)

		# load
		st_mark load
		rm -f /tmp/st.stop
		st_cma_trace_on
		t0=$(st_ms)
		cm_stress -c "$srv0" -6 fd00::1 -d "$srv1" -D fd00::2 -p $ST_PORT \
			-n $ST_N -f $ST_INFLIGHT -w $ST_WAVE -T 300 ${RCG_stress_seed:+-S $RCG_stress_seed} > /tmp/st.load 2>&1 &
		ld=$!
		tail -f /tmp/st.load &
		ldtail=$!
		# The listener race (the server's churn2): connects to 192.0.2.3
		# on the load's port, where listeners come and go, never accept, and
		# reject or destroy each request that reaches them.
		cm_stress -c "$srv3" -p $ST_PORT -n $((ST_N / 4)) -f 50 -w $((ST_WAVE / 4)) -e -T 300 > /tmp/st.race 2>&1 &
		race=$!
		st_noise_all && st_writer rxe0 &
		wr=$!
		(sleep 90; st_dump "90 s into the load") &
		st_stall_watch /tmp/st.load &
		signal_peer 9602
		td=0
		st_noise || td=4
		# Once the first connects are through, the client's own teardown.
		st_noise && wait_for 300 grep -q 'STRESS progress' /tmp/st.load &&
		{ { echo "rcg: deleting fd00::100" > $ST_TR/trace_marker; } 2>/dev/null || :; } &&
		run $IP -6 addr del fd00::100/64 dev eth0 && td=$((td + 1))
		st_noise && {
			sleep 2
			run $IP -6 addr add fd00::100/64 dev eth0 nodad && td=$((td + 1))
			sleep 5
			if [ "$RCG_stress_noise" = noflap ] || [ "$RCG_stress_noise" = addr ]; then
				td=$((td + 2))
			else
				run $IP link set eth0 down && td=$((td + 1))
				sleep 2
				run $IP link set eth0 up && td=$((td + 1))
			fi
		}
		$IP neigh replace "$srv1" lladdr "$mac1" dev eth0 nud permanent
		wait $ld
		lrc=$?
		t1=$(st_ms)
		kill $ldtail
		[ "$(st_field /tmp/st.load lost)" = 0 ] || st_dump "connects lost"
		st_cm_counters load
		st_cma_trace_lost /tmp/st.load
		touch /tmp/st.stop
		wait $wr
		r1=$(cat $p/gid_retry_count) f1=$(cat $p/gid_retry_failed_count)
		echo "[client] load: $(( (t1 - t0) / 1000 )) s; configfs writer $(cat /tmp/st.writer.client 2>/dev/null) rounds; retries $((r1 - r0)), failed $((f1 - f0))"
		st_check_load load /tmp/st.load $lrc "$(st_disc_unsent /tmp/st.load)"
		wait $race
		rrc=$?
		if [ "$(st_field /tmp/st.race lost)" != 0 ]; then
			grep -h '^STRESS lost\|^STRESS   ' /tmp/st.race | head -n 20 | sed "s/^/[$RCG_role race] /"
			st_cma_trace_lost /tmp/st.race
		fi
		st_check_load race /tmp/st.race $rrc
		att=$(($(st_field /tmp/st.load attempted) + $(st_field /tmp/st.race attempted)))
		check "stress: load: at least 200 connects in flight at once ($(st_field /tmp/st.load max_connecting))" \
			[ "$(st_field /tmp/st.load max_connecting)" -ge 200 ]
		# Not "at least one": the writers flip the client's budget (0-3)
		# and the server's policy (off, warn: no REJ 12), so a CI-size
		# load may see no REJ 12 while its budget is non-zero (one CI-size
		# run in four of session 15: 6 REJ 12 in its first 20 s, none
		# retried, none later).
		# The gidretry group counts retries where the scenario makes one.
		check "stress: load: retries $((r1 - r0)) <= budget 3 x $att connects" \
			[ $((r1 - r0)) -le $((3 * att)) ]
		check "stress: client teardown under load: fd00::100 removed and added, eth0 down/up ($td of 4 steps)" [ $td = 4 ]
		signal_peer 9603
	fi
	if st_phase linkdel; then
		echo 2 > $p/gid_reject_retries
		echo 1 > $p/read_limit_clamp

		# linkdel: rxe0 goes while connects run.
		st_mark linkdel
		wait_for 30 sh -c "$RDMA link show rxe0/1 | grep -q 'state ACTIVE'"
		$IP neigh replace "$srv1" lladdr "$mac1" dev eth0 nud permanent
		# -e: the device may go before any connect establishes.
		cm_stress -c "$srv0" -6 fd00::1 -d "$srv1" -D fd00::2 -p $ST_PORT \
			-n $ST_LINKDEL_N -f $ST_INFLIGHT -w $ST_WAVE -T 300 -e > /tmp/st.linkdel 2>&1 &
		ld=$!
		tail -f /tmp/st.linkdel &
		ldtail=$!
		# Two seconds after the load started its connects (its first
		# line), while they are in flight: its first progress line comes
		# ten seconds in, after a CI-size load may have ended, and one
		# established connect may never show in one.
		wait_for 120 grep -q '^STRESS seed=' /tmp/st.linkdel
		sleep 2
		t2=$(st_ms)
		loaded=0
		kill -0 $ld 2>/dev/null && loaded=1
		run $RDMA link del rxe0 &
		del=$!
		wait $ld
		lrc=$?
		wait $del
		drc=$?
		echo "[client] linkdel: 'rdma link del rxe0' took $(( ($(st_ms) - t2) / 1000 )) s"
		kill $ldtail
		st_check_load linkdel /tmp/st.linkdel $lrc
		check "stress: rdma link del rxe0 started while the load ran" [ $loaded = 1 ]
		check "stress: rdma link del rxe0 under load completes" [ $drc = 0 ]
		rdma_add rxe0 rxe eth0
		check "stress: rxe0 is active again" wait_for 30 sh -c "$RDMA link show rxe0/1 | grep -q 'state ACTIVE'"
		$IP neigh replace "$srv1" lladdr "$mac1" dev eth0 nud permanent
		signal_peer 9604
	fi
	# fuzz
	st_phase fuzz && st_mark fuzz && st_fuzz "$srv0,$srv1,fd00::1,fd00::2,$(addr_of 0),fd00::100"
	st_phase fault && st_fault_client
	signal_peer 9605
	st_no_cm_id
	run $IP -6 addr del fd00::100/64 dev eth0
	$IP neigh flush dev eth0
	st_phase fault && st_fault_devices
}
