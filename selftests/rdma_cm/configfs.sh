# SPDX-License-Identifier: GPL-2.0
#
# configfs: every attribute of every port under /sys/kernel/config/rdma_cm
# refuses what is not a value: the write fails and the value stays.  The
# stock module has default_roce_mode and default_roce_tos; ours adds the
# read-limit caps and switch, the mismatch policy, notify, the retry budget
# and read-only counters.  A remote peer never reaches these files, but an
# admin's typo must not change what a port does.

CFG=/sys/kernel/config/rdma_cm
# No parser of these files takes any of them: u8 (0-255), booleans (the
# first character decides), the policy names and the RoCE mode names.
CFG_GARBAGE="- -1 256 abc 99999999999999999999 %"

configfs_garbage() {
	local d p a v0 g n=0 bad=0 long

	long=$(printf 'z%.0s' $(seq 1 4096))
	for d in $(ls /sys/class/infiniband); do
		mkdir -p "$CFG/$d" || return 1
		for p in "$CFG/$d"/ports/*; do
			for a in "$p"/*; do
				v0=$(cat "$a")
				for g in $CFG_GARBAGE "$long"; do
					n=$((n + 1))
					if echo "$g" > "$a" 2>/dev/null; then
						echo "# $a took '$(printf '%s' "$g" | cut -c1-16)'"
						bad=$((bad + 1))
					elif [ "$(cat "$a")" != "$v0" ]; then
						echo "# $a changed from '$v0' to '$(cat "$a")'"
						bad=$((bad + 1))
					fi
				done
			done
		done
	done
	echo "# configfs: $n writes of garbage, $bad taken or changed a value"
	[ $n -gt 0 ] && [ $bad = 0 ]
}

# settings_are FILE POLICY CLAMP RETRIES NOTIFY: every port of FILE
# (port_settings of lib.sh) holds these values, and there is a port.
settings_are() {
	sed 's/^/# /' "$1"
	[ -s "$1" ] && ! grep -v " $2 $3 $4 $5\$" "$1"
}

# The kernel starts every port with each feature off, as stock rdma_cm
# (no module parameters); rdma-cm-guard-apply then sets the package's
# /etc/rdma-cm-guard.conf: gid_mismatch=auto, read_limit_clamp=1,
# gid_reject_retries=2, notify untouched.
configfs_defaults() {
	[ "$(my_module)" != stock ] || return 0
	check "configfs: the kernel starts every port off: gid_mismatch off, read_limit_clamp 0, gid_reject_retries 0, notify 0" \
		settings_are /tmp/settings.kernel off 0 0 0
	check "configfs: rdma-cm-guard-apply set the package's settings on every port: auto 1 2 0" \
		settings_are /tmp/settings.applied auto 1 2 0
	rc=0
	rdma-cm-guard-apply > /tmp/apply.again 2>&1 || rc=$?
	checkd /tmp/apply.again "configfs: rdma-cm-guard-apply again changes nothing and exits 0" \
		[ $rc = 0 -a ! -s /tmp/apply.again ]
}

configfs_server() {
	configfs_defaults
	check "configfs: every port attribute refuses garbage and keeps its value" configfs_garbage
}

configfs_client() {
	configfs_defaults
	check "configfs: every port attribute refuses garbage and keeps its value" configfs_garbage
}
