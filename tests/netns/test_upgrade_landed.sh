#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An upgrade from the classifier that landed before this one: the same
# layout, other programs.  $CLASSIFIER_LANDED is built from this clone's
# git history (tests/upgrade/build_prev.sh, LANDED_COMMIT in the Makefile).
#  1. It sets up classes, 100k IPv4 + 10k IPv6 routes and three
#     attachments; UDP streams run through HTB while this build runs
#     `upgrade` (tests/netns/upgrade.sh): nothing lost, nothing in the
#     default class, every attachment on this build.
#  2. Same layout, so the landed binary still works on the pins: its route
#     change is classified by this build's programs, and the tables agree.
#  3. Every crash point of `upgrade` and 10 kill -9 at random moments: the
#     next `upgrade` finishes, whole.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/upgrade.sh
. "$(dirname "$0")/upgrade.sh"

upgrade_from "${CLASSIFIER_LANDED:-}" landed
old --version | grep -q "(layout 4," || fail "the landed classifier is not layout 4: $(old --version)"
[ "$(old --version)" != "$(cls --version)" ] ||
	fail "the landed classifier is this build: nothing to upgrade from"

# 1. under traffic; the layout stays, so upgrade only moves the programs
old_setup "$WORK/routes"
expect_eq "attachments on another build, before" \
	"$(cls -j status | jq '[.attached[] | select(.build != "current")] | length')" 3
upgrade_under_traffic "^classifier: 3 attachments run build [0-9a-f]{16}$"

# 2. the landed binary, on the same layout, still changes routes; this
#    build's programs classify what it wrote
old route add 10.201.0.0/24 class web
old route add fd00:201::/48 class web
for a in $DFLT4 $DFLT6; do
	cls lookup "$a" | grep -q "web.*table agrees" ||
		fail "lookup $a after the landed binary's change: $(cls lookup "$a")"
done
rcv_nft_init
streams_start 200 500 "$DFLT4" "$DFLT6"
streams_check "to the landed binary's routes"
"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" || fail "$(cat "$WORK/check")"

# 3. crashes in the middle of an upgrade
upgrade_crashes 1
