#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `classifier exporter` as classifier-exporter.service runs it: root with
# the unit's CapabilityBoundingSet (empty), the bpffs read-only
# (ProtectSystem=strict).  Every scrape reads the pins: up, counters per
# class equal to the packets sent, routes, layout.  What the kernel only
# gives CAP_SYS_ADMIN (a map or a program by id) is left out, not
# invented: the IPv4 table's gauges and the programs' info, which appear
# once CAP_SYS_ADMIN is granted (docs/metrics.md says so).
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/metrics.sh
. "$(dirname "$0")/metrics.sh"

UNIT=$CLASSIFIER_SRC/deploy/classifier-exporter.service
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
[ -z "$caps" ] || fail "the exporter's unit grants '$caps': update this test"
metrics_setup
add_classes
add_routes
cls table on groups 16
cls attach dev "$VS"
send "$WEB4" 100

# as_unit CAPS: EXPORTER_CMD with exactly CAPS (setpriv's syntax), in a
# mount namespace where the bpffs is read-only
as_unit()
{
	# shellcheck disable=SC2016 # the script is sh's
	EXPORTER_CMD=(unshare --mount sh -c \
		'b=$1 caps=$2 c=$3; shift 3
		mount --bind -o ro "$b" "$b" &&
		exec setpriv --bounding-set="$caps" --inh-caps=-all \
			"$c" --bpffs "$b" "$@"' sh "$BPFFS" "$1" "$CLASSIFIER")
}

P=$WORK/s.prom
as_unit -all
metrics_exporter_start
scrape "$P"
promtool_check "$P"
grep -q '^CapEff:[[:space:]]*0*$' "/proc/$EXPORTER_PID/status" ||
	fail "the exporter runs with capabilities: $(grep ^Cap "/proc/$EXPORTER_PID/status" | tr '\n' ' ')"
expect_eq "up, no capabilities" "$(prom_value "$P" classifier_up)" 1
expect_eq "web egress" \
	"$(prom_value "$P" 'classifier_class_packets_total{class="1:10",name="web",direction="egress"}')" 100
expect_eq "ipv4 hand routes" \
	"$(prom_value "$P" 'classifier_routes{family="ipv4",source="hand"}')" 3
expect_eq "layout" "$(prom_value "$P" classifier_layout_version)" \
	"$(cls -j status | jq .layout)"
expect_eq "egress attachment" "$(grep -c '^classifier_attachment_up{dev="veth-snd",hook="egress",mode="tcx",prog_id="[0-9]*"} 1$' "$P")" 1
expect_eq "table gauges without CAP_SYS_ADMIN" \
	"$(grep -c '^classifier_table_' "$P" || true)" 0
expect_eq "program info without CAP_SYS_ADMIN" \
	"$(grep -c '^classifier_program_info' "$P" || true)" 0
metrics_exporter_stop

as_unit -all,+sys_admin
metrics_exporter_start
scrape "$P"
expect_eq "table groups with CAP_SYS_ADMIN" \
	"$(prom_value "$P" 'classifier_table_capacity{family="ipv4"}')" 16
expect_eq "program info with CAP_SYS_ADMIN" \
	"$(grep -c '^classifier_program_info{prog_id="[0-9]*",name="cls_egress",' "$P")" 1
metrics_exporter_stop
