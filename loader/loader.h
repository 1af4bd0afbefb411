/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Loading the BPF object, pinning its maps, and attaching it to devices.
 * Layout under <bpffs>/classifier:
 *   maps/<name>           the maps (survive detach and re-attach)
 *   links/egress_<dev>    tcx egress link
 *   links/xdp_<dev>       XDP link
 *   tc/egress_<dev>       program of a clsact+cls_bpf attachment (fallback)
 *   tc/qdisc_<dev>        present iff classifier created that clsact qdisc
 * (bpffs reserves '.', so a '.' in <dev> is written ':'.)
 */
#ifndef CLS_LOADER_H
#define CLS_LOADER_H

#include <stdbool.h>
#include <linux/types.h>

enum cls_hook {
	CLS_HOOK_EGRESS,
	CLS_HOOK_XDP,
};

enum cls_egress_mode {
	CLS_MODE_AUTO, /* tcx where the kernel has it, else clsact */
	CLS_MODE_TCX,
	CLS_MODE_TC,
};

enum cls_xdp_mode {
	CLS_XDP_NATIVE,
	CLS_XDP_GENERIC,
};

struct cls_attach_opts {
	enum cls_hook hook;
	enum cls_egress_mode mode;
	enum cls_xdp_mode xdp_mode;
};

/* What attach did, for the CLI to report. */
struct cls_attach_result {
	bool replaced;  /* an existing attachment now runs the new program */
	bool tcx;       /* egress via tcx (else clsact) */
	__u32 prog_id;
};

/* Mount bpffs at dir if it is not one (the default /sys/fs/bpf only). */
int cls_bpffs_ensure(const char *bpffs, bool may_mount);
/*
 * Create and pin the maps if they are not pinned yet (loading the BPF
 * object once to do so), with the default class and empty tables.
 * Idempotent.  *created tells whether this call made them.
 */
int cls_setup(const char *root, bool *created);

int cls_attach(const char *root, const char *ifname,
	       const struct cls_attach_opts *opts,
	       struct cls_attach_result *res);
/*
 * hook < 0: every hook. -ENOENT if nothing of ours is attached there,
 * -ENXIO for a clsact attachment whose device is not in this namespace
 * (force: forget it anyway, as purge does).
 */
int cls_detach(const char *root, const char *ifname, int hook, bool force);

struct cls_attachment {
	char ifname[64];
	enum cls_hook hook;
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

struct cls_maps;
/*
 * A new IPv4 table (on: first level + groups second-level groups; off: none)
 * and every attachment moved to programs that use it.
 */
int cls_table_resize(const char *root, struct cls_maps *m, bool on,
		     __u32 groups);
/* Repaint the table from the trie and re-point every attachment at it. */
int cls_table_refresh(const char *root, struct cls_maps *m);

/* The last netlink extended-ack text, if the last error came from tc. */
const char *cls_loader_last_error(void);

#endif
