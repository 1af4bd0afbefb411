#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An upgrade from the previous layout under traffic, then crashes in the
# middle of one.  $CLASSIFIER_PREV is the classifier of the commit that
# landed before layout 4 (tests/upgrade/build_prev.sh builds it from this
# clone's git history).
#  1. The old binary sets up classes, 100k IPv4 + 10k IPv6 routes and three
#     attachments (tcx egress, XDP, clsact egress); UDP streams run through
#     HTB while the new binary runs `upgrade`: no stream packet ends in the
#     default class (the receiver counts DSCP 0), the class counters carry
#     over (old + new = sent), lookups agree, every attachment runs the new
#     build, routes and classes are the old ones.
#  2. The old binary refuses the new pins and changes nothing.
#  3. Every crash point of `upgrade` (the fault build), and 10 kill -9 at
#     random moments: running `upgrade` again finishes, whole.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

[ -x "${CLASSIFIER_PREV:-}" ] || fail "no previous classifier (make netns builds it)"
[ -x "${CLASSIFIER_FAULT:-}" ] || fail "no fault build (make netns builds it)"
[ -x "${CHECK_STATE:-}" ] || fail "no check_state (make netns builds it)"
N=5000
ROUTES=100000

old()
{
	nsenter --net="/run/netns/$NS_S" "$CLASSIFIER_PREV" --bpffs "$BPFFS" "$@"
}

setup_pair
setup_htb
# a second device for a clsact (mode tc) attachment
ip -n "$NS_S" link add cls-tc0 type veth peer name cls-tc1
ip -n "$NS_S" link set cls-tc0 up
ip -n "$NS_S" link set cls-tc1 up

awk -v n=$ROUTES 'BEGIN {
	for (i = 0; i < n; i++)
		printf "10.%d.%d.%d/26 bulk\n", int(i / 1024) % 256,
			int(i / 4) % 256, (i % 4) * 64
	print "198.51.100.0/24 web"
	for (i = 0; i < 10000; i++)
		printf "2001:db8:%x:%x::/64 bulk\n", 100 + int(i / 256), i % 256
	print "2001:db8:10::/48 web"
}' > "$WORK/routes"

# old_setup ROUTES_FILE: pins of layout 3, attached three ways.
old_setup()
{
	cls purge
	old class add 1:10 name web dscp EF
	old class add 1:20 name bulk dscp CS1
	old class set default classid 1:30
	old route load "$1"
	old attach dev "$VS"
	old attach dev "$VS" xdp xdp-mode generic
	old attach dev cls-tc0 mode tc
}

old_setup "$WORK/routes"
old --version | grep -q "ABI 3" || fail "the previous classifier is not layout 3"
old route list > "$WORK/routes_before"
old class list > "$WORK/classes_before"
web_before=$(old -j stats | jq '.classes[] | select(.name == "web") | .egress.packets')

# 1. under traffic
rcv_nft_init
streams_start $N 200 "$WEB4" "$WEB6"
sleep 0.3
cls upgrade 2> "$WORK/upgrade_msg"
grep -q "moved the pins from layout 3 to 4" "$WORK/upgrade_msg" ||
	fail "upgrade said: $(cat "$WORK/upgrade_msg")"
streams_check "across the upgrade"
web_after=$(cls -j stats | jq '.classes[] | select(.name == "web") | .egress.packets')
expect_eq "web's egress counter, old + new" $((web_after - web_before)) $((2 * N))
cls route list | sed 's/ # synced$//' > "$WORK/routes_after"
cmp -s "$WORK/routes_before" "$WORK/routes_after" ||
	fail "routes changed: $(diff "$WORK/routes_before" "$WORK/routes_after" | head -n 3 | tr '\n' '|')"
cls class list > "$WORK/classes_after"
cmp -s "$WORK/classes_before" "$WORK/classes_after" || fail "classes changed"
for a in $WEB4 10.0.0.1 10.50.37.200; do
	cls lookup "$a" | grep -q "(ipv4 table agrees)" ||
		fail "lookup $a: $(cls lookup "$a")"
done
"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" || fail "$(cat "$WORK/check")"
expect_eq "attachments" "$(cls -j status | jq '.attached | length')" 3
expect_eq "attachments on another build" \
	"$(cls -j status | jq '[.attached[] | select(.build != "current")] | length')" 0
cls -j status | jq -e '.layout == 4' > /dev/null || fail "status: not layout 4"

# 2. the old binary refuses the new pins
cls route list > "$WORK/routes_new"
rc=0
old route add 172.16.0.0/12 class web 2> "$WORK/err" || rc=$?
# (its wording is its own: it predates layout versions)
[ "$rc" -ne 0 ] || fail "the old classifier changed layout 4 pins"
log "the old classifier: $(tr '\n' ' ' < "$WORK/err")"
cls route list > "$WORK/routes_new2"
cmp -s "$WORK/routes_new" "$WORK/routes_new2" || fail "the old classifier changed routes"

# 3. crashes in the middle of an upgrade (a smaller set: it runs many times)
head -n 5000 "$WORK/routes" > "$WORK/small"
echo "198.51.100.0/24 web" >> "$WORK/small"
finish_and_check()
{
	cls upgrade 2> "$WORK/msg" || fail "$1: upgrade again failed: $(cat "$WORK/msg")"
	"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" || fail "$1: $(cat "$WORK/check")"
	cls route list | sed 's/ # synced$//' > "$WORK/got"
	cmp -s "$WORK/got" "$WORK/small_list" || fail "$1: routes differ after finishing"
	[ "$(cls -j status | jq '[.attached[] | select(.build != "current")] | length')" -eq 0 ] ||
		fail "$1: an attachment still runs the old build"
}
old_setup "$WORK/small"
old route list > "$WORK/small_list"
step=1
while :; do
	old_setup "$WORK/small"
	rc=0
	nsenter --net="/run/netns/$NS_S" env CLS_FAULT_STEP=$step \
		"$CLASSIFIER_FAULT" --bpffs "$BPFFS" upgrade > /dev/null 2>&1 || rc=$?
	[ "$rc" -eq 0 ] && break
	[ "$rc" -eq 137 ] || fail "upgrade, step $step: exited $rc"
	finish_and_check "upgrade killed at step $step"
	step=$((step + 1))
done
[ "$step" -gt 3 ] || fail "upgrade has only $((step - 1)) crash points"
log "upgrade: $((step - 1)) crash points, each finished by the next upgrade"
for trial in $(seq 1 10); do
	old_setup "$WORK/small"
	nsenter --net="/run/netns/$NS_S" "$CLASSIFIER" --bpffs "$BPFFS" \
		upgrade > /dev/null 2>&1 &
	pid=$!
	sleep "0.$(printf '%03d' $((RANDOM % 250)))"
	kill -9 $pid 2>/dev/null || :
	wait $pid 2>/dev/null || :
	finish_and_check "kill -9 trial $trial"
done
