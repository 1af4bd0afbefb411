// SPDX-License-Identifier: GPL-2.0-only
/*
 * The devices classifier shapes, kept in the state map: shaping one makes
 * its tree (an mq root and an HTB per queue, or one HTB, with every
 * shaping class: maps/tree.c), unshaping removes it.  Both are journalled
 * (CLS_OP_SHAPE) and redone by the next lock-taker after a crash: every
 * step makes the kernel's objects what the record says, whatever part of
 * it is there.  Which queue a new shaping class takes is decided here too.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>

#include "lib/tctree.h"
#include "maps/internal.h"

unsigned int cls_shape_queues(const struct cls_shape_dev *d)
{
	unsigned int i;

	for (i = 0; i < CLS_SHAPE_DEVS; i++)
		if (d[i].ifindex)
			return d[i].queues;
	return 0;
}

int cls_shape_devs(struct cls_maps *m, struct cls_shape_dev *d)
{
	struct cls_state s;
	unsigned int i, n = 0;
	int err = cls_state_read(m, &s);

	if (err)
		return err;
	for (i = 0; i < CLS_SHAPE_DEVS; i++)
		if (s.shape[i].ifindex)
			d[n++] = s.shape[i];
	for (i = n; i < CLS_SHAPE_DEVS; i++)
		memset(&d[i], 0, sizeof(d[i]));
	return n;
}

int cls_shape_queue_pick(struct cls_maps *m, __u64 rate, unsigned int *queue)
{
	__u64 load[TCT_MAX_QUEUES] = {};
	const struct cls_class_entry *e;
	struct cls_state s;
	unsigned int q, queues;
	size_t n, i;
	int err;

	(void)rate;
	err = cls_state_read(m, &s) ?: cls_classes(m, &e, &n);
	if (err)
		return err;
	queues = cls_shape_queues(s.shape);
	*queue = 0;
	if (queues < 2)
		return 0;
	if (queues > TCT_MAX_QUEUES)
		queues = TCT_MAX_QUEUES;
	for (i = 0; i < n; i++) {
		q = (e[i].cls.classid >> 16) - 1;
		if ((e[i].cls.flags & CLS_F_SHAPE) && !e[i].meta.shape.parent &&
		    q < queues)
			load[q] += e[i].meta.shape.rate;
	}
	for (q = 1; q < queues; q++)
		if (load[q] < load[*queue])
			*queue = q;
	return 0;
}

static void dev_label(int ifindex, char *name)
{
	if (!if_indextoname(ifindex, name))
		snprintf(name, IF_NAMESIZE, "ifindex %d", ifindex);
}

/* Make the tree s->journal records, then record the device: one write. */
static int shape_make(struct cls_maps *m, struct cls_state *s)
{
	const struct cls_shape_dev d = s->journal.shape.dev;
	const struct cls_class_entry *e;
	char kind[16];
	unsigned int i, slot = CLS_SHAPE_DEVS;
	size_t n;
	int err;

	if (d.flags & CLS_SHAPE_REPLACED) {
		err = cls_tree_root_foreign(m, d.ifindex, d.queues, kind,
					    sizeof(kind));
		if (err > 0)
			err = cls_tree_root_clear(m, d.ifindex);
		if (err < 0)
			return err;
		cls_step("shape: the root before removed");
	}
	err = cls_classes(m, &e, &n) ?: cls_tree_build(m, &d, e, n);
	if (err)
		return err;
	cls_step("shape: tree made");
	for (i = 0; i < CLS_SHAPE_DEVS; i++)
		if (s->shape[i].ifindex == d.ifindex ||
		    (!s->shape[i].ifindex && slot == CLS_SHAPE_DEVS))
			slot = i;
	if (slot == CLS_SHAPE_DEVS)
		return -ENOSPC;
	s->shape[slot] = d;
	return cls_journal_end(m, s);
}

static int shape_remove(struct cls_maps *m, struct cls_state *s)
{
	const struct cls_shape_dev d = s->journal.shape.dev;
	unsigned int i;
	int err = cls_tree_remove(m, &d);

	if (err)
		return err;
	cls_step("shape: tree removed");
	for (i = 0; i < CLS_SHAPE_DEVS; i++)
		if (s->shape[i].ifindex == d.ifindex)
			memset(&s->shape[i], 0, sizeof(s->shape[i]));
	return cls_journal_end(m, s);
}

static int shape_run(struct cls_maps *m, struct cls_state *s)
{
	return s->journal.shape.del ? shape_remove(m, s) : shape_make(m, s);
}

static bool shaped(const struct cls_state *s, __u32 ifindex)
{
	unsigned int i;

	for (i = 0; i < CLS_SHAPE_DEVS; i++)
		if (s->shape[i].ifindex == ifindex)
			return true;
	return false;
}

/*
 * Do what the record says.  A tree the kernel refuses (a leaf it lacks,
 * memory) is rolled back: taken off a device that was not shaped, left
 * as the kernel has it on one that was; a removal that fails stays
 * recorded for the next command.
 */
static int shape_settle(struct cls_maps *m, struct cls_state *s)
{
	int err = shape_run(m, s);

	if (!err || s->journal.shape.del)
		return err;
	if (shaped(s, s->journal.shape.dev.ifindex)) {
		cls_journal_end(m, s);
		return err;
	}
	s->journal.shape.del = 1;
	if (!cls_state_write(m, s))
		shape_remove(m, s);
	return err;
}

static int shape_record(struct cls_maps *m, struct cls_state *s)
{
	int err = cls_journal_begin(m, s, CLS_OP_SHAPE);

	if (err)
		return err;
	cls_step("shape: recorded");
	return shape_settle(m, s);
}

int cls_shape_dev_add(struct cls_maps *m, const struct cls_shape_dev *d,
		      bool replace, struct cls_shape_why *why)
{
	const struct cls_class_entry *e;
	struct cls_state s;
	bool ours = false, full = true;
	unsigned int i, queues;
	size_t n;
	int err, foreign;

	memset(why, 0, sizeof(*why));
	err = cls_state_for_change(m, &s) ?: cls_classes(m, &e, &n);
	if (err)
		return err;
	for (i = 0; i < CLS_SHAPE_DEVS; i++) {
		if (s.shape[i].ifindex == d->ifindex) {
			if (s.shape[i].queues != d->queues) {
				why->queues = s.shape[i].queues;
				return -EEXIST;
			}
			ours = true;
		}
		full &= !!s.shape[i].ifindex;
	}
	if (!ours && full)
		return -ENOSPC;
	queues = cls_shape_queues(s.shape);
	if (queues && queues != d->queues) {
		why->queues = queues;
		return -EXDEV;
	}
	for (i = 0; i < n; i++)
		if ((e[i].cls.flags & CLS_F_SHAPE) &&
		    (e[i].cls.classid >> 16) > d->queues) {
			why->idx = e[i].idx;
			return -ERANGE;
		}
	foreign = ours ? 0
		       : cls_tree_root_foreign(m, d->ifindex, d->queues,
					       why->kind, sizeof(why->kind));
	if (foreign < 0)
		return foreign;
	if (foreign && !replace)
		return -EBUSY;
	memset(&s.journal.shape, 0, sizeof(s.journal.shape));
	s.journal.shape.dev = *d;
	s.journal.shape.dev.flags = foreign ? CLS_SHAPE_REPLACED : 0;
	return shape_record(m, &s);
}

int cls_shape_dev_del(struct cls_maps *m, int ifindex)
{
	struct cls_state s;
	unsigned int i;
	int err = cls_state_for_change(m, &s);

	if (err)
		return err;
	for (i = 0; i < CLS_SHAPE_DEVS; i++)
		if (s.shape[i].ifindex == (__u32)ifindex && ifindex)
			break;
	if (i == CLS_SHAPE_DEVS)
		return -ENOENT;
	memset(&s.journal.shape, 0, sizeof(s.journal.shape));
	s.journal.shape.del = 1;
	s.journal.shape.dev = s.shape[i];
	return shape_record(m, &s);
}

int cls_shape_recover(struct cls_maps *m, struct cls_state *s)
{
	const struct cls_journal j = s->journal; /* ending it clears it */
	char name[IF_NAMESIZE];
	int err;

	dev_label(j.shape.dev.ifindex, name);
	err = shape_settle(m, s);
	if (err)
		return err;
	cls_notify(m, "finished an interrupted %s of %s (pid %u)",
		   j.shape.del ? "removal of the shaping tree" : "shaping",
		   name, j.pid);
	return 0;
}
