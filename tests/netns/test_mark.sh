#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# skb->mark end to end.  The mark cannot be seen past the veth (crossing
# namespaces scrubs it) and is set after netfilter's postrouting, so a tc
# fw filter on the HTB root reads it: a class whose priority does not
# name an HTB class (major 2:, HTB is 1:) falls through to the filters,
# and a filter on the mark sends mark 0x50 to HTB class 1:50.  The filter
# is classic BPF in cls_bpf (ld mark; jeq 0x50), which every kernel that
# runs classifier has; cls_fw and u32's "match mark" are often not built
# (u32 then accepts "match mark" and ignores it).
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

N=60
setup_pair
setup_htb
# ld [SKF_AD_OFF + SKF_AD_MARK]; jeq #0x50 ? ret -1 (flowid) : ret 0
tc -n "$NS_S" filter add dev "$VS" parent 1: protocol all prio 1 bpf \
	bytecode '4,32 0 0 4294963220,21 0 1 80,6 0 0 4294967295,6 0 0 0' \
	flowid 1:50
cls class set default classid 1:30
cls class add 2:50 name marked mark 0x50
cls class add 2:51 name othermark mark 0x51
cls class add 1:20 name bulk mark 0x50
cls route add 198.51.100.0/24 class marked
cls route add 2001:db8:10::/48 class marked
cls route add 203.0.113.0/24 class othermark
cls route add 2001:db8:20::/48 class bulk
cls attach dev "$VS"

snapshot
send "$WEB4" $N
send "$WEB6" $N
send "$BULK4" $N
send "$BULK6" $N

expect_eq "classifier marked" "$(cls_delta marked)" $((2 * N))
expect_eq "classifier othermark" "$(cls_delta othermark)" $N
expect_eq "HTB 1:50 (mark 0x50)" "$(htb_delta 1:50)" $((2 * N))
# mark 0x51 matches no filter: HTB's default
expect_eq "HTB 1:99 (mark 0x51)" "$(htb_delta 1:99)" $N
# a priority naming an HTB class wins over the mark filter
expect_eq "HTB 1:20 (priority 1:20, mark 0x50)" "$(htb_delta 1:20)" $N
# without the classifier the fw filter sees no mark
cls detach dev "$VS"
snapshot
send "$WEB4" $N
expect_eq "HTB 1:50 after detach" "$(htb_delta 1:50)" 0
expect_eq "HTB 1:99 after detach" "$(htb_delta 1:99)" $N
