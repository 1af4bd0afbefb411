#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every crash point of every change to the shaping tree, as
# test_crash_points does for the maps: the fault build dies by SIGKILL at
# step 1, 2, ... of a class add, rate change, unshaping, deletion and
# move to another queue of a shaping class, and of shape dev and shape del on a 4-queue veth, each
# time from the same start; the next command says in one line that it
# finished the change, and then the classes, the HTB classes and qdiscs
# on the device and the shaped devices are the old ones or the new ones,
# whole (tests/crash/check_state.c checks the maps besides).
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

[ -x "${CLASSIFIER_FAULT:-}" ] || fail "no fault build (make netns builds it)"
[ -x "${CHECK_STATE:-}" ] || fail "no check_state (make netns builds it)"

VETH_QUEUES=4
setup_pair
cls attach dev "$VS"

fcls()
{
	local step=$1
	shift
	nsenter --net="/run/netns/$NS_S" env CLS_FAULT_STEP="$step" \
		"$CLASSIFIER_FAULT" --bpffs "$BPFFS" "$@"
}

SHAPED=1
# What a scenario starts from (each crash point starts from it again).
start()
{
	cls class del new >/dev/null 2>&1 || true
	if [ -n "$SHAPED" ]; then
		cls shape dev "$VS" queues all
	else
		cls shape del dev "$VS" >/dev/null 2>&1 || true
	fi
	# queues given: the start is the same whatever a crash left
	cls class replace 1:10 name web rate 10mbit ceil 20mbit queue 0
	cls class replace 1:20 name bulk rate 30mbit queue 1
	# after "rate none" it is 3:30 unshaped, which 1:30 does not name
	cls class del spare >/dev/null 2>&1 || true
	cls class add 1:30 name spare rate 5mbit leaf bfifo queue 2
}

# The classes, the device's tc objects (leaf handles are the kernel's
# choice) and the shaped devices.
listing()
{
	cls class list
	tc -n "$NS_S" class show dev "$VS" | sed -E 's/leaf [0-9a-f]+:/leaf L:/' |
		sort
	tc -n "$NS_S" qdisc show dev "$VS" |
		sed -E 's/^qdisc (bfifo|pfifo) [0-9a-f]+:/qdisc \1 L:/' | sort
	cls -j status | jq -c .shaping
}

want_lists()
{
	start
	listing > "$WORK/want_old"
	cls "$@" >/dev/null
	listing > "$WORK/want_new"
	cmp -s "$WORK/want_old" "$WORK/want_new" &&
		fail "$* changes nothing to test"
	return 0
}

old_or_new()
{
	listing > "$WORK/got"
	cmp -s "$WORK/got" "$WORK/want_old" || cmp -s "$WORK/got" "$WORK/want_new"
}

# crash_each NAME CMD...
crash_each()
{
	local name=$1 step=1 rc
	shift
	want_lists "$@"
	while :; do
		start
		rc=0
		fcls "$step" "$@" >/dev/null 2> "$WORK/err" || rc=$?
		[ "$rc" -eq 0 ] && break
		[ "$rc" -eq 137 ] ||
			fail "$name, step $step: exited $rc: $(head -n1 "$WORK/err")"
		cls status > /dev/null 2> "$WORK/notice"
		grep -Eq "^classifier: (finished|rolled back) an interrupted" \
			"$WORK/notice" ||
			fail "$name, step $step: the next command said: $(cat "$WORK/notice")"
		[ "$(wc -l < "$WORK/notice")" -eq 1 ] ||
			fail "$name, step $step: more than one line: $(tr '\n' '|' < "$WORK/notice")"
		"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" ||
			fail "$name, step $step: $(cat "$WORK/check")"
		old_or_new ||
			fail "$name, step $step: neither old nor new: $(diff "$WORK/want_old" "$WORK/got" | head -n 4 | tr "\n" "|") new: $(diff "$WORK/want_new" "$WORK/got" | head -n 6 | tr "\n" "|")"
		step=$((step + 1))
	done
	[ "$step" -gt 1 ] || fail "$name: no crash point"
	log "$name: $((step - 1)) crash points, each old or new and whole"
}

crash_each "class add with a rate" class add 1:40 name new rate 1mbit leaf bfifo
crash_each "rate change" class set web rate 15mbit ceil 40mbit
crash_each "rate none" class set spare rate none
crash_each "class del" class del spare
crash_each "queue move" class set web queue 3
crash_each "shape del" shape del dev "$VS"
SHAPED=
crash_each "shape dev" shape dev "$VS" queues all
