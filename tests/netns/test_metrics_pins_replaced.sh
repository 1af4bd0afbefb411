#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The long-running readers follow the pins as they are replaced under
# them: `classifier exporter` and `classifier -j stats watch` run from the
# start while a class is added, `route load` publishes a new route set,
# `table on` and `table off` replace the IPv4 table, and `upgrade` runs;
# after each, the exporter's next scrape shows the new state (a reader
# holding the maps it opened first would still show the old table) and
# traffic is counted in the new class by both.  After `purge` the exporter
# serves classifier_up 0 and logs why once; when the pins are set up
# again it reads them again, and watch has ended with one line saying why.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/metrics.sh
. "$(dirname "$0")/metrics.sh"

WATCH_PID=
metrics_setup
add_classes
add_routes
cls attach dev "$VS"
metrics_exporter_start
nsenter --net="/run/netns/$NS_S" "$CLASSIFIER" --bpffs "$BPFFS" \
	-j stats watch 0.2 >"$WORK/watch.json" 2>"$WORK/watch.err" &
WATCH_PID=$!

late_pkts='classifier_class_packets_total{class="1:50",name="late",direction="egress"}'
table_on='classifier_table_enabled{family="ipv4"}'

for _ in $(seq 50); do
	[ -s "$WORK/watch.json" ] && break
	sleep 0.1
done
[ -s "$WORK/watch.json" ] || fail "watch printed nothing: $(cat "$WORK/watch.err")"
cls class add 1:50 name late
cat >"$WORK/routes" <<-R
	198.51.100.0/24 late
	203.0.113.0/24 bulk
R
cls route load "$WORK/routes"
wait_scrape "route load" 'classifier_routes{family="ipv6",source="hand"}' 0
send "$WEB4" 100
wait_scrape "class added, routes loaded" "$late_pkts" 100

cls table on
wait_scrape "table on" "$table_on" 1
send "$WEB4" 100
wait_scrape "counted with the table" "$late_pkts" 200

cls table off
wait_scrape "table off" "$table_on" 0
send "$WEB4" 100
wait_scrape "counted with the trie" "$late_pkts" 300

cls upgrade
send "$WEB4" 100
wait_scrape "after upgrade" "$late_pkts" 400

# watch saw all of it, still running
sleep 0.5
kill -0 "$WATCH_PID" 2>/dev/null ||
	fail "watch ended: $(cat "$WORK/watch.err")"
expect_eq "late in watch's last line" \
	"$(tail -n1 "$WORK/watch.json" | jq '.classes[] | select(.name == "late") | .packets')" 400
expect_ge "watch lines" "$(wc -l <"$WORK/watch.json")" 5
expect_eq "first watch line without late" \
	"$(head -n1 "$WORK/watch.json" | jq '[.classes[] | select(.name == "late")] | length')" 0

cls purge
wait_scrape "after purge" classifier_up 0
rc=0
wait "$WATCH_PID" || rc=$?
WATCH_PID=
expect_eq "watch exit status after purge" "$rc" 1
expect_eq "watch's error lines" "$(wc -l <"$WORK/watch.err")" 1
log "watch: $(cat "$WORK/watch.err")"
grep -q "^classifier: stats watch: nothing set up under $BPFFS/classifier" \
	"$WORK/watch.err" || fail "watch's error: $(cat "$WORK/watch.err")"

add_classes
wait_scrape "set up again" classifier_up 1
wait_scrape "fresh counters" \
	'classifier_class_packets_total{class="1:10",name="web",direction="egress"}' 0
metrics_exporter_stop
expect_eq "exporter log" "$(cat "$WORK/exporter.log")" \
"classifier: exporter: nothing set up under $BPFFS/classifier yet (add a class or route, or attach)
classifier: exporter: state readable again"
