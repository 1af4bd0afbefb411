#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A receive buffer far too small for a burst of changes (rcvbuf 4k, the
# daemon stopped by SIGSTOP meanwhile): the kernel drops notifications
# (ENOBUFS), the daemon logs an overrun, resyncs, and ends where a clean
# start would: `route list synced` equal to a fresh daemon's on pins of
# its own.  The state is whole afterwards.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

setup_pair
fill_table 5000
realm_classes
write_realm_conf "$WORK/sync.conf"
start_sync config "$WORK/sync.conf" rcvbuf 4k
expect_realm_synced "start" 5
# the daemon stopped while the burst comes: the buffer surely overflows
kill -STOP "$SYNC_PID"
for round in 1 2 3; do
	ip -n "$NS_S" -force -batch "$(churn_batch 5000 "$round")" 2>/dev/null || true
done
kill -CONT "$SYNC_PID"
wait_until 3 'grep -q "overrun: the kernel dropped route events" "$SYNC_LOG"' ||
	fail "no overrun line in the log: the burst fit in the buffer"
# resyncs closer than 1 s are merged: the one for the overrun may wait
wait_until 3 'grep -q "resync (overrun)" "$SYNC_LOG"' ||
	fail "no resync after an overrun in the log"
expect_realm_synced "after the burst" 5
log "overruns: $(grep -c 'overrun:' "$SYNC_LOG"), resyncs: $(grep -c 'resync (' "$SYNC_LOG")"
expect_eq "errors" "$(status_of errors)" 0
check_whole "after the overrun"
expect_clean_start config "$WORK/sync.conf"
stop_sync
