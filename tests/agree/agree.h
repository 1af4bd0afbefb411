/* SPDX-License-Identifier: GPL-2.0-only */
/* What the table agreement tests (IPv4 and IPv6) share. */
#ifndef CLS_TEST_AGREE_H
#define CLS_TEST_AGREE_H

#include "maps/maps.h"

/* Classes 1..AGREE_CLASSES-1, class i with classid 1:(0x100 + i). */
#define AGREE_CLASSES 200

/*
 * Pins in bpffs with a table policy, the classes, and cls_egress bound to
 * the maps (*prog_fd, the caller closes it).
 */
int agree_open(struct cls_maps *m, const char *bpffs, enum cls_table_mode mode,
	       __u32 groups, int *prog_fd);
/* The class of skb->priority as cls_egress left it (0: the default). */
static inline __u32 agree_class_of(__u32 priority)
{
	return priority ? (priority & 0xffff) - 0x100 : 0;
}
/* A route load: these routes replace every hand route at once. */
int agree_load(struct cls_maps *m, const struct cls_route *r, size_t n);
/* The end of a command: upkeep (reclaim, resize), then the lock again. */
int agree_end_of_command(struct cls_maps *m);
/*
 * Run run(bpffs) in a child on a private bpffs made from tmpl (a
 * mkdtemp() template), so even a crash leaves no mount behind.
 */
int agree_main(char *tmpl, int (*run)(const char *bpffs));

#endif
