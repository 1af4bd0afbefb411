#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Real UDP to v4 and v6 destinations of three classes: HTB's per-class
# counters, the classifier's counters and the receiver all agree with the
# number sent.  Classified destinations count exactly; only the default
# class may hold a few extra packets (IPv6 MLD/ND noise).
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

N=100
setup_pair
setup_htb
add_classes
add_routes
cls attach dev "$VS"
rcv_nft_init
for a in $WEB4 $WEB6 $BULK4 $BULK6 $DFLT4 $DFLT6; do
	rcv_rule_dst "$a"
done

snapshot
for a in $WEB4 $WEB6 $BULK4 $BULK6 $DFLT4 $DFLT6; do
	send "$a" $N
done

expect_eq "classifier web" "$(cls_delta 1:10)" $((2 * N))
expect_eq "classifier bulk" "$(cls_delta 1:20)" $((2 * N))
expect_eq "classifier blackhole" "$(cls_delta 1:40)" 0
expect_eq "HTB 1:10" "$(htb_delta 1:10)" $((2 * N))
expect_eq "HTB 1:20" "$(htb_delta 1:20)" $((2 * N))
expect_eq "HTB 1:40" "$(htb_delta 1:40)" 0
dflt=$(cls_delta default)
expect_ge "classifier default" "$dflt" $((2 * N))
[ "$dflt" -le $((2 * N + 20)) ] ||
	fail "classifier default: $dflt, more noise than expected over $((2 * N))"
# Every packet the classifier put in default carries priority 1:30.
expect_eq "HTB 1:30 (= classifier default)" "$(htb_delta 1:30)" "$dflt"
# What HTB files under its own default is what the classifier left alone.
expect_eq "HTB 1:99 (= classifier unclassified)" "$(htb_delta 1:99)" \
	"$(cls_delta unclassified)"
for a in $WEB4 $WEB6 $BULK4 $BULK6 $DFLT4 $DFLT6; do
	expect_eq "received at $a" "$(rcv_count_dst "$a")" $N
done
# The per-class JSON matches the table a person reads.
cls stats | grep -Eq "^1:10 +web +$((2 * N)) " ||
	fail "stats table does not show web with $((2 * N)) packets"
