#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# class load: the whole class set from a file as `class list` prints it.
# What list prints loads back unchanged; a classid that stays keeps its
# index, its routes and its counters, and packets get its new settings
# (HTB class by priority); a class that goes must have no routes (refused
# with the count and an example, nothing changed); duplicate classids
# and names are refused by line; standard input works.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

setup_pair
setup_htb
add_classes
cls class add 1:50 name spare
add_routes
cls attach dev "$VS"

index_of()
{
	cls -j class list | jq -r --arg c "$1" '.[] | select(.class == $c) | .index'
}

# Round trip: what list prints is what load reads.
cls class list > "$WORK/list"
idx_web=$(index_of 1:10)
cls class load "$WORK/list"
cls class list > "$WORK/again"
cmp -s "$WORK/list" "$WORK/again" ||
	fail "list, load, list differ: $(diff "$WORK/list" "$WORK/again" | tr '\n' '|')"
expect_eq "web's index after loading the list" "$(index_of 1:10)" "$idx_web"

send "$WEB4" 20
before=$(stat_pkts web)
expect_ge "web's packets before the load" "$before" 20

# A new set: web's DSCP changed, bulk gone, a new class.
# bulk has routes: refused, one line, nothing changed.
grep -v " name bulk" "$WORK/list" | sed 's/ name web dscp 46$/ name web dscp 10/' \
	> "$WORK/new"
echo "class 1:60 name video dscp 10" >> "$WORK/new"
rc=0
cls class load "$WORK/new" 2> "$WORK/err" || rc=$?
[ "$rc" -ne 0 ] || fail "a class with routes went"
[ "$(wc -l < "$WORK/err")" -eq 1 ] || fail "more than one line: $(cat "$WORK/err")"
grep -Eq "^classifier: class load: .*/new: 2 route\(s\) use classes it does not have \((203\.0\.113\.0/24|2001:db8:20::/48) class 1:20, for one\); load routes without them first$" \
	"$WORK/err" || fail "refusal said: $(cat "$WORK/err")"
cls class list > "$WORK/after_refusal"
cmp -s "$WORK/list" "$WORK/after_refusal" || fail "a refused load changed classes"

# Without bulk's routes the load goes through.
cls route del 203.0.113.0/24
cls route del 2001:db8:20::/48
cls class load "$WORK/new"
# list goes by index: video took bulk's
sort "$WORK/new" > "$WORK/new_sorted"
cls class list | sort > "$WORK/got"
cmp -s "$WORK/new_sorted" "$WORK/got" ||
	fail "the set is not the file's: $(diff "$WORK/new_sorted" "$WORK/got" | tr '\n' '|')"
expect_eq "web's index after the load" "$(index_of 1:10)" "$idx_web"
expect_eq "web's packets after the load" "$(stat_pkts web)" "$before"
cls route list | grep -qx "198.51.100.0/24 1:10" ||
	fail "web's routes went: $(cls route list | tr '\n' '|')"

# Packets meet web's new settings: still HTB 1:10, now DSCP 10.
rcv_nft_init
rcv_rule dscp10 ip dscp 10
h0=$(htb_pkts 1:10)
send "$WEB4" 30
expect_eq "web's packets in HTB 1:10" $(($(htb_pkts 1:10) - h0)) 30
expect_eq "web's packets received with DSCP 10" "$(rcv_count dscp10)" 30
expect_eq "web's packets after the load and 30 more" "$(stat_pkts web)" $((before + 30))

# Duplicates are refused by line, from standard input too.
printf 'class 1:10 name one\nclass 1:11 name two\n\nclass 1:10 name three\n' |
	cls class load - 2> "$WORK/err" && fail "a duplicate classid loaded"
grep -qx "classifier: class load: -:4: class 1:10: its classid is also on line 1" \
	"$WORK/err" || fail "duplicate classid: $(cat "$WORK/err")"
printf 'class 1:10 name one\nclass 1:11 name one\n' |
	cls class load - 2> "$WORK/err" && fail "a duplicate name loaded"
grep -qx "classifier: class load: -:2: class 1:11: its name is also on line 1" \
	"$WORK/err" || fail "duplicate name: $(cat "$WORK/err")"
printf '# nothing\n' | cls class load - 2> "$WORK/err" && fail "an empty set loaded"
grep -qx "classifier: class load: -: no classes in it" "$WORK/err" ||
	fail "empty: $(cat "$WORK/err")"
cls class list | sort > "$WORK/got"
cmp -s "$WORK/new_sorted" "$WORK/got" || fail "a refused load changed classes"

# Standard input, in a batch with a route change.
printf 'class load -\nroute replace 192.0.2.0/24 class video\n' > "$WORK/batch"
{ cat "$WORK/new"; echo "class 1:70 name extra"; } |
	cls -batch "$WORK/batch"
cls class list | grep -qx "class 1:70 name extra" || fail "stdin in a batch did not load"
cls route list | grep -qx "192.0.2.0/24 1:60" || fail "the batch's route is missing"
log "class load: round trip, kept indexes and counters, refusals, stdin"
