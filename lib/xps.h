/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A device's TX queues as sysfs shows them: how many there are, and
 * whether XPS picks among them.  The kernel asks XPS (xps_cpus, then
 * xps_rxqs) before it reads a queue that tc egress wrote
 * (netdev_pick_tx), so a class's queue holds only where XPS is off.
 * sysfs shows the network namespace of whoever mounted it: a device of
 * this namespace that sysfs does not show as such (another index, or
 * none) cannot be read, which is -ENOENT, never "no XPS".
 */
#ifndef CLS_XPS_H
#define CLS_XPS_H

#include <stddef.h>

/*
 * 0: XPS is off on every TX queue of ifname (index ifindex); -EBUSY: it
 * is on, and why says where, in one phrase ("xps_cpus of tx-0 is 3");
 * -ENOENT: sysfs does not show this device; another negative errno:
 * unreadable.
 */
int xps_check(const char *ifname, int ifindex, char *why, size_t n);

/* The device's real TX queue count (>= 1), or a negative errno. */
int tx_queue_count(const char *ifname, int ifindex);

#endif /* CLS_XPS_H */
