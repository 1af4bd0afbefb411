#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest smoke (guest-run.sh; needs ipip, ip_gre, sit, ip6_gre, wireguard,
# vrf): the L3 devices of issue 19 item 2 that this machine's kernel lacks
# come up between two namespaces over a veth underlay and carry pings.
# Each is named with its link type (what classifier's attach will see).
#
#   guest-run.sh [--kernel K] deploy/kernel/smoke/tunnels.sh [TYPE...]
#   TYPE: ipip gre sit ip6gre wireguard vrf (default: all)
. "$(dirname "$0")/lib.sh"

smoke_pair tA u0 10.79.0.1 tB u1 10.79.0.2
nsx tA ip -6 addr add fd00:79::1/64 dev u0 nodad
nsx tB ip -6 addr add fd00:79::2/64 dev u1 nodad

# both ends of a tunnel: tun_pair NAME INNER_A INNER_B TYPE ARGS... (the
# ARGS get local/remote of the right end appended)
tun_pair() {
	local name=$1 a=$2 b=$3 type=$4 la=$5 lb=$6
	shift 6
	nsx tA ip link add "$name" type "$type" local "$la" remote "$lb" "$@"
	nsx tB ip link add "$name" type "$type" local "$lb" remote "$la" "$@"
	nsx tA ip addr add "$a" dev "$name"
	nsx tB ip addr add "$b" dev "$name"
	nsx tA ip link set "$name" up
	nsx tB ip link set "$name" up
}

# up_and_ping NAME DST [-6]: the device's link type and a ping across
up_and_ping() {
	local name=$1 dst=$2 lt tx
	lt=$(nsx tA ip -j link show "$name" | jq -r '.[0].link_type')
	nsx tA ping ${3:-} -c 3 -i 0.2 -W 2 -q "$dst" > /tmp/ping.$name 2>&1 ||
		{ cat /tmp/ping.$name; return 1; }
	tx=$(nsx tA ip -j -s link show "$name" | jq '.[0].stats64.tx.packets')
	[ "$tx" -ge 3 ] || { echo "$name sent $tx packets: the pings did not go through it"; return 1; }
	echo "link/$lt, $(grep -o '[0-9]* received' /tmp/ping.$name) of 3 to $dst, $tx sent through $name"
}

wg_pair() {
	local ka kb
	ka=$(wg genkey)
	kb=$(wg genkey)
	nsx tA ip link add wg0 type wireguard
	nsx tB ip link add wg0 type wireguard
	nsx tA wg set wg0 listen-port 51820 private-key <(echo "$ka") \
		peer "$(echo "$kb" | wg pubkey)" allowed-ips 10.80.5.2/32 endpoint 10.79.0.2:51820
	nsx tB wg set wg0 listen-port 51820 private-key <(echo "$kb") \
		peer "$(echo "$ka" | wg pubkey)" allowed-ips 10.80.5.1/32 endpoint 10.79.0.1:51820
	nsx tA ip addr add 10.80.5.1/24 dev wg0
	nsx tB ip addr add 10.80.5.2/24 dev wg0
	nsx tA ip link set wg0 up
	nsx tB ip link set wg0 up
}

# a VRF in tA holding a second veth to tB; the ping leaves through the VRF
vrf_pair() {
	nsx tA ip link add vrf1 type vrf table 10
	nsx tA ip link set vrf1 up
	nsx tA ip link add v0 type veth peer name v1 netns tB
	nsx tA ip link set v0 master vrf1
	nsx tA ip addr add 10.80.6.1/24 dev v0
	nsx tB ip addr add 10.80.6.2/24 dev v1
	nsx tA ip link set v0 up
	nsx tB ip link set v1 up
}

run_type() {
	case $1 in
	ipip) tun_pair ipip1 10.80.1.1/24 10.80.1.2/24 ipip 10.79.0.1 10.79.0.2
		up_and_ping ipip1 10.80.1.2 ;;
	gre) tun_pair gre1 10.80.2.1/24 10.80.2.2/24 gre 10.79.0.1 10.79.0.2
		up_and_ping gre1 10.80.2.2 ;;
	sit) tun_pair sit1 fd00:80:3::1/64 fd00:80:3::2/64 sit 10.79.0.1 10.79.0.2
		up_and_ping sit1 fd00:80:3::2 -6 ;;
	ip6gre) tun_pair gre6 10.80.4.1/24 10.80.4.2/24 ip6gre fd00:79::1 fd00:79::2
		up_and_ping gre6 10.80.4.2 ;;
	wireguard) wg_pair
		up_and_ping wg0 10.80.5.2 ;;
	vrf) vrf_pair
		nsx tA ping -I vrf1 -c 3 -i 0.2 -W 2 -q 10.80.6.2 > /tmp/ping.vrf 2>&1 ||
			{ cat /tmp/ping.vrf; return 1; }
		echo "vrf1 table 10, $(grep -o '[0-9]* received' /tmp/ping.vrf) of 3 to 10.80.6.2 through it" ;;
	*) echo "unknown type $1"; return 1 ;;
	esac
}

[ $# -gt 0 ] || set -- ipip gre sit ip6gre wireguard vrf
for ty in "$@"; do
	check "tunnel_$ty" run_type "$ty"
done
smoke_done
