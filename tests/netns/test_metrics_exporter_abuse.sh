#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The HTTP endpoint under hostile and heavy clients on its namespace's
# loopback (tests/metrics/http_abuse.py: 1000 concurrent connections from
# one address with half-sent requests, 1000 concurrent scrapes from 1000
# addresses, malformed requests, other methods and paths, keep-alive).
# The exporter keeps answering, holds no more memory or descriptors than
# its limits allow, and still exits 0 on SIGTERM.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/metrics.sh
. "$(dirname "$0")/metrics.sh"

IDLE=1
metrics_setup
add_classes
EXPORTER_ARGS=(timeout "$IDLE")
metrics_exporter_start

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$EXPORTER_PID/status"; }
fds() { find "/proc/$EXPORTER_PID/fd" -mindepth 1 | wc -l; }
rss0=$(rss)
fds0=$(fds)
log "exporter: RSS $rss0 KiB, $fds0 descriptors"

nsenter --net="/run/netns/$NS_S" python3 \
	"$(dirname "$0")/../metrics/http_abuse.py" 127.0.0.1 9435 $IDLE \
	>"$WORK/abuse.log" 2>&1 || true
sed 's/^/# /' "$WORK/abuse.log"
grep -q '^ok still answering ' "$WORK/abuse.log" ||
	fail "$(grep -m1 -v '^ok ' "$WORK/abuse.log" || echo "http_abuse.py did not finish")"
kill -0 "$EXPORTER_PID" 2>/dev/null || fail "the exporter died"

# The same starving client again, now scraped by curl as an operator's
# Prometheus would be: every scrape answered within IDLE + 1 s.
nsenter --net="/run/netns/$NS_S" python3 \
	"$(dirname "$0")/../metrics/http_abuse.py" 127.0.0.1 9435 $IDLE \
	--hold $((3 * IDLE + 2)) >"$WORK/hold.log" 2>&1 &
holder=$!
sleep 0.5 # every slot taken
for i in $(seq 10); do
	in_snd_curl --max-time $((IDLE + 1)) -f -o "$WORK/held.prom" \
		"http://$EXPORTER_ADDR/metrics" ||
		fail "curl scrape $i during the starving client failed"
	grep -qx 'classifier_up 1' "$WORK/held.prom" ||
		fail "curl scrape $i during the starving client: no classifier_up 1"
	sleep 0.2
done
wait $holder || fail "the starving client failed: $(cat "$WORK/hold.log")"
sed 's/^/# /' "$WORK/hold.log"
log "10 curl scrapes answered while every other slot was held"

# idle connections are gone once the idle timeout has passed
sleep $((IDLE + 1))
rss1=$(rss)
fds1=$(fds)
log "exporter after: RSS $rss1 KiB, $fds1 descriptors"
expect_eq "descriptors after" "$fds1" "$fds0"
# bounded: 32 connections of 32 KiB, bodies of a few KiB, allocator slack
[ "$rss1" -le $((rss0 + 16384)) ] ||
	fail "RSS grew from $rss0 to $rss1 KiB"
expect_eq "scrape after" "$(http_status /metrics)" 200
metrics_exporter_stop
