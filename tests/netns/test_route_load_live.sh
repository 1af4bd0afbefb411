#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# "route load" swaps the whole table under traffic: two streams (v4, v6)
# run while the routes are reloaded back and forth between a file mapping
# their prefixes to web (1:10) and one mapping them to bulk (1:20).  Every
# packet lands in one of the two classes, both got some, HTB agrees, and
# the receiver got every packet sent.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

N=4000
setup_pair
setup_htb
add_classes
cat > "$WORK/to_web" <<-ROUTES
	# v4 and v6 web prefixes to web
	198.51.100.0/24 web
	2001:db8:10::/48 1:10
	192.0.2.0/24 blackhole
ROUTES
cat > "$WORK/to_bulk" <<-ROUTES
	198.51.100.0/24 bulk
	2001:db8:10::/48 1:20
	192.0.2.0/24 blackhole
	10.201.0.0/24 bulk
ROUTES
cls route load "$WORK/to_web"
cls attach dev "$VS"
rcv_nft_init
rcv_rule_dst "$WEB4"
rcv_rule_dst "$WEB6"

snapshot
in_snd "$UDPSEND" -i 500 -c $N "$WEB4" "$PORT" > "$WORK/sent4" &
pid4=$!
in_snd "$UDPSEND" -i 500 -c $N "$WEB6" "$PORT" > "$WORK/sent6" &
pid6=$!
sleep 0.2
loads=0
for f in to_bulk to_web to_bulk to_web to_bulk; do
	cls route load "$WORK/$f"
	loads=$((loads + 1))
	# the swaps must happen while both streams still run
	if [ $loads -eq 1 ] && ! { kill -0 $pid4 && kill -0 $pid6; } 2>/dev/null; then
		fail "senders finished before the first reload; slow them down"
	fi
	sleep 0.1
done
running=no
kill -0 $pid4 2>/dev/null && running=yes
wait $pid4 || fail "v4 sender failed: $(cat "$WORK/sent4")"
wait $pid6 || fail "v6 sender failed: $(cat "$WORK/sent6")"
log "$loads reloads; v4 sender still running after the last: $running"
expect_eq "v4 sent" "$(cat "$WORK/sent4")" $N
expect_eq "v6 sent" "$(cat "$WORK/sent6")" $N

web=$(cls_delta web)
bulk=$(cls_delta bulk)
log "classifier web $web, bulk $bulk"
expect_eq "classifier web + bulk" $((web + bulk)) $((2 * N))
[ "$web" -gt 0 ] && [ "$bulk" -gt 0 ] && moved=yes
[ "${moved:-}" = yes ] ||
	fail "counts did not move between classes (web $web, bulk $bulk)"
expect_eq "HTB 1:10" "$(htb_delta 1:10)" "$web"
expect_eq "HTB 1:20" "$(htb_delta 1:20)" "$bulk"
# none of ours fell through to default (it may hold IPv6 noise)
expect_eq "HTB 1:30 (= classifier default)" "$(htb_delta 1:30)" \
	"$(cls_delta default)"
expect_eq "received at $WEB4" "$(rcv_count_dst "$WEB4")" $N
expect_eq "received at $WEB6" "$(rcv_count_dst "$WEB6")" $N

# the last table loaded is the one in force, and lists back as loaded
grep -v '^#' "$WORK/to_bulk" | sed 's/ bulk$/ 1:20/; s/ blackhole$/ 1:40/' |
	sort > "$WORK/want"
cls route list | sort > "$WORK/got"
diff -u "$WORK/want" "$WORK/got" >&2 || fail "route list differs from to_bulk"
snapshot
send "$WEB4" 10
send "$WEB6" 10
expect_eq "bulk after the last load" "$(cls_delta bulk)" 20
