#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# pace RATE gives a class's packets departure times that fq releases:
# UDP offered at about four times the rate from two CPUs leaves at the
# rate (+-2 %), what would wait past the horizon dropped and counted; TCP
# with ECN gets within 5 % of the rate, with a ping through the class
# delayed no more than the horizon, and with "ce" no more than a few ms.
# Where the kernel has no fq (this machine's), pace is refused in one
# line; the guest of deploy/kernel (Debian's 6.1 and 6.12) runs the rest.
# PACE_LOG=FILE: the numbers, for bench/results.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/police.sh
. "$(dirname "$0")/police.sh"

BPS=1250000 # 10mbit
police_setup
if ! in_snd tc qdisc add dev lo root fq 2>/dev/null; then
	out=$(cls class set web pace 10mbit 2>&1) &&
		fail "pace accepted on a kernel without fq"
	expect_eq "lines said" "$(echo "$out" | wc -l)" 1
	echo "$out" | grep -q "fq" || fail "refusal does not name fq: $out"
	cls class list | grep -q "name web$" || fail "the class changed"
	exit 0
fi
in_snd tc qdisc del dev lo root
say()
{
	log "$*"
	[ -z "${PACE_LOG:-}" ] || echo "$*" >> "$PACE_LOG"
}
# fq releases at the departure times; its horizon is the class's
tc -n "$NS_S" qdisc replace dev "$VS" root fq horizon 50ms horizon_drop
cls class set web pace 10mbit
# qemu's TCG: senders that sleep between datagrams offer less than 4x
POLICE_BLAST=1
read -r got offered < <(police_udp $BPS 4)
say "pace 10mbit UDP: delivered $got B/s, offered $offered B/s"
police_within "$got" "$offered" $BPS "pace 10mbit"
r=$(cls -j stats | jq -c '.classes[] | select(.name == "web") | .rate.egress')
[ "$(echo "$r" | jq .delayed)" -gt 0 ] || fail "nothing delayed: $r"
[ "$(echo "$r" | jq .dropped)" -gt 0 ] ||
	fail "offered twice the rate, nothing dropped at the horizon: $r"

# TCP with ECN, and a ping through the same class meanwhile.
in_snd sysctl -qw net.ipv4.tcp_ecn=1
in_rcv sysctl -qw net.ipv4.tcp_ecn=1
tcp_ping()
{
	local bps rtt
	in_rcv iperf3 -s -B "$WEB4" -1 -D --logfile "$WORK/iperf3.log"
	sleep 0.3
	in_snd iperf3 -c "$WEB4" -t 8 -O 2 -J > "$WORK/tcp.json" &
	sleep 3
	rtt=$(in_snd ping -c 10 -i 0.2 -q "$WEB4" |
		awk -F/ '/^rtt/ { print $5 }')
	wait $!
	bps=$(jq '.end.sum_received.bits_per_second | floor' "$WORK/tcp.json")
	# as the class counts it: frames of 1514 bytes for 1448 of payload
	echo "$((bps * 1514 / 1448)) $rtt"
}
read -r bps rtt < <(tcp_ping)
say "pace 10mbit TCP+ECN, no ce: $bps bit/s of frames, ping avg $rtt ms"
[ "$bps" -ge 9500000 ] && [ "$bps" -le 10200000 ] ||
	fail "TCP got $bps bit/s at pace 10mbit: not within 5 %"
awk -v r="$rtt" 'BEGIN { exit !(r <= 60) }' ||
	fail "ping waited $rtt ms, past the 50 ms horizon"
cls class set web pace 10mbit ce 5ms
read -r bps rtt < <(tcp_ping)
marked=$(cls -j stats | jq '.classes[] | select(.name == "web") |
	.rate.egress.marked')
say "pace 10mbit ce 5ms TCP+ECN: $bps bit/s of frames, ping avg $rtt ms, $marked marked"
[ "$bps" -ge 9500000 ] && [ "$bps" -le 10200000 ] ||
	fail "TCP got $bps bit/s at pace 10mbit ce 5ms: not within 5 %"
[ "$marked" -gt 0 ] || fail "no packet marked CE"
awk -v r="$rtt" 'BEGIN { exit !(r <= 10) }' ||
	fail "ping waited $rtt ms with ce 5ms"
