#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Route sync at full-table scale with real BGP (issue 19, item 3):
#   bench/sync-bird.sh [--v4 N] [--v6 N] [--wait S] [--out FILE]
#	[--classifier BINARY] BUILD_DIR
# (defaults: 600000 IPv4 and 300000 IPv6 prefixes, 120 s; `make
# sync-bird-bench`, BUILD_DIR=build).  Two BIRD 2 daemons in two network
# namespaces: the upstream announces the prefixes over eBGP, a quarter
# each with community (65000, 10), (65000, 20), (65000, 40) or none, from
# one static protocol per community and family; the host's BIRD runs
# deploy/sync/bird-classes.conf (IPv4: table 100 with the realm; IPv6:
# tables 110, 120, 140) and `classifier sync` deploy/sync/sync.conf, on a
# private bpffs, with its default event buffer.  Then, in turn:
#   withdraw-10   the upstream withdraws community 10 (a quarter of all)
#   announce-10   and announces it again
#   sessions-down both BGP sessions go down: every route is withdrawn
#   sessions-up   and come back: every route announced again
# Each is timed from the kernel settling (the last of the route
# notifications the scenario makes, `syncbench settle`) to classifier's synced routes staying equal in
# number to what the tables hold (`classifier -j status`, every 0.2 s),
# and the whole synced set is then compared with the kernel's tables.
# One that has not converged WAIT s after the kernel settled is reported
# with the routes that differ.  --classifier runs another build's
# daemon (an older commit's, for a before and after) with BUILD_DIR's
# syncbench.  Needs root, bird2, about 3 GiB of memory
# and 15 minutes at the default size on 2 CPUs.
set -euo pipefail

N4=600000
N6=300000
WAIT=120
OUT=
CLS=
while [ $# -gt 1 ]; do
	case $1 in
	--classifier) CLS=$(realpath "$2"); shift ;;
	--v4) N4=$2; shift ;;
	--v6) N6=$2; shift ;;
	--wait) WAIT=$2; shift ;;
	--out) OUT=$2; shift ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || { echo "usage: $0 [--v4 N] [--v6 N] [--wait S] [--out FILE] [--classifier BINARY] BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$CLS" ] || CLS=$BUILD/classifier
SYNCBENCH=$BUILD/bench/syncbench
for b in "$CLS" "$SYNCBENCH"; do
	[ -x "$b" ] || { echo "bench/sync-bird.sh: build $b first (make sync-bird-bench)" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "bench/sync-bird.sh: needs root" >&2; exit 1; }
command -v bird >/dev/null || { echo "bench/sync-bird.sh: needs bird2 (tests/deps.sh)" >&2; exit 2; }
if [ $((N4 % 4)) != 0 ] || [ $((N6 % 4)) != 0 ]; then
	echo "bench/sync-bird.sh: counts must be multiples of 4" >&2
	exit 2
fi
[ -n "$OUT" ] || OUT=$BUILD/bench/sync-bird-results.md

NS_H=csbh$$
NS_U=csbu$$
TMP=$(mktemp -d /tmp/clssyncbird.XXXXXX)
BPFFS=$TMP/bpffs
PIDS=
cleanup()
{
	set +e
	# shellcheck disable=SC2086
	[ -z "$PIDS" ] || kill $PIDS 2>/dev/null
	sleep 0.5
	[ -d "$BPFFS/classifier" ] && cls purge >/dev/null 2>&1
	umount "$BPFFS" 2>/dev/null
	ip netns del "$NS_H" 2>/dev/null
	ip netns del "$NS_U" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cls() { nsenter --net="/run/netns/$NS_H" "$CLS" --bpffs "$BPFFS" "$@"; }
birdc_() { birdc -s "$TMP/$1.ctl" "${@:2}" >/dev/null; }
now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "# $*" >&2; }

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
ip netns add "$NS_H"
ip netns add "$NS_U"
ip -n "$NS_H" link set lo up
ip -n "$NS_U" link set lo up
ip -n "$NS_H" link add h0 type veth peer name u0 netns "$NS_U"
ip -n "$NS_H" addr add 10.200.0.1/24 dev h0
ip -n "$NS_U" addr add 10.200.0.2/24 dev u0
ip -n "$NS_H" -6 addr add fd00:200::1/64 dev h0 nodad
ip -n "$NS_U" -6 addr add fd00:200::2/64 dev u0 nodad
ip -n "$NS_H" link set h0 up
ip -n "$NS_U" link set u0 up
mkdir -p "$BPFFS"
mount -t bpf bpf "$BPFFS"
cls class add 1:10 name web
cls class add 1:20 name bulk
cls class add 1:40 name blackhole drop

# sessions NAME SELF PEER AS PEER_AS IMPORT EXPORT: eBGP sessions NAME4
# and NAME6 from 10.200.0.SELF and fd00:200::SELF to the peer's
sessions()
{
	local f l n
	for f in 4 6; do
		if [ $f = 4 ]; then l=10.200.0.$2 n=10.200.0.$3; else l=fd00:200::$2 n=fd00:200::$3; fi
		cat <<-CONF
		protocol bgp $1$f {
			local $l as $4;
			neighbor $n as $5;
			connect delay time 1; connect retry time 1; error wait time 1, 2;
			ipv$f { import $6; export $7; };
		}
		CONF
	done
}

# Prefix i: IPv4 100.0.0.0/24 onwards, IPv6 2a00:X:Y::/48; community
# 10, 20, 40 or none by i mod 4.
say "writing the upstream's $N4 IPv4 and $N6 IPv6 routes"
{
	cat <<-CONF
	router id 10.200.0.2;
	log "$TMP/up.log" { warning, error, fatal };
	protocol device { scan time 10; }
	CONF
	awk -v n4="$N4" -v n6="$N6" 'BEGIN {
		split("10 20 40 0", comm, " ")
		for (c = 1; c <= 4; c++) {
			printf "protocol static s4_%s {\n\tipv4;\n", comm[c]
			for (i = c - 1; i < n4; i += 4) {
				printf "\troute %d.%d.%d.0/24 blackhole", 100 + int(i / 65536), int(i / 256) % 256, i % 256
				if (comm[c]) printf " { bgp_community.add((65000, %s)); }", comm[c]
				printf ";\n"
			}
			printf "}\nprotocol static s6_%s {\n\tipv6;\n", comm[c]
			for (i = c - 1; i < n6; i += 4) {
				printf "\troute 2a00:%x:%x::/48 blackhole", int(i / 65536), i % 65536
				if (comm[c]) printf " { bgp_community.add((65000, %s)); }", comm[c]
				printf ";\n"
			}
			printf "}\n"
		}
	}'
	sessions h 2 1 65001 65000 none all
} > "$TMP/up.conf"
{
	cat <<-CONF
	router id 10.200.0.1;
	log "$TMP/host.log" { warning, error, fatal };
	define CLS_ASN = 65000;
	protocol device { scan time 10; }
	include "$SRC/deploy/sync/bird-classes.conf";
	CONF
	sessions up 1 2 65000 65001 all none
} > "$TMP/host.conf"

start_bird()
{
	ip netns exec "$2" bird -f -c "$TMP/$1.conf" -s "$TMP/$1.ctl" \
		-P "$TMP/$1.pid" >> "$TMP/$1.out" 2>&1 &
	PIDS="$PIDS $!"
}

# kernel_count: the routes of the tables sync.conf reads
kernel_count()
{
	local n=0 t
	n=$(ip -n "$NS_H" route show table 100 2>/dev/null | wc -l)
	for t in 110 120 140; do
		n=$((n + $(ip -n "$NS_H" -6 route show table $t 2>/dev/null | wc -l)))
	done
	echo "$n"
}

# expected: "PREFIX CLASSID" for every route sync.conf selects now
expected()
{
	local t
	ip -n "$NS_H" route show table 100 proto bird |
		awk '{ for (i = 2; i < NF; i++) if ($i == "realm" && ($(i + 1) == 10 || $(i + 1) == 20 || $(i + 1) == 40)) print $1, "1:" $(i + 1) }'
	for t in 110 120 140; do
		ip -n "$NS_H" -6 route show table $t proto bird | awk -v c="1:$((t - 100))" '{ print $1, c }'
	done
}

synced() { cls route list synced | awk '{ print $1, $2 }'; }

# compare: how many synced routes differ from the kernel's selection
compare()
{
	expected | sort > "$TMP/want"
	synced | sort > "$TMP/got"
	DIFF_EXTRA=$(comm -13 "$TMP/want" "$TMP/got" | wc -l)
	DIFF_MISSING=$(comm -23 "$TMP/want" "$TMP/got" | wc -l)
	WANT_N=$(wc -l < "$TMP/want")
}

say "starting BIRD (upstream, host)"
t0=$(now)
start_bird up "$NS_U"
start_bird host "$NS_H"
total=$((N4 + N6 * 3 / 4))
until [ "$(kernel_count)" -eq "$total" ]; do
	sleep 5
	[ "$(since "$t0" | cut -d. -f1)" -lt 1800 ] ||
		{ echo "bench/sync-bird.sh: the kernel has $(kernel_count) of $total routes after 30 min" >&2; exit 1; }
done
FILL_S=$(since "$t0")
say "kernel tables full ($total routes) after $FILL_S s"

LOG=$TMP/sync.log
t0=$(now)
nsenter --net="/run/netns/$NS_H" "$CLS" --bpffs "$BPFFS" sync config \
	"$SRC/deploy/sync/sync.conf" 2> "$LOG" &
SYNC_PID=$!
PIDS="$PIDS $SYNC_PID"
until grep -q "resync (start)" "$LOG"; do
	kill -0 "$SYNC_PID" 2>/dev/null || { cat "$LOG" >&2; exit 1; }
	sleep 0.1
done
START_S=$(since "$t0")
compare
START_EQ="$WANT_N routes, $DIFF_EXTRA extra, $DIFF_MISSING missing"
say "sync started in $START_S s: $START_EQ"

cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' "/proc/$1/stat"; }
mem() { awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 } END { printf "%.0f/%.0f", r / 1024, h / 1024 }' "/proc/$1/status"; }

# the synced counts, every 0.2 s: "TIME V4 V6"
poll()
{
	while :; do
		echo "$EPOCHREALTIME $(cls -j status | jq -r '"\(.routes.v4.synced) \(.routes.v6.synced)"')"
		sleep 0.2
	done > "$TMP/poll.$1"
}

ROWS=
# scenario NAME CHANGES WANT4 WANT6 BIRDC-COMMAND...: CHANGES route
# notifications make the kernel settled, and 3 s without another
scenario()
{
	local name=$1 changes=$2 w4=$3 w6=$4 settle cpu0 ov0 rs0 pp conv verdict
	shift 4
	ip netns exec "$NS_H" "$SYNCBENCH" settle 3000 900 "$changes" > "$TMP/settle.$name" &
	settle=$!
	until grep -q listening "$TMP/settle.$name"; do sleep 0.05; done
	cpu0=$(cpu "$SYNC_PID")
	ov0=$(grep -c "overrun:" "$LOG" || true)
	rs0=$(grep -c "resync (" "$LOG" || true)
	poll "$name" &
	pp=$!
	local t0
	t0=$(now)
	for c in "$@"; do
		# shellcheck disable=SC2086
		birdc_ up $c
	done
	wait "$settle"
	local first last events kov
	first=$(awk '$1 == "first_s" { print $2 }' "$TMP/settle.$name")
	last=$(awk '$1 == "last_s" { print $2 }' "$TMP/settle.$name")
	events=$(awk '$1 == "events" { print $2 }' "$TMP/settle.$name")
	kov=$(awk '$1 == "overruns" { print $2 }' "$TMP/settle.$name")
	say "$name: the kernel changed $events routes from $(awk -v a="$t0" -v b="$first" 'BEGIN { printf "%.1f", b - a }') s to $(awk -v a="$t0" -v b="$last" 'BEGIN { printf "%.1f", b - a }') s"
	# watch until the counts have been right for 15 s, or WAIT s
	while :; do
		conv=$(awk -v w4="$w4" -v w6="$w6" '$2 == w4 && $3 == w6 { if (!t) t = $1; next } { t = 0 } END { printf "%.3f\n", t }' "$TMP/poll.$name")
		if [ "$conv" != 0.000 ] && awk -v c="$conv" -v n="$EPOCHREALTIME" 'BEGIN { exit !(n - c > 15) }'; then
			break
		fi
		awk -v l="$last" -v n="$EPOCHREALTIME" -v w="$WAIT" 'BEGIN { exit !(n - l > w) }' && break
		sleep 1
	done
	kill "$pp"
	wait "$pp" 2>/dev/null || true
	compare
	if [ "$conv" != 0.000 ] && [ "$DIFF_EXTRA" = 0 ] && [ "$DIFF_MISSING" = 0 ]; then
		verdict=$(awk -v c="$conv" -v l="$last" 'BEGIN { d = c - l; printf "%.1f s", d < 0 ? 0 : d }')
	else
		verdict="not after $(since "$last") s: $DIFF_EXTRA extra, $DIFF_MISSING missing of $WANT_N"
	fi
	say "$name: $verdict"
	ROWS="$ROWS| $name | $events in $(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.1f", b - a }') s$( [ "$kov" = 0 ] || echo " ($kov overruns of the watcher)") | $verdict | $(( $(grep -c "overrun:" "$LOG" || true) - ov0 )) / $(( $(grep -c "resync (" "$LOG" || true) - rs0 )) | $(awk -v a="$cpu0" -v b="$(cpu "$SYNC_PID")" 'BEGIN { printf "%.1f", b - a }') s |
"
}

W4=$((N4 * 3 / 4))
W6=$((N6 * 3 / 4))
Q=$((N4 / 4 + N6 / 4))
scenario withdraw-10 $Q $((N4 / 2)) $((N6 / 2)) "disable s4_10" "disable s6_10"
scenario announce-10 $Q $W4 $W6 "enable s4_10" "enable s6_10"
scenario sessions-down "$total" 0 0 "disable h4" "disable h6"
scenario sessions-up "$total" $W4 $W6 "enable h4" "enable h6"
MEM=$(mem "$SYNC_PID")
kill "$SYNC_PID"
wait "$SYNC_PID" 2>/dev/null || true

mkdir -p "$(dirname "$OUT")"
cat > "$OUT" <<EOF_MD
### \`$("$CLS" --version | head -n 1)\`, $N4 IPv4 + $N6 IPv6 prefixes

$(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%d); load average before:
$LOAD_BEFORE.  \`$0 --v4 $N4 --v6 $N6 --wait $WAIT --classifier $CLS $1\`.
Kernel tables filled by BIRD in $FILL_S s ($total routes); \`classifier
sync\` started in $START_S s, then $START_EQ.

| scenario | kernel changes (settling) | synced set equal to the kernel's, after the kernel settled | overruns / resyncs | daemon CPU |
|---|---|---|---|---|
$ROWS
Daemon memory at the end (VmRSS/VmHWM): $MEM MiB.
EOF_MD
cat "$OUT"
grep -E "overrun|resync|error|kept|ended" "$LOG" | sed 's/^/# sync: /' | tail -n 40 >&2
