#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# deploy/classifier.service as systemd would run it (its Exec lines, with
# its variables from an environment file), with the installed example
# batch (deploy/classifier.batch.example, its "route load" pointed at a
# file of the test's): start classifies, reload swaps in another route
# file (deploy/routes.example) and keeps the counters, stop touches
# nothing (the interface stays classified), and a restart after it keeps
# classification and counters.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

UNIT="$CLASSIFIER_SRC/deploy/classifier.service"
N=20
setup_pair
setup_htb

# start: example.batch's routes, as a route file
sed -n 's/^route add \([^ ]*\) class \(.*\)$/\1 \2/p' \
	"$CLASSIFIER_SRC/deploy/example.batch" > "$WORK/routes"
sed "s|/etc/classifier/routes|$WORK/routes|" \
	"$CLASSIFIER_SRC/deploy/classifier.batch.example" > "$WORK/batch"
grep -q "^route load $WORK/routes\$" "$WORK/batch" ||
	fail "classifier.batch.example does not load /etc/classifier/routes"
cat > "$WORK/env" <<ENV
CLASSIFIER_IFACE=$VS
CLASSIFIER_BATCH=$WORK/batch
ENV
grep -q "^EnvironmentFile=/etc/default/classifier$" "$UNIT" ||
	fail "unit does not read /etc/default/classifier"
! grep -q "^ExecStop" "$UNIT" ||
	fail "unit has an ExecStop: $(grep ^ExecStop "$UNIT")"

# unit_exec KEY: run the unit's KEY= lines in order, through cls (the
# unit's own binary path replaced by the binary under test).
unit_exec()
{
	local line cmd n=0
	while IFS= read -r line; do
		cmd=${line#*=}
		cmd=${cmd#-}
		case $cmd in
		*/classifier\ *) cmd=${cmd#*/classifier } ;;
		*) fail "$1 runs something else: $cmd" ;;
		esac
		while IFS='=' read -r var val; do
			cmd=${cmd//"\${$var}"/$val}
		done < "$WORK/env"
		case $cmd in *'$'*) fail "$1: unset variable in '$cmd'" ;; esac
		log "$1: classifier $cmd"
		# shellcheck disable=SC2086
		cls $cmd || fail "$1 '$cmd' failed"
		n=$((n + 1))
	done < <(grep "^$1=" "$UNIT")
	[ $n -gt 0 ] || fail "unit has no $1"
}

unit_exec ExecStart
[ "$(attached_json | jq -r .dev)" = "$VS" ] || fail "start did not attach $VS"
expect_eq "routes after start" "$(cls route list | wc -l)" 6
rcv_nft_init
for a in $ALL_DST; do
	rcv_rule_dst "$a"
done
snapshot
for a in $ALL_DST; do
	send "$a" $N
done
expect_eq "web after start" "$(cls_delta web)" $((2 * N))
expect_eq "bulk after start" "$(cls_delta bulk)" $((2 * N))
expect_eq "blackhole after start" "$(cls_delta blackhole)" $((2 * N))
expect_eq "HTB 1:10" "$(htb_delta 1:10)" $((2 * N))
expect_eq "HTB 1:20" "$(htb_delta 1:20)" $((2 * N))
expect_eq "received at $DROP4" "$(rcv_count_dst "$DROP4")" 0
expect_eq "received at $WEB6" "$(rcv_count_dst "$WEB6")" $N
web_total=$(stat_pkts web)

# reload: routes.example moves web to bulk, unblocks 192.0.2.0/24; the
# counters go on
grep -v '^#' "$CLASSIFIER_SRC/deploy/routes.example" > "$WORK/routes"
unit_exec ExecReload
expect_eq "routes after reload" "$(cls route list | wc -l)" \
	"$(grep -c . "$WORK/routes")"
expect_eq "web's count after reload" "$(stat_pkts web)" "$web_total"
snapshot
for a in $WEB4 $WEB6 $DROP4 $DROP6; do
	send "$a" $N
done
expect_eq "bulk after reload" "$(cls_delta bulk)" $((2 * N))
expect_eq "web after reload" "$(cls_delta web)" 0
expect_eq "blackhole after reload" "$(cls_delta blackhole)" $N
expect_eq "received at $DROP4 after reload" "$(rcv_count_dst "$DROP4")" $N

# stop runs nothing (checked above): still attached and classifying
snapshot
send "$WEB4" $N
expect_eq "bulk while stopped" "$(cls_delta bulk)" $N
expect_eq "HTB 1:20 while stopped" "$(htb_delta 1:20)" $N
bulk_total=$(stat_pkts bulk)

# the start after it (systemctl restart) keeps routes and counters
unit_exec ExecStart
[ "$(attached_json | jq -r .dev)" = "$VS" ] || fail "restart detached $VS"
expect_eq "bulk's count after restart" "$(stat_pkts bulk)" "$bulk_total"
snapshot
send "$WEB4" $N
expect_eq "bulk after restart" "$(cls_delta bulk)" $N

# restart and reload under traffic: UDP streams to bulk destinations run
# while the unit's start (a restart) and reload lines run twice each; no
# packet of theirs reaches the receiver with DSCP 0 (the default class:
# bulk marks CS1), and none is lost.
streams_start 8000 300 "$BULK4" "$BULK6"
for k in 1 2; do
	unit_exec ExecStart
	unit_exec ExecReload
done
streams_check "during restarts"
