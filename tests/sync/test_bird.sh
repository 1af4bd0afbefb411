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
# (tests/sync/bgp.sh has the scenario test_frr.sh shares.)
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/bgp.sh"

command -v bird >/dev/null || fail "bird missing (tests/deps.sh installs bird2)"
SYNC_CONF=$CLASSIFIER_SRC/deploy/sync/sync.conf
bgp_setup

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
	plan_part "$@" | awk '{
		if ($4) printf "\troute %s blackhole { bgp_community.add((65000, %d)); };\n", $3, $4
		else printf "\troute %s blackhole;\n", $3
	}'
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

kernel_count()
{
	echo $(($(ip -n "$NS_S" route show table 100 | wc -l) +
		$(ip -n "$NS_S" -6 route show table 110 | wc -l) +
		$(ip -n "$NS_S" -6 route show table 120 | wc -l) +
		$(ip -n "$NS_S" -6 route show table 140 | wc -l)))
}

# expect_kernel WHAT N4 N6: table 100 has the first N4 prefixes with the
# realm of their community (0: none), the IPv6 tables the first N6 with
# a community.
expect_kernel()
{
	local total=$(($2 + $3 * 3 / 4))
	wait_until 20 '[ "$(kernel_count)" -eq '"$total"' ]' ||
		fail "$1: the kernel has $(kernel_count) routes, BIRD should have put $total"
	plan_part 4 0 "$2" | cut -d' ' -f3,4 > "$WORK/want"
	kernel_routes 4 100 | cut -d' ' -f1,2 > "$WORK/got"
	same_set "$WORK/want" "$WORK/got" ||
		fail "$1: table 100's realms are not what BGP said: $(diff <(sort "$WORK/want") <(sort "$WORK/got") | head -3 | tr '\n' ' ')"
}

start_bird host "$NS_S"
start_bird up "$NS_R"
wait_until 15 'bird_established host up4 up6' || fail "BGP sessions did not come up"

bgp_hand_routes
expect_sync_started
expect_stream_kept

birdc_ up disable s4b >/dev/null
birdc_ up disable s6b >/dev/null
expect_state "half withdrawn" $((N4 / 2)) $((N6 / 2))

stop_bird up
expect_state "upstream stopped" 0 0

start_bird up "$NS_R"
wait_until 15 'bird_established host up4 up6' || fail "BGP sessions did not come back"
expect_state "upstream back" $N4 $N6

expect_sync_clean
