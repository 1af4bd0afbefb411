#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The live view in a real terminal (tmux, read back with capture-pane)
# while traffic flows: the classes with traffic show non-zero rates,
# highest first, the idle ones 0; a smaller window is redrawn to fit; q
# and Ctrl-C quit with status 0 and leave the terminal as it was (stty
# settings, cursor shown, alternate screen left), so does Ctrl-Z until fg.  Without a terminal it
# streams one JSON object per interval.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/metrics.sh
. "$(dirname "$0")/metrics.sh"

command -v tmux >/dev/null || fail "tmux missing (tests/deps.sh)"
metrics_setup
add_classes
add_routes
cls attach dev "$VS"

TMUX_SOCK=$WORK/tmux.sock
tm() { tmux -S "$TMUX_SOCK" "$@"; }
screen() { tm capture-pane -p -t w; }
pane() { tm display -p -t w "$1"; }

# wait_screen WHAT CMD...: poll (5 s) until CMD succeeds on the screen.
wait_screen()
{
	local what=$1
	shift
	for _ in $(seq 50); do
		screen >"$WORK/screen"
		"$@" <"$WORK/screen" && return 0
		sleep 0.1
	done
	sed 's/^/# | /' "$WORK/screen"
	fail "$what: not on the screen"
}

# traffic for ~2 s: web at twice bulk's packet rate
traffic()
{
	send "$WEB4" 2000 -i 1000 &
	send "$BULK4" 1000 -i 2000 &
}

# run_watch KEY: start the view, check it while traffic flows, quit with KEY
run_watch()
{
	local key=$1
	rm -f "$WORK/rc"
	tm send-keys -t w "$(metrics_watch_cmd 0.5); echo \$? >$WORK/rc" Enter
	traffic
	# a row is "CLASS NAME PKT/S BIT/S PACKETS BYTES"
	# shellcheck disable=SC2016 # an awk program
	wait_screen "web and bulk moving, web first" awk '
		$1 == "1:10" && $3 != "0" && $3 != "-" { web = NR }
		$1 == "1:20" && $3 != "0" && $3 != "-" { bulk = NR }
		$1 == "1:40" && $3 == "0" { idle = 1 }
		END { exit !(web && bulk && idle && web < bulk) }'
	log "$(grep -E '^(CLASS|1:10|1:20|1:40|default) ' "$WORK/screen" | tr -s ' ' | paste -sd'|')"
	expect_eq "alternate screen on" "$(pane '#{alternate_on}')" 1
	expect_eq "cursor hidden" "$(pane '#{cursor_flag}')" 0
	tm send-keys -t w "$key"
	for _ in $(seq 50); do
		[ -s "$WORK/rc" ] && break
		sleep 0.1
	done
	expect_eq "exit status after $key" "$(cat "$WORK/rc" 2>/dev/null)" 0
	expect_eq "alternate screen after $key" "$(pane '#{alternate_on}')" 0
	expect_eq "cursor after $key" "$(pane '#{cursor_flag}')" 1
	tm send-keys -t w "stty -a >$WORK/stty.after" Enter
	for _ in $(seq 50); do
		[ -s "$WORK/stty.after" ] && break
		sleep 0.1
	done
	cmp -s "$WORK/stty.before" "$WORK/stty.after" ||
		fail "terminal settings changed after $key: $(diff "$WORK/stty.before" "$WORK/stty.after" | tr '\n' ' ')"
	log "terminal as before after $key"
	rm -f "$WORK/stty.after"
	wait
}

tm -f /dev/null new-session -d -s w -x 120 -y 30 "bash --norc --noprofile"
tm send-keys -t w "stty -a >$WORK/stty.before" Enter
for _ in $(seq 50); do
	[ -s "$WORK/stty.before" ] && break
	sleep 0.1
done
run_watch q
run_watch C-c

# Ctrl-Z: stopped with the terminal restored; fg: back in the view
tm send-keys -t w "$(metrics_watch_cmd 0.5)" Enter
wait_screen "first frame" grep -q '^CLASS '
tm send-keys -t w C-z
wait_screen "job stopped" grep -q 'Stopped'
expect_eq "alternate screen when stopped" "$(pane '#{alternate_on}')" 0
expect_eq "cursor when stopped" "$(pane '#{cursor_flag}')" 1
tm send-keys -t w fg Enter
wait_screen "view again" grep -q '^CLASS '
expect_eq "alternate screen after fg" "$(pane '#{alternate_on}')" 1

# a smaller window: redrawn within it, the rest counted
tm resize-window -t w -x 50 -y 7
# shellcheck disable=SC2016 # an awk program
wait_screen "frame cut to 50x7" awk '
	length($0) > 50 { bad = 1 } /^\.\.\. 2 more/ { more = 1 }
	END { exit bad || !more || NR > 7 }'
tm send-keys -t w q

# no terminal: JSON lines, one per interval
traffic
cls stats watch 0.5 count 3 >"$WORK/watch.json"
wait
expect_eq "JSON lines" "$(wc -l <"$WORK/watch.json")" 3
jq -e . "$WORK/watch.json" >/dev/null || fail "watch output is not JSON"
expect_eq "first class by rate" \
	"$(jq -r '.classes[0].name' "$WORK/watch.json" | sort -u)" web
expect_ge "web packets/s" \
	"$(jq -s 'map(.classes[] | select(.name == "web") | .packets_per_second) | min' "$WORK/watch.json")" 100
expect_eq "blackhole packets/s" \
	"$(jq -s 'map(.classes[] | select(.name == "blackhole") | .packets_per_second) | max' "$WORK/watch.json")" 0
