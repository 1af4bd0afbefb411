/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A Poptrie (Asai and Ohara, SIGCOMM 2015) for IPv6, built only to be
 * measured against the IPv6 table (maps/mbt6.c): direct pointing on the
 * first 16 bits, then nodes of 6 bits (64 children) whose children and
 * leaves are found by population counts.  In one ARRAY of 8-byte
 * elements read as a __u32[]:
 *   [0, 2^16)   first level: a class, or POP6_NODE | node number
 *   nodes       8 entries (32 bytes) each from POP6_NODES: vector (u64:
 *               which children are nodes), leafvec (u64: where a run of
 *               equal leaves starts), first child node, first leaf entry
 *   leaves      one class per entry, after the nodes
 * Static: built from sorted routes in one go, no changes.
 */
#ifndef BENCH_POPTRIE6_H
#define BENCH_POPTRIE6_H

#define POP6_L1_ENTRIES	  (1U << 16)
#define POP6_NODE	  0x80000000U
#define POP6_CLASS_MASK	  (CLS_CLASS_LIMIT - 1)
#define POP6_NODES	  POP6_L1_ENTRIES
#define POP6_NODE_ENTRIES 8
#define POP6_STRIDE	  6
#define POP6_LEVELS	  19 /* 16 + 6 * 19 >= 128 */

#ifndef __bpf__
#include <stddef.h>
#include <linux/types.h>

#include "bench/gen.h"

struct pop6 {
	__u32 *t; /* the built table, entries __u32s */
	size_t entries;
	size_t nodes, leaves;
};

/* From routes in address order (gen_table's); class = class_idx + 1. */
int pop6_build(struct pop6 *pt, const struct gen_prefix *p, size_t n);
void pop6_free(struct pop6 *pt);
/* What the BPF lookup answers: the class. */
__u32 pop6_lookup(const struct pop6 *pt, const __u8 addr[16]);
#endif

#endif /* BENCH_POPTRIE6_H */
