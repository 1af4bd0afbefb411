#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build a stock and a patched 6.1 LTS kernel for classifier's qemu harness.
#
#   deploy/kernel/build.sh [stock|patched|arm64|arm64-boot|arm64-boot-stock|all]
#   (default: all = stock, patched, arm64 objects; the bootable arm64 Images
#   are separate: arm64-boot = patched, arm64-boot-stock = stock)
#
# Source: Debian's linux-source-6.1 (apt-get), unpacked into $KWORK/linux as a
# git repo (branch "stock" = Debian's tree, branch "patched" = stock + the
# series, applied with `git am`: any hunk that does not apply stops the build).
# One object dir ($KWORK/out) serves both: stock is built first, then the
# patched branch is checked out and only what the series touches rebuilds.
# Results go to $KWORK/artifacts/{stock,patched}/ (bzImage, vmlinux, .config,
# and the objects the series touches, for disassembly).
#
# arm64: cross-compiles only the objects the series touches, stock and patched,
# into $KWORK/artifacts/arm64-{stock,patched}/.
#
# Env: KWORK (default /work/kbuild), JOBS (default 2), NICE (default 19).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
KWORK=${KWORK:-/work/kbuild}
JOBS=${JOBS:-2}
NICE=${NICE:-19}
TREE=$KWORK/linux
OUT=$KWORK/out
ART=$KWORK/artifacts
TARBALL=/usr/src/linux-source-6.1.tar.xz
GIT=(git -C "$TREE" -c user.name="classifier developers" -c user.email=dev@classifier.invalid)

X86_OBJS="kernel/bpf/lpm_trie.o arch/x86/kernel/alternative.o kernel/bpf/core.o
	kernel/bpf/verifier.o kernel/bpf/trampoline.o kernel/trace/bpf_trace.o
	arch/x86/net/bpf_jit_comp.o"
ARM64_OBJS="arch/arm64/net/bpf_jit_comp.o kernel/bpf/core.o kernel/bpf/verifier.o
	kernel/bpf/trampoline.o kernel/bpf/lpm_trie.o kernel/trace/bpf_trace.o"

log() { printf '[build] %s\n' "$*" >&2; }
die() { printf '[build] FAILED: %s\n' "$*" >&2; exit 1; }

need_pkgs() {
	local missing=()
	for p in linux-source-6.1 build-essential bc bison flex libssl-dev \
		libelf-dev dwarves gcc-aarch64-linux-gnu cpio; do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		log "installing: ${missing[*]}"
		apt-get update -q >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
	fi
}

# Unpack once into a git repo; (re)create branch "patched" from the series.
prepare_tree() {
	if [ ! -d "$TREE/.git" ]; then
		log "unpacking $TARBALL"
		mkdir -p "$KWORK"
		rm -rf "$KWORK/linux-source-6.1" "$TREE"
		tar -C "$KWORK" -xf "$TARBALL"
		mv "$KWORK/linux-source-6.1" "$TREE"
		git -C "$TREE" init -q -b stock
		# Debian's top-level .gitignore ignores everything: force-add
		git -C "$TREE" add -f -A
		"${GIT[@]}" commit -q -m "Debian linux-source-6.1 $(dpkg-query -W -f='${Version}' linux-source-6.1)"
	fi
	# Apply the series in a scratch worktree, so the main tree's files (and
	# so the incremental build in $OUT) are only touched by real checkouts.
	local wt=$KWORK/am-scratch
	git -C "$TREE" worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$wt" stock
	if ! git -C "$wt" -c user.name="classifier developers" \
		-c user.email=dev@classifier.invalid am -q "$HERE"/patches/*.patch; then
		git -C "$wt" am --show-current-patch=diff | head -20 >&2 || true
		die "the series does not apply to $(git -C "$TREE" log -1 --format=%s stock) (scratch tree: $wt)"
	fi
	if [ "$(git -C "$TREE" rev-parse --abbrev-ref HEAD)" = patched ]; then
		"${GIT[@]}" checkout -q --detach
	fi
	"${GIT[@]}" branch -q -f patched "$(git -C "$wt" rev-parse HEAD)"
	git -C "$TREE" worktree remove --force "$wt"
	log "series applied: $(git -C "$TREE" rev-list --count stock..patched) patches"
}

configure_x86() {
	if [ ! -f "$OUT/.config" ] || [ "$HERE/config.fragment" -nt "$OUT/.config" ]; then
		log "configuring x86_64 (tinyconfig + config.fragment)"
		make -s -C "$TREE" O="$OUT" tinyconfig >/dev/null
		"$TREE"/scripts/kconfig/merge_config.sh -m -O "$OUT" "$OUT/.config" \
			"$HERE/config.fragment" >/dev/null
		make -s -C "$TREE" O="$OUT" olddefconfig >/dev/null
		verify_config "$OUT/.config" "$HERE/config.fragment"
	fi
}

# Every option the fragment asks for must have survived olddefconfig.
verify_config() {
	local cfg=$1 frag=$2 bad=0 line key val
	while read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		key=${line%%=*} val=${line#*=}
		if [ "$val" = n ]; then
			grep -q "^$key=" "$cfg" && { log "config: $key wanted n"; bad=1; }
		else
			grep -qx "$line" "$cfg" || { log "config: $line not set"; bad=1; }
		fi
	done < "$frag"
	[ $bad = 0 ] || die "config fragment not honoured (see above)"
}

build_x86() { # $1 = stock|patched
	local which=$1
	"${GIT[@]}" checkout -q "$which"
	configure_x86
	log "building $which bzImage (log: $KWORK/build-$which.log)"
	if ! nice -n "$NICE" make -C "$TREE" O="$OUT" -j"$JOBS" bzImage \
		> "$KWORK/build-$which.log" 2>&1; then
		tail -30 "$KWORK/build-$which.log" >&2
		die "$which build"
	fi
	mkdir -p "$ART/$which"
	cp "$OUT/arch/x86/boot/bzImage" "$OUT/vmlinux" "$OUT/.config" "$ART/$which/"
	for o in $X86_OBJS; do
		mkdir -p "$ART/$which/$(dirname "$o")"
		cp "$OUT/$o" "$ART/$which/$o"
	done
	log "$which: $(git -C "$TREE" log -1 --format=%s "$which") -> $ART/$which/bzImage"
}

build_arm64() {
	local which o aout=$KWORK/out-arm64
	local A=(make -C "$TREE" O="$aout" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	for which in stock patched; do
		"${GIT[@]}" checkout -q "$which"
		if [ ! -f "$aout/.config" ]; then
			log "configuring arm64 (defconfig + arm64.fragment)"
			"${A[@]}" -s defconfig >/dev/null
			"$TREE"/scripts/kconfig/merge_config.sh -m -O "$aout" "$aout/.config" \
				"$HERE/arm64.fragment" >/dev/null
			"${A[@]}" -s olddefconfig >/dev/null
			verify_config "$aout/.config" "$HERE/arm64.fragment"
		fi
		log "arm64 $which: $(echo $ARM64_OBJS)"
		# shellcheck disable=SC2086
		nice -n "$NICE" "${A[@]}" -j"$JOBS" $ARM64_OBJS \
			> "$KWORK/build-arm64-$which.log" 2>&1 ||
			{ tail -30 "$KWORK/build-arm64-$which.log" >&2; die "arm64 $which"; }
		for o in $ARM64_OBJS; do
			mkdir -p "$ART/arm64-$which/$(dirname "$o")"
			cp "$aout/$o" "$ART/arm64-$which/$o"
		done
	done
}

# Bootable arm64 kernels (tinyconfig + arm64-boot.fragment) for vmtest.sh
# arm64 / arm64-stock: each built from its own worktree, so they neither
# disturb the x86 tree's checkouts nor rebuild each other.
#   patched -> $ART/arm64-boot, stock -> $ART/arm64-boot-stock
build_arm64_boot() { # $1 = patched|stock
	local which=${1:-patched} wt=$KWORK/wt-arm64 aout=$KWORK/out-arm64-boot dst=$ART/arm64-boot
	if [ "$which" = stock ]; then
		wt+=-stock aout+=-stock dst+=-stock
	fi
	local A=(make -C "$wt" O="$aout" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	if [ ! -d "$wt" ]; then
		git -C "$TREE" worktree add -q --detach "$wt" "$which"
	else
		git -C "$wt" checkout -q --detach "$which"
	fi
	if [ ! -f "$aout/.config" ] || [ "$HERE/arm64-boot.fragment" -nt "$aout/.config" ]; then
		"${A[@]}" -s tinyconfig >/dev/null
		"$wt"/scripts/kconfig/merge_config.sh -m -O "$aout" "$aout/.config" \
			"$HERE/arm64-boot.fragment" >/dev/null 2>&1
		"${A[@]}" -s olddefconfig >/dev/null
		verify_config "$aout/.config" "$HERE/arm64-boot.fragment"
	fi
	log "building $which arm64 Image (log: $KWORK/build-arm64-boot-$which.log)"
	nice -n "$NICE" "${A[@]}" -j"$JOBS" Image > "$KWORK/build-arm64-boot-$which.log" 2>&1 ||
		{ tail -30 "$KWORK/build-arm64-boot-$which.log" >&2; die "arm64 $which Image"; }
	mkdir -p "$dst"
	cp "$aout/arch/arm64/boot/Image" "$aout/.config" "$dst/"
}

main() {
	local what=${1:-all}
	need_pkgs
	prepare_tree
	case "$what" in
	stock) build_x86 stock ;;
	patched) build_x86 patched ;;
	arm64) build_arm64 ;;
	arm64-boot) build_arm64_boot patched ;;
	arm64-boot-stock) build_arm64_boot stock ;;
	all) build_x86 stock; build_x86 patched; build_arm64 ;;
	*) die "usage: $0 [stock|patched|arm64|arm64-boot|arm64-boot-stock|all]" ;;
	esac
	"${GIT[@]}" checkout -q patched
}

main "$@"
