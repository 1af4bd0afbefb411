#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Class indexes past 16 bits, end to end: a class load of 70 000 classes
# (more than 65 536: room for 131 072), routes to class indexes above
# 2^16 answered by both lookup tables (the IPv4 DIR-24-8 leaf and the
# IPv6 multibit trie's keep the index's high bits apart), and packets
# counted in exactly those classes by the attached program, none in the
# class their low 16 bits would name or in the default class.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

setup_pair

N=70000
awk -v n=$N 'BEGIN {
	print "class default"
	for (i = 1; i < n; i++)
		printf "class %x:%x name s%d\n", 2 + int(i / 65535), 1 + i % 65535, i
}' > "$WORK/classes"
cls class load "$WORK/classes"
V4=s69999
V6=s65600
# One read of the list (jq over 70 000 classes takes seconds); the list
# goes by index, and class load gives indexes in file order: s<i> is i.
read -r n i6 i4 more < <(cls -j class list | jq -r --arg a $V4 --arg b $V6 \
	'[length, (.[] | select(.name == $a or .name == $b) | .index)] | @tsv')
expect_eq "classes" "$n" $N
expect_eq "room" "$(cls -j status | jq .class_room)" 131072
expect_eq "$V6's index" "$i6" 65600
expect_eq "$V4's index" "$i4" 69999
[ -z "$more" ] || fail "more than two classes matched"

cls route add 198.51.100.0/24 class $V4
cls route add 2001:db8:10::/48 class $V6
cls table on
cls table show | grep -q "^ipv6     on" || fail "no IPv6 table: $(cls table show)"
cls lookup "$WEB4" | grep -qx "$WEB4 via 198.51.100.0/24 class 3:1171 name $V4 (ipv4 table agrees)" ||
	fail "IPv4 lookup: $(cls lookup "$WEB4")"
cls lookup "$WEB6" | grep -qx "$WEB6 via 2001:db8:10::/48 class 3:42 name $V6 (ipv6 table agrees)" ||
	fail "IPv6 lookup: $(cls lookup "$WEB6")"
cls attach dev "$VS"

send "$WEB4" 20
send "$WEB6" 30
# Packets of 69999 and 65600, of their low 16 bits' classes (4463, 64)
# and of the default class, in one read.
read -r p4 p6 l4 l6 d < <(cls -j stats | jq -r '[.classes[] |
	select(.name == "s69999" or .name == "s65600" or .name == "s4463" or
	       .name == "s64" or .index == 0)] | sort_by(.index) |
	[.[4], .[3], .[1], .[2], .[0]] | map(.packets) | @tsv')
expect_eq "packets of class index 69999 (IPv4 table)" "$p4" 20
expect_eq "packets of class index 65600 (IPv6 table)" "$p6" 30
expect_eq "packets of class index 4463" "$l4" 0
expect_eq "packets of class index 64" "$l6" 0
expect_eq "packets of the default class" "$d" 0
"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" || fail "$(cat "$WORK/check")"
log "class indexes 65600 and 69999 of 70000 classes: counted where routed"
