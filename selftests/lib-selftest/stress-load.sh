#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The stress load's verdict (st_check_load, st_disc_unsent of
# selftests/rdma_cm/stress.sh) on a synthesized cm_stress log and RDMA CM
# trace.  A connection without DISCONNECTED is forgiven only when it began
# on fd00::100, the address that the client's teardown deletes, and the
# trace shows its rdma_disconnect() after the deletion, ib_cm refusing the
# DREP in TIMEWAIT and no DREQ sent or skipped; every other shortfall
# still fails.  TAP output.  Run by make check with
# busybox sh, as in the VMs.
set -e
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../rdma_cm/stress.sh"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
ST_TR=$w
verdict=
ok() { verdict=ok; }
not_ok() { verdict="not ok"; }
ktap() { :; }

# conn ID SRC [ERRNO]: a connection without DISCONNECTED, as cm_stress
# prints it, with the kernel's id ID from SRC.
conn() {
	echo "STRESS no DISCONNECTED within 150 s (kind v6, rdma_disconnect errno ${3:-0}, TIMEWAIT_EXIT not seen)" >> $w/load
	echo "STRESS   link rxe0/1 cm-idn $1 state CONNECT ps TCP pid 127 comm cm_stress src-addr $2:50379 dst-addr fd00::1:7701 " >> $w/load
}
# ev TASK EVENT PAYLOAD: one trace line, one microsecond after the last.
t=40000000
ev() {
	t=$((t + 1))
	printf '%16s     [000] .....    %d.%06d: %s: %s\n' "$1" $((t / 1000000)) $((t % 1000000)) "$2" "$3" >> $w/trace
}
marker() { ev sh-140 tracing_mark_write "rcg: deleting fd00::100"; }
# disc ID: rdma_disconnect() of id ID by cm_stress.
disc() { ev cm_stress-127 cm_disconnect "cm.id=$1 src=[fd00::100]:50379 dst=[fd00::1]:7701 tos=0"; }
# icm TASK EVENT STATE: an ib_cm event of the class icm_id_class.
icm() { ev "$1" "$2" "local_id=1234 remote_id=5678 state=$3 lap_state=LAP_IDLE"; }
# unsent ID: the stock signature: no DREQ could be built, DREP refused.
unsent() { disc $1; icm "<...>-127" icm_send_drep_err TIMEWAIT; }
# summary LOST DISC_LOST: cm_stress's last line, 10 connects in all.
summary() {
	echo "STRESS seed=1 attempted=10 established=4 rejected=3 failed=2 destroyed=1 disconnected=2 disc_lost=$2 lost=$1 dup=0 stray=0 max_inflight=10 max_connecting=10 avg_ms=1 secs=1" >> $w/load
}

n=0 bad=0
# expect WANT NAME RC: the verdict on the load that $w holds, then a new one.
expect() {
	n=$((n + 1))
	st_check_load load $w/load "$3" "$(st_disc_unsent $w/load)"
	if [ "$verdict" = "$1" ]; then
		echo "ok $n stress load verdict: $2 ($verdict)"
	else
		echo "not ok $n stress load verdict: $2 ($verdict, want $1)"
		bad=1
	fi
	: > $w/load
	: > $w/trace
}

echo "1..16"
: > $w/load
: > $w/trace
summary 0 0
expect ok "every connect ended" 0

conn 7 fd00::100; conn 14 fd00::100
ev cm_stress-127 cm_send_rtu "cm.id=7 src=[fd00::100]:50379 dst=[fd00::1]:7701 tos=0"
marker; unsent 7
# another task's DREQ between id 14's disconnect and ib_cm's answer
disc 14; icm kworker/0:1-11 icm_send_dreq ESTABLISHED; icm cm_stress-127 icm_send_drep_err TIMEWAIT
summary 0 2
expect ok "two disconnects after the deletion built no DREQ, DREP refused in TIMEWAIT" 2

conn 7 fd00::100; conn 14 fd00::100
marker; unsent 7; disc 14; icm cm_stress-127 icm_send_dreq ESTABLISHED
summary 0 2
expect "not ok" "one of them sent a DREQ" 2

conn 7 fd00::100; conn 14 fd00::100
marker; unsent 7; disc 14; icm cm_stress-127 icm_dreq_skipped IDLE; icm cm_stress-127 icm_send_drep_err IDLE
summary 0 2
expect "not ok" "ib_cm skipped one's DREQ: not the established id (a retry's)" 2

conn 7 fd00::100
marker; disc 7; icm cm_stress-127 icm_dreq_skipped TIMEWAIT; icm cm_stress-127 icm_send_drep_err TIMEWAIT
summary 0 1
expect "not ok" "ib_cm skipped its DREQ in TIMEWAIT (a REJ's timewait, not a DREQ that failed)" 2

conn 7 fd00::100
marker; disc 7; icm cm_stress-127 icm_send_drep_err DREQ_SENT
summary 0 1
expect "not ok" "ib_cm refused the DREP in another state than TIMEWAIT" 2

conn 7 fd00::100
marker; disc 7; ev cm_stress-127 cm_sent_drep "cm.id=7 src=[fd00::100]:50379 dst=[fd00::1]:7701 tos=0"
summary 0 1
expect "not ok" "it sent a DREP" 2

conn 7 fd00::100; conn 9 192.0.2.100
marker; unsent 7; unsent 9
summary 0 2
expect "not ok" "one began on an address that stayed" 2

conn 7 fd00::100
marker
summary 0 1
expect "not ok" "the trace no longer holds its disconnect" 2

conn 7 fd00::100
unsent 7; marker
summary 0 1
expect "not ok" "its disconnect came before the deletion" 2

conn 7 fd00::100
marker; unsent 70
summary 0 1
expect "not ok" "the trace holds id 70's disconnect, not id 7's" 2

conn 7 fd00::100
echo "STRESS   link rxe0/1 cm-idn 8 state CONNECT ps TCP pid 127 comm cm_stress src-addr fd00::100:50379 dst-addr fd00::2:7701 " >> $w/load
marker; unsent 7; unsent 8
summary 0 1
expect "not ok" "its report names two ids from fd00::100" 2

conn 7 fd00::100 22
marker; unsent 7
summary 0 1
expect "not ok" "rdma_disconnect() failed" 2

conn 7 fd00::100
marker; unsent 7
summary 1 1
expect "not ok" "a connect is lost besides" 2

conn 7 fd00::100
marker; unsent 7
summary 0 1
rm $w/trace
expect "not ok" "no trace" 2

conn 7 fd00::100
marker; unsent 7
summary 0 1
expect ok "and with the trace" 2
exit $bad
