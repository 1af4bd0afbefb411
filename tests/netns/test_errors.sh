#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Failing commands exit non-zero with exactly one line on stderr and
# change nothing: routes, classes and attachments are as before.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

setup_pair
add_classes
add_routes
cls attach dev "$VS"

state()
{
	cls route list
	echo "--"
	cls class list
	echo "--"
	cls -j status | jq -c '{classes, routes_v4, routes_v6, attached}'
}

# expect_error CMD...: run the classifier, want failure and one stderr line
expect_error()
{
	local rc=0 lines
	state > "$WORK/before"
	cls "$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
	[ "$rc" -ne 0 ] || fail "'$*' exited 0"
	lines=$(wc -l < "$WORK/err")
	[ "$lines" -eq 1 ] ||
		fail "'$*': $lines lines on stderr: $(tr '\n' '|' < "$WORK/err")"
	grep -q '^classifier: ' "$WORK/err" ||
		fail "'$*': stderr does not start with 'classifier: ': $(cat "$WORK/err")"
	[ ! -s "$WORK/out" ] || fail "'$*' printed on stdout: $(head -n1 "$WORK/out")"
	state > "$WORK/after"
	diff -u "$WORK/before" "$WORK/after" >&2 || fail "'$*' changed the state"
	log "$* -> rc $rc: $(cat "$WORK/err")"
}

expect_error attach dev cls-no-such-dev
expect_error attach dev cls-no-such-dev xdp
expect_error detach dev cls-no-such-dev
expect_error detach dev "$VS" xdp
expect_error detach dev lo
expect_error route add 10.77.0.0/16 class no-such-class
expect_error route add 10.77.0.0/16 class 1:77
expect_error route add 2001:db8:77::/48 class no-such-class
expect_error route add 10.77.0.0/33 class web
expect_error route add 10.77.0.1/16 class web
expect_error route del 10.78.0.0/16
expect_error class add 1:10 name web2
expect_error class add 1:11 name web
expect_error class del no-such-class
expect_error lookup not-an-address
# a route file with one bad line loads nothing
printf '10.80.0.0/16 web\n10.81.0.0/16 no-such-class\n' > "$WORK/bad_routes"
expect_error route load "$WORK/bad_routes"
expect_error route load "$WORK/no-such-file"
# A file big enough to be parsed in two halves: the first bad line is the
# one reported, by its line number in the whole file, and nothing loads.
awk 'BEGIN { for (i = 0; i < 80000; i++)
	printf "10.%d.%d.0/24 web\n", int(i / 256) % 256, i % 256 }' > "$WORK/big"
sed -e '70001s|.*|10.99.0.0/33 web|' -e '75001s|web$|no-such-class|' \
	"$WORK/big" > "$WORK/big_bad2"
sed -e '30001s|web$|no-such-class|' "$WORK/big_bad2" > "$WORK/big_bad1"
expect_error route load "$WORK/big_bad2"
grep -q "big_bad2:70001: prefix length must be 0-32" "$WORK/err" ||
	fail "second half: $(cat "$WORK/err")"
expect_error route load "$WORK/big_bad1"
grep -q "big_bad1:30001: unknown class \"no-such-class\"" "$WORK/err" ||
	fail "first half: $(cat "$WORK/err")"
# Host bits in both halves: each half's reason names its own prefix.
sed -e '70001s|.*|10.98.7.0/8 web|' "$WORK/big" > "$WORK/big_host2"
sed -e '30001s|.*|10.99.1.0/16 web|' "$WORK/big_host2" > "$WORK/big_host1"
expect_error route load "$WORK/big_host2"
grep -qF "big_host2:70001: host bits set (did you mean 10.0.0.0/8?)" "$WORK/err" ||
	fail "host bits, second half: $(cat "$WORK/err")"
expect_error route load "$WORK/big_host1"
grep -qF "big_host1:30001: host bits set (did you mean 10.99.0.0/16?)" "$WORK/err" ||
	fail "host bits, both halves: $(cat "$WORK/err")"

# Input files: only regular files (or '-'), read whole before the lock.
mkfifo "$WORK/fifo"
SECONDS=0
expect_error route load "$WORK/fifo"
grep -q "not a regular file" "$WORK/err" || fail "fifo: $(cat "$WORK/err")"
expect_error -batch "$WORK/fifo"
[ "$SECONDS" -lt 5 ] || fail "a FIFO with no writer held us ${SECONDS}s"
expect_error route load /dev/zero
expect_error route load "$WORK"
printf '10.82.0.0/16 web\n10.83.0.0/16 w\0eb\n' > "$WORK/nul"
expect_error route load "$WORK/nul"
grep -q "nul:2: NUL byte" "$WORK/err" || fail "NUL: $(cat "$WORK/err")"
printf '10.84.0.0/16 ""\n' > "$WORK/empty_class"
expect_error route load "$WORK/empty_class"
grep -q "empty_class:1: " "$WORK/err" || fail "empty class: $(cat "$WORK/err")"
: > "$WORK/empty"
expect_error route load "$WORK/empty"
grep -q "no routes in it" "$WORK/err" || fail "empty: $(cat "$WORK/err")"
printf '# nothing but comments\n\n' > "$WORK/comments"
expect_error route load "$WORK/comments"

# The lock waits -w seconds, then names who holds it.
# -o: flock itself holds the lock, not its sleep
flock -o "$BPFFS/classifier" sleep 30 &
holder=$!
sleep 0.3
SECONDS=0
rc=0
cls -w 1 route add 10.85.0.0/16 class web 2> "$WORK/err" || rc=$?
waited=$SECONDS
pkill -P "$holder" sleep || :
wait "$holder" 2>/dev/null || :
[ "$rc" -eq 1 ] || fail "-w 1 with the lock held: exit $rc"
[ "$waited" -le 3 ] || fail "-w 1 waited ${waited}s"
grep -Eq "locked by pid $holder \(flock .* sleep 30\); waited 1" "$WORK/err" ||
	fail "lock holder not named: $(cat "$WORK/err")"
cls route add 10.85.0.0/16 class web

# One resolver, one wording: the same bad class token gets the same words
# from every command that takes a class.
for tok in no-such-class 1:10000; do
	case $tok in
	1:10000) want="\"$tok\" is neither a classid nor a class name" ;;
	*) want="unknown class \"$tok\" (see 'classifier class list')" ;;
	esac
	printf '10.86.0.0/16 %s\n' "$tok" > "$WORK/tok_routes"
	for cmd in "route add 10.86.0.0/16 class $tok" \
		"route replace 10.86.0.0/16 class $tok" "class set $tok mark 1" \
		"class del $tok" "route load $WORK/tok_routes"; do
		# shellcheck disable=SC2086
		expect_error $cmd
		grep -qF -- "$want" "$WORK/err" ||
			fail "'$cmd' words it otherwise: $(cat "$WORK/err")"
	done
done
