#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Several guest smokes in one boot (guest-run.sh), one closing line for all:
#
#   guest-run.sh deploy/kernel/smoke/all.sh [NAME[:ARG,ARG...]]...
#   e.g. all.sh classifier leaf_qdiscs tunnels pace:udp
#   (default: classifier leaf_qdiscs tunnels pace)
# NAME is smoke/NAME.sh; ARGs are its arguments. Each runs in its own bash,
# so one's namespaces and traps end with it.
set -uo pipefail
dir=$(dirname "$0")
[ $# -gt 0 ] || set -- classifier leaf_qdiscs tunnels pace
passed=0 failed=0
for s in "$@"; do
	name=${s%%:*}
	args=()
	[ "$name" = "$s" ] || IFS=, read -r -a args <<< "${s#*:}"
	echo "# smoke $name ${args[*]}"
	t0=$EPOCHREALTIME
	bash "$dir/$name.sh" "${args[@]}" | tee /tmp/smoke.out
	rc=${PIPESTATUS[0]}
	set -- $(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' /tmp/smoke.out | tail -n1)
	if [ $# = 2 ]; then
		passed=$((passed + $1))
		failed=$((failed + $2))
	fi
	# a smoke that stopped before its closing line, or failed without one
	if [ $# != 2 ] || { [ "$rc" != 0 ] && [ "$2" = 0 ]; }; then
		echo "FAIL $name: exit status $rc"
		failed=$((failed + 1))
	fi
	echo "# smoke $name: $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')s"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
