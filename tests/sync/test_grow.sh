#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The class maps grown by another process while `classifier sync` runs
# (maps/grow.c makes another maps/ live): the daemon's next change
# reopens the pins, so what it writes after the growth (routes, their
# counts, its status) is in the live set, and it resolves a class that
# only the grown set has.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

setup_pair
GW4=10.200.0.2

# 64 classes (the room of a new set), the rules' among them.
{
	echo "class default"
	echo "class 1:5 name five"
	echo "class 1:6 name web"
	echo "class 1:60 name six"
	for i in $(seq 1 60); do echo "class 2:$(printf %x "$i") name n$i"; done
} > "$WORK/classes"
cls class load "$WORK/classes"
expect_eq "room before" "$(cls -j status | jq .class_room)" 64
write_realm_conf "$WORK/sync.conf"
ip -n "$NS_S" route add 10.1.0.0/16 via $GW4 table 100 realm 5
start_sync config "$WORK/sync.conf"
expect_eq "synced routes before" "$(cls -j status | jq .routes.v4.synced)" 1

# Another process grows the set.
cls class add 1:99 name grown
expect_eq "room after" "$(cls -j status | jq .class_room)" 128

expect_follow "a route after the growth" 10.2.0.1 "*via 10.2.0.0/16 class 1:5 name five synced*" \
	route add 10.2.0.0/16 via $GW4 table 100 realm 5
wait_until 5 '[ "$(cls -j status | jq .routes.v4.synced)" = 2 ]' ||
	fail "synced route count in the live state: $(cls -j status | jq .routes.v4.synced), not 2"
log "the live state counts the daemon's route after the growth"
stop_sync
check_whole "after the growth"
