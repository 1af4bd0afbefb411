#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs the libFuzzer harnesses (tests/fuzz/README.md).
#
#   tests/fuzz/run.sh --smoke [--time SEC] FUZZ_DIR NAME...
#	replay every committed input, then fuzz each harness SEC s (2)
#   tests/fuzz/run.sh --long [--time SEC] FUZZ_DIR NAME...
#	fuzz each harness SEC s (600), niced, one at a time, from the
#	committed corpus and FUZZ_DIR/work/NAME (kept between runs);
#	logs in FUZZ_DIR/logs, one summary line per harness
#   tests/fuzz/run.sh --merge FUZZ_DIR NAME...
#	minimize the committed corpus with what FUZZ_DIR/work/NAME found
#
# FUZZ_DIR holds the harness binaries ($(OUTPUT)/fuzz).  A finding stops
# the run: its input is saved as FUZZ_DIR/crash/NAME-*, and the exit
# status is non-zero.
set -eu

SRC=$(cd "$(dirname "$0")" && pwd)
MODE=
TIME=
while [ $# -gt 0 ]; do
	case $1 in
	--smoke | --long | --merge) MODE=${1#--} ;;
	--time) TIME=$2; shift ;;
	-*) echo "$0: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
if [ -z "$MODE" ] || [ $# -lt 2 ]; then
	echo "usage: $0 --smoke|--long|--merge [--time SEC] FUZZ_DIR NAME..." >&2
	exit 2
fi
DIR=$1
shift
case $MODE in
smoke) TIME=${TIME:-2} ;;
long) TIME=${TIME:-600} ;;
esac
mkdir -p "$DIR/crash" "$DIR/logs"

# Longest input worth trying: a text field, a route file or rules
# file, a route message, a frame.
max_len() {
	case $1 in
	route_file) echo 16384 ;;
	sync_rules | kroute) echo 4096 ;;
	packet) echo 512 ;;
	*) echo 256 ;;
	esac
}

# Options every run of harness $1 takes.
opts() {
	local dict="$SRC/dict/$1.dict"

	echo "-max_len=$(max_len "$1") -timeout=10 -print_final_stats=1"
	echo "-artifact_prefix=$DIR/crash/$1-"
	[ ! -f "$dict" ] || echo "-dict=$dict"
}

# "N runs in S s" from a log of a run with -print_final_stats=1.
summary() {
	awk '/^stat::number_of_executed_units:/ { runs = $2 }
	     /^stat::average_exec_per_sec:/ { rate = $2 }
	     /^stat::new_units_added:/ { added = $2 }
	     END { printf "%d runs (%d/s), %d new inputs", runs, rate, added }' "$1"
}

replay() {
	local name=$1 corpus="$SRC/corpus/$1" n

	n=$(find "$corpus" -type f 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] || { echo "fuzz: $name: no committed corpus" >&2; return 1; }
	# Files as arguments: each input runs once, as it is, not cut to max_len.
	find "$corpus" -type f -print0 |
		xargs -0 "$DIR/$name" $(opts "$name") >"$DIR/logs/$name.replay" 2>&1 ||
		{ tail -n 30 "$DIR/logs/$name.replay" >&2
		  echo "FAIL fuzz $name: a committed input fails" >&2; return 1; }
	echo "ok   fuzz $name: $n committed inputs replayed"
}

fuzz() {
	local name=$1 work=$2 log="$DIR/logs/$1.$MODE.log" niceness=$3 rc=0

	mkdir -p "$work"
	nice -n "$niceness" "$DIR/$name" $(opts "$name") -max_total_time="$TIME" \
		"$work" "$SRC/corpus/$name" >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		grep -E -m 5 '^(fuzz:|==[0-9]+==ERROR|SUMMARY|.*runtime error)' \
			"$log" >&2 || tail -n 30 "$log" >&2
		echo "FAIL fuzz $name: finding after $(summary "$log"); log $log" >&2
		return 1
	fi
	echo "ok   fuzz $name: ${TIME} s, $(summary "$log"), no finding"
}

merge() {
	local name=$1 corpus="$SRC/corpus/$1" new="$DIR/merge/$1"

	rm -rf "$new"
	mkdir -p "$new" "$corpus"
	"$DIR/$name" $(opts "$name") -merge=1 "$new" "$corpus" "$DIR/work/$name" \
		>"$DIR/logs/$name.merge" 2>&1 ||
		{ tail -n 20 "$DIR/logs/$name.merge" >&2; return 1; }
	rm -f "$corpus"/*
	cp "$new"/* "$corpus"/
	echo "ok   fuzz $name: corpus $(find "$corpus" -type f | wc -l) inputs"
}

failed=0
for name in "$@"; do
	[ -x "$DIR/$name" ] || { echo "$0: $DIR/$name: not built" >&2; exit 2; }
	case $MODE in
	smoke)
		rm -rf "$DIR/smoke/$name"
		replay "$name" && fuzz "$name" "$DIR/smoke/$name" 0 ||
			failed=$((failed + 1)) ;;
	long) fuzz "$name" "$DIR/work/$name" 10 || failed=$((failed + 1)) ;;
	merge) merge "$name" || failed=$((failed + 1)) ;;
	esac
done
[ "$failed" -eq 0 ]
