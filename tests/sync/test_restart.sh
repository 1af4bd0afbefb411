#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The daemon stopped (SIGTERM) and started again while the kernel table
# keeps changing ends where a clean start would: its synced routes equal
# what the rules make of the table, and what a daemon started afresh on
# pins of its own syncs (`route list synced`, byte for byte).  A restart
# over an unchanged table changes nothing (no route set or removed).
# The state is whole afterwards.
# wait_until evaluates its code later: single quotes on purpose
# shellcheck disable=SC2016
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

setup_pair
fill_table 20000
realm_classes
write_realm_conf "$WORK/sync.conf"
start_sync config "$WORK/sync.conf"
expect_realm_synced "start" 5

# a restart with nothing changed in between changes nothing
stop_sync
start_sync config "$WORK/sync.conf"
grep -q "resync (start): 13334 routes synced .*; set 0, removed 0;" "$SYNC_LOG" ||
	fail "a restart over an unchanged table changed routes: $(grep 'resync (start)' "$SYNC_LOG" | tail -n1)"
log "restart over an unchanged table: nothing set, nothing removed"

# 10 rounds of 2000 changes; the daemon restarts in the middle
(
	for round in $(seq 10); do
		ip -n "$NS_S" -force -batch "$(churn_batch 2000 "$round")" 2>/dev/null || true
		sleep 0.1
	done
) &
churn=$!
track_pid $churn
sleep 0.4
stop_sync
log "stopped in the middle of the churn"
start_sync config "$WORK/sync.conf"
log "started again"
wait "$churn"
expect_realm_synced "after the churn" 5
expect_eq "errors" "$(status_of errors)" 0
check_whole "after the churn"
expect_clean_start config "$WORK/sync.conf"
stop_sync
