#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The daemon stopped (SIGTERM) and started again while the kernel table
# keeps changing ends where a clean start would: the synced routes equal
# what the rules make of the table.  (The in-memory applier starts empty
# with each process; that a restart over kept state changes nothing is
# the engine's unit test test_restart_changes_nothing.)
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

setup_pair
fill_table 20000
write_realm_conf "$WORK/sync.conf"
start_dryrun --class web=1:6 config "$WORK/sync.conf"
expect_realm_synced "start" 5

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
stop_dryrun
log "stopped in the middle of the churn"
start_dryrun --class web=1:6 config "$WORK/sync.conf"
log "started again"
wait "$churn"
expect_realm_synced "after the churn" 5
expect_eq "errors" "$(status_of errors)" 0
stop_dryrun
