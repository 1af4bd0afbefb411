#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every crash point of every multi-step change, as SQLite tests its
# journal: the fault build ($CLASSIFIER_FAULT) dies by SIGKILL at step 1,
# then 2, ... of a command, each time from the same starting state; the
# next command (a plain `status`) must say in one line that it finished
# or rolled the change back, and then the state must be the old one or
# the new one, whole: tests/crash/check_state.c checks the journal, the
# spare generation, the counts, the IPv4 table against the trie and the
# attached program against both on a dense sample, and counting.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

[ -x "${CLASSIFIER_FAULT:-}" ] || fail "no fault build (make netns builds it)"
[ -x "${CHECK_STATE:-}" ] || fail "no check_state (make netns builds it)"

setup_pair
add_classes
cls class add 1:50 name spare
cls attach dev "$VS"

# Starting routes: enough IPv4 ones for the table's auto policy, with /25s
# (groups) and a default route; new ones move and replace them.
awk 'BEGIN {
	print "0.0.0.0/0 bulk"
	for (i = 0; i < 1200; i++)
		printf "10.%d.%d.0/24 web\n", int(i / 256), i % 256
	for (i = 0; i < 40; i++)
		printf "10.0.%d.128/25 bulk\n", i
	for (i = 0; i < 50; i++)
		printf "2001:db8:%x::/48 web\n", i + 1
}' > "$WORK/old"
awk 'BEGIN {
	for (i = 0; i < 1500; i++)
		printf "10.%d.%d.0/24 bulk\n", 100 + int(i / 256), i % 256
	for (i = 0; i < 60; i++)
		printf "2001:db8:%x::/48 bulk\n", i + 100
}' > "$WORK/new"

fcls()
{
	local step=$1
	shift
	nsenter --net="/run/netns/$NS_S" env CLS_FAULT_STEP="$step" \
		"$CLASSIFIER_FAULT" --bpffs "$BPFFS" "$@"
}

# What a scenario starts from (each crash point starts from it again);
# with $START_CLASSES, the class set that file gives too.
START_CLASSES=
start()
{
	[ -z "$START_CLASSES" ] || cls class load "$START_CLASSES"
	cls table auto
	cls stats on
	cls class replace 1:10 name web dscp EF
	cls class replace 1:50 name spare
	cls route load "$WORK/old"
}

listing()
{
	cls route list
	cls class list
}

# The listings a scenario may end in: the start, and the change run whole.
want_lists()
{
	start
	listing > "$WORK/want_old"
	cls "$@" >/dev/null
	listing > "$WORK/want_new"
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
			fail "$name, step $step: neither old nor new: $(diff "$WORK/want_old" "$WORK/got" | head -n 3 | tr '\n' '|')"
		step=$((step + 1))
	done
	[ "$step" -gt 1 ] || fail "$name: no crash point"
	log "$name: $((step - 1)) crash points, each old or new and whole"
}

crash_each "route load" route load "$WORK/new"
crash_each "route flush" route flush
crash_each "route replace of the default route" \
	route replace 0.0.0.0/0 class web
crash_each "route del of the default route" route del 0.0.0.0/0
crash_each "route add of a /25" route add 10.1.7.0/25 class spare
crash_each "table on with fixed groups" table on groups 4096
crash_each "table off" table off
crash_each "table rebuild" table rebuild
crash_each "stats reset" stats reset
crash_each "class set" class set web mark 0x99 dscp 10
crash_each "class set police" class set web police 10mbit over dscp 10
crash_each "class del" class del spare

# A whole class set: one class changed, one gone (no route uses it), one
# new; each crash point leaves the old set or the new one.
start
cls class list > "$WORK/classes_old"
awk '/ name spare$/ { print "class 1:70 name video mark 0x7"; next }
	/ name bulk / { print $0 " mark 0x3"; next } { print }' \
	"$WORK/classes_old" > "$WORK/classes_new"
START_CLASSES="$WORK/classes_old"
crash_each "class load" class load "$WORK/classes_new"
START_CLASSES=

# Creating the pins: killed at any step, the next command finds either
# nothing (and creates them) or a whole layout.
cls detach dev "$VS"
no_pins()
{
	cls purge
}
step=1
while :; do
	no_pins
	rc=0
	fcls "$step" class add 1:60 name first >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq 0 ] && break
	[ "$rc" -eq 137 ] || fail "create, step $step: exited $rc"
	cls class add 1:61 name second ||
		fail "create, step $step: the next command could not set up"
	"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" ||
		fail "create, step $step: $(cat "$WORK/check")"
	step=$((step + 1))
done
[ "$step" -gt 1 ] || fail "create: no crash point"
log "create: $((step - 1)) crash points"

# Purge: maps/ leaves in one rename, so killed at any step, a reader finds
# the whole set or nothing set up, never pins missing; the next purge
# finishes, and the next change sets up afresh.
step=1
while :; do
	cls class add 1:62 name third > /dev/null
	cls attach dev "$VS"
	rc=0
	fcls "$step" purge >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq 0 ] && break
	[ "$rc" -eq 137 ] || fail "purge, step $step: exited $rc"
	rc=0
	cls stats > /dev/null 2> "$WORK/err" || rc=$?
	[ "$rc" -eq 0 ] || grep -q "nothing set up under" "$WORK/err" ||
		fail "purge, step $step: a reader said: $(cat "$WORK/err")"
	cls class add 1:63 name fourth > /dev/null ||
		fail "purge, step $step: the next change could not set up"
	"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" ||
		fail "purge, step $step: $(cat "$WORK/check")"
	cls purge
	[ ! -e "$BPFFS/classifier" ] ||
		fail "purge, step $step: left $(ls "$BPFFS/classifier")"
	step=$((step + 1))
done
[ "$step" -gt 1 ] || fail "purge: no crash point"
log "purge: $((step - 1)) crash points"
