#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest smoke (guest-run.sh, with a classifier build): classifier's
# programs load and pass their BPF_PROG_TEST_RUN tests on the guest kernel
# (tests/prog_test_run, and its verifier counts), lib/tctree.c makes its
# trees there, pacing's mq + fq included (tests/tctree_test), and
# classifier attaches to a veth there, by tcx where the kernel has it
# (6.6+) and clsact before, and classifies real pings into an HTB class.
#
#   guest-run.sh [--kernel K] deploy/kernel/smoke/classifier.sh
. "$(dirname "$0")/lib.sh"

B=$(dirname "$CLASSIFIER")
[ -x "$CLASSIFIER" ] && [ -x "$B/tests/prog_test_run" ] ||
	{ echo "no $CLASSIFIER or $B/tests/prog_test_run: make -j2 all first"; exit 2; }

prog_tests() {
	local out
	out=$(cd /tmp && "$B/tests/prog_test_run" 2>&1) || { echo "$out" | grep -v '^ok ' | tail -20; return 1; }
	echo "$out" | tail -n1
}
check prog_test_run prog_tests
"$B/tests/prog_test_run" --verifier-stats 2>&1 | sed 's/^/VERIFIER /'

# lib/tctree.c against a kernel that has fq: the HTB trees, and pacing's
# mq + fq per queue with the classes' horizon (tests/tcnl/tctree_test.c)
# The test's system() runs /bin/sh, here busybox, whose ash runs its own ip
# applet (no numtxqueues); in a mount namespace of its own, bash stands
# in for busybox.
tctree_tests() {
	local out
	out=$(unshare -m bash -c 'mount --bind "$(type -P bash)" /bin/busybox &&
		exec "$0"' "$B/tests/tctree_test" 2>&1) ||
		{ echo "$out" | grep -v '^ok ' | tail -20; return 1; }
	echo "$out" | grep -F 'horizon 50ms' | sed 's/^ok *//'
}
check tctree tctree_tests

want=tc
# tcx is 6.6+; its attach function names it (grep -q on a bpftool BTF dump
# fails under pipefail: bpftool dies of SIGPIPE when grep stops reading)
grep -qw tcx_prog_attach /proc/kallsyms && want=tcx
smoke_pair snd a0 10.81.0.1 rcv b0 10.81.0.2
BPFFS=/tmp/cls-smoke-bpffs
mkdir -p "$BPFFS"
mount -t bpf bpf "$BPFFS"
cls() { nsx snd "$CLASSIFIER" --bpffs "$BPFFS" "$@"; }
attach() {
	nsx snd tc qdisc add dev a0 root handle 1: htb default 99
	nsx snd tc class add dev a0 parent 1: classid 1:10 htb rate 100mbit quantum 1514
	nsx snd tc class add dev a0 parent 1: classid 1:99 htb rate 100mbit quantum 1514
	cls attach dev a0
	cls class add 1:10 name web
	cls route add 10.81.0.2/32 web
	cls stats on
	local mode
	mode=$(cls -j status | jq -r '[.. | objects | select(.dev? == "a0") | .mode] | first')
	[ "$mode" = "$want" ] || { echo "attached as '$mode', want $want on $(uname -r)"; return 1; }
	echo "egress attached by $mode"
}
classify() {
	local web htb
	nsx snd ping -c 20 -i 0.1 -q 10.81.0.2 >/dev/null
	web=$(cls -j stats | jq '[.. | objects | select(.name? == "web") | .packets? // empty] | first // 0')
	htb=$(nsx snd tc -s class show dev a0 classid 1:10 | awk '/Sent/ { print $4; exit }')
	[ "$web" -ge 20 ] && [ "$htb" -ge 20 ] ||
		{ echo "20 pings: class web counted $web, HTB 1:10 $htb"; return 1; }
	echo "20 pings: class web $web packets, HTB 1:10 $htb"
}
check "attach_$want" attach
check classify_veth classify
cls detach dev a0 >/dev/null 2>&1 || true
umount "$BPFFS"
smoke_done
