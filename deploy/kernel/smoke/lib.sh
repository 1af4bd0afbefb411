# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Helpers of the guest smoke scripts (smoke/*.sh, run in the guest by
# guest-run.sh): namespaces removed by a trap, commands in a namespace
# without remounting /sys (nsenter, so /sys/fs/bpf stays the guest's),
# one "ok NAME" / "FAIL NAME: why" line per check and the closing
# "N passed, M failed" the runners read.
set -euo pipefail

SMOKE_NS=()
SMOKE_PINS=()
SMOKE_PASSED=0
SMOKE_FAILED=0

smoke_cleanup() {
	local n p
	for p in "${SMOKE_PINS[@]}"; do rm -rf "$p"; done
	for n in "${SMOKE_NS[@]}"; do ip netns del "$n" 2>/dev/null || true; done
	# iperf3 servers and the like that a failed check left behind
	jobs -p | xargs -r kill 2>/dev/null || true
}
trap smoke_cleanup EXIT

nsx() { # NS CMD...: CMD in network namespace NS
	local n=$1
	shift
	nsenter --net="/run/netns/$n" "$@"
}

# smoke_pair NS1 DEV1 ADDR1 NS2 DEV2 ADDR2 [veth options]: two namespaces
# joined by a veth, addresses in /24s, links up.
smoke_pair() {
	ip netns add "$1"
	SMOKE_NS+=("$1")
	ip netns add "$4"
	SMOKE_NS+=("$4")
	ip link add "$2" netns "$1" "${@:7}" type veth peer name "$5" netns "$4"
	nsx "$1" ip addr add "$3/24" dev "$2"
	nsx "$4" ip addr add "$6/24" dev "$5"
	nsx "$1" ip link set "$2" up
	nsx "$4" ip link set "$5" up
	nsx "$1" ip link set lo up
	nsx "$4" ip link set lo up
}

check() { # NAME CMD...: one check, counted
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "ok $name${out:+: $out}"
		SMOKE_PASSED=$((SMOKE_PASSED + 1))
	else
		echo "FAIL $name: ${out:-exit status $?}"
		SMOKE_FAILED=$((SMOKE_FAILED + 1))
	fi
}

# The runners' closing line; the script's exit status.
smoke_done() {
	echo "$SMOKE_PASSED passed, $SMOKE_FAILED failed"
	[ "$SMOKE_FAILED" = 0 ]
}

# A number as 8 little-endian bytes in hex, for bpftool map update.
hex_u64() {
	local v=$1 i
	for i in 0 1 2 3 4 5 6 7; do
		printf '%02x ' $(((v >> (8 * i)) & 255))
	done
}

# wait_listen NS PORT: until a TCP or UDP socket listens on PORT in NS
wait_listen() {
	local i
	for i in $(seq 100); do
		nsx "$1" ss -Hltun "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	echo "nothing listens on port $2 in $1" >&2
	return 1
}
