#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A drop class drops at tc egress: the receiver gets nothing, the
# classifier counts every packet, HTB never sees them.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

N=50
setup_pair
setup_htb
add_classes
add_routes
cls attach dev "$VS"
rcv_nft_init
for a in $DROP4 $DROP6 $WEB4; do
	rcv_rule_dst "$a"
done

snapshot
send "$DROP4" $N
send "$DROP6" $N
send "$WEB4" $N

expect_eq "classifier blackhole" "$(cls_delta blackhole)" $((2 * N))
expect_eq "HTB 1:40 (blackhole's classid)" "$(htb_delta 1:40)" 0
expect_eq "received at $DROP4" "$(rcv_count_dst "$DROP4")" 0
expect_eq "received at $DROP6" "$(rcv_count_dst "$DROP6")" 0
# the drop is per class, not per interface
expect_eq "classifier web" "$(cls_delta web)" $N
expect_eq "received at $WEB4" "$(rcv_count_dst "$WEB4")" $N
# nothing dropped was misfiled in HTB: the classes no noise can reach
# hold exactly the web packets
total=0
for c in 1:10 1:20 1:40 1:50; do
	total=$((total + $(htb_delta "$c")))
done
expect_eq "HTB 1:10+1:20+1:40+1:50" "$total" $N
