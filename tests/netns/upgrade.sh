# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# What the upgrade tests share (sourced after lib.sh, not a test itself):
# an older classifier, $OLD_CLASSIFIER, sets up classes, routes and three
# attachments; this one upgrades under UDP streams, then after crashes.

[ -x "${CLASSIFIER_FAULT:-}" ] || fail "no fault build (make netns builds it)"
[ -x "${CHECK_STATE:-}" ] || fail "no check_state (make netns builds it)"

# upgrade_from BINARY WHICH: BINARY (WHICH classifier) is the old one;
# upgrade_env is made.
upgrade_from()
{
	[ -x "$1" ] || fail "no $2 classifier (make netns builds it)"
	OLD_CLASSIFIER=$1
	upgrade_env
}

old()
{
	nsenter --net="/run/netns/$NS_S" "$OLD_CLASSIFIER" --bpffs "$BPFFS" "$@"
}

# upgrade_env: the namespaces, HTB, and a second device for a clsact
# (mode tc) attachment; $WORK/routes: 100k IPv4 + 10k IPv6 routes, enough
# for both tables.
upgrade_env()
{
	setup_pair
	setup_htb
	ip -n "$NS_S" link add cls-tc0 type veth peer name cls-tc1
	ip -n "$NS_S" link set cls-tc0 up
	ip -n "$NS_S" link set cls-tc1 up
	awk 'BEGIN {
		for (i = 0; i < 100000; i++)
			printf "10.%d.%d.%d/26 bulk\n", int(i / 1024) % 256,
				int(i / 4) % 256, (i % 4) * 64
		print "198.51.100.0/24 web"
		for (i = 0; i < 10000; i++)
			printf "2001:db8:%x:%x::/64 bulk\n", 100 + int(i / 256),
				i % 256
		print "2001:db8:10::/48 web"
	}' > "$WORK/routes"
}

# old_setup ROUTES_FILE [one]: the old classifier's pins, attached three
# ways (tcx, XDP, clsact), or with "one" by tcx only: each attachment
# loads the programs again, and what is under test there is the journal,
# not the attachments (those are tested by the upgrade's own crash points).
old_setup()
{
	cls purge
	old class add 1:10 name web dscp EF
	old class add 1:20 name bulk dscp CS1
	old class set default classid 1:30
	# FILL_CLASSES: every class index the old layout has in use.
	if [ -n "${FILL_CLASSES:-}" ]; then
		old class list > "$WORK/classes"
		awk -v n="$FILL_CLASSES" 'BEGIN {
			for (i = 1; i <= n - 3; i++)
				printf "class 2:%x name fill%d\n", i, i }' \
			>> "$WORK/classes"
		old class load "$WORK/classes"
		expect_eq "classes, before" \
			"$(old class list | wc -l)" "$FILL_CLASSES"
	fi
	old route load "$1"
	old attach dev "$VS"
	[ "${2:-}" = one ] && return
	old attach dev "$VS" xdp xdp-mode generic
	old attach dev cls-tc0 mode tc
}

# upgrade_under_traffic SAID: after old_setup with $WORK/routes, `upgrade`
# under UDP streams; its messages must match the regex SAID.  No stream
# packet may end in the default class, counters carry over, routes and
# classes stay, the tables agree, the state is whole, and every attachment
# runs this build.
upgrade_under_traffic()
{
	local n=5000 web_before web_after a

	old route list > "$WORK/routes_before"
	old class list > "$WORK/classes_before"
	web_before=$(old -j stats |
		jq '.classes[] | select(.name == "web") | .egress.packets')
	rcv_nft_init
	streams_start $n 200 "$WEB4" "$WEB6"
	sleep 0.3
	cls upgrade 2> "$WORK/upgrade_msg" ||
		fail "upgrade failed: $(cat "$WORK/upgrade_msg")"
	grep -Eq "$1" "$WORK/upgrade_msg" ||
		fail "upgrade said: '$(cat "$WORK/upgrade_msg")', want /$1/"
	streams_check "across the upgrade"
	web_after=$(cls -j stats |
		jq '.classes[] | select(.name == "web") | .egress.packets')
	expect_eq "web's egress counter, old + new" \
		$((web_after - web_before)) $((2 * n))
	cls route list | sed 's/ # synced$//' > "$WORK/routes_after"
	cmp -s "$WORK/routes_before" "$WORK/routes_after" ||
		fail "routes changed: $(diff "$WORK/routes_before" "$WORK/routes_after" | head -n 3 | tr '\n' '|')"
	cls class list > "$WORK/classes_after"
	cmp -s "$WORK/classes_before" "$WORK/classes_after" ||
		fail "classes changed"
	for a in $WEB4 10.0.0.1 10.50.37.200; do
		cls lookup "$a" | grep -q "(ipv4 table agrees)" ||
			fail "lookup $a: $(cls lookup "$a")"
	done
	for a in $WEB6 2001:db8:64:1::1 2001:db8:ff::1; do
		cls lookup "$a" | grep -q "(ipv6 table agrees)" ||
			fail "lookup $a: $(cls lookup "$a")"
	done
	"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" || fail "$(cat "$WORK/check")"
	expect_eq "attachments" "$(cls -j status | jq '.attached | length')" 3
	expect_eq "attachments on another build" \
		"$(cls -j status | jq '[.attached[] | select(.build != "current")] | length')" 0
	cls -j status | jq -e ".layout == $(cls_layout)" > /dev/null ||
		fail "status: not layout $(cls_layout)"
}

finish_and_check()
{
	cls upgrade 2> "$WORK/msg" ||
		fail "$1: upgrade again failed: $(cat "$WORK/msg")"
	"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" || fail "$1: $(cat "$WORK/check")"
	cls route list | sed 's/ # synced$//' > "$WORK/got"
	cmp -s "$WORK/got" "$WORK/small_list" ||
		fail "$1: routes differ after finishing"
	[ "$(cls -j status | jq '[.attached[] | select(.build != "current")] | length')" -eq 0 ] ||
		fail "$1: an attachment still runs the old build"
}

# upgrade_killed_at_each_step BINARY WHAT MIN_STEPS: BINARY (a fault
# build) runs `upgrade` on the old classifier's pins of $WORK/small and
# is killed at step 1, 2, ... of it; the next `upgrade` of this build
# must finish, whole.  At least MIN_STEPS crash points must be met.
upgrade_killed_at_each_step()
{
	local step=1 rc

	while :; do
		old_setup "$WORK/small"
		rc=0
		nsenter --net="/run/netns/$NS_S" env CLS_FAULT_STEP=$step \
			"$1" --bpffs "$BPFFS" upgrade > /dev/null 2>&1 || rc=$?
		[ "$rc" -eq 0 ] && break
		[ "$rc" -eq 137 ] || fail "$2, step $step: exited $rc"
		finish_and_check "$2 killed at step $step"
		step=$((step + 1))
	done
	[ "$step" -gt "$3" ] || fail "$2 has only $((step - 1)) crash points"
	log "$2: $((step - 1)) crash points, each finished by the next upgrade"
}

# upgrade_crashes MIN_STEPS: every crash point of `upgrade` (the fault
# build) and 6 kill -9 at random moments, each on the old classifier's
# pins (a smaller set: this runs many times); the next `upgrade` must
# finish, whole.  At least MIN_STEPS crash points must be met.
upgrade_crashes()
{
	local trial pid

	head -n 5000 "$WORK/routes" > "$WORK/small"
	echo "198.51.100.0/24 web" >> "$WORK/small"
	old_setup "$WORK/small"
	old route list > "$WORK/small_list"
	upgrade_killed_at_each_step "$CLASSIFIER_FAULT" upgrade "$1"
	for trial in $(seq 1 6); do
		old_setup "$WORK/small"
		nsenter --net="/run/netns/$NS_S" "$CLASSIFIER" --bpffs "$BPFFS" \
			upgrade > /dev/null 2>&1 &
		pid=$!
		sleep "0.$(printf '%03d' $((RANDOM % 250)))"
		kill -9 $pid 2>/dev/null || :
		wait $pid 2>/dev/null || :
		finish_and_check "kill -9 trial $trial"
	done
}
