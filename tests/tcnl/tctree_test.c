// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/tctree.c (and lib/nl.c's batches) against the running kernel, in a
 * network namespace of our own that dies with the process.  The tc
 * command cross-checks what the kernel holds.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "lib/tctree.h"
#include "tests/tcnl/common.h"

#define DEV  "tct0" /* four TX queues */
#define DEV1 "tct1" /* one */
#define MBIT (1000000ULL / 8)

struct tally {
	int htb, under_q2;
	__u64 rate_2_10, ceil_2_10;
	__u32 prio_2_10, leaf_2_10;
};

static int tally_cb(const struct tct_class_info *c, void *arg)
{
	struct tally *t = arg;

	t->htb += !strcmp(c->kind, "htb");
	t->under_q2 += c->handle >> 16 == 2;
	if (c->handle == tct_handle(1, 0x10)) {
		t->rate_2_10 = c->rate;
		t->ceil_2_10 = c->ceil;
		t->prio_2_10 = c->prio;
		t->leaf_2_10 = c->leaf;
	}
	return 0;
}

static struct tally tally(struct nl *nl, int ifindex)
{
	struct tally t = {};
	int err = tct_class_dump(nl, ifindex, tally_cb, &t);

	check(err == 0, "class dump (err %d, \"%s\")", err, nl->msg);
	return t;
}

static const struct tct_tree tree4 = {
	.queues = 4,
	.kind = TCT_HTB,
	.rate = 10000 * MBIT,
	.default_rate = 1 * MBIT,
};

static void test_tree(struct nl *nl, int ifindex)
{
	struct tct_tree t = tree4;
	struct tct_root r;
	struct tally n;
	int err;

	err = tct_root_get(nl, ifindex, &r);
	check(err == 0 && !tct_root_is_tree(&r, 4) && r.handle == 0,
	      "a fresh veth's root is the kernel's %s 0: (err %d)", r.kind,
	      err);
	t.ifindex = ifindex;
	tct_tree_put(nl, &t, 1);
	err = nl_talk(nl, NULL, NULL);
	check(err == 0, "tree of 4 queues (err %d, \"%s\")", err, nl->msg);
	check(count_lines("tc qdisc show dev " DEV, "qdisc mq 7fff: root") == 1,
	      "mq 7fff: at the root");
	check(count_lines("tc qdisc show dev " DEV, "qdisc htb") == 4 &&
		      count_lines("tc qdisc show dev " DEV,
				  "qdisc htb 3: parent 7fff:3") == 1,
	      "one HTB per queue, q + 1: under 7fff:q + 1");
	check(count_lines("tc class show dev " DEV,
			  "class htb 4:2 parent 4:1 prio 7 rate 1Mbit ceil "
			  "10Gbit") == 1,
	      "default class 4:2 under root class 4:1");
	err = tct_root_get(nl, ifindex, &r);
	check(err == 0 && tct_root_is_tree(&r, 4), "the root reads as ours");
	tct_tree_put(nl, &t, 1);
	err = nl_talk(nl, NULL, NULL);
	n = tally(nl, ifindex);
	check(err == 0 && n.htb == 8, "made again: the same 8 classes (%d)",
	      n.htb);
}

static void test_classes(struct nl *nl, int ifindex)
{
	struct tct_class c = {
		.handle = tct_handle(1, 0x10),
		.rate = 100 * MBIT,
		.ceil = 200 * MBIT,
		.prio = 3,
	};
	struct tct_class child = {
		.handle = tct_handle(1, 0x11),
		.parent = tct_handle(1, 0x10),
		.rate = 10 * MBIT,
		.ceil = 100 * MBIT,
	};
	struct tally n;
	int err;

	tct_class_put(nl, ifindex, &c, 7);
	err = nl_talk(nl, NULL, NULL);
	n = tally(nl, ifindex);
	check(err == 0 && n.rate_2_10 == 100 * MBIT &&
		      n.ceil_2_10 == 200 * MBIT && n.prio_2_10 == 3,
	      "class 2:10 at 100/200 Mbit, prio 3 (err %d, \"%s\")", err,
	      nl->msg);
	check(count_lines("tc class show dev " DEV,
			  "class htb 2:10 parent 2:1 prio 3 ") == 1,
	      "under queue 1's root class, HTB's own leaf");
	c.rate = 50 * MBIT;
	tct_class_put(nl, ifindex, &c, 7);
	err = nl_talk(nl, NULL, NULL);
	n = tally(nl, ifindex);
	check(err == 0 && n.rate_2_10 == 50 * MBIT,
	      "a rate change is a change in place (rate now %llu)",
	      (unsigned long long)n.rate_2_10 * 8);
	c.rate = 20000000000ULL; /* 160 Gbit: the 64-bit attributes */
	c.ceil = c.rate;
	tct_class_put(nl, ifindex, &c, 7);
	err = nl_talk(nl, NULL, NULL);
	n = tally(nl, ifindex);
	check(err == 0 && n.rate_2_10 == c.rate && n.ceil_2_10 == c.rate,
	      "rates past 2^32 bytes a second (err %d)", err);
	c.rate = 100 * MBIT;
	c.ceil = 200 * MBIT;
	child.leaf = TCT_LEAF_BFIFO;
	tct_class_put(nl, ifindex, &c, 7);
	tct_class_put(nl, ifindex, &child, 8);
	err = nl_talk(nl, NULL, NULL);
	check(err == 0 &&
		      count_lines("tc qdisc show dev " DEV, "qdisc bfifo 8") ==
			      1 &&
		      count_lines("tc class show dev " DEV,
				  "class htb 2:11 parent 2:10 ") == 1,
	      "a child class with a bfifo leaf (err %d, \"%s\")", err, nl->msg);
	tct_class_put(nl, ifindex, &child, 8);
	err = nl_talk(nl, NULL, NULL);
	check(err == 0 &&
		      count_lines("tc qdisc show dev " DEV, "qdisc bfifo") == 1,
	      "the leaf made again is changed, not doubled");
	tct_class_del(nl, ifindex, c.handle, 9);
	err = nl_talk(nl, NULL, NULL);
	check(err == -EBUSY && nl->err_tag == 9,
	      "a class with a child is not deleted (err %d, tag %lu, \"%s\")",
	      err, nl->err_tag, nl->msg);
	nl_clear(nl);
	tct_class_del(nl, ifindex, child.handle, 10);
	tct_class_del(nl, ifindex, c.handle, 11);
	err = nl_talk(nl, NULL, NULL);
	n = tally(nl, ifindex);
	check(err == 0 && n.htb == 8 &&
		      !count_lines("tc qdisc show dev " DEV, "bfifo"),
	      "child, then parent and its leaf deleted (err %d)", err);
}

/* The first failure of a batch is kept, with its tag and the kernel's text. */
static void test_batch_error(struct nl *nl, int ifindex)
{
	struct tct_class c = {.rate = MBIT, .ceil = MBIT};
	struct tally n;
	int err;
	__u32 i;

	for (i = 0; i < 600; i++) {
		c.handle = tct_handle(i % 4, 0x100 + i);
		/* Request 300 is in a qdisc the device does not have. */
		if (i == 300)
			c.handle = tct_handle(8, 0x100);
		tct_class_put(nl, ifindex, &c, 1000 + i);
	}
	err = nl_talk(nl, NULL, NULL);
	check(err < 0 && nl->err_tag == 1300,
	      "600 classes, one bad: the error names it (err %d, tag %lu, "
	      "\"%s\")",
	      err, nl->err_tag, nl->msg);
	nl_clear(nl);
	n = tally(nl, ifindex);
	/* Sent 256 a batch: the failed one's batch was made, none after. */
	check(n.htb == 8 + 511,
	      "the batch of the failure made, none after it: %d classes",
	      n.htb);
	for (i = 0; i < 600; i++)
		if (i != 300)
			tct_class_del(nl, ifindex, tct_handle(i % 4, 0x100 + i),
				      i);
	err = nl_talk(nl, NULL, NULL);
	nl_clear(nl);
	n = tally(nl, ifindex);
	check(n.htb == 8, "deleted again: %d classes", n.htb);
}

static void test_unknown_leaf(struct nl *nl, int ifindex)
{
	struct tct_class c = {
		.handle = tct_handle(0, 0x20),
		.rate = MBIT,
		.ceil = MBIT,
		.leaf = TCT_LEAF_CAKE,
	};
	int err;

	/* This machine's kernel has no cake; a kernel with it passes too. */
	tct_class_put(nl, ifindex, &c, 5);
	err = nl_talk(nl, NULL, NULL);
	check(err == 0 || (err == -ENOENT && nl->err_tag == 5 && nl->msg[0]),
	      "leaf cake: made, or refused with the kernel's reason (err %d, "
	      "\"%s\")",
	      err, nl->msg);
	nl_clear(nl);
	tct_class_del(nl, ifindex, c.handle, 6);
	nl_talk(nl, NULL, NULL);
	nl_clear(nl);
}

static void test_delete_tree(struct nl *nl, int ifindex)
{
	struct tct_root r;
	int err;

	tct_tree_del(nl, ifindex, 4, 1);
	err = nl_talk(nl, NULL, NULL);
	tct_root_get(nl, ifindex, &r);
	check(err == 0 && r.handle == 0 &&
		      !count_lines("tc qdisc show dev " DEV, "htb"),
	      "tree removed: the kernel's %s is back (err %d)", r.kind, err);
	tct_tree_del(nl, ifindex, 4, 1);
	err = nl_talk(nl, NULL, NULL);
	check(err < 0, "removing it again fails (err %d, \"%s\")", err,
	      nl->msg);
	nl_clear(nl);
}

/* Someone else's root is not ours, and ours is not deleted over it. */
static void test_foreign_root(struct nl *nl, int ifindex)
{
	struct tct_root r;
	int err;

	sh("tc qdisc add dev " DEV " root handle 7fff: htb");
	tct_root_get(nl, ifindex, &r);
	check(!tct_root_is_tree(&r, 4) && !strcmp(r.kind, "htb"),
	      "an htb 7fff: root is not the tree");
	tct_tree_del(nl, ifindex, 4, 1);
	err = nl_talk(nl, NULL, NULL);
	check(err < 0 && count_lines("tc qdisc show dev " DEV, "htb 7fff:"),
	      "and deleting the tree leaves it (err %d, \"%s\")", err, nl->msg);
	nl_clear(nl);
	sh("tc qdisc del dev " DEV " root");
}

static void test_one_queue(struct nl *nl, int ifindex)
{
	struct tct_tree t = tree4;
	struct tct_root r;
	int err;

	t.ifindex = ifindex;
	t.queues = 1;
	tct_tree_put(nl, &t, 1);
	err = nl_talk(nl, NULL, NULL);
	tct_root_get(nl, ifindex, &r);
	check(err == 0 && tct_root_is_tree(&r, 1) &&
		      count_lines("tc qdisc show dev " DEV1,
				  "qdisc htb 1: root") == 1 &&
		      count_lines("tc class show dev " DEV1, "class htb") == 2,
	      "one queue: HTB 1: at the root, classes 1:1 and 1:2 (err %d)",
	      err);
	tct_tree_del(nl, ifindex, 1, 1);
	err = nl_talk(nl, NULL, NULL);
	check(err == 0 && !count_lines("tc qdisc show dev " DEV1, "htb"),
	      "and removed (err %d)", err);
}

/*
 * Pacing's tree: mq and an fq per queue with the classes' horizon, made
 * again as a change (a new horizon), and removed.  On a kernel without
 * fq (this project's host) the kernel refuses the fq kind.
 */
static void test_fq_tree(struct nl *nl, int ifindex)
{
	struct tct_tree t = {
		.ifindex = ifindex,
		.queues = 4,
		.kind = TCT_FQ,
		.horizon_ns = 50000000,
	};
	struct tct_root r;
	int err;

	tct_tree_put(nl, &t, 1);
	err = nl_talk(nl, NULL, NULL);
	if (sh("modprobe -q sch_fq 2>/dev/null")) {
		check(err == -ENOENT, "no fq here: the kernel refuses it (%d)",
		      err);
		nl_clear(nl);
		tct_tree_del(nl, ifindex, 4, 1);
		nl_talk(nl, NULL, NULL);
		return;
	}
	check(err == 0, "mq + fq (err %d, \"%s\")", err, nl->msg);
	check(count_lines("tc qdisc show dev " DEV, "qdisc fq ") == 4 &&
		      count_lines("tc qdisc show dev " DEV,
				  "qdisc fq 3: parent 7fff:3") == 1 &&
		      count_lines("tc qdisc show dev " DEV,
				  "horizon 50ms horizon_drop") == 4,
	      "an fq q + 1: per queue, horizon 50ms, dropping past it");
	t.horizon_ns = 20000000;
	tct_tree_put(nl, &t, 1);
	err = nl_talk(nl, NULL, NULL);
	check(err == 0 && count_lines("tc qdisc show dev " DEV,
				      "horizon 20ms horizon_drop") == 4,
	      "made again with 20ms: changed in place (err %d)", err);
	tct_root_get(nl, ifindex, &r);
	check(tct_root_is_kind(&r, 4, TCT_FQ), "the root reads as ours");
	tct_tree_del_kind(nl, ifindex, 4, TCT_FQ, 1);
	err = nl_talk(nl, NULL, NULL);
	check(err == 0 && !count_lines("tc qdisc show dev " DEV, "qdisc fq"),
	      "and removed (err %d)", err);
}

int main(void)
{
	struct nl nl;
	int ifindex, ifindex1, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (unshare(CLONE_NEWNET)) {
		perror("unshare(CLONE_NEWNET)");
		return 2;
	}
	if (sh("ip link add " DEV " numtxqueues 4 numrxqueues 4 type veth "
	       "peer name " DEV "p") ||
	    sh("ip link add " DEV1 " type veth peer name " DEV1 "p") ||
	    sh("ip link set " DEV " up") || sh("ip link set " DEV1 " up")) {
		fprintf(stderr, "cannot create the veth pairs\n");
		return 2;
	}
	ifindex = if_nametoindex(DEV);
	ifindex1 = if_nametoindex(DEV1);
	err = nl_open(&nl);
	if (err || !ifindex || !ifindex1) {
		fprintf(stderr, "setup: %s\n", strerror(-err));
		return 2;
	}
	test_tree(&nl, ifindex);
	test_classes(&nl, ifindex);
	test_batch_error(&nl, ifindex);
	test_unknown_leaf(&nl, ifindex);
	test_delete_tree(&nl, ifindex);
	test_foreign_root(&nl, ifindex);
	test_one_queue(&nl, ifindex1);
	test_fq_tree(&nl, ifindex);
	nl_close(&nl);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
