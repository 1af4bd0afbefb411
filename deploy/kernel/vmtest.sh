#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot the kernels built by build.sh under qemu (TCG, -smp 2) with a busybox
# initramfs and run, inside the guest:
#   - bpf_smoke check   LPM lookups + per-CPU counters + JIT image dump
#   - bpf_recur         fentry recursion through the trampoline (patch 4)
#   - bpf_smoke bench   BPF_PROG_TEST_RUN timing (emulated clock: only a
#                       relative stock/patched hint, not a hardware number)
#   - tests/prog_test_run, when classifier was built into $CLS_OUT
#     (make OUTPUT=$CLS_OUT in the repo) -- see CLS_OUT below
#   - classifier's tests/netns suite (guest/netns.sh): run.sh and the test
#     scripts as they are in $CLS_SRC
#   - bpf_smoke storm   1000 flips of kernel.bpf_stats_enabled while two
#                       pinned runners push packets through the program
#   - classifier on veth + HTB, and a classifier storm (guest/cls-*.sh)
#
#   deploy/kernel/vmtest.sh [stock|patched|arm64 ...]  (default: stock patched)
#   netns-stock netns-patched: boot and run only tests/netns
#   prog-stock prog-patched: boot and run only tests/prog_test_run and
#   classifier on veth + HTB (does every program load and classify?)
#   arm64, arm64-stock: patched / stock arm64 Image, bpf_smoke check + a
#   200-flip storm + bpf_recur, no classifier
#   count-stock count-patched: guest instruction counts per LPM lookup
#
# Env: KWORK (default /work/kbuild), CLS_OUT (default $KWORK/cls),
#      CLS_SRC: the checkout whose tests/netns and deploy/ files go in
#      (default this repo; use the one CLS_OUT was built from),
#      VM_TIMEOUT seconds per boot (default 2400), FLIPS (default 1000).
# Per-kernel serial logs: $KWORK/vmtest-<kernel>.log; summary at the end.
# KVM is not used on purpose: here it is a nested layer that hangs guests.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
KWORK=${KWORK:-/work/kbuild}
ART=$KWORK/artifacts
CLS_OUT=${CLS_OUT:-$KWORK/cls}
CLS_SRC=${CLS_SRC:-$REPO}
VM_TIMEOUT=${VM_TIMEOUT:-2400}
FLIPS=${FLIPS:-1000}
IRD=$KWORK/initramfs

log() { printf '[vmtest] %s\n' "$*" >&2; }
die() { printf '[vmtest] FAILED: %s\n' "$*" >&2; exit 1; }

command -v qemu-system-x86_64 >/dev/null || die "apt-get install qemu-system-x86"
[ -x /bin/busybox ] && file -L /bin/busybox | grep -q static ||
	die "apt-get install busybox-static"

# shellcheck source=deploy/kernel/initramfs.sh
. "$HERE/initramfs.sh"

# What classifier's tests/netns need (guest/netns.sh): the suite and the
# deploy/ files it reads under /cls-src, GNU userland in /usr/gnu/bin (only
# netns.sh puts it ahead of busybox), nft, and the helpers the tests compile,
# built here (guest/gcc-shim.sh hands them out).
netns_initramfs() {
	local t src=$CLS_SRC/tests/netns
	[ -f "$src/run.sh" ] || { log "initramfs: no $src/run.sh: netns tests left out"; return 0; }
	ir_netns_tools "$NETNS_EXTRA $NETNS_PROMETHEUS"
	# the builds the crash and upgrade tests run beside the classifier
	# (make OUTPUT=$CLS_OUT $CLS_OUT/fault/classifier
	#  $CLS_OUT/tests/check_state prev)
	for t in fault/classifier:classifier-fault tests/check_state:check_state \
		$(cd "$CLS_OUT" && for d in from-*; do
			echo "$d/build/classifier:classifier-$d"
			echo "$d/build/fault/classifier:classifier-$d-fault"
		done); do
		if [ -x "$CLS_OUT/${t%%:*}" ]; then
			copy_with_libs "$CLS_OUT/${t%%:*}" "/usr/bin/${t##*:}"
		else
			log "initramfs: no $CLS_OUT/${t%%:*}: the tests that need it fail"
		fi
	done
	mkdir -p "$IRD/cls-src/tests" "$IRD/cls-src/deploy"
	cp -r "$src" "$IRD/cls-src/tests/"
	find "$CLS_SRC/deploy" -maxdepth 1 -type f -exec cp {} "$IRD/cls-src/deploy/" \;
	ir_shim_builds "$CLS_SRC" "$KWORK/shim"
	install -m 0755 "$HERE/guest/netns.sh" "$IRD/netns.sh"
	log "initramfs: tests/netns from $CLS_SRC ($(ls "$src"/test_*.sh | wc -l) tests)"
}

build_initramfs() {
	ir_skeleton
	gcc -O2 -Wall -static -o "$IRD/bin/bpf_smoke" "$HERE/smoke/bpf_smoke.c"
	gcc -O2 -Wall -static -o "$IRD/bin/bpf_recur" "$HERE/smoke/bpf_recur.c"
	# iproute2 for clsact/HTB/veth/netns tests of the classifier
	for t in /usr/sbin/tc /usr/sbin/ip /usr/sbin/bpftool /usr/bin/jq; do
		[ -x "$t" ] && copy_with_libs "$t" "/usr/sbin/$(basename "$t")"
		true
	done
	local have_cls=0
	if [ -x "$CLS_OUT/classifier" ]; then
		copy_with_libs "$CLS_OUT/classifier" /usr/bin/classifier
		have_cls=1
	fi
	if [ -x "$CLS_OUT/tests/prog_test_run" ]; then
		copy_with_libs "$CLS_OUT/tests/prog_test_run" /usr/bin/prog_test_run
		have_cls=1
	fi
	# BPF objects the CLI loads at run time, if it has any next to it
	if [ -d "$CLS_OUT/bpf" ]; then
		mkdir -p "$IRD/cls"
		cp -r "$CLS_OUT/bpf" "$IRD/cls/"
	fi
	log "initramfs: classifier binaries: $([ $have_cls = 1 ] && echo yes || echo "no (none in $CLS_OUT)")"
	[ $have_cls = 1 ] && netns_initramfs
	cat > "$IRD/init" <<EOF
#!/bin/busybox sh
. /sysinit.sh
if grep -q vmtest=count /proc/cmdline; then
	bpf_smoke bench \$(sed 's/.*vmtest_runs=\([0-9]*\).*/\1/' /proc/cmdline)
	poweroff -f
fi
echo "VMTEST BEGIN \$(uname -r) cpus=\$(nproc) btf=\$([ -e /sys/kernel/btf/vmlinux ] && echo yes || echo no) jit=\$(cat /proc/sys/net/core/bpf_jit_enable)"
fail=0
netns() {
	echo "VMTEST classifier tests/netns (guest/netns.sh)"
	/netns.sh && echo "VMTEST netns PASS" || { echo "VMTEST netns FAIL"; fail=1; }
}
if grep -q vmtest=prog /proc/cmdline; then
	(cd /cls 2>/dev/null || cd /; prog_test_run) && echo "VMTEST prog_test_run PASS" || { echo "VMTEST prog_test_run FAIL"; fail=1; }
	echo "VMTEST classifier on veth + HTB"
	sh /cls-veth.sh || fail=1
	[ \$fail = 0 ] && echo "VMTEST RESULT PASS" || echo "VMTEST RESULT FAIL"
	poweroff -f
fi
if grep -q vmtest=netns /proc/cmdline; then
	netns
	[ \$fail = 0 ] && echo "VMTEST RESULT PASS" || echo "VMTEST RESULT FAIL"
	poweroff -f
fi
bpf_smoke check || fail=1
bpf_recur 100 || fail=1
bpftool prog show pinned /sys/fs/bpf/recur_fentry | sed 's/^/RECUR bpftool: /'
bpftool prog show pinned /sys/fs/bpf/recur_tp | sed 's/^/RECUR bpftool: /'
rm -f /sys/fs/bpf/recur_fentry /sys/fs/bpf/recur_tp
bpf_smoke bench 200000 || fail=1
bpf_smoke bench 200000 || fail=1
if [ -x /usr/bin/prog_test_run ]; then
	echo "VMTEST running prog_test_run"
	(cd /cls 2>/dev/null || cd /; prog_test_run) && echo "VMTEST prog_test_run PASS" || { echo "VMTEST prog_test_run FAIL"; fail=1; }
fi
# before the storms: a TCG stall there (README) must not cost these results
[ -x /netns.sh ] && netns
timeout 600 bpf_smoke storm $FLIPS || { echo "VMTEST bpf_smoke storm failed or timed out"; fail=1; }
dmesg | grep -E "BUG:|WARNING:|Oops:|Call Trace:|Kernel panic|stall" && { echo "VMTEST kernel log has errors"; fail=1; }
if [ -x /usr/bin/classifier ]; then
	echo "VMTEST classifier on veth + HTB (egress, clsact fallback on 6.1)"
	sh /cls-veth.sh || fail=1
fi
if [ -x /usr/bin/prog_test_run ] && [ -x /usr/bin/classifier ]; then
	echo "VMTEST classifier storm: $FLIPS flips while prog_test_run loops on cpu0+cpu1 and ping runs"
	sh /cls-storm.sh $FLIPS || fail=1
fi
[ \$fail = 0 ] && echo "VMTEST RESULT PASS" || echo "VMTEST RESULT FAIL"
poweroff -f
EOF
	chmod +x "$IRD/init"
	cp "$HERE/guest/cls-veth.sh" "$HERE/guest/cls-storm.sh" "$IRD/"
	ir_pack "$KWORK/initramfs.cpio.gz"
	log "initramfs: $(du -h "$KWORK/initramfs.cpio.gz" | cut -f1)"
}

# arm64: the initramfs is bpf_smoke as /init and bpf_recur, which it runs
# (static, cross-compiled). arm64 = patched, arm64-stock = stock.
boot_arm64() { # arm64|arm64-stock
	local b=arm64-boot${1#arm64} img out=$KWORK/vmtest-$1.log d=$KWORK/initramfs-arm64 t0
	img=$ART/$b/Image
	[ -f "$img" ] || die "no $img (run deploy/kernel/build.sh $b)"
	command -v qemu-system-aarch64 >/dev/null || die "apt-get install qemu-system-arm"
	rm -rf "$d"
	mkdir -p "$d"/{proc,tmp,dev}
	aarch64-linux-gnu-gcc -O2 -Wall -static -o "$d/init" "$HERE/smoke/bpf_smoke.c"
	aarch64-linux-gnu-gcc -O2 -Wall -static -o "$d/bpf_recur" "$HERE/smoke/bpf_recur.c"
	(cd "$d" && find . | cpio -o -H newc --quiet | gzip -1) > "$KWORK/initramfs-arm64.cpio.gz"
	log "booting $1 ($img), qemu-system-aarch64 -M virt TCG, 2 vCPUs"
	t0=$(date +%s)
	timeout "$VM_TIMEOUT" nice -n 19 qemu-system-aarch64 -M virt -cpu max -smp 2 -m 1024 \
		-kernel "$img" -initrd "$KWORK/initramfs-arm64.cpio.gz" \
		-append "console=ttyAMA0 panic=-1 oops=panic loglevel=4" \
		-nographic -no-reboot > "$out" 2>&1 || true
	log "$1: guest ran $(( $(date +%s) - t0 ))s, log $out"
	grep -aE "^(VMTEST|SMOKE|STORM|RECUR|recur|storm|cpu-id|xlated|lookup|counters|runner|flips)" "$out" |
		sed "s/^/  [$1] /" >&2 || true
	grep -q "VMTEST RESULT PASS" "$out"
}

# Guest instruction counts per lookup (TCG plugin tools/insncount.c):
# one vCPU, bpf_smoke bench N (N test runs, one trie lookup each, a /32 hit
# in a 5-prefix trie); counts instructions executed inside the LPM functions
# and how often each was entered.
count_boot() { # kernel-name
	local k=$1 img=$ART/$1/bzImage vml=$ART/$1/vmlinux runs=${COUNT_RUNS:-20000} args="" sym
	gcc -O2 -Wall -shared -fPIC -o "$KWORK/insncount.so" "$HERE/tools/insncount.c"
	local addr size _t name
	while read -r addr size _t name; do
		case "$name" in
		trie_lookup_elem | longest_prefix_match* | extract_bit)
			args+=$(printf ',arg=%s-%x-%s' "$addr" $((0x$addr + 0x$size)) "$name") ;;
		esac
	done < <(nm -S "$vml")
	log "counting on $k: $args"
	timeout "$VM_TIMEOUT" nice -n 19 qemu-system-x86_64 -accel tcg,thread=single -cpu max -smp 1 -m 1024 \
		-plugin "$KWORK/insncount.so$args" -d plugin -D "$KWORK/vmcount-$k.plugin.log" \
		-kernel "$img" -initrd "$KWORK/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 loglevel=4 vmtest=count vmtest_runs=$runs" \
		-nographic -no-reboot -nic none > "$KWORK/vmcount-$k.log" 2>&1 || true
	{ grep -ao "bench: .*" "$KWORK/vmcount-$k.log"; cat "$KWORK/vmcount-$k.plugin.log"; } |
		sed "s/^/  [$k] /" >&2
	grep -q INSNCOUNT "$KWORK/vmcount-$k.plugin.log"
}

boot() { # kernel-name
	case "$1" in arm64 | arm64-stock) boot_arm64 "$1"; return ;; esac
	case "$1" in count-*) count_boot "${1#count-}"; return ;; esac
	local k=${1#*-} img out=$KWORK/vmtest-$1.log t0 mode=""
	img=$ART/$k/bzImage
	case "$1" in netns-* | prog-*) mode=" vmtest=${1%%-*}" ;; *) k=$1 ;; esac
	[ -f "$img" ] || die "no $img (run deploy/kernel/build.sh $k)"
	log "booting $k ($img), TCG, 2 vCPUs, timeout ${VM_TIMEOUT}s"
	t0=$(date +%s)
	timeout "$VM_TIMEOUT" nice -n 19 qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 2048 \
		-kernel "$img" -initrd "$KWORK/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 oops=panic loglevel=4$mode" \
		-monitor unix:"$KWORK/monitor-$k.sock",server=on,wait=off \
		-nographic -no-reboot -nic none > "$out" 2>&1 || true
	log "$k: guest ran $(( $(date +%s) - t0 ))s, log $out"
	grep -aE "^(VMTEST|SMOKE|STORM|NETNS|RECUR|bench|storm|cpu-id|xlated|lookup|counters|runner|flips|ok |FAIL |[0-9]+ passed)" "$out" |
		sed "s/^/  [$1] /" >&2 || true
	grep -q "VMTEST RESULT PASS" "$out"
}

main() {
	local kernels=("$@") k rc=0 summary=""
	[ ${#kernels[@]} -gt 0 ] || kernels=(stock patched)
	# the x86 initramfs only when an x86 kernel boots: an arm64-only run
	# must not replace it under an x86 run going on at the same time
	case " ${kernels[*]} " in *" "[!a]*) build_initramfs ;; esac
	for k in "${kernels[@]}"; do
		if boot "$k"; then
			summary+="$k: PASS\n"
		else
			summary+="$k: FAIL\n"
			rc=1
		fi
	done
	printf "[vmtest] summary:\n$summary" >&2
	exit $rc
}

main "$@"
