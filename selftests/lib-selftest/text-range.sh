#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# text_range (scripts/lib.sh), which gives the fault phase's stack filters
# their address ranges (rcg.fault_text): on objects assembled here with
# functions of known sizes and a System.map written here, as a kernel
# build would hold them.  TAP output.
set -e
. "$(dirname "$0")/../../scripts/lib.sh"
b=$(mktemp -d)
trap 'rm -rf "$b"' EXIT
mkdir -p "$b/d"

# obj NAME FUNC:SIZE[:SECTION]...: an object with these functions.
obj() {
	local o=$1 f n z sec
	shift
	for f; do
		IFS=: read -r n z sec <<< "$f"
		printf '\t.section %s,"ax",@progbits\n\t.globl %s\n\t.type %s,@function\n%s:\n\t.skip %d\n\t.size %s,%d\n' \
			"${sec:-.text}" "$n" "$n" "$n" "$z" "$n" "$z"
	done > "$b/d/$o.s"
	as -o "$b/d/$o.o" "$b/d/$o.s"
}
obj a a_first:16 a_mid:32 a_last:48 a_init:64:.init.text
obj b b_only:256 a_dup:8
obj c c_disc:24 c_other:40
# The map: a_dup twice (a static name of two files), a_init where
# .init.text goes, the rest in link order.
cat > "$b/System.map" <<'EOF'
ffffffff81000000 T _stext
ffffffff82000100 t a_first
ffffffff82000110 t a_mid
ffffffff82000130 T a_last
ffffffff82000200 T b_only
ffffffff82000300 t a_dup
ffffffff82000400 t c_disc
ffffffff82000420 t c_other
ffffffff83000000 t a_dup
ffffffff84000000 T a_init
EOF

n=0 fail=0
expect() {
	local want=$1 name=$2 got
	shift 2
	got=$(text_range "$b" "$@") || got="(failed)"
	n=$((n + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $n text_range: $name ($got)"
	else
		echo "not ok $n text_range: $name (got $got, want $want)"
		fail=1
	fi
}

echo "TAP version 13"
echo "1..5"
# a_last ends at 0x...130 + 48 = 0x...160; .init.text is left out.
expect 0xffffffff82000100-0xffffffff82000160 "one object, from its first function to the end of its last" . d/a.o
# b_only ends at 0x...200 + 256 = 0x...300; a_dup, named twice, is left out.
expect 0xffffffff82000100-0xffffffff82000300 "two objects; a name found twice in System.map is left out" . d/a.o d/b.o
expect 0xffffffff82000400-0xffffffff82000418 "the functions that REGEX names" '^c_disc$' d/c.o
n=$((n + 1))
if text_range "$b" '^none$' d/c.o > /dev/null; then
	echo "not ok $n text_range: no function found fails"
	fail=1
else
	echo "ok $n text_range: no function found fails"
fi
n=$((n + 1))
want="cma=0x2-0x3,ucma=0x4-0x5,disc=0x6-0x7"
got=$(text_range() { case $3 in *ucma.o) echo 0x4-0x5 ;; *) [ "$2" = . ] && echo 0x2-0x3 || echo 0x6-0x7 ;; esac; }; fault_text "$b")
if [ "$got" = "$want" ]; then
	echo "ok $n fault_text: the three ranges, named ($got)"
else
	echo "not ok $n fault_text: the three ranges, named (got $got, want $want)"
	fail=1
fi
exit $fail
