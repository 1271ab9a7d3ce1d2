# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the rdma-cm-guard scripts.  Source it, do not run it.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${RCG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rdma-cm-guard}
# Every base the module builds for (DKMS builds for the kernels of their
# series).  HOST_BASES build with this host's compiler and are what 'make
# check' covers; TOOLCHAIN_BASES are Debian sid and experimental kernels
# configured with a compiler that bookworm lacks, built in the cached sid
# root of scripts/toolchain and covered by 'make check-bases'.
HOST_BASES="6.12 6.1"
TOOLCHAIN_BASES="7.3 7.2"
BASES="$HOST_BASES $TOOLCHAIN_BASES"
# The series in patches/ is written against SERIES_BASE, the upstream
# target: its tree (make tree) is the one KUnit and the debug kernel are
# built from.  HOST_BASE is the stock kernel that the module builds for by
# default and that the VM tests boot.
SERIES_BASE=7.3
HOST_BASE=6.12
# Backport bases, each with a series of its own in patches/bases/BASE/,
# checked at the source level (scripts/check-backports).
SOURCE_BASES="6.12"

die() { echo "rdma-cm-guard: $*" >&2; exit 1; }

# checkpatch TREE PATCH [TYPE,...]: checkpatch.pl --strict from TREE, quiet,
# output on stderr.  FILE_PATH_CHANGES is always ignored (drivers/infiniband/
# is in MAINTAINERS as a whole); TYPEs are ignored too.
checkpatch() {
	(cd "$1" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict -q \
		--ignore "FILE_PATH_CHANGES${3:+,$3}" "$2" >&2)
}
say() { echo "+ $*" >&2; }

# vm_margin DIR: the time a VM pair of selftests/qemu/run-vms ran (DIR/time:
# seconds and timeout), as "took N of T s"; false when it used more than
# half of its timeout, so that a group that grows towards its timeout
# fails long before the timeout kills it on a slower or busier machine.
vm_margin() {
	local took limit

	read -r took limit 2>/dev/null < "$1/time" || { echo "no time recorded"; return 1; }
	echo "took $took of $limit s"
	[ $((2 * took)) -le "$limit" ]
}

# tsc_early_khz: "tsc_early_khz=N" for a QEMU TCG guest's kernel command
# line, N the host's TSC rate, at which the guest's TSC runs; nothing on a
# host without a constant TSC or a C compiler.  Without it, a guest
# calibrates its TSC against the emulated PIT, which a busy host starves:
# some guests then find no rate and fall back to the jiffies clocksource
# (4 ms steps), and one found 516.9 MHz for 2600, so that its clock ran
# five times too fast, and so did every timeout of its tests; with no
# HPET or ACPI PM timer in the VMs nothing corrected it.
tsc_early_khz() {
	local d khz

	[ "$(uname -m)" = x86_64 ] && grep -qw constant_tsc /proc/cpuinfo || return 0
	d=$(mktemp -d)
	cc -O2 -o "$d/tsc-khz" "$TOP/selftests/qemu/tsc-khz.c" 2>/dev/null && khz=$("$d/tsc-khz")
	rm -rf "$d"
	[ -n "$khz" ] && echo "tsc_early_khz=$khz"
	return 0
}

# private_apt SUITE [deb-src]: apt-get options for a private apt state
# under $CACHE/apt/SUITE that knows Debian's SUITE only (with deb-src, under
# $CACHE/apt/SUITE-src, its source packages only), updated once a day;
# the system's sources and lists are left alone.
private_apt() {
	local d=$CACHE/apt/$1 mirror=${RCG_DEBIAN_MIRROR:-http://deb.debian.org/debian}
	local kind=deb index=Packages

	[ "$2" != deb-src ] || { kind=deb-src index=Sources d=$d-src; }
	mkdir -p "$d/lists/partial" "$d/archives/partial"
	echo "$kind [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $1 main" \
		> "$d/sources.list"
	touch "$d/status"
	APT_OPTS="-o Dir::Etc::sourcelist=$d/sources.list -o Dir::Etc::sourceparts=-
		-o Dir::State=$d -o Dir::State::lists=$d/lists -o Dir::State::status=$d/status
		-o Dir::Cache=$d -o Dir::Cache::archives=$d/archives -o APT::Sandbox::User=root"
	if [ -z "$(find "$d/lists" -name "*_$index*" -mtime -1 2>/dev/null)" ]; then
		say "apt-get update (private state for $1 in $d)"
		# shellcheck disable=SC2086
		apt-get -q $APT_OPTS update >/dev/null || die "cannot update the private apt state of $1"
	fi
}

# archive_apt BASE-SUITE: APT_OPTS for the archive a base is fetched from:
# a private state for its suite (bases/*: BASE_SUITE), or the system's.
archive_apt() {
	APT_OPTS=
	[ -z "$1" ] || private_apt "$1"
}
# archive_name: that archive, in words (after archive_apt).
archive_name() {
	if [ -n "$BASE_SUITE" ]; then echo "Debian $BASE_SUITE"; else echo "this host's apt sources"; fi
}
# archive_has PKG VERSION: the archive of APT_OPTS still has PKG=VERSION;
# ARCHIVE_VERSIONS lists the versions of PKG it has, newest first.
archive_has() {
	# shellcheck disable=SC2086
	ARCHIVE_VERSIONS=$(apt-cache $APT_OPTS madison "$1" 2>/dev/null |
		awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -urV | tr '\n' ' ' | sed 's/ $//')
	case " $ARCHIVE_VERSIONS " in *" $2 "*) return 0 ;; esac
	return 1
}

# base_load BASE: read bases/BASE and set the paths inside its cache root.
base_load() {
	local f="$TOP/bases/$1"

	[ -f "$f" ] || die "unknown base '$1' (have: $BASES $SOURCE_BASES)"
	BASE_SUITE= BASE_SOURCE_ONLY= BASE_VM_PKGS= BASE_HDR_PKGS= BASE_SERIES=
	# shellcheck source=/dev/null
	. "$f"
	BASE=$1
	ROOT=$CACHE/$BASE/root
	KDIR=$ROOT/usr/src/linux-headers-$BASE_KVER
	SRCTAR=$ROOT/usr/src/$BASE_SOURCE.tar.xz
	MODROOT=$ROOT/lib/modules/$BASE_KVER
	VMLINUZ=$ROOT/boot/vmlinuz-$BASE_KVER
	# A stock kernel to boot (BASE_VM_PKGS, merged /usr).
	VM_ROOT=$CACHE/$BASE/vm
	VM_MODROOT=$VM_ROOT/usr/lib/modules/$BASE_KVER
	VM_VMLINUZ=$VM_MODROOT/vmlinuz
	# A base split as Debian 7.x ships it: the source in ROOT, the headers
	# (BASE_HDR_PKGS) in HDR_ROOT, the kernel and its modules in VM_ROOT.
	HDR_ROOT=$CACHE/$BASE/headers
	if [ -n "$BASE_HDR_PKGS" ]; then
		KDIR=$HDR_ROOT/usr/src/linux-headers-$BASE_KVER
		MODROOT=$VM_MODROOT
		VMLINUZ=$VM_VMLINUZ
	fi
	STOCK_KO=$(ls "$MODROOT"/kernel/drivers/infiniband/core/rdma_cm.ko* 2>/dev/null | head -n1 || true)
	# The series this base builds: patches/ or a backport in
	# patches/bases/X.Y (BASE_SERIES); then the base's fixups,
	# patches/bases/BASE/series, unless that is the series itself.
	SERIES_DIR=$TOP/patches
	[ -z "$BASE_SERIES" ] || SERIES_DIR=$TOP/patches/bases/$BASE_SERIES
	FIXUP_DIR=$TOP/patches/bases/$BASE
	[ "$FIXUP_DIR" != "$SERIES_DIR" ] && [ -f "$FIXUP_DIR/series" ] || FIXUP_DIR=
}

# The series of patches/, in the order of patches/order (its lines: a
# directory, 'module' or 'kernel', what the series is for).  The module
# series make rdma_cm.ko; the kernel series only the kernel trees of make
# tree and the debug kernel, where they apply before the module series.
# A backport (patches/bases/X.Y) has the same directories, or fewer.
# series_dirs ROOT [module|kernel]: the directories of ROOT, in order.
series_dirs() {
	local d what

	sed 's/#.*//' "$TOP/patches/order" | while read -r d what _; do
		[ -n "$d" ] && [ -f "$1/$d/series" ] || continue
		if [ -z "$2" ] || [ "$what" = "$2" ]; then echo "$d"; fi
	done
}
# series_tree_order ROOT: the directories in the order a kernel tree
# applies them, the kernel series first.
series_tree_order() { series_dirs "$1" kernel; series_dirs "$1" module; }
# series_patches ROOT [module|kernel]: their patches in order, as DIR/FILE.
series_patches() {
	local d

	for d in $(series_dirs "$@"); do
		grep -v '^#' "$1/$d/series" | sed "s|^|$d/|"
	done
}

# kver_series KVER: the stable series of a kernel release (6.1 of
# 6.1.0-57-amd64, 6.12 of 6.12.118+deb12-amd64, 7.3 of 7.3-amd64).
kver_series() { echo "$1" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p'; }

# base_for_kver KVER: print the base that serves KVER's stable series (a
# base is named after its series), if any.
base_for_kver() {
	local s b

	s=$(kver_series "$1")
	for b in $BASES; do
		[ "$b" = "$s" ] && { echo "$b"; return 0; }
	done
	return 1
}

# makefile_version MAKEFILE: VERSION.PATCHLEVEL.SUBLEVEL of a kernel
# Makefile, following the include of Debian's per-flavour headers.
makefile_version() {
	local mk=$1 inc

	inc=$(sed -n 's/^include \(\/.*\/Makefile\)$/\1/p' "$mk" | head -n1)
	[ -n "$inc" ] && [ -f "$inc" ] && mk=$inc
	awk '$1 == "VERSION" && $2 == "=" { v = $3 }
	     $1 == "PATCHLEVEL" && $2 == "=" { p = $3 }
	     $1 == "SUBLEVEL" && $2 == "=" { s = $3 }
	     END { if (v != "") print v "." p "." s }' "$mk"
}

# src_version SRC: the kernel version of a source tree or tarball.
src_version() {
	local top t

	if [ -d "$1" ]; then
		makefile_version "$1/Makefile"
		return
	fi
	top=$(tar -tf "$1" | head -n1 | cut -d/ -f1)
	t=$(mktemp)
	tar -xOf "$1" --occurrence=1 "$top/Makefile" > "$t" 2>/dev/null || true
	makefile_version "$t"
	rm -f "$t"
}

# text_range BUILD REGEX OBJ...: the text of the functions of OBJ (paths
# under BUILD) whose name matches REGEX, in BUILD's vmlinux, as START-END
# in hex: from their offsets in .text and System.map (names found there
# once).  The debug kernel has no KASLR.
text_range() {
	local b=$1 re=$2 o lo hi hs s z
	shift 2
	for o; do
		objdump -t "$b/$o" | awk -v re="$re" '$3 == "F" && $4 == ".text" && $6 ~ re { print $6, $5 }'
	done | awk -v map="$b/System.map" '
		BEGIN { while ((getline l < map) > 0) { split(l, f, " "); n[f[3]]++; a[f[3]] = f[1] } }
		n[$1] == 1 { print a[$1], $2 }' | sort | {
		read -r lo hs || return 1
		hi=$lo
		while read -r s z; do hi=$s hs=$z; done
		printf '0x%s-0x%x\n' "$lo" $((0x$hi + 0x$hs))
	}
}
# fault_text BUILD: rcg.fault_text of the debug kernel's VMs, for the
# stack filters of the stress test's fault phase (stress.sh, st_fault):
# rdma_cm's text, ucma's, and that of rdma_disconnect().
fault_text() {
	local c=drivers/infiniband/core
	echo "cma=$(text_range "$1" . $c/cma.o $c/cma_trace.o $c/cma_configfs.o)" \
		"ucma=$(text_range "$1" . $c/ucma.o)" \
		"disc=$(text_range "$1" '^(cma|rdma)_disconnect$' $c/cma.o)" | tr ' ' ,
}
