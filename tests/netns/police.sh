# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Rates with real traffic, sourced by test_police.sh, test_xdp_police.sh,
# test_pace.sh and bench/police.sh: a rated class, UDP offered at about
# four times its rate from two CPUs (two senders of twice it each), the
# rate delivered measured at the receiver by the datagrams' receive
# timestamps (tests/netns/ratercv.c) over a fixed window after a warm-up.

# What police_udp measures: the class (POLICE_CLASS) in the classifier
# of POLICE_CLI (cls: the sender's tc egress, cls_rcv: the receiver's
# XDP) and the senders' source address (POLICE_SRC, or the kernel's
# choice).
POLICE_CLASS=web
POLICE_CLI=cls
POLICE_SRC=
# POLICE_BLAST=1: the senders send as fast as they can (a slow guest)
POLICE_BLAST=

# police_udp RATE_BPS WINDOW: prints the rate delivered (bytes/s of
# Ethernet frames, as the class counts them: ratercv's figure from the
# receive timestamps of WINDOW seconds after a second's warm-up) and
# what the senders offered (bytes/s, from the classifier's count of the
# class), both as integers.  Two udpsend processes, one per CPU, each
# offering twice the rate: 1472-byte payloads, 1514-byte frames.
police_udp()
{
	local bps=$1 window=$2 frame=1514 pps gap c s0 s1 t0 t1 rcv out \
		pids=
	pps=$((bps / frame))
	# each sender at twice the rate, so that one sender descheduled on a
	# busy machine still leaves the class over its rate; a blast (gap 0)
	# past 2000 pps, where sleeps between datagrams come out too long
	# (at 100mbit: 1.2x the rate offered instead of 4x)
	gap=$((1000000 / (2 * pps)))
	[ "$pps" -lt 2000 ] && [ -z "$POLICE_BLAST" ] || gap=0
	out=$WORK/ratercv.$$
	ip netns exec "$NS_R" "$RATERCV" "$WEB4" "$PORT" 1 "$window" \
		$POLICE_SRC > "$out" &
	rcv=$!
	track_pid $rcv
	for c in 0 1; do
		# not through a function: $! must be udpsend itself
		ip netns exec "$NS_S" taskset -c "$c" "$UDPSEND" -i "$gap" \
			-c 1000000000 -l 1472 ${POLICE_SRC:+-s "$POLICE_SRC"} \
			"$WEB4" "$PORT" >/dev/null 2>&1 &
		pids="$pids $!"
		track_pid $!
	done
	sleep 1
	s0=$(police_class_bytes)
	t0=$(date +%s%N)
	wait $rcv || fail "ratercv: no stream measured"
	s1=$(police_class_bytes)
	t1=$(date +%s%N)
	# shellcheck disable=SC2086
	stop_pids $pids
	read -r got _ drops < "$out"
	[ "$drops" = 0 ] || fail "the receiving socket dropped $drops datagrams"
	# ms, or bytes * 10^9 overflows at 1gbit
	echo "$got $(( (s1 - s0) * 1000 / ((t1 - t0) / 1000000) ))"
}

# police_within GOT OFFERED BPS WHAT: the senders offered more than 1.5x
# BPS and GOT is within 2 % of it.
police_within()
{
	local got=$1 offered=$2 bps=$3 what=$4
	[ "$offered" -gt $((bps * 3 / 2)) ] ||
		fail "$what: the senders offered only $offered B/s for $bps"
	[ "$got" -ge $((bps * 98 / 100)) ] &&
		[ "$got" -le $((bps * 102 / 100)) ] ||
		fail "$what: delivered $got B/s for $bps: more than 2 % off"
}

police_class_bytes()
{
	$POLICE_CLI -j stats |
		jq ".classes[] | select(.name == \"$POLICE_CLASS\") | .bytes"
}

police_setup()
{
	setup_pair
	cls attach dev "$VS"
	cls class add 1:10 name web
	cls route add 198.51.100.0/24 class web
	rcv_nft_init
	rcv_rule web ip daddr "$WEB4"
}
