# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# What tests/pkg/*.sh share: one check per behaviour, "ok NAME" or
# "FAIL NAME: why" (the last lines the check printed), then the counts.

passed=0
failed=0

# check NAME CMD...: run CMD, its output the reason if it fails
check()
{
	local name=$1 why
	shift
	if why=$("$@" 2>&1); then
		echo "ok $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name: $(printf '%s' "$why" | tail -n 3 | tr '\n' ' ')"
		failed=$((failed + 1))
	fi
}

# summary: the counts; fails if any check did
summary()
{
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
