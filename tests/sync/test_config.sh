#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Rules from a file: a bad line stops the start with one line naming the
# file and line, and nothing is synced; SIGHUP with new rules moves the
# routes to their new classes by difference; SIGHUP with a bad file keeps
# the rules in force.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

setup_pair
fill_table 3000
printf '# one typo\ntable 100 realm 5 class 1:5\ntabel 100 realm 6 class 1:6\n' > "$WORK/bad.conf"
rc=0
ip netns exec "$NS_S" "$DRYRUN" --state "$WORK/bad" config "$WORK/bad.conf" \
	> /dev/null 2> "$WORK/err" || rc=$?
expect_eq "exit status with a bad line" "$rc" 1
expect_eq "its message" "$(cat "$WORK/err")" \
	"sync_dryrun: sync: $WORK/bad.conf:3: unknown word \"tabel\""
if [ -e "$WORK/bad" ] || [ -e "$WORK/bad.status" ]; then
	fail "a daemon with bad rules wrote state"
fi

write_realm_conf "$WORK/sync.conf"
start_dryrun --class web=1:6 config "$WORK/sync.conf"
expect_realm_synced "start"

# realm 5 and 6 swap classes: every route changes, by one swap
sed -i 's/realm 5 class 1:5/realm 5 class web/; s/realm 6 class web/realm 6 class 1:5/' "$WORK/sync.conf"
kill -HUP "$DRYRUN_PID"
wait_until 3 '[ "$(status_of resyncs)" = 2 ]' || fail "no resync after SIGHUP"
expect_eq "last resync" "$(status_of last_resync_reason)" reload
kernel_routes 4 100 | awk '$2 == 5 { print $1, "1:6" } $2 == 6 { print $1, "1:5" }' |
	sort > "$WORK/want"
synced > "$WORK/got"
same_set "$WORK/want" "$WORK/got" || fail "after reload: classes not swapped"
log "reload: $(wc -l < "$WORK/got") routes in their new classes"

# a bad file on reload: logged, the rules in force stay
cp "$WORK/bad.conf" "$WORK/sync.conf"
kill -HUP "$DRYRUN_PID"
wait_until 3 '[ "$(status_of errors)" = 1 ]' || fail "a bad reload counted no error"
grep -q "sync.conf:3: unknown word \"tabel\"" "$WORK/dryrun.log" ||
	fail "the bad reload's line is not in the log"
expect_eq "resyncs after a bad reload" "$(status_of resyncs)" 2
synced > "$WORK/got2"
cmp -s "$WORK/got" "$WORK/got2" || fail "a bad reload changed the synced routes"
expect_latency "still following" route replace 10.0.0.0/24 dev "$VS" table 100 realm 6
grep -qx "10.0.0.0/24 1:5 synced" "$STATE" || fail "10.0.0.0/24 not in realm 6's class after the bad reload"
stop_dryrun
