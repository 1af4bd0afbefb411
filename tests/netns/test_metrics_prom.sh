#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Prometheus exposition of real pinned state after real traffic:
# egress counters per class equal the packets sent, XDP ingress on the
# peer counts the same packets by source in the same tables, every class
# agrees with `classifier -j stats`, the attachments and their programs
# are listed (XDP's mode as its own namespace sees it), a device name
# with a quote and a backslash is escaped, and promtool accepts the whole.
# Written to a FILE it is replaced atomically (mode 0644, no temporary
# left); an unwritable path fails, no file made.  The state beside the
# counters agrees with `status` and `table`: build and layout, programs
# of this build, routes by family and source, no sync daemon, the IPv4
# and IPv6 tables off (auto, few routes) and then on.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/metrics.sh
. "$(dirname "$0")/metrics.sh"

N=100
ODD='q"b\x'
metrics_setup
add_classes
add_routes
cls class add 1:50 name peer
cls route add 10.200.0.1/32 class peer
cls attach dev "$VS"
nsenter --net="/run/netns/$NS_R" "$CLASSIFIER" --bpffs "$BPFFS" \
	attach dev "$VR" xdp xdp-mode generic
ip -n "$NS_S" link add "$ODD" type veth peer name odd-peer
ip -n "$NS_S" link set "$ODD" up
cls attach dev "$ODD"

for a in $WEB4 $WEB6 $BULK4 $DFLT4; do
	send "$a" $N
done

P=$WORK/out.prom
metrics_prom >"$P"
promtool_check "$P"
cnt()
{
	prom_value "$P" "classifier_class_packets_total{class=\"$1\",name=\"$2\",direction=\"$3\"}"
}
expect_eq "web egress" "$(cnt 1:10 web egress)" $((2 * N))
expect_eq "bulk egress" "$(cnt 1:20 bulk egress)" $N
expect_eq "blackhole egress" "$(cnt 1:40 blackhole egress)" 0
expect_eq "web ingress" "$(cnt 1:10 web ingress)" 0
# the peer's XDP sees the v4 datagrams by their source, 10.200.0.1
expect_eq "peer ingress" "$(cnt 1:50 peer ingress)" $((3 * N))
expect_eq "bytes of bulk egress" \
	"$(prom_value "$P" 'classifier_class_bytes_total{class="1:20",name="bulk",direction="egress"}')" \
	"$(cls -j stats | jq '.classes[] | select(.name == "bulk") | .egress.bytes')"
expect_eq "classes" "$(prom_value "$P" classifier_classes)" 5
expect_eq "stats enabled" "$(prom_value "$P" classifier_stats_enabled)" 1

# every class, both directions together, as `stats -j` counts it
while read -r class name packets; do
	e=$(cnt "$class" "$name" egress)
	i=$(cnt "$class" "$name" ingress)
	expect_eq "class $class: prom egress+ingress = stats" $((e + i)) "$packets"
done < <(cls -j stats | jq -r '.classes[] | "\(.class) \(.name) \(.packets)"')

up()
{
	grep -c "^classifier_attachment_up{dev=\"$1\",hook=\"$2\",mode=\"$3\",prog_id=\"[0-9]*\"} 1$" "$P" || true
}
# tcx where the kernel has it (6.6+), else clsact: the mode status gives
mode=$(cls -j status |
	jq -r --arg d "$VS" '.attached[] | select(.dev == $d and .hook == "egress") | .mode')
expect_eq "egress attachment ($mode)" "$(up "$VS" egress "$mode")" 1
# XDP's mode is asked of the device, which only its namespace can see
expect_eq "XDP attachment, from another namespace" "$(up "$VR" xdp unknown)" 1
nsenter --net="/run/netns/$NS_R" "$CLASSIFIER" --bpffs "$BPFFS" \
	stats prometheus >"$P"
expect_eq "XDP attachment (generic)" "$(up "$VR" xdp generic)" 1
expect_eq "escaped device name" "$(up 'q\\"b\\\\x' egress "$mode")" 1
expect_eq "programs listed" \
	"$(grep -c '^classifier_program_info{prog_id="[0-9]*",name="cls_[a-z]*",tag="[0-9a-f]\{16\}",build_id="[0-9a-f]\{16\}"} 1$' "$P")" 3

# the textfile collector's way: atomic replace, readable by its user
T=$WORK/textfile
mkdir "$T"
metrics_prom "$T/classifier.prom"
metrics_prom "$T/classifier.prom"
promtool_check "$T/classifier.prom"
expect_eq "files in the textfile directory" "$(ls -A "$T")" classifier.prom
expect_eq "file mode" "$(stat -c %a "$T/classifier.prom")" 644
expect_eq "web egress in the file" \
	"$(prom_value "$T/classifier.prom" 'classifier_class_packets_total{class="1:10",name="web",direction="egress"}')" \
	$((2 * N))
rc=0
err=$(metrics_prom "$WORK/missing/classifier.prom" 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "writing into a missing directory succeeded"
expect_eq "error lines" "$(echo "$err" | wc -l)" 1
log "error: $err"
[ ! -e "$WORK/missing" ] || fail "a failed write left $WORK/missing"

# state beside the counters: versions, routes by source, table, sync
metrics_prom >"$P"
build=$(cls -V | sed -n 's/.*build \([0-9a-f]*\)).*/\1/p')
expect_eq "build_info" \
	"$(grep -c "^classifier_build_info{version=\"[0-9.]*\",build_id=\"$build\"} 1$" "$P")" 1
expect_eq "layout" "$(prom_value "$P" classifier_layout_version)" \
	"$(cls -j status | jq .layout)"
expect_eq "programs of this build" \
	"$(grep -c "^classifier_program_info{.*,build_id=\"$build\"} 1$" "$P")" 3
route()
{
	prom_value "$P" "classifier_routes{family=\"$1\",source=\"$2\"}"
}
# add_routes: three per family; and the peer's /32
expect_eq "ipv4 hand routes" "$(route ipv4 hand)" 4
expect_eq "ipv6 hand routes" "$(route ipv6 hand)" 3
expect_eq "ipv4 synced routes" "$(route ipv4 sync)" 0
expect_eq "ipv4 routes as status counts them" "$(route ipv4 hand)" \
	"$(cls -j status | jq .routes.v4.hand)"
expect_eq "sync daemon" "$(prom_value "$P" classifier_sync_up)" 0
expect_eq "sync figures without a daemon" \
	"$(grep -c '^classifier_sync_[a-z_]* ' "$P")" 1
table()
{
	prom_value "$P" "classifier_table_$1{family=\"$2\"}"
}
# a few routes: auto leaves both families to the tries; on builds tables
expect_eq "ipv4 table, auto" "$(table enabled ipv4)" 0
expect_eq "ipv6 table, auto" "$(table enabled ipv6)" 0
cls table on groups 64
metrics_prom >"$P"
cls -j table >"$WORK/table.json"
expect_eq "ipv4 table, on" "$(table enabled ipv4)" 1
expect_eq "ipv4 table capacity" "$(table capacity ipv4)" 64
expect_eq "ipv4 table used as table shows it" "$(table used ipv4)" \
	"$(jq .groups_used "$WORK/table.json")"
expect_eq "ipv4 table bytes as table shows them" \
	"$(table memory_bytes ipv4)" "$(jq .bytes "$WORK/table.json")"
expect_eq "ipv6 table, on" "$(table enabled ipv6)" 1
expect_eq "ipv6 table capacity as table shows it" "$(table capacity ipv6)" \
	"$(jq .ipv6.units "$WORK/table.json")"
expect_eq "ipv6 table used as table shows it" "$(table used ipv6)" \
	"$(jq .ipv6.units_used "$WORK/table.json")"
expect_eq "ipv6 table bytes as table shows them" \
	"$(table memory_bytes ipv6)" "$(jq .ipv6.bytes "$WORK/table.json")"
