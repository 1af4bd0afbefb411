# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# An upgrade from the classifier of a landed layout with a journal
# (sourced by test_upgrade_fromN.sh with FROM=N; not a test itself).
# $CLASSIFIER_FROM_N is built from this clone's git history
# (tests/upgrade/build_prev.sh, UPGRADE_FROM in the Makefile), and
# $CLASSIFIER_FROM_N_FAULT is its build with crash points.
#  1. It sets up classes, 100k IPv4 + 10k IPv6 routes and three
#     attachments; UDP streams run through HTB while this build runs
#     `upgrade` (tests/netns/upgrade.sh): nothing lost, nothing in the
#     default class, every attachment on this build.
#  2. Same layout: the landed binary still changes routes, and this
#     build's programs classify what it wrote.  A newer layout: the landed
#     binary refuses the pins and changes nothing.
#  3. Every crash point of `upgrade` and 6 kill -9 at random moments: the
#     next `upgrade` finishes, whole.
#  4. The landed binary killed at each step of a route change, a route
#     load, a class change and a counter reset: `upgrade` converts its
#     journal forward, finishes or rolls back what it left, says so, and
#     the state is whole.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/upgrade.sh
. "$(dirname "$0")/upgrade.sh"

old_bin=CLASSIFIER_FROM_$FROM
old_fault_bin=CLASSIFIER_FROM_${FROM}_FAULT
upgrade_from "${!old_bin:-}" "layout $FROM's"
[ -x "${!old_fault_bin:-}" ] ||
	fail "no fault build of layout $FROM's classifier (make netns builds it)"
[ "$(old --version)" != "$(cls --version)" ] ||
	fail "the landed classifier is this build: nothing to upgrade from"
OLD_LAYOUT=$(old --version | version_layout)
[ "$OLD_LAYOUT" = "$FROM" ] && [ "$OLD_LAYOUT" -le "$(cls_layout)" ] ||
	fail "layout $FROM's classifier says: $(old --version)"
log "from: $(old --version); to: $(cls --version)"

# 1. under traffic
old_setup "$WORK/routes"
expect_eq "attachments, before" \
	"$(old -j status | jq '.attached | length')" 3
if [ "$OLD_LAYOUT" -eq "$(cls_layout)" ]; then
	upgrade_under_traffic "^classifier: 3 attachments run build [0-9a-f]{16}$"
else
	upgrade_under_traffic "^classifier: moved the pins from layout $OLD_LAYOUT to $(cls_layout)$"
fi

# 2. the landed binary on this build's pins
if [ "$OLD_LAYOUT" -eq "$(cls_layout)" ]; then
	old route add 10.201.0.0/24 class web
	old route add fd00:201::/48 class web
	for a in $DFLT4 $DFLT6; do
		cls lookup "$a" | grep -q "web.*table agrees" ||
			fail "lookup $a after the landed binary's change: $(cls lookup "$a")"
	done
	rcv_nft_init
	streams_start 200 500 "$DFLT4" "$DFLT6"
	streams_check "to the landed binary's routes"
else
	cls route list > "$WORK/routes_new"
	rc=0
	old route add 172.16.0.0/12 class web 2> "$WORK/err" || rc=$?
	[ "$rc" -ne 0 ] || fail "the landed classifier changed layout $(cls_layout) pins"
	grep -q "pins are layout $(cls_layout), newer than" "$WORK/err" ||
		fail "the landed classifier said: $(cat "$WORK/err")"
	cls route list > "$WORK/routes_new2"
	cmp -s "$WORK/routes_new" "$WORK/routes_new2" ||
		fail "the landed classifier changed routes"
fi
"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" || fail "$(cat "$WORK/check")"

# 3. crashes in the middle of an upgrade
upgrade_crashes 1

# 4. the landed binary's own changes, killed half way, then `upgrade`
old_fault()
{
	nsenter --net="/run/netns/$NS_S" env CLS_FAULT_STEP="$1" \
		"${!old_fault_bin}" --bpffs "$BPFFS" "${@:2}"
}

{ head -n 2000 "$WORK/routes"; tail -n 2001 "$WORK/routes"; } > "$WORK/small6"
{ head -n 3000 "$WORK/routes"; echo "2001:db8:77::/48 web"; } > "$WORK/load"
said=0
while read -r what; do
	step=1
	while :; do
		old_setup "$WORK/small6" one
		rc=0
		# shellcheck disable=SC2086 # what is words
		old_fault $step $what > /dev/null 2>&1 || rc=$?
		[ "$rc" -eq 0 ] && break
		[ "$rc" -eq 137 ] || fail "landed '$what', step $step: exited $rc"
		cls upgrade 2> "$WORK/msg" ||
			fail "upgrade after landed '$what' killed at step $step: $(cat "$WORK/msg")"
		! grep -Eq "finished an interrupted|rolled back an interrupted" \
			"$WORK/msg" || said=$((said + 1))
		"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" ||
			fail "landed '$what' killed at step $step, upgraded: $(cat "$WORK/check")"
		for a in $WEB4 $WEB6 2001:db8:77::1; do
			cls lookup "$a" > "$WORK/lookup" ||
				fail "landed '$what' killed at step $step, upgraded: lookup $a failed"
			! grep -q DIFFERS "$WORK/lookup" ||
				fail "landed '$what' killed at step $step, upgraded: $(cat "$WORK/lookup")"
		done
		step=$((step + 1))
	done
	log "landed '$what': $((step - 1)) crash points, each settled by upgrade"
done <<EOF
route add 2001:db8:77::/48 class web
route add 10.77.0.0/16 class web
route del 2001:db8:10::/48
route load $WORK/load
class set web dscp AF41
stats reset
EOF
[ "$said" -gt 0 ] || fail "upgrade never said it settled a change left half done"
log "upgrade settled $said changes the landed binary left half done"
