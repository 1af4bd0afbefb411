#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A real upgrade under the long-running readers: the previous layout's
# classifier ($CLASSIFIER_FROM_3, layout 3) sets up a class, a route and an
# attachment, and traffic is counted.  `classifier exporter` and `-j stats
# watch` of this build cannot read those pins: the exporter serves
# classifier_up 0 and logs why (run 'classifier upgrade') once; watch
# refuses at start with the same words.  While the exporter runs,
# `classifier upgrade` moves the pins to this layout: the next scrapes
# show the counter carried over, this layout and the attached program of
# this build, and the log says once that the state is readable again.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/metrics.sh
. "$(dirname "$0")/metrics.sh"

[ -x "${CLASSIFIER_FROM_3:-}" ] || fail "no layout 3 classifier (make netns builds it)"
old()
{
	nsenter --net="/run/netns/$NS_S" "$CLASSIFIER_FROM_3" --bpffs "$BPFFS" "$@"
}

metrics_setup
old class add 1:10 name web
old route add 198.51.100.0/24 class web
old attach dev "$VS"
send "$WEB4" 100
metrics_exporter_start
web='classifier_class_packets_total{class="1:10",name="web",direction="egress"}'

scrape "$WORK/s.prom"
expect_eq "layout 3 pins" "$(prom_value "$WORK/s.prom" classifier_up)" 0
rc=0
cls -j stats watch 0.2 count 1 >/dev/null 2>"$WORK/watch.err" || rc=$?
expect_eq "watch on layout 3 pins" "$rc" 1
grep -q "layout 3.*run 'classifier upgrade'" "$WORK/watch.err" ||
	fail "watch's error: $(cat "$WORK/watch.err")"
log "watch: $(cat "$WORK/watch.err")"

cls upgrade
wait_scrape "upgraded" classifier_up 1
expect_eq "counter carried over" "$(prom_value "$WORK/s.prom" "$web")" 100
expect_eq "layout" "$(prom_value "$WORK/s.prom" classifier_layout_version)" \
	"$(cls_layout)"
build=$(cls -V | sed -n 's/.*build \([0-9a-f]*\)).*/\1/p')
expect_eq "attached program of this build" \
	"$(grep -c "^classifier_program_info{.*name=\"cls_egress\",.*build_id=\"$build\"} 1$" "$WORK/s.prom")" 1
send "$WEB4" 100
wait_scrape "counted after" "$web" 200
metrics_exporter_stop
head -n1 "$WORK/exporter.log" |
	grep -q "^classifier: exporter: .*layout 3.*run 'classifier upgrade'$" ||
	fail "exporter log: $(head -n1 "$WORK/exporter.log")"
expect_eq "exporter log, then" "$(sed 1d "$WORK/exporter.log")" \
	"classifier: exporter: state readable again"
