#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmarks: classifier vs tc u32 vs nftables vs nothing, same prefixes,
# same packets.  Writes bench/results/ (or --out DIR): raw.jsonl, results.md,
# results.json, ns_per_packet.png.
#   bench/run.sh [--smoke | --quick] [--out DIR] BUILD_DIR
# Needs root, clang, bpftool, tc, nft, python3 (gnuplot-nox for the plot).
# Everything runs in network namespaces joined by veth pairs, and a private
# bpffs; the trap removes them on every exit.
set -euo pipefail

MODE=full
OUT=
while [ $# -gt 1 ]; do
	case "$1" in
	--smoke) MODE=smoke ;;
	--quick) MODE=quick ;;
	--full) MODE=full ;;
	--out) OUT=$2; shift ;;
	*) echo "usage: $0 [--smoke|--quick] [--out DIR] BUILD_DIR" >&2; exit 2 ;;
	esac
	shift
done
[ $# -eq 1 ] || { echo "usage: $0 [--smoke|--quick] [--out DIR] BUILD_DIR" >&2; exit 2; }
BUILD=$1
SRC=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$OUT" ] || { [ $MODE = full ] && OUT=$SRC/bench/results || OUT=$BUILD/bench/results-$MODE; }
SEED=1

case $MODE in
smoke)	PROG_SIZES=10,1000; PROG_ROUNDS=2; PROG_REPEAT=2000; T6_SIZES=1000
	LOAD_SIZES="1000"; SORTED_N=100; LOAD_REPS=1
	REAL_SIZES="10 1000"; REAL_ROUNDS=1; REAL_SECS=0.1; DESTS="16"
	STAT_REPS=3; INCR_OPS=6 ;;
quick)	PROG_SIZES=10,1000,100000,1000000; PROG_ROUNDS=3; PROG_REPEAT=20000
	T6_SIZES=100000,1000000
	LOAD_SIZES="100000"; SORTED_N=200; LOAD_REPS=1
	REAL_SIZES="10 1000 10000"; REAL_ROUNDS=3; REAL_SECS=0.2; DESTS="16"
	STAT_REPS=5; INCR_OPS=30 ;;
full)	PROG_SIZES=10,1000,100000,1000000; PROG_ROUNDS=11; PROG_REPEAT=100000
	T6_SIZES=100000,1000000
	LOAD_SIZES="100000 1000000"; SORTED_N=1000; LOAD_REPS=3
	REAL_SIZES="10 100 1000 10000 100000"; REAL_ROUNDS=9; REAL_SECS=0.4
	DESTS="16 4096"; STAT_REPS=11; INCR_OPS=60 ;;
esac
U32_MAX=10000

[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 1; }
for t in ip tc nft python3; do
	command -v $t >/dev/null || { echo "bench: $t missing" >&2; exit 1; }
done

P=cb$$ # namespace prefix
TMP=$(mktemp -d /tmp/clsbench.XXXXXX)
FS=$TMP/bpffs
FS2=$TMP/bpffs2 # a second classifier, its IPv4 table off
VARIANTS="none cls u32 nft cls_nostats cls_trie"
cleanup() {
	set +e
	[ -n "${BG:-}" ] && kill "$BG" 2>/dev/null && wait "$BG" 2>/dev/null
	[ -n "${KSTATS0:-}" ] && echo "$KSTATS0" > /proc/sys/kernel/bpf_stats_enabled
	for ns in none cls u32 nft cls_nostats cls_trie snk load; do
		ip netns del $P-$ns 2>/dev/null
	done
	mountpoint -q "$FS" && umount "$FS"
	mountpoint -q "$FS2" && umount "$FS2"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '  %-8s %s\n' BENCH "$*" >&2; }
nsx() { ip netns exec "$P-$1" "${@:2}"; }

log "build ($BUILD)"
make -s -C "$SRC" OUTPUT="$BUILD" "$BUILD/classifier" >&2
make -s -C "$SRC" -f bench/bench.mk OUTPUT="$BUILD" >&2
B=$(cd "$BUILD" && pwd)
CLS="$B/classifier --bpffs $FS"
CLS2="$B/classifier --bpffs $FS2"
GEN=$B/bench/prefixgen

mkdir -p "$OUT" "$FS" "$FS2"
mount -t bpf bpf "$FS"
mount -t bpf bpf "$FS2"
RAW=$OUT/raw.jsonl
: > "$RAW"
T_START=${EPOCHREALTIME/./}000

# --- 1. program cost -------------------------------------------------------
log "program cost: N=$PROG_SIZES, $PROG_ROUNDS rounds"
"$B/bench/progbench" --sizes $PROG_SIZES --rounds $PROG_ROUNDS \
	--repeat $PROG_REPEAT --seed $SEED >> "$RAW"
log "program cost, IPv4 trie vs DIR-24-8 table: N=$PROG_SIZES"
"$B/bench/progbench" --table 1 --sizes $PROG_SIZES --rounds $PROG_ROUNDS \
	--repeat $PROG_REPEAT --seed $SEED >> "$RAW"
log "memory latency by working set"
"$B/bench/memlat" >> "$RAW"
log "program cost, IPv6 table: N=$T6_SIZES"
"$B/bench/progbench" --table6 1 --sizes $T6_SIZES --rounds $PROG_ROUNDS \
	--repeat $PROG_REPEAT --seed $SEED >> "$RAW"
# The latency of a random line of the working set the spread cases touch.
T6_LINES=$(sed -n 's/.*"part":"t6path".*"spread_distinct_lines":\([0-9]*\).*/\1/p' \
	"$RAW" | tail -1)
for i in 1 2 3; do "$B/bench/memlat" "$T6_LINES" >> "$RAW"; done

# --- namespaces (attaching the classifier creates its pins) ----------------
# One sender namespace per variant, all into one sink, which drops the packets
# (no route back, forwarding off): the same receive cost for every variant.
ip netns add $P-snk
k=0
declare -A IDX
for v in $VARIANTS; do
	k=$((k + 1)); IDX[$v]=$k
	ip netns add $P-$v
	ip link add v0 netns $P-$v type veth peer name s$k netns $P-snk
	nsx $v ip addr add 10.99.$k.1/24 dev v0
	nsx $v ip link set v0 up txqueuelen 10000
	nsx $v ip link set lo up
	nsx $v ip route add default via 10.99.$k.2
	nsx snk ip addr add 10.99.$k.2/24 dev s$k
	nsx snk ip link set s$k up
	nsx $v tc qdisc add dev v0 root handle 1: htb default 1 r2q 1000
	nsx $v tc class add dev v0 parent 1: classid 1:1 htb rate 100gbit quantum 60000
	for c in $(seq 16 31); do
		nsx $v tc class add dev v0 parent 1: classid 1:$(printf %x $c) \
			htb rate 100gbit quantum 60000
	done
	# Resolve the gateway once, before anything is timed.
	nsx $v ping -c1 -W1 10.99.$k.2 >/dev/null
done
nsx cls $CLS attach dev v0 egress >/dev/null
nsx cls_nostats $CLS attach dev v0 egress >/dev/null
prog_id() { # ns cli: bpftool 7.1 does not list tcx links; the CLI does
	nsx $1 ${@:2} -j status | python3 -c '
import json, sys
for a in json.load(sys.stdin).get("attached", []):
    if a.get("hook") == "egress" and a.get("prog_id"):
        print(a["prog_id"]); sys.exit(0)
sys.exit(1)'
}
printf 'class add 1:%x\n' $(seq 16 31) > $TMP/classes.batch
$CLS -batch $TMP/classes.batch >/dev/null
# The table on whatever the set's size (auto would leave small sets to the
# trie), so `cls` always measures it.
$CLS table on >/dev/null
# Table off before attaching: off/on/rebuild re-point every attachment,
# which the CLI finds only in its own network namespace.
$CLS2 -batch $TMP/classes.batch >/dev/null
$CLS2 table off >/dev/null
nsx cls_trie $CLS2 attach dev v0 egress >/dev/null
PROG_ID=$(prog_id cls $CLS) || { echo "bench: cannot find the attached program" >&2; exit 1; }
PROG_ID2=$(prog_id cls_trie $CLS2) || { echo "bench: cannot find the attached program" >&2; exit 1; }

# --- 3. loading ---------------------------------------------------------------
meminfo() { awk '/^(Slab|SUnreclaim|VmallocUsed|Percpu):/ {printf "%s%s", s, $2; s=" "}' /proc/meminfo; }
mem_json() { # before after -> {"slab_kb":..,...}
	python3 - "$1" "$2" <<'PY'
import sys
a=[int(x) for x in sys.argv[1].split()]; b=[int(x) for x in sys.argv[2].split()]
k=["slab_kb","sunreclaim_kb","vmalloc_kb","percpu_kb"]
print(",".join('"%s":%d' % (n, y - x) for n, x, y in zip(k, a, b)))
PY
}
ip netns add $P-load
# The kernel frees a flushed table after the command returns (a million
# trie nodes: a second or so of its time): let it finish, or the next load
# is timed against it.  A replacing `route load` frees the old table only
# after it has published the new one.
settle() {
	local a b i
	a=$(awk '/^Slab:/ {print $2}' /proc/meminfo)
	for i in $(seq 1 25); do
		sleep 0.2
		b=$(awk '/^Slab:/ {print $2}' /proc/meminfo)
		[ $((a - b)) -lt 1024 ] && break
		a=$b
	done
	sleep 0.3
}
# One timed load: tool n file [extra json]; the table is emptied first.
load_one() {
	local tool=$1 n=$2 rep=$3 extra=${4:-} m0 m1 t0 t1
	$CLS route flush
	nsx load nft delete table ip clsbench 2>/dev/null || true
	settle
	m0=$(meminfo); t0=${EPOCHREALTIME/./}000
	case $tool in
	route_load|route_load_sorted) $CLS route load $TMP/l.$tool ;;
	batch_route_add) $CLS -batch $TMP/l.$tool ;;
	nft_f) nsx load nft -f $TMP/l.$tool ;;
	esac
	t1=${EPOCHREALTIME/./}000; m1=$(meminfo)
	case $tool in # the IPv4 table the load left behind
	route_load*|batch_route_add) extra="$extra\"table\":$($CLS -j table),"
	esac
	echo "{\"part\":\"load\",\"tool\":\"$tool\",\"n\":$n,\"rep\":$rep,$extra\"ns\":$((t1 - t0)),$(mem_json "$m0" "$m1")}" >> "$RAW"
}
# -batch of single adds, as `route list` prints (sorted by prefix): one
# command per line, so only a small N.
n=$SORTED_N
$GEN routes $n $SEED > $TMP/l.route_load_sorted
$GEN batch $n $SEED > $TMP/l.batch_route_add
for rep in $(seq 1 $(( LOAD_REPS > 2 ? 2 : LOAD_REPS ))); do
	load_one route_load_sorted $n $rep
	load_one batch_route_add $n $rep
done
for n in $LOAD_SIZES; do
	# Grouped by class, so unordered: the loader must sort.  And the same
	# prefixes as `route list` prints them, in address order.
	$GEN byclass $n $SEED > $TMP/l.route_load
	$GEN routes $n $SEED > $TMP/l.route_load_sorted
	$GEN nft $n $SEED 2>$TMP/nftn > $TMP/l.nft_f
	intervals=$(awk '{print $5}' $TMP/nftn)
	# nft -f of 1M prefixes takes about a minute here: once at 1M.
	nreps=$LOAD_REPS; [ $n -ge 1000000 ] && nreps=1
	for rep in $(seq 1 $LOAD_REPS); do
		load_one route_load $n $rep
		load_one route_load_sorted $n $rep
		if [ $rep -le $nreps ]; then
			load_one nft_f $n $rep "\"intervals\":$intervals,"
		fi
	done
	log "load N=$n done"
done
# The largest set again (load_one flushes first), then single changes
# and whole-table rebuilds.
log "route add/del, table rebuild at N=$n"
$CLS route load $TMP/l.route_load
timed() { local t0 t1; t0=${EPOCHREALTIME/./}000; "$@" >/dev/null; t1=${EPOCHREALTIME/./}000; echo $((t1 - t0)); }
# 10.0.0.0/8 is outside every generated set; lengths /32, /24, /16.
for i in $(seq 0 $((INCR_OPS - 1))); do
	case $((i % 3)) in
	0) p=10.1.$((i / 256)).$((i % 256))/32 ;;
	1) p=10.64.$i.0/24 ;;
	2) p=10.$((128 + i % 100)).0.0/16 ;;
	esac
	echo "{\"part\":\"incr\",\"op\":\"cli_route_add\",\"len\":${p#*/},\"n\":$n,\"ns\":$(timed $CLS route add $p 1:10)}" >> "$RAW"
	echo "{\"part\":\"incr\",\"op\":\"cli_route_del\",\"len\":${p#*/},\"n\":$n,\"ns\":$(timed $CLS route del $p)}" >> "$RAW"
	echo "{\"part\":\"incr\",\"op\":\"cli_version\",\"n\":$n,\"ns\":$(timed $B/classifier --version)}" >> "$RAW"
done
"$B/bench/routebench" $FS $((INCR_OPS * 10)) $LOAD_REPS |
	sed "s/}\$/,\"loaded\":$n}/" >> "$RAW"
# Reads an operator runs often, with the largest set loaded: status (from
# the counts the library keeps, no walk over the routes) and a -batch of
# 100k lookups of destinations inside the set (text and JSON).
$GEN dests $n $SEED 100000 | sed 's/^/lookup /' > $TMP/lookups
for rep in $(seq 1 $STAT_REPS); do
	echo "{\"part\":\"cli\",\"op\":\"status\",\"n\":$n,\"ns\":$(timed $CLS status)}" >> "$RAW"
	echo "{\"part\":\"cli\",\"op\":\"status_json\",\"n\":$n,\"ns\":$(timed $CLS -j status)}" >> "$RAW"
done
for rep in $(seq 1 $LOAD_REPS); do
	echo "{\"part\":\"cli\",\"op\":\"lookup_batch\",\"n\":$n,\"lookups\":$(wc -l < $TMP/lookups),\"ns\":$(timed $CLS -batch $TMP/lookups)}" >> "$RAW"
	echo "{\"part\":\"cli\",\"op\":\"lookup_batch_json\",\"n\":$n,\"lookups\":$(wc -l < $TMP/lookups),\"ns\":$(timed $CLS -j -batch $TMP/lookups)}" >> "$RAW"
done
rm -f $TMP/l.*
nsx load nft delete table ip clsbench 2>/dev/null || true
$CLS route flush
ip netns del $P-load

# --- 2. real packets ------------------------------------------------------
for d in $DESTS; do
	for n in $REAL_SIZES; do $GEN dests $n $SEED $d > $TMP/d$n.$d; done
done
blast() { # variant destfile extra-args...
	nsx $1 "$B/bench/blast" -f $2 -t $REAL_SECS -c 1 -S 10.99.${IDX[$1]}.1 "${@:3}"
}
for n in $REAL_SIZES; do
	log "real packets N=$n: setup"
	$GEN byclass $n $SEED > $TMP/r$n
	ts=${EPOCHREALTIME/./}000; $CLS route load $TMP/r$n; te=${EPOCHREALTIME/./}000
	echo "{\"part\":\"setup\",\"variant\":\"cls\",\"n\":$n,\"ns\":$((te - ts))}" >> "$RAW"
	ts=${EPOCHREALTIME/./}000; $CLS2 route load $TMP/r$n; te=${EPOCHREALTIME/./}000
	echo "{\"part\":\"setup\",\"variant\":\"cls_trie\",\"n\":$n,\"ns\":$((te - ts))}" >> "$RAW"
	vars="none cls nft cls_nostats cls_trie"
	if [ $n -le $U32_MAX ]; then
		vars="$vars u32"
		nsx u32 tc filter del dev v0 parent 1: prio 1 2>/dev/null || true
		$GEN u32 $n $SEED v0 > $TMP/u$n
		ts=${EPOCHREALTIME/./}000; nsx u32 tc -batch $TMP/u$n; te=${EPOCHREALTIME/./}000
		echo "{\"part\":\"setup\",\"variant\":\"u32\",\"n\":$n,\"ns\":$((te - ts))}" >> "$RAW"
	fi
	nsx nft nft delete table ip clsbench 2>/dev/null || true
	$GEN nft $n $SEED 2>/dev/null > $TMP/n$n
	ts=${EPOCHREALTIME/./}000; nsx nft nft -f $TMP/n$n; te=${EPOCHREALTIME/./}000
	echo "{\"part\":\"setup\",\"variant\":\"nft\",\"n\":$n,\"ns\":$((te - ts))}" >> "$RAW"
	set -- $vars
	nv=$#
	for r in $(seq 1 $REAL_ROUNDS); do
		for d in $DESTS; do
			set -- $vars
			# Rotate the order each round.
			for i in $(seq 1 $(( (r - 1) % nv ))); do set -- "${@:2}" "$1"; done
			for v in "$@"; do
				[ $v = cls_nostats ] && $CLS stats off
				res=$(blast $v $TMP/d$n.$d)
				[ $v = cls_nostats ] && $CLS stats on
				echo "{\"part\":\"real\",\"variant\":\"$v\",\"n\":$n,\"dests\":$d,\"round\":$r,${res#\{}" >> "$RAW"
			done
		done
	done
	for d in $DESTS; do
		res=$(blast cls $TMP/d$n.$d -p $PROG_ID)
		echo "{\"part\":\"kstats\",\"variant\":\"cls\",\"n\":$n,\"dests\":$d,${res#\{}" >> "$RAW"
		res=$(blast cls_trie $TMP/d$n.$d -p $PROG_ID2)
		echo "{\"part\":\"kstats\",\"variant\":\"cls_trie\",\"n\":$n,\"dests\":$d,${res#\{}" >> "$RAW"
	done
	rm -f $TMP/u$n $TMP/n$n $TMP/r$n
done

# --- 4. counters -----------------------------------------------------------
log "counters"
for i in $(seq 1 $STAT_REPS); do
	echo "{\"part\":\"counters\",\"op\":\"stats_json\",\"ns\":$(timed $CLS -j stats)}" >> "$RAW"
	echo "{\"part\":\"counters\",\"op\":\"stats_per_cpu_json\",\"ns\":$(timed $CLS -j stats show per-cpu)}" >> "$RAW"
	echo "{\"part\":\"counters\",\"op\":\"true_exec\",\"ns\":$(timed $B/classifier --version)}" >> "$RAW"
done
# Under traffic: a blaster runs in the background while we flip things.
KSTATS0=$(cat /proc/sys/kernel/bpf_stats_enabled)
# Not through nsx: $! must be the blaster itself (ip netns exec execs it).
ip netns exec $P-cls "$B/bench/blast" -f $TMP/d$(set -- $REAL_SIZES; echo $1).16 \
	-t 30 -c 1 -S 10.99.${IDX[cls]}.1 >/dev/null &
BG=$!
sleep 0.2
for i in $(seq 1 $STAT_REPS); do
	echo "{\"part\":\"counters\",\"op\":\"stats_off_under_traffic\",\"ns\":$(timed $CLS stats off)}" >> "$RAW"
	echo "{\"part\":\"counters\",\"op\":\"stats_on_under_traffic\",\"ns\":$(timed $CLS stats on)}" >> "$RAW"
	t0=${EPOCHREALTIME/./}000; echo 1 > /proc/sys/kernel/bpf_stats_enabled; t1=${EPOCHREALTIME/./}000
	echo 0 > /proc/sys/kernel/bpf_stats_enabled; t2=${EPOCHREALTIME/./}000
	echo "{\"part\":\"counters\",\"op\":\"sysctl_bpf_stats_on_under_traffic\",\"ns\":$((t1 - t0))}" >> "$RAW"
	echo "{\"part\":\"counters\",\"op\":\"sysctl_bpf_stats_off_under_traffic\",\"ns\":$((t2 - t1))}" >> "$RAW"
done
echo "$KSTATS0" > /proc/sys/kernel/bpf_stats_enabled
kill $BG 2>/dev/null; wait $BG 2>/dev/null || true
BG=

T_END=${EPOCHREALTIME/./}000
echo "{\"part\":\"meta\",\"mode\":\"$MODE\",\"seed\":$SEED,\"wall_s\":$(( (T_END - T_START) / 1000000000 ))}" >> "$RAW"
log "report"
python3 "$SRC/bench/report.py" "$OUT" "$SRC"
log "done in $(( (T_END - T_START) / 1000000000 )) s: $OUT/results.md"
