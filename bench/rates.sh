#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmarks of the rates (issue 23), one run, in network namespaces with
# private bpffs (tests/netns/lib.sh; everything removed on exit):
#   bench/rates.sh [--window S] [--rates "10mbit 100mbit 1gbit"] BUILD_DIR
#  1. accuracy: UDP offered at about 4x the rate from two CPUs into one
#     policed class, at tc egress and (by source) at XDP ingress; the
#     rate delivered from the receive timestamps of S seconds
#     (tests/netns/police.sh, ratercv); TCP, iperf3 4 flows, S seconds;
#  2. program cost: ratebench (BPF_PROG_TEST_RUN of cls_egress and
#     cls_ingress, unrated against policed and paced, 1 and 2 CPUs);
#  3. sender CPU per packet, two CPUs each sending 1472-byte UDP as fast
#     as they can: the classifier alone (unrated), policing (police
#     10gbit: never over, a CAS a packet), one HTB root, and mq with an
#     HTB per queue (4 queues), both with classes of 10gbit and the
#     classifier unrated: user + system time of the senders over packets.
# Prints Markdown; the machine's load before and after goes with it.
set -euo pipefail

WINDOW=10
RATES="10mbit 100mbit 1gbit"
while [ $# -gt 1 ]; do
	case $1 in
	--window) WINDOW=$2; shift ;;
	--rates) RATES=$2; shift ;;
	--case) CASE=$2; shift ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || { echo "usage: $0 [--window S] [--rates R...] BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)

bps_of() # 10mbit -> bytes/s
{
	case $1 in
	*gbit) echo $(( ${1%gbit} * 125000000 )) ;;
	*mbit) echo $(( ${1%mbit} * 125000 )) ;;
	esac
}

# One measurement in a process of its own (lib.sh's traps clean it up).
if [ -n "${CASE:-}" ]; then
	CLASSIFIER=$BUILD/classifier
	# shellcheck source=tests/netns/lib.sh
	. "$SRC/tests/netns/lib.sh"
	# shellcheck source=tests/netns/police.sh
	. "$SRC/tests/netns/police.sh"
	set -- $CASE
	case $1 in
	tc)
		police_setup
		cls class set web police "$2"
		read -r got offered < <(police_udp "$(bps_of "$2")" "$WINDOW")
		echo "$got $offered"
		;;
	xdp)
		setup_pair
		ip -n "$NS_S" addr add 198.18.0.66/32 dev "$VS"
		ip -n "$NS_R" route add 198.18.0.0/15 via 10.200.0.1
		cls_rcv class add 1:40 name flood police "$2"
		cls_rcv route add 198.18.0.0/24 class flood
		cls_rcv attach dev "$VR" xdp
		POLICE_CLASS=flood POLICE_CLI=cls_rcv POLICE_SRC=198.18.0.66
		read -r got offered < <(police_udp "$(bps_of "$2")" "$WINDOW")
		echo "$got $offered"
		;;
	tcp)
		police_setup
		cls class set web police "$2"
		in_rcv iperf3 -s -B "$WEB4" -1 -D --logfile "$WORK/iperf3.log"
		sleep 0.3
		in_snd iperf3 -c "$WEB4" -P 4 -t "$WINDOW" -O 1 -J |
			jq '.end.sum_received.bits_per_second | floor'
		;;
	cpu)
		[ "$2" != mq ] || VETH_QUEUES=4
		setup_pair
		cls attach dev "$VS"
		cls class add 1:10 name web
		cls route add 198.51.100.0/24 class web
		case $2 in
		police) cls class set web police 10gbit ;;
		htb)
			tc -n "$NS_S" qdisc add dev "$VS" root handle 1: htb \
				default 10
			tc -n "$NS_S" class add dev "$VS" parent 1: classid 1:10 \
				htb rate 10gbit ceil 10gbit quantum 60000
			;;
		mq)
			tc -n "$NS_S" qdisc add dev "$VS" root handle 7fff: mq
			for q in 1 2 3 4; do
				tc -n "$NS_S" qdisc add dev "$VS" parent "7fff:$q" \
					handle "$q:" htb default 10
				tc -n "$NS_S" class add dev "$VS" parent "$q:" \
					classid "$q:10" htb rate 10gbit ceil 10gbit \
					quantum 60000
			done
			;;
		esac
		n=200000
		TIMEFORMAT='%3U %3S'
		t=$( { time {
			for c in 0 1; do
				ip netns exec "$NS_S" taskset -c "$c" "$UDPSEND" \
					-i 0 -c $n -l 1472 "$WEB4" "$PORT" \
					>/dev/null &
			done
			wait
		} ; } 2>&1 )
		read -r u s <<< "$t"
		awk -v u="$u" -v s="$s" -v n=$((2 * n)) \
			'BEGIN { printf "%.0f\n", (u + s) * 1e9 / n }'
		;;
	esac
	exit 0
fi

[ "$(id -u)" = 0 ] || { echo "bench/rates.sh: needs root" >&2; exit 1; }
TMP=$(mktemp -d /tmp/cls-rates.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
gcc -O2 -Wall -Wextra -o "$TMP/udpsend" "$SRC/tests/netns/udpsend.c"
gcc -O2 -Wall -Wextra -o "$TMP/ratercv" "$SRC/tests/netns/ratercv.c"
export UDPSEND=$TMP/udpsend RATERCV=$TMP/ratercv PEER=/bin/false
one() { "$0" --window "$WINDOW" --case "$*" "$BUILD"; }

echo "# Rates (issue 23): $(date -u +%F), $(uname -r), $(nproc) CPUs"
echo
echo "Load before: $(cut -d' ' -f1-3 /proc/loadavg)." \
	"Command: \`bench/rates.sh --window $WINDOW --rates \"$RATES\" BUILD\`."
echo
echo "## Policing accuracy: UDP at ~4x the rate from 2 CPUs, $WINDOW s"
echo
echo "| hook | rate | delivered (frames, B/s) | of the rate | offered (B/s) |"
echo "|---|---|---|---|---|"
for h in tc xdp; do
	for r in $RATES; do
		read -r got offered < <(one "$h" "$r")
		bps=$(bps_of "$r")
		echo "| $h | $r | $got | $(awk -v g="$got" -v b="$bps" \
			'BEGIN { printf "%+.2f %%", (g - b) * 100 / b }') | $offered |"
	done
done
echo
echo "## TCP through a policed class: iperf3, 4 flows, $WINDOW s"
echo
echo "| rate | goodput (bit/s) | of the rate |"
echo "|---|---|---|"
for r in $RATES; do
	got=$(one tcp "$r")
	bits=$(( $(bps_of "$r") * 8 ))
	echo "| $r | $got | $(awk -v g="$got" -v b="$bits" \
		'BEGIN { printf "%.1f %%", g * 100 / b }') |"
done
echo
echo "## Program cost (ratebench, ns per run, median of 9 rounds)"
echo
"$BUILD/bench/ratebench" --rounds 9 > "$TMP/cost.jsonl"
echo "| hook | CPUs | unrated | police | police_over | pace |"
echo "|---|---|---|---|---|---|"
for h in tc xdp; do
	for c in 1 2; do
		line="| $h | $c |"
		for k in unrated police police_over pace; do
			v=$(jq -s --arg h "$h" --arg k "$k" --argjson c "$c" \
				'[.[] | select(.hook == $h and .case == $k and
					.cpus == $c) | .ns] | sort |
				if length == 0 then "-" else .[length / 2 | floor]
				end' "$TMP/cost.jsonl")
			line="$line $v |"
		done
		echo "$line"
	done
done
echo
echo "## Sender CPU per packet, 2 CPUs sending (user + system ns)"
echo
echo "| unrated (noqueue) | police 10gbit (noqueue) | HTB root | mq + 4 HTB |"
echo "|---|---|---|---|"
line="|"
for k in unrated police htb mq; do
	line="$line $(one cpu "$k") |"
done
echo "$line"
echo
echo "Load after: $(cut -d' ' -f1-3 /proc/loadavg)."
