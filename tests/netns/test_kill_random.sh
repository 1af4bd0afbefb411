#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kill -9 at random moments of whole-table changes under real traffic:
# 20 trials of `route load` (100k IPv4 + 10k IPv6 routes, two files that
# put the streams' destinations in web or bulk) and table on/off/auto,
# each killed after a random delay, then a plain command.  Every state
# after that is whole (check_state), every route list is one of the two
# files, and no packet of the UDP streams, which run throughout, was left
# to the default class: a packet sees the old table or the new one.  The
# receiver counts by DSCP (web: EF, bulk: CS1, default: unchanged, 0);
# the classifier's own counters also count check_state's test runs.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

[ -x "${CHECK_STATE:-}" ] || fail "no check_state (make netns builds it)"
N=6000
setup_pair
setup_htb
add_classes
# The streams go to $WEB4 and $WEB6; both files cover them, each with
# another class, among 100k other routes.
for cls in web bulk; do
	awk -v c=$cls 'BEGIN {
		for (i = 0; i < 100000; i++)
			printf "10.%d.%d.0/24 %s\n", int(i / 256) % 256, i % 256, c
		printf "198.51.100.0/24 %s\n", c
		for (i = 0; i < 10000; i++)
			printf "2001:db8:%x:%x::/64 %s\n", 100 + int(i / 256), i % 256, c
		printf "2001:db8:10::/48 %s\n", c
	}' > "$WORK/to_$cls"
done
cls route load "$WORK/to_web"
cls attach dev "$VS"
cls route list > "$WORK/list_web"
cls route load "$WORK/to_bulk"
cls route list > "$WORK/list_bulk"

rcv_nft_init
streams_start $N 300 "$WEB4" "$WEB6"

cmds=("route load $WORK/to_web" "route load $WORK/to_bulk"
	"table off" "table on" "table auto")
for trial in $(seq 1 20); do
	cmd=${cmds[$((RANDOM % ${#cmds[@]}))]}
	# Not through cls(): $! must be the classifier, not a subshell.
	# shellcheck disable=SC2086
	nsenter --net="/run/netns/$NS_S" "$CLASSIFIER" --bpffs "$BPFFS" $cmd \
		> /dev/null 2>&1 &
	pid=$!
	sleep "0.$(printf '%03d' $((RANDOM % 700)))"
	kill -9 $pid 2>/dev/null || :
	wait $pid 2>/dev/null || :
	cls status > /dev/null 2> "$WORK/notice" ||
		fail "trial $trial ($cmd): status failed: $(cat "$WORK/notice")"
	"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" ||
		fail "trial $trial ($cmd): $(cat "$WORK/check")"
	cls route list > "$WORK/got"
	cmp -s "$WORK/got" "$WORK/list_web" || cmp -s "$WORK/got" "$WORK/list_bulk" ||
		fail "trial $trial ($cmd): routes are neither file"
	log "trial $trial: $cmd: $(head -c 60 "$WORK/notice" | tr '\n' ' ')"
done
streams_check "across the kills"
