/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The contract between the BPF programs (xdp_tc/) and user space (maps/,
 * loader/, cli/): every key, value, limit and flag lives here once.
 * Changing a map's shape or a value's meaning here changes the pinned
 * layout: bump CLS_LAYOUT_VERSION and say what changed in maps/history.c.
 * A class setting that is off when zero is not such a change: it takes
 * its bytes from the room the class records keep (docs/architecture.md,
 * "How to add a class field").
 */
#ifndef CLASSIFIER_ABI_H
#define CLASSIFIER_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * Version of the pinned layout (maps, their shapes and value encodings).
 * 3: one trie slot, a flat dir24 map; 4: generation slots, route values
 * carry the prefix length and source, the state map; 5: the IPv6 table in
 * 4 MiB elements, the format of each generation's IPv6 table in config;
 * 6: class records with room (64-byte actions, 128-byte names), their
 * flags a 32-bit word; 7: the rates' clocks and counters; 8: steering to
 * CPUs (queue_cpu, cpumap, steer_stats), the class maps and counters
 * sized by the classes (maps/history.c has each one's maps).
 */
#define CLS_LAYOUT_VERSION 8

/*
 * Dense class indices; index 0 is the default class (no route matched).
 * Every encoding of an index (route values, the tables' leaves) holds
 * CLS_CLASS_BITS, so CLS_MAX_CLASSES is the most classes there can be.
 * The maps indexed by class have room for the set's capacity (the
 * classes map's size, "cap" below): CLS_CLASS_STEP at first, doubled
 * (maps/grow.c) when a class needs room past it, so a host pays for at
 * most twice the classes it has, at least CLS_CLASS_STEP, and a set grows
 * at most log2(CLS_MAX_CLASSES / CLS_CLASS_STEP) = 14 times.  The
 * programs are loaded for one capacity (cls_class_cap in their .rodata).
 */
#define CLS_CLASS_BITS	  20
#define CLS_CLASS_LIMIT	  (1U << CLS_CLASS_BITS)
#define CLS_MAX_CLASSES	  CLS_CLASS_LIMIT
#define CLS_CLASS_STEP	  64
#define CLS_DEFAULT_CLASS 0
#define CLS_NAME_MAX 32

/* Upper bounds for the LPM tries (BPF_F_NO_PREALLOC: memory follows use). */
#define CLS_MAX_ROUTES_V4 (1U << 21)
#define CLS_MAX_ROUTES_V6 (1U << 21)

/* Parser bound: VLAN tags skipped before the IP header. */
#define CLS_MAX_VLAN_TAGS 2

struct cls_v4_key {
	__u32 prefixlen;
	__u8 addr[4]; /* network byte order */
};

struct cls_v6_key {
	__u32 prefixlen;
	__u8 addr[16];
};

/*
 * A class index kept in a word whose other bits say more: its low lo
 * bits at bit 0, the rest (up to CLS_CLASS_BITS) from bit hi_at.  The
 * high part came after the low one, in bits that words written before
 * held zero, so every older word reads as it did.
 */
static inline __attribute__((always_inline)) __u32
cls_idx_put(__u32 idx, unsigned int lo, unsigned int hi_at)
{
	idx &= CLS_CLASS_LIMIT - 1;
	return (idx & ((1U << lo) - 1)) | (idx >> lo) << hi_at;
}

static inline __attribute__((always_inline)) __u32
cls_idx_get(__u32 w, unsigned int lo, unsigned int hi_at)
{
	return (w & ((1U << lo) - 1)) |
	       (w >> hi_at & ((1U << (CLS_CLASS_BITS - lo)) - 1)) << lo;
}

/*
 * Route value in the tries: the class index, the prefix's own length (one
 * lookup then tells which prefix matched) and where the route came from:
 * class bits 0-15 in bits 0-15, the length in 16-23, synced in 24, class
 * bits 16-19 in 25-28.  The data path uses only the class bits.
 */
#define CLS_ROUTE_CLASS_LO   16
#define CLS_ROUTE_CLASS_HI   25
#define CLS_ROUTE_PLEN_SHIFT 16
#define CLS_ROUTE_PLEN_MASK  0xFFU
#define CLS_ROUTE_SYNCED     (1U << 24) /* installed by `classifier sync` */

static inline __u32 cls_route_value(__u32 class_idx, __u32 plen, __u32 flags)
{
	return cls_idx_put(class_idx, CLS_ROUTE_CLASS_LO, CLS_ROUTE_CLASS_HI) |
	       (plen & CLS_ROUTE_PLEN_MASK) << CLS_ROUTE_PLEN_SHIFT | flags;
}

static inline __attribute__((always_inline)) __u32 cls_route_class(__u32 v)
{
	return cls_idx_get(v, CLS_ROUTE_CLASS_LO, CLS_ROUTE_CLASS_HI);
}

/*
 * The tries and tables sit in two-slot ARRAY_OF_MAPS, one slot per
 * generation: a whole new route set is built in the slot packets do not
 * use and published by one write of cls_config.gen.
 */
#define CLS_GENERATIONS 2

/*
 * A class's rate, as the data path uses it (xdp_tc/rate.h): the time a
 * byte takes at that rate, in ns << shift, so a packet's cost is a multiply
 * and a shift (user space picks shift so that mult uses 32 bits: 2^-31
 * relative error at any rate); the burst in bytes (the bucket of a policer,
 * how far a paced class's clock may lag behind now); for pacing, the
 * horizon (a departure further away is dropped) and the delay from which
 * ECN-capable packets are marked CE (0: never).
 */
struct cls_rate {
	__u32 mult;
	__u32 burst;
	__u32 horizon_ns;
	__u32 ce_ns;
	__u8 shift;
	__u8 pad[3];
};

/*
 * What a rate's clock costs a packet is computed on at most this many
 * bytes (no skb is longer; a length past it cannot overflow the cost).
 */
#define CLS_RATE_MAX_LEN (1U << 20)

/*
 * A rate's clock (struct cls_rate_state.tat) is CLOCK_MONOTONIC plus this,
 * so that the clock less a burst's time is never below zero; 0 is a full
 * bucket.  Larger than any burst's time (at most 2^62 ns).
 */
#define CLS_RATE_EPOCH (1ULL << 63)

/*
 * struct cls_class.flags: which of a class's settings are on.  Every
 * setting has a bit here, wherever its value lives (the data path's in
 * struct cls_class, user space's in struct cls_class_meta), and its value
 * is zero while its bit is clear: zero is off.  CLS_F_KNOWN is what this
 * build knows; bits outside it were set by a newer build of this layout.
 */
#define CLS_F_VALID (1U << 0)	 /* slot is in use */
#define CLS_F_PRIORITY (1U << 1) /* skb->priority = classid */
#define CLS_F_MARK (1U << 2)	 /* skb->mark = mark */
#define CLS_F_DSCP (1U << 3)	 /* rewrite DSCP (v4 TOS / v6 traffic class) */
#define CLS_F_DROP (1U << 4)	 /* TC_ACT_SHOT / XDP_DROP */
#define CLS_F_POLICE (1U << 5)	 /* over rate: dropped, or the over actions */
#define CLS_F_PACE (1U << 6)	 /* departure times at rate (tc egress) */
#define CLS_F_OVER_DSCP (1U << 7) /* police: over rate gets over_dscp */
#define CLS_F_OVER_MARK (1U << 8) /* police: over rate gets over_mark */
#define CLS_F_QUEUE (1U << 9)	 /* skb->queue_mapping = queue + 1 */
/*
 * An HTB class on every device classifier shapes (cls_class_meta.shape);
 * the classid is that class's: its major is its TX queue + 1.
 */
#define CLS_F_SHAPE (1U << 10)
#define CLS_F_RATED (CLS_F_POLICE | CLS_F_PACE)
#define CLS_F_KNOWN                                                            \
	(CLS_F_VALID | CLS_F_PRIORITY | CLS_F_MARK | CLS_F_DSCP | CLS_F_DROP | \
	 CLS_F_RATED | CLS_F_OVER_DSCP | CLS_F_OVER_MARK | CLS_F_QUEUE |      \
	 CLS_F_SHAPE)

/*
 * A class as the data path reads it: one inlined array read per packet.
 * The room is for settings later builds add (zero: off), so adding one
 * is not a layout change; records are always copied whole, so a build
 * keeps the bytes of settings it does not know.
 */
#define CLS_CLASS_SIZE 64
struct cls_class {
	__u32 classid; /* tc handle MAJ:MIN, as TC_H_MAKE() builds it */
	__u32 mark;
	__u32 flags; /* CLS_F_* */
	__u8 dscp;   /* 0..63 */
	__u8 over_dscp; /* CLS_F_OVER_DSCP */
	__u8 pad[2];
	__u32 over_mark; /* CLS_F_OVER_MARK */
	struct cls_rate rate; /* CLS_F_POLICE or CLS_F_PACE */
	__u16 queue; /* CLS_F_QUEUE: the TX queue, 0 .. CLS_QUEUE_MAX */
	__u8 room[CLS_CLASS_SIZE - 42];
};

/*
 * A class's TX queue: tc egress writes queue + 1 to skb->queue_mapping,
 * which the kernel's skb_tx_hash() reads as a recorded queue (txq =
 * queue_mapping - 1, folded into the device's real queue count).  4096:
 * rtnetlink's limit on a device's TX queues.
 */
#define CLS_QUEUE_MAX 4095

/*
 * User-space only: the name, and room for settings only user space reads
 * (their bits are in struct cls_class.flags).  Kept in BPF memory so the
 * CLI stays stateless.
 */
#define CLS_CLASS_META_SIZE 128
/*
 * A shaping class's HTB settings (CLS_F_SHAPE), as lib/tctree.h's struct
 * tct_class takes them: bytes a second, bytes (0: HTB's default from the
 * rate), the parent's classid (0: the queue's root class), the leaf
 * qdisc (enum tct_leaf, 0: HTB's own pfifo).
 */
struct cls_shape {
	__u64 rate, ceil;
	__u32 burst, cburst;
	__u32 parent;
	__u8 prio;
	__u8 leaf;
	__u8 pad[2];
};

struct cls_class_meta {
	char name[CLS_NAME_MAX];
	__u64 rate_bps; /* the rate as given, in bytes/s (CLS_F_RATED) */
	struct cls_shape shape; /* CLS_F_SHAPE */
	__u8 room[CLS_CLASS_META_SIZE - CLS_NAME_MAX - 8 - 32];
};

_Static_assert(sizeof(struct cls_class) == CLS_CLASS_SIZE, "class layout");
_Static_assert(sizeof(struct cls_shape) == 32, "shape layout");
_Static_assert(sizeof(struct cls_class_meta) == CLS_CLASS_META_SIZE,
	       "class name layout");

/*
 * Why a packet was left unclassified (passed untouched, never dropped),
 * or, for NO_TABLE, classified without its routes.  A packet whose
 * address can be read is always classified: only what comes before the
 * address (link header, fixed IP header) can stop it.  The values index
 * counters that outlive a build, so they are never reused.
 */
enum cls_reason {
	/* ARP, LLDP, MPLS, ... or more VLAN tags than we parse */
	CLS_R_NOT_IP = 0,
	/* the packet ends inside its link header or fixed IP header */
	CLS_R_TRUNCATED,
	/* the IP version is not the one the link layer names */
	CLS_R_MALFORMED,
	/*
	 * Retired: older builds walked IPv6 extension headers and passed
	 * chains of more than 8 here, unclassified.  Nothing counts it now;
	 * what older programs counted before an upgrade stays readable.
	 */
	CLS_R_EXT_LIMIT,
	/* route table slot empty (never after load): the default class */
	CLS_R_NO_TABLE,
	CLS_R_MAX,
};
#define CLS_REASON_SLOTS 16

/*
 * stats: one BPF_F_MMAPABLE ARRAY of nr_cpus * CLS_STATS_STRIDE(cap)
 * counters.  CPU c owns entries [c * stride, (c + 1) * stride): the cap
 * classes as tc egress counted them, then as XDP ingress counted them,
 * then one slot per cls_reason.  Only CPU c writes its slice, so the data
 * path uses plain adds.  A layout 7 set is one of cap 4096.
 */
#define CLS_STATS_EGRESS_BASE 0
#define CLS_STATS_INGRESS_BASE(cap) (cap)
#define CLS_STATS_REASON_BASE(cap)  (2 * (cap))
#define CLS_STATS_STRIDE(cap)	    (2 * (cap) + CLS_REASON_SLOTS)

struct cls_counter {
	__u64 packets;
	__u64 bytes;
};

/*
 * rate_state: the clocks of a rated class (xdp_tc/rate.h), one per hook,
 * a cache line per class index so that CPUs busy with neighbouring
 * classes do not share lines.  Every CPU updates them with atomics; a
 * zeroed entry is a full bucket (user space zeroes it when the rate
 * changes).  Indexed and sized like classes.
 */
#define CLS_RATE_EGRESS	 0
#define CLS_RATE_INGRESS 1
struct cls_rate_state {
	__u64 tat[2]; /* [CLS_RATE_EGRESS or _INGRESS] */
	__u8 pad[48];
};

/*
 * rate_stats: what the rates did, per CPU like stats (one
 * BPF_F_MMAPABLE ARRAY of nr_cpus * CLS_RATE_STATS_STRIDE(cap); CPU c
 * owns its slice, plain adds): egress classes, then ingress classes.
 * passed: within the rate (paced: sent, delayed or not); dropped: over
 * the rate (police) or past the horizon (pace); delayed: given a later
 * departure; marked: over the rate and remarked (police), or CE (pace).
 */
#define CLS_RATE_STATS_STRIDE(cap) (2 * (cap))
struct cls_rate_counter {
	__u64 passed;
	__u64 dropped;
	__u64 delayed;
	__u64 marked;
};

/*
 * Steering (xdp_tc/steer.h, cls_steer on a router's ingress device): a
 * packet's class, looked up by destination as tc egress will, names a TX
 * queue; queue_cpu[queue] is the CPU that owns that queue's HTB, plus one
 * (0: not steered, the packet stays on the CPU that received it), and
 * the packet is redirected through cpumap to it.  cpumap's entries (a
 * queue size each) exist for the CPUs some queue names: user space
 * writes a CPU's entry before a queue names it.
 */
#define CLS_STEER_QSIZE 2048
/*
 * steer_stats: per CPU (the CPU that ran cls_steer, which owns its slice:
 * plain adds), one counter per queue of the packets steered toward that
 * queue's CPU, then one per enum cls_steer_reason of the packets passed
 * on the receiving CPU.
 */
enum cls_steer_reason {
	CLS_STEER_NOT_IP = 0, /* no IP header to look up: passed */
	CLS_STEER_NO_QUEUE,   /* the class has no queue: passed */
	CLS_STEER_NO_CPU,     /* the queue has no CPU: passed */
	CLS_STEER_FAILED,     /* cpumap has no entry for the CPU: passed */
	CLS_STEER_R_MAX,
};
#define CLS_STEER_QUEUES (CLS_QUEUE_MAX + 1)
#define CLS_STEER_REASON_BASE CLS_STEER_QUEUES
#define CLS_STEER_REASON_SLOTS 8
#define CLS_STEER_STRIDE (CLS_STEER_QUEUES + CLS_STEER_REASON_SLOTS)

/*
 * The IPv4 DIR-24-8 table, a cache derived from the IPv4 trie that user
 * space writes through mmap: the inner map of table_v4's slot, an ARRAY
 * with BPF_F_MMAPABLE | BPF_F_INNER_MAP (so tables of any size fit the
 * slot; an empty slot: the trie answers).  Its mmap is one __u32[] of
 * entries:
 *   [0, 2^24)                 first level, indexed by address >> 8
 *   [2^24, 2^24 + groups*256) second-level groups, indexed by address & 0xff
 *   last CLS_DIR24_HDR_ENTRIES bookkeeping for user space (struct below)
 * An entry is a leaf (0 = no route; else class bits 0-15 in bits 0-15,
 * plen + 1 in 16-21, class bits 16-19 in 22-25), a group reference
 * (CLS_DIR24_GROUP_BIT | group), or CLS_DIR24_ASK_TRIE
 * where no group was free: the trie answers for that /24.  Group entries
 * are always leaves.
 * The kernel spaces ARRAY elements 8 bytes apart whatever value_size is, so
 * the map's value is a pair of entries (element k holds entries 2k, 2k + 1)
 * and max_entries = entries / CLS_DIR24_PER_ELEM.
 */
#define CLS_DIR24_PER_ELEM 2
#define CLS_DIR24_L1_ENTRIES (1U << 24)
#define CLS_DIR24_GROUP_SIZE 256
#define CLS_DIR24_HDR_ENTRIES 256
#define CLS_DIR24_GROUP_BIT 0x80000000U
#define CLS_DIR24_ASK_TRIE 0xFFFFFFFFU
#define CLS_DIR24_CLASS_LO    16
#define CLS_DIR24_CLASS_HI    22
#define CLS_DIR24_PLEN_SHIFT 16
#define CLS_DIR24_PLEN_MASK   0x3FU
#define CLS_DIR24_MAX_GROUPS (1U << 20)

/*
 * config: ARRAY with one entry; the data path only reads it.
 * table6_format[g] says how the IPv6 table in slot g is laid out: programs
 * read only a table of the format they were built for (MBT6_FORMAT) and
 * ask the trie otherwise, so a newer build may change the table's format
 * without a new layout.  It is written while g is not live, before the
 * generation flips to g.
 */
struct cls_config {
	__u32 stats_on;
	__u32 layout; /* CLS_LAYOUT_VERSION */
	__u32 gen;    /* the slot of the tries and tables packets use */
	__u8 table6_format[CLS_GENERATIONS]; /* 0: no table in that slot */
	__u16 pad;
};

/*
 * Layout of the IPv6 table (maps/mbt6.c writes it, xdp_tc/lookup6.h
 * reads it): a multibit trie derived from the IPv6 LPM trie, in one
 * BPF_F_MMAPABLE ARRAY whose 4 MiB elements read as one __u32[] of
 * entries (element k holds entries [k * 2^20, (k + 1) * 2^20)).  One
 * helper call returns a whole element and reads inside it are plain
 * loads, where 8-byte elements cost a call a read (bench/results/table6).
 * A unit never straddles two elements; a DIRECT node may, and its reads
 * (one entry each) do not care:
 *   [0, 2^16)               first level, indexed by address bits 0-15
 *   [2^16, 2^16 + 8 units)  node pool in units of 8 entries (32 bytes)
 *   the rest                bookkeeping for user space (maps/mbt6.h)
 * A node of depth d (1..14) covers a /(8 + 8d) and has 256 slots, one per
 * value of address byte d + 1.  It is stored as one of
 *   DIRECT: 32 units, slot i is entry i (one read);
 *   RANGE:  1 unit for slots that hold one value in [lo, hi] and another
 *           outside (at most three runs, the outer two equal): entry 0 is
 *           lo | hi << 8, entry 1 the value inside, entry 2 the one
 *           outside, so a slot inside takes one read, one outside two;
 *   TINY:   1 unit for at most MBT6_TINY_RUNS runs of equal slots: the
 *           first 8 bytes are the slots where runs 1..5 start (ascending,
 *           0xff past the last run), entries 2..7 the runs' values (the
 *           last repeated), so a lookup reads the starts, counts those
 *           <= the slot (capped at 5) and reads that run: two reads in
 *           one cache line;
 *   RANGE2: 1 unit for a node whose slots all hold one value but one,
 *           and that one a RANGE node with the same value outside its
 *           range (a lone /48 in its /32): the two levels as one RANGE
 *           over the 16 bits of address bytes d + 1 and d + 2.  Entry 0
 *           is lo | hi << 16, entry 1 the value inside, entry 2 the one
 *           outside, and the walk goes on at depth d + 2 (format 2).
 * An entry is a leaf (0: no route; else class bits 0-11 in bits 0-11,
 * prefix length + 1 in 12-19, class bits 12-19 in 20-27), a node
 * (MBT6_CHILD | kind | unit), or MBT6_ASK_TRIE where the pool had no
 * room: the trie answers for that range.
 */
/*
 * cls_config.table6_format: what this build writes, 2 or (a first level
 * of 24 bits, whose nodes start at depth 2) 3, and the oldest it reads
 * (format 1 is format 2 without RANGE2 nodes).
 */
#define MBT6_FORMAT	  2
#define MBT6_FORMAT_WIDE  3
#define MBT6_FORMAT_OLDEST 1

/* A table this build reads: MBT6_FORMAT_OLDEST to MBT6_FORMAT_WIDE. */
static inline __attribute__((always_inline)) int mbt6_format_known(__u32 f)
{
	return f - MBT6_FORMAT_OLDEST <= MBT6_FORMAT_WIDE - MBT6_FORMAT_OLDEST;
}
#define MBT6_PER_ELEM	  (1U << 20)
#define MBT6_L1_BITS	  16
#define MBT6_L1_ENTRIES	  (1U << MBT6_L1_BITS)
#define MBT6_L1_WIDE_BITS 24 /* format 3: a first level of 64 MiB */
#define MBT6_SLOTS	  256
#define MBT6_MAX_DEPTH	  14 /* (128 - 16) / 8 */
#define MBT6_UNIT_ENTRIES 8
#define MBT6_DIRECT_UNITS (MBT6_SLOTS / MBT6_UNIT_ENTRIES)
#define MBT6_TINY_RUNS	  6
#define MBT6_TINY_LAST	  (MBT6_TINY_RUNS - 1)
#define MBT6_TINY_FIRST	  2 /* entry of run 0 in a TINY unit */

#define MBT6_CHILD	0x80000000U
#define MBT6_DIRECT	0x40000000U
#define MBT6_RANGE	0x20000000U
#define MBT6_KINDS	(MBT6_DIRECT | MBT6_RANGE)
#define MBT6_RANGE2	MBT6_KINDS /* both bits */
#define MBT6_RANGE_IN	1 /* entries of a RANGE unit */
#define MBT6_RANGE_OUT	2
#define MBT6_UNIT_MASK	0x0FFFFFFFU /* entry indices stay below 2^32 */
#define MBT6_MAX_UNITS	MBT6_UNIT_MASK
#define MBT6_ASK_TRIE	0xFFFFFFFFU

/* An element starts on a unit's boundary. */
_Static_assert((MBT6_PER_ELEM - MBT6_L1_ENTRIES) % MBT6_UNIT_ENTRIES == 0,
	       "IPv6 table units straddle elements");
#define MBT6_CLASS_LO	12
#define MBT6_CLASS_HI	20
#define MBT6_PLEN_SHIFT 12
#define MBT6_PLEN_MASK	0xFFU

/*
 * The run of a TINY node that slot lies in: how many of the run starts
 * (bytes of starts, lane k = bits 8k..8k+7) are <= slot, at most
 * MBT6_TINY_LAST.  No loop and no popcount (BPF has none): the bytes are
 * spread into 16-bit lanes, 0x100 + slot - start has bit 8 set exactly
 * when start <= slot, and a multiply sums the lanes.
 */
static inline __attribute__((always_inline)) __u32 mbt6_tiny_run(__u64 starts,
								 __u32 slot)
{
	const __u64 lanes = 0x0001000100010001ULL;
	const __u64 bytes = 0x00FF00FF00FF00FFULL;
	__u64 x = (0x100 | (__u64)slot) * lanes;
	__u64 n = ((x - (starts & bytes)) >> 8 & lanes) +
		  ((x - (starts >> 8 & bytes)) >> 8 & lanes);
	__u32 run = (__u32)((n * lanes) >> 48);

	return run < MBT6_TINY_LAST ? run : MBT6_TINY_LAST;
}

/*
 * A leaf's class, in either table.  A leaf of an older build has the
 * high class bits zero.  Older programs read only the low bits, so they
 * must never meet a leaf of a class past theirs (docs/architecture.md,
 * "Class indexes are 20 bits wide").
 */
static inline __attribute__((always_inline)) __u32 cls_dir24_class(__u32 e)
{
	return cls_idx_get(e, CLS_DIR24_CLASS_LO, CLS_DIR24_CLASS_HI);
}

static inline __attribute__((always_inline)) __u32 mbt6_class(__u32 e)
{
	return cls_idx_get(e, MBT6_CLASS_LO, MBT6_CLASS_HI);
}

/* The values of the tables' maps: whole elements of entries. */
typedef __u32 cls_dir24_elem[CLS_DIR24_PER_ELEM];
typedef __u32 mbt6_elem[MBT6_PER_ELEM];

/*
 * Every pinned map, declared once.  User space expands this list into the
 * registry it creates, checks and pins the maps from (maps/registry.c),
 * the BPF object into the definitions of the maps its programs use
 * (xdp_tc/maps.bpf.h), so the two cannot differ; tests/unit/test_registry.c
 * compares the built object with the registry all the same.  A line is
 *   MAP(ID, name, type, key, value, entries, flags, size, users)
 *   SLOTS(ID, name, type, key, value, entries, flags, size, kind)
 * name: the pin's and the BPF map's (do not rename: pins and programs of
 * other builds know it); ID: CLS_M_<ID> (and CLS_S_<ID> for SLOTS).
 * SLOTS: an ARRAY_OF_MAPS of CLS_GENERATIONS slots, one per generation
 * (cls_config.gen), holding maps of the shape given; the programs use it.
 * size: FIXED (entries, exactly), PER_CPU (entries for each possible
 * CPU), BY_NEED (the maker chooses; entries is only the BPF object's
 * template; the maps indexed by class are made for the set's capacity,
 * maps/registry.c's cls_class_entries(), their template for
 * CLS_CLASS_STEP).  users: BPF (the programs read or write it) or USER (user
 * space only).  kind: TRUTH, or CACHE (derived from the other maps, so
 * the library may rebuild it: the lookup tables).
 * Adding or changing a map is a new layout (maps/history.c).
 */
/* clang-format off */
#define CLS_MAPS(MAP, SLOTS)						       \
	/* stats on/off, layout, generation, each slot's IPv6 table format */ \
	MAP(CONFIG, config, ARRAY, __u32, struct cls_config, 1, 0, FIXED, BPF) \
	/* each class index's action */					       \
	MAP(CLASSES, classes, ARRAY, __u32, struct cls_class, CLS_CLASS_STEP,  \
	    0, BY_NEED, BPF)						       \
	/* names: in BPF memory so the CLI stays stateless */		       \
	MAP(CLASS_META, class_meta, ARRAY, __u32, struct cls_class_meta,       \
	    CLS_CLASS_STEP, 0, BY_NEED, USER)				       \
	/* CLS_STATS_STRIDE(cap) counters per CPU, read through mmap */	       \
	MAP(STATS, stats, ARRAY, __u32, struct cls_counter,		       \
	    CLS_STATS_STRIDE(CLS_CLASS_STEP), BPF_F_MMAPABLE, BY_NEED, BPF)    \
	/* the routes: one LPM trie per generation */			       \
	SLOTS(TRIE_V4, trie_v4, LPM_TRIE, struct cls_v4_key, __u32,	       \
	      CLS_MAX_ROUTES_V4, BPF_F_NO_PREALLOC, FIXED, TRUTH)	       \
	SLOTS(TRIE_V6, trie_v6, LPM_TRIE, struct cls_v6_key, __u32,	       \
	      CLS_MAX_ROUTES_V6, BPF_F_NO_PREALLOC, FIXED, TRUTH)	       \
	/*								       \
	 * The lookup tables, sized by the route set (BPF_F_INNER_MAP: any     \
	 * size fits the slot) and written through mmap; an empty slot: the    \
	 * trie answers.						       \
	 */								       \
	SLOTS(TABLE_V4, table_v4, ARRAY, __u32, cls_dir24_elem,		       \
	      CLS_DIR24_HDR_ENTRIES / CLS_DIR24_PER_ELEM,		       \
	      BPF_F_MMAPABLE | BPF_F_INNER_MAP, BY_NEED, CACHE)		       \
	SLOTS(TABLE_V6, table_v6, ARRAY, __u32, mbt6_elem, 1,		       \
	      BPF_F_MMAPABLE | BPF_F_INNER_MAP, BY_NEED, CACHE)		       \
	/* the library's own: see maps/state.h */			       \
	MAP(STATE, state, ARRAY, __u32, struct cls_state, 1, 0, FIXED, USER)   \
	/* the rated classes' clocks, a line per class */		       \
	MAP(RATE_STATE, rate_state, ARRAY, __u32, struct cls_rate_state,       \
	    CLS_CLASS_STEP, 0, BY_NEED, BPF)				       \
	/* what the rates did, CLS_RATE_STATS_STRIDE(cap) per CPU (mmap) */    \
	MAP(RATE_STATS, rate_stats, ARRAY, __u32, struct cls_rate_counter,     \
	    CLS_RATE_STATS_STRIDE(CLS_CLASS_STEP), BPF_F_MMAPABLE, BY_NEED,    \
	    BPF)							       \
	/* steering: each TX queue's CPU + 1 (0: none) */		       \
	MAP(QUEUE_CPU, queue_cpu, ARRAY, __u32, __u32, CLS_STEER_QUEUES, 0,    \
	    FIXED, BPF)							       \
	/* steering: a queue size per CPU that some queue names */	       \
	MAP(CPUMAP, cpumap, CPUMAP, __u32, __u32, 1, 0, PER_CPU, BPF)	       \
	/* steering: what cls_steer did, CLS_STEER_STRIDE per CPU */	       \
	MAP(STEER_STATS, steer_stats, ARRAY, __u32, struct cls_counter,	       \
	    CLS_STEER_STRIDE, 0, PER_CPU, BPF)
/* clang-format on */

#endif /* CLASSIFIER_ABI_H */
