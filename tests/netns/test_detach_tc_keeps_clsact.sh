#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# "mode tc" where a clsact (with someone else's filter) already exists:
# classifier adds only its filter, does not claim the qdisc, and detach
# removes only its filter.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

setup_pair
setup_htb
add_classes
tc -n "$NS_S" qdisc add dev "$VS" clsact
tc -n "$NS_S" filter add dev "$VS" egress prio 7 protocol ip \
	u32 match ip dst 10.9.9.9/32 flowid 1:1
iface_state > "$WORK/before"
cls attach dev "$VS" mode tc
a=$(attached_json)
[ "$(echo "$a" | jq -r .owns_qdisc)" = false ] || fail "owns_qdisc not false: $a"
tc -n "$NS_S" filter show dev "$VS" egress | grep -q "bpf.* id $(echo "$a" | jq -r .prog_id) " ||
	fail "no cls_bpf filter of ours"
cls detach dev "$VS"
iface_state > "$WORK/after"
diff -u "$WORK/before" "$WORK/after" >&2 ||
	fail "detach did not restore the pre-existing clsact and filter"
tc -n "$NS_S" filter show dev "$VS" egress | grep -q "pref 7 u32" ||
	fail "the pre-existing u32 filter is gone"
[ -z "$(attached_json)" ] || fail "status still lists: $(attached_json)"
