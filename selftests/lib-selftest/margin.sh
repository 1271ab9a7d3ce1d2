#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM timeout margin of selftests/run: selftests/qemu/run-vms records how
# long a VM pair ran, and vm_margin (scripts/lib.sh) fails a pair that used
# more than half of its timeout.  Here run-vms starts a stand-in for QEMU
# that sleeps as long as a slow group would run (VM_QEMU), with a timeout
# of 8 s, and pairs whose server panics.  TAP output; about 25 s.
set -e
. "$(dirname "$0")/../../scripts/lib.sh"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
# The stand-in has no TSC to set.
export RCG_TSC=

# The stand-in: both "VMs" sleep FAKE_VM_SLEEP seconds, then power off;
# the one whose role is FAKE_PANIC panics at once, as a kernel would
# print it to the console, and ends; with FAKE_PLAN it has printed its
# KTAP plan first (its tests had ended: a panic in the poweroff path).
cat > "$w/qemu" <<'EOF'
#!/bin/sh
role=
for a; do case $a in *rcg.role=server*) role=server ;; *rcg.role=client*) role=client ;; esac; done
if [ -n "$FAKE_PANIC" ] && [ "$role" = "$FAKE_PANIC" ]; then
	for a; do case $a in file:*.console) echo "Kernel panic - not syncing: stand-in" > "${a#file:}" ;; esac; done
	[ -z "$FAKE_PLAN" ] || for a; do case $a in file:*.ktap) echo "1..1" > "${a#file:}" ;; esac; done
	exit 0
fi
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

echo "1..6"
pair "a pair of 1 s passes within 8 s" 1 8 0 0
pair "a pair of 5 s fails: more than half of 8 s, though it ended in time" 5 8 0 1
pair "a pair that outlives 3 s is killed and fails" 30 3 1 1
# A server that panics: the client gets VM_GRACE (2 s), not the 40 s
# timeout, and the pair fails.
n=$((n + 1)) rc=0 t0=$(date +%s)
VM_QEMU=$w/qemu FAKE_VM_SLEEP=30 FAKE_PANIC=server VM_GRACE=2 VM_TIMEOUT=40 \
	"$TOP/selftests/qemu/run-vms" "$w/panic" kernel initrd stock none 1 2>"$w/panic.log" || rc=$?
t=$(($(date +%s) - t0))
if [ "$rc" = 1 ] && [ "$t" -lt 10 ] && grep -q 'panicked' "$w/panic.log"; then
	echo "ok $n VM margin: a pair whose server panics ends 2 s later, failed ($t s; run-vms exit $rc)"
else
	echo "not ok $n VM margin: a pair whose server panics ends 2 s later, failed ($t s, want < 10; run-vms exit $rc, want 1)"
	fail=1
fi

# The same panic after the server's KTAP plan: the client runs its 5 s.
n=$((n + 1)) rc=0 t0=$(date +%s)
VM_QEMU=$w/qemu FAKE_VM_SLEEP=5 FAKE_PANIC=server FAKE_PLAN=1 VM_GRACE=2 VM_TIMEOUT=40 \
	"$TOP/selftests/qemu/run-vms" "$w/plan" kernel initrd stock none 1 2>"$w/plan.log" || rc=$?
t=$(($(date +%s) - t0))
if [ "$rc" = 0 ] && [ "$t" -ge 5 ]; then
	echo "ok $n VM margin: a server that ran to its plan and then panicked is not cut short ($t s; run-vms exit $rc)"
else
	echo "not ok $n VM margin: a server that ran to its plan and then panicked is not cut short ($t s, want >= 5; run-vms exit $rc, want 0)"
	fail=1
fi

n=$((n + 1))
if why=$(vm_margin "$w/none"); then
	echo "not ok $n VM margin: a pair that recorded no time fails ($why)"
	fail=1
else
	echo "ok $n VM margin: a pair that recorded no time fails ($why)"
fi
exit $fail
