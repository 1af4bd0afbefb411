#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The class maps grow by need (maps/grow.c): a new set has room for 64
# classes; the 65th class doubles it, on the attached programs too (a
# route to class index 64 counts there, not in the default class), the
# counters and classes carried over.  A class load of more than the room
# grows it at once.  Then every crash point of a growth, through the
# fault build: the next change says it finished or rolled back, and the
# state is the old one or the new one, whole (tests/crash/check_state.c).
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

[ -x "${CLASSIFIER_FAULT:-}" ] || fail "no fault build (make netns builds it)"
[ -x "${CHECK_STATE:-}" ] || fail "no check_state (make netns builds it)"

setup_pair

room()
{
	cls -j status | jq -r .class_room
}

index_of()
{
	cls -j class list | jq -r --arg c "$1" '.[] | select(.class == $c) | .index'
}

# 64 classes: the default, web and 62 more; web's route; attached.
{
	echo "class default"
	echo "class 1:10 name web"
	for i in $(seq 1 62); do echo "class 2:$(printf %x "$i") name n$i"; done
} > "$WORK/full"
start()
{
	[ ! -d "$BPFFS/classifier" ] || cls purge > /dev/null
	cls class load "$WORK/full"
	cls route add 198.51.100.0/24 class web
	cls attach dev "$VS"
}

start
expect_eq "room of a new set" "$(room)" 64
send "$WEB4" 20
expect_eq "web's packets before the growth" "$(stat_pkts web)" 20

# The 65th class: room doubled, index 64, packets counted there.
cls class add 1:99 name grown 2> "$WORK/err"
expect_eq "room after the 65th class" "$(room)" 128
expect_eq "the 65th class's index" "$(index_of 1:99)" 64
expect_eq "web's packets after the growth" "$(stat_pkts web)" 20
cls route replace 198.51.100.0/24 class grown
send "$WEB4" 30
expect_eq "packets of class index 64" "$(stat_pkts grown)" 30
expect_eq "web's packets, unchanged" "$(stat_pkts web)" 20
expect_eq "default's packets" "$(stat_pkts default)" 0
"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" || fail "after the growth: $(cat "$WORK/check")"

# A class load of 300: room for 512 at once.
{
	cat "$WORK/full"
	echo "class 1:99 name grown"
	for i in $(seq 63 298); do echo "class 2:$(printf %x "$i") name n$i"; done
} > "$WORK/load"
cls class load "$WORK/load"
expect_eq "room after a load of 300 classes" "$(room)" 512
expect_eq "classes after the load" "$(cls class list | wc -l)" 301

# Every crash point of the 65th class's add, its growth's first.
step=1
while :; do
	start
	cls class list > "$WORK/want_old"
	rc=0
	fcls "$step" class add 1:99 name grown > /dev/null 2> "$WORK/err" || rc=$?
	[ "$rc" -eq 0 ] && break
	[ "$rc" -eq 137 ] || fail "step $step: exited $rc: $(head -n1 "$WORK/err")"
	cls stats on 2> "$WORK/notice"
	grep -Eq "^classifier: (finished|rolled back) an interrupted" \
		"$WORK/notice" ||
		fail "step $step: the next change said: $(cat "$WORK/notice")"
	[ "$(wc -l < "$WORK/notice")" -eq 1 ] ||
		fail "step $step: more than one line: $(tr '\n' '|' < "$WORK/notice")"
	"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" ||
		fail "step $step: $(cat "$WORK/check")"
	cls class list > "$WORK/got"
	{ cat "$WORK/want_old"; echo "class 1:99 name grown"; } > "$WORK/want_new"
	cmp -s "$WORK/got" "$WORK/want_old" || cmp -s "$WORK/got" "$WORK/want_new" ||
		fail "step $step: neither old nor new classes: $(diff "$WORK/want_old" "$WORK/got" | tr '\n' '|')"
	r=$(room)
	[ "$r" = 64 ] || [ "$r" = 128 ] || fail "step $step: room for $r"
	before=$(stat_pkts web)
	send "$WEB4" 5
	expect_eq "step $step: web's new packets" $(($(stat_pkts web) - before)) 5
	cmp -s "$WORK/got" "$WORK/want_new" || cls class add 1:99 name grown
	expect_eq "step $step: room after the class add" "$(room)" 128
	step=$((step + 1))
done
[ "$step" -gt 1 ] || fail "no crash point"
log "class growth: $((step - 1)) crash points, each old or new and whole"
