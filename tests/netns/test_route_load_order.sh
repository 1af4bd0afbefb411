#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# route load takes files in any order: 100k IPv4 and 20k IPv6 routes,
# shuffled, give the same table as the same file sorted, route list prints
# exactly the file's routes, and the IPv4 table agrees with the trie on
# addresses inside the loaded prefixes.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

setup_ns
add_classes
# the table whatever the set's size, so every load below paints it
cls table on
# /24s with /26s and /32s inside some of them, and v6 /48s: overlapping.
awk 'BEGIN {
	for (i = 0; i < 100000; i++) {
		a = 10 + int(i / 65536); b = int(i / 256) % 256; c = i % 256
		if (i % 10 == 3)      printf "%d.%d.%d.64/26 bulk\n", a, b, c
		else if (i % 10 == 7) printf "%d.%d.%d.9/32 1:10\n", a, b, c
		else                  printf "%d.%d.%d.0/24 web\n", a, b, c
	}
	for (i = 0; i < 20000; i++)
		printf "2001:db8:%x:%x::/64 %s\n", int(i / 256) + 1, i % 256 + 1, (i % 2 ? "web" : "bulk")
}' > "$WORK/routes"
shuf "$WORK/routes" > "$WORK/shuffled"

cls route load "$WORK/shuffled"
cls route list > "$WORK/listed"
expect_eq "routes listed after a shuffled load" "$(wc -l < "$WORK/listed")" 120000
# route list names classes by classid: compare prefixes and class ids.
sed -e 's/ web$/ 1:10/' -e 's/ bulk$/ 1:20/' "$WORK/routes" | sort > "$WORK/want"
sort "$WORK/listed" > "$WORK/got"
diff -q "$WORK/want" "$WORK/got" >/dev/null || fail "route list differs from the file loaded"

for a in 10.0.0.1 10.0.3.70 10.0.7.9 10.1.134.200 10.1.134.9 11.0.0.1; do
	out=$(cls lookup "$a") || fail "lookup $a: $out"
	case "$out" in
	*"table agrees"* | *"no route"*) ;;
	*) fail "lookup $a: $out" ;;
	esac
done

cls route load "$WORK/routes"
cls route list | sort > "$WORK/got_sorted"
diff -q "$WORK/got" "$WORK/got_sorted" >/dev/null || fail "sorted and shuffled loads differ"

# A prefix given twice: the later line wins, in the trie and in the table,
# whether the file is in order or not.
{ echo "10.0.0.0/24 1:20"; cat "$WORK/routes"; } > "$WORK/dup_unordered"
{ echo "10.0.0.0/24 1:20"; echo "10.0.0.0/24 1:10"; } > "$WORK/dup_ordered"
for f in dup_unordered dup_ordered; do
	cls route load "$WORK/$f"
	want=1:10
	out=$(cls lookup 10.0.0.1) || fail "$f: lookup: $out"
	case "$out" in
	*"class $want "*"(ipv4 table agrees)") ;;
	*) fail "$f: lookup 10.0.0.1: $out (want class $want)" ;;
	esac
	expect_eq "$f: 10.0.0.0/24 listed once" \
		"$(cls route list v4 | grep -c '^10\.0\.0\.0/24 ')" 1
done
