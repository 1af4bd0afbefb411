#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# deploy/classifier.service as systemd would run it (its Exec lines, with
# its variables from an environment file), against deploy/example.batch
# and deploy/routes.example: start classifies as example.batch says,
# reload swaps in routes.example, stop detaches.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

UNIT="$CLASSIFIER_SRC/deploy/classifier.service"
N=20
setup_pair
setup_htb

cat > "$WORK/env" <<ENV
CLASSIFIER_IFACE=$VS
CLASSIFIER_BATCH=$CLASSIFIER_SRC/deploy/example.batch
CLASSIFIER_ROUTES=$CLASSIFIER_SRC/deploy/routes.example
ENV
grep -q "^EnvironmentFile=" "$UNIT" || fail "unit reads no EnvironmentFile"

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

unit_exec ExecStartPre
unit_exec ExecStart
[ "$(attached_json | jq -r .dev)" = "$VS" ] || fail "start did not attach $VS"
[ "$(cls route list | wc -l)" -eq 6 ] || fail "start did not load 6 routes"
rcv_nft_init
for a in $ALL_DST; do
	rcv_rule_dst "$a"
done
snapshot
for a in $ALL_DST; do
	send "$a" $N
done
expect_eq "web (example.batch)" "$(cls_delta web)" $((2 * N))
expect_eq "bulk (example.batch)" "$(cls_delta bulk)" $((2 * N))
expect_eq "blackhole (example.batch)" "$(cls_delta blackhole)" $((2 * N))
expect_eq "HTB 1:10" "$(htb_delta 1:10)" $((2 * N))
expect_eq "HTB 1:20" "$(htb_delta 1:20)" $((2 * N))
expect_eq "received at $DROP4" "$(rcv_count_dst "$DROP4")" 0
expect_eq "received at $WEB6" "$(rcv_count_dst "$WEB6")" $N

# reload: routes.example moves web to bulk, unblocks 192.0.2.0/24
unit_exec ExecReload
n=$(grep -Ecv '^(#|$)' "$CLASSIFIER_SRC/deploy/routes.example")
expect_eq "routes after reload" "$(cls route list | wc -l)" "$n"
snapshot
for a in $WEB4 $WEB6 $DROP4 $DROP6; do
	send "$a" $N
done
expect_eq "bulk after reload" "$(cls_delta bulk)" $((2 * N))
expect_eq "web after reload" "$(cls_delta web)" 0
expect_eq "blackhole after reload" "$(cls_delta blackhole)" $N
expect_eq "received at $DROP4 after reload" "$(rcv_count_dst "$DROP4")" $N

unit_exec ExecStop
[ -z "$(attached_json)" ] || fail "stop left: $(attached_json)"
# a second start works on the state the first left behind
unit_exec ExecStartPre
unit_exec ExecStart
[ "$(attached_json | jq -r .dev)" = "$VS" ] || fail "restart did not attach"
[ "$(cls route list | wc -l)" -eq 6 ] || fail "restart did not restore 6 routes"
unit_exec ExecStop
