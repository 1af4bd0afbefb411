# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Helpers for the sync daemon's netns tests (tests/sync/test_*.sh, run by
# tests/netns/run.sh -d tests/sync BINARY); sourced after tests/netns/lib.sh.
#
# The daemon under test is sync_dryrun (the real sync_main over the real
# kernel, with the in-memory applier), built next to BINARY:
# $(dirname BINARY)/tests/sync_dryrun.  It runs in $NS_S, the host; it
# writes every route it would hold to $STATE ("PREFIX CLASSID synced|hand"
# lines), its status to $STATE.status and one line per change to
# $CHANGES ("SECONDS.NANOS set PREFIX CLASSID" / "del PREFIX" / "swap N").
# wait_until takes shell code to evaluate later: single quotes on purpose.
# shellcheck disable=SC2016

DRYRUN=${DRYRUN:-$(dirname "$CLASSIFIER")/tests/sync_dryrun}
[ -x "$DRYRUN" ] || { echo "$DRYRUN: not built" >&2; exit 2; }
STATE=
CHANGES=
DRYRUN_PID=

# start_dryrun ARGS...: the daemon in the host namespace; returns once
# its first resync is done.
start_dryrun()
{
	local _
	STATE=$WORK/state
	CHANGES=$WORK/changes
	rm -f "$STATE" "$STATE.status"
	ip netns exec "$NS_S" "$DRYRUN" --state "$STATE" --changes "$@" \
		>>"$CHANGES" 2>>"$WORK/dryrun.log" &
	DRYRUN_PID=$!
	track_pid "$DRYRUN_PID"
	for _ in $(seq 100); do
		[ "$(status_of resyncs)" -ge 1 ] 2>/dev/null && return 0
		kill -0 "$DRYRUN_PID" 2>/dev/null ||
			fail "sync_dryrun exited: $(tail -n1 "$WORK/dryrun.log")"
		sleep 0.05
	done
	fail "sync_dryrun: no first resync within 5 s"
}

# dryrun_diag: what the daemon said, for the test's log.
dryrun_diag()
{
	kill -0 "$DRYRUN_PID" 2>/dev/null || echo "# sync_dryrun is not running" >&2
	sed 's/^/# dryrun: /' "$WORK/dryrun.log" | tail -n 20 >&2
	sed 's/^/# status: /' "$STATE.status" >&2
}

# stop_dryrun: SIGTERM, as systemd stops it.
stop_dryrun()
{
	stop_pids "$DRYRUN_PID"
	wait "$DRYRUN_PID" 2>/dev/null || true
}

# status_of KEY: one value of the daemon's status.
status_of()
{
	awk -v k="$1" '$1 == k { print $2 }' "$STATE.status" 2>/dev/null
}

# synced: the routes the daemon holds, "PREFIX CLASSID", sorted as text.
synced()
{
	awk '$3 == "synced" { print $1, $2 }' "$STATE" 2>/dev/null | sort
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
	{ ip -n "$NS_S" "-$1" -j route show table "$2" 2>/dev/null || echo '[]'; } |
		jq -r --arg fam "$1" '.[] | select((.type // "unicast") == "unicast") |
			"\(.dst | if test("/") then . elif $fam == "6" then . + "/128"
			          else . + "/32" end) \(if .flow == null then "0"
			  elif .flow.from then "\(.flow.from)/\(.flow.to)"
			  else .flow.to end) \(.metric // 0)"'
}

# change_latency_ms CMD...: run CMD in the host (an `ip route` change)
# and print the milliseconds until the daemon logged its next change.
change_latency_ms()
{
	local before t0 line
	before=$(wc -l < "$CHANGES")
	t0=$EPOCHREALTIME
	ip -n "$NS_S" "$@"
	wait_until 2 '[ "$(wc -l < "$CHANGES")" -gt "$before" ]' || {
		dryrun_diag
		fail "no change within 2 s after: ip $*"
	}
	line=$(sed -n "$((before + 1))p" "$CHANGES")
	awk -v a="$t0" -v b="${line%% *}" 'BEGIN { printf "%d\n", (b - a) * 1000 }'
}

# expect_latency WHAT CMD...: change_latency_ms within 100 ms.
expect_latency()
{
	local what=$1 ms
	shift
	ms=$(change_latency_ms "$@")
	[ "$ms" -le 100 ] || fail "$what: the daemon followed in $ms ms (> 100)"
	log "$what: followed in $ms ms"
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

realm_expected()
{
	# per prefix, the lowest metric among the routes a rule selects
	kernel_routes 4 100 | awk '$2 == 5 || $2 == 6 {
		if (!($1 in m) || $3 < m[$1]) { m[$1] = $3; c[$1] = "1:" $2 } }
		END { for (p in m) print p, c[p] }'
	kernel_routes 6 100 | awk '{ print $1, "1:60" }'
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
