# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The BGP scenario test_bird.sh and test_frr.sh share; sourced after
# tests/sync/lib.sh.  An upstream in $NS_R announces N4 IPv4 and N6 IPv6
# prefixes over eBGP to the routing daemon in $NS_S, the host, which puts
# them into kernel tables; `classifier sync` reads them with the test's
# $SYNC_CONF.  Prefix i carries community (65000, 10|20|40) or none, by
# i mod 4: web (1:10, EF), bulk (1:20, CS1), blackhole (1:40, dropped),
# the default class.
#
# The test defines expect_kernel WHAT N4 N6: the host's kernel tables say
# what BGP said while prefixes [0, N4) and [0, N6) are announced (waiting
# for the daemons); expect_state calls it.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016

N4=4000
N6=2000
PKTS=20

# bgp_setup: the namespaces, HTB and the classes, the plan ($WORK/plan,
# one line a prefix: "FAMILY INDEX PREFIX COMMUNITY", 0: none), and the
# receiver's addresses and counters for the destinations.
bgp_setup()
{
	setup_pair
	setup_htb
	add_classes
	cls attach dev "$VS"
	awk -v n4=$N4 -v n6=$N6 'BEGIN {
		split("10 20 40 0", comm, " ")
		for (i = 0; i < n4; i++)
			printf "4 %d 100.%d.%d.0/24 %d\n", i, 64 + int(i / 256), i % 256, comm[i % 4 + 1]
		for (i = 0; i < n6; i++)
			printf "6 %d 2001:db8:%x::/48 %d\n", i, i + 256, comm[i % 4 + 1]
	}' > "$WORK/plan"
	bgp_receiver
}

# plan_part FAMILY FROM TO: the plan's lines of one family, indexes
# [FROM, TO).
plan_part()
{
	awk -v f="$1" -v from="$2" -v to="$3" \
		'$1 == f && $2 >= from && $2 < to' "$WORK/plan"
}

# want_classes N4 N6: "PREFIX CLASSID" of the announced prefixes with a
# community.
want_classes()
{
	awk -v n4="$1" -v n6="$2" '$4 && $2 < ($1 == 4 ? n4 : n6) {
		print $3, "1:" $4 }' "$WORK/plan"
}

# Traffic: destinations in prefixes 4..7 (communities 10, 20, 40, none)
# of each half and family, owned by the receiver, and in prefix 0, which
# a hand route holds for IPv4 (HAND_BGP).
addr_of()
{
	awk -v f="$1" -v i="$2" '$1 == f && $2 == i {
		sub("0/24$", "10", $3); sub("::/48$", "::10", $3); print $3 }' "$WORK/plan"
}

DESTS=
bgp_receiver()
{
	local fam n i d a m dscp
	for fam in 4 6; do
		n=$((fam == 4 ? N4 : N6))
		for i in 0 4 5 6 7 $((n / 2 + 4)) $((n / 2 + 5)) $((n / 2 + 6)) $((n / 2 + 7)); do
			DESTS="$DESTS $fam:$i"
		done
	done
	# whatever the daemon puts in the main table, a withdrawn prefix
	# still reaches the receiver (IPv6: setup_pair's 2001:db8::/32)
	ip -n "$NS_S" route add 100.64.0.0/10 via 10.200.0.2
	rcv_nft_init
	for d in $DESTS; do
		a=$(addr_of "${d%%:*}" "${d#*:}")
		case $a in
		*:*) ip -n "$NS_R" addr add "$a/128" dev lo nodad; m=ip6 ;;
		*) ip -n "$NS_R" addr add "$a/32" dev lo; m=ip ;;
		esac
		for dscp in ef cs1 cs0; do
			rcv_rule_dst "$a" $m dscp $dscp
		done
	done
}

# dscp_of FAM INDEX N4 N6: what the receiver should see of a destination
# while prefixes [0, N4) and [0, N6) are announced: ef (web), cs1 (bulk,
# and the hand route over IPv4 prefix 0), cs0 (default), or none
# (blackhole: dropped).
dscp_of()
{
	local n=$3
	[ "$1" = 6 ] && n=$4
	if [ "$1:$2" = 4:0 ]; then echo cs1; return; fi
	if [ "$2" -ge "$n" ]; then echo cs0; return; fi
	case $(awk -v f="$1" -v i="$2" '$1 == f && $2 == i { print $4 }' "$WORK/plan") in
	10) echo ef ;;
	20) echo cs1 ;;
	40) echo none ;;
	*) echo cs0 ;;
	esac
}

# dscp_counter ADDR DSCP: the receiver's counter of datagrams to ADDR
# with DSCP (bgp_receiver's rules).
dscp_counter()
{
	case $1 in
	*:*) counter_name "$1ip6 dscp $2" ;;
	*) counter_name "$1ip dscp $2" ;;
	esac
}

# expect_traffic WHAT N4 N6: PKTS datagrams to each destination arrive
# with the DSCP of the class BGP said (none for blackhole), and HTB put
# the web and bulk ones in 1:10 and 1:20.
expect_traffic()
{
	local d a want dscp got fam i n k v web=0 bulk=0
	local -A before after
	snapshot
	while read -r k v; do before[$k]=$v; done < <(rcv_counts)
	for d in $DESTS; do
		send "$(addr_of "${d%%:*}" "${d#*:}")" $PKTS
	done
	while read -r k v; do after[$k]=$v; done < <(rcv_counts)
	for d in $DESTS; do
		fam=${d%%:*} i=${d#*:}
		a=$(addr_of "$fam" "$i")
		want=$(dscp_of "$fam" "$i" "$2" "$3")
		[ "$want" = ef ] && web=$((web + PKTS))
		[ "$want" = cs1 ] && bulk=$((bulk + PKTS))
		for dscp in ef cs1 cs0; do
			k=$(dscp_counter "$a" $dscp)
			got=$((after[$k] - before[$k]))
			n=0
			[ "$want" != $dscp ] || n=$PKTS
			[ "$got" -eq $n ] ||
				fail "$1: $a (prefix $i): $got packets with DSCP $dscp, expected class: $want"
		done
	done
	expect_eq "$1: HTB 1:10 (web)" "$(htb_delta 1:10)" $web
	expect_eq "$1: HTB 1:20 (bulk)" "$(htb_delta 1:20)" $bulk
}

# expect_lookups WHAT N4 N6: lookups of a sample of the announced
# prefixes say the class BGP said (or the default once withdrawn).
expect_lookups()
{
	local fam i pfx comm a n k=0 want
	while read -r fam i pfx comm; do
		a=${pfx%/*}
		n=$2
		[ "$fam" = 6 ] && n=$3
		if [ "$fam:$i" = 4:0 ]; then
			# the hand route: bulk, not marked synced
			want="*via $pfx class 1:20 name bulk"
			[ "$(cls route list hand | grep -c "^$pfx 1:20$")" = 1 ] ||
				fail "$1: the hand route over $pfx is gone"
			cls lookup "$a" | grep -qv synced ||
				fail "$1: $pfx is synced, not the hand route"
			want="$want*"
		elif [ "$i" -lt "$n" ] && [ "$comm" != 0 ]; then
			want="*via $pfx class 1:$comm name * synced*"
		else
			want="*via (no route) class default*"
		fi
		expect_lookup "$1" "$a" "$want"
		k=$((k + 1))
	done < <(awk 'NR == 1 || NR % 97 == 0' "$WORK/plan")
	log "$1: $k lookups say what BGP said"
}

# bgp_hand_routes: one BGP prefix and one other held by hand: sync must
# leave both alone.
HAND_BGP=
bgp_hand_routes()
{
	HAND_BGP=$(awk 'NR == 1 { print $3 }' "$WORK/plan")
	cls route add "$HAND_BGP" class bulk
	cls route add 198.18.0.0/15 class bulk
	cls route list hand > "$WORK/hand.want"
}

# expect_state WHAT N4 N6: the kernel (expect_kernel) and the daemon
# hold the first N4/N6 prefixes: route list synced, the hand routes,
# lookups, the whole state, traffic.
expect_state()
{
	local what=$1 t0=$EPOCHREALTIME
	expect_kernel "$@"
	want_classes "$2" "$3" | grep -v "^$HAND_BGP " | sort > "$WORK/want"
	wait_until 5 'synced > "$WORK/got"; same_set "$WORK/want" "$WORK/got"' ||
		fail "$what: the synced routes differ from BGP's: $(diff "$WORK/want" "$WORK/got" | head -5 | tr '\n' ' ')"
	cls route list hand > "$WORK/hand"
	cmp -s "$WORK/hand" "$WORK/hand.want" ||
		fail "$what: hand routes changed: $(tr '\n' ' ' < "$WORK/hand")"
	log "$what: $(wc -l < "$WORK/got") synced routes equal BGP's, hand routes kept ($(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s)"
	expect_lookups "$what" "$2" "$3"
	check_whole "$what"
	expect_traffic "$what" "$2" "$3"
}

# expect_sync_started: the daemon is up on $SYNC_CONF and holds all the
# prefixes; its status counts them and the shadowed one.
expect_sync_started()
{
	start_sync config "$SYNC_CONF"
	expect_state "announced" $N4 $N6
	expect_ge "status: shadowed (the hand route over $HAND_BGP)" "$(status_of shadowed)" 1
	expect_eq "status: routes" "$(status_of routes)" "$(synced | wc -l)"
}

# expect_stream_kept: under a UDP stream to a web prefix of each family,
# restart the daemon and reload it: no packet may fall to the default
# class meanwhile.
expect_stream_kept()
{
	streams_start 4000 300 "$(addr_of 4 4)" "$(addr_of 6 4)"
	sleep 0.2
	stop_sync
	start_sync config "$SYNC_CONF"
	kill -HUP "$SYNC_PID"
	wait_until 5 'grep -q "resync (reload)" "$SYNC_LOG"' || fail "no resync after SIGHUP"
	streams_check "across a restart and a reload of the daemon"
}

# expect_sync_clean: no errors all along, still running; then stopped.
expect_sync_clean()
{
	expect_eq "status: errors" "$(status_of errors)" 0
	expect_eq "status: running" "$(status_of running)" true
	stop_sync
}
