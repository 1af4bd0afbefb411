#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# "mode tc" on an interface without clsact: attach creates clsact and a
# cls_bpf filter (status says it owns the qdisc); detach removes both, so
# qdiscs and filters are exactly as before.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

setup_pair
setup_htb
add_classes
add_routes
iface_state > "$WORK/before"
tc -n "$NS_S" qdisc show dev "$VS" | grep -q clsact && fail "clsact before attach"
cls attach dev "$VS" mode tc
a=$(attached_json)
[ "$(echo "$a" | jq -r .mode)" = tc ] || fail "mode tc attach shows $a"
[ "$(echo "$a" | jq -r .owns_qdisc)" = true ] || fail "owns_qdisc not true: $a"
prog=$(echo "$a" | jq -r .prog_id)
tc -n "$NS_S" qdisc show dev "$VS" | grep -q clsact || fail "no clsact after attach"
tc -n "$NS_S" filter show dev "$VS" egress | grep -q "bpf.* id $prog " ||
	fail "no cls_bpf filter running prog $prog"

# and it classifies in this mode too
snapshot
send "$WEB4" 20
expect_eq "HTB 1:10 in mode tc" "$(htb_delta 1:10)" 20

cls detach dev "$VS"
iface_state > "$WORK/after"
diff -u "$WORK/before" "$WORK/after" >&2 || fail "interface differs after detach"
[ -z "$(attached_json)" ] || fail "status still lists: $(attached_json)"
