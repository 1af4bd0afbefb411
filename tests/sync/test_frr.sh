#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Real BGP with FRR (Debian's frr 8.4): an upstream FRR announces 4000
# IPv4 and 2000 IPv6 prefixes with communities over eBGP to the host's
# FRR, which puts them in the kernel with deploy/sync/frr-classes.conf
# (bgpd's `set table`: a table per class, both families; IPv4 copied
# back to the main table by zebra's `ip import-table`); `classifier sync`
# with deploy/sync/frr-sync.conf must hold exactly what BGP said, as in
# test_bird.sh (tests/sync/bgp.sh): route list synced, lookups, the whole
# state, real UDP through HTB in the classes BGP said.  Then the upstream
# stops originating half, is stopped (all withdrawn; routes added by hand
# stay) and started again.  The daemon restarted and reloaded under a UDP
# stream: no packet falls to the default class.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/bgp.sh"

if [ ! -x "$FRR_DIR/bgpd" ] || ! command -v vtysh >/dev/null; then
	fail "FRR missing (tests/deps.sh installs frr)"
fi
SYNC_CONF=$CLASSIFIER_SRC/deploy/sync/frr-sync.conf
bgp_setup

# bgpd holds its peers after boot until its route-map timer (5 s by
# default) runs out: 1 s for a quicker test
BOOT="bgp route-map delay-timer 1"

# neighbor ADDR AS: an eBGP neighbor retried every second
neighbor()
{
	echo " neighbor $1 remote-as $2"
	echo " neighbor $1 timers connect 1"
}

# networks FAMILY FROM TO [no]: the upstream's network statements for
# prefixes [FROM, TO), each tagged by its route-map
networks()
{
	echo " address-family ipv$1 unicast"
	plan_part "$1" "$2" "$3" | awk -v no="${4:+no }" '{
		printf "  %snetwork %s%s\n", no, $3, $4 && !no ? " route-map c" $4 : "" }'
	echo " exit-address-family"
}

{
	echo "$BOOT"
	for c in 10 20 40; do
		printf 'route-map c%s permit 10\n set community 65000:%s\nexit\n' $c $c
	done
	cat <<-'CONF'
	route-map all permit 10
	exit
	router bgp 65001
	 bgp router-id 10.200.0.2
	 no bgp network import-check
	CONF
	neighbor 10.200.0.1 65000
	neighbor fd00:200::1 65000
	cat <<-'CONF'
	 address-family ipv4 unicast
	  neighbor 10.200.0.1 route-map all out
	  no neighbor fd00:200::1 activate
	 exit-address-family
	 address-family ipv6 unicast
	  neighbor fd00:200::1 activate
	  neighbor fd00:200::1 route-map all out
	 exit-address-family
	CONF
	networks 4 0 $N4
	networks 6 0 $N6
} > "$WORK/up.conf"

# the host: the class part as shipped, and the session with an inbound
# policy of its own that calls it (no outbound one: it announces nothing)
{
	echo "$BOOT"
	cat "$CLASSIFIER_SRC/deploy/sync/frr-classes.conf"
	cat <<-'CONF'
	route-map upstream-in permit 10
	 call cls-table
	exit
	router bgp 65000
	 bgp router-id 10.200.0.1
	CONF
	neighbor 10.200.0.2 65001
	neighbor fd00:200::2 65001
	cat <<-'CONF'
	 address-family ipv4 unicast
	  neighbor 10.200.0.2 route-map upstream-in in
	  no neighbor fd00:200::2 activate
	 exit-address-family
	 address-family ipv6 unicast
	  neighbor fd00:200::2 activate
	  neighbor fd00:200::2 route-map upstream-in in
	 exit-address-family
	CONF
} > "$WORK/host.conf"

# the second half withdrawn by its originator
{
	echo "router bgp 65001"
	networks 4 $((N4 / 2)) $N4 no
	networks 6 $((N6 / 2)) $N6 no
} > "$WORK/withdraw.conf"

# frr_kernel: "PREFIX TABLE PROTOCOL METRIC" of every route FRR put in
# the host's kernel, both families, all tables.
frr_kernel()
{
	local fam
	for fam in 4 6; do
		ip -n "$NS_S" "-$fam" -j route show table all |
			jq -r '.[] | select(.protocol == "bgp" or .protocol == "zebra") |
				"\(.dst) \(.table // "main") \(.protocol) \(.metric // 0)"'
	done
}

# expect_kernel WHAT N4 N6: the first N4/N6 prefixes each in the table of
# its community (none: main), metric 20 whatever BGP said; the IPv4 ones
# of a class also in main, imported by zebra.
expect_kernel()
{
	{
		plan_part 4 0 "$2"
		plan_part 6 0 "$3"
	} | awk '{ print $3, $4 ? 100 + $4 : "main", "bgp", 20
		if ($1 == 4 && $4) print $3, "main", "zebra", 20 }' |
		sort > "$WORK/kwant"
	wait_until 20 'frr_kernel | sort > "$WORK/kgot"; cmp -s "$WORK/kwant" "$WORK/kgot"' ||
		fail "$1: the kernel's FRR routes are not what BGP said: $(diff "$WORK/kwant" "$WORK/kgot" | head -4 | tr '\n' ' ')"
	log "$1: the kernel has $(wc -l < "$WORK/kgot") FRR routes, in the tables BGP said"
}

start_frr host "$NS_S"
start_frr up "$NS_R"
wait_until 15 'frr_established host 10.200.0.2 fd00:200::2' ||
	fail "BGP sessions did not come up"

bgp_hand_routes
expect_sync_started
expect_stream_kept

vtysh_ up -f "$WORK/withdraw.conf" > "$WORK/withdraw.out" 2>&1 ||
	fail "vtysh -f withdraw.conf: $(head -3 "$WORK/withdraw.out")"
expect_state "half withdrawn" $((N4 / 2)) $((N6 / 2))

stop_frr up
expect_state "upstream stopped" 0 0

start_frr up "$NS_R"
wait_until 15 'frr_established host 10.200.0.2 fd00:200::2' ||
	fail "BGP sessions did not come back"
expect_state "upstream back" $N4 $N6

expect_sync_clean
