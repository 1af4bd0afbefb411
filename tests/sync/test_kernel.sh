#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Plain kernel routes in table 100: `classifier sync` starts from what
# is there, then follows ip route add / replace / del / flush, IPv4 with
# realms and IPv6, each visible to `lookup` through its notification (no
# resync in between), with the IPv4 table agreeing with the trie; a
# route through a nexthop object follows the object; other tables and
# realms no rule names are left alone; a link going down (routes gone
# without a message) ends in a resync. SIGTERM leaves the routes.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

setup_pair
GW4=10.200.0.2
GW6=fd00:200::2

# 600 IPv4 routes (realms 5, 6 and 7, which no rule names) and 200 IPv6
for i in $(seq 0 599); do
	echo "route add 10.$((i / 256)).$((i % 256)).0/24 via $GW4 table 100 realm $((5 + i % 3))"
done > "$WORK/batch4"
for i in $(seq 0 199); do
	printf 'route add 2001:db8:%x::/48 via %s table 100\n' "$i" "$GW6"
done > "$WORK/batch6"
ip -n "$NS_S" -batch "$WORK/batch4"
ip -n "$NS_S" -6 -batch "$WORK/batch6"
# routes no rule selects: another table, the main table
ip -n "$NS_S" route add 10.77.0.0/16 via $GW4 table 101 realm 5
ip -n "$NS_S" route add 10.78.0.0/16 via $GW4 realm 5

realm_classes
# the IPv4 table on at any size, so every IPv4 lookup compares it
cls table on
write_realm_conf "$WORK/sync.conf"
# routes through a nexthop object, classed by its device
ip -n "$NS_S" link add nh0 type veth peer name nh1
ip -n "$NS_S" link set nh0 up
ip -n "$NS_S" link set nh1 up
ip -n "$NS_S" nexthop add id 10 dev "$VS"
ip -n "$NS_S" route add 10.55.0.0/16 nhid 10 table 102
printf 'table 102 dev %s class 1:5\ntable 102 dev nh0 class 1:6\n' "$VS" >> "$WORK/sync.conf"
start_sync config "$WORK/sync.conf"
expect_eq "status: routes" "$(status_of routes)" 601
expect_eq "route counts (v4 synced, v6 synced)" \
	"$(cls -j status | jq -r '"\(.routes.v4.synced) \(.routes.v6.synced)"')" "401 200"

# the nexthop object moves to another device: with nexthop_compat_mode
# (the default) the kernel announces each route that uses it
expect_lookup "route through nexthop 10" 10.55.0.1 "*via 10.55.0.0/16 class 1:5 name five synced*"
expect_follow "nexthop object moved" 10.55.0.1 "*via 10.55.0.0/16 class 1:6 name web synced*" \
	nexthop replace id 10 dev nh0
expect_follow "route through nexthop 10 deleted" 10.55.0.1 "*via (no route)*" \
	route del 10.55.0.0/16 table 102
expect_realm_synced "start"

expect_follow "add" 10.99.0.1 "*via 10.99.0.0/16 class 1:5 name five synced*" \
	route add 10.99.0.0/16 via $GW4 table 100 realm 5
expect_follow "replace (realm 5 -> 6)" 10.99.0.1 "*via 10.99.0.0/16 class 1:6 name web synced*" \
	route replace 10.99.0.0/16 via $GW4 table 100 realm 6
expect_follow "replace (realm 6 -> 7, no rule)" 10.99.0.1 "*via (no route)*" \
	route replace 10.99.0.0/16 via $GW4 table 100 realm 7
expect_follow "add /32" 10.98.0.1 "*via 10.98.0.1/32 class 1:5 name five synced*" \
	route add 10.98.0.1 via $GW4 table 100 realm 5
expect_follow "del" 10.98.0.1 "*via (no route)*" \
	route del 10.98.0.1 table 100
expect_follow "add IPv6" 2001:db8:ffff::1 "*via 2001:db8:ffff::/48 class 1:60 name six synced*" \
	-6 route add 2001:db8:ffff::/48 via $GW6 table 100
expect_follow "replace IPv6 (another gateway: same class)" 2001:db8:ffff::1 \
	"*via 2001:db8:ffff::/48 class 1:60 name six synced*" \
	-6 route replace 2001:db8:ffff::/48 via fd00:200::3 table 100
expect_follow "del IPv6" 2001:db8:ffff::1 "*via (no route)*" \
	-6 route del 2001:db8:ffff::/48 table 100
# the lowest metric decides; when it goes, the next one does
ip -n "$NS_S" route add 10.0.0.0/24 via $GW4 table 100 realm 6 metric 10
sleep 0.2
expect_lookup "a higher metric" 10.0.0.1 "*via 10.0.0.0/24 class 1:5 name five synced*"
expect_follow "del of the lower metric" 10.0.0.1 "*via 10.0.0.0/24 class 1:6 name web synced*" \
	route del 10.0.0.0/24 table 100 metric 0
expect_realm_synced "after single changes"

# 70 routes of one prefix (metrics 1..70), IPv4 and IPv6: a replace or a
# delete of one of them is followed as it is, without a resync (the
# engine once told apart only 64 routes of a prefix)
resyncs=$(grep -c "resync (" "$SYNC_LOG")
for m in $(seq 1 70); do
	echo "route add 10.60.0.0/16 via $GW4 table 100 realm 6 metric $m"
	printf 'route add -6 2001:db8:f60::/48 via %s table 100 metric %d\n' "$GW6" "$m"
done | sed 's/route add -6 /-6 route add /' > "$WORK/metrics"
grep -v '^-6' "$WORK/metrics" | ip -n "$NS_S" -batch -
sed -n 's/^-6 //p' "$WORK/metrics" | ip -n "$NS_S" -6 -batch -
expect_realm_synced "70 metrics of one prefix" 2
expect_follow "replace of metric 1 of 70 (realm 6 -> 5)" 10.60.0.1 \
	"*via 10.60.0.0/16 class 1:5 name five synced*" \
	route replace 10.60.0.0/16 via $GW4 table 100 realm 5 metric 1
expect_follow "replace of metric 70 of 70: metric 1 still decides" 10.60.0.1 \
	"*via 10.60.0.0/16 class 1:5 name five synced*" \
	route replace 10.60.0.0/16 via $GW4 table 100 realm 5 metric 70
expect_follow "del of metric 1 of 70: metric 2 decides" 10.60.0.1 \
	"*via 10.60.0.0/16 class 1:6 name web synced*" \
	route del 10.60.0.0/16 table 100 metric 1
ip -n "$NS_S" -6 route replace 2001:db8:f60::/48 via fd00:200::3 table 100 metric 1
ip -n "$NS_S" -6 route del 2001:db8:f60::/48 table 100 metric 2
expect_realm_synced "after changes to one prefix of 70 metrics" 2
expect_eq "resyncs while one prefix had 70 routes" \
	"$(grep -c "resync (" "$SYNC_LOG")" "$resyncs"
ip -n "$NS_S" route flush table 100 10.60.0.0/16
ip -n "$NS_S" -6 route flush table 100 2001:db8:f60::/48
expect_realm_synced "70 metrics gone" 2

# unselected tables: nothing happens
ip -n "$NS_S" route add 10.76.0.0/16 via $GW4 table 101 realm 5
ip -n "$NS_S" route del 10.78.0.0/16
sleep 0.2
expect_lookup "a route in table 101" 10.76.0.1 "*via (no route)*"
expect_realm_synced "after changes to other tables"
check_whole "after single changes"

# flush: every IPv4 route of the table at once
t0=$EPOCHREALTIME
before=$(resyncs_logged)
ip -n "$NS_S" route flush table 100
wait_until 2 '[ -z "$(cls route list v4 synced)" ]' ||
	fail "flush: IPv4 routes still synced after 2 s"
ms=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
expect_no_resync "flush" "$before"
log "flush of 400 synced IPv4 routes: gone from route list after $ms ms"
expect_lookup "after flush" 10.0.1.1 "*via (no route)*"
expect_realm_synced "after flush"
t0=$EPOCHREALTIME
before=$(resyncs_logged)
ip -n "$NS_S" -6 route flush table 100
wait_until 2 '[ -z "$(synced)" ]' || fail "IPv6 flush: routes still synced after 2 s"
ms=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
expect_no_resync "IPv6 flush" "$before"
log "flush of 200 synced IPv6 routes: gone after $ms ms"

# link down: the kernel drops IPv4 routes through it without a message;
# the daemon sees the link go down and resyncs
ip -n "$NS_S" -batch <(head -n 100 "$WORK/batch4")
ip -n "$NS_S" -6 -batch <(head -n 50 "$WORK/batch6")
expect_realm_synced "routes back" 2
ip -n "$NS_S" link set "$VS" down
expect_realm_synced "link down" 3
grep -q "resync (link down)" "$SYNC_LOG" || fail "no resync for the link going down"
expect_eq "status: last resync" "$(status_of last_resync_reason)" link
expect_eq "status: errors" "$(status_of errors)" 0

# SIGTERM: the routes stay, the status says it stopped
ip -n "$NS_S" link set "$VS" up
ip -n "$NS_S" -batch <(head -n 100 "$WORK/batch4")
expect_realm_synced "routes back again" 2
synced > "$WORK/before_stop"
stop_sync
grep -q "stop (Terminated)" "$SYNC_LOG" || fail "no stop line in the log"
synced > "$WORK/after_stop"
cmp -s "$WORK/before_stop" "$WORK/after_stop" || fail "SIGTERM changed the synced routes"
expect_eq "status after SIGTERM: running" "$(status_of running)" false
expect_eq "status after SIGTERM: pid" "$(status_of pid)" 0
log "stopped: $(wc -l < "$WORK/after_stop") synced routes stay"
check_whole "after the stop"
