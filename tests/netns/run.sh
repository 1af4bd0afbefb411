#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Network-namespace tests of classifier with real traffic (xdp-tools style).
#
#   tests/netns/run.sh [-v] [-d DIR] BINARY [TEST...]
#
# Every DIR/test_*.sh (DIR: tests/netns) is one test: its own bash
# process, its own namespaces, bpffs and pins, all removed by a trap
# however it ends.
# Prints "ok NAME" or "FAIL NAME: why" per test, then "N passed, M failed";
# exits non-zero if any failed.  -v prints each failed test's full log.
# Needs root, iproute2, nftables, jq, gcc (tests/deps.sh installs them).
set -eu

DIR=$(cd "$(dirname "$0")" && pwd)
VERBOSE=0
TIMEOUT=${NETNS_TEST_TIMEOUT:-120}

while [ $# -gt 0 ]; do
	case $1 in
	-v) VERBOSE=1 ;;
	-d) DIR=$(cd "$2" && pwd); shift ;;
	*) break ;;
	esac
	shift
done
if [ $# -lt 1 ]; then
	echo "usage: $0 [-v] [-d DIR] BINARY [TEST...]" >&2
	exit 2
fi
CLASSIFIER=$(realpath "$1")
shift
if [ ! -x "$CLASSIFIER" ]; then
	echo "$0: $CLASSIFIER: not an executable (build it first)" >&2
	exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "$0: needs root (network namespaces, bpffs, tc)" >&2
	exit 2
fi
for tool in ip tc nft jq nsenter gcc; do
	command -v "$tool" >/dev/null ||
		{ echo "$0: $tool missing (run tests/deps.sh)" >&2; exit 2; }
done

RUN_DIR=$(mktemp -d /tmp/cls-netns-run.XXXXXX)
trap 'rm -rf "$RUN_DIR"' EXIT
trap 'exit 130' INT TERM

UDPSEND="$RUN_DIR/udpsend"
PEER="$RUN_DIR/peer"
CLASSIFIER_SRC=$(cd "$(dirname "$0")/../.." && pwd)
gcc -O2 -Wall -Wextra -o "$UDPSEND" "$CLASSIFIER_SRC/tests/netns/udpsend.c"
# Only the tests that need it fail without it (the 6.1 guest has no gcc).
gcc -O2 -Wall -Wextra -o "$PEER" "$CLASSIFIER_SRC/tests/netns/peer.c" ||
	echo "$0: could not build tests/netns/peer.c" >&2
RATERCV="$RUN_DIR/ratercv"
gcc -O2 -Wall -Wextra -o "$RATERCV" "$CLASSIFIER_SRC/tests/netns/ratercv.c" ||
	echo "$0: could not build tests/netns/ratercv.c" >&2
export CLASSIFIER UDPSEND PEER RATERCV
# deploy/ files some tests read
export CLASSIFIER_SRC

if [ $# -gt 0 ]; then
	tests="$*"
else
	tests=$(cd "$DIR" && for f in test_*.sh; do
		f=${f#test_}
		echo "${f%.sh}"
	done)
fi

passed=0
failed=0
start=$(date +%s)
for t in $tests; do
	file="$DIR/test_$t.sh"
	log="$RUN_DIR/$t.log"
	reason="$RUN_DIR/$t.reason"
	if [ ! -f "$file" ]; then
		echo "FAIL $t: no such test ($file)"
		failed=$((failed + 1))
		continue
	fi
	rc=0
	t0=$(date +%s)
	REASON_FILE="$reason" timeout -k 10 "$TIMEOUT" bash "$file" \
		>"$log" 2>&1 || rc=$?
	secs=$(($(date +%s) - t0))
	if [ "$rc" -eq 0 ]; then
		echo "ok $t (${secs}s)"
		passed=$((passed + 1))
		continue
	fi
	failed=$((failed + 1))
	if [ -s "$reason" ]; then
		why=$(head -n1 "$reason")
	elif [ "$rc" -eq 124 ]; then
		why="timed out after ${TIMEOUT}s"
	else
		why="exit $rc: $(tail -n1 "$log")"
	fi
	echo "FAIL $t (${secs}s): $why"
	if [ "$VERBOSE" -eq 1 ]; then
		sed 's/^/    /' "$log"
	fi
done
echo "# $(($(date +%s) - start))s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
