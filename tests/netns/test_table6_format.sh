#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The format config gives each slot's IPv6 table.  First one this build
# does not know, as a newer build would leave it: config says format 9
# for the live slot.  Under a UDP stream to a web prefix:
#  - every packet still lands in web (here the table and the trie agree:
#    that programs skip such a table is tests/prog's
#    v6table_other_format_uses_trie);
#  - status, table and lookup still work and say so;
#  - a route change takes the table out of its slot, says so, and its
#    upkeep builds a table in this build's format, which then agrees
#    with the trie and carries the change.
# Then the oldest format this build reads (1): it reads it, and a change
# marks the table with its own format before it writes it.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

# config: stats_on, layout, gen (u32 each), then table6_format[2]
config_format()
{
	local hex
	hex=$(bpftool -j map lookup pinned "$PINS/config" key 0 0 0 0 |
		jq -r '.value | join(" ")')
	# shellcheck disable=SC2086
	set -- $hex
	if [ $(($9 & 1)) -eq 0 ]; then echo $((${13})); else echo $((${14})); fi
}

config_set_format()
{
	local hex gen
	hex=$(bpftool -j map lookup pinned "$PINS/config" key 0 0 0 0 |
		jq -r '.value | join(" ")')
	# shellcheck disable=SC2086
	set -- $hex "$1"
	gen=$(($9 & 1))
	if [ $gen -eq 0 ]; then
		bpftool map update pinned "$PINS/config" key 0 0 0 0 value \
			"${@:1:12}" "${17}" "${14}" "${15}" "${16}"
	else
		bpftool map update pinned "$PINS/config" key 0 0 0 0 value \
			"${@:1:13}" "${17}" "${15}" "${16}"
	fi
}

setup_pair
setup_htb
add_classes
PINS=$BPFFS/classifier/maps
awk 'BEGIN {
	for (i = 0; i < 2000; i++)
		printf "2001:db8:%x:%x::/64 bulk\n", 100 + int(i / 256), i % 256
	print "2001:db8:10::/48 web"
}' > "$WORK/routes"
cls route load "$WORK/routes"
cls attach dev "$VS"
cls -j table | jq -e '.ipv6.on' > /dev/null || fail "no IPv6 table to start from"

config_set_format 9
cls status > "$WORK/status" || fail "status with a table of format 9"
grep -q "ipv6 in format 9, which this build cannot read" "$WORK/status" ||
	fail "status: $(grep tables "$WORK/status")"
expect_eq "table -j: foreign format" "$(cls -j table | jq .ipv6.foreign_format)" 9
cls lookup "$WEB6" | grep -q "class 1:10 name web" ||
	fail "lookup $WEB6: $(cls lookup "$WEB6")"

rcv_nft_init
streams_start 2000 300 "$WEB6"
sleep 0.2
cls route add 2001:db8:20::/48 class web 2> "$WORK/msg" ||
	fail "route add with a table of format 9: $(cat "$WORK/msg")"
grep -q "took out an IPv6 table in format 9" "$WORK/msg" ||
	fail "route add said: $(cat "$WORK/msg")"
streams_check "across a table of an unknown format and its replacement"

cls -j table | jq -e '.ipv6.on and .ipv6.foreign_format == 0' > /dev/null ||
	fail "no table of this build's format after the change: $(cls -j table)"
for a in "$WEB6" 2001:db8:20::1 2001:db8:64:1::1; do
	cls lookup "$a" | grep -q "(ipv6 table agrees)" ||
		fail "lookup $a: $(cls lookup "$a")"
done
"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" || fail "$(cat "$WORK/check")"

# The oldest format this build reads
config_set_format 1
cls lookup "$WEB6" | grep -q "(ipv6 table agrees)" ||
	fail "lookup $WEB6 in a table of format 1: $(cls lookup "$WEB6")"
expect_eq "format, as table says" "$(cls -j table | jq .ipv6.format)" 1
cls route add 2001:db8:30::/48 class web
now=$(config_format)
[ "$now" -gt 1 ] || fail "format after a change: $now"
expect_eq "format after a change, as table says" "$(cls -j table | jq .ipv6.format)" "$now"
for a in "$WEB6" 2001:db8:30::1; do
	cls lookup "$a" | grep -q "(ipv6 table agrees)" ||
		fail "lookup $a: $(cls lookup "$a")"
done
"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" || fail "$(cat "$WORK/check")"

# From 500k IPv6 routes the table has a 24-bit first level (format 3),
# under a stream to web; back below 250k, a 16-bit one again.
awk 'BEGIN {
	for (i = 0; i < 500000; i++)
		printf "2001:%x:%x::/48 bulk\n", 4096 + int(i / 65536), i % 65536
	print "2001:db8:10::/48 web"
}' > "$WORK/big"
streams_start 3000 300 "$WEB6"
sleep 0.2
cls route load "$WORK/big"
streams_check "across a load that widens the first level"
expect_eq "format with 500k routes" "$(cls -j table | jq .ipv6.format)" 3
cls table | grep -q "^ipv6 .*, format 3$" || fail "table: $(cls table | grep ipv6)"
for a in "$WEB6" 2001:1003:1234::1 2001:1007:a11f::1 2001:1008::1; do
	cls lookup "$a" | grep -q "(ipv6 table agrees)" ||
		fail "lookup $a: $(cls lookup "$a")"
done
"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" || fail "$(cat "$WORK/check")"
cls route load "$WORK/routes"
expect_eq "format with 2001 routes" "$(cls -j table | jq .ipv6.format)" 2
