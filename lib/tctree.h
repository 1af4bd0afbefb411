/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tc objects classifier makes on a device it shapes, as rtnetlink
 * requests queued on a struct nl (lib/nl.h): a leaf that knows handles
 * and netlink, nothing of classes or pins (maps/ decides what the tree
 * holds).
 *
 * The tree: on a device of several TX queues an mq root (TCT_MQ_MAJOR:)
 * and under its leaf for queue q one qdisc of handle q + 1: (mq names
 * that leaf TCT_MQ_MAJOR:q + 1); on a one-queue device that qdisc is the
 * root.  The per-queue qdisc is HTB (TCT_HTB), with root class
 * q + 1:TCT_ROOT_MINOR and default class q + 1:TCT_DEFAULT_MINOR for what
 * nobody steered; shaping classes are q + 1:minor under the root class or
 * another class of the same queue, each with a leaf qdisc.  Another kind
 * per queue, fq (TCT_FQ) for the departure times of paced classes, has
 * no classes: each queue's fq releases a packet at its time and drops
 * one whose time is past its horizon.
 */
#ifndef CLS_TCTREE_H
#define CLS_TCTREE_H

#include <stdbool.h>
#include <linux/types.h>

#include "lib/nl.h"

#define TCT_MQ_MAJOR 0x7fffU
/* Majors 1..TCT_MAX_QUEUES are the queues' qdiscs. */
#define TCT_MAX_QUEUES	  1024U
#define TCT_ROOT_MINOR	  1U
#define TCT_DEFAULT_MINOR 2U
#define TCT_FIRST_MINOR	  3U /* the first a shaping class may take */
#define TCT_MAX_MINOR	  0xffffU
/* HTB's limits: prio 0 (first) to 7; eight levels of classes. */
#define TCT_MAX_PRIO  7U
#define TCT_MAX_DEPTH 8U

static inline __u32 tct_handle(unsigned int queue, __u32 minor)
{
	return (queue + 1) << 16 | minor;
}

/* The queue a handle of the tree is in (its major is queue + 1). */
static inline unsigned int tct_queue_of(__u32 handle)
{
	return (handle >> 16) - 1;
}

enum tct_kind {
	TCT_HTB,
	TCT_FQ,
};

struct tct_tree {
	int ifindex;
	unsigned int queues; /* 1: the per-queue qdisc at the root, no mq */
	enum tct_kind kind;
	__u64 rate;	    /* each queue's root class, bytes a second */
	__u64 default_rate; /* its default class's; its ceil: rate */
	__u64 horizon_ns;   /* TCT_FQ: later departures dropped (>= 1 us) */
};

/* A class's leaf qdisc; TCT_LEAF_DEFAULT is the pfifo HTB gives it. */
enum tct_leaf {
	TCT_LEAF_DEFAULT = 0,
	TCT_LEAF_PFIFO,
	TCT_LEAF_BFIFO,
	TCT_LEAF_FQ_CODEL,
	TCT_LEAF_CAKE,
	TCT_LEAF_SFQ,
	TCT_LEAF_CODEL,
	TCT_LEAF_FQ_PIE,
	TCT_NR_LEAVES,
};

/* The qdisc's kind ("fq_codel"), or NULL for TCT_LEAF_DEFAULT. */
const char *tct_leaf_name(enum tct_leaf leaf);
/* A kind by name; -EINVAL if it is none of them. */
int tct_leaf_parse(const char *name, enum tct_leaf *leaf);
/* The names, "pfifo|bfifo|...", for usage lines. */
const char *tct_leaf_names(void);

struct tct_class {
	__u32 handle;	  /* q + 1:minor */
	__u32 parent;	  /* a class of the same queue; 0: its root class */
	__u64 rate, ceil; /* bytes a second; ceil >= rate */
	__u32 burst;	  /* bytes; 0: tct_default_burst(rate) */
	__u32 cburst;	  /* bytes; 0: tct_default_burst(ceil) */
	__u8 prio;	  /* 0..TCT_MAX_PRIO */
	enum tct_leaf leaf;
};

/*
 * Whether this kernel has the qdisc kind ("fq_codel"): built in, loaded,
 * or a module it can load.  The fifos (pfifo, bfifo) and mq are part of
 * every kernel with tc; another kind is its module, sch_KIND.
 */
bool tct_kernel_has(const char *kind);

/* What a class may send at once when not told: 1 ms at rate, >= 1600 b. */
__u32 tct_default_burst(__u64 rate);

/*
 * Requests, queued on nl with tag (nl->err_tag names the one that
 * failed); nl_talk() sends them.  Each makes the kernel's object equal to
 * what it describes whether it exists or not, so a tree half made is
 * finished by making it again.
 */
/* The root and per-queue qdiscs, root and default classes. */
void tct_tree_put(struct nl *nl, const struct tct_tree *t, unsigned long tag);
/* Remove the tree: the device gets its default qdiscs back. */
void tct_tree_del(struct nl *nl, int ifindex, unsigned int queues,
		  unsigned long tag);
/* The same for a tree of that kind (tct_tree_del: TCT_HTB). */
void tct_tree_del_kind(struct nl *nl, int ifindex, unsigned int queues,
		       enum tct_kind kind, unsigned long tag);
/* Create or change a class; its leaf too unless it is the default. */
void tct_class_put(struct nl *nl, int ifindex, const struct tct_class *c,
		   unsigned long tag);
/* Delete a class (and its leaf); the kernel refuses while it has children. */
void tct_class_del(struct nl *nl, int ifindex, __u32 handle, unsigned long tag);

/* The device's TX queues (IFLA_NUM_TX_QUEUES), or -errno. */
int tct_tx_queues(int ifindex);

/* The root qdisc of a device now, for deciding whether it is ours. */
struct tct_root {
	char kind[16]; /* "mq", "htb", "noqueue", ... */
	__u32 handle;  /* 0: a default the kernel made */
};
int tct_root_get(struct nl *nl, int ifindex, struct tct_root *r);
/* The tree's root as tct_tree_put() makes it, for t's queue count. */
bool tct_root_is_tree(const struct tct_root *r, unsigned int queues);
/* The same for a tree of that kind (tct_root_is_tree: TCT_HTB). */
bool tct_root_is_kind(const struct tct_root *r, unsigned int queues,
		      enum tct_kind kind);

/* A class as the kernel holds it (tct_class_dump). */
struct tct_class_info {
	__u32 handle, parent;
	char kind[16]; /* "htb" */
	__u64 rate, ceil;
	__u32 prio;
	__u32 leaf; /* handle of its leaf qdisc (0: HTB's own) */
	__u64 bytes, packets;
};
/* Every class of the device, to cb (a non-zero return stops the dump). */
int tct_class_dump(struct nl *nl, int ifindex,
		   int (*cb)(const struct tct_class_info *c, void *arg),
		   void *arg);

#endif
