#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Detach keeps classes, routes and counters: after detach + attach the
# same routes classify again and the counters continue from where they
# were.  While detached nothing is classified or counted.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

N=30
setup_pair
setup_htb
add_classes
add_routes
cls attach dev "$VS"
send "$WEB4" $N
send "$BULK6" $N
cls route list > "$WORK/routes_before"
cls class list > "$WORK/classes_before"
web=$(stat_pkts web)
bulk=$(stat_pkts bulk)
expect_eq "web before detach" "$web" $N
expect_eq "bulk before detach" "$bulk" $N

cls detach dev "$VS"
snapshot
send "$WEB4" $N
expect_eq "web while detached" "$(stat_pkts web)" "$web"
expect_eq "HTB 1:10 while detached" "$(htb_delta 1:10)" 0

cls attach dev "$VS"
cls route list > "$WORK/routes_after"
cls class list > "$WORK/classes_after"
diff -u "$WORK/routes_before" "$WORK/routes_after" >&2 || fail "routes changed"
diff -u "$WORK/classes_before" "$WORK/classes_after" >&2 || fail "classes changed"
[ "$(wc -l < "$WORK/routes_after")" -eq 6 ] || fail "expected 6 routes"
snapshot
send "$WEB4" $N
send "$BULK6" $N
expect_eq "web after re-attach" "$(stat_pkts web)" $((web + N))
expect_eq "bulk after re-attach" "$(stat_pkts bulk)" $((bulk + N))
expect_eq "HTB 1:10 after re-attach" "$(htb_delta 1:10)" $N
expect_eq "HTB 1:20 after re-attach" "$(htb_delta 1:20)" $N

# attaching again while attached replaces in place: still one attachment
cls attach dev "$VS"
expect_eq "attachments after a second attach" "$(attached_json | wc -l)" 1
snapshot
send "$WEB6" $N
expect_eq "HTB 1:10 after attach over attach" "$(htb_delta 1:10)" $N
