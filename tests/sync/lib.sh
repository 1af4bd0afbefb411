# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Helpers for the sync daemon's netns tests (tests/sync/test_*.sh, run by
# tests/netns/run.sh -d tests/sync BINARY); sourced after tests/netns/lib.sh.
#
# The daemon under test is the real `classifier sync` over the test's
# bpffs ($BPFFS), in $NS_S, the host; what it did is read back the way an
# operator would: `route list synced`, `lookup`, `status -j`.  Its log
# (one line per event) goes to $SYNC_LOG.
# wait_until takes shell code to evaluate later: single quotes on purpose.
# shellcheck disable=SC2016

SYNC_PID=
SYNC_LOG=

# start_sync ARGS...: `classifier sync ARGS` in the host namespace, as
# systemd runs it; returns once its first resync is in the status.
start_sync()
{
	SYNC_LOG=$WORK/sync.log
	echo "# start: sync $*" >> "$SYNC_LOG"
	nsenter --net="/run/netns/$NS_S" "$CLASSIFIER" --bpffs "$BPFFS" \
		sync "$@" >> "$SYNC_LOG" 2>&1 &
	SYNC_PID=$!
	track_pid "$SYNC_PID"
	wait_until 10 'sync_started' || {
		sync_diag
		fail "classifier sync: no first resync within 10 s"
	}
}

# sync_started: the daemon runs and has published its first resync.
sync_started()
{
	kill -0 "$SYNC_PID" 2>/dev/null ||
		fail "classifier sync exited: $(tail -n1 "$SYNC_LOG")"
	[ "$(cls -j status | jq -r '.sync | "\(.running) \(.pid) \(.last_resync_reason)"')" = \
		"true $SYNC_PID start" ]
}

# sync_diag: what the daemon said, for the test's log.
sync_diag()
{
	kill -0 "$SYNC_PID" 2>/dev/null || echo "# classifier sync is not running" >&2
	sed 's/^/# sync: /' "$SYNC_LOG" | tail -n 20 >&2
	cls -j status | jq -c .sync | sed 's/^/# status: /' >&2
}

# stop_sync: SIGTERM, as systemd stops it.
stop_sync()
{
	stop_pids "$SYNC_PID"
	wait "$SYNC_PID" 2>/dev/null || true
}

# status_of KEY: one field of `status -j`'s sync object.
status_of()
{
	cls -j status | jq -r --arg k "$1" '.sync[$k]'
}

# synced: the synced routes, "PREFIX CLASSID", sorted as text.
synced()
{
	cls route list synced | awk '{ print $1, $2 }' | sort
}

# wait_until SECONDS 'SHELL CODE': poll the code (evaluated anew each
# time: quote it; it cannot see the caller's $1...) every 20 ms until it
# succeeds.
wait_until()
{
	local limit=$1 end
	shift
	end=$(($(date +%s%N) + limit * 1000000000))
	while ! eval "$*"; do
		[ "$(date +%s%N)" -lt "$end" ] || return 1
		sleep 0.02
	done
}

# same_set FILE_A FILE_B: equal as sorted sets of lines.
same_set()
{
	cmp -s <(sort "$1") <(sort "$2")
}

# kernel_routes FAMILY TABLE: "PREFIX REALM METRIC" of the host's table
# (unicast routes), with ip's shorthand (no /32) written out; REALM 0
# when none.  A table the kernel never made is empty.
kernel_routes()
{
	local out
	# ip prints a "[" before it finds the table missing
	out=$(ip -n "$NS_S" "-$1" -j route show table "$2" 2>/dev/null) || out='[]'
	echo "$out" | jq -r --arg fam "$1" '.[] | select((.type // "unicast") == "unicast") |
			"\(.dst | if test("/") then . elif $fam == "6" then . + "/128"
			          else . + "/32" end) \(if .flow == null then "0"
			  elif .flow.from then "\(.flow.from)/\(.flow.to)"
			  else .flow.to end) \(.metric // 0)"'
}

# expect_lookup WHAT ADDR PATTERN: `lookup ADDR` matches the glob PATTERN
# and, for IPv4, the IPv4 table agrees with the trie (unless the auto
# policy has it off: fewer than 512 IPv4 routes).
expect_lookup()
{
	local got
	got=$(cls lookup "$2") || fail "$1: lookup $2 failed: $got"
	# shellcheck disable=SC2053 # a glob on purpose
	[[ $got == $3 ]] || fail "$1: lookup $2: got \"$got\", expected $3"
	case $2 in
	*:*) ;;
	*) [[ $got == *"(ipv4 table agrees)" ]] ||
		[ "$(cls -j table | jq .on)" = false ] ||
		fail "$1: lookup $2: the IPv4 table does not agree: $got" ;;
	esac
}

# follow_ms ADDR PATTERN CMD...: run `ip CMD` in the host, then poll
# `lookup ADDR` (a classifier process each time, ~10 ms) until it
# matches PATTERN; prints the milliseconds from just before the change
# to the lookup that saw it.
follow_ms()
{
	local addr=$1 want=$2 t0 end got
	shift 2
	t0=$EPOCHREALTIME
	ip -n "$NS_S" "$@"
	end=$(($(date +%s%N) + 2000000000))
	for (( ;; )); do
		got=$(cls lookup "$addr")
		# shellcheck disable=SC2053
		[[ $got == $want ]] && break
		[ "$(date +%s%N)" -lt "$end" ] || {
			sync_diag
			fail "after ip $*: lookup $addr still says \"$got\" after 2 s, expected $want"
		}
	done
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d\n", (b - a) * 1000 }'
}

# resyncs_logged: how many resyncs the daemon has logged so far.
resyncs_logged()
{
	grep -c '^sync: resync (' "$SYNC_LOG" || true
}

# expect_no_resync WHAT BEFORE: the daemon logged no resync since
# resyncs_logged said BEFORE, so what it applied came from the kernel's
# notifications (a resync would hide a lost one).  Latency is the
# bench's (bench/sync.sh); a test bounds only correctness.
expect_no_resync()
{
	[ "$(resyncs_logged)" -eq "$2" ] ||
		fail "$1: applied by a resync, not by the notification ($(grep '^sync: resync (' "$SYNC_LOG" | tail -n1))"
}

# expect_follow WHAT ADDR PATTERN CMD...: lookup follows within 2 s,
# through the notification, and the IPv4 table agrees.
expect_follow()
{
	local what=$1 addr=$2 want=$3 ms before
	shift 3
	before=$(resyncs_logged)
	ms=$(follow_ms "$addr" "$want" "$@")
	expect_no_resync "$what" "$before"
	expect_lookup "$what" "$addr" "$want"
	log "$what: visible to lookup after $ms ms"
}

# check_whole WHAT: the pinned state is whole (tests/crash/check_state:
# journal, counts, the IPv4 table against the trie on every route's
# edges); the daemon must be idle or stopped.
check_whole()
{
	[ -x "${CHECK_STATE:-}" ] || fail "no check_state (make sync-check builds it)"
	"$CHECK_STATE" "$BPFFS" 1 > "$WORK/check" ||
		fail "$1: state not whole: $(cat "$WORK/check")"
	log "$1: $(head -n1 "$WORK/check")"
}

# The rules the plain-kernel tests use, and what they make of the host's
# table 100: realm 5 -> 1:5, realm 6 -> web (1:6), IPv6 -> 1:60.
write_realm_conf()
{
	cat > "$1" <<-'CONF'
	# realm -> class for IPv4; IPv6 routes have no realm
	table 100 realm 5 class 1:5
	table 100 realm 6 class web
	family inet6 table 100 class 1:60
	CONF
}

# realm_classes [CLS]: the classes write_realm_conf's rules name, in the
# bpffs cls_in uses (default: cls).
realm_classes()
{
	local c=${1:-cls}
	"$c" class add 1:5 name five
	"$c" class add 1:6 name web
	"$c" class add 1:60 name six
}

realm_expected()
{
	# per prefix, the lowest metric among the routes a rule selects
	kernel_routes 4 100 | awk '$2 == 5 || $2 == 6 {
		if (!($1 in m) || $3 < m[$1]) { m[$1] = $3; c[$1] = "1:" $2 } }
		END { for (p in m) print p, c[p] }'
	kernel_routes 6 100 | awk '!seen[$1]++ { print $1, "1:60" }'
}

# expect_realm_synced WHAT [SECONDS]: the daemon holds what the kernel
# table says, within SECONDS (default: now).
expect_realm_synced()
{
	realm_expected | sort > "$WORK/want"
	wait_until "${2:-0}" 'synced > "$WORK/got"; same_set "$WORK/want" "$WORK/got"' ||
		fail "$1: synced routes differ from the kernel's: $(diff "$WORK/want" "$WORK/got" | head -5 | tr '\n' ' ')"
	log "$1: $(wc -l < "$WORK/got") synced routes equal the kernel's"
}

# cls_clean ARGS: classifier on the clean-start daemon's bpffs.
cls_clean()
{
	nsenter --net="/run/netns/$NS_S" "$CLASSIFIER" \
		--bpffs "$WORK/bpffs-clean" "$@"
}

# expect_clean_start ARGS...: `route list synced` is what a daemon
# started afresh with ARGS (its own bpffs, the same classes, the same
# kernel tables) syncs, byte for byte.
expect_clean_start()
{
	local pid
	mount_bpffs "$WORK/bpffs-clean"
	realm_classes cls_clean
	nsenter --net="/run/netns/$NS_S" "$CLASSIFIER" --bpffs "$WORK/bpffs-clean" \
		sync "$@" >> "$WORK/clean.log" 2>&1 &
	pid=$!
	track_pid $pid
	wait_until 10 '[ "$(cls_clean -j status | jq -r .sync.pid)" = '"$pid"' ]' ||
		fail "the clean daemon did not start: $(tail -n1 "$WORK/clean.log")"
	cls_clean route list synced > "$WORK/clean"
	stop_pids $pid
	cls_clean purge
	cls route list synced > "$WORK/ours"
	cmp -s "$WORK/ours" "$WORK/clean" ||
		fail "route list synced differs from a clean start's: $(diff "$WORK/ours" "$WORK/clean" | head -3 | tr '\n' ' ')"
	log "route list synced equals a clean start's ($(wc -l < "$WORK/ours") routes)"
}

# fill_table N: N IPv4 routes 10.x.y.0/24 in the host's table 100 with
# realms 5, 6 and 7 in turn, through one ip -batch.
fill_table()
{
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
		printf "route add 10.%d.%d.0/24 dev %s table 100 realm %d\n",
			int(i / 256), i % 256, "'"$VS"'", 5 + i % 3 }' > "$WORK/fill"
	ip -n "$NS_S" -batch "$WORK/fill"
}

# churn_batch N SEED: N changes to those routes (replace with another
# realm, delete, add back), as one ip -batch file; prints its path.
churn_batch()
{
	local f=$WORK/churn.$2
	awk -v n="$1" -v seed="$2" -v dev="$VS" 'BEGIN { srand(seed)
		for (i = 0; i < n; i++) {
			p = int(rand() * n)
			pfx = sprintf("10.%d.%d.0/24", int(p / 256), p % 256)
			r = rand()
			if (r < 0.7)
				printf "route replace %s dev %s table 100 realm %d\n", pfx, dev, 5 + int(rand() * 3)
			else if (r < 0.85)
				printf "route del %s table 100\n", pfx
			else
				printf "route replace %s dev %s table 100 realm %d metric %d\n", pfx, dev, 5 + int(rand() * 3), int(rand() * 3)
		}
	}' > "$f"
	echo "$f"
}

# BIRD 2, one daemon per namespace, all of its files in $WORK.
# start_bird NAME NS: runs $WORK/NAME.conf in NS with its own control
# socket ($WORK/NAME.ctl) and pid file.
start_bird()
{
	ip netns exec "$2" bird -f -c "$WORK/$1.conf" -s "$WORK/$1.ctl" \
		-P "$WORK/$1.pid" >>"$WORK/$1.out" 2>&1 &
	track_pid $!
	eval "BIRD_PID_$1=$!"
	wait_until 5 "[ -S '$WORK/$1.ctl' ]" || {
		sed 's/^/# bird: /' "$WORK/$1.out" >&2
		fail "bird $1 did not start"
	}
}

stop_bird()
{
	local pid
	eval "pid=\$BIRD_PID_$1"
	stop_pids "$pid"
	wait "$pid" 2>/dev/null || true
}

birdc_()
{
	birdc -s "$WORK/$1.ctl" "${@:2}"
}

# bird_established NAME PROTO...: every named BGP session is up.
bird_established()
{
	local p
	for p in "${@:2}"; do
		birdc_ "$1" show protocols "$p" | grep -q Established || return 1
	done
}

# FRR (Debian's frr), zebra and bgpd per namespace, as the frr user the
# package makes, every file in $WORK/NAME: pid files, zserv socket, vty
# sockets (vtysh --vty_socket), logs; nothing in /etc/frr or /run/frr
# (only FRR's per-pid /var/tmp/frr/DAEMON.PID, gone when it exits), so
# neither clashes with another test's nor with the host's FRR.
# start_frr NAME NS: runs them in NS and loads $WORK/NAME.conf through
# vtysh -b, as frr.service boots frr.conf.
FRR_DIR=/usr/lib/frr
start_frr()
{
	local d=$WORK/$1 daemon pid
	# the daemons drop root for frr: let them through to their directory
	chmod o+x "$WORK"
	install -d -o frr -g frr -m 0750 "$d"
	# a socket left by the last run would pass for a started daemon
	rm -f "$d"/*.vty "$d"/*.pid "$d/zserv.api"
	install -o frr -g frr -m 0640 "$WORK/$1.conf" "$d/frr.conf"
	install -o frr -g frr -m 0640 /dev/null "$d/empty.conf"
	: > "$d/vtysh.conf"
	for daemon in zebra bgpd; do
		ip netns exec "$2" "$FRR_DIR/$daemon" -f "$d/empty.conf" \
			-i "$d/$daemon.pid" -z "$d/zserv.api" --vty_socket "$d" \
			-P 0 --log "file:$d/$daemon.log" >> "$d/out" 2>&1 &
		pid=$!
		track_pid $pid
		eval "FRR_PIDS_$1=\"\${FRR_PIDS_$1:-} $pid\""
		wait_until 5 "[ -S '$d/$daemon.vty' ]" || {
			sed 's/^/# frr: /' "$d/out" >&2
			fail "FRR $1: $daemon did not start"
		}
	done
	vtysh_ "$1" -b > "$d/boot" 2>&1 || {
		sed 's/^/# vtysh -b: /' "$d/boot" >&2
		fail "FRR $1: vtysh -b failed on $1.conf"
	}
}

stop_frr()
{
	local pids
	eval "pids=\$FRR_PIDS_$1"
	eval "FRR_PIDS_$1="
	# shellcheck disable=SC2086 # a list
	stop_pids $pids
	# shellcheck disable=SC2086
	wait $pids 2>/dev/null || true
}

# vtysh_ NAME ARGS: vtysh on NAME's daemons and configuration
vtysh_()
{
	vtysh --vty_socket "$WORK/$1" --config_dir "$WORK/$1" "${@:2}"
}

# frr_established NAME PEER...: every named BGP session is up.
frr_established()
{
	local p
	for p in "${@:2}"; do
		[ "$(vtysh_ "$1" -c "show bgp neighbors $p json" |
			jq -r --arg p "$p" '.[$p].bgpState')" = Established ] || return 1
	done
}
