# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced by the guests' /init (vmtest.sh, guest/run-init.sh): busybox's
# applets, the file systems and paths the tests and tools expect.
/bin/busybox --install -s /bin
export PATH=/usr/sbin:/usr/bin:/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mkdir -p /run /var
mount -t tmpfs run /run
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
# devtmpfs has no /dev/fd (udev makes it): bash's <(...) needs it
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mkdir -p /run/netns
ln -s /run /var/run
hostname guest
ip link set lo up
