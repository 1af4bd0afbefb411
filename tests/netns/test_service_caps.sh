#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The capabilities and system calls the units allow are enough, and the
# capabilities are all needed: the commands classifier.service and
# classifier-sync.service run work with exactly the unit's
# CapabilityBoundingSet (root, as systemd runs them), fail without
# CAP_NET_ADMIN (clsact over netlink; the sync daemon's event buffer past
# net.core.rmem_max) or CAP_SYS_ADMIN (the live trie by id), and, traced, make no system call outside the unit's
# SystemCallFilter, open no socket family it forbids, write nothing
# outside the bpffs, read nothing in /proc but their own, and map nothing
# writable and executable.  `stats` works with the exporter's empty set
# on a read-only bpffs.  (systemd is not PID 1 here, so the unit itself
# cannot run; this checks what its settings would refuse.)
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

DEPLOY=$CLASSIFIER_SRC/deploy
setup_ns
ip -n "$NS_S" link add v0 type veth peer name v1
ip -n "$NS_S" link set v0 up
ip -n "$NS_S" link set v1 up
printf '10.0.0.0/8 web\n2001:db8::/32 1:20\n' > "$WORK/routes"

# unit_value UNIT KEY: the unit's KEY= values, space-joined
unit_value()
{
	sed -n "s/^$2=//p" "$DEPLOY/$1" | tr '\n' ' '
}

# setpriv's --bounding-set from "CAP_A CAP_B": "-all,+a,+b"
bounding()
{
	local c s=-all
	for c in $1; do
		c=${c#CAP_}
		s="$s,+${c,,}"
	done
	echo "$s"
}

# with CAPS CMD...: classifier CMD with exactly CAPS (root, bounding set
# and so permitted set = CAPS), in the test's namespace and bpffs
with()
{
	local caps=$1
	shift
	nsenter --net="/run/netns/$NS_S" \
		setpriv --bounding-set="$(bounding "$caps")" --inh-caps=-all \
		"$CLASSIFIER" --bpffs "$BPFFS" "$@"
}

CLS_CAPS=$(unit_value classifier.service CapabilityBoundingSet)
SYNC_CAPS=$(unit_value classifier-sync.service CapabilityBoundingSet)
EXP_CAPS=$(unit_value classifier-exporter.service CapabilityBoundingSet)
log "classifier.service: $CLS_CAPS; sync: $SYNC_CAPS; exporter: [$EXP_CAPS]"
[ -n "$CLS_CAPS" ] || fail "classifier.service has no CapabilityBoundingSet"

# What classifier.service and an operator's reload do, under strace so
# that the system calls can be checked against the filter below.
service_ops()
{
	"$@" class add 1:10 name web dscp EF
	"$@" class add 1:20 name bulk mark 0x20
	"$@" route add 192.0.2.0/24 class web
	"$@" route load "$WORK/routes"
	"$@" attach dev v0
	"$@" attach dev v1 mode tc
	"$@" attach dev v1 xdp xdp-mode generic
	"$@" lookup 10.1.2.3
	"$@" stats
	"$@" stats reset
	"$@" table rebuild
	"$@" status
	"$@" detach dev v1
	"$@" purge
}

traced()
{
	nsenter --net="/run/netns/$NS_S" \
		setpriv --bounding-set="$(bounding "$CLS_CAPS")" --inh-caps=-all \
		strace -f -qq -y -o "$WORK/strace.$((++n))" \
		"$CLASSIFIER" --bpffs "$BPFFS" "$@" >/dev/null ||
		fail "with classifier.service's capabilities: '$*' failed"
}
n=0
service_ops traced

# expand NAME...: system call names, @groups expanded by systemd (a
# group lists its member groups by name)
expand()
{
	local w
	for w in "$@"; do
		# shellcheck disable=SC2046 # one word per member
		case $w in
		@*) expand $(systemd-analyze syscall-filter "$w" |
			sed -n 's/^ \{4\}\([@a-z0-9_-]*\)$/\1/p') ;;
		*) echo "$w" ;;
		esac
	done
}

# check_traces UNIT TRACE...: the system calls, sockets, writes, /proc
# reads and mappings in the traces are all the unit's sandbox allows.
check_traces()
{
	local unit=$1 allowed used outside families f writes procs
	shift
	# shellcheck disable=SC2046
	allowed=$(expand $(unit_value "$unit" SystemCallFilter) | sort -u)
	used=$(sed -En 's/^[0-9]+ +([a-z0-9_]+)\(.*/\1/p' "$@" | sort -u)
	[ -n "$used" ] || fail "strace recorded no system call"
	outside=$(comm -23 <(echo "$used") <(echo "$allowed"))
	[ -z "$outside" ] ||
		fail "system calls outside $unit's filter: $(echo $outside)"
	log "$unit: system calls used: $(echo "$used" | wc -l), all in the filter"
	families=$(grep -ohE 'socket\(AF_[A-Z0-9]+' "$@" |
		sed 's/socket(//' | sort -u)
	for f in $families; do
		grep -Eq "^RestrictAddressFamilies=.*\b$f\b" "$DEPLOY/$unit" ||
			fail "socket($f) is outside $unit's RestrictAddressFamilies"
	done
	log "$unit: sockets opened: $(echo $families)"
	# ProtectSystem=strict, ReadWritePaths=/sys/fs/bpf (here: $BPFFS);
	# -y shows the directory behind an *at() call's fd as <PATH>.
	writes=$(grep -hE '^[0-9]+ +(openat\(.*O_(WRONLY|RDWR|CREAT)|mkdir|mkdirat|unlink|unlinkat|rmdir|rename|renameat2?)\(' \
		"$@" | grep -v ' = -1 ' | grep -v "[\"<]$BPFFS/" |
		grep -v '"/dev/null"' || :)
	[ -z "$writes" ] ||
		fail "$unit: writes outside the bpffs: $(echo "$writes" | head -n 2)"
	# ProcSubset=pid (what is not there anyway, like libbpf's look at
	# /proc/version_signature, is no loss; nor is kernel.bpf_stats_enabled,
	# which the exporter reads if it can, and calls unknown otherwise)
	procs=$(grep -h '"/proc/' "$@" | grep -v ' = -1 ' |
		grep -ohE '"/proc/[^"]*"' |
		grep -Ev '^"/proc/(self|thread-self|[0-9]+)(/|")' |
		grep -vx '"/proc/sys/kernel/bpf_stats_enabled"' || :)
	[ -z "$procs" ] || fail "$unit: opens outside ProcSubset=pid: $(echo $procs)"
	# MemoryDenyWriteExecute
	! grep -qE '(mmap|mprotect)\(.*PROT_WRITE\|PROT_EXEC|PROT_EXEC\|PROT_WRITE' \
		"$@" || fail "$unit: a writable and executable mapping"
}
check_traces classifier.service "$WORK"/strace.*

# each capability that nothing else implies is needed
# without CAP [SET]: SET (default: classifier.service's) without CAP
without()
{
	local drop=$1 c caps=
	for c in ${2:-$CLS_CAPS}; do
		[ "$c" = "$drop" ] || caps="$caps $c"
	done
	echo "$caps"
}
with "$CLS_CAPS" class add 1:10 name web >/dev/null
with "$(without CAP_NET_ADMIN)" attach dev v1 mode tc 2>/dev/null &&
	fail "clsact attach worked without CAP_NET_ADMIN: drop it from the unit"
with "$(without CAP_SYS_ADMIN)" route add 192.0.2.0/24 class web \
	2>/dev/null &&
	fail "route add worked without CAP_SYS_ADMIN: drop it from the unit"

# the sync daemon's set changes routes
[ -n "$SYNC_CAPS" ] ||
	fail "classifier-sync.service has no CapabilityBoundingSet"
with "$SYNC_CAPS" route replace 198.51.100.0/24 class web ||
	fail "route replace failed with classifier-sync.service's capabilities"
with "$SYNC_CAPS" route del 198.51.100.0/24 ||
	fail "route del failed with classifier-sync.service's capabilities"

# The daemon itself, with the unit's set, traced: it starts, follows a
# route, reloads on SIGHUP, stops on SIGTERM, and gets the event buffer
# it asks for (SO_RCVBUFFORCE: CAP_NET_ADMIN); without CAP_NET_ADMIN
# net.core.rmem_max caps it, which it says.
ip -n "$NS_S" route add 10.9.0.0/16 dev v0 table 100 realm 5
# sync_run CAPS LOG [strace ARGS]: the daemon until its first resync;
# its pid in $pid
sync_run()
{
	local caps=$1 log=$2
	shift 2
	nsenter --net="/run/netns/$NS_S" \
		setpriv --bounding-set="$(bounding "$caps")" --inh-caps=-all \
		"$@" "$CLASSIFIER" --bpffs "$BPFFS" sync table 100 realm 5 class web \
		> "$log" 2>&1 &
	track_pid $!
	for _ in $(seq 100); do
		grep -qs "resync (start)" "$log" && break
		sleep 0.05
	done
	grep -q "resync (start)" "$log" || fail "sync with [$caps]: $(cat "$log")"
	pid=$(cls -j status | jq -r .sync.pid)
}
with "$CLS_CAPS" class add 1:10 name web 2>/dev/null || :
sync_run "$SYNC_CAPS" "$WORK/sync.log" strace -f -qq -y -o "$WORK/sync-strace"
ip -n "$NS_S" route add 10.8.0.0/16 dev v0 table 100 realm 5
for _ in $(seq 50); do
	cls route list synced | grep -q 10.8.0.0/16 && break
	sleep 0.05
done
cls route list synced | grep -q 10.8.0.0/16 ||
	fail "sync with classifier-sync.service's capabilities did not follow a route"
kill -HUP "$pid"
sleep 0.3
kill -TERM "$pid"
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
grep -q "stop (Terminated)" "$WORK/sync.log" || fail "sync did not stop: $(cat "$WORK/sync.log")"
grep -q "event buffer 33554432 bytes" "$WORK/sync.log" ||
	fail "sync with the unit's set did not get its event buffer: $(grep buffer "$WORK/sync.log")"
check_traces classifier-sync.service "$WORK"/sync-strace*
sync_run "$(without CAP_NET_ADMIN "$SYNC_CAPS")" "$WORK/sync2.log"
kill -TERM "$pid"
grep -q "net.core.rmem_max caps it without CAP_NET_ADMIN" "$WORK/sync2.log" ||
	fail "sync without CAP_NET_ADMIN got its event buffer: drop CAP_NET_ADMIN from classifier-sync.service"

# The exporter as its unit runs it: a user of its own in the readers'
# group, the unit's capabilities, a read-only view of the pins
# (ProtectSystem=strict), the pin directory as classifier.tmpfiles makes
# it, and the pins made by classifier.service's set; traced while it
# answers a scrape and stops on SIGTERM.
READERS=61234
EXP_USER=61235
chmod 0711 "$WORK" # the way to the bpffs open to all, as /sys/fs/bpf is
cls purge
install -d -m 2750 -g "$READERS" "$BPFFS/classifier"
with "$CLS_CAPS" class add 1:10 name web
with "$CLS_CAPS" class add 1:20 name bulk
with "$CLS_CAPS" route load "$WORK/routes" ||
	fail "route load with classifier.service's capabilities, pins shared"
ip -n "$NS_S" link set lo up
install -d -o "$EXP_USER" "$WORK/trace" # strace writes as that user
nsenter --net="/run/netns/$NS_S" unshare --mount sh -c '
	mount --bind -o ro "$1" "$1" &&
	exec setpriv --reuid="$4" --regid="$4" --groups="$5" \
		--bounding-set="$2" --inh-caps=-all \
		strace -f -qq -y -o "$6" "$3" --bpffs "$1" \
		exporter listen 127.0.0.1:9436' sh "$BPFFS" \
	"$(bounding "$EXP_CAPS")" "$CLASSIFIER" "$EXP_USER" "$READERS" \
	"$WORK/trace/exp" > "$WORK/exporter.log" 2>&1 &
tracer=$!
track_pid $tracer
for _ in $(seq 100); do
	nsenter --net="/run/netns/$NS_S" curl -s --max-time 2 \
		http://127.0.0.1:9436/metrics > "$WORK/s.prom" 2>/dev/null && break
	sleep 0.05
done
grep -qx 'classifier_routes{family="ipv4",source="hand"} 1' "$WORK/s.prom" ||
	fail "the exporter as its unit runs it: $(cat "$WORK/exporter.log") $(grep classifier_up "$WORK/s.prom")"
exporter=$(pgrep -P "$tracer")
kill -TERM "$exporter"
wait "$tracer" || fail "the exporter did not exit 0 on SIGTERM: $(cat "$WORK/exporter.log")"
check_traces classifier-exporter.service "$WORK"/trace/exp*
