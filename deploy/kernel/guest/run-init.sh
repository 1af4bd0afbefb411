#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the guest guest-run.sh boots: make the system a test expects
# (proc, sys, devtmpfs, bpffs, cgroup2, /run/netns, modprobe for the
# kernel's module requests), load the modules asked for, then run
# /guest/cmd with /guest/env from /cls-src, the checkout's copy.
#
# Channels (qemu serial ports, raw, so the bytes arrive as written):
#   ttyS0  kernel console and this script's own messages
#   ttyS1  the command's stdout and stderr, nothing else
#   ttyS2  control lines for the host: BOOTED, RC, KERNEL-ERRORS and
#          /guest-out as a base64 tar between OUT-BEGIN and OUT-END
. /sysinit.sh
mkdir -p /guest-out
out=/dev/ttyS1
ctl=/dev/ttyS2
stty -F $out raw -echo
stty -F $ctl raw -echo
echo /sbin/modprobe > /proc/sys/kernel/modprobe
echo "BOOTED $(cut -d' ' -f1 /proc/uptime)" > $ctl

for m in $(cat /guest/modules); do
	modprobe "$m" || echo "guest-run: modprobe $m failed" > $out
done
dmesg -n 1

(
	set -a
	. /guest/env
	set +a
	cd /cls-src && /bin/bash /guest/cmd
) > $out 2>&1 < /dev/null
rc=$?
echo "RC $rc $(cut -d' ' -f1 /proc/uptime)" > $ctl

echo "guest-run: modules loaded:"
lsmod | awk 'NR > 1 { printf " %s", $1 } END { print "" }'
errs=$(dmesg | grep -cE "BUG:|WARNING:|Oops|Call Trace:|Kernel panic|stall")
echo "KERNEL-ERRORS $errs" > $ctl
[ "$errs" = 0 ] || dmesg
if [ -n "$(ls -A /guest-out)" ]; then
	echo OUT-BEGIN
	tar -C /guest-out -czf - . | base64
	echo OUT-END
fi > $ctl
poweroff -f
