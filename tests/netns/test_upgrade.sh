#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An upgrade from the previous layout under traffic, then crashes in the
# middle of one.  $CLASSIFIER_PREV is the classifier of the commit that
# landed before layout 4 (tests/upgrade/build_prev.sh builds it from this
# clone's git history).
#  1. The old binary sets up classes, 100k IPv4 + 10k IPv6 routes and three
#     attachments (tcx egress, XDP, clsact egress); UDP streams run through
#     HTB while the new binary runs `upgrade` (tests/netns/upgrade.sh).
#  2. The old binary refuses the new pins and changes nothing.
#  3. Every crash point of `upgrade` (the fault build), and 10 kill -9 at
#     random moments: running `upgrade` again finishes, whole.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/upgrade.sh
. "$(dirname "$0")/upgrade.sh"

upgrade_from "${CLASSIFIER_PREV:-}" previous
old --version | grep -q "ABI 3" || fail "the previous classifier is not layout 3"

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
