#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# XPS picks the TX queue before the kernel reads the one tc egress wrote:
# with a class's queue, classifier refuses it in one line naming the
# setting, at attach and at a class change, changing nothing; with XPS
# off again the same commands work and the packets land in the queue.
# And what XPS set behind classifier's back does (measured): the queue
# XPS names wins.  sysfs shows the namespace of its mounter, so the
# commands run under `ip netns exec`, which mounts the namespace's own.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

N=40
VETH_QUEUES=4
setup_pair
setup_mq "$NS_S" "$VS" 10

# clsx ARGS: classifier where sysfs is the sender namespace's
clsx()
{
	ip netns exec "$NS_S" "$CLASSIFIER" --bpffs "$BPFFS" "$@"
}
xps()
{
	ip netns exec "$NS_S" sh -c "echo $2 > /sys/class/net/$VS/queues/tx-$1/$3"
}

clsx class add 3:10 name q2 queue 2
clsx route add "${WEB4%.*}.0/24" class q2

# refused at attach: one line naming the setting; nothing attached
xps 1 2 xps_cpus
if out=$(clsx attach dev "$VS" 2>&1); then
	fail "attach with XPS on and a class with a queue succeeded"
fi
[ "$(echo "$out" | wc -l)" = 1 ] || fail "attach: not one line: $out"
echo "$out" | grep -q "XPS is on (xps_cpus of tx-1 is 0*2)" ||
	fail "attach: does not name the setting: $out"
[ "$(clsx -j status | jq '.attached | length')" = 0 ] ||
	fail "a refused attach left an attachment"
log "refused: $out"

# xps_rxqs too
xps 1 0 xps_cpus
xps 3 1 xps_rxqs
out=$(clsx attach dev "$VS" 2>&1) && fail "attach with xps_rxqs on succeeded"
echo "$out" | grep -q "xps_rxqs of tx-3" || fail "attach: $out"

# off again: attach works, the class's packets land in queue 2's class
xps 3 0 xps_rxqs
clsx attach dev "$VS"
b=$(htb_pkts 3:10)
send "$WEB4" $N
expect_eq "HTB 3:10 with XPS off" $(($(htb_pkts 3:10) - b)) $N

# refused at a class change that gives a queue while attached here
xps 0 1 xps_cpus
before=$(clsx class list)
out=$(clsx class add 4:10 name q3 queue 3 2>&1) &&
	fail "class add with a queue and XPS on succeeded"
echo "$out" | grep -q "XPS is on (xps_cpus of tx-0" || fail "class add: $out"
out=$(clsx class set q2 queue 1 2>&1) &&
	fail "class set of a queue with XPS on succeeded"
expect_eq "classes after the refusals" "$(clsx class list)" "$before"
# a class without a queue is no business of XPS
clsx class add 4:11 name noq mark 7

# XPS set behind classifier's back wins: queue 0's HTB (1:) gets the
# packets, in its default class (their priority names 3:10)
b=$(htb_pkts 3:10)
b1=$(htb_pkts 1:2)
ip netns exec "$NS_S" taskset -c 0 "$UDPSEND" -i 50 -c $N "$WEB4" "$PORT" >/dev/null
expect_eq "HTB 3:10 with XPS on CPU 0 -> tx-0" $(($(htb_pkts 3:10) - b)) 0
expect_ge "HTB 1:2 (tx-0's default)" $(($(htb_pkts 1:2) - b1)) $N

# wrap is said, not refused
xps 0 0 xps_cpus
out=$(clsx class set q2 queue 6 2>&1) || fail "class set queue 6: $out"
echo "$out" | grep -q "queue 6 wraps to queue 2 on $VS, which has 4 TX queues" ||
	fail "wrap not said: $out"
