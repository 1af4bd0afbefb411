#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A change that fails after recording itself may be followed by another
# in the same process: a `-batch -force` going on after the error, or the
# sync daemon going on with the rest of a batch of kernel notifications.
# The failed change is settled (its table range repainted, its counts
# moved) before anything else changes, and if it cannot be, later changes
# are refused until the next command settles it: a record is never
# written over.  The fault build fails a step as an error would
# ($CLS_FAULT_FAIL, see cls_fail() in maps/maps.h);
# tests/crash/check_state.c then says whether the state is whole: journal
# empty, spare slots empty, counts equal to the tries, the lookup tables
# equal to the tries.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$(dirname "$0")/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

[ -x "${CLASSIFIER_FAULT:-}" ] || fail "no fault build (make netns builds it)"
[ -x "${CHECK_STATE:-}" ] || fail "no check_state (make netns builds it)"

setup_pair
realm_classes
cls table on
cls stats on
printf '10.%d.0.0/16 five\n' 1 2 3 > "$WORK/old"
cls route load "$WORK/old"

# fault_batch STEP FILE [FAILS]: the fault build's -batch -force, STEP
# failing the first FAILS times (1).
fault_batch()
{
	local rc=0
	nsenter --net="/run/netns/$NS_S" env CLS_FAULT_FAIL="$1" \
		CLS_FAULT_FAILS="${3:-1}" \
		"$CLASSIFIER_FAULT" --bpffs "$BPFFS" -batch "$2" -force \
		> /dev/null 2> "$WORK/err" || rc=$?
	[ "$rc" -ne 0 ] || fail "$1: the batch did not fail"
	grep -q "Input/output error" "$WORK/err" ||
		fail "$1: not the injected failure: $(head -n1 "$WORK/err")"
}

whole()
{
	"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" || fail "$1: $(cat "$WORK/check")"
	log "$1: the state is whole"
}

# One route: the trie changed, the table not painted, the counts not moved.
cat > "$WORK/batch" <<EOF
route add 10.9.0.0/16 class five
route add 10.10.0.0/16 class web
EOF
fault_batch "route: repaint" "$WORK/batch"
grep -q "^classifier: finished an interrupted change of route 10.9.0.0/16 " \
	"$WORK/err" || fail "route: the next change did not settle it: $(tr '\n' '|' < "$WORK/err")"
whole "-batch -force after a failed route add"
expect_eq "hand IPv4 routes" "$(cls -j status | jq .routes.v4.hand)" 5
cls lookup 10.9.0.1 | grep -q "class 1:5 name five (ipv4 table agrees)" ||
	fail "route: $(cls lookup 10.9.0.1)"

# The failed change cannot be settled either (its repaint fails again):
# the next change is refused, and the next command settles it.
cat > "$WORK/batch" <<EOF
route add 10.11.0.0/16 class five
route add 10.12.0.0/16 class web
EOF
fault_batch "route: repaint" "$WORK/batch" 2
grep -q "batch:2: route add: 10.12.0.0/16: .*could not be finished" "$WORK/err" ||
	fail "route: the next change was not refused: $(tr '\n' '|' < "$WORK/err")"
cls status > /dev/null 2> "$WORK/err"
grep -q "^classifier: finished an interrupted change of route 10.11.0.0/16 " \
	"$WORK/err" || fail "route: the next command did not settle it: $(cat "$WORK/err")"
whole "a failed route add that could not be settled at once"
expect_eq "hand IPv4 routes" "$(cls -j status | jq .routes.v4.hand)" 6
cls route del 10.11.0.0/16

# A whole set: the generation flipped, the old slots not emptied.
printf '10.%d.0.0/16 web\n' 20 21 22 23 > "$WORK/new"
cat > "$WORK/batch" <<EOF
route load $WORK/new
route add 10.30.0.0/16 class five
EOF
fault_batch "swap: empty the old slots" "$WORK/batch"
grep -q "^classifier: finished an interrupted route load .*: the new routes are live" \
	"$WORK/err" || fail "load: the next change did not settle it: $(tr '\n' '|' < "$WORK/err")"
whole "-batch -force after a failed route load"
expect_eq "hand IPv4 routes" "$(cls -j status | jq .routes.v4.hand)" 5

# The sync daemon: the first of a batch of notifications fails, the
# rest of the batch goes on.
write_realm_conf "$WORK/sync.conf"
ip -n "$NS_S" route add 10.40.0.0/16 via 10.200.0.2 table 100 realm 5
SYNC_LOG=$WORK/sync.log
nsenter --net="/run/netns/$NS_S" env CLS_FAULT_FAIL="route: repaint" \
	"$CLASSIFIER_FAULT" --bpffs "$BPFFS" sync config "$WORK/sync.conf" \
	>> "$SYNC_LOG" 2>&1 &
SYNC_PID=$!
track_pid "$SYNC_PID"
wait_until 10 'sync_started' || { sync_diag; fail "sync: no first resync"; }
# stopped, so that the kernel's notifications are read as one batch
kill -STOP "$SYNC_PID"
for i in 41 42 43 44; do
	echo "route add 10.$i.0.0/16 via 10.200.0.2 table 100 realm 6"
done > "$WORK/ipbatch"
ip -n "$NS_S" -batch "$WORK/ipbatch"
kill -CONT "$SYNC_PID"
wait_until 10 '[ "$(synced | wc -l)" -eq 5 ]' || { sync_diag; fail "sync: the routes did not arrive"; }
wait_until 5 'grep -q "finished an interrupted change of route 10.41.0.0/16" "$SYNC_LOG"' ||
	{ sync_diag; fail "sync: the next change did not settle the failed one"; }
grep -q "Input/output error" "$SYNC_LOG" || { sync_diag; fail "sync: no injected failure"; }
whole "sync after a failed route in a batch"
expect_eq "synced IPv4 routes" "$(cls -j status | jq .routes.v4.synced)" 5

# The tables' upkeep at the end of a change fails, and so does its own
# attempt to finish: the error names the table it was rebuilding, and the
# next command finishes the rebuild.
cls table auto
awk 'BEGIN { for (i = 0; i < 1023; i++) printf "2001:db8:%x::/48 web\n", i }' \
	> "$WORK/v6"
cls route load "$WORK/v6"
rc=0
nsenter --net="/run/netns/$NS_S" env CLS_FAULT_FAIL="swap: empty the old slots" \
	CLS_FAULT_FAILS=2 "$CLASSIFIER_FAULT" --bpffs "$BPFFS" route add 2001:db8:ffff::/48 \
	class web 2> "$WORK/err" || rc=$?
[ "$rc" -ne 0 ] || fail "upkeep: the change did not fail"
grep -qx "classifier: rebuilding the IPv6 table: Input/output error" \
	"$WORK/err" || fail "upkeep: $(tr '\n' '|' < "$WORK/err")"
cls status > /dev/null 2> "$WORK/err"
grep -q "^classifier: finished an interrupted rebuild of the lookup tables" \
	"$WORK/err" || fail "upkeep: the next command said $(cat "$WORK/err")"
whole "after a failed upkeep"
cls lookup 2001:db8:ffff::1 | grep -q "(ipv6 table agrees)" ||
	fail "upkeep: $(cls lookup 2001:db8:ffff::1)"
