#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What `make install` gives (tests/pkg/, run by `make install-check`):
# the file list and modes, unit paths that name the installed binary,
# units that systemd-analyze verifies and rates, man pages that render
# without a warning and name every object the binary knows, and a bash
# completion that completes objects, keywords, interfaces, files and
# pinned classes.  Prints "ok NAME" / "FAIL NAME: why", then the counts.
#
#   tests/pkg/install_check.sh BUILD_DIR
set -u
# shellcheck source=tests/pkg/lib.sh
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
work=$(mktemp -d /tmp/cls-install.XXXXXX)
trap 'umount "$work/bpffs" 2>/dev/null; rm -rf "$work"' EXIT
OBJECTS="attach detach status upgrade purge class route lookup stats table
	sync exporter"


# installed_list DIR: "MODE /path" of every file under DIR, sorted
installed_list()
{
	(cd "$1" && find . -type f -printf '%m /%P\n' | sed 's/^/0/' | sort -k2)
}

expected_list()
{
	grep -v '^#' "$top/tests/pkg/install-files.txt" | sed "$1" | sort -k2
}

mk()
{
	make -s -C "$top" OUTPUT="$build" "$@"
}

file_list_default()
{
	mk install DESTDIR="$work/d1" >/dev/null || return 1
	diff <(expected_list '') <(installed_list "$work/d1")
}

file_list_usr()
{
	mk install DESTDIR="$work/d2" PREFIX=/usr >/dev/null || return 1
	diff <(expected_list 's|/usr/local/|/usr/|') \
		<(installed_list "$work/d2")
}

# every Exec line of every unit names the installed binary
unit_paths()
{
	local u bad
	for u in "$work"/d2/lib/systemd/system/*.service; do
		bad=$(grep -E '^Exec[A-Za-z]*=' "$u" | grep -v '=/bin/kill ' |
			grep -v '=-+/usr/bin/systemd-tmpfiles --create classifier.conf$' |
			grep -v "=/usr/sbin/classifier ") && {
			echo "${u##*/}: $bad"
			return 1
		}
	done
	! grep -l /usr/local "$work"/d2/lib/systemd/system/*.service
}

uninstall_removes_all()
{
	mk uninstall DESTDIR="$work/d1" >/dev/null || return 1
	local left
	left=$(find "$work/d1" -type f)
	[ -z "$left" ] || { echo "left: $left"; return 1; }
}

# Installed with PREFIX in the work dir, so that systemd-analyze finds the
# very binary and man pages the units name (it fails on a missing one).
units_verify()
{
	mk install PREFIX="$work/p" SYSTEMDUNITDIR="$work/p/units" \
		BASHCOMPDIR="$work/p/comp" >/dev/null || return 1
	local out
	out=$(MANPATH="$work/p/share/man" systemd-analyze verify \
		"$work"/p/units/*.service 2>&1) && [ -z "$out" ] ||
		{ echo "$out"; return 1; }
}

# exposure 2.5 at most (systemd-analyze's scale: 25)
units_security()
{
	local u
	for u in "$top"/deploy/classifier*.service; do
		systemd-analyze security --offline=yes --threshold=25 "$u" \
			>/dev/null 2>&1 || {
			systemd-analyze security --offline=yes "$u" 2>&1 |
				grep Overall
			return 1
		}
	done
}

man_renders()
{
	local p out
	for p in "$top"/deploy/man/*.8; do
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>&1 \
			>/dev/null)
		[ -z "$out" ] || { echo "${p##*/}: $out"; return 1; }
		out=$(groff -ww -man -z "$p" 2>&1)
		[ -z "$out" ] || { echo "${p##*/}: $out"; return 1; }
	done
}

# the page documents every object of the plan and every object the
# binary's own usage lists
man_names_objects()
{
	local page o
	page=$(MANWIDTH=200 man -l "$top/deploy/man/classifier.8" 2>/dev/null)
	for o in $OBJECTS $(binary_objects); do
		grep -Eq "^ +$o( |$)" <<<"$page" ||
			{ echo "classifier.8 has no entry for \"$o\""; return 1; }
	done
}

# the objects in `classifier help`'s "OBJECT and COMMAND" list
binary_objects()
{
	"$build/classifier" help 2>&1 |
		awk '/^OPTIONS/ { p = 0 } p && /^  [a-z]/ { print $1 }
		     /^OBJECT/ { p = 1 }'
}

# comp WORD...: what completing the last word offers, one per line
comp()
{
	bash -c '. /usr/share/bash-completion/bash_completion
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_classifier; printf "%s\n" "${COMPREPLY[@]}"' \
		comp "$work/d2/usr/share/bash-completion/completions/classifier" \
		"$@"
}

# offers WANT... -- WORD...: completing offers at least WANT
offers()
{
	local want=() got w
	while [ "$1" != -- ]; do
		want+=("$1")
		shift
	done
	shift
	got=$(comp "$@")
	for w in "${want[@]}"; do
		grep -qxF -- "$w" <<<"$got" ||
			{ echo "'$*' offers [${got//$'\n'/ }], not $w"; return 1; }
	done
}

completion_loads()
{
	bash -c '. /usr/share/bash-completion/bash_completion; . "$1";
		complete -p classifier' comp \
		"$work/d2/usr/share/bash-completion/completions/classifier" |
		grep -q -- '-F _classifier classifier$'
}

completion_words()
{
	# shellcheck disable=SC2046 # one word per object
	offers $OBJECTS $(binary_objects) -- classifier "" &&
	offers --bpffs --json -- classifier - &&
	offers add replace set del list -- classifier class "" &&
	offers add replace del list flush load -- classifier route "" &&
	offers lo -- classifier attach dev "" &&
	offers tcx tc -- classifier attach dev lo mode "" &&
	offers AF41 EF -- classifier class add 1:10 dscp "" &&
	offers class -- classifier route add 10.0.0.0/8 "" &&
	local f=$top/tests/pkg/install-files.txt
	offers "$f" -- classifier route load "${f%-files.txt}" &&
	offers "$f" -- classifier -batch "${f%-files.txt}"
}

# classes come from `classifier class list` on a private bpffs
completion_classes()
{
	mkdir -p "$work/bpffs"
	mount -t bpf bpf "$work/bpffs" || return 1
	local bin=$work/d2/usr/sbin/classifier rc=0
	"$bin" --bpffs "$work/bpffs" class add 1:10 name web >/dev/null &&
	offers default 1:10 web -- "$bin" --bpffs "$work/bpffs" \
		route add 10.0.0.0/8 class "" &&
	offers 1:10 web -- "$bin" --bpffs "$work/bpffs" class del "" || rc=1
	# no pins: nothing offered, nothing printed
	[ -z "$(comp "$bin" --bpffs "$work/none" class del "" 2>&1)" ] ||
		{ echo "offers classes without pins"; rc=1; }
	"$bin" --bpffs "$work/bpffs" purge >/dev/null
	umount "$work/bpffs"
	return $rc
}

[ -n "$(binary_objects)" ] ||
	{ echo "install_check: no objects in '$build/classifier help'" >&2; exit 2; }
check file_list_default file_list_default
check file_list_usr file_list_usr
check unit_paths unit_paths
check uninstall_removes_all uninstall_removes_all
check units_verify units_verify
check units_security units_security
check man_renders man_renders
check man_names_objects man_names_objects
check completion_loads completion_loads
check completion_words completion_words
check completion_classes completion_classes
summary
