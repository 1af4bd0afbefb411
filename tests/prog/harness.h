/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test fixture for the data path: the loaded skeleton, an empty trie in each
 * route slot, a known set of classes, and the stats map mapped in memory.
 */
#ifndef CLS_TEST_HARNESS_H
#define CLS_TEST_HARNESS_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/types.h>

#include "maps/classifier_abi.h"
#include "maps/mbt6.h"
#include "tests/prog/pkt.h"

/*
 * Classes 0..TEST_CLASSES-1 are reset before every test: valid, with
 * CLS_F_PRIORITY and classid test_classid(i), so tc tests can see which
 * class a packet got from skb->priority.
 */
#define TEST_CLASSES 16
/* The fixture's maps have room for this many classes (cls_class_cap). */
#define FIX_CAP 4096
/* The address on the side a hook does not classify by routes here. */
#define TEST_DECOY_CLASS 9
#define TEST_DECOY_V4	 "192.0.2.99"
#define TEST_DECOY_V6	 "2001:db8:ffff::99"
/* Second-level groups of the test's DIR-24-8 table. */
#define TEST_DIR24_GROUPS    4
#define TEST_DIR24_DIRTY_MAX 64
#define TEST_DIR24_ENTRIES                                                     \
	(CLS_DIR24_L1_ENTRIES + TEST_DIR24_GROUPS * CLS_DIR24_GROUP_SIZE +     \
	 CLS_DIR24_HDR_ENTRIES)

/* Pool units of the test's IPv6 table. */
#define TEST_V6TABLE_UNITS 256

/*
 * The programs under test: each hook's for Ethernet devices, and for L3
 * devices (packets start with the IP header).
 */
enum hook {
	HOOK_TC = 1,	 /* cls_egress */
	HOOK_XDP = 2,	 /* cls_ingress */
	HOOK_TC_L3 = 4,	 /* cls_egress_l3 */
	HOOK_XDP_L3 = 8, /* cls_ingress_l3 */
	HOOK_STEER = 16, /* cls_steer: XDP, by destination */
};

/*
 * A tc test run takes skb->protocol from bytes 12-13 as if they were an
 * Ethernet type (eth_type_trans()), and the context cannot set it.  For
 * an L3 packet those bytes are inside the source address, so tc's L3
 * packets come from these, which make them read as IPv4 and IPv6; their
 * own routes give them TEST_DECOY_CLASS too.
 */
#define TEST_DECOY_L3_V4 "8.0.0.99"	     /* 08 00 */
#define TEST_DECOY_L3_V6 "2001:db8:86dd::99" /* bytes 4-5: 86 dd */

struct fix {
	struct classifier_bpf *skel;
	int cpu;
	int ncpus;
	int trie_v4;
	int trie_v6;
	int table;   /* the IPv4 table's inner map */
	int table6;  /* the IPv6 table's, made by v6table() */
	void *table6_mem;
	size_t table6_len;
	struct cls_counter *stats;
	size_t stats_len;
	struct cls_rate_counter *rate_stats;
	size_t rate_stats_len;
	struct cls_config cfg;
	__u32 *dir24;
	size_t dir24_len;
	/* dir24 entries a test wrote, zeroed again by fix_reset() */
	__u32 dir24_dirty[TEST_DIR24_DIRTY_MAX];
	int n_dirty;
};

struct t {
	struct fix *f;
	enum hook hook;
	char why[256];
};

static inline bool hook_is_tc(const struct t *t)
{
	return t->hook & (HOOK_TC | HOOK_TC_L3);
}

/* The hooks that classify by destination. */
static inline bool hook_by_dst(const struct t *t)
{
	return hook_is_tc(t) || t->hook == HOOK_STEER;
}

static inline bool hook_is_l3(const struct t *t)
{
	return t->hook & (HOOK_TC_L3 | HOOK_XDP_L3);
}

struct run {
	int verdict;
	struct __sk_buff skb; /* tc only: the skb as the program left it */
	struct pkt out;
};

int fix_open(struct fix *f);
void fix_close(struct fix *f);
int fix_reset(struct fix *f);
int print_verifier_stats(struct fix *f);

static inline __u32 test_classid(__u32 idx)
{
	return (1U << 16) | (0x100 + idx);
}

int route_add(struct t *t, const char *prefix, __u32 idx);
int class_set(struct t *t, __u32 idx, const struct cls_class *cls);
int set_stats_on(struct t *t, __u32 on);
int set_gen(struct t *t, __u32 gen);
/* A new, empty IPv6 table in generation 0's slot, viewed through m. */
int v6table(struct t *t, struct mbt6 *m);
/* The same, with a 24-bit first level if wide (format 3). */
int v6table_of(struct t *t, struct mbt6 *m, bool wide);
/* What config says of the IPv6 table in slot gen (v6table: ours, slot 0). */
int set_table6_format(struct t *t, __u32 gen, __u8 format);
/* The test's IPv4 table in generation gen's slot only (-1: in none). */
int use_table(struct t *t, int gen);
/* Writes entry idx of the DIR-24-8 table through its mmap. */
int dir24_set(struct t *t, __u32 idx, __u32 val);
int drop_route_table(struct t *t, int family);

/*
 * IP with addr on the side the hook classifies by, behind an Ethernet
 * header (no tag) for the Ethernet programs, alone for the L3 ones.
 */
int mk_v4(struct t *t, struct pkt *p, const char *addr, __u8 tos);
int mk_v6(struct t *t, struct pkt *p, const char *addr, __u8 tclass,
	  const __u8 *exts, int n_ext);

int run_pkt(struct t *t, const struct pkt *p, struct run *r);
/* run_pkt of a tc hook, with the skb->queue_mapping the program left. */
int run_pkt_queue(struct t *t, const struct pkt *p, struct run *r,
		  __u32 *queue_mapping);
/*
 * The same packet run repeat times in one BPF_PROG_TEST_RUN.  Returns 0 or
 * the run's -errno; -EINTR: a signal stopped it after 1..repeat-1 runs.
 */
int run_pkt_n(struct t *t, const struct pkt *p, __u32 repeat, struct run *r);
int pass_verdict(const struct t *t);
struct cls_counter counter(const struct t *t, int cpu, __u32 slot);
__u64 class_packets(const struct t *t, int cpu);
__u64 other_hook_packets(const struct t *t, int cpu);
/* Class idx's counter slot for this test's hook. */
__u32 class_slot(const struct t *t, __u32 idx);
struct cls_counter class_counter(const struct t *t, int cpu, __u32 idx);
__u64 reason_packets(const struct t *t, int cpu);
/* What class idx's rate did at this test's hook, on this CPU. */
struct cls_rate_counter rate_counter(const struct t *t, __u32 idx);

/* This CPU's steer_stats counter of slot (a queue or a reason). */
struct cls_counter steer_counter(const struct t *t, __u32 slot);

/* Records why the test failed; always returns -1. */
int fail(struct t *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define CHECK(t, cond, ...)                                                    \
	do {                                                                   \
		if (!(cond))                                                   \
			return fail(t, __VA_ARGS__);                           \
	} while (0)

/* The packet got class idx: pass, counted once, no reason, priority set. */
int expect_class(struct t *t, const struct pkt *p, __u32 idx);
/* The packet was passed untouched and counted under reason only. */
int expect_reason(struct t *t, const struct pkt *p, enum cls_reason reason);

#endif /* CLS_TEST_HARNESS_H */
