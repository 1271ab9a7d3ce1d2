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

echo "TAP version 13"
echo "1..4"

: > "$t"
expect 0 "an empty report"

cat > "$t" <<'R'
unreferenced object 0xff11000004e3a000 (size 2048):
  comm "rping", pid 1208, jiffies 4294909296
  hex dump (first 32 bytes):
    72 64 6d 61 5f 63 6d 00 00 00 00 00 00 00 00 00  rdma_cm.........
  backtrace (crc 5d2a1c3b):
    __kmalloc_cache_noprof+0x2e1/0x370
    kobject_uevent_env+0x1a4/0x7e0
    lib_test_alloc+0x10/0x20
R
expect 0 "no RDMA function, RDMA words in the comm and the hex dump"

cat >> "$t" <<'R'
unreferenced object 0xff11000004e3b000 (size 1024):
  comm "kworker/u4:1", pid 14, jiffies 4294909300
  hex dump (first 32 bytes):
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................
  backtrace (crc 1a2b3c4d):
    __kmalloc_cache_noprof+0x2e1/0x370
    __rdma_create_id+0x5b/0x640
    ucma_create_id+0x1a5/0x380
R
expect 1 "a leaked rdma_id_private after another subsystem's object"

cat >> "$t" <<'R'
unreferenced object 0xff11000004e3c000 (size 512):
  comm "rdma", pid 300, jiffies 4294909400
  backtrace (crc 0badcafe):
    kmalloc_trace+0x25/0x90
    rxe_alloc_pd+0x30/0x80
R
expect 2 "and one that rxe allocated, last in the report"
exit $fail
