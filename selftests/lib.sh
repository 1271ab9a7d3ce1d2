#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The shell library of the selftest VMs (busybox sh).  selftests/qemu/init
# runs "lib.sh vm-main"; tests in rdma_cm/*.sh use the helpers below.
#
# busybox sh prefers its own applets, so iproute2 and kmod go by full path.
IP=/usr/local/bin/ip
RDMA=/usr/local/bin/rdma
MODPROBE=/usr/local/bin/modprobe
INSMOD=/usr/local/bin/insmod
KTAP=/dev/ttyS1
SYNC_PORT=9100
n_test=0

# run CMD...: echo a command, then run it.
run() {
	echo "[$RCG_role] # $*"
	"$@"
}

# The console's copy carries the VM's uptime (/proc/uptime, not printk's
# clock, from which it drifts under TCG): where a group's time goes.
ktap() {
	local up
	read -r up _ < /proc/uptime
	echo "$*" > $KTAP
	echo "[$RCG_role up=$up] KTAP: $*"
}
ok() { n_test=$((n_test + 1)); ktap "ok $n_test $RCG_role: $*"; }
not_ok() { n_test=$((n_test + 1)); ktap "not ok $n_test $RCG_role: $*"; }
skip() { n_test=$((n_test + 1)); ktap "ok $n_test $RCG_role: $* # SKIP"; }
# demo TEXT: what make demo prints in this test group's cell.
demo() { ktap "# demo: $*"; }
# check NAME CMD...: one test point from a command's exit status.
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
# checkd FILE NAME CMD...: check; a failure also puts FILE's last 20 lines
# in the KTAP output as diagnostics, where CI shows them.
checkd() {
	file=$1 name=$2; shift 2
	if "$@"; then ok "$name"; return 0; fi
	not_ok "$name"
	tail -n 20 "$file" | while IFS= read -r l; do ktap "# $l"; done
}

# rping_ok RC FILE: rping, with exit status RC and its output in FILE, ran
# its pings.  RC alone does not say so: after a good run, its cm thread
# may read the event channel that its main thread has just destroyed
# ("rdma_get_cm_event: Bad file descriptor", exit 255).  That race is
# taken for success only when rping tore the connection down and printed
# nothing else (but the line of run(), if FILE holds it).
rping_ok() {
	[ "$1" = 0 ] && return 0
	grep -q 'DISCONNECT EVENT' "$2" || return 1
	! grep -v -e 'DISCONNECT EVENT' -e '^rdma_get_cm_event: Bad file descriptor' \
		-e '^ping data' -e "^\[$RCG_role\] # " "$2" | grep -q .
}

# wait_for SECONDS CMD...: run CMD every 0.2 s until it succeeds, for up
# to SECONDS.  Tests wait for events, not for time: a busy machine runs the
# VMs several times slower than an idle one.
wait_for() {
	_wf_n=$(($1 * 5))
	shift
	until "$@"; do
		_wf_n=$((_wf_n - 1))
		[ $_wf_n -gt 0 ] || return 1
		sleep 0.2
	done
}

# listening PORT: ib_core's restrack shows an RDMA CM listener on PORT.
listening() {
	$RDMA res show cm_id 2>/dev/null | grep -qE "state LISTEN .*src-addr [^ ]*:$1( |\$)"
}
# wait_listen PORT...: a listener is up on each PORT, up to 30 s each.
wait_listen() {
	for _wl_port; do wait_for 30 listening "$_wl_port"; done
	$RDMA res show cm_id | grep LISTEN | sed "s/^/[$RCG_role listen] /"
}

# addr_of IFINDEX: the address (without prefix) of the Nth NIC, from rcg.ip.
addr_of() { echo "$RCG_ip" | cut -d, -f$(($1 + 1)) | cut -d/ -f1; }

# signal_peer PORT [WORD]: tell the peer that we reached PORT's point
# (and WORD, 'go' by default).
signal_peer() {
	for i in $(seq 1 300); do
		echo "${2:-go}" | nc -w 1 "$RCG_peer" "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "[$RCG_role] peer $RCG_peer never waited on $1"
	return 1
}
# wait_peer PORT: wait until the peer calls signal_peer PORT.
wait_peer() { nc -l -p "$1" > /dev/null; }
# hear_peer PORT: wait_peer, and print the peer's WORD.
hear_peer() { nc -l -p "$1"; }

# rxe_guard6 add|del ADDR0 ADDR1: on a two-NIC server, drop IPv6 packets
# for ADDR0 (eth0's) that arrive at eth1, and for ADDR1 (eth1's) at eth0,
# before UDP, as a RoCE NIC drops a packet for a DGID it does not hold.
# Stock rxe oopses on such a packet (issue 15, patches/rxe-fixes/0001); the
# IPv6 rounds use this where rxe lacks the fix (rxe_fixed).
# The rules go ahead of the local table's, which moves from 0 to 200.
rxe_guard6() {
	local old=0 new=200

	[ "$1" = add ] || { old=200; new=0; }
	run $IP -6 rule add pref $new lookup local
	run $IP -6 rule del pref $old lookup local
	run $IP -6 rule "$1" pref 100 iif eth1 to "$2" blackhole
	run $IP -6 rule "$1" pref 101 iif eth0 to "$3" blackhole
}
# rxe_fixed: rxe carries patches/rxe-fixes/0001: the patched debug kernel.
rxe_fixed() { [ "$(my_module)" = builtin ]; }

# rcg.module is MODULE or SERVER_MODULE/CLIENT_MODULE.
my_module() {
	if [ "$RCG_role" = server ]; then echo "${RCG_module%%/*}"; else echo "${RCG_module##*/}"; fi
}

load_modules() {
	case $(my_module) in
	builtin) ;;
	ours)
		# depmod puts updates/ ahead of the stock kernel/ tree.
		run $MODPROBE rdma_cm || return 1
		grep -q rdma-cm-guard /sys/module/rdma_cm/version || return 1
		;;
	stock|*)
		rm -f /lib/modules/*/updates/rdma_cm.ko
		run /usr/local/bin/depmod || return 1
		run $MODPROBE rdma_cm || return 1
		[ ! -e /sys/module/rdma_cm/version ] || return 1
		;;
	esac
	if [ "$(my_module)" != builtin ]; then
		run $MODPROBE virtio_pci && run $MODPROBE virtio_net && run $MODPROBE rdma_rxe && run $MODPROBE rdma_ucm || return 1
	fi
	# configfs may be a module that rdma_cm just loaded.
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config
}

# The package's settings (tools/rdma-cm-guard.conf at /etc/rdma-cm-guard.conf):
# ours and the patched kernel start every port with each feature off, and
# the package gives them its defaults with rdma-cm-guard-apply, from
# modprobe.d when rdma_cm loads and from udev when a device appears.  The
# VMs have neither: rdma_add and setup_net call it where udev would.
# rcg.defaults=none keeps the kernel's own defaults.
apply_defaults() {
	[ "$(my_module)" != stock ] && [ "$RCG_defaults" != none ] || return 0
	run /usr/local/bin/rdma-cm-guard-apply "$@"
}
# rdma_add NAME TYPE NETDEV: 'rdma link add', then what udev would run.
rdma_add() {
	run $RDMA link add "$1" type "$2" netdev "$3" && apply_defaults "$1"
}
# port_settings: DEVICE/PORT and the values of the per-port switches.
port_settings() {
	for p in /sys/kernel/config/rdma_cm/*/ports/*; do
		[ -f "$p/gid_mismatch" ] || continue
		d=${p%/ports/*}
		echo "${d##*/}/${p##*/} $(cat "$p/gid_mismatch") $(cat "$p/read_limit_clamp")" \
			"$(cat "$p/gid_reject_retries") $(cat "$p/gid_mismatch_notify")"
	done
}

setup_net() {
	i=0
	for a in $(echo "$RCG_ip" | tr , ' '); do
		# rcg.solo=1: a VM without NICs (run-vms), whose rxe loops back.
		[ "$RCG_solo" != 1 ] || run $IP link add eth$i type dummy || return 1
		run $IP addr add "$a" dev eth$i || return 1
		run $IP link set eth$i up || return 1
		# rcg.rdma=siw puts iWARP (siw) on the NICs instead of rxe.
		run $RDMA link add ${RCG_rdma:-rxe}$i type ${RCG_rdma:-rxe} netdev eth$i || return 1
		i=$((i + 1))
	done
	# Before the package's settings, the kernel's: configfs.sh checks both.
	if [ "$(my_module)" != stock ]; then
		for d in $(ls /sys/class/infiniband); do mkdir -p /sys/kernel/config/rdma_cm/$d; done
		port_settings > /tmp/settings.kernel
		apply_defaults || return 1
		port_settings > /tmp/settings.applied
	fi
	run $IP link set lo up
	run $RDMA link show
}

# neigh_lladdr ADDR [DEV]: the MAC of this host's neighbour entry for ADDR
# (on eth0 by default); empty if there is none.
neigh_lladdr() {
	$IP neigh show "$1" dev "${2:-eth0}" | sed -n 's/.*lladdr \([0-9a-f:]*\).*/\1/p'
}

# ms_now: milliseconds since boot.
ms_now() { awk '{ print int($1 * 1000) }' /proc/uptime; }

# nvmet_export NQN ADDR: export null_blk's nullb0 (memory-backed) as NQN at
# ADDR:4420 over RDMA, through nvmet's configfs: the VMs have no nvme-cli.
nvmet_export() {
	local s=/sys/kernel/config/nvmet/subsystems/$1 p=/sys/kernel/config/nvmet/ports/1

	if [ "$(my_module)" != builtin ]; then
		run $MODPROBE null_blk nr_devices=1 memory_backed=1 &&
			run $MODPROBE nvmet-rdma || return 1
	fi
	wait_for 10 [ -b /dev/nullb0 ] || return 1
	mkdir -p "$s/namespaces/1" "$p" || return 1
	echo 1 > "$s/attr_allow_any_host" &&
		echo -n /dev/nullb0 > "$s/namespaces/1/device_path" &&
		echo 1 > "$s/namespaces/1/enable" &&
		echo rdma > "$p/addr_trtype" && echo ipv4 > "$p/addr_adrfam" &&
		echo "$2" > "$p/addr_traddr" && echo 4420 > "$p/addr_trsvcid" &&
		ln -s "$s" "$p/subsystems/$1"
}
# nvme_ctrl NQN: the sysfs directory of the host's controller of NQN.
nvme_ctrl() {
	local c

	c=$(grep -l "$1" /sys/class/nvme/nvme*/subsysnqn 2>/dev/null | head -n1)
	echo "${c%/subsysnqn}"
}
# blk_read DEV LOG: DEV reads (a namespace's node can come before its disk).
blk_read() { dd if="$1" of=/dev/null bs=4096 count=1 2>> "$2"; }
# blk_rw DEV LOG: write 1 MiB of random data to DEV, drop the page cache
# and read it back: the data went to the target and came back.
blk_rw() {
	dd if=/dev/urandom of=/tmp/blk.out bs=4096 count=256 2> /dev/null &&
		dd if=/tmp/blk.out of="$1" bs=4096 count=256 conv=fsync 2>> "$2" &&
		echo 3 > /proc/sys/vm/drop_caches &&
		dd if="$1" of=/tmp/blk.in bs=4096 count=256 2>> "$2" &&
		cmp /tmp/blk.out /tmp/blk.in >> "$2" 2>&1
}

# kmemleak, in a kernel booted with kmemleak=on (selftests/groups): what
# boot left is forgotten before the tests; after them, an object that RDMA
# code allocated and nothing references any more fails the group.  Other
# subsystems' suspects are printed, not counted: they are not ours.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_on() { grep -qw kmemleak=on /proc/cmdline; }
# kmemleak_rdma FILE: how many objects of a kmemleak report RDMA code
# allocated (a function of the RDMA stack in the backtrace), or that have
# no backtrace: kmemleak saves none when its stack depot's allocation
# fails, as the stress test's fault phase makes them under rdma_cm.
kmemleak_rdma() {
	awk '
		function end() { if (obj && (r || !nf)) n++ }
		/^unreferenced object/ { end(); obj = 1; r = 0; bt = 0; nf = 0; next }
		/backtrace/ { bt = 1; next }
		bt && NF { nf++ }
		bt && /(^|[^a-z0-9])_*(rdma|cma|ib|iw|rxe|siw|ucma|uverbs)_/ { r = 1 }
		END { end(); print n + 0 }' "$1"
}
kmemleak_start() {
	kmemleak_on || return 0
	grep -q ' /sys/kernel/debug ' /proc/mounts ||
		mount -t debugfs debugfs /sys/kernel/debug
	[ -w $KMEMLEAK ] || return 0
	echo scan > $KMEMLEAK
	echo clear > $KMEMLEAK
}
kmemleak_check() {
	kmemleak_on || return 0
	if [ ! -w $KMEMLEAK ]; then
		skip "kmemleak: not in this kernel"
		return 0
	fi
	# Objects younger than 5 s are not reported; the second scan
	# confirms the first one's suspects.
	sleep 6
	# kmemleak switches itself off when it cannot allocate its own
	# object (failslab of the fault phase can make it fail): then it
	# checked nothing.
	if ! echo scan > $KMEMLEAK || dmesg | grep -q 'Kernel memory leak detector disabled'; then
		not_ok "kmemleak: still on at the end ($(dmesg | grep -m1 'kmemleak: ' | sed 's/^\[[^]]*\] //'))"
		return 0
	fi
	echo scan > $KMEMLEAK
	cat $KMEMLEAK > /tmp/kmemleak
	sed "s/^/[$RCG_role kmemleak] /" /tmp/kmemleak | head -n 200
	all=$(grep -c '^unreferenced object' /tmp/kmemleak)
	ours=$(kmemleak_rdma /tmp/kmemleak)
	check "kmemleak: no unreferenced object from RDMA code ($ours of $all suspects)" \
		[ "$ours" = 0 ]
}

# rdma_kind: the RDMA device of the NICs, and rxe's mode: 'rxe (HCA mode)'
# where rxe sends to the DMAC of the address vector as an HCA does
# (patches/debug/0002, rdma_rxe.av_dmac=1: the -hw groups).
hca_mode() { [ "$(cat /sys/module/rdma_rxe/parameters/av_dmac 2>/dev/null)" = Y ]; }
rdma_kind() {
	if hca_mode; then
		echo "${RCG_rdma:-rxe} (HCA mode)"
	else
		echo "${RCG_rdma:-rxe}"
	fi
}

vm_main() {
	echo "KTAP version 1" > $KTAP
	echo "[$RCG_role] kernel $(uname -r), rdma_cm $RCG_module"
	if ! load_modules || ! setup_net; then
		not_ok "setup ($(my_module) rdma_cm, $(rdma_kind) on $RCG_ip)"
	else
		ok "setup ($(my_module) rdma_cm, $(rdma_kind) on $RCG_ip)"
		kmemleak_start
		for t in $(echo "$RCG_tests" | tr , ' '); do
			. /selftests/rdma_cm/"$t".sh
			"${t}_${RCG_role}"
		done
		kmemleak_check
	fi
	echo "1..$n_test" > $KTAP
	sync
	echo "[$RCG_role] done"
	# QEMU runs with -no-reboot: a reboot ends it, with or without ACPI.
	reboot -f
}

if [ "$1" = vm-main ]; then vm_main; fi
