#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A real Prometheus server scrapes the exporter: both run in the sender's
# namespace on its loopback (Prometheus with a generated config, storage in
# the test directory; never the system's).  After a known number of
# datagrams per class, a PromQL query through Prometheus's HTTP API gives
# those counts per class, rate() is non-zero for the classes with traffic
# and zero for the idle one, the programs' run counts grow (run-time
# accounting on for the exporter's life), and the exporter exits 0 on
# SIGTERM.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/metrics.sh
. "$(dirname "$0")/metrics.sh"

command -v prometheus >/dev/null || fail "prometheus missing (tests/deps.sh)"
PROM_ADDR=127.0.0.1:9090
PROM_PID=

metrics_setup
# first, as its scrape manager takes targets in some 5 s after start
mkdir "$WORK/prom"
cat >"$WORK/prom/prometheus.yml" <<-YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: classifier
    static_configs:
      - targets: ['$EXPORTER_ADDR']
YML
nsenter --net="/run/netns/$NS_S" prometheus \
	--config.file="$WORK/prom/prometheus.yml" \
	--storage.tsdb.path="$WORK/prom/data" \
	--web.listen-address="$PROM_ADDR" >"$WORK/prom/log" 2>&1 &
PROM_PID=$!
start=$(date +%s.%N)
add_classes
add_routes
cls class add 1:50 name idle
cls attach dev "$VS"
bpf_stats_on
metrics_exporter_start

# query PROMQL: "name value" lines of an instant query, sorted.
query()
{
	in_snd_curl "http://$PROM_ADDR/api/v1/query" \
		--data-urlencode "query=$1" |
		jq -r '.data.result[] | "\(.metric.name // .metric.__name__ // "") \(.value[1])"' |
		sort
}

# wait_for WHAT PROMQL WANT: poll until the query answers WANT (10 s).
wait_for()
{
	local got
	for _ in $(seq 100); do
		got=$(query "$2" 2>/dev/null) || true
		[ "$got" = "$3" ] && { log "$1: $(echo "$got" | tr '\n' ' ')"; return 0; }
		kill -0 "$PROM_PID" 2>/dev/null ||
			fail "prometheus exited: $(tail -n3 "$WORK/prom/log")"
		sleep 0.1
	done
	fail "$1: Prometheus answered '$(echo "$got" | tr '\n' ' ')', expected '$(echo "$3" | tr '\n' ' ')'"
}

wait_for "scraped" 'up{job="classifier"}' "up 1"
log "Prometheus scraping $(echo "$(date +%s.%N) - $start" | bc) s after its start"
wait_for "before traffic" \
	'classifier_class_packets_total{direction="egress",class!="default"}' \
	"blackhole 0
bulk 0
idle 0
web 0"

send "$WEB4" 300
send "$WEB6" 100
send "$BULK4" 200
send "$DROP4" 50

wait_for "counts per class" \
	'classifier_class_packets_total{direction="egress",class!="default"}' \
	"blackhole 50
bulk 200
idle 0
web 400"
wait_for "rate > 0" \
	'rate(classifier_class_packets_total{direction="egress",class!="default"}[10s]) > bool 0' \
	"blackhole 1
bulk 1
idle 0
web 1"
# Run counts appear once the programs have run with accounting on.
wait_for "programs ran" 'sum(classifier_program_runs_total) > bool 0' " 1"
runs=$(query 'sum(classifier_program_runs_total)' | awk '{ print $2 }')
send "$WEB4" 100
wait_for "programs' run count grows" \
	"sum(classifier_program_runs_total) >= bool $((runs + 100))" " 1"
health=$(in_snd_curl "http://$PROM_ADDR/api/v1/targets" |
	jq -r '.data.activeTargets[] | "\(.health) \(.lastError)"')
expect_eq "target health" "$health" "up "

metrics_exporter_stop
log "exporter stopped on SIGTERM"
