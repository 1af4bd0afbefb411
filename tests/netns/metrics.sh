# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Helpers of the metrics tests (test_metrics_*.sh), sourced after lib.sh.
#
# The metrics front ends run in the sender's namespace over its bpffs.
# Today they are build/tests/metrics_driver; once `classifier stats
# prometheus | stats watch` and `classifier exporter` exist, only the
# bodies of metrics_prom, metrics_exporter_start and metrics_watch_cmd
# change.

METRICS_DRIVER=${METRICS_DRIVER:-$(dirname "$CLASSIFIER")/tests/metrics_driver}
[ -x "$METRICS_DRIVER" ] ||
	fail "$METRICS_DRIVER missing (make build/tests/metrics_driver)"
EXPORTER_ADDR=127.0.0.1:9435
EXPORTER_PID=

# metrics_prom [FILE]: the text exposition, to stdout or into FILE.
metrics_prom()
{
	nsenter --net="/run/netns/$NS_S" "$METRICS_DRIVER" --bpffs "$BPFFS" \
		prom "$@"
}

# metrics_watch_cmd ARGS: the command line of the live view, for tmux.
metrics_watch_cmd()
{
	echo "nsenter --net=/run/netns/$NS_S $METRICS_DRIVER --bpffs $BPFFS watch $*"
}

# metrics_exporter_start [ARGS]: the HTTP endpoint on $EXPORTER_ADDR in
# the sender's namespace, in the background; returns once it answers.
metrics_exporter_start()
{
	nsenter --net="/run/netns/$NS_S" "$METRICS_DRIVER" --bpffs "$BPFFS" \
		exporter listen "$EXPORTER_ADDR" "$@" \
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
	local rc=$?
	trap - ERR
	set +e
	[ -z "$EXPORTER_PID" ] || kill "$EXPORTER_PID" 2>/dev/null
	[ -z "${PROM_PID:-}" ] || kill "$PROM_PID" 2>/dev/null
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
}
