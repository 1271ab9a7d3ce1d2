#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM timeout margin of selftests/run: selftests/qemu/run-vms records how
# long a VM pair ran, and vm_margin (scripts/lib.sh) fails a pair that used
# more than half of its timeout.  Here run-vms starts a stand-in for QEMU
# that sleeps as long as a slow group would run (VM_QEMU), with a timeout
# of 8 s.  TAP output; about 15 s.
set -e
. "$(dirname "$0")/../../scripts/lib.sh"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

# The stand-in: both "VMs" sleep FAKE_VM_SLEEP seconds, then power off.
cat > "$w/qemu" <<'EOF'
#!/bin/sh
exec sleep "$FAKE_VM_SLEEP"
EOF
chmod +x "$w/qemu"

n=0 fail=0
# pair NAME SLEEP TIMEOUT WANT_RC WANT_MARGIN: run-vms's exit status and
# vm_margin's verdict for a pair that runs SLEEP seconds.
pair() {
	local name=$1 sleep=$2 limit=$3 want_rc=$4 want=$5 rc=0 got=0 why
	VM_QEMU=$w/qemu FAKE_VM_SLEEP=$sleep VM_TIMEOUT=$limit \
		"$TOP/selftests/qemu/run-vms" "$w/$name" kernel initrd stock none 1 2>/dev/null || rc=$?
	why=$(vm_margin "$w/$name") || got=1
	n=$((n + 1))
	if [ "$rc" = "$want_rc" ] && [ "$got" = "$want" ]; then
		echo "ok $n VM margin: $name ($why; run-vms exit $rc)"
	else
		echo "not ok $n VM margin: $name ($why; run-vms exit $rc, want $want_rc; vm_margin $got, want $want)"
		fail=1
	fi
}

echo "1..4"
pair "a pair of 1 s passes within 8 s" 1 8 0 0
pair "a pair of 5 s fails: more than half of 8 s, though it ended in time" 5 8 0 1
pair "a pair that outlives 3 s is killed and fails" 30 3 1 1
n=$((n + 1))
if why=$(vm_margin "$w/none"); then
	echo "not ok $n VM margin: a pair that recorded no time fails ($why)"
	fail=1
else
	echo "ok $n VM margin: a pair that recorded no time fails ($why)"
fi
exit $fail
