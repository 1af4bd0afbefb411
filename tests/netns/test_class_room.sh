#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A class record with a setting this build does not know, as a newer
# build of the same layout would leave it: a bit of cls.flags outside
# CLS_F_KNOWN, and bytes in the room of both records (written here with
# bpftool).  The rule (docs/architecture.md, "How to add a class field"):
# `class list` and -j say so, `class set` changes only what it is told
# and keeps the rest, byte for byte, `class replace` refuses (it would
# drop them) and changes nothing, `class del` deletes, and the programs
# classify by what they know.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

setup_pair
setup_htb
cls class add 1:10 name web mark 0x20 dscp EF
cls route add "$WEB4/32" class web
cls attach dev "$VS"

MAPS=$BPFFS/classifier/maps
# record MAP: the class of index 1 in MAP, as hex bytes on one line
record()
{
	bpftool -j map lookup pinned "$MAPS/$1" key 1 0 0 0 |
		jq -r '.value | join(" ")'
}
# poke MAP OFFSET BYTE: one byte of index 1's record in MAP
poke()
{
	local v
	v=$(record "$1" | awk -v at="$2" -v b="$3" '{ $(at + 1) = b; print }')
	# shellcheck disable=SC2086 # the bytes are words
	bpftool map update pinned "$MAPS/$1" key 1 0 0 0 value $v
}

# A newer build's setting: flag bit 31 (byte 11 of flags, at 8), a value
# in the class record's room (byte 40) and in the name record's (byte 80).
poke classes 11 0x80
poke classes 40 0x55
poke class_meta 80 0x66
cls_before=$(record classes)
meta_before=$(record class_meta)

cls class list | grep -qx "class 1:10 name web mark 0x20 dscp 46 # and settings this classifier does not know (flags 0x80000000)" ||
	fail "list: $(cls class list | tr '\n' '|')"
expect_eq "JSON unknown_flags" \
	"$(cls -j class list | jq '.[] | select(.name == "web") | .unknown_flags')" \
	$((0x80000000))

# set changes the mark only
cls class set web mark 0x30
want=$(echo "$cls_before" | awk '{ $5 = "0x30"; print }')
expect_eq "class record after set" "$(record classes)" "$want"
expect_eq "name record after set" "$(record class_meta)" "$meta_before"

# replace would drop them: refused, nothing changed
rc=0
cls class replace 1:10 name web dscp AF41 2> "$WORK/err" || rc=$?
[ "$rc" -ne 0 ] || fail "replace dropped settings it does not know"
grep -qx "classifier: class replace: class 1:10 has settings this classifier does not know (flags 0x80000000, set by a newer one): change it with that classifier, or delete it first" \
	"$WORK/err" || fail "replace said: $(cat "$WORK/err")"
expect_eq "class record after a refused replace" "$(record classes)" "$want"

# the programs read what they know: priority, mark, DSCP EF
rcv_nft_init
streams_start 200 500 "$WEB4"
streams_check "with an unknown setting"
[ "$(htb_pkts 1:10)" -ge 200 ] || fail "HTB class 1:10 got $(htb_pkts 1:10)"

cls route del "$WEB4/32"
cls class del web
cls class list | grep -q web && fail "del left the class"
log "unknown settings: shown, kept by set, refused by replace, deleted by del"
