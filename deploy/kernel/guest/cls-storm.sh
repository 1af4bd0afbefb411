#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Guest side of vmtest.sh: FLIPS writes to kernel.bpf_stats_enabled (each
# flips a static key: text_poke_bp_batch() and INT3s on every call site)
# while classifier's programs run on both vCPUs: through BPF_PROG_TEST_RUN
# (tests/prog_test_run, which checks its own results) and real ICMP on v0
# (set up by cls-veth.sh). Pass: no failed test run, every ping counted.
flips=${1:-1000}
web() {
	classifier -j stats |
		jq -r '[.. | objects | select(.name? == "web") | .packets? // empty] | first // 0'
}
rm -f /tmp/stop /tmp/ptr.*
for c in 0 1; do
	(
		n=0 bad=0
		while [ ! -e /tmp/stop ]; do
			taskset -c $c prog_test_run > /tmp/ptr.out.$c 2>&1 || bad=$((bad + 1))
			n=$((n + 1))
		done
		echo "$n $bad" > /tmp/ptr.$c
	) &
done
before=$(web)
ping -c 200 -i 0.05 10.9.0.2 > /tmp/ping.out 2>&1 &
pingpid=$!
i=0
t0=$(date +%s)
while [ $i -lt "$flips" ]; do
	echo $(((i + 1) % 2)) > /proc/sys/kernel/bpf_stats_enabled
	i=$((i + 1))
done
echo 0 > /proc/sys/kernel/bpf_stats_enabled
t1=$(date +%s)
wait $pingpid
sent=$(awk '/packets transmitted/{print $1}' /tmp/ping.out)
touch /tmp/stop
wait
after=$(web)
echo "VMTEST cls-storm: $i flips in $((t1 - t0))s; prog_test_run runs/failures cpu0: $(cat /tmp/ptr.0) cpu1: $(cat /tmp/ptr.1)"
echo "VMTEST cls-storm: pings sent $sent, web counter delta $((after - before))"
tail -1 /tmp/ptr.out.0
tail -1 /tmp/ptr.out.1
ok=1
for c in 0 1; do
	set -- $(cat /tmp/ptr.$c)
	[ "$2" = 0 ] && [ "$1" -gt 0 ] || ok=0
done
[ "$((after - before))" = "$sent" ] || ok=0
dmesg | grep -E "BUG:|WARNING:|Oops:|Call Trace:|stall" && ok=0
if [ $ok = 1 ]; then
	echo "VMTEST cls-storm PASS"
	exit 0
fi
echo "VMTEST cls-storm FAIL"
exit 1
