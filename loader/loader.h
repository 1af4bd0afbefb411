/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Loading the BPF object, pinning its maps, and attaching it to devices.
 * Layout under <bpffs>/classifier:
 *   maps/<name>           the maps (survive detach and re-attach)
 *   links/egress_<dev>    tcx egress link
 *   links/xdp_<dev>       XDP link
 *   links/steer_<dev>     XDP link of the steering program
 *   tc/egress_<dev>       program of a clsact+cls_bpf attachment (fallback)
 *   tc/qdisc_<dev>        present iff classifier created that clsact qdisc
 * (bpffs reserves '.', so a '.' in <dev> is written ':'.)
 */
#ifndef CLS_LOADER_H
#define CLS_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

enum cls_hook {
	CLS_HOOK_EGRESS,
	CLS_HOOK_XDP,
	CLS_HOOK_STEER, /* XDP steering to CPUs (Ethernet devices only) */
	CLS_HOOK_MAX = CLS_HOOK_STEER,
};

/* An XDP link (classifying or steering): one per device, the kernel's rule. */
static inline bool cls_hook_is_xdp(enum cls_hook h)
{
	return h == CLS_HOOK_XDP || h == CLS_HOOK_STEER;
}

enum cls_egress_mode {
	CLS_MODE_AUTO, /* tcx where the kernel has it, else clsact */
	CLS_MODE_TCX,
	CLS_MODE_TC,
};

enum cls_xdp_mode {
	CLS_XDP_NATIVE,
	CLS_XDP_GENERIC,
};

/*
 * What a device's packets start with, which picks the programs: each hook
 * has one for Ethernet devices and one for L3 devices.
 */
enum cls_link {
	CLS_LINK_ETHERNET, /* cls_egress, cls_ingress */
	CLS_LINK_L3,       /* the IP header: cls_egress_l3, cls_ingress_l3 */
};

/*
 * The link of device ifindex.  -EPFNOSUPPORT for one whose packets start
 * with a header classifier cannot read; then why (if given) names it.
 */
int cls_link_of(int ifindex, enum cls_link *link, char *why, size_t n);

struct cls_attach_opts {
	enum cls_hook hook;
	enum cls_egress_mode mode;
	enum cls_xdp_mode xdp_mode;
};

/* What attach did, for the CLI to report. */
struct cls_attach_result {
	bool replaced;  /* an existing attachment now runs the new program */
	bool tcx;       /* egress via tcx (else clsact) */
	enum cls_link link;
	__u32 prog_id;
};

struct cls_maps;

/* Mount bpffs at dir if it is not one (the default /sys/fs/bpf only). */
int cls_bpffs_ensure(const char *bpffs, bool may_mount);

/* Attach this build's program, bound to m's maps (m holds the lock). */
int cls_attach(struct cls_maps *m, const char *ifname,
	       const struct cls_attach_opts *opts,
	       struct cls_attach_result *res);
/*
 * hook < 0: every hook. -ENOENT if nothing of ours is attached there,
 * -ENXIO for a clsact attachment whose device is not in this namespace
 * (force: forget it anyway, as purge does).
 */
int cls_detach(const char *root, const char *ifname, int hook, bool force);

struct cls_open_opts;

struct cls_upgrade_result {
	int from;      /* layout the pins had (0: nothing set up) */
	bool migrated; /* moved to this layout */
	bool finished; /* an interrupted upgrade was run to its end */
	size_t moved;  /* attachments that run this build now */
};

/*
 * Move pins of an older layout to this one and make every attachment run
 * this build's programs; finishes an upgrade a crash interrupted.
 */
int cls_upgrade(const struct cls_open_opts *o, struct cls_upgrade_result *res);
/*
 * Room for need classes in the set m holds (locked): a larger one made
 * live as an upgrade is (maps/grow.c), every attachment running programs
 * for it (*moved of them), m reopened on it.  0 with nothing done if m
 * has room; -ENOSPC past CLS_MAX_CLASSES.
 */
int cls_grow(struct cls_maps *m, __u32 need, size_t *moved);

struct cls_attachment {
	char ifname[64];
	enum cls_hook hook;
	char prog_name[16]; /* the program's ("" if not readable) */
	bool tcx;          /* egress: tcx link, else clsact filter */
	bool owns_qdisc;   /* clsact created by classifier */
	bool defunct;      /* the device is gone */
	__u32 prog_id;
	__u32 ifindex;
};

/* Every attachment recorded under root; caller frees *out. */
int cls_attachments(const char *root, struct cls_attachment **out, size_t *n);
/* Detach everything and unpin everything: the opposite of setup. */
int cls_purge(const char *root);

/* This build's BPF object, as a hash; and what an attached program has. */
__u64 cls_build_id(void);
/* -ENOENT: a program of a build that did not record one (older). */
int cls_prog_build_id(__u32 prog_id, __u64 *id);

/* The last netlink extended-ack text, if the last error came from tc. */
const char *cls_loader_last_error(void);

#endif
