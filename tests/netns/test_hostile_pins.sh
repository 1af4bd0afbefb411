#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Pins are checked before they are used: a pin replaced by a map of
# another shape or another program, a pin directory another user made or
# anyone may write, a layout version that is newer or garbled, an empty
# --bpffs.  Each is one clear line naming the problem, a non-zero exit, no
# crash, and nothing written (the other maps are unchanged).
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

setup_ns
add_classes
cls route add 10.0.0.0/8 class web
PINS=$BPFFS/classifier/maps

# refused CMD...: one line, "classifier: ", non-zero, and no crash.
refused()
{
	local rc=0
	cls "$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
	[ "$rc" -eq 1 ] || fail "'$*' exited $rc (want 1): $(cat "$WORK/err")"
	[ "$(wc -l < "$WORK/err")" -eq 1 ] ||
		fail "'$*': not one line: $(tr '\n' '|' < "$WORK/err")"
	grep -q '^classifier: ' "$WORK/err" || fail "'$*': $(cat "$WORK/err")"
	log "$* -> $(cat "$WORK/err")"
}

# swap_pin NAME TYPE KEY VALUE ENTRIES [NAME_OF_MAP]: pin another map there.
swap_pin()
{
	mv "$PINS/$1" "$BPFFS/saved_$1"
	bpftool map create "$PINS/$1" type "$2" key "$3" value "$4" \
		entries "$5" name "${6:-$1}"
}

restore_pin()
{
	rm -f "$PINS/$1"
	mv "$BPFFS/saved_$1" "$PINS/$1"
}

# config with another value size: every command refuses, none crashes.
swap_pin config array 4 24 1
for c in status stats table "route list" "route add 10.1.0.0/16 class web" \
	"route load /dev/null" "lookup 10.1.2.3"; do
	# shellcheck disable=SC2086
	refused $c
	grep -q "config is not classifier's map" "$WORK/err" ||
		[ "$c" = "route load /dev/null" ] ||
		fail "$c: does not name the pin: $(cat "$WORK/err")"
done
restore_pin config

# Another program's array where a trie's slots should be: refused, and the
# foreign map is not written.
swap_pin trie_v4 array 4 4 2 trie_v4
refused route add 10.2.0.0/16 class web
grep -q "trie_v4 is not classifier's map" "$WORK/err" ||
	fail "trie_v4: $(cat "$WORK/err")"
[ "$(bpftool -j map dump pinned "$PINS/trie_v4" | jq '[.[].value[] | select(. != "0x00")] | length')" -eq 0 ] ||
	fail "the foreign map was written"
restore_pin trie_v4

# The same shape but another name: not ours either.
swap_pin classes array 4 12 4096 other_app
refused class list
grep -q "classes is not classifier's map" "$WORK/err" ||
	fail "renamed classes: $(cat "$WORK/err")"
restore_pin classes

# Layout versions: newer than this classifier, and a garbled word.
state_set_layout()
{
	local v=$1 hex
	hex=$(bpftool -j map lookup pinned "$PINS/state" key 0 0 0 0 |
		jq -r '.value | join(" ")')
	# bytes 4-7: the layout version, little endian
	# shellcheck disable=SC2086
	set -- $hex
	bpftool map update pinned "$PINS/state" key 0 0 0 0 value \
		"$1" "$2" "$3" "$4" "$v" 0 0 0 "${@:9}"
}
LAYOUT=$(cls_layout)
cls route list > "$WORK/before"
state_set_layout 9
refused route add 10.3.0.0/16 class web
grep -q "newer than this classifier" "$WORK/err" || fail "newer: $(cat "$WORK/err")"
refused status
state_set_layout "$LAYOUT"
cls route list > "$WORK/after"
cmp -s "$WORK/before" "$WORK/after" || fail "a refused command changed routes"
# config says this layout, state says 3 (which had no state map): refused
state_set_layout 3
refused route add 10.3.0.0/16 class web
grep -q "layout version unreadable" "$WORK/err" || fail "garbled: $(cat "$WORK/err")"
state_set_layout "$LAYOUT"
cls route list > /dev/null || fail "state not restored"

# A pin directory someone else can write, or owns.
chmod 0777 "$BPFFS/classifier"
refused route add 10.4.0.0/16 class web
grep -q "writable by others" "$WORK/err" || fail "mode: $(cat "$WORK/err")"
chmod 0700 "$BPFFS/classifier"
chown 1234 "$BPFFS/classifier"
refused route list
grep -q "belongs to uid 1234" "$WORK/err" || fail "owner: $(cat "$WORK/err")"
refused purge
chown 0 "$BPFFS/classifier"

# --bpffs "" is a mistake, not the default.
rc=0
nsenter --net="/run/netns/$NS_S" "$CLASSIFIER" --bpffs "" status \
	2> "$WORK/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "empty path" "$WORK/err" ||
	fail "--bpffs \"\": rc $rc: $(cat "$WORK/err")"

cls route list | grep -q "^10.0.0.0/8 1:10" || fail "state lost on the way"
