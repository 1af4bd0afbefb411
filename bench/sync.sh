#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmarks of `classifier sync` (issue 12), in a network namespace with
# a private bpffs:
#   bench/sync.sh [--routes N] [--rate R] [--secs S] [--out FILE] BUILD_DIR
# (defaults: 1000000 routes, 10000 changes/s for 30 s; `make sync-bench`)
#  1. fill kernel table 100 with N IPv4 /24s (realm 5 or 6) by ip -batch;
#  2. syncbench decode: the dump alone, our decoder, libnl's parser, and
#     what keeping libnl objects would cost;
#  3. start-up: `classifier sync` (realm 5 -> 1:5, 6 -> 1:6) on empty
#     pins, from exec to its "resync (start)" log line; then `route list
#     synced` compared with the table; VmRSS and VmHWM of the daemon;
#  4. restart: SIGTERM and start again over the synced pins (a resync
#     by difference that finds nothing to change);
#  5. churn: syncbench replaces R routes a second for S s (each a class
#     change) while the daemon runs, and a thread of it looks every
#     change up as `classifier lookup` does (cls_route_lookup on a
#     reader's handle, every 200 us) until the trie holds the new class:
#     the lag from just before the kernel got the change to the trie
#     holding it, and changes never seen (lost); the daemon's memory
#     after it.
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
CLS=$BUILD/classifier
SYNCBENCH=$BUILD/bench/syncbench
if [ ! -x "$CLS" ] || [ ! -x "$SYNCBENCH" ]; then
	echo "bench/sync.sh: build $CLS and $SYNCBENCH first (make sync-bench)" >&2
	exit 2
fi
[ "$(id -u)" = 0 ] || { echo "bench/sync.sh: needs root" >&2; exit 1; }
[ -n "$OUT" ] || OUT=$BUILD/bench/sync-results.md

NS=csync$$
TMP=$(mktemp -d /tmp/clssync.XXXXXX)
BPFFS=$TMP/bpffs
PID=
cleanup()
{
	set +e
	[ -z "$PID" ] || { kill "$PID"; wait "$PID"; } 2>/dev/null
	[ -d "$BPFFS/classifier" ] && cls purge
	umount "$BPFFS" "$TMP/bpffs2" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cls() { nsenter --net="/run/netns/$NS" "$CLS" --bpffs "$BPFFS" "$@"; }
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

ip netns add "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" link add v0 type veth peer name v1
ip -n "$NS" link set v0 up
ip -n "$NS" link set v1 up
mkdir -p "$BPFFS"
mount -t bpf bpf "$BPFFS"
cls class add 1:5 name five
cls class add 1:6 name six
RULES="table 100 realm 5 class 1:5 table 100 realm 6 class 1:6"

# the same prefixes syncbench churn walks: 1.0.0.0/24, 1.0.1.0/24, ...
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
	printf "route add %d.%d.%d.0/24 dev v0 table 100 realm %d\n",
		int(i / 65536) + 1, int(i / 256) % 256, i % 256, 5 + i % 2 }' > "$TMP/fill"
t0=$EPOCHREALTIME
ip -n "$NS" -batch "$TMP/fill"
FILL_S=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
# what sync must make of it, as route list prints it
awk '{ split($3, a, "/"); print $3, "1:" $NF " # synced" }' "$TMP/fill" |
	sort > "$TMP/want"
rm "$TMP/fill"
echo "# filled table 100 with $N routes in $FILL_S s" >&2

ip netns exec "$NS" "$SYNCBENCH" decode 100 > "$TMP/decode"
val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# cpu PID: seconds of CPU (user + system, all threads) it used so far
cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }

# mem PID: "VmRSS VmHWM" in MiB
mem() { awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 } END { printf "%.0f %.0f", r / 1024, h / 1024 }' "/proc/$1/status"; }

# start_daemon: classifier sync in the namespace; returns once it logged
# its first resync, READY_S the wall time from exec, RESYNC the line.
start_daemon()
{
	local log=$TMP/daemon.$((++STARTS)).log
	t0=$EPOCHREALTIME
	# shellcheck disable=SC2086
	nsenter --net="/run/netns/$NS" "$CLS" --bpffs "$BPFFS" sync $RULES \
		2> "$log" &
	PID=$!
	until grep -q "resync (start)" "$log"; do
		kill -0 "$PID" 2>/dev/null || { cat "$log" >&2; exit 1; }
		sleep 0.005
	done
	READY_S=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
	READY_CPU=$(cpu "$PID")
	RESYNC=$(grep "resync (start)" "$log" | sed 's/^classifier: sync: //')
	LOG=$log
}
STARTS=0

stop_daemon()
{
	kill "$PID"
	wait "$PID" || true
	PID=
}

start_daemon
START_READY=$READY_S
START_CPU=$READY_CPU
START_RESYNC=$RESYNC
read -r START_RSS START_HWM <<< "$(mem "$PID")"
echo "# start-up: $START_READY s ($START_RESYNC), RSS $START_RSS MiB" >&2
cls route list synced > "$TMP/got"
if cmp -s "$TMP/want" <(sort "$TMP/got"); then
	EQUAL="equal to the table ($(wc -l < "$TMP/got") routes)"
else
	EQUAL="DIFFERENT from the table: $(diff "$TMP/want" <(sort "$TMP/got") | head -3 | tr '\n' ' ')"
fi
rm "$TMP/got"
echo "# route list synced: $EQUAL" >&2

# side by side: `route load` of the same routes into pins of their own
mkdir -p "$TMP/bpffs2"
mount -t bpf bpf "$TMP/bpffs2"
cls2() { "$CLS" --bpffs "$TMP/bpffs2" "$@"; }
cls2 class add 1:5 name five
cls2 class add 1:6 name six
awk '{ print $1, $2 }' "$TMP/want" > "$TMP/routes"
t0=$EPOCHREALTIME
cls2 route load "$TMP/routes"
LOAD_S=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
cls2 purge
umount "$TMP/bpffs2"
rm "$TMP/routes"
echo "# route load of the same routes: $LOAD_S s" >&2

stop_daemon
start_daemon
RESTART_READY=$READY_S
RESTART_CPU=$READY_CPU
RESTART_RESYNC=$RESYNC
echo "# restart: $RESTART_READY s ($RESTART_RESYNC)" >&2

LOAD_CHURN=$(cut -d' ' -f1-3 /proc/loadavg)
CPU0=$(cpu "$PID")
ip netns exec "$NS" "$SYNCBENCH" churn 100 v0 "$N" "$RATE" "$SECS" "$BPFFS" \
	> "$TMP/churn" 2> "$TMP/churn.err" || { cat "$TMP/churn.err" >&2; exit 1; }
read -r CHURN_RSS CHURN_HWM <<< "$(mem "$PID")"
CHURN_CPU=$(awk -v a="$CPU0" -v b="$(cpu "$PID")" -v s="$SECS" 'BEGIN { printf "%.0f", (b - a) * 100 / s }')
OVERRUNS=$(grep -c "overrun:" "$LOG" || :)
ERRORS=$(cls -j status | jq .sync.errors)
stop_daemon
echo "# churn: $(tr '\n' ' ' < "$TMP/churn")" >&2

mkdir -p "$(dirname "$OUT")"
cat > "$OUT" <<EOF_MD
<!-- SPDX-License-Identifier: GPL-2.0-only -->
# Route sync daemon: measurements (bench/sync.sh)

$(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%d), commit $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown).
\`classifier sync\` over the pinned maps (private bpffs in a network
namespace).  Load average before: $LOAD_BEFORE; before the churn:
$LOAD_CHURN (the machine is shared).

| what | measured |
|---|---|
| fill table 100 with $N routes (\`ip -batch\`) | $FILL_S s |
| dump of the table alone (kernel + copy, no decoding) | $(val dump_s "$TMP/decode") s for $(val routes "$TMP/decode") routes |
| decode, ours (kroute_decode: libnl's nla accessors) | $(val ours_ns "$TMP/decode") ns a route |
| decode, libnl (rtnl_route_parse + rtnl_route_put) | $(val libnl_ns "$TMP/decode") ns a route |
| keeping libnl route objects (a cache) | $(val libnl_keep_bytes "$TMP/decode") bytes a route |
| start-up on empty pins, exec to the first resync published | $START_READY s wall, $START_CPU s CPU (both threads) |
| its log line | $START_RESYNC |
| \`route list synced\` after it | $EQUAL |
| \`route load\` of the same routes, same run (for scale) | $LOAD_S s wall |
| daemon memory after start-up | VmRSS $START_RSS MiB, VmHWM $START_HWM MiB |
| restart over the synced pins, exec to the first resync | $RESTART_READY s wall, $RESTART_CPU s CPU |
| its log line | $RESTART_RESYNC |
| churn: $RATE changes/s for $SECS s, sent / seen by lookup / lost | $(val sent "$TMP/churn") / $(val seen "$TMP/churn") / $(val lost "$TMP/churn") |
| churn: kernel change to the trie holding it (lookup) | p50 $(val p50_ms "$TMP/churn") ms, p99 $(val p99_ms "$TMP/churn") ms, max $(val max_ms "$TMP/churn") ms |
| churn: overruns logged, sync errors, prober handle reopened | $OVERRUNS, $ERRORS, $(val reopened "$TMP/churn") |
| churn: the daemon's CPU (user + system, % of one CPU) | $CHURN_CPU % |
| daemon memory after the churn (1M routes followed) | VmRSS $CHURN_RSS MiB, VmHWM $CHURN_HWM MiB |
EOF_MD
cat "$OUT"
