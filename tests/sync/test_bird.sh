#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Real BGP: an upstream BIRD announces 4000 IPv4 and 2000 IPv6 prefixes
# with communities over eBGP to the host's BIRD, which puts them in the
# kernel with deploy/sync/bird-classes.conf (IPv4: table 100 + realm;
# IPv6: a table per class); `classifier sync` with deploy/sync/sync.conf
# must hold exactly what BGP said: route list synced, lookups (the IPv4
# table agreeing), the whole state (check_state), and real UDP through
# HTB, counted by the receiver by DSCP, in the classes BGP said.  Then a
# withdrawal of half, the upstream stopped (all withdrawn; routes added
# by hand stay) and started again.  The daemon restarted and reloaded
# under a UDP stream: no packet falls to the default class.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

command -v bird >/dev/null || fail "bird missing (tests/deps.sh installs bird2)"
N4=4000
N6=2000
PKTS=20
setup_pair
setup_htb
add_classes
cls attach dev "$VS"

# The plan, one line a prefix: "FAMILY INDEX PREFIX COMMUNITY" (0: none);
# prefix i carries community (65000, 10|20|40) or none, by i mod 4.
awk -v n4=$N4 -v n6=$N6 'BEGIN {
	split("10 20 40 0", comm, " ")
	for (i = 0; i < n4; i++)
		printf "4 %d 100.%d.%d.0/24 %d\n", i, 64 + int(i / 256), i % 256, comm[i % 4 + 1]
	for (i = 0; i < n6; i++)
		printf "6 %d 2001:db8:%x::/48 %d\n", i, i + 256, comm[i % 4 + 1]
}' > "$WORK/plan"

# bgp NAME LOCAL AS NEIGHBOR AS FAMILY IMPORT EXPORT: an eBGP session
# that comes up (and back) within a second or two
bgp()
{
	cat <<-CONF
	protocol bgp $1 {
		local $2 as $3;
		neighbor $4 as $5;
		connect delay time 1; connect retry time 1; error wait time 1, 2;
		$6 { import $7; export $8; };
	}
	CONF
}

# static protocols: s4a/s6a the first half, s4b/s6b the second
statics()
{
	awk -v fam="$1" -v from="$2" -v to="$3" '$1 == fam && $2 >= from && $2 < to {
		if ($4) printf "\troute %s blackhole { bgp_community.add((65000, %d)); };\n", $3, $4
		else printf "\troute %s blackhole;\n", $3
	}' "$WORK/plan"
}

{
	cat <<-CONF
	router id 10.200.0.2;
	log "$WORK/up.log" all;
	protocol device { scan time 10; }
	CONF
	for half in a b; do
		for fam in 4 6; do
			n=$((fam == 4 ? N4 : N6))
			if [ $half = a ]; then from=0 to=$((n / 2)); else from=$((n / 2)) to=$n; fi
			echo "protocol static s$fam$half {"
			echo "	ipv$fam;"
			statics "$fam" "$from" "$to"
			echo "}"
		done
	done
	bgp h4 10.200.0.2 65001 10.200.0.1 65000 ipv4 none all
	bgp h6 fd00:200::2 65001 fd00:200::1 65000 ipv6 none all
} > "$WORK/up.conf"

{
	cat <<-CONF
	router id 10.200.0.1;
	log "$WORK/host.log" all;
	define CLS_ASN = 65000;
	protocol device { scan time 10; }
	include "$CLASSIFIER_SRC/deploy/sync/bird-classes.conf";
	CONF
	bgp up4 10.200.0.1 65000 10.200.0.2 65001 ipv4 all none
	bgp up6 fd00:200::1 65000 fd00:200::2 65001 ipv6 all none
} > "$WORK/host.conf"

# What BGP says when prefixes 0..N4-1 and 0..N6-1 are announced: the
# kernel's view ("PREFIX REALM") and the classes.
want_kernel()
{
	awk -v n="$1" '$1 == 4 && $2 < n { print $3, $4 }' "$WORK/plan"
}
want_classes()
{
	awk -v n4="$1" -v n6="$2" '$4 && $2 < ($1 == 4 ? n4 : n6) {
		print $3, "1:" $4 }' "$WORK/plan"
}
kernel_count()
{
	echo $(($(ip -n "$NS_S" route show table 100 | wc -l) +
		$(ip -n "$NS_S" -6 route show table 110 | wc -l) +
		$(ip -n "$NS_S" -6 route show table 120 | wc -l) +
		$(ip -n "$NS_S" -6 route show table 140 | wc -l)))
}
# routes in the kernel when prefixes [0, n4) and [0, n6) are announced
kernel_total() { echo $(($1 + $2 * 3 / 4)); }

# Traffic: destinations in prefixes 4..7 (communities 10, 20, 40, none)
# of each half and family, owned by the receiver, and in prefix 0, which
# a hand route holds for IPv4 (HAND_BGP).
addr_of()
{
	awk -v f="$1" -v i="$2" '$1 == f && $2 == i {
		sub("0/24$", "10", $3); sub("::/48$", "::10", $3); print $3 }' "$WORK/plan"
}
DESTS=
for fam in 4 6; do
	n=$((fam == 4 ? N4 : N6))
	for i in 0 4 5 6 7 $((n / 2 + 4)) $((n / 2 + 5)) $((n / 2 + 6)) $((n / 2 + 7)); do
		DESTS="$DESTS $fam:$i"
	done
done
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

# dscp_count ADDR DSCP: datagrams the receiver got for ADDR with DSCP.
dscp_count()
{
	case $1 in
	*:*) rcv_count_dst "$1" ip6 dscp "$2" ;;
	*) rcv_count_dst "$1" ip dscp "$2" ;;
	esac
}

# expect_traffic WHAT N4 N6: PKTS datagrams to each destination arrive
# with the DSCP of the class BGP said (none for blackhole), and HTB put
# the web and bulk ones in 1:10 and 1:20.
expect_traffic()
{
	local d a want dscp got fam i n web=0 bulk=0
	local -A before
	snapshot
	for d in $DESTS; do
		a=$(addr_of "${d%%:*}" "${d#*:}")
		for dscp in ef cs1 cs0; do
			before[$a$dscp]=$(dscp_count "$a" $dscp)
		done
		send "$a" $PKTS
	done
	for d in $DESTS; do
		fam=${d%%:*} i=${d#*:}
		a=$(addr_of "$fam" "$i")
		want=$(dscp_of "$fam" "$i" "$2" "$3")
		[ "$want" = ef ] && web=$((web + PKTS))
		[ "$want" = cs1 ] && bulk=$((bulk + PKTS))
		for dscp in ef cs1 cs0; do
			got=$(($(dscp_count "$a" $dscp) - before[$a$dscp]))
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

# expect_state WHAT N4 N6: kernel and daemon hold the first N4/N6
expect_state()
{
	local what=$1 t0=$EPOCHREALTIME total
	total=$(kernel_total "$2" "$3")
	wait_until 20 '[ "$(kernel_count)" -eq '"$total"' ]' ||
		fail "$what: the kernel has $(kernel_count) routes, BIRD should have put $total"
	want_kernel "$2" > "$WORK/want"
	kernel_routes 4 100 | cut -d' ' -f1,2 > "$WORK/got"
	same_set "$WORK/want" "$WORK/got" ||
		fail "$what: table 100's realms are not what BGP said: $(diff <(sort "$WORK/want") <(sort "$WORK/got") | head -3 | tr '\n' ' ')"
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

start_bird host "$NS_S"
start_bird up "$NS_R"
wait_until 15 'bird_established host up4 up6' || fail "BGP sessions did not come up"

# one BGP prefix and one other held by hand: sync must leave both alone
HAND_BGP=$(awk 'NR == 1 { print $3 }' "$WORK/plan")
cls route add "$HAND_BGP" class bulk
cls route add 198.18.0.0/15 class bulk
cls route list hand > "$WORK/hand.want"
start_sync config "$CLASSIFIER_SRC/deploy/sync/sync.conf"
expect_state "announced" $N4 $N6
expect_ge "status: shadowed (the hand route over $HAND_BGP)" "$(status_of shadowed)" 1
expect_eq "status: routes" "$(status_of routes)" "$(synced | wc -l)"

# under a UDP stream to a web prefix, restart the daemon and reload it:
# no packet may fall to the default class meanwhile
W4=$(addr_of 4 4)
W6=$(addr_of 6 4)
base4=$(dscp_count "$W4" cs0)
base6=$(dscp_count "$W6" cs0)
in_snd "$UDPSEND" -i 300 -c 4000 "$W4" "$PORT" > /dev/null &
s4=$!
in_snd "$UDPSEND" -i 300 -c 4000 "$W6" "$PORT" > /dev/null &
s6=$!
sleep 0.2
stop_sync
start_sync config "$CLASSIFIER_SRC/deploy/sync/sync.conf"
kill -HUP "$SYNC_PID"
wait_until 5 'grep -q "resync (reload)" "$SYNC_LOG"' || fail "no resync after SIGHUP"
wait $s4 $s6
expect_eq "stream to $W4 in the default class across a restart and a reload" \
	$(($(dscp_count "$W4" cs0) - base4)) 0
expect_eq "stream to $W6 in the default class across a restart and a reload" \
	$(($(dscp_count "$W6" cs0) - base6)) 0

birdc_ up disable s4b >/dev/null
birdc_ up disable s6b >/dev/null
expect_state "half withdrawn" $((N4 / 2)) $((N6 / 2))

stop_bird up
expect_state "upstream stopped" 0 0

start_bird up "$NS_R"
wait_until 15 'bird_established host up4 up6' || fail "BGP sessions did not come back"
expect_state "upstream back" $N4 $N6

expect_eq "status: errors" "$(status_of errors)" 0
expect_eq "status: running" "$(status_of running)" true
stop_sync
