#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmarks of the route sync daemon (issue 12), in a network namespace:
#   bench/sync.sh [--routes N] [--rate R] [--secs S] [--out FILE] BUILD_DIR
# (defaults: 1000000 routes, 10000 changes/s for 30 s; `make sync-bench`)
#  1. fill kernel table 100 with N IPv4 /24s (realm 5 or 6) by ip -batch;
#  2. syncbench decode: the dump alone, our decoder, libnl's parser, and
#     what keeping libnl objects would cost;
#  3. start-up: sync_dryrun with N routes in the table, until its first
#     resync is applied; with --null (the daemon alone) and with the
#     in-memory applier; RSS (VmRSS, VmHWM) of each after it;
#  4. churn: syncbench replaces R routes a second for S s (each a class
#     change) while sync_dryrun --changes runs; per change, the time from
#     just before the kernel got it to the daemon's set call; lost
#     changes (no set at all).
# Until `classifier sync` drives the maps, the applier is the in-memory
# one: these times stop at the applier call, not at `lookup`.
set -euo pipefail

N=1000000
RATE=10000
SECS=30
OUT=
while [ $# -gt 1 ]; do
	case $1 in
	--routes) N=$2; shift ;;
	--rate) RATE=$2; shift ;;
	--secs) SECS=$2; shift ;;
	--out) OUT=$2; shift ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || { echo "usage: $0 [--routes N] [--rate R] [--secs S] [--out FILE] BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
DRYRUN=$BUILD/tests/sync_dryrun
SYNCBENCH=$BUILD/bench/syncbench
if [ ! -x "$DRYRUN" ] || [ ! -x "$SYNCBENCH" ]; then
	echo "bench/sync.sh: build $DRYRUN and $SYNCBENCH first (make sync-bench)" >&2
	exit 2
fi
[ "$(id -u)" = 0 ] || { echo "bench/sync.sh: needs root" >&2; exit 1; }
[ -n "$OUT" ] || OUT=$BUILD/bench/sync-results.md

NS=csync$$
TMP=$(mktemp -d /tmp/clssync.XXXXXX)
PID=
cleanup()
{
	set +e
	[ -z "$PID" ] || { kill "$PID"; wait "$PID"; } 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" link add v0 type veth peer name v1
ip -n "$NS" link set v0 up
ip -n "$NS" link set v1 up
RULES="table 100 realm 5 class 1:5 table 100 realm 6 class 1:6"

# the same prefixes syncbench churn walks: 1.0.0.0/24, 1.0.1.0/24, ...
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
	printf "route add %d.%d.%d.0/24 dev v0 table 100 realm %d\n",
		int(i / 65536) + 1, int(i / 256) % 256, i % 256, 5 + i % 2 }' > "$TMP/fill"
t0=$EPOCHREALTIME
ip -n "$NS" -batch "$TMP/fill"
FILL_S=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
rm "$TMP/fill"
echo "# filled table 100 with $N routes in $FILL_S s" >&2

ip netns exec "$NS" "$SYNCBENCH" decode 100 > "$TMP/decode"
val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# mem PID: "VmRSS VmHWM" in MiB
mem() { awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 } END { printf "%.0f %.0f", r / 1024, h / 1024 }' "/proc/$1/status"; }

# start_daemon ARGS...: sync_dryrun in the namespace; returns when its
# first resync is applied, with READY_S the wall time it took.
start_daemon()
{
	rm -f "$TMP/status"
	t0=$EPOCHREALTIME
	# shellcheck disable=SC2086
	ip netns exec "$NS" "$DRYRUN" --status "$TMP/status" "$@" $RULES \
		2>>"$TMP/daemon.log" &
	PID=$!
	while [ "$(val resyncs "$TMP/status" 2>/dev/null)" != 1 ]; do
		kill -0 "$PID" 2>/dev/null || { cat "$TMP/daemon.log" >&2; exit 1; }
		sleep 0.01
	done
	READY_S=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
}

stop_daemon()
{
	kill "$PID"
	wait "$PID" || true
	PID=
}

start_daemon --null
NULL_READY=$READY_S
NULL_RESYNC_MS=$(val last_resync_ms "$TMP/status")
NULL_ROUTES=$(val routes_v4 "$TMP/status")
read -r NULL_RSS NULL_HWM <<< "$(mem "$PID")"
stop_daemon
echo "# start-up, no applier: $NULL_READY s, RSS $NULL_RSS MiB" >&2

start_daemon
MEM_READY=$READY_S
MEM_RESYNC_MS=$(val last_resync_ms "$TMP/status")
read -r MEM_RSS MEM_HWM <<< "$(mem "$PID")"
stop_daemon
echo "# start-up, in-memory applier: $MEM_READY s, RSS $MEM_RSS MiB" >&2

start_daemon --changes > "$TMP/changes"
ip netns exec "$NS" "$SYNCBENCH" churn 100 v0 "$N" "$RATE" "$SECS" \
	> "$TMP/sent" 2>>"$TMP/daemon.log"
sleep 1
CHURN_OVERRUNS=$(val overruns "$TMP/status")
CHURN_RESYNCS=$(val resyncs "$TMP/status")
read -r CHURN_RSS CHURN_HWM <<< "$(mem "$PID")"
stop_daemon
# latency per change: sent "T PREFIX CLASS", daemon "T set PREFIX CLASS"
awk 'FNR == NR { sent[$2 " " $3] = $1; n++; next }
	$2 == "set" && ($3 " " $4) in sent && !(($3 " " $4) in seen) {
		seen[$3 " " $4] = 1
		printf "%.3f\n", ($1 - sent[$3 " " $4]) * 1000 }
	END { print n > "/dev/stderr" }' "$TMP/sent" "$TMP/changes" \
	2> "$TMP/nsent" | sort -n > "$TMP/lat"
SENT=$(cat "$TMP/nsent")
SEEN=$(wc -l < "$TMP/lat")
pct() { awk -v p="$1" '{ v[NR] = $1 } END { i = int(NR * p / 100); if (i < 1) i = 1; print v[i] }' "$TMP/lat"; }
P50=$(pct 50)
P99=$(pct 99)
MAX=$(tail -n1 "$TMP/lat")
echo "# churn: $SENT sent, $SEEN seen, p50 $P50 ms, p99 $P99 ms, max $MAX ms" >&2

mkdir -p "$(dirname "$OUT")"
cat > "$OUT" <<EOF_MD
<!-- SPDX-License-Identifier: GPL-2.0-only -->
# Route sync daemon: measurements (bench/sync.sh)

$(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%d), commit $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown).
Applier: the in-memory one of tests/sync (the pinned maps are not wired
yet), so times end at the applier's set call, not at \`lookup\`.

| what | measured |
|---|---|
| fill table 100 with $N routes (\`ip -batch\`) | $FILL_S s |
| dump of the table alone (kernel + copy, no decoding) | $(val dump_s "$TMP/decode") s for $(val routes "$TMP/decode") routes |
| decode, ours (kroute_decode: libnl's nla accessors) | $(val ours_ns "$TMP/decode") ns a route |
| decode, libnl (rtnl_route_parse + rtnl_route_put) | $(val libnl_ns "$TMP/decode") ns a route |
| keeping libnl route objects (a cache) | $(val libnl_keep_bytes "$TMP/decode") bytes a route |
| start-up to the first resync applied, no applier (--null) | $NULL_READY s wall (resync $NULL_RESYNC_MS ms), $NULL_ROUTES routes |
| same, in-memory applier | $MEM_READY s wall (resync $MEM_RESYNC_MS ms) |
| daemon memory after start-up, no applier | VmRSS $NULL_RSS MiB, VmHWM $NULL_HWM MiB |
| daemon memory after start-up, in-memory applier | VmRSS $MEM_RSS MiB, VmHWM $MEM_HWM MiB |
| churn: $RATE changes/s for $SECS s, kernel to applier | p50 $P50 ms, p99 $P99 ms, max $MAX ms |
| churn: changes sent / seen by the applier | $SENT / $SEEN (overruns $CHURN_OVERRUNS, resyncs $CHURN_RESYNCS) |
| daemon memory after the churn, in-memory applier | VmRSS $CHURN_RSS MiB, VmHWM $CHURN_HWM MiB |
EOF_MD
cat "$OUT"
