#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Debian packages guest-run.sh needs on the host: qemu, a static busybox
# for the initramfs, kmod for depmod and the guest's modprobe, cpio, and
# the tools the guest tests run that tests/deps.sh does not install.
# Without recommends: wireguard-tools would bring a kernel image.
set -e

pkgs="qemu-system-x86 busybox-static kmod cpio iperf3 wireguard-tools ethtool"

exec "$(dirname "$0")/../ensure-packages.sh" --no-recommends "guest deps" $pkgs
