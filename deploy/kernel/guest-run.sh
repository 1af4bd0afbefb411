#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run one of the checkout's scripts in a qemu guest (TCG, no KVM) booted on
# one of Debian's prebuilt kernels: those have what this machine's kernel
# lacks (fq, fq_codel, cake, ipip, gre, sit, WireGuard, VRF, ...), and 6.1
# is the oldest kernel the programs must load on. No kernel is built.
#
#   deploy/kernel/guest-run.sh [OPTIONS] SCRIPT [ARGS...]
#   deploy/kernel/guest-run.sh [OPTIONS] -c 'COMMAND'
#
# SCRIPT is a path in the checkout: tests/netns/test_NAME.sh runs through
# tests/netns/run.sh -v as `make netns` would run it; any other script runs
# with bash (executable non-.sh files as they are), from the checkout's
# root, with ARGS. Its output is printed as it comes and its exit status is
# guest-run.sh's (124: the guest timed out; 125: it stopped without one).
#
# Options:
#   --kernel K     debian-6.12 (default), debian-6.1 or a linux-image-* package
#   --smp N        vCPUs (default 2)
#   --mem MB       guest memory (default 2048)
#   --timeout S    seconds for the whole boot (default $VM_TIMEOUT or 900)
#   --build DIR    classifier build to carry (default $OUTPUT or build/)
#   --modules L    modules to load before the script ("sch_fq wireguard");
#                  the others load on first use (the kernel asks modprobe)
#   --tools L      more host tools to carry (say "prometheus promtool")
#   --out DIR      copy back what the script wrote under $GUEST_OUT
#   -e VAR=VALUE   set in the script's environment (repeatable)
#   -v             also print the guest's kernel console
#
# In the guest: the checkout (tracked and untracked, not ignored, files) is
# /cls-src, the build at the same place under it (CLASSIFIER is its
# classifier), GNU tools ahead of busybox in PATH, gcc a stand-in for the
# helpers the tests compile (guest/gcc-shim.sh), GUEST_KERNEL the kernel's
# name, GUEST_SMOKE the harness's smoke BPF objects, GUEST_OUT a directory.
#
# Env: KWORK (default /work/kbuild), VM_TIMEOUT, GUEST_NICE (nice level of
# qemu, default 19: the machine is shared; 0 for measurements).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
KWORK=${KWORK:-/work/kbuild}
GW=$KWORK/guest
NICE=${GUEST_NICE:-19}

log() { printf 'guest-run: %s\n' "$*" >&2; }
die() { printf 'guest-run: %s\n' "$*" >&2; exit 2; }

usage() {
	sed -n '/^#   deploy/,/^#   -v/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

kernel=debian-6.12 smp=2 mem=2048 timeout=${VM_TIMEOUT:-900}
build=${OUTPUT:-build} modules="" tools="" outdir="" verbose=0 cmd="" envs=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=${2:?}; shift ;;
	--smp) smp=${2:?}; shift ;;
	--mem) mem=${2:?}; shift ;;
	--timeout) timeout=${2:?}; shift ;;
	--build) build=${2:?}; shift ;;
	--modules) modules=${2:?}; shift ;;
	--tools) tools=${2:?}; shift ;;
	--out) outdir=${2:?}; shift ;;
	-e) [[ ${2:?} == [A-Za-z_]*=* ]] || die "-e $2: expected VAR=VALUE"
		envs+=("$2"); shift ;;
	-v) verbose=1 ;;
	-c) cmd=${2:?}; shift; break ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) die "unknown option $1 (--help)" ;;
	*) break ;;
	esac
	shift
done
for n in "$smp" "$mem" "$timeout"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "'$n': --smp, --mem and --timeout take a positive number"
done

# What the guest runs, as a bash script: /guest/cmd.
if [ -z "$cmd" ]; then
	[ $# -gt 0 ] || usage
	script=$1
	shift
	case $script in /*) script=$(realpath -m --relative-to="$SRC" "$script") ;; esac
	[ -f "$SRC/$script" ] || die "$script: no such file in $SRC"
	case $script in
	../*) die "$script is outside the checkout $SRC" ;;
	tests/netns/test_*.sh)
		[ $# = 0 ] || die "$script takes no arguments (run.sh runs it)"
		name=${script#tests/netns/test_}
		cmd="exec bash tests/netns/run.sh -v \"\$CLASSIFIER\" ${name%.sh}" ;;
	*.sh) cmd="exec bash $(printf '%q ' "$script" "$@")" ;;
	*) cmd="exec ./$(printf '%q ' "$script" "$@")" ;;
	esac
fi

command -v qemu-system-x86_64 >/dev/null && [ -x /bin/busybox ] && command -v depmod >/dev/null ||
	"$HERE/guest-deps.sh" >&2 || die "missing host packages (deploy/kernel/guest-deps.sh)"
file -L /bin/busybox | grep -q static || die "/bin/busybox is not static: apt-get install busybox-static"

kdir=$("$HERE/debian-kernel.sh" "$kernel") || exit 2
read -r kpkg _ kver < "$kdir/stamp"

# shellcheck source=deploy/kernel/initramfs.sh
. "$HERE/initramfs.sh"

# Tools the guest tests call beyond NETNS_TOOLS: traffic (iperf3, ping,
# wg), iproute2 and friends, procps.
GUEST_TOOLS="ip tc ss nstat bpftool jq ping iperf3 wg taskset ps kill"
GUEST_EXTRA="ethtool $tools"

mkdir -p "$GW"
find "$GW" -maxdepth 1 -name 'run.*' -mmin +1440 -exec rm -rf {} + 2>/dev/null || true

# The base layer: busybox, tools, modules, /init. It depends only on the
# kernel, the host's tools and these files, so it is kept and reused.
base_key() {
	local t
	{
		cat "$kdir/stamp" "$HERE/initramfs.sh" "$HERE"/guest/{run-init,sysinit}.sh "$0"
		for t in $NETNS_TOOLS $NETNS_EXTRA $GUEST_TOOLS $GUEST_EXTRA awk busybox kmod; do
			stat -L -c '%n %Y %s' "$(type -P "$t")" 2>/dev/null || echo "no $t"
		done
	} | sha256sum | cut -c1-16
}
base=$GW/base-$kver-$(base_key).cpio.gz
if [ ! -f "$base" ]; then
	exec 9> "$GW/base.lock"
	flock 9
	if [ ! -f "$base" ]; then
		log "building the initramfs for $kver (kept for later runs)"
		IRD=$GW/ird.$$
		ir_skeleton
		ir_netns_tools "$NETNS_EXTRA"
		ir_tools /usr/sbin "$GUEST_TOOLS" "$GUEST_EXTRA"
		ir_modules "$kdir"
		install -m 0755 "$HERE/guest/run-init.sh" "$IRD/init"
		ir_pack "$base.tmp"
		mv "$base.tmp" "$base"
		rm -rf "$IRD"
		log "initramfs $(du -h "$base" | cut -f1)"
	fi
	exec 9>&-
fi

# The run layer: the checkout, the build, the command; appended to the base
# (the kernel unpacks concatenated archives in order).
run=$(mktemp -d "$GW/run.XXXXXX")
keep_run=0
cleanup() {
	[ -n "${qpid:-}" ] && kill "$qpid" 2>/dev/null
	[ $keep_run = 1 ] || rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
IRD=$run/ird
mkdir -p "$IRD/cls-src" "$IRD/guest"
git -C "$SRC" ls-files -z -c -o --exclude-standard |
	(cd "$SRC" && cpio -0 -pdm --quiet "$IRD/cls-src" 2>/dev/null) ||
	die "cannot copy the checkout $SRC (is it a git checkout?)"
case $build in /*) ;; *) build=$SRC/$build ;; esac
gbuild=/cls-src/$(realpath -m --relative-to="$SRC" "$build")
case $gbuild in /cls-src/../*) gbuild=/cls-src/build ;; esac
if [ -x "$build/classifier" ]; then
	# executables at their place in the build, with their libraries; the
	# fuzzers and objects stay behind
	while read -r f; do
		head -c4 "$f" | grep -q ELF || continue
		copy_with_libs "$f" "$gbuild/${f#"$build"/}"
	done < <(find "$build" -path "$build/fuzz" -prune -o -type f -perm -u+x -print)
	find "$build" -maxdepth 1 -name '*.bpf.o' -exec cp {} "$IRD$gbuild/" \;
else
	log "no $build/classifier: the guest has no classifier (make -j2 all, or --build DIR)"
fi
ir_shim_builds "$SRC" "$run/shim"
mkdir -p "$IRD/guest/smoke"
for f in "$HERE"/smoke/*.bpf.c; do
	[ -f "$f" ] || continue
	clang -O2 -g -target bpf -Wall -Werror -I"/usr/include/$(gcc -print-multiarch)" -c "$f" \
		-o "$IRD/guest/smoke/$(basename "$f" .c).o" || die "cannot build $f"
done
printf '%s\n' "$cmd" > "$IRD/guest/cmd"
{
	printf 'PATH=/usr/local/bin:/usr/gnu/bin:/usr/sbin:/usr/bin:/bin:/sbin\n'
	printf 'HOME=/root\nCLASSIFIER=%q\nCLASSIFIER_SRC=/cls-src\n' "$gbuild/classifier"
	printf 'GUEST_KERNEL=%q\nGUEST_SMOKE=/guest/smoke\nGUEST_OUT=/guest-out\n' "$kernel"
	for e in "${envs[@]}"; do printf '%s=%q\n' "${e%%=*}" "${e#*=}"; done
} > "$IRD/guest/env"
# shellcheck disable=SC2086 # a list of words
printf '%s\n' $modules > "$IRD/guest/modules"
ir_pack "$run/run.cpio.gz"
cat "$base" "$run/run.cpio.gz" > "$run/initrd"
rm -rf "$IRD"

# The guest: ttyS0 console, ttyS1 the command's output, ttyS2 control.
# no_timer_check: 6.1's IO-APIC timer check fails in a TCG guest starved
# by a loaded host ("IO-APIC + timer doesn't work!", a panic at 0.06 s:
# two boots in a row at load 9): it counts timer ticks against a vCPU the
# host does not run; with the option the next boot came up (61 s).
: > "$run/out"
: > "$run/ctl"
log "$kernel ($kpkg), $smp vCPUs, TCG, timeout ${timeout}s: ${cmd#exec }"
t0=$(date +%s.%N)
timeout "$timeout" nice -n "$NICE" qemu-system-x86_64 -accel tcg -cpu max \
	-smp "$smp" -m "$mem" -kernel "$kdir/vmlinuz" -initrd "$run/initrd" \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=4 mitigations=off no_timer_check" \
	-serial file:"$run/console" -serial file:"$run/out" -serial file:"$run/ctl" \
	-display none -monitor none -no-reboot -nic none > "$run/qemu.log" 2>&1 &
qpid=$!
if [ $verbose = 1 ]; then
	tail -q -n +1 -f --pid=$qpid "$run/console" | sed 's/^/[console] /' >&2 &
fi
tail -n +1 -f --pid=$qpid "$run/out"
qrc=0
wait $qpid || qrc=$?
qpid=
t1=$(date +%s.%N)

booted=$(awk '$1 == "BOOTED" { print $2 }' "$run/ctl")
read -r rc tend < <(awk '$1 == "RC" { print $2, $3 }' "$run/ctl") || true
errs=$(awk '$1 == "KERNEL-ERRORS" { print $2 }' "$run/ctl")
if [ -n "$outdir" ] && grep -q '^OUT-END' "$run/ctl"; then
	mkdir -p "$outdir"
	sed -n '/^OUT-BEGIN/,/^OUT-END/p' "$run/ctl" | sed '1d;$d' | base64 -d |
		tar -C "$outdir" -xzf - || log "could not unpack the guest's output into $outdir"
fi
cp "$run/console" "$GW/console-$kernel.log"
if [ -z "$rc" ]; then
	keep_run=1
	if [ $qrc = 124 ]; then
		log "the guest did not finish in ${timeout}s (--timeout)"
		rc=124
	else
		log "the guest stopped without an exit status (qemu exit $qrc: $(tail -n1 "$run/qemu.log"))"
		rc=125
	fi
	if [ -s "$run/console" ]; then
		log "last lines of its console ($run/console):"
		tail -n 30 "$run/console" | sed 's/^/  /' >&2
	fi
fi
[ "${errs:-0}" = 0 ] ||
	log "the guest kernel logged $errs BUG/WARNING/Oops lines: $GW/console-$kernel.log"
took="?"
[ -n "$tend" ] && took=$(awk -v a="$booted" -v b="$tend" 'BEGIN { printf "%.1f", b - a }')
log "$kernel: booted in ${booted:-?}s, command ${took}s, exit $rc; all $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')s (console: $GW/console-$kernel.log)"
exit "$rc"
