/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel routes the rules select, kept compact: one open-addressing
 * table per family, keyed by prefix, holding every selected route of that
 * prefix (in several tables, at several metrics, or IPv4 aliases).  An
 * IPv4 entry takes 24 bytes, an IPv6 one 36; with the table at most 3/4
 * full, a million IPv4 routes fit in about 35 MB.  No libnl object is
 * kept.
 */
#ifndef CLS_SYNC_RTAB_H
#define CLS_SYNC_RTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "lib/parse.h"

/* One selected kernel route: what tells it apart and what it decides. */
struct rtab_ent {
	struct cls_prefix dst;
	__u32 table;
	__u32 metric;
	__u32 nhhash; /* kroute_nh_hash() */
	__u16 rule;   /* index of the first rule that matched */
	__u16 nh;     /* number of nexthops (saturates at 65535) */
	__u8 tos;
	__u8 flags; /* RTAB_F_* */
};

/* Per prefix, on every entry of the prefix. */
#define RTAB_F_SHADOWED 0x02 /* a hand route holds the prefix */
/* Per entry. */
#define RTAB_F_DUMPED 0x04 /* listed by the resync's dump under way */
#define RTAB_F_BIG    0x08 /* its message is longer than a dump can carry */

struct rtab {
	int family;
	size_t ksz; /* 4 or 16 address bytes */
	size_t esz; /* slot size */
	size_t cap; /* slots */
	size_t n;   /* used slots */
	__u8 *slots;
};

int rtab_init(struct rtab *t, int family, size_t expect);
void rtab_free(struct rtab *t);

/*
 * The entries alike x: of its prefix, in its table, at its metric and
 * TOS (IPv4 "append" aliases; one at most for IPv6).  Copies the first
 * max into out and returns how many there are, however many that is.
 */
size_t rtab_find_alike(const struct rtab *t, const struct rtab_ent *x,
		       struct rtab_ent *out, size_t max);
/* Remove the entries alike x that have none of the flags keep. */
size_t rtab_remove_alike(struct rtab *t, const struct rtab_ent *x, __u8 keep);
/* Whether t has the entry equal to id (rtab_update()'s identity). */
bool rtab_contains(const struct rtab *t, const struct rtab_ent *id);
int rtab_insert(struct rtab *t, const struct rtab_ent *e);
/*
 * Overwrite the entry equal to e (rtab_update's identity), or insert e:
 * one probe, for the million inserts of a resync.  *new_prefix: e is the
 * first entry of its prefix.
 */
int rtab_upsert(struct rtab *t, const struct rtab_ent *e, bool *new_prefix);
/*
 * Overwrite or remove the entry equal to id in prefix, table, metric,
 * TOS and nhhash; -ENOENT if there is none.
 */
int rtab_update(struct rtab *t, const struct rtab_ent *id,
		const struct rtab_ent *e);
int rtab_remove(struct rtab *t, const struct rtab_ent *id);
/*
 * The prefix's best route: lowest metric, then lowest rule index, then
 * table, TOS and nhhash, so the choice never depends on arrival order.
 * Returns how many entries the prefix has (0: none, *best untouched).
 */
size_t rtab_best(const struct rtab *t, const struct cls_prefix *p,
		 struct rtab_ent *best);
/* Whether a is the best of its prefix by that order (a is in t). */
bool rtab_is_best(const struct rtab *t, const struct rtab_ent *a);
/*
 * Set or clear flags on every entry of a prefix; returns whether the
 * prefix's flags changed (all its entries carry the same).
 */
bool rtab_set_flags(struct rtab *t, const struct cls_prefix *p, __u8 set,
		    __u8 clear);
/* Clear flags on every entry. */
void rtab_clear_flags(struct rtab *t, __u8 clear);

/* Walk every entry: *pos starts at 0; returns false at the end. */
bool rtab_next(const struct rtab *t, size_t *pos, struct rtab_ent *e);

#endif
