# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Helpers of the metrics tests (test_metrics_*.sh), sourced after lib.sh.
# The metrics commands run in the sender's namespace over its bpffs.

EXPORTER_ADDR=127.0.0.1:9435
EXPORTER_PID=
# what runs `exporter listen $EXPORTER_ADDR $EXPORTER_ARGS`; a test may
# wrap it (capabilities, mounts)
EXPORTER_CMD=()
EXPORTER_ARGS=()
STATS_HOLD_PID=

# metrics_prom [FILE]: the text exposition, to stdout or into FILE.
metrics_prom()
{
	cls stats prometheus "$@"
}

# metrics_watch_cmd ARGS: the command line of the live view, for tmux.
metrics_watch_cmd()
{
	echo "nsenter --net=/run/netns/$NS_S $CLASSIFIER --bpffs $BPFFS stats watch $*"
}

# metrics_exporter_start: the exporter in the sender's namespace, in the
# background; returns once it answers.
metrics_exporter_start()
{
	nsenter --net="/run/netns/$NS_S" "${EXPORTER_CMD[@]}" \
		exporter listen "$EXPORTER_ADDR" "${EXPORTER_ARGS[@]}" \
		>"$WORK/exporter.log" 2>&1 &
	EXPORTER_PID=$!
	for _ in $(seq 100); do
		http_status /metrics 2>/dev/null | grep -qx 200 && return 0
		kill -0 "$EXPORTER_PID" 2>/dev/null ||
			fail "exporter exited: $(cat "$WORK/exporter.log")"
		sleep 0.05
	done
	fail "exporter did not answer on $EXPORTER_ADDR"
}

# metrics_exporter_stop: SIGTERM, and the exporter must exit 0 at once.
metrics_exporter_stop()
{
	local rc=0
	kill -TERM "$EXPORTER_PID"
	wait "$EXPORTER_PID" || rc=$?
	EXPORTER_PID=
	[ "$rc" -eq 0 ] || fail "exporter exited $rc on SIGTERM: $(cat "$WORK/exporter.log")"
}

# bpf_stats_on: the kernel counts programs' run time until the test ends.
bpf_stats_on()
{
	gcc -O2 -Wall -Wextra -o "$WORK/bpf_stats_hold" \
		"$CLASSIFIER_SRC/tests/metrics/bpf_stats_hold.c" -lbpf
	"$WORK/bpf_stats_hold" >"$WORK/bpf_stats_hold.out" &
	STATS_HOLD_PID=$!
	for _ in $(seq 50); do
		grep -qx on "$WORK/bpf_stats_hold.out" 2>/dev/null && return 0
		kill -0 "$STATS_HOLD_PID" 2>/dev/null ||
			fail "bpf_stats_hold exited"
		sleep 0.1
	done
	fail "bpf_stats_hold did not start"
}

# in_snd_curl ARGS: curl in the sender's namespace, bounded in time.
in_snd_curl()
{
	nsenter --net="/run/netns/$NS_S" curl -sS --max-time 5 "$@"
}

# http_status PATH [curl args]: the status code the exporter answers.
http_status()
{
	local path=$1
	shift
	in_snd_curl -o /dev/null -w '%{http_code}' "$@" \
		"http://$EXPORTER_ADDR$path"
}

# scrape FILE: one GET /metrics of the exporter into FILE.
scrape()
{
	in_snd_curl -f -o "$1" "http://$EXPORTER_ADDR/metrics"
}

# wait_scrape WHAT SERIES WANT: scrape into $WORK/s.prom until SERIES
# has WANT (5 s).
wait_scrape()
{
	local got
	for _ in $(seq 50); do
		scrape "$WORK/s.prom"
		got=$(prom_value "$WORK/s.prom" "$2")
		[ "$got" = "$3" ] && { log "$1: $2 = $got"; return 0; }
		sleep 0.1
	done
	fail "$1: $2 is $got, expected $3"
}

# prom_value FILE SERIES: the value of one series (name{labels} exactly as
# written) in an exposition, or "none".
prom_value()
{
	awk -v s="$2" 'index($0, s " ") == 1 { print $NF; found = 1 }
		END { if (!found) print "none" }' "$1"
}

# promtool_check FILE: the exposition is valid for Prometheus.
promtool_check()
{
	local out
	out=$(promtool check metrics <"$1" 2>&1) ||
		fail "promtool check metrics: $out"
	log "promtool check metrics: ok"
}

# Stop what a metrics test started in the background, then lib.sh's cleanup.
metrics_cleanup()
{
	local rc=$? pid
	trap - ERR
	set +e
	for pid in "$EXPORTER_PID" "${PROM_PID:-}" "$STATS_HOLD_PID" \
		"${WATCH_PID:-}"; do
		[ -z "$pid" ] || kill "$pid" 2>/dev/null
	done
	[ -z "${TMUX_SOCK:-}" ] || tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
	wait 2>/dev/null
	(exit $rc)
	cleanup
}

# metrics_setup: setup_pair, with metrics_cleanup as the exit trap.
metrics_setup()
{
	setup_pair
	trap metrics_cleanup EXIT
	EXPORTER_CMD=("$CLASSIFIER" --bpffs "$BPFFS")
}
