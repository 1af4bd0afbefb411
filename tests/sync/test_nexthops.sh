#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Routes of many nexthops in a real kernel table, sent as BIRD sends them
# (RTA_MULTIPATH, tests/sync/nhroute.c), first in the table and followed
# by plain routes:
#  - at start, IPv4 routes of 300 and 2000 nexthops and IPv6 ones of 300
#    and 1100 (each fits a dump datagram only when the socket read once
#    before: the kernel sizes the first one from the reads before it) and
#    every plain route after them are synced;
#  - while the daemon runs, routes too long for any dump (IPv4 4095
#    nexthops, a 65.5 KB notification; IPv6 3000, 84 KB, whose
#    RTA_MULTIPATH length the kernel cuts to 16 bits) are read whole from
#    their notifications and synced;
#  - a resync then (the kernel ends each dump at such a route, without an
#    error since 6.10) withdraws nothing: the routes after them stay;
#  - once they are gone a resync is whole again;
#  - a restart with one of them in an IPv4 table: the kernel's count
#    tells the dump was cut, nothing is withdrawn, and a route deleted
#    later is withdrawn.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

setup_pair
NHROUTE=$WORK/nhroute
gcc -O2 -Wall -Wextra -o "$NHROUTE" "$CLASSIFIER_SRC/tests/sync/nhroute.c"
# gateways: 10.201.0.0/16 and fd00:201::/64 are on the veth
ip -n "$NS_S" addr add 10.201.0.1/16 dev "$VS"
ip -n "$NS_S" -6 addr add fd00:201::1/64 dev "$VS" nodad

nh() { nsenter --net="/run/netns/$NS_S" "$NHROUTE" "$@"; }

realm_classes
cat > "$WORK/sync.conf" <<-'CONF'
family inet table 101 class 1:5
family inet6 table 101 class 1:60
CONF

# ip's own dump has the same limits: count the kernel's routes from the
# plan, not from ip route show
nh add 4 10.1.0.0/24 101 300 10.201.1.1 "$VS"
nh add 4 10.2.0.0/24 101 2000 10.201.16.1 "$VS"
nh add 6 2001:db8:1::/48 101 300 fd00:201::1:1 "$VS"
nh add 6 2001:db8:2::/48 101 1100 fd00:201::2:1 "$VS"
for i in $(seq 0 199); do
	echo "route add 10.3.$i.0/24 via 10.201.0.2 table 101"
done | ip -n "$NS_S" -batch -
for i in $(seq 1 100); do
	printf 'route add 2001:db8:3:%x::/64 via fd00:201::2 table 101\n' "$i"
done | ip -n "$NS_S" -6 -batch -
PLAN4="10.1.0.0/24 10.2.0.0/24 $(seq -f '10.3.%g.0/24' 0 199)"
# the plain IPv4 routes less 10.3.5.0/24, deleted below
PLAN4_LESS=$(echo "$PLAN4" | tr ' ' '\n' | grep -vx 10.3.5.0/24 | tr '\n' ' ')
PLAN6="2001:db8:1::/48 2001:db8:2::/48 $(for i in $(seq 1 100); do printf '2001:db8:3:%x::/64 ' "$i"; done)"

# plan_synced WHAT PREFIXES...: exactly these are synced (ip cannot list
# table 101 whole: its first dump datagram is the small one)
plan_synced() {
	local what=$1 p
	shift
	for p in "$@"; do
		case $p in
		*:*) echo "$p 1:60" ;;
		*) echo "$p 1:5" ;;
		esac
	done | sort > "$WORK/want"
	wait_until 5 'synced > "$WORK/got"; same_set "$WORK/want" "$WORK/got"' || {
		sync_diag
		fail "$what: synced routes differ from the plan: $(diff "$WORK/want" "$WORK/got" | head -5 | tr '\n' ' ')"
	}
	log "$what: $(wc -l < "$WORK/got") synced routes as planned"
}

# shellcheck disable=SC2086 # word lists on purpose
{
start_sync config "$WORK/sync.conf"
plan_synced "start, 300 and 2000 (IPv4), 300 and 1100 (IPv6) nexthops first" $PLAN4 $PLAN6
expect_eq "errors at start" "$(status_of errors)" 0

# too long for any dump: known only from their notifications
nh add 4 10.2.128.0/24 101 4095 10.201.32.1 "$VS"
nh add 6 2001:db8:2:8000::/64 101 3000 fd00:201::3:1 "$VS"
BIG="10.2.128.0/24 2001:db8:2:8000::/64"
plan_synced "4095 IPv4 and 3000 IPv6 nexthops added" $PLAN4 $PLAN6 $BIG
expect_lookup "the 4095-nexthop route" 10.2.128.1 "*via 10.2.128.0/24 class 1:5 name five synced*"
expect_lookup "the 3000-nexthop route" 2001:db8:2:8000::1 "*via 2001:db8:2:8000::/64 class 1:60 name six synced*"
! grep -q "Message too long" "$SYNC_LOG" || fail "a notification was cut: $(grep -m1 'Message too long' "$SYNC_LOG")"

# a resync (a synced route deleted by hand): the dumps end at the long
# routes, and the routes after them must stay
mark=$(grep -c "resync (" "$SYNC_LOG")
cls route del 10.3.100.0/24
wait_until 5 '[ "$(grep -c "resync (" "$SYNC_LOG")" -gt '"$mark"' ]' ||
	fail "no resync after a synced route was deleted by hand"
grep -q "the dump ended at a route longer than the kernel puts in a dump" "$SYNC_LOG" ||
	fail "the cut dump went unnoticed: $(tail -n 3 "$SYNC_LOG" | tr '\n' ' ')"
plan_synced "a resync with routes too long to dump" $PLAN4 $PLAN6 $BIG

# they go: the next resync sees whole tables again and withdraws what went
ip -n "$NS_S" route del 10.2.128.0/24 table 101
ip -n "$NS_S" -6 route del 2001:db8:2:8000::/64 table 101
ip -n "$NS_S" route del 10.3.5.0/24 table 101
plan_synced "long routes and one plain route deleted" $PLAN4_LESS $PLAN6
mark=$(grep -c "resync (" "$SYNC_LOG")
cls route del 10.3.100.0/24
wait_until 5 '[ "$(grep -c "resync (" "$SYNC_LOG")" -gt '"$mark"' ]' ||
	fail "no second resync"
plan_synced "a resync of whole tables" $PLAN4_LESS $PLAN6
expect_eq "errors" "$(status_of errors)" 0
stop_sync

# a restart with a route too long to dump first in the IPv4 table: the
# kernel's count shows the dump was cut; nothing synced is withdrawn
nh add 4 10.0.0.0/24 101 4095 10.201.32.1 "$VS"
synced > "$WORK/before"
start_sync config "$WORK/sync.conf"
grep -q "the kernel ended the dump of IPv4 table 101 early" "$SYNC_LOG" ||
	fail "the restart's cut dump went unnoticed: $(tail -n 3 "$SYNC_LOG" | tr '\n' ' ')"
synced > "$WORK/after"
cmp -s "$WORK/before" "$WORK/after" ||
	fail "the restart changed the synced routes: $(diff "$WORK/before" "$WORK/after" | head -3 | tr '\n' ' ')"
log "restart over a cut dump: $(wc -l < "$WORK/after") synced routes kept"
# one of those kept goes from the kernel: its delete reaches the daemon
ip -n "$NS_S" route del 10.3.7.0/24 table 101
grep -v '^10.3.7.0/24 ' "$WORK/after" > "$WORK/want"
wait_until 5 'synced > "$WORK/got"; same_set "$WORK/want" "$WORK/got"' ||
	fail "a kept route deleted from the kernel stays synced"
stop_sync
}
