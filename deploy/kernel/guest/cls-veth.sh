#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Guest side of vmtest.sh: classifier on a veth with HTB on it, real ICMP
# into a netns; the class counter and the HTB class must both see the pings.
# iproute2 by full path: busybox sh prefers its own ip/tc applets.
set -x
mkdir -p /run/netns /var/run
/usr/sbin/ip netns add peer || exit 1
/usr/sbin/ip link add v0 type veth peer name v1 || exit 1
/usr/sbin/ip link set v1 netns peer
/usr/sbin/ip addr add 10.9.0.1/24 dev v0 && /usr/sbin/ip link set v0 up
/usr/sbin/ip -n peer addr add 10.9.0.2/24 dev v1 && /usr/sbin/ip -n peer link set v1 up
/usr/sbin/tc qdisc add dev v0 root handle 1: htb default 99
/usr/sbin/tc class add dev v0 parent 1: classid 1:10 htb rate 100mbit
/usr/sbin/tc class add dev v0 parent 1: classid 1:99 htb rate 100mbit
classifier attach dev v0 || exit 1
classifier class add 1:10 name web mark 0x20 || exit 1
classifier route add 10.9.0.0/24 web || exit 1
classifier stats on
classifier status
ping -c 20 -i 0.1 10.9.0.2 || exit 1
classifier stats
classifier -j stats > /tmp/stats.json
cat /tmp/stats.json
/usr/sbin/tc -s class show dev v0
set +x
web=$(jq -r '[.. | objects | select(.name? == "web") | .packets? // empty] | first // empty' /tmp/stats.json)
htb=$(/usr/sbin/tc -s class show dev v0 | awk '/class htb 1:10 /{f=1} f && /Sent/{print $4; exit}')
echo "VMTEST cls-veth: web packets (classifier) = $web, HTB 1:10 packets = $htb, pings = 20"
if [ "$htb" -ge 20 ] 2>/dev/null && [ "$web" -ge 20 ] 2>/dev/null; then
	echo "VMTEST cls-veth PASS"
	exit 0
fi
echo "VMTEST cls-veth FAIL"
exit 1
