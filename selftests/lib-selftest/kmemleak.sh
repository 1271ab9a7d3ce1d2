#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kmemleak filter of selftests/lib.sh on a report in the format of
# 6.12 (mm/kmemleak.c print_unreferenced): it counts the objects that RDMA
# code allocated and nothing else, whatever the comm or the hex dump say.
# TAP output.  Run by make check with busybox sh (and its awk), as in the VMs.
set -e
. "$(dirname "$0")/../lib.sh"
t=$(mktemp)
trap 'rm -f "$t"' EXIT

n=0 fail=0
expect() {
	local want=$1 name=$2 got
	got=$(kmemleak_rdma "$t")
	n=$((n + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $n kmemleak filter: $name ($got)"
	else
		echo "not ok $n kmemleak filter: $name (counted $got, want $want)"
		fail=1
	fi
}

# record COMM HEXDUMP FUNC...: append one object to the report, as
# print_unreferenced() prints it (HEXDUMP: one line of it, or empty).
record() {
	comm=$1 hex=$2
	shift 2
	echo "unreferenced object 0xff11000004e3a000 (size 1024):"
	echo "  comm \"$comm\", pid 1208, jiffies 4294909296"
	if [ -n "$hex" ]; then
		echo "  hex dump (first 32 bytes):"
		echo "    $hex"
	fi
	echo "  backtrace (crc 5d2a1c3b):"
	for f; do echo "    $f"; done
}

echo "TAP version 13"
echo "1..5"

: > "$t"
expect 0 "an empty report"

record rping '72 64 6d 61 5f 63 6d 00 00 00 00 00 00 00 00 00  rdma_cm.........' \
	__kmalloc_cache_noprof+0x2e1/0x370 kobject_uevent_env+0x1a4/0x7e0 \
	lib_test_alloc+0x10/0x20 > "$t"
expect 0 "no RDMA function, RDMA words in the comm and the hex dump"

record kworker/u4:1 '00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................' \
	__kmalloc_cache_noprof+0x2e1/0x370 __rdma_create_id+0x5b/0x640 \
	ucma_create_id+0x1a5/0x380 >> "$t"
expect 1 "a leaked rdma_id_private after another subsystem's object"

record rdma '' kmalloc_trace+0x25/0x90 rxe_alloc_pd+0x30/0x80 >> "$t"
expect 2 "and one that rxe allocated, last in the report, without a hex dump"

record cm_stress '' >> "$t"
expect 3 "and one without a backtrace (kmemleak's stack depot allocation failed)"
exit $fail
