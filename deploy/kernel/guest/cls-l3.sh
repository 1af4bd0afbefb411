#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# classifier on devices without an Ethernet header that this machine's
# kernel lacks, with real ICMP through them, in a guest on Debian's kernel:
#
#   deploy/kernel/guest-run.sh --kernel debian-6.1 deploy/kernel/guest/cls-l3.sh
#
# For ipip, gre, sit and WireGuard, between two network namespaces joined
# by a veth: at tc egress of the sender's tunnel device a drop class keeps
# pings to its prefix from any reply and a passing class lets them
# through, both counted; at XDP ingress (generic) of the receiver's tunnel
# device a drop class by source keeps the sender out.  A GRE device
# without a fixed remote is refused and nothing is made.  Prints one
# VMTEST line per check; exits non-zero if one failed.
IP=ip
CLASSIFIER=${CLASSIFIER:-classifier}
fail=0

in_a() { $IP netns exec ta "$@"; }
in_b() { $IP netns exec tb "$@"; }
cls_a() { in_a "$CLASSIFIER" --bpffs /tmp/bpfa "$@"; }
cls_b() { in_b "$CLASSIFIER" --bpffs /tmp/bpfb "$@"; }

# pkts CLS... NAME: the packets the classifier counted in class NAME.
pkts() {
	name=$1
	shift
	"$@" -j stats | jq -r --arg n "$name" '.classes[] | select(.name == $n) | .packets'
}

# replies PING_ARGS...: how many echo replies came back ("N received" or
# busybox's "N packets received"; a busybox ping that a drop at tc egress
# stopped at its first sendto says neither: none).
replies() {
	n=$(in_a ping -q "$@" 2>&1 |
		sed -n 's/.* \([0-9]*\) \(packets \)\{0,1\}received.*/\1/p')
	echo "${n:-0}"
}

check() { # what got want
	if [ "$2" = "$3" ]; then
		echo "VMTEST cls-l3 $CASE: $1 = $2"
	else
		echo "VMTEST cls-l3 $CASE: $1 = $2, expected $3"
		fail=1
	fi
}

setup() {
	mkdir -p /run/netns /var/run /tmp/bpfa /tmp/bpfb
	mount -t bpf bpf /tmp/bpfa
	mount -t bpf bpf /tmp/bpfb
	$IP netns add ta && $IP netns add tb || return 1
	$IP link add va type veth peer name vb
	$IP link set va netns ta
	$IP link set vb netns tb
	$IP -n ta addr add 10.9.1.1/24 dev va
	$IP -n tb addr add 10.9.1.2/24 dev vb
	for ns in ta tb; do
		$IP -n $ns link set lo up
	done
	$IP -n ta link set va up
	$IP -n tb link set vb up
	$IP -n tb addr add 192.0.2.10/32 dev lo
	$IP -n tb addr add 198.51.100.10/32 dev lo
	$IP -n tb addr add 2001:db8:30::10/128 dev lo
	$IP -n tb addr add 2001:db8:10::10/128 dev lo
}

teardown() {
	cls_a purge
	cls_b purge
	$IP netns del ta
	$IP netns del tb
	umount /tmp/bpfa /tmp/bpfb
}

# run_case NAME DEV_A DEV_B FAMILY: tunnels made, then the checks.
run_case() {
	CASE=$1
	dev_a=$2
	dev_b=$3
	if [ "$4" = 6 ]; then
		drop=2001:db8:30::10 web=2001:db8:10::10 ping6=-6
		src_a=fd00:10::1 drop_pfx=2001:db8:30::/48 web_pfx=2001:db8:10::/48
	else
		drop=192.0.2.10 web=198.51.100.10 ping6=
		src_a=10.10.0.1 drop_pfx=192.0.2.0/24 web_pfx=198.51.100.0/24
	fi
	cls_a class add 1:40 name blackhole drop
	cls_a class add 1:10 name web mark 0x20
	cls_a route add $drop_pfx class blackhole
	cls_a route add $web_pfx class web
	cls_a attach dev "$dev_a" || { echo "VMTEST cls-l3 $CASE: attach failed"; fail=1; return; }
	check "egress program" "$(cls_a -j status | jq -r '.attached[0].program')" cls_egress_l3
	check "replies from $drop (drop class)" "$(replies $ping6 -c 3 -W 1 $drop)" 0
	check "replies from $web" "$(replies $ping6 -c 3 -W 1 $web)" 3
	# as many as ping sent: iputils' tries again after a failed sendmsg
	n=$(pkts blackhole cls_a)
	[ "$n" -ge 1 ] 2>/dev/null && some=yes || some=no
	check "blackhole packets ($n) counted" "$some" yes
	check "web packets" "$(pkts web cls_a)" 3
	cls_b class add 1:40 name blocked drop
	if [ "$4" = 6 ]; then
		cls_b route add $src_a/128 class blocked
	else
		cls_b route add $src_a/32 class blocked
	fi
	cls_b attach dev "$dev_b" xdp xdp-mode generic || { echo "VMTEST cls-l3 $CASE: XDP attach failed"; fail=1; return; }
	check "XDP program" "$(cls_b -j status | jq -r '.attached[0].program')" cls_ingress_l3
	check "replies from $web, source blocked at XDP" "$(replies $ping6 -c 3 -W 1 $web)" 0
	check "XDP blocked packets" "$(pkts blocked cls_b)" 3
}

# tunnel KIND: the pair of devices t_a/t_b between 10.9.1.1 and 10.9.1.2.
tunnel() {
	kind=$1
	$IP -n ta link add t_a type "$kind" local 10.9.1.1 remote 10.9.1.2
	$IP -n tb link add t_b type "$kind" local 10.9.1.2 remote 10.9.1.1
}

addresses() { # FAMILY
	if [ "$1" = 6 ]; then
		$IP -n ta addr add fd00:10::1/64 dev t_a nodad
		$IP -n tb addr add fd00:10::2/64 dev t_b nodad
		$IP -n ta link set t_a up
		$IP -n tb link set t_b up
		$IP -n ta -6 route add 2001:db8::/32 dev t_a
		$IP -n tb -6 route add fd00:10::/64 dev t_b 2>/dev/null
	else
		$IP -n ta addr add 10.10.0.1/30 dev t_a
		$IP -n tb addr add 10.10.0.2/30 dev t_b
		$IP -n ta link set t_a up
		$IP -n tb link set t_b up
		$IP -n ta route add 192.0.2.0/24 dev t_a
		$IP -n ta route add 198.51.100.0/24 dev t_a
	fi
}

wireguard() {
	umask 077
	wg genkey > /tmp/wa.key
	wg genkey > /tmp/wb.key
	pa=$(wg pubkey < /tmp/wa.key)
	pb=$(wg pubkey < /tmp/wb.key)
	$IP -n ta link add t_a type wireguard
	$IP -n tb link add t_b type wireguard
	in_a wg set t_a private-key /tmp/wa.key listen-port 51820 \
		peer "$pb" endpoint 10.9.1.2:51821 allowed-ips 0.0.0.0/0
	in_b wg set t_b private-key /tmp/wb.key listen-port 51821 \
		peer "$pa" endpoint 10.9.1.1:51820 allowed-ips 0.0.0.0/0
}

for c in ipip gre sit wireguard; do
	setup || { echo "VMTEST cls-l3 $c: setup failed"; fail=1; continue; }
	case $c in
	sit) tunnel sit && addresses 6 && run_case sit t_a t_b 6 ;;
	wireguard) wireguard && addresses 4 && run_case wireguard t_a t_b 4 ;;
	*) tunnel $c && addresses 4 && run_case $c t_a t_b 4 ;;
	esac
	teardown
done

# A GRE device without a fixed remote: refused, one line, nothing attached.
CASE=gre-nbma
setup
$IP -n ta link add t_n type gre local 10.9.1.1
$IP -n ta link set t_n up
out=$(cls_a attach dev t_n 2>&1) && { echo "VMTEST cls-l3 $CASE: attached: $out"; fail=1; }
echo "VMTEST cls-l3 $CASE: $out"
echo "$out" | grep -q "without a fixed remote" || fail=1
check "pins made" "$(find /tmp/bpfa -mindepth 1 | wc -l)" 0
teardown

[ $fail = 0 ] && echo "VMTEST cls-l3 PASS" || echo "VMTEST cls-l3 FAIL"
exit $fail
