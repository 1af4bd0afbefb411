#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Bad rules stop the start with one line naming the file and line (a
# typo, a class nobody made, a bad setting), exit 1, and change nothing:
# routes, status and pins as before.  SIGHUP with new rules moves the
# routes to their new classes by difference; SIGHUP with a bad file keeps
# the rules in force; a reload sets the periodic resync's interval.  A
# second daemon on the same pins is refused.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

setup_pair
fill_table 3000

# refused: "classifier: sync: WHERE: what", exit 1
refused()
{
	local want=$1 rc=0
	shift
	cls sync "$@" > "$WORK/out" 2> "$WORK/err" || rc=$?
	expect_eq "exit status of sync $*" "$rc" 1
	expect_eq "its message" "$(cat "$WORK/err")" "classifier: sync: $want"
}

# before anything is set up: nothing is created
printf 'table 100 realm 5 class 1:5\n' > "$WORK/ok.conf"
refused "nothing set up under $BPFFS/classifier: add the classes the rules name first" \
	config "$WORK/ok.conf"
[ ! -e "$BPFFS/classifier" ] || fail "a refused sync made pins"

realm_classes
cls route add 192.0.2.0/24 class web
state() { cls route list; cls -j status | jq -c '.routes, .sync'; ls "$BPFFS/classifier/maps"; }
state > "$WORK/state.before"

printf '# one typo\ntable 100 realm 5 class 1:5\ntabel 100 realm 6 class 1:6\n' > "$WORK/bad.conf"
refused "$WORK/bad.conf:3: unknown word \"tabel\"" config "$WORK/bad.conf"
printf 'table 100 realm 5 class 1:5\ntable 100 realm 6 class nosuch\n' > "$WORK/noclass.conf"
refused "$WORK/noclass.conf:2: class \"nosuch\": no such class (see classifier class list)" \
	config "$WORK/noclass.conf"
printf 'resync 1s\ntable 100 realm 5 class 1:5\n' > "$WORK/badset.conf"
refused "$WORK/badset.conf:1: resync \"1s\": an interval 10s-168h (suffix s, m or h), or off" \
	config "$WORK/badset.conf"
refused "$WORK/missing.conf: No such file or directory" config "$WORK/missing.conf"
refused "command line: rule has no action: end it with \"class CLASS\" or \"ignore\"" \
	table 100 realm 5
refused "command line: no rules (a rule is e.g. \"table 100 realm 5 class 1:10\")"
refused "command line: class \"nosuch\": no such class (see classifier class list)" \
	config "$WORK/ok.conf" table 100 class nosuch
state > "$WORK/state.after"
cmp -s "$WORK/state.before" "$WORK/state.after" ||
	fail "a refused start changed something: $(diff "$WORK/state.before" "$WORK/state.after" | head -3 | tr '\n' ' ')"
log "refused starts changed nothing"

write_realm_conf "$WORK/sync.conf"
start_sync config "$WORK/sync.conf"
expect_realm_synced "start"

# one daemon per pin directory
refused "another sync daemon (pid $SYNC_PID) follows these pins" config "$WORK/sync.conf"

# realm 5 and 6 swap classes: every route changes, by one swap
sed -i 's/realm 5 class 1:5/realm 5 class web/; s/realm 6 class web/realm 6 class 1:5/' "$WORK/sync.conf"
kill -HUP "$SYNC_PID"
wait_until 5 'grep -q "resync (reload)" "$SYNC_LOG"' || fail "no resync after SIGHUP"
expect_eq "last resync" "$(status_of last_resync_reason)" rules
kernel_routes 4 100 | awk '$2 == 5 { print $1, "1:6" } $2 == 6 { print $1, "1:5" }' |
	sort > "$WORK/want"
synced > "$WORK/got"
same_set "$WORK/want" "$WORK/got" || fail "after reload: classes not swapped"
grep -q "swapped in 2000" "$SYNC_LOG" || fail "the reload's 2000 changes were not one swap"
expect_lookup "after reload" 10.0.0.1 "*via 10.0.0.0/24 class 1:6 name web synced*"
log "reload: $(wc -l < "$WORK/got") routes in their new classes"

# a bad file on reload: logged, the rules in force stay
cp "$WORK/bad.conf" "$WORK/sync.conf"
kill -HUP "$SYNC_PID"
wait_until 3 '[ "$(status_of errors)" = 1 ]' || fail "a bad reload counted no error"
grep -q "sync.conf:3: unknown word \"tabel\"" "$SYNC_LOG" ||
	fail "the bad reload's line is not in the log"
synced > "$WORK/got2"
cmp -s "$WORK/got" "$WORK/got2" || fail "a bad reload changed the synced routes"
expect_follow "still following" 10.0.0.1 "*via 10.0.0.0/24 class 1:5 name five synced*" \
	route replace 10.0.0.0/24 dev "$VS" table 100 realm 6

# the periodic resync, at the shortest interval the setting takes
write_realm_conf "$WORK/sync.conf"
echo "resync 10s" >> "$WORK/sync.conf"
kill -HUP "$SYNC_PID"
wait_until 3 'grep -q "periodic resync every 10 s" "$SYNC_LOG"' ||
	fail "the reload did not take resync 10s"
wait_until 14 'grep -q "resync (periodic): .*; set 0, removed 0;" "$SYNC_LOG"' ||
	fail "no periodic resync (that changes nothing) within 14 s"
expect_eq "last resync" "$(status_of last_resync_reason)" periodic
check_whole "after the reloads"
stop_sync
