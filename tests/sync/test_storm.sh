#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An overrun while the tables keep changing: table 100 holds 150 000
# routes; the daemon, stopped (SIGSTOP) with its default 32 MiB buffer,
# misses a burst of 120 000 withdrawals (the buffer holds about 100 000),
# and is let go while 20 000 withdrawals and announcements come at 10 000
# a second, during its resync's dump and after it.  After an overrun the kernel drops every
# notification, and says so only once, until the queue is read empty: a
# dump started before loses what changes while it runs.  And a dump taken
# while routes change is no snapshot.  Within 10 s of the last change the
# synced routes must equal the kernel's, and the state be whole.  Then a
# resync (SIGHUP) in the middle of 40 000 more changes: its dump sees the
# tables change, another resync follows once they are quiet, and the
# synced routes are the kernel's again within 10 s.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

N=150000
setup_pair
# 20.0.0.0/24, 20.0.1.0/24, ...: realms 5, 6 and 7 in turn
prefix_awk='function pfx(i) { return sprintf("%d.%d.%d.0/24", 20 + int(i / 65536), int(i / 256) % 256, i % 256) }'
awk -v n=$N -v dev="$VS" "$prefix_awk"' BEGIN { for (i = 0; i < n; i++)
	printf "route add %s dev %s table 100 realm %d\n", pfx(i), dev, 5 + i % 3 }' > "$WORK/fill"
ip -n "$NS_S" -batch "$WORK/fill"

# What BIRD sends when a session goes down and comes back: withdrawals
# and announcements.  The burst withdraws prefixes 0 .. 119 999; then
# 120 000 .. 129 999 are withdrawn and 0 .. 9 999 announced again, in
# turn, 1 000 at a time every 0.1 s.
awk "$prefix_awk"' BEGIN { for (i = 0; i < 120000; i++)
	printf "route del %s table 100\n", pfx(i) }' > "$WORK/burst"
awk -v dev="$VS" "$prefix_awk"' BEGIN { for (i = 0; i < 10000; i++) {
	printf "route del %s table 100\n", pfx(120000 + i)
	printf "route add %s dev %s table 100 realm %d\n", pfx(i), dev, 5 + i % 2 } }' > "$WORK/after"
split -l 1000 "$WORK/after" "$WORK/after."

realm_classes
write_realm_conf "$WORK/sync.conf"
start_sync config "$WORK/sync.conf"
expect_realm_synced "start" 10

kill -STOP "$SYNC_PID"
ip -n "$NS_S" -batch "$WORK/burst"
for f in "$WORK"/after.*; do
	ip -n "$NS_S" -batch "$f"
	sleep 0.1
done &
storm_pid=$!
kill -CONT "$SYNC_PID"
wait "$storm_pid" || true
settled=$EPOCHREALTIME
wait_until 5 'grep -q "overrun: the kernel dropped route events" "$SYNC_LOG"' ||
	fail "no overrun: the burst fit in the buffer"
expect_realm_synced "10 s after the last change" 10
log "synced routes equal the kernel's $(awk -v a="$settled" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s after the last change"
log "overruns: $(grep -c 'overrun:' "$SYNC_LOG"), resyncs: $(grep -c 'resync (' "$SYNC_LOG"), of them while routes changed: $(grep -c 'changed meanwhile' "$SYNC_LOG")"

# a resync (SIGHUP) in the middle of 40 000 more changes at full speed
# (one ip -batch, about 0.4 s): its dump is taken while routes change, so
# another follows in the calm
awk -v dev="$VS" "$prefix_awk"' BEGIN { for (i = 0; i < 20000; i++) {
	printf "route del %s table 100\n", pfx(130000 + i)
	printf "route add %s dev %s table 100 realm %d\n", pfx(10000 + i), dev, 5 + i % 2 } }' > "$WORK/more"
mark=$(grep -c "changed meanwhile" "$SYNC_LOG" || true)
ip -n "$NS_S" -batch "$WORK/more" &
storm_pid=$!
sleep 0.1
kill -HUP "$SYNC_PID"
wait "$storm_pid"
settled=$EPOCHREALTIME
expect_realm_synced "10 s after a resync among changes" 10
log "synced routes equal the kernel's $(awk -v a="$settled" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s after the last change"
[ "$(grep -c "changed meanwhile" "$SYNC_LOG")" -gt "$mark" ] ||
	fail "the reload's dump saw no change: $(grep 'resync (' "$SYNC_LOG" | tail -n 2 | tr '\n' ' ')"
expect_eq "errors" "$(status_of errors)" 0
check_whole "after the storm"
stop_sync
