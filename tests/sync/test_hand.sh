#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The CLI while the daemon runs: hand routes win over synced ones and the
# daemon never undoes them.  route add by hand of a prefix sync selects
# takes it (lookup says so) and the daemon counts it shadowed; when the
# hand route goes, the synced one comes back; a synced route deleted by
# hand is put back; route load and route flush by hand keep the synced
# routes.  A class made again under another index moves the rules' routes
# to it.  The state is whole afterwards.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

setup_pair
fill_table 3000
realm_classes
cls class add 1:8 name eight
write_realm_conf "$WORK/sync.conf"
echo "table 100 realm 8 class eight" >> "$WORK/sync.conf"
start_sync config "$WORK/sync.conf"
expect_realm_synced "start"
expect_eq "status: routes" "$(status_of routes)" 2000

# route add by hand over a synced prefix: the hand route wins
cls route add 10.0.0.0/24 class six
expect_lookup "hand route over a synced one" 10.0.0.1 "*via 10.0.0.0/24 class 1:60 name six (ipv4*"
wait_until 3 '[ "$(status_of shadowed) $(status_of routes)" = "1 1999" ]' ||
	fail "the daemon did not count the hand route as shadowing: $(cls -j status | jq -c .sync)"
expect_eq "status: last resync" "$(status_of last_resync_reason)" hand
# the kernel route changes: still the hand route's prefix
ip -n "$NS_S" route replace 10.0.0.0/24 dev "$VS" table 100 realm 6
sleep 0.3
expect_lookup "kernel change under a hand route" 10.0.0.1 "*via 10.0.0.0/24 class 1:60 name six (ipv4*"
expect_eq "the hand route" "$(cls route list hand)" "10.0.0.0/24 1:60"
expect_eq "route list -j: sources of 10.0.0.0/24 and 10.0.1.0/24" \
	"$(cls -j route list | jq -r '.[] | select(.prefix == "10.0.0.0/24" or .prefix == "10.0.1.0/24") | .source' | tr '\n' ' ')" \
	"hand synced "
# the hand route goes: the synced one comes back, in the kernel's class now
cls route del 10.0.0.0/24
wait_until 3 'cls lookup 10.0.0.1 | grep -q "class 1:6 name web synced"' ||
	fail "the synced route did not come back: $(cls lookup 10.0.0.1)"
wait_until 3 '[ "$(status_of shadowed)" = 0 ]' || fail "still counted shadowed"
expect_realm_synced "hand route gone"

# a synced route deleted by hand is put back (the kernel still has it)
cls route del 10.0.1.0/24
wait_until 3 'cls lookup 10.0.1.1 | grep -q "via 10.0.1.0/24 class 1:6 name web synced"' ||
	fail "the synced route deleted by hand did not come back"
expect_realm_synced "synced route deleted by hand"

# route load by hand: replaces the hand routes only
printf '10.0.3.0/24 1:60\n192.0.2.0/24 web\n' > "$WORK/hand.routes"
cls route load "$WORK/hand.routes"
expect_eq "hand routes after route load" "$(cls route list hand | tr '\n' ' ')" \
	"10.0.3.0/24 1:60 192.0.2.0/24 1:6 "
realm_expected | grep -v '^10.0.3.0/24 ' | sort > "$WORK/want"
wait_until 3 'synced > "$WORK/got"; same_set "$WORK/want" "$WORK/got" && [ "$(status_of shadowed)" = 1 ]' ||
	fail "after route load: synced routes or shadowed count wrong ($(status_of shadowed))"
log "route load by hand: synced routes kept, the one it covers shadowed"
# route flush: hand routes gone, synced ones all back
cls route flush
[ -z "$(cls route list hand)" ] || fail "route flush left hand routes"
expect_realm_synced "after route flush" 3
wait_until 3 '[ "$(status_of shadowed)" = 0 ]' || fail "shadowed after route flush"

# a class made again under another index: the rules follow it
cls class del eight
cls class add 1:99 name filler
cls class add 1:8 name eight
ip -n "$NS_S" route add 10.88.0.0/16 dev "$VS" table 100 realm 8
wait_until 3 'cls lookup 10.88.0.1 | grep -q "class 1:8 name eight synced"' ||
	fail "realm 8 is not in the new class eight: $(cls lookup 10.88.0.1)"
grep -q "resync (classes changed)" "$SYNC_LOG" || fail "no resync for the class change"

expect_eq "errors" "$(status_of errors)" 0
check_whole "after the hand changes"
stop_sync
