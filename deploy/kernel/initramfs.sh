# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Building blocks of the busybox initramfs the qemu guests boot, sourced by
# vmtest.sh (the kernels build.sh makes) and guest-run.sh (Debian's prebuilt
# kernels). The caller sets IRD (the tree being filled) and defines log and
# die. The guest runs the host's own binaries: each one goes in with the
# libraries ldd names, at the paths the host has them.

# The host tools classifier's tests call (tests/netns, tests/deps.sh); they
# go in /usr/gnu/bin, ahead of busybox in PATH only where a script asks.
NETNS_TOOLS="bash realpath id mktemp rm cp mv ln date timeout head tail sed cat
	basename dirname mkdir seq sleep wc tr sort shuf ls cut diff grep nsenter
	mount umount env printf tee sha256sum chmod touch find xargs uname stat
	sysctl nft"
# what some tests need; a missing one fails those tests, saying so
NETNS_EXTRA="curl tmux flock setpriv strace pkill pgrep"
# the exporter's tests only, and ~100 MB: guest-run.sh carries them on asking
NETNS_PROMETHEUS="promtool prometheus"

# Sources the tests compile at run time, and the extra flags they use; the
# guest has no compiler (guest/gcc-shim.sh hands out these builds).
SHIM_SOURCES="tests/netns/udpsend.c: tests/netns/peer.c: tests/netns/ratercv.c:
	tests/metrics/bpf_stats_hold.c:-lbpf"

# Copy a dynamically linked binary and the libraries ldd names.
copy_with_libs() { # src dst-in-initramfs
	local src=$1 dst=$2 lib
	install -D -m 0755 "$src" "$IRD/$dst"
	for lib in $(ldd "$src" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
		[ -e "$IRD$lib" ] || install -D -m 0755 "$lib" "$IRD$lib"
	done
}

# The directories every guest has, busybox, its /sysinit.sh (mounts) and
# the root user the tests and tools look up.
ir_skeleton() {
	rm -rf "$IRD"
	mkdir -p "$IRD"/{bin,sbin,proc,sys,dev,tmp,etc,root,usr/bin,usr/sbin,usr/local/bin,usr/local/lib}
	cp /bin/busybox "$IRD/bin/busybox"
	install -m 0644 "$(dirname "${BASH_SOURCE[0]}")/guest/sysinit.sh" "$IRD/sysinit.sh"
	printf 'root:x:0:0:root:/root:/bin/sh\n' > "$IRD/etc/passwd"
	printf 'root:x:0:\n' > "$IRD/etc/group"
}

# ir_tools DIR REQUIRED OPTIONAL: host tools into DIR of the initramfs; a
# missing required one stops the build, a missing optional one is named.
ir_tools() { # dir "required..." "optional..."
	local t p
	for t in $2; do
		p=$(type -P "$t") || die "$t missing on the host (tests/deps.sh and deploy/kernel/guest-deps.sh install the test tools)"
		copy_with_libs "$p" "$1/$t"
	done
	for t in $3; do
		if p=$(type -P "$t"); then
			copy_with_libs "$p" "$1/$t"
		else
			log "initramfs: no $t on the host: the tests that need it fail"
		fi
	done
}

# The GNU userland of NETNS_TOOLS and the optional tools named in
# /usr/gnu/bin, with awk under its own name and bash as /bin/bash.
ir_netns_tools() { # "optional..."
	ir_tools /usr/gnu/bin "$NETNS_TOOLS" "$1"
	copy_with_libs "$(readlink -f "$(type -P awk)")" /usr/gnu/bin/awk
	ln -sf /usr/gnu/bin/bash "$IRD/bin/bash"
	[ -d /lib/terminfo ] && cp -r /lib/terminfo "$IRD/lib/"
	return 0
}

# ir_shim_builds SRC WORK: build SHIM_SOURCES of checkout SRC here, with
# the flags their callers use, and install guest/gcc-shim.sh as gcc, which
# hands out a build only for a source with the same sha256.
ir_shim_builds() { # src-checkout work-dir
	local e f flags sum here
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	mkdir -p "$IRD/usr/local/lib/gcc-shim" "$IRD/usr/local/bin" "$2"
	for e in $SHIM_SOURCES; do
		f=${e%%:*}
		flags=${e#*:}
		[ -f "$1/$f" ] || continue
		sum=$(sha256sum < "$1/$f" | cut -d' ' -f1)
		# shellcheck disable=SC2086 # flags are words
		gcc -O2 -Wall -Wextra -o "$2/${f##*/}.bin" "$1/$f" $flags ||
			die "could not build $f on the host"
		copy_with_libs "$2/${f##*/}.bin" "/usr/local/lib/gcc-shim/$sum"
	done
	install -m 0755 "$here/guest/gcc-shim.sh" "$IRD/usr/local/bin/gcc"
}

# ir_modules KDIR: the networking modules of an unpacked Debian kernel
# (debian-kernel.sh) -- all of net/, the virtual devices of drivers/net --
# with what they depend on (modules.dep), and kmod as modprobe, so the
# kernel loads a qdisc, link type or nft expression when it is first used.
# The crypto and lib modules all go in: soft dependencies (libcrc32c wants
# a crc32c driver) are not in modules.dep.
IR_MODULE_GLOBS="kernel/net/ kernel/crypto/ kernel/arch/x86/crypto/ kernel/lib/
	kernel/drivers/net/veth. kernel/drivers/net/wireguard/
	kernel/drivers/net/vrf. kernel/drivers/net/tun. kernel/drivers/net/dummy.
	kernel/drivers/net/ifb. kernel/drivers/net/macvlan. kernel/drivers/net/ipvlan/
	kernel/drivers/net/vxlan/ kernel/drivers/net/geneve. kernel/drivers/net/ppp/
	kernel/drivers/net/bonding/ kernel/drivers/net/netdevsim/"
ir_modules() { # kdir
	local kdir=$1 kver src want g
	kver=$(ls "$kdir/lib/modules")
	src=$kdir/lib/modules/$kver
	want=$(mktemp)
	for g in $IR_MODULE_GLOBS; do
		grep -o "^$g[^:]*" "$src/modules.dep" || true
	done | sort -u > "$want"
	# add what they depend on until nothing new comes in
	local n=0
	while [ "$n" != "$(wc -l < "$want")" ]; do
		n=$(wc -l < "$want")
		grep -F -f <(sed 's/$/:/' "$want") "$src/modules.dep" |
			cut -d: -f2 | tr ' ' '\n' | grep . | cat - "$want" | sort -u > "$want.new"
		mv "$want.new" "$want"
	done
	(cd "$src" && cpio -pdm --quiet "$IRD/lib/modules/$kver" < "$want")
	cp "$src"/modules.{order,builtin,builtin.modinfo} "$IRD/lib/modules/$kver/" 2>/dev/null || true
	depmod -b "$IRD" -F "$kdir/System.map" "$kver" ||
		die "depmod failed for $kver"
	copy_with_libs "$(type -P kmod)" /usr/sbin/kmod
	# /sbin/modprobe for the kernel, /usr/sbin ahead of busybox in PATH
	for g in modprobe insmod rmmod lsmod modinfo depmod; do
		ln -sf /usr/sbin/kmod "$IRD/sbin/$g"
		ln -sf kmod "$IRD/usr/sbin/$g"
	done
	log "initramfs: $(wc -l < "$want") modules of $kver"
	rm -f "$want"
}

ir_pack() { # out.cpio.gz
	(cd "$IRD" && find . | cpio -o -H newc --quiet | gzip -1) > "$1"
}
