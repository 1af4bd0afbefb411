#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest smoke (guest-run.sh; needs sch_fq): pacing by departure time holds
# a rate through fq under mq on a 4-queue veth, what issue 23's pacing
# needs from the platform, and how fast this TCG guest moves packets.
#
#   guest-run.sh [--kernel K] deploy/kernel/smoke/pace.sh [base|udp|tcp]...
#
#   base  unpaced UDP (iperf3 -b 0) and TCP rates between the namespaces
#   udp   UDP offered at 2 x RATE from two vCPUs (two iperf3 clients pinned
#         to CPU 0 and 1) into one class paced to RATE; bpf_skb_set_tstamp,
#         then a direct skb->tstamp write
#   tcp   TCP with ECN through the class, ping in it, without and with CE
#         marking above CE_MS of delay
#
# The class is smoke/edt_pace.bpf.c on snd's egress (clsact); fq has a
# horizon of 2 x HORIZON_MS, so packets past the pacer's own horizon are
# the pacer's drops. Rates are what reaches the receiver's veth: frames,
# Ethernet header included, the bytes the pacer counts (iperf3's payload
# rate is printed beside). GSO and TSO are off on the sender: a 64 KB GSO
# packet would be one 52 ms departure slot at 10 Mbit/s.
# Env: RATE (bit/s, default 10000000), SECONDS_PER_RUN (default 12; the
# rate is read over all but the first 2 and last 2 s),
# HORIZON_MS (default 50), CE_MS (default 10), MODES (UDP, default "helper
# direct"), TOLERANCE_PCT (default 2; TCP gets 3 more over the rate),
# TCP_UNDER_PCT (TCP under the rate, default 15).
#
# Checks. UDP: the rate while the class is busy within TOLERANCE_PCT, and
# not over it in all. A shared 2-core host starves a TCG guest's senders at
# times: the class goes idle, its clock falls behind and those slots are
# gone; the pacer sums that time (idle_ns) and it is left out of the busy
# rate (measured: the frames delivered equal the bytes the pacer admitted,
# so the rest is the senders). The pacer must drop (offered 2x) and fq
# must hold packets (throttled). TCP: the rate in all (TCP's own pauses
# count), ping in the class within the horizon on average, and CE marking
# must halve that delay.
. "$(dirname "$0")/lib.sh"

RATE=${RATE:-10000000}
T=${SECONDS_PER_RUN:-12}
HORIZON_MS=${HORIZON_MS:-50}
CE_MS=${CE_MS:-10}
TOL=${TOLERANCE_PCT:-2}
TCP_UNDER=${TCP_UNDER_PCT:-15}
PIN=/sys/fs/bpf/smoke_pace
OBJ=${GUEST_SMOKE:-/guest/smoke}/edt_pace.bpf.o
RES=${GUEST_OUT:-/tmp}/pace
mkdir -p "$RES"

smoke_pair snd a0 10.77.0.1 rcv b0 10.77.0.2 numtxqueues 4 numrxqueues 4
ethtool -K a0 >/dev/null 2>&1 || true
nsx snd ethtool -K a0 tso off gso off >/dev/null
# fq_leaves: mq with four fresh fq leaves (their counters start at 0)
fq_leaves() {
	local q
	nsx snd tc qdisc del dev a0 root 2>/dev/null || true
	nsx snd tc qdisc add dev a0 root handle 7fff: mq
	for q in 1 2 3 4; do
		nsx snd tc qdisc add dev a0 parent 7fff:$q handle $((q + 1)): fq \
			horizon $((2 * HORIZON_MS))ms
	done
}
fq_leaves
check mq_fq_leaves bash -c "
	n=\$(nsenter --net=/run/netns/snd tc qdisc show dev a0 | grep -c 'qdisc fq .*horizon $((2 * HORIZON_MS))ms')
	[ \$n = 4 ] || { nsenter --net=/run/netns/snd tc qdisc show dev a0; exit 1; }
	echo '4 fq leaves under mq 7fff:, horizon $((2 * HORIZON_MS))ms'"

SMOKE_PINS+=("$PIN" "${PIN}_maps")
bpftool prog load "$OBJ" "$PIN" type classifier pinmaps "${PIN}_maps"
nsx snd tc qdisc add dev a0 clsact
nsx snd tc filter add dev a0 egress bpf da pinned "$PIN"

# pace RATE_BITS CE_NS DIRECT: the class's parameters, its clock and the
# fq leaves reset
pace() {
	fq_leaves
	bpftool map update pinned "${PIN}_maps/cfg" key hex 00 00 00 00 value hex \
		$(hex_u64 $(($1 / 8))) $(hex_u64 $((HORIZON_MS * 1000000))) \
		$(hex_u64 "$2") $(hex_u64 "$3")
	bpftool map update pinned "${PIN}_maps/clock" key hex 00 00 00 00 value hex \
		$(for _ in 1 2 3 4 5 6 7 8 9; do hex_u64 0; done)
}
clock() { # FIELD
	bpftool -j map lookup pinned "${PIN}_maps/clock" key hex 00 00 00 00 |
		jq -r ".formatted.value.$1"
}
# rate_window SECONDS: "RAW BUSY": bit/s of frames into b0 over the next
# SECONDS, and the same over the time the class was not idle (the pacer's
# idle_ns: when the senders, starved of the host's CPU, let the clock fall
# behind, those slots are not the pacer's to fill). Read in rcv by one bash
# (/proc/net/dev is the reader's namespace's) with bash's own clock: under
# TCG each process started costs tens of ms, and a counter read by ip | jq
# would be far from its time stamp.
rate_window() {
	nsx rcv bash -c '
		rx() { # into RX, in this shell: a $(...) would fork first
			local l
			while read -r l; do
				l=${l/:/ }
				case $l in "b0 "*) set -- $l; RX=$2; return ;; esac
			done < /proc/net/dev
		}
		idle() {
			bpftool -j map lookup pinned "$2" key hex 00 00 00 00 |
				jq -r .formatted.value.idle_ns
		}
		t0=$EPOCHREALTIME; rx; b0=$RX; i0=$(idle "$@")
		sleep "$1"
		t1=$EPOCHREALTIME; rx; b1=$RX; i1=$(idle "$@")
		awk -v a="$b0" -v b="$b1" -v s="$t0" -v e="$t1" -v i="$i0" -v j="$i1" \
			"BEGIN { printf \"%.0f %.0f\", (b - a) * 8 / (e - s), (b - a) * 8 / (e - s - (j - i) / 1e9) }"' \
		_ "$1" "${PIN}_maps/clock"
}

# fq_stat FIELD: FIELD summed over the four fq leaves
fq_stat() {
	nsx snd tc -j -s qdisc show dev a0 |
		jq "[.[] | select(.kind == \"fq\") | .$1 // 0] | add"
}

mbit() { awk -v r="$1" 'BEGIN { printf "%.2f", r / 1e6 }'; }
within() { # MEASURED WANT PCT
	awk -v m="$1" -v w="$2" -v p="$3" 'BEGIN { d = (m - w) / w * 100; exit !(d <= p && d >= -p) }'
}
pct() { awk -v m="$1" -v w="$2" 'BEGIN { printf "%+.2f%%", (m - w) / w * 100 }'; }

# server PORT NAME: one iperf3 server in rcv, its JSON in $RES/NAME.json
server() {
	nsx rcv iperf3 -s -1 -J -p "$1" > "$RES/$2.json" 2>&1 &
	wait_listen rcv "$1"
}
# iperf3 payload rate the server saw, bit/s
server_rate() { jq -r '.end.sum_received.bits_per_second // .end.sum.bits_per_second' "$RES/$1.json"; }

# udp_run NAME CLIENT_RATE CLIENTS: clients pinned to CPU 0 (and 1), rate
# measured in the middle of the run
udp_run() {
	local name=$1 b=$2 n=$3 c pids=() r
	for c in $(seq 0 $((n - 1))); do
		server $((5201 + c)) "$name-$c"
	done
	for c in $(seq 0 $((n - 1))); do
		taskset -c "$c" nsenter --net=/run/netns/snd iperf3 -u -b "$b" -l 1400 \
			-t "$T" -p $((5201 + c)) -c 10.77.0.2 -J > "$RES/$name-client-$c.json" 2>&1 &
		pids+=($!)
	done
	sleep 2
	r=$(rate_window $((T - 4)))
	wait "${pids[@]}"
	sleep 0.5
	echo "$r"
}

run_base() {
	local r p
	pace 0 0 0
	read -r r _ < <(udp_run base-udp 0 1)
	p=$(server_rate base-udp-0)
	echo "RATE base udp: $(mbit "$r") Mbit/s frames, iperf3 payload $(mbit "$p") Mbit/s (1 client, -b 0)"
	server 5201 base-tcp
	nsx snd iperf3 -t "$T" -c 10.77.0.2 -J > "$RES/base-tcp-client.json" 2>&1
	sleep 0.5
	p=$(server_rate base-tcp)
	echo "RATE base tcp: iperf3 $(mbit "$p") Mbit/s (1 flow)"
	check base_rates awk -v u="$r" -v t="$p" -v w="$RATE" \
		'BEGIN { if (u < 2 * w || t < w) { print "the guest moves less than the test needs"; exit 1 } }'
}

run_udp() {
	local mode direct r b p0 p1 d th
	for mode in ${MODES:-helper direct}; do
		direct=0
		[ $mode = direct ] && direct=1
		pace "$RATE" 0 $direct
		read -r r b < <(udp_run "udp-$mode" $((RATE / 2 * 2)) 2)
		p0=$(server_rate "udp-$mode-0")
		p1=$(server_rate "udp-$mode-1")
		d=$(clock dropped)
		th=$(fq_stat throttled)
		echo "RATE udp $mode: $(mbit "$b") Mbit/s frames while busy for $(mbit "$RATE") ($(pct "$b" "$RATE")), $(mbit "$r") over the whole window; iperf3 payload $(mbit "$p0") + $(mbit "$p1"); offered 2 x $(mbit "$RATE"); pacer dropped $d, idle $(clock idle) times $(($(clock idle_ns) / 1000000)) ms in all, max delay $(($(clock max_delay_ns) / 1000)) us; fq throttled $th, dropped $(fq_stat drops)"
		check "udp_paced_$mode" bash -c "
			awk -v m=$b -v r=$r -v w=$RATE -v o=$TOL 'BEGIN { d = (m - w) / w * 100; exit !(d <= o && d >= -o && r <= w * (1 + o / 100)) }' ||
				{ echo '$(mbit "$b") Mbit/s while busy ($(mbit "$r") in all) is not within ${TOL}% of $(mbit "$RATE")'; exit 1; }
			[ $d -gt 0 ] || { echo 'offered 2x the rate, the pacer dropped nothing'; exit 1; }
			[ $th -gt 0 ] || { echo 'fq held no packet for its departure time (throttled 0)'; exit 1; }
			echo '$(pct "$b" "$RATE"), fq throttled $th'"
	done
}

# tcp_run NAME CE_NS: TCP with ECN 10 s through the class, ping in it
tcp_run() {
	local name=$1 r p ping
	pace "$RATE" "$2" 0
	server 5201 "$name"
	nsx snd ping -q -i 0.2 -c $((T * 5 - 5)) 10.77.0.2 > "$RES/$name-ping.txt" 2>&1 &
	ping=$!
	nsx snd iperf3 -t "$T" -c 10.77.0.2 -J > "$RES/$name-client.json" 2>&1 &
	sleep 2
	r=$(rate_window $((T - 4)))
	wait $!
	wait $ping || true
	sleep 0.5
	p=$(server_rate "$name")
	echo "$r $p $(awk -F'[/ ]' '/^rtt/ { print $7, $8, $9 }' "$RES/$name-ping.txt")"
}

run_tcp() {
	local out r p avg max avg0=
	nsx snd sysctl -qw net.ipv4.tcp_ecn=1
	for ce in 0 $((CE_MS * 1000000)); do
		out=$(tcp_run "tcp-ce$ce" $ce)
		read -r r _ p _ avg max <<< "$out"
		echo "RATE tcp ecn ce_ms=$((ce / 1000000)): $(mbit "$r") Mbit/s frames ($(pct "$r" "$RATE")), iperf3 $(mbit "$p"); ping in class avg $avg ms max $max ms; pacer dropped $(clock dropped), marked $(clock marked); fq throttled $(fq_stat throttled)"
		check "tcp_ecn_ce$((ce / 1000000))ms" bash -c "
			awk -v m=$r -v w=$RATE -v o=$TOL -v u=$TCP_UNDER 'BEGIN { d = (m - w) / w * 100; exit !(d <= o + 3 && d >= -u) }' ||
				{ echo 'TCP $(mbit "$r") Mbit/s is not within +$((TOL + 3))/-${TCP_UNDER}% of $(mbit "$RATE")'; exit 1; }
			awk -v a=${avg:-999999} -v h=$HORIZON_MS 'BEGIN { exit !(a <= h) }' ||
				{ echo 'ping avg ${avg:-none} ms beyond the ${HORIZON_MS} ms horizon'; exit 1; }
			[ $ce = 0 ] || [ $(clock marked) -gt 0 ] || { echo 'nothing marked CE'; exit 1; }
			[ $ce = 0 ] || awk -v a=$avg -v b=$avg0 'BEGIN { exit !(a < b / 2) }' ||
				{ echo 'CE marking did not halve the delay: ping avg $avg ms against $avg0 ms'; exit 1; }
			echo 'ping avg ${avg} ms'"
		[ $ce != 0 ] || avg0=$avg
	done
}

[ $# -gt 0 ] || set -- base udp tcp
echo "# $(uname -r), $(nproc) vCPUs, rate $(mbit "$RATE") Mbit/s, ${T}s runs, horizon ${HORIZON_MS} ms"
for what in "$@"; do
	case $what in
	base | udp | tcp) "run_$what" ;;
	*) echo "pace.sh: unknown part '$what' (base, udp, tcp)" >&2; exit 2 ;;
	esac
done
smoke_done
