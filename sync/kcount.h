/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How many routes the kernel holds in each IPv4 table, to tell a dump
 * the kernel ended early from a whole one.  The kernel ends a route dump
 * at a route whose message does not fit one dump datagram (sync/rtsock.h)
 * and, since 6.10, says nothing: the table then has more routes than the
 * dump gave.  The counts are the "Prefixes" of each table's trie in
 * /proc/net/fib_triestat (every route of the table, aliases and every
 * type included: what a dump of the table lists).  IPv6 has no count per
 * table.
 */
#ifndef CLS_SYNC_KCOUNT_H
#define CLS_SYNC_KCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct kcount_table {
	__u32 table;
	__u64 routes;
};

struct kcount {
	struct kcount_table *t;
	size_t n;
	/*
	 * Tables main and local share one trie until the first `ip rule`
	 * (fib_unmerge()): each then shows the pair's count, which tells
	 * nothing of either alone.
	 */
	bool merged;
};

/* Read the counts of this network namespace; 0 or a negative errno. */
int kcount_ipv4(struct kcount *kc);
/* The same from a fib_triestat text (for tests). */
int kcount_parse(FILE *f, struct kcount *kc);
void kcount_free(struct kcount *kc);
/* The count of one table: false when the kernel has no such table, or
 * when the count is not that table's alone (merged main and local). */
bool kcount_get(const struct kcount *kc, __u32 table, __u64 *routes);

#endif
