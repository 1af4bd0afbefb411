#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# DSCP rewrite end to end: the receiver's nftables sees the class's DSCP
# on v4 and v6, with the sender's ECN bits kept and (v4) a checksum the
# receiver accepts; classes without dscp leave the field alone.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

N=40
setup_pair
setup_htb
add_classes
add_routes
cls attach dev "$VS"
rcv_nft_init
rcv_rule_dst "$WEB4" ip dscp ef ip ecn ect1
rcv_rule_dst "$WEB6" ip6 dscp ef ip6 ecn ect1
rcv_rule_dst "$WEB4"
rcv_rule_dst "$WEB6"
rcv_rule_dst "$BULK4" ip dscp cs1 ip ecn not-ect
rcv_rule_dst "$BULK6" ip6 dscp cs1 ip6 ecn not-ect
rcv_rule_dst "$DFLT4" ip dscp af21 ip ecn ect0
rcv_rule_dst "$DFLT6" ip6 dscp af21 ip6 ecn ect0

# TOS 0x01: DSCP 0, ECT(1); web must become EF with ECT(1) kept.
send "$WEB4" $N -t 0x01
send "$WEB6" $N -t 0x01
# TOS 0xb8 (EF): bulk rewrites it to CS1.
send "$BULK4" $N -t 0xb8
send "$BULK6" $N -t 0xb8
# The default class sets no DSCP: AF21 + ECT(0) arrive unchanged.
send "$DFLT4" $N -t 0x4a
send "$DFLT6" $N -t 0x4a

expect_eq "received at $WEB4 (any)" "$(rcv_count_dst "$WEB4")" $N
expect_eq "received at $WEB6 (any)" "$(rcv_count_dst "$WEB6")" $N
expect_eq "$WEB4 with dscp ef, ect1" "$(rcv_count_dst "$WEB4" ip dscp ef ip ecn ect1)" $N
expect_eq "$WEB6 with dscp ef, ect1" "$(rcv_count_dst "$WEB6" ip6 dscp ef ip6 ecn ect1)" $N
expect_eq "$BULK4 with dscp cs1" "$(rcv_count_dst "$BULK4" ip dscp cs1 ip ecn not-ect)" $N
expect_eq "$BULK6 with dscp cs1" "$(rcv_count_dst "$BULK6" ip6 dscp cs1 ip6 ecn not-ect)" $N
expect_eq "$DFLT4 unchanged (af21)" "$(rcv_count_dst "$DFLT4" ip dscp af21 ip ecn ect0)" $N
expect_eq "$DFLT6 unchanged (af21)" "$(rcv_count_dst "$DFLT6" ip6 dscp af21 ip6 ecn ect0)" $N
