# SPDX-License-Identifier: GPL-2.0
#
# modcycle: rdma_ucm and rdma_cm removed and loaded again MC_N times with
# no id open, a connect after each load (issue 12's module cycles).
#
#   +--------------------+                     +--------------------+
#   | client             |   one L2 segment    | server             |
#   | eth0 192.0.2.2/24  |---------------------| eth0 192.0.2.1/24  |
#   | rxe0               |                     | rxe0, rping -P     |
#   | modprobe -r / load |                     |                    |
#   +--------------------+                     +--------------------+
#
# ours: with the package's modprobe.d rules (tools/rdma-cm-guard-
# modprobe.conf), as installed: each load gives rxe0 the package's
# settings again, and each removal first releases the configfs device
# directories, which pin rdma_cm.  A removal while rdma_ucm uses rdma_cm
# is refused and leaves the settings.  The debug kernel has rdma_cm built
# in: nothing to cycle there.

MC_N=20

modcycle_server() {
	rping -s -a "$(addr_of 0)" -p 7174 -P > /tmp/rping.log 2>&1 &
	mc_pid=$!
	wait_listen 7174
	signal_peer 9701
	wait_peer 9702
	kill $mc_pid 2>/dev/null
}

# mc_busy_ok RC: the removal failed, rdma_cm and its settings are there.
mc_busy_ok() {
	[ "$1" != 0 ] && [ -e /sys/module/rdma_cm ] && cmp -s /tmp/mc.settings /tmp/settings.applied
}
# mc_ours: our module is loaded.
mc_ours() { grep -qs '^rdma-cm-guard ' /sys/module/rdma_cm/version; }

modcycle_client() {
	local i n_rm=0 n_conn=0 n_set=0 n_ours=0 rc ours=
	wait_peer 9701
	if [ "$(my_module)" = builtin ]; then
		skip "modcycle: rdma_cm is built into this kernel"
		signal_peer 9702
		return
	fi
	[ "$(my_module)" = ours ] && ours=1
	if [ -n "$ours" ]; then
		# The package's file, with the VM's paths of kmod and the tool.
		mkdir -p /etc/modprobe.d
		sed -e 's|/sbin/modprobe|/usr/local/bin/modprobe|g' \
		    -e 's|/usr/sbin/rdma-cm-guard-apply|/usr/local/bin/rdma-cm-guard-apply|g' \
		    -e 's|/usr/libexec/rdma-cm-guard/|/usr/local/bin/|g' \
			/usr/local/share/rdma-cm-guard/modprobe.conf > /etc/modprobe.d/rdma-cm-guard.conf
		run $MODPROBE -r rdma_cm > /tmp/mc.busy 2>&1
		rc=$?
		sed 's/^/[client modprobe] /' /tmp/mc.busy
		port_settings > /tmp/mc.settings
		checkd /tmp/mc.busy "modcycle: 'modprobe -r rdma_cm' while rdma_ucm uses it is refused (rc $rc) and the settings stay" \
			mc_busy_ok $rc
	fi
	for i in $(seq $MC_N); do
		if ! $MODPROBE -r rdma_ucm rdma_cm > /tmp/mc.rm 2>&1 || [ -e /sys/module/rdma_cm ]; then
			sed "s/^/[client cycle $i] /" /tmp/mc.rm
			echo "[client cycle $i] rdma_cm refcnt $(cat /sys/module/rdma_cm/refcnt 2>&1)," \
				"holders $(ls /sys/module/rdma_cm/holders 2>&1 | tr '\n' ' ')"
			break
		fi
		n_rm=$((n_rm + 1))
		# rdma_ucm pulls rdma_cm in, through the package's install rule.
		$MODPROBE rdma_ucm > /tmp/mc.load 2>&1 || { sed "s/^/[client cycle $i] /" /tmp/mc.load; break; }
		if [ -n "$ours" ]; then
			mc_ours && n_ours=$((n_ours + 1))
			port_settings > /tmp/mc.settings
			cmp -s /tmp/mc.settings /tmp/settings.applied && n_set=$((n_set + 1))
		fi
		timeout 30 rping -c -v -a "$RCG_peer" -p 7174 -C 1 -S 64 > /tmp/mc.rping 2>&1
		rc=$?
		# The ping's data is the proof. rping's exit status is not: its cm
		# thread can still wait in rdma_get_cm_event() when the main thread
		# destroys the event channel after a good ping, and it then exits
		# with 255 ("rdma_get_cm_event: Bad file descriptor").
		if grep -q '^ping data: rdma-ping-0' /tmp/mc.rping; then
			n_conn=$((n_conn + 1))
			[ $rc = 0 ] || echo "[client cycle $i] rping pinged, then exited with $rc:" \
				"$(grep -v '^ping data' /tmp/mc.rping | tr '\n' ' ')"
		else
			echo "[client cycle $i] rping failed (rc $rc):"
			sed "s/^/[client cycle $i rping] /" /tmp/mc.rping
			$RDMA res show cm_id 2>&1 | sed "s/^/[client cycle $i cm_id] /"
			ip neigh show "$RCG_peer" 2>&1 | sed "s/^/[client cycle $i neigh] /"
			port_settings | sed "s/^/[client cycle $i settings] /"
		fi
	done
	echo "[client] modcycle: $n_rm removals, $n_conn connects, settings $n_set, ours $n_ours of $MC_N"
	check "modcycle: $n_rm of $MC_N cycles of 'modprobe -r rdma_ucm rdma_cm' and 'modprobe rdma_ucm' unloaded rdma_cm" \
		[ $n_rm = $MC_N ]
	check "modcycle: rping connected after each load ($n_conn of $MC_N)" [ $n_conn = $MC_N ]
	if [ -n "$ours" ]; then
		check "modcycle: each load was ours and gave rxe0 the package's settings ($n_ours, $n_set of $MC_N)" \
			[ $n_ours = $MC_N -a $n_set = $MC_N ]
	fi
	check "modcycle: no cm_id left (rdma res show cm_id)" [ -z "$($RDMA res show cm_id 2>/dev/null)" ]
	signal_peer 9702
}
