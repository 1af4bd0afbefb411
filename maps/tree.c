// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shaping classes as tc objects on the devices the state says are
 * shaped: a class's HTB class (and leaf) put on every one of them, or
 * taken off; a device's whole tree made or removed.  A leaf over
 * lib/tctree.c: it is handed the classes, never reads the catalogue.
 * Every request makes the kernel's object what the class says whether it
 * exists or not, so redoing a step after a crash finishes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "lib/tctree.h"
#include "maps/internal.h"

static int tree_nl(struct cls_maps *m, struct nl **out)
{
	int err;

	if (!m->nl) {
		m->nl = calloc(1, sizeof(*m->nl));
		if (!m->nl)
			return -ENOMEM;
		err = nl_open(m->nl);
		if (err) {
			free(m->nl);
			m->nl = NULL;
			return err;
		}
	}
	nl_clear(m->nl);
	*out = m->nl;
	return 0;
}

void cls_tree_close(struct cls_maps *m)
{
	if (!m->nl)
		return;
	nl_close(m->nl);
	free(m->nl);
	m->nl = NULL;
}

void cls_tree_class(const struct cls_class_entry *e, struct tct_class *t)
{
	const struct cls_shape *sh = &e->meta.shape;

	memset(t, 0, sizeof(*t));
	t->handle = e->cls.classid;
	t->parent = sh->parent;
	t->rate = sh->rate;
	t->ceil = sh->ceil;
	t->burst = sh->burst;
	t->cburst = sh->cburst;
	t->prio = sh->prio;
	t->leaf = sh->leaf;
}

/* The kernel's refusal, in one line naming the device. */
static int tree_failed(struct nl *nl, int ifindex, const char *what)
{
	char name[IF_NAMESIZE] = "?";

	if_indextoname(ifindex, name);
	cls_set_error("%s on %s: %s%s%s", what, name, strerror(-nl->err),
		      nl->msg[0] ? ": " : "", nl->msg);
	return nl->err;
}

int cls_tree_class_put(struct cls_maps *m, const struct cls_state *s,
		       const struct cls_class_entry *e)
{
	struct tct_class t;
	struct nl *nl;
	unsigned int i;
	int err;

	cls_tree_class(e, &t);
	for (i = 0; i < CLS_SHAPE_DEVS; i++) {
		if (!s->shape[i].ifindex)
			continue;
		err = cls_fail("tree: class put") ?: tree_nl(m, &nl);
		if (err)
			return err;
		tct_class_put(nl, s->shape[i].ifindex, &t, 0);
		if (nl_talk(nl, NULL, NULL))
			return tree_failed(nl, s->shape[i].ifindex,
					   "putting its HTB class");
	}
	return 0;
}

int cls_tree_class_del(struct cls_maps *m, const struct cls_state *s,
		       __u32 handle)
{
	struct nl *nl;
	unsigned int i;
	int err;

	for (i = 0; i < CLS_SHAPE_DEVS; i++) {
		if (!s->shape[i].ifindex)
			continue;
		err = tree_nl(m, &nl);
		if (err)
			return err;
		tct_class_del(nl, s->shape[i].ifindex, handle, 0);
		/* Gone already: an earlier try of this step took it. */
		nl_allow(nl, -ENOENT);
		if (nl_talk(nl, NULL, NULL))
			return tree_failed(nl, s->shape[i].ifindex,
					   "deleting its HTB class");
	}
	return 0;
}

/* Is the class of handle among e[0..n) put already (or the root)? */
static bool placed(const struct cls_class_entry *const *put, size_t n,
		   __u32 handle)
{
	size_t i;

	if (!handle)
		return true;
	for (i = 0; i < n; i++)
		if (put[i]->cls.classid == handle)
			return true;
	return false;
}

int cls_tree_build(struct cls_maps *m, const struct cls_shape_dev *d,
		   const struct cls_class_entry *e, size_t n)
{
	struct tct_tree tree = {
		.ifindex = d->ifindex,
		.queues = d->queues,
		.kind = TCT_HTB,
		.rate = d->rate,
		.default_rate = d->default_rate,
	};
	const struct cls_class_entry **order;
	size_t i, done = 0, before;
	struct tct_class t;
	struct nl *nl;
	int err;

	err = tree_nl(m, &nl);
	if (err)
		return err;
	order = calloc(n ? n : 1, sizeof(*order));
	if (!order)
		return -ENOMEM;
	/* Parents before children, one level per pass (HTB: 8 at most). */
	do {
		before = done;
		for (i = 0; i < n; i++)
			if ((e[i].cls.flags & CLS_F_SHAPE) &&
			    !placed(order, done, e[i].cls.classid) &&
			    placed(order, done, e[i].meta.shape.parent))
				order[done++] = &e[i];
	} while (done > before);
	tct_tree_put(nl, &tree, 0);
	for (i = 0; i < done; i++) {
		cls_tree_class(order[i], &t);
		tct_class_put(nl, d->ifindex, &t, i + 1);
	}
	free(order);
	cls_step("tree: requests queued");
	if (nl_talk(nl, NULL, NULL))
		return tree_failed(nl, d->ifindex, "making the shaping tree");
	return 0;
}

int cls_tree_remove(struct cls_maps *m, const struct cls_shape_dev *d)
{
	struct tct_root r;
	struct nl *nl;
	int err = tree_nl(m, &nl);

	if (err)
		return err;
	/*
	 * Only our tree: one removed already (an earlier try) left the
	 * kernel's default, and a root someone put there since is theirs.
	 */
	err = tct_root_get(nl, d->ifindex, &r);
	if (err == -ENODEV)
		return 0;
	if (err)
		return tree_failed(nl, d->ifindex, "reading the root qdisc");
	if (!tct_root_is_tree(&r, d->queues))
		return 0;
	tct_tree_del(nl, d->ifindex, d->queues, 0);
	if (nl_talk(nl, NULL, NULL))
		return tree_failed(nl, d->ifindex, "removing the tree");
	return 0;
}

int cls_tree_root_foreign(struct cls_maps *m, int ifindex, unsigned int queues,
			  char *kind, size_t n)
{
	struct tct_root r;
	struct nl *nl;
	int err = tree_nl(m, &nl);

	if (err)
		return err;
	err = tct_root_get(nl, ifindex, &r);
	if (err)
		return tree_failed(nl, ifindex, "reading the root qdisc");
	snprintf(kind, n, "%s", r.kind);
	/* Handle 0: the default the kernel gave the device. */
	return r.handle && !tct_root_is_tree(&r, queues);
}

int cls_tree_root_clear(struct cls_maps *m, int ifindex)
{
	struct nlmsghdr *nlh;
	struct nl *nl;
	int err = tree_nl(m, &nl);

	if (err)
		return err;
	nlh = nl_req(nl, RTM_DELQDISC, 0, 0);
	nl_put_tcmsg(nlh, ifindex, TC_H_ROOT, 0, 0);
	nl_allow(nl, -ENOENT);
	if (nl_talk(nl, NULL, NULL))
		return tree_failed(nl, ifindex, "removing the root qdisc");
	return 0;
}
