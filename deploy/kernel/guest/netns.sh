#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Guest side of vmtest.sh: classifier's own tests/netns suite, unchanged,
# run by its own runner (tests/netns/run.sh) against the guest kernel.
#
# vmtest.sh puts the repo's tests/netns/ and the deploy/ files the tests
# read under /cls-src (so run.sh finds them as it does in a checkout), the
# classifier at /usr/bin/classifier, and GNU userland (bash, coreutils,
# util-linux, iproute2, nftables, jq, bpftool, curl, tmux, strace,
# promtool, prometheus) ahead of busybox in PATH, and the fault build,
# check_state and the older classifiers the upgrade tests start from.
#
# gcc: run.sh builds tests/netns/udpsend.c with gcc. A compiler in the
# initramfs would be ~100 MB for one small file, so /usr/local/bin/gcc is
# a stand-in that hands out the udpsend vmtest.sh built on the host from
# the same udpsend.c, and refuses anything else (see gcc-shim.sh).
#
# Skips: a test that needs a kernel feature the guest kernel lacks is not
# counted; it still runs, and its result is printed, so the reason can be
# checked against what actually happened.
#   detach_tcx  asserts the default attach is a tcx link: tcx (BPF_TCX_*
#               attach types) is Linux 6.6+, so on 6.1 classifier falls
#               back to clsact and the test cannot hold.
export PATH=/usr/local/bin:/usr/gnu/bin:/usr/sbin:/usr/bin:/bin:/sbin
export NETNS_TEST_TIMEOUT=${NETNS_TEST_TIMEOUT:-900}
# the builds make netns would hand the tests, where vmtest.sh carried them
for b in CLASSIFIER_FAULT:classifier-fault CHECK_STATE:check_state; do
	[ -x "/usr/bin/${b#*:}" ] && export "${b%%:*}=/usr/bin/${b#*:}"
done
# classifier-from-N[-fault]: CLASSIFIER_FROM_N[_FAULT] (UPGRADE_FROM)
for f in /usr/bin/classifier-from-*; do
	[ -x "$f" ] || continue
	n=${f#/usr/bin/classifier-from-}
	v=CLASSIFIER_FROM_${n%-fault}
	[ "$n" = "${n%-fault}" ] || v=${v}_FAULT
	export "$v=$f"
done
mkdir -p /run/netns
mkdir -p /var; [ -e /var/run ] || ln -s /run /var/run
# devtmpfs has no /dev/fd (udev makes it): bash's <(...) needs it
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

say() { echo "NETNS $*"; }

declare -A SKIP
if ! bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	grep -q "'BPF_TCX_EGRESS'"; then
	SKIP[detach_tcx]="kernel has no tcx (BPF_TCX_EGRESS is not in its BTF; tcx is 6.6+): classifier falls back to clsact"
fi

run=() skipped=()
for f in /cls-src/tests/netns/test_*.sh; do
	t=${f##*/test_}
	t=${t%.sh}
	if [ -n "${SKIP[$t]:-}" ]; then
		skipped+=("$t")
	else
		run+=("$t")
	fi
done

say "kernel $(uname -r); running ${#run[@]} tests, skipping ${#skipped[@]}"
t0=$(date +%s)
bash /cls-src/tests/netns/run.sh -v /usr/bin/classifier "${run[@]}" 2>&1 |
	tee /tmp/netns.out
rc=${PIPESTATUS[0]}
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' /tmp/netns.out | tail -n1)
for t in "${skipped[@]}"; do
	say "skip $t: ${SKIP[$t]}"
	what=$(bash /cls-src/tests/netns/run.sh /usr/bin/classifier "$t" 2>&1 |
		grep -E "^(ok|FAIL) ")
	say "skip $t: ran anyway, not counted: $what"
done
say "result: ${summary:-no summary}, ${#skipped[@]} skipped; $(( $(date +%s) - t0 ))s"
[ $rc = 0 ] && [ -n "$summary" ]
