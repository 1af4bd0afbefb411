#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# attach (default: tcx) then detach leaves the interface as it was: same
# qdiscs and filters, no tcx link for the program, nothing in status.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

setup_pair
setup_htb
add_classes
iface_state > "$WORK/before"
cls attach dev "$VS"
a=$(attached_json)
[ "$(echo "$a" | jq -r .mode)" = tcx ] || fail "default attach is not tcx: $a"
[ "$(echo "$a" | jq -r .dev)" = "$VS" ] || fail "status names $a"
prog=$(echo "$a" | jq -r .prog_id)
links=$(link_ids_of_prog "$prog")
[ -n "$links" ] || fail "no BPF link runs prog $prog while attached"
log "prog $prog, link(s) $links"
# tcx adds no qdisc and no tc filter
iface_state > "$WORK/attached"
diff -u "$WORK/before" "$WORK/attached" >&2 ||
	fail "tcx attach changed the qdiscs or filters"

cls detach dev "$VS" egress
iface_state > "$WORK/after"
diff -u "$WORK/before" "$WORK/after" >&2 || fail "interface differs after detach"
[ -z "$(attached_json)" ] || fail "status still lists: $(attached_json)"
[ -z "$(link_ids_of_prog "$prog")" ] ||
	fail "BPF link $(link_ids_of_prog "$prog") still runs prog $prog"
for l in $links; do
	! bpftool link show id "$l" >/dev/null 2>&1 || fail "link $l still exists"
done
[ -z "$(ls "$BPFFS/classifier/links" 2>/dev/null)" ] ||
	fail "link pins left: $(ls "$BPFFS/classifier/links")"
