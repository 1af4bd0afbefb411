#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 1000 changes to shaping classes under a UDP stream: the stream's class
# changes its rate and moves between the queues of a 4-queue veth (a new
# HTB class each time, the old one deleted after), and other classes are
# added with rates and deleted, all in one -batch while the stream runs.
# Every datagram sent arrives (none dropped for want of an HTB class) and
# none goes through a default class (the HTB class was there before the
# class pointed at it, and went after).
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

VETH_QUEUES=4
setup_pair
cls attach dev "$VS"
cls shape dev "$VS" queues all
cls class add 1:10 name web rate 400mbit queue 0
cls route add 198.51.100.0/24 class web
rcv_nft_init
rcv_rule web ip daddr "$WEB4"

# 1000 changes: web's rate and queue, and classes added and deleted
awk 'BEGIN {
	for (i = 0; i < 250; i++) {
		printf "class set web rate %dmbit queue %d\n", 300 + i % 200, (i + 1) % 4
		printf "class add 1:%x name tmp%d rate %dmbit\n", 256 + i, i, 1 + i % 50
		printf "class set tmp%d rate %dmbit ceil %dmbit\n", i, 2 + i % 50, 60 + i % 50
		printf "class del tmp%d\n", i
	}
}' > "$WORK/churn"
[ "$(wc -l < "$WORK/churn")" = 1000 ] || fail "the batch is not 1000 changes"

d0=$(htb_default_pkts)
ip netns exec "$NS_S" "$UDPSEND" -i 100 -c 120000 "$WEB4" "$PORT" \
	> "$WORK/sent" &
stream=$!
track_pid $stream
sleep 0.3
t0=$(date +%s%N)
cls -batch "$WORK/churn" 2> >(grep -v "XPS cannot be read here" >&2)
t1=$(date +%s%N)
kill -0 $stream 2>/dev/null || fail "the stream ended before the changes did"
wait $stream || fail "udpsend failed"
sent=$(cat "$WORK/sent")
sleep 0.3
expect_eq "datagrams that arrived" "$(rcv_count web)" "$sent"
expect_eq "packets through a default class" $(($(htb_default_pkts) - d0)) 0
# the last change put it in queue (249 + 1) % 4
expect_eq "web's queue at the end" \
	"$(cls -j class list | jq '.[] | select(.name == "web") | .shape.queue')" 2
tc -n "$NS_S" class show dev "$VS" | grep -q "htb 3:10 parent 3:1" ||
	fail "web's HTB class is not 3:10 at the end"
[ "$(tc -n "$NS_S" class show dev "$VS" | grep -c '^class htb [1-4]:10 ')" = 1 ] ||
	fail "old HTB classes of web left: $(tc -n "$NS_S" class show dev "$VS" | grep ':10 ')"
tc -n "$NS_S" class show dev "$VS" | grep -q ":1[0-9a-f][0-9a-f] " &&
	fail "a deleted class's HTB class is left"
log "1000 changes in $(( (t1 - t0) / 1000000 )) ms under a stream of $sent datagrams"
