// SPDX-License-Identifier: GPL-2.0-only
/* Classes' TX queues against XPS and the devices' queue counts. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/class_queue.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/xps.h"
#include "loader/loader.h"

/*
 * The queues of these classes on dev: XPS refused, wrap said.  n == 0:
 * nothing to check.
 */
static int check_on(struct cli *c, const char *dev, int ifindex,
		    const struct cls_class_entry *e, size_t n)
{
	char why[256], label[CLASSID_STRLEN];
	int err, count;
	size_t i;

	if (!n)
		return 0;
	err = xps_check(dev, ifindex, why, sizeof(why));
	if (err == -EBUSY) {
		cli_err(c,
			"%s: XPS is on (%s), and it picks the TX queue before "
			"a class's queue: turn it off (write 0 to xps_cpus and "
			"xps_rxqs of every queue), or take the queues away",
			dev, why);
		return err;
	}
	if (err) {
		pr_warn("%s: XPS cannot be read here (%s): a "
			"class's queue holds only while XPS is off\n",
			dev,
			err == -ENOENT ? "sysfs shows another network namespace" :
					 strerror(-err));
		return 0;
	}
	count = tx_queue_count(dev, ifindex);
	for (i = 0; count > 0 && i < n; i++) {
		if (e[i].cls.queue < count)
			continue;
		cls_class_label(&e[i], label, sizeof(label));
		pr_warn("class %s: queue %u wraps to queue %u on "
			"%s, which has %d TX queues\n",
			label, e[i].cls.queue, e[i].cls.queue % count, dev,
			count);
	}
	return 0;
}

int class_queue_check_dev(struct cli *c, const char *dev, int ifindex)
{
	const struct cls_class_entry *all;
	struct cls_class_entry *q;
	size_t n, i, k = 0;
	int err;

	err = cls_classes(&c->maps, &all, &n);
	if (err)
		return cli_errno(c, err, "reading classes");
	q = calloc(n ? n : 1, sizeof(*q));
	if (!q)
		return cli_errno(c, -ENOMEM, "reading classes");
	for (i = 0; i < n; i++)
		if (all[i].cls.flags & CLS_F_QUEUE)
			q[k++] = all[i];
	err = check_on(c, dev, ifindex, q, k);
	free(q);
	return err;
}

int class_queue_check_class(struct cli *c, const struct cls_class_entry *e)
{
	struct cls_attachment *a;
	size_t n, i;
	int err;

	if (!(e->cls.flags & CLS_F_QUEUE))
		return 0;
	err = cls_attachments(c->root, &a, &n);
	if (err)
		return cli_errno(c, err, "reading attachments");
	for (i = 0; i < n && !err; i++) {
		/* only devices of this namespace: the index says so */
		if (a[i].hook != CLS_HOOK_EGRESS || a[i].defunct ||
		    (int)if_nametoindex(a[i].ifname) != (int)a[i].ifindex)
			continue;
		err = check_on(c, a[i].ifname, a[i].ifindex, e, 1);
	}
	free(a);
	return err;
}
