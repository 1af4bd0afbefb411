/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Egress attach for kernels without tcx (< 6.6): a clsact qdisc and one
 * cls_bpf direct-action filter, driven over rtnetlink with libmnl; and
 * the facts of a device's link that decide which program it needs.
 * Every call opens its own socket; the only shared state is the last
 * extended-ack message, kept per thread.
 */
#ifndef CLS_TC_NETLINK_H
#define CLS_TC_NETLINK_H

#include <stdbool.h>
#include <linux/types.h>

/* Our filter's fixed identity on clsact egress, so attach is idempotent
 * and detach exact.
 */
#define CLS_TC_PRIO   0xC1A5 /* filter preference (u16) */
#define CLS_TC_HANDLE 1

/* Ensure a clsact qdisc exists on ifindex. *created = true iff this call
 * added it. An existing clsact is reused; an existing non-clsact qdisc at
 * ffff: (e.g. "ingress") -> -EEXIST.
 */
int tc_clsact_ensure(int ifindex, bool *created);
/* Delete the clsact qdisc (and everything on it). -ENOENT if none. */
int tc_clsact_delete(int ifindex);
/* Attach prog_fd as cls_bpf direct-action on clsact egress at
 * (CLS_TC_PRIO, CLS_TC_HANDLE), protocol ETH_P_ALL, with `name` as the
 * filter's bpf name. If our filter already exists it is REPLACED in place
 * (no window without a filter).
 */
int tc_filter_attach(int ifindex, int prog_fd, const char *name);
/* Remove our filter. -ENOENT if absent. */
int tc_filter_detach(int ifindex);
/* Our filter present? 1 (and *prog_id set from TCA_BPF_ID) / 0 /
 * negative errno.
 */
int tc_filter_query(int ifindex, __u32 *prog_id);
/* Number of filters on clsact (both ingress and egress), ours included;
 * negative errno. Every dumped object with a handle counts, so a u32 hash
 * table counts too: the answer errs towards "not empty", which is the safe
 * side for deciding whether to delete a clsact we created.
 */
int tc_clsact_count_filters(int ifindex);
/* What RTM_GETLINK says of a device: what attach needs to choose a program. */
struct tc_link {
	int ifindex;
	bool found;
	__u16 type;       /* ARPHRD_*: what its packets start with */
	char kind[16];    /* IFLA_INFO_KIND ("gre", "wireguard"), or "" */
	__u8 remote[16];  /* a GRE device's remote (4 bytes for IPv4) */
	bool collect_md;  /* a GRE device in metadata ("external") mode */
};

/* The link of ifindex, in the caller's network namespace. */
int tc_link_query(int ifindex, struct tc_link *out);
/* The last netlink extended-ack message (NLMSGERR_ATTR_MSG), or "", so the
 * CLI can print "classifier: attach eth0: <extack>".
 */
const char *tc_netlink_last_error(void);

#endif
