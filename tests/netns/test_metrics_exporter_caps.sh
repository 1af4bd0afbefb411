#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `classifier exporter` as classifier-exporter.service runs it: a user of
# its own (DynamicUser=) in the readers' group (SupplementaryGroups=),
# with the unit's CapabilityBoundingSet (empty), the bpffs read-only
# (ProtectSystem=strict), the pin directory as classifier.tmpfiles makes
# it (set-group-ID, readable by that group).  Every scrape reads the
# pins: up, counters per class equal to the packets sent, routes,
# layout, the attachment by its pin's name.  With the same credentials,
# every map pin opens read-only only, a write through it is refused, and
# the attachments' pins do not open at all.  What needs more is left
# out, not invented: the tables' gauges and the programs' info (by id:
# CAP_SYS_ADMIN); a drop-in back to root with CAP_SYS_ADMIN brings them,
# through read-only handles all the same.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/metrics.sh
. "$(dirname "$0")/metrics.sh"

UNIT=$CLASSIFIER_SRC/deploy/classifier-exporter.service
unit() { sed -n "s/^$1=//p" "$UNIT"; }
[ -z "$(unit CapabilityBoundingSet)" ] ||
	fail "the exporter's unit grants '$(unit CapabilityBoundingSet)': update this test"
[ "$(unit DynamicUser)" = yes ] || fail "the exporter's unit runs as root"
[ "$(unit SupplementaryGroups)" = classifier ] ||
	fail "the exporter's unit is not in group classifier"
[ "$(unit RestrictAddressFamilies)" = "AF_INET AF_INET6" ] ||
	fail "the exporter's unit allows $(unit RestrictAddressFamilies)"
grep -qx 'd /sys/fs/bpf/classifier 2750 root classifier -' \
	"$CLASSIFIER_SRC/deploy/classifier.tmpfiles" ||
	fail "classifier.tmpfiles makes another pin directory: update this test"
# a group and a user no one else has, for classifier and the dynamic user
READERS=61234
EXP_USER=61235

metrics_setup
# the way to the bpffs open to all, as /sys/fs/bpf is
chmod 0711 "$WORK"
install -d -m 2750 -g "$READERS" "$BPFFS/classifier"
add_classes
add_routes
cls table on groups 16
cls attach dev "$VS"
send "$WEB4" 100

# as SETPRIV_OPTIONS: EXPORTER_CMD with those credentials (setpriv's
# options, no spaces in one), in a mount namespace where the bpffs is
# read-only; as_unit: the unit's.
as()
{
	# shellcheck disable=SC2016 # the script is sh's
	EXPORTER_CMD=(unshare --mount sh -c \
		'b=$1 c=$2 opts=$3; shift 3
		mount --bind -o ro "$b" "$b" &&
		exec setpriv $opts --inh-caps=-all "$c" --bpffs "$b" "$@"' \
		sh "$BPFFS" "$CLASSIFIER" "$*")
}
as_unit()
{
	as --reuid="$EXP_USER" --regid="$EXP_USER" --groups="$READERS" \
		--bounding-set=-all
}

P=$WORK/s.prom
as_unit
metrics_exporter_start
scrape "$P"
promtool_check "$P"
st=/proc/$EXPORTER_PID/status
grep -Eq "^Uid:[[:space:]]+$EXP_USER[[:space:]]" "$st" ||
	fail "the exporter runs as $(grep ^Uid "$st")"
grep -q '^CapEff:[[:space:]]*0*$' "$st" ||
	fail "the exporter runs with capabilities: $(grep ^Cap "$st" | tr '\n' ' ')"
expect_eq "up, own user, no capabilities" "$(prom_value "$P" classifier_up)" 1
expect_eq "web egress" \
	"$(prom_value "$P" 'classifier_class_packets_total{class="1:10",name="web",direction="egress"}')" 100
expect_eq "ipv4 hand routes" \
	"$(prom_value "$P" 'classifier_routes{family="ipv4",source="hand"}')" 3
expect_eq "layout" "$(prom_value "$P" classifier_layout_version)" \
	"$(cls -j status | jq .layout)"
expect_eq "egress attachment, by its pin's name" \
	"$(grep -c '^classifier_attachment_up{dev="veth-snd",hook="egress",mode="tcx",prog_id="0"} 1$' "$P")" 1
expect_eq "table gauges" "$(grep -c '^classifier_table_' "$P" || true)" 0
expect_eq "program info" "$(grep -c '^classifier_program_info' "$P" || true)" 0
metrics_exporter_stop

# what the unit's user can do with the pins themselves
gcc -O2 -Wall -Wextra -o "$WORK/pin_access" \
	"$CLASSIFIER_SRC/tests/metrics/pin_access.c" -lbpf
nsenter --net="/run/netns/$NS_S" setpriv --reuid="$EXP_USER" \
	--regid="$EXP_USER" --groups="$READERS" --bounding-set=-all \
	--inh-caps=-all "$WORK/pin_access" "$BPFFS/classifier" \
	> "$WORK/access" 2>&1 || fail "$(grep -m1 -v '^ok' "$WORK/access")"
log "as the unit's user: $(grep -c '^ok' "$WORK/access") checks of the pins"
grep -q '^ok write refused: stats$' "$WORK/access" ||
	fail "no write tried on stats: $(tr '\n' '|' < "$WORK/access")"
grep -q "^ok attachment's pin refused: egress_veth-snd$" "$WORK/access" ||
	fail "the attachment's pin was not tried: $(tr '\n' '|' < "$WORK/access")"

# a drop-in back to root with CAP_SYS_ADMIN: the programs by id
as --bounding-set=-all,+sys_admin
metrics_exporter_start
scrape "$P"
expect_eq "program info as root with CAP_SYS_ADMIN" \
	"$(grep -c '^classifier_program_info{prog_id="[0-9]*",name="cls_egress",' "$P")" 1
expect_eq "table groups as root with CAP_SYS_ADMIN" \
	"$(prom_value "$P" 'classifier_table_capacity{family="ipv4"}')" 16
metrics_exporter_stop
