#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Plain kernel routes in table 100: the daemon starts from what is there,
# then follows ip route add / replace / del / flush, IPv4 with realms and
# IPv6, each within 100 ms; other tables and realms no rule names are left
# alone.
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

write_realm_conf "$WORK/sync.conf"
start_dryrun --class web=1:6 config "$WORK/sync.conf"
expect_realm_synced "start"
expect_eq "routes_v4" "$(status_of routes_v4)" 400
expect_eq "routes_v6" "$(status_of routes_v6)" 200

expect_latency "add" route add 10.99.0.0/16 via $GW4 table 100 realm 5
grep -qx "10.99.0.0/16 1:5 synced" "$STATE" || fail "add: 10.99.0.0/16 not synced as 1:5"
expect_latency "replace (realm 5 -> 6)" route replace 10.99.0.0/16 via $GW4 table 100 realm 6
grep -qx "10.99.0.0/16 1:6 synced" "$STATE" || fail "replace: 10.99.0.0/16 not 1:6"
expect_latency "replace (realm 6 -> 7)" route replace 10.99.0.0/16 via $GW4 table 100 realm 7
! grep -q "^10.99.0.0/16 " "$STATE" || fail "replace to realm 7: 10.99.0.0/16 still synced"
expect_latency "add /32" route add 10.98.0.1 via $GW4 table 100 realm 5
grep -qx "10.98.0.1/32 1:5 synced" "$STATE" || fail "add /32: not synced"
expect_latency "del" route del 10.98.0.1 table 100
! grep -q "^10.98.0.1/32 " "$STATE" || fail "del: 10.98.0.1/32 still synced"
expect_latency "add IPv6" -6 route add 2001:db8:ffff::/48 via $GW6 table 100
grep -qx "2001:db8:ffff::/48 1:60 synced" "$STATE" || fail "IPv6 add: not synced"
expect_latency "del IPv6" -6 route del 2001:db8:ffff::/48 table 100
! grep -q "^2001:db8:ffff::/48 " "$STATE" || fail "IPv6 del: still synced"
# the lowest metric decides; when it goes, the next one does
before=$(wc -l < "$CHANGES")
ip -n "$NS_S" route add 10.0.0.0/24 via $GW4 table 100 realm 6 metric 10
sleep 0.2
expect_eq "changes for a higher metric" "$(wc -l < "$CHANGES")" "$before"
grep -qx "10.0.0.0/24 1:5 synced" "$STATE" || fail "metric 10 took 10.0.0.0/24 from metric 0"
expect_latency "del of the lower metric" route del 10.0.0.0/24 table 100 metric 0
grep -qx "10.0.0.0/24 1:6 synced" "$STATE" || fail "10.0.0.0/24 did not pass to metric 10's class"
expect_realm_synced "after single changes"

# unselected tables: nothing happens
before=$(wc -l < "$CHANGES")
ip -n "$NS_S" route add 10.76.0.0/16 via $GW4 table 101 realm 5
ip -n "$NS_S" route del 10.78.0.0/16
sleep 0.2
expect_eq "changes for other tables" "$(wc -l < "$CHANGES")" "$before"

# flush: every IPv4 route of the table at once
before=$(wc -l < "$CHANGES")
t0=$EPOCHREALTIME
ip -n "$NS_S" route flush table 100
wait_until 2 '[ -z "$(synced | grep -v "^[0-9a-f]*:")" ]' ||
	fail "flush: IPv4 routes still synced after 2 s"
last=$(tail -n1 "$CHANGES")
ms=$(awk -v a="$t0" -v b="${last%% *}" 'BEGIN { printf "%d", (b - a) * 1000 }')
[ "$ms" -le 100 ] || fail "flush: followed in $ms ms (> 100)"
log "flush of 400 synced routes: followed in $ms ms ($(($(wc -l < "$CHANGES") - before)) change lines)"
expect_realm_synced "after flush"
ip -n "$NS_S" -6 route flush table 100
wait_until 2 '[ -z "$(synced)" ]' || fail "IPv6 flush: routes still synced after 2 s"
expect_realm_synced "after IPv6 flush"

# link down: the kernel drops IPv4 routes through it without a message;
# the daemon sees the link go down and resyncs
ip -n "$NS_S" -batch <(head -n 100 "$WORK/batch4")
ip -n "$NS_S" -6 -batch <(head -n 50 "$WORK/batch6")
expect_realm_synced "routes back" 2
ip -n "$NS_S" link set "$VS" down
expect_realm_synced "link down" 3
grep -q "resync (link down)" "$WORK/dryrun.log" || fail "no resync for the link going down"

expect_eq "errors" "$(status_of errors)" 0
expect_eq "overruns" "$(status_of overruns)" 0
stop_dryrun
grep -q "stop (Terminated)" "$WORK/dryrun.log" || fail "no stop line in the log"
