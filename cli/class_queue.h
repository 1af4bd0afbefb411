/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Classes' TX queues against the devices they are sent on: XPS on such a
 * device picks the queue before the kernel reads the one tc egress wrote,
 * so it is refused in one line, at attach (when a class has a queue) and
 * at a class change that gives a queue (when an egress attachment is
 * here); a queue past a device's count wraps, which is said, not refused
 * (devices may differ in their counts).
 */
#ifndef CLS_CLI_CLASS_QUEUE_H
#define CLS_CLI_CLASS_QUEUE_H

#include "cli/cli.h"

/* Before attaching tc egress to dev: 0, or the error said. */
int class_queue_check_dev(struct cli *c, const char *dev, int ifindex);
/* Before storing e, if it has a queue: 0, or the error said. */
int class_queue_check_class(struct cli *c, const struct cls_class_entry *e);

#endif /* CLS_CLI_CLASS_QUEUE_H */
