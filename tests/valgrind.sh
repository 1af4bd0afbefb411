#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# valgrind (memcheck, definite leaks too) over the unit tests and over the
# classifier commands that stop before the kernel: help, and every kind of
# bad argument.
#
#   tests/valgrind.sh BUILD_DIR
#
# Commands that talk to BPF maps are left to the ASan/UBSan/LSan build
# (make check-sanitize): valgrind 3.19 does not model BPF_MAP_LOOKUP_BATCH
# (it leaves the results "uninitialised") and checks bpf_attr fields that
# libbpf leaves unset for commands that do not read them, so it reports
# noise on every command that reads or writes a map.
set -eu

[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BUILD=$1
command -v valgrind >/dev/null ||
	{ echo "$0: valgrind missing (run tests/deps.sh)" >&2; exit 2; }
VG_ERR=99
VG=(valgrind -q "--error-exitcode=$VG_ERR" --leak-check=full
	--errors-for-leak-kinds=definite)
LOG=$(mktemp /tmp/cls-valgrind.XXXXXX)
trap 'rm -f "$LOG"' EXIT
passed=0
failed=0

# run WANT_RC NAME CMD...: CMD under valgrind exits WANT_RC, reports nothing.
run() {
	local want=$1 name=$2 rc=0

	shift 2
	"${VG[@]}" "$@" >"$LOG" 2>&1 || rc=$?
	if [ "$rc" -eq "$want" ]; then
		echo "ok   valgrind $name"
		passed=$((passed + 1))
		return
	fi
	grep -E '^==[0-9]+==' "$LOG" | head -n 30 >&2 || tail -n 20 "$LOG" >&2
	echo "FAIL valgrind $name: exit $rc, want $want"
	failed=$((failed + 1))
}

for t in "$BUILD"/tests/test_*; do
	run 0 "$(basename "$t")" "$t"
done

# A bpffs path that does not exist: none of these may get that far.
CLS=("$BUILD/classifier" --bpffs /nonexistent/classifier-valgrind)
run 0 "help" "${CLS[@]}" help
for obj in route class stats table; do
	run 0 "$obj help" "${CLS[@]}" "$obj" help
done
while IFS='|' read -r name args; do
	# shellcheck disable=SC2086 # args are words
	run 1 "$name" "${CLS[@]}" $args
done <<'EOF'
host bits|route add 10.1.0.0/8 class web
prefix length|route add 2001:db8::/129 class web
bad address|lookup 10.0.0.256
bad class name|class add 1:10 name 1abc
bad dscp|class add 1:10 dscp AF99
bad mark|class add 1:10 mark 0x100000000
unknown object|bogus
unknown command|stats bogus
missing file|route load /nonexistent/routes
missing batch|-batch /nonexistent/batch
EOF

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
