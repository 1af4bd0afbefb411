# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Helpers shared by the netns tests; sourced by every tests/netns/test_*.sh.
#
# A test runs as its own bash process (so `set -e` holds in it) with:
#   CLASSIFIER  the binary under test (absolute path)
#   UDPSEND     tests/netns/udpsend, built by run.sh
#   PEER        tests/netns/peer (counts what arrives), built by run.sh
#   REASON_FILE where fail() leaves the one-line reason for the runner
# It calls setup_pair (or setup_ns), which registers a trap that removes
# the namespaces, the private bpffs and the pins, however the test ends.
#
# Topology made by setup_pair:
#
#   ns $NS_S (sender)                        ns $NS_R (receiver)
#   veth $VS 10.200.0.1/24 fd00:200::1/64 -- veth $VR 10.200.0.2/24 fd00:200::2/64
#
# The receiver also owns one address per destination below; the sender
# routes them all through the veth.  HTB on $VS: 1:10 1:20 1:30 1:40 1:50,
# HTB's own default 1:99 (what nobody classified: ARP and the like).

set -eu

VS=veth-snd
VR=veth-rcv
PORT=9000

# Destinations: one v4 and one v6 address per role.
WEB4=198.51.100.10
WEB6=2001:db8:10::10
BULK4=203.0.113.10
BULK6=2001:db8:20::10
DROP4=192.0.2.10
DROP6=2001:db8:30::10
DFLT4=10.201.0.10
DFLT6=fd00:201::10
ALL_DST="$WEB4 $WEB6 $BULK4 $BULK6 $DROP4 $DROP6 $DFLT4 $DFLT6"

TEST_NAME=$(basename "$0" .sh)
TEST_NAME=${TEST_NAME#test_}
WORK=
NS_S=
NS_R=
MOUNTS=
PIDS=

fail()
{
	echo "$*" >&2
	[ -z "${REASON_FILE:-}" ] || echo "$*" > "$REASON_FILE"
	exit 1
}

log()
{
	echo "# $*"
}

cleanup()
{
	local rc=$? m ns
	trap - EXIT ERR
	set +e
	# daemons first: a namespace lives on while a process is in it
	[ -z "$PIDS" ] || stop_pids $PIDS
	# purge in the namespace whose devices the pins point at, then drop
	# the mount (which frees whatever purge could not)
	[ -d "${BPFFS:-}/classifier" ] && cls purge >/dev/null 2>&1
	[ -d "${BPFFS_R:-}/classifier" ] && cls_rcv purge >/dev/null 2>&1
	for m in $MOUNTS; do
		umount "$m" 2>/dev/null
	done
	for ns in $NS_S $NS_R ${NS_EXTRA:-}; do
		ip netns del "$ns" 2>/dev/null
	done
	[ -n "$WORK" ] && rm -rf "$WORK"
	exit "$rc"
}

# track_pid PID: a background process of the test, stopped by cleanup.
track_pid()
{
	PIDS="$PIDS $1"
}

# stop_pids PID...: SIGTERM, then SIGKILL what is left after 2 s.
stop_pids()
{
	local p alive _
	kill "$@" 2>/dev/null || true
	for _ in $(seq 20); do
		alive=
		for p in "$@"; do
			! kill -0 "$p" 2>/dev/null || alive=1
		done
		[ -n "$alive" ] || return 0
		sleep 0.1
	done
	kill -9 "$@" 2>/dev/null || true
}

# cls ARGS: the classifier in the sender's namespace and its bpffs;
# cls_rcv ARGS: in the receiver's, with a bpffs of its own.
cls()
{
	nsenter --net="/run/netns/$NS_S" "$CLASSIFIER" --bpffs "$BPFFS" "$@"
}

# version_layout: the layout in a --version line on stdin; cls_layout:
# this build's.
version_layout()
{
	sed -n 's/.*(layout \([0-9]*\),.*/\1/p'
}

cls_layout()
{
	cls --version | version_layout
}

cls_rcv()
{
	nsenter --net="/run/netns/$NS_R" "$CLASSIFIER" --bpffs "$BPFFS_R" "$@"
}

in_snd()
{
	ip netns exec "$NS_S" "$@"
}

in_rcv()
{
	ip netns exec "$NS_R" "$@"
}

# mount_bpffs DIR: a private bpffs, unmounted by cleanup.
mount_bpffs()
{
	mkdir -p "$1"
	mount -t bpf bpf "$1"
	MOUNTS="$MOUNTS $1"
}

# on_err: an unexpected command failure (set -e) is the test's reason,
# unless fail() gave one.
on_err()
{
	local rc=$? cmd=$1 where="line $2" i=0 frame
	# name the line of the test file, not the helper's
	while frame=$(caller $i); do
		case $frame in *" $0") where="line ${frame%% *}"; break ;; esac
		i=$((i + 1))
	done
	if [ -n "${REASON_FILE:-}" ] && [ ! -s "$REASON_FILE" ]; then
		echo "$where: '$cmd' exited $rc" > "$REASON_FILE"
	fi
}

setup_ns()
{
	set -E
	trap 'on_err "$BASH_COMMAND" "$LINENO"' ERR
	trap cleanup EXIT
	trap 'exit 143' TERM INT
	WORK=$(mktemp -d "/tmp/cls-netns-$TEST_NAME.XXXXXX")
	NS_S="cls-$$-snd"
	NS_R="cls-$$-rcv"
	ip netns add "$NS_S"
	ip netns add "$NS_R"
	BPFFS=$WORK/bpffs
	BPFFS_R=$WORK/bpffs-rcv
	mount_bpffs "$BPFFS"
	mount_bpffs "$BPFFS_R"
}

wait_link_ready()
{
	for _ in $(seq 50); do
		if ip -n "$NS_S" link show "$VS" | grep -q LOWER_UP &&
			ip -n "$NS_R" link show "$VR" | grep -q LOWER_UP &&
			! ip -n "$NS_S" addr show tentative | grep -q inet6 &&
			! ip -n "$NS_R" addr show tentative | grep -q inet6; then
			return 0
		fi
		sleep 0.1
	done
	fail "veth pair did not come up"
}

# setup_pair: the two namespaces, veth, addresses, routes, static
# neighbours (so no ARP or ND of ours lands in a counted class), MLD
# reports hurried out, no router solicitations: little noise to count.
setup_pair()
{
	local mac_r mac_s a
	setup_ns
	for ns in "$NS_S" "$NS_R"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 \
			net.ipv6.conf.all.accept_ra=0 \
			net.ipv6.conf.default.accept_ra=0 \
			net.ipv6.conf.default.router_solicitations=0 \
			net.ipv6.conf.default.mldv1_unsolicited_report_interval=10 \
			net.ipv6.conf.default.mldv2_unsolicited_report_interval=10
		ip -n "$ns" link set lo up
	done
	# after the sysctls: default.* applies to devices made from now on
	# VETH_QUEUES=N: N TX and RX queues each side (mq trees)
	ip link add "$VS" netns "$NS_S" \
		${VETH_QUEUES:+numtxqueues $VETH_QUEUES numrxqueues $VETH_QUEUES} \
		type veth peer name "$VR" netns "$NS_R" \
		${VETH_QUEUES:+numtxqueues $VETH_QUEUES numrxqueues $VETH_QUEUES}
	ip -n "$NS_S" addr add 10.200.0.1/24 dev "$VS"
	ip -n "$NS_S" addr add fd00:200::1/64 dev "$VS" nodad
	ip -n "$NS_R" addr add 10.200.0.2/24 dev "$VR"
	ip -n "$NS_R" addr add fd00:200::2/64 dev "$VR" nodad
	for a in $ALL_DST; do
		case $a in
		*:*) ip -n "$NS_R" addr add "$a/128" dev lo nodad ;;
		*) ip -n "$NS_R" addr add "$a/32" dev lo ;;
		esac
	done
	ip -n "$NS_S" link set "$VS" up
	ip -n "$NS_R" link set "$VR" up
	for a in 198.51.100.0/24 203.0.113.0/24 192.0.2.0/24 10.201.0.0/24; do
		ip -n "$NS_S" route add "$a" via 10.200.0.2
	done
	for a in 2001:db8::/32 fd00:201::/64; do
		ip -n "$NS_S" -6 route add "$a" via fd00:200::2
	done
	mac_r=$(ip -n "$NS_R" -br link show "$VR" | awk '{print $3}')
	mac_s=$(ip -n "$NS_S" -br link show "$VS" | awk '{print $3}')
	ip -n "$NS_S" neigh replace 10.200.0.2 lladdr "$mac_r" dev "$VS" nud permanent
	ip -n "$NS_S" neigh replace fd00:200::2 lladdr "$mac_r" dev "$VS" nud permanent
	ip -n "$NS_R" neigh replace 10.200.0.1 lladdr "$mac_s" dev "$VR" nud permanent
	ip -n "$NS_R" neigh replace fd00:200::1 lladdr "$mac_s" dev "$VR" nud permanent
	wait_link_ready
	# let the (shortened) unsolicited MLD reports go out before counting
	sleep 0.2
}

# setup_htb: HTB root 1: on the sender's veth; fast enough never to queue
# long or drop at the rates the tests send.
setup_htb()
{
	local c
	tc -n "$NS_S" qdisc add dev "$VS" root handle 1: htb default 99
	tc -n "$NS_S" class add dev "$VS" parent 1: classid 1:1 htb \
		rate 10gbit quantum 60000
	for c in 10 20 30 40 50 99; do
		tc -n "$NS_S" class add dev "$VS" parent 1:1 classid "1:$c" htb \
			rate 1gbit ceil 10gbit quantum 60000
	done
}

# setup_mq NS DEV MINOR...: an mq root on DEV (in NS) with one HTB per TX
# queue q, handle q+1: under mq's leaf 7fff:q+1 (the majors a class's
# queue names), each with a root class q+1:1, the default q+1:2 and a
# class q+1:MINOR for each MINOR, fast enough never to queue long.
setup_mq()
{
	local ns=$1 dev=$2 q m c n
	shift 2
	# ip netns exec mounts the namespace's own sysfs
	n=$(ip netns exec "$ns" sh -c "ls -d /sys/class/net/$dev/queues/tx-*" |
		wc -l)
	tc -n "$ns" qdisc replace dev "$dev" root handle 7fff: mq
	for q in $(seq 0 $((n - 1))); do
		m=$((q + 1))
		tc -n "$ns" qdisc add dev "$dev" parent "7fff:$m" handle "$m:" \
			htb default 2
		tc -n "$ns" class add dev "$dev" parent "$m:" classid "$m:1" \
			htb rate 10gbit quantum 60000
		for c in 2 "$@"; do
			tc -n "$ns" class add dev "$dev" parent "$m:1" \
				classid "$m:$c" htb rate 1gbit ceil 10gbit \
				quantum 60000
		done
	done
}

# htb_pkts CLASSID: packets HTB sent from that class on the sender's veth.
htb_pkts()
{
	tc -n "$NS_S" -s class show dev "$VS" classid "$1" |
		awk '/Sent/ { print $4; found = 1 } END { if (!found) print "none" }'
}

# htb_default_pkts: packets the default classes (q:2) of the four HTBs
# of an mq tree classifier made on the sender's veth sent, added up.
htb_default_pkts()
{
	local q sum=0
	for q in 1 2 3 4; do
		sum=$((sum + $(htb_pkts "$q:2")))
	done
	echo "$sum"
}

# send DST COUNT [udpsend options]: send exactly COUNT datagrams from the
# sender, spaced a little so no queue on the way can overflow.
send()
{
	local dst=$1 n=$2 got
	shift 2
	got=$(ip netns exec "$NS_S" "$UDPSEND" -i 50 -c "$n" "$@" "$dst" "$PORT") ||
		fail "udpsend to $dst failed after $got"
	[ "$got" = "$n" ] || fail "udpsend to $dst sent $got, not $n"
}

# Receiver counters: an nftables table in the receiver with one named
# counter per rule; rcv_rule NAME MATCH... adds one.
rcv_nft_init()
{
	in_rcv nft -f - <<-'NFT'
	table inet cls_test {
		chain input {
			type filter hook input priority 0; policy accept;
		}
	}
	NFT
}

rcv_rule()
{
	local name=$1
	shift
	in_rcv nft add counter inet cls_test "$name"
	in_rcv nft add rule inet cls_test input "$@" counter name "$name"
}

rcv_count()
{
	in_rcv nft -j list counter inet cls_test "$1" |
		jq -r '.nftables[] | select(.counter) | .counter.packets'
}

# stat_pkts CLASS: packets the classifier counted for a class ("default",
# a classid or a name); stat_unclass REASON for the unclassified ones.
stat_pkts()
{
	cls -j stats | jq -r --arg c "$1" \
		'.classes[] | select(.class == $c or .name == $c) | .packets'
}

stat_pkts_rcv()
{
	cls_rcv -j stats | jq -r --arg c "$1" \
		'.classes[] | select(.class == $c or .name == $c) | .packets'
}

# expect_eq WHAT GOT WANT
expect_eq()
{
	[ "$2" = "$3" ] || fail "$1: got $2, expected $3"
	log "$1 = $2"
}

# expect_ge WHAT GOT MIN
expect_ge()
{
	[ "$2" -ge "$3" ] 2>/dev/null || fail "$1: got $2, expected at least $3"
	log "$1 = $2 (>= $3)"
}

# Senders the XDP tests classify by source, and the receiver's classes for
# them: blocked (drop) holds BAD4's and BAD6's prefixes, friends GOOD4's
# and GOOD6's.
BAD4=198.18.0.66
GOOD4=198.18.1.77
BAD6=2001:db8:bad::66
GOOD6=2001:db8:900d::77

rcv_source_classes()
{
	cls_rcv class add 1:40 name blocked drop
	cls_rcv class add 1:10 name friends
	cls_rcv route add 198.18.0.0/24 class blocked
	cls_rcv route add 2001:db8:bad::/48 class blocked
	cls_rcv route add 198.18.1.0/24 class friends
	cls_rcv route add 2001:db8:900d::/48 class friends
}

# rcv_rules_src: count UDP from each of those senders at the receiver.
rcv_rules_src()
{
	local s
	for s in $BAD4 $GOOD4; do
		rcv_rule "$(counter_name "$s")" ip saddr "$s" udp dport "$PORT"
	done
	for s in $BAD6 $GOOD6; do
		rcv_rule "$(counter_name "$s")" ip6 saddr "$s" udp dport "$PORT"
	done
}

# The classes most tests use: the same ones deploy/example.batch makes.
add_classes()
{
	cls class add 1:10 name web dscp EF
	cls class add 1:20 name bulk dscp CS1
	cls class add 1:40 name blackhole drop
	cls class set default classid 1:30
}

add_routes()
{
	cls route add 198.51.100.0/24 class web
	cls route add 2001:db8:10::/48 class web
	cls route add 203.0.113.0/24 class bulk
	cls route add 2001:db8:20::/48 class bulk
	cls route add 192.0.2.0/24 class blackhole
	cls route add 2001:db8:30::/48 class blackhole
}

# Baselines, so a test counts only its own traffic: snapshot, send,
# then *_delta.
declare -A BASE_HTB BASE_CLS
snapshot()
{
	local c
	for c in 1:10 1:20 1:30 1:40 1:50 1:99; do
		BASE_HTB[$c]=$(htb_pkts "$c")
	done
	local k n
	while read -r c k n; do
		BASE_CLS[$c]=$n
		BASE_CLS[$k]=$n
	done < <(cls -j stats |
		jq -r '.classes[] | "\(.class) \(.name) \(.packets)"')
	BASE_CLS[unclassified]=$(stat_unclassified)
}

htb_delta()
{
	echo $(($(htb_pkts "$1") - ${BASE_HTB[$1]}))
}

cls_delta()
{
	if [ "$1" = unclassified ]; then
		echo $(($(stat_unclassified) - BASE_CLS[unclassified]))
	else
		echo $(($(stat_pkts "$1") - ${BASE_CLS[$1]:-0}))
	fi
}

# stat_unclassified: packets passed untouched, all reasons together.
stat_unclassified()
{
	cls -j stats | jq -r '[.unclassified[].packets] | add'
}

# counter_name ADDR: the receiver counter name for an address.
counter_name()
{
	echo "c_$(echo "$1" | tr -c 'a-zA-Z0-9\n' '_')"
}

# rcv_rule_dst ADDR [MATCH...]: count UDP to ADDR (and MATCH) at the receiver.
rcv_rule_dst()
{
	local a=$1 fam=ip
	shift
	case $a in *:*) fam=ip6 ;; esac
	rcv_rule "$(counter_name "$a$*")" "$fam" daddr "$a" udp dport "$PORT" "$@"
}

rcv_count_dst()
{
	local a=$1
	shift
	rcv_count "$(counter_name "$a$*")"
}

# rcv_counts: "NAME PACKETS" of every receiver counter, in one read.
rcv_counts()
{
	in_rcv nft -j list counters table inet cls_test |
		jq -r '.nftables[] | select(.counter) | "\(.counter.name) \(.counter.packets)"'
}

# rcv_has ADDR [MATCH...]: the receiver already counts that traffic.
rcv_has()
{
	local a=$1
	shift
	in_rcv nft list counter inet cls_test "$(counter_name "$a$*")" \
		> /dev/null 2>&1
}

# streams_start N USEC ADDR...: one UDP stream per address, N packets one
# per USEC, counted at the receiver in full and as DSCP 0 (the default
# class); streams_check WHEN waits for them and expects all N at each
# address and none of DSCP 0. Counters that exist already are reused from
# where they stand.
streams_start()
{
	local a dscp
	STREAM_N=$1
	shift
	local usec=$1
	shift
	STREAM_ADDRS=("$@")
	STREAM_PIDS=()
	STREAM_BASE=()
	for a in "$@"; do
		dscp="ip dscp cs0"
		case $a in *:*) dscp="ip6 dscp cs0" ;; esac
		rcv_has "$a" || rcv_rule_dst "$a"
		# shellcheck disable=SC2086
		rcv_has "$a" $dscp || rcv_rule_dst "$a" $dscp
		# shellcheck disable=SC2086
		STREAM_BASE+=("$(rcv_count_dst "$a") $(rcv_count_dst "$a" $dscp)")
	done
	for a in "$@"; do
		in_snd "$UDPSEND" -i "$usec" -c "$STREAM_N" "$a" "$PORT" \
			> /dev/null &
		STREAM_PIDS+=($!)
	done
}

streams_check()
{
	local when=$1 i a dscp base
	wait "${STREAM_PIDS[@]}"
	for i in "${!STREAM_ADDRS[@]}"; do
		a=${STREAM_ADDRS[$i]}
		read -ra base <<< "${STREAM_BASE[$i]}"
		dscp="ip dscp cs0"
		case $a in *:*) dscp="ip6 dscp cs0" ;; esac
		expect_eq "received at $a $when" \
			$(($(rcv_count_dst "$a") - base[0])) "$STREAM_N"
		# shellcheck disable=SC2086
		expect_eq "default-class (DSCP 0) packets at $a $when" \
			$(($(rcv_count_dst "$a" $dscp) - base[1])) 0
	done
}

# iface_state: what tc and ip report for the sender's veth, to compare
# before attach and after detach.
iface_state()
{
	tc -n "$NS_S" qdisc show dev "$VS"
	echo "-- egress filters"
	tc -n "$NS_S" filter show dev "$VS" egress 2>&1
	echo "-- ingress filters"
	tc -n "$NS_S" filter show dev "$VS" ingress 2>&1
	echo "-- link"
	ip -n "$NS_S" -d link show dev "$VS" | grep -Ei 'xdp|prog' || true
	echo "-- bpftool net"
	in_snd bpftool net show dev "$VS"
}

# link_ids_of_prog PROG_ID: ids of BPF links that run that program.
link_ids_of_prog()
{
	bpftool -j link show | jq -r --argjson p "$1" '.[] | select(.prog_id == $p) | .id'
}

# attached_json: the sender's `status -j` attachments, one per line.
attached_json()
{
	cls -j status | jq -c '.attached[]'
}

# peer_start NAME NS ARGS...: tests/netns/peer ARGS in the background,
# in network namespace NS ("" for the test's own), until it says it is
# ready; peer_stop NAME stops it, and peer_out NAME prints what it counted.
declare -A PEER_PID
peer_start()
{
	local name=$1 ns=$2 _
	shift 2
	[ -x "${PEER:-}" ] || fail "tests/netns/peer not built"
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$PEER" "$@" > "$WORK/peer.$name" 2>&1 &
	else
		"$PEER" "$@" > "$WORK/peer.$name" 2>&1 &
	fi
	PEER_PID[$name]=$!
	track_pid $!
	for _ in $(seq 50); do
		grep -qx ready "$WORK/peer.$name" && return 0
		kill -0 "${PEER_PID[$name]}" 2>/dev/null || break
		sleep 0.1
	done
	fail "peer $*: $(cat "$WORK/peer.$name")"
}

# What was sent a moment ago may still be on its way: a little grace.
peer_stop()
{
	local pid=${PEER_PID[$1]} rc=0
	sleep 0.2
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || fail "peer $1 exited $rc: $(cat "$WORK/peer.$1")"
}

peer_out()
{
	sed 1d "$WORK/peer.$1"
}

# fcls STEP ARGS: the fault build ($CLASSIFIER_FAULT) as cls runs this
# build, killed at its crash point STEP (maps/maps.h's cls_step()).
fcls()
{
	local step=$1
	shift
	nsenter --net="/run/netns/$NS_S" env CLS_FAULT_STEP="$step" \
		"$CLASSIFIER_FAULT" --bpffs "$BPFFS" "$@"
}
