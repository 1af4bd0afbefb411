#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A receive buffer far too small for a burst of changes: the kernel drops
# notifications (ENOBUFS), the daemon counts an overrun, resyncs, and
# ends where a clean start would.
. "$CLASSIFIER_SRC/tests/netns/lib.sh"
. "$CLASSIFIER_SRC/tests/sync/lib.sh"

setup_pair
fill_table 5000
write_realm_conf "$WORK/sync.conf"
start_dryrun --rcvbuf 4096 --class web=1:6 config "$WORK/sync.conf"
expect_realm_synced "start" 5
for round in 1 2 3; do
	ip -n "$NS_S" -force -batch "$(churn_batch 5000 "$round")" 2>/dev/null || true
done
expect_realm_synced "after the burst" 5
overruns=$(status_of overruns)
[ "$overruns" -ge 1 ] || fail "no overrun counted: the burst fit in the buffer"
log "overruns = $overruns, resyncs = $(status_of resyncs)"
grep -q "resync (overrun)" "$WORK/dryrun.log" || fail "no resync after the overrun in the log"
expect_eq "errors" "$(status_of errors)" 0
stop_dryrun
