#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Real BGP: an upstream BIRD announces 4000 IPv4 and 2000 IPv6 prefixes
# with communities over eBGP to the host's BIRD, which puts them in the
# kernel with deploy/sync/bird-classes.conf (IPv4: table 100 + realm;
# IPv6: a table per class); the daemon, with deploy/sync/sync.conf, must
# hold exactly what BGP said, follow a withdrawal of half, the session
# going down (hand routes stay) and coming back.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

command -v bird >/dev/null || fail "bird missing (tests/deps.sh installs bird2)"
N4=4000
N6=2000
setup_pair

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
		fail "$what: the daemon's routes differ from BGP's: $(diff "$WORK/want" "$WORK/got" | head -5 | tr '\n' ' ')"
	grep -qx "$HAND_BGP 1:30 hand" "$STATE" || fail "$what: hand route $HAND_BGP lost"
	grep -qx "$HAND_OWN 1:30 hand" "$STATE" || fail "$what: hand route $HAND_OWN lost"
	log "$what: $(wc -l < "$WORK/got") synced routes equal BGP's, hand routes kept ($(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s)"
}

start_bird host "$NS_S"
start_bird up "$NS_R"
wait_until 15 'bird_established host up4 up6' || fail "BGP sessions did not come up"

# one BGP prefix and one other held by hand: sync must leave both alone
HAND_BGP=$(awk 'NR == 1 { print $3 }' "$WORK/plan")
HAND_OWN=192.0.2.0/24
start_dryrun --class web=1:10 --class bulk=1:20 --class blackhole=1:40 \
	--hand "$HAND_BGP=1:30" --hand "$HAND_OWN=1:30" \
	config "$CLASSIFIER_SRC/deploy/sync/sync.conf"
expect_state "announced" $N4 $N6
[ "$(status_of shadowed)" -ge 1 ] || fail "the hand route over $HAND_BGP is not counted as shadowed"

birdc_ up disable s4b >/dev/null
birdc_ up disable s6b >/dev/null
expect_state "half withdrawn" $((N4 / 2)) $((N6 / 2))

stop_bird up
expect_state "upstream stopped" 0 0

start_bird up "$NS_R"
wait_until 15 'bird_established host up4 up6' || fail "BGP sessions did not come back"
expect_state "upstream back" $N4 $N6

expect_eq "errors" "$(status_of errors)" 0
stop_dryrun
