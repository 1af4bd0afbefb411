#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An upgrade from layout 3 under traffic, then crashes in the middle of
# one: the whole chain, 3 -> 4 -> 5 -> ..., in one publish.
# $CLASSIFIER_FROM_3 is the classifier of the last commit with layout 3
# (tests/upgrade/build_prev.sh builds it from this clone's git history,
# UPGRADE_FROM in the Makefile).
#  1. The old binary sets up classes, 100k IPv4 + 10k IPv6 routes and three
#     attachments (tcx egress, XDP, clsact egress); UDP streams run through
#     HTB while the new binary runs `upgrade` (tests/netns/upgrade.sh).
#  2. The old binary refuses the new pins and changes nothing.
#  3. Every crash point of `upgrade` (the fault build), and 6 kill -9 at
#     random moments: running `upgrade` again finishes, whole.
#  4. Layout 4's classifier killed at every step of its own upgrade from
#     these pins ($CLASSIFIER_FROM_4_FAULT): this build's `upgrade`
#     finishes what it began (its staging/, or its record) and moves on.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/upgrade.sh
. "$(dirname "$0")/upgrade.sh"

upgrade_from "${CLASSIFIER_FROM_3:-}" "layout 3's"
old --version | grep -q "ABI 3" || fail "layout 3's classifier says: $(old --version)"

# 1. under traffic
old_setup "$WORK/routes"
upgrade_under_traffic "moved the pins from layout 3 to $(cls_layout)"

# 2. the old binary refuses the new pins
cls route list > "$WORK/routes_new"
rc=0
old route add 172.16.0.0/12 class web 2> "$WORK/err" || rc=$?
# (its wording is its own: it predates layout versions)
[ "$rc" -ne 0 ] || fail "the old classifier changed layout $(cls_layout) pins"
log "the old classifier: $(tr '\n' ' ' < "$WORK/err")"
cls route list > "$WORK/routes_new2"
cmp -s "$WORK/routes_new" "$WORK/routes_new2" || fail "the old classifier changed routes"

# 3. crashes in the middle of an upgrade
upgrade_crashes 3

# 4. an older build's upgrade from these pins, interrupted
[ -x "${CLASSIFIER_FROM_4_FAULT:-}" ] ||
	fail "no fault build of layout 4's classifier (make netns builds it)"
upgrade_killed_at_each_step "$CLASSIFIER_FROM_4_FAULT" "layout 4's upgrade" 4
