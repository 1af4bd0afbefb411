/* SPDX-License-Identifier: GPL-2.0-only */
/* What progbench.c shares with its IPv6 table mode (table6.c). */
#ifndef BENCH_PROGBENCH_H
#define BENCH_PROGBENCH_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "maps/dir24.h"
#include "bench/gen.h"

#define SPREAD	  65536
#define SPREAD_1M (1U << 20) /* BENCH_ADDRS in bench.bpf.c */
#define MAX_SIZES 8

struct opts {
	size_t sizes[MAX_SIZES];
	int nsizes;
	int rounds;
	__u32 repeat;
	__u64 seed;
	int table;    /* --table */
	int table6;   /* --table6 */
	__u32 groups; /* --groups: 0 = what the largest set needs */
};

struct ctx {
	struct classifier_bpf *cls;
	struct bench_bpf *bench;
	int cpu;
	__u32 dir24_groups; /* 0: the table stays off */
	struct dir24 d;
	void *dir24_mem;
	size_t dir24_len;
	int table_fd; /* the IPv4 table's inner map */
	__u32 gen;    /* config.gen: the slot every lookup uses */
};

/* --table: IPv4, the trie against the DIR-24-8 table */
struct vtab {
	size_t n;
	int trie;
	struct gen_prefix *p; /* in address order: the fill's order */
	uint8_t hot[16];
	uint8_t (*spread)[16]; /* SPREAD_1M destinations */
	__u32 groups_needed;   /* /24s holding a prefix longer than /24 */
};

double now_ns(void);
int cmp_u32(const void *x, const void *y); /* for qsort */
int new_trie(int v6);
/* The prefixes into a new trie, FILL_CHUNK per syscall; *keep: its fd. */
int fill_batch(int v6, const struct gen_table *g, double *ns, int *keep);
/* Ethernet + IPv4/IPv6 + UDP to dst. */
size_t mk_pkt(__u8 *buf, int v6, const uint8_t dst[16]);
/* config: stats and c->gen; the IPv4 table in that slot or not. */
int set_config(struct ctx *c, __u32 stats_on, bool table);
int test_run(int prog, const __u8 *pkt, size_t len, __u32 repeat, __u32 *ns);
/* The program the spread wrapper tail-calls. */
int set_jmp(struct ctx *c, int prog);
/* The first n of addrs (bytes each) as the spread wrapper's destinations. */
int load_dests(struct ctx *c, uint8_t (*addrs)[16], __u32 n, size_t bytes);
/* Both skeletons loaded, the bench one on the classifier's maps. */
int setup(struct ctx *c);
int vtab_make(struct vtab *v, size_t n, __u64 seed);
void vtab_free(struct vtab *v);
/* The DIR-24-8 table from v, in one pass; returns the ns it took. */
double paint(struct ctx *c, const struct vtab *v);
int map_dir24(struct ctx *c);
/* skb->priority program prog gives a v4 (v6) packet to dst. */
int prog_prio(int prog, int v6, const uint8_t dst[16], __u32 *prio);

int table6_main(struct ctx *c, const struct opts *o);

#endif /* BENCH_PROGBENCH_H */
