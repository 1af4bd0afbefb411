// SPDX-License-Identifier: GPL-2.0-only
/*
 * Linear probing with the home slot taken as hash * cap >> 32 (any
 * capacity, grown by half), deletion by backward shift so no tombstones
 * pile up under churn.  The entries of one prefix share a home slot and
 * so sit in one run of used slots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sync/hash.h"
#include "sync/rtab.h"

#define RTAB_F_USED 0x01
#define MIN_CAP	    64

struct tail {
	__u32 metric;
	__u32 table;
	__u32 nhhash;
	__u16 rule;
	__u16 nh;
	__u8 len;
	__u8 tos;
	__u8 flags;
	__u8 pad;
};

static __u32 key_hash(const struct rtab *t, const __u8 *addr, __u8 len)
{
	return sync_hash_prefix(addr, t->ksz, len);
}

static size_t home(const struct rtab *t, __u32 h)
{
	return ((__u64)h * t->cap) >> 32;
}

static __u8 *slot(const struct rtab *t, size_t i)
{
	return t->slots + i * t->esz;
}

static struct tail *tail(const struct rtab *t, size_t i)
{
	return (struct tail *)(slot(t, i) + t->ksz);
}

static bool used(const struct rtab *t, size_t i)
{
	return tail(t, i)->flags & RTAB_F_USED;
}

static size_t next(const struct rtab *t, size_t i)
{
	return i + 1 == t->cap ? 0 : i + 1;
}

/* Fixed-size compares: a memcmp() call per probed slot cost a tenth of a
 * million-route resync. */
static bool key_eq(const struct rtab *t, size_t i, const struct cls_prefix *p)
{
	const __u8 *k = slot(t, i);
	__u64 a[2], b[2];
	__u32 x, y;

	if (tail(t, i)->len != p->len)
		return false;
	if (t->ksz == 4) {
		memcpy(&x, k, 4);
		memcpy(&y, p->addr, 4);
		return x == y;
	}
	memcpy(a, k, 16);
	memcpy(b, p->addr, 16);
	return a[0] == b[0] && a[1] == b[1];
}

static bool slot_is(const struct rtab *t, size_t i, const struct rtab_ent *id)
{
	const struct tail *tl = tail(t, i);

	return key_eq(t, i, &id->dst) && tl->table == id->table &&
	       tl->metric == id->metric && tl->tos == id->tos &&
	       tl->nhhash == id->nhhash;
}

static void unpack(const struct rtab *t, size_t i, struct rtab_ent *e)
{
	const struct tail *tl = tail(t, i);

	memset(&e->dst, 0, sizeof(e->dst));
	e->dst.family = t->family;
	e->dst.len = tl->len;
	memcpy(e->dst.addr, slot(t, i), t->ksz);
	e->table = tl->table;
	e->metric = tl->metric;
	e->nhhash = tl->nhhash;
	e->rule = tl->rule;
	e->tos = tl->tos;
	e->nh = tl->nh;
	e->flags = tl->flags & ~RTAB_F_USED;
}

static void pack(struct rtab *t, size_t i, const struct rtab_ent *e)
{
	struct tail *tl = tail(t, i);

	memcpy(slot(t, i), e->dst.addr, t->ksz);
	tl->len = e->dst.len;
	tl->table = e->table;
	tl->metric = e->metric;
	tl->nhhash = e->nhhash;
	tl->rule = e->rule;
	tl->tos = e->tos;
	tl->nh = e->nh;
	tl->flags = e->flags | RTAB_F_USED;
	tl->pad = 0;
}

static int alloc_slots(struct rtab *t, size_t cap)
{
	/* calloc: a zeroed slot is a free one, and untouched pages stay free */
	__u8 *s = calloc(cap, t->esz);

	if (!s)
		return -ENOMEM;
	t->slots = s;
	t->cap = cap;
	return 0;
}

int rtab_init(struct rtab *t, int family, size_t expect)
{
	size_t cap = expect + expect / 2;

	memset(t, 0, sizeof(*t));
	t->family = family;
	t->ksz = family == AF_INET ? 4 : 16;
	t->esz = t->ksz + sizeof(struct tail);
	return alloc_slots(t, cap < MIN_CAP ? MIN_CAP : cap);
}

void rtab_free(struct rtab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->n = 0;
}

static size_t probe_free(const struct rtab *t, const __u8 *addr, __u8 len)
{
	size_t i = home(t, key_hash(t, addr, len));

	while (used(t, i))
		i = next(t, i);
	return i;
}

static int grow(struct rtab *t)
{
	struct rtab old = *t;
	size_t i;
	int err;

	err = alloc_slots(t, old.cap + old.cap / 2);
	if (err) {
		*t = old;
		return err;
	}
	for (i = 0; i < old.cap; i++) {
		const struct tail *tl = tail(&old, i);
		size_t j;

		if (!(tl->flags & RTAB_F_USED))
			continue;
		j = probe_free(t, slot(&old, i), tl->len);
		memcpy(slot(t, j), slot(&old, i), t->esz);
	}
	free(old.slots);
	return 0;
}

int rtab_insert(struct rtab *t, const struct rtab_ent *e)
{
	int err;

	if ((t->n + 1) * 4 > t->cap * 3) {
		err = grow(t);
		if (err)
			return err;
	}
	pack(t, probe_free(t, e->dst.addr, e->dst.len), e);
	t->n++;
	return 0;
}

int rtab_upsert(struct rtab *t, const struct rtab_ent *e, bool *new_prefix)
{
	size_t i;
	int err;

	if ((t->n + 1) * 4 > t->cap * 3) {
		err = grow(t);
		if (err)
			return err;
	}
	*new_prefix = true;
	for (i = home(t, key_hash(t, e->dst.addr, e->dst.len)); used(t, i);
	     i = next(t, i)) {
		if (!key_eq(t, i, &e->dst))
			continue;
		*new_prefix = false;
		if (slot_is(t, i, e)) {
			pack(t, i, e);
			return 0;
		}
	}
	pack(t, i, e);
	t->n++;
	return 0;
}

static bool slot_alike(const struct rtab *t, size_t i, const struct rtab_ent *x)
{
	const struct tail *tl = tail(t, i);

	return key_eq(t, i, &x->dst) && tl->table == x->table &&
	       tl->metric == x->metric && tl->tos == x->tos;
}

size_t rtab_find_alike(const struct rtab *t, const struct rtab_ent *x,
		       struct rtab_ent *out, size_t max)
{
	size_t i = home(t, key_hash(t, x->dst.addr, x->dst.len)), n = 0;

	for (; used(t, i); i = next(t, i)) {
		if (!slot_alike(t, i, x))
			continue;
		if (n < max)
			unpack(t, i, &out[n]);
		n++;
	}
	return n;
}

static long find_slot(const struct rtab *t, const struct rtab_ent *id)
{
	size_t i = home(t, key_hash(t, id->dst.addr, id->dst.len));

	for (; used(t, i); i = next(t, i))
		if (slot_is(t, i, id))
			return i;
	return -1;
}

bool rtab_contains(const struct rtab *t, const struct rtab_ent *id)
{
	return find_slot(t, id) >= 0;
}

int rtab_update(struct rtab *t, const struct rtab_ent *id,
		const struct rtab_ent *e)
{
	long i = find_slot(t, id);

	if (i < 0)
		return -ENOENT;
	/* same prefix, so the entry stays in its probe run */
	pack(t, i, e);
	return 0;
}

/* Whether home slot h lies cyclically in (i, j]. */
static bool in_range(size_t h, size_t i, size_t j)
{
	return i <= j ? i < h && h <= j : i < h || h <= j;
}

/* Remove the entry in slot i, shifting back what follows in its run. */
static void remove_slot(struct rtab *t, size_t i)
{
	size_t j = i;

	for (;;) {
		j = next(t, j);
		if (!used(t, j))
			break;
		if (in_range(home(t, key_hash(t, slot(t, j), tail(t, j)->len)),
			     i, j))
			continue;
		memcpy(slot(t, i), slot(t, j), t->esz);
		i = j;
	}
	memset(slot(t, i), 0, t->esz);
	t->n--;
}

int rtab_remove(struct rtab *t, const struct rtab_ent *id)
{
	long i = find_slot(t, id);

	if (i < 0)
		return -ENOENT;
	remove_slot(t, i);
	return 0;
}

size_t rtab_remove_alike(struct rtab *t, const struct rtab_ent *x, __u8 keep)
{
	size_t i = home(t, key_hash(t, x->dst.addr, x->dst.len)), n = 0;

	/* a removal shifts the rest of the run back into slot i */
	while (used(t, i)) {
		if (slot_alike(t, i, x) && !(tail(t, i)->flags & keep)) {
			remove_slot(t, i);
			n++;
		} else {
			i = next(t, i);
		}
	}
	return n;
}

bool rtab_set_flags(struct rtab *t, const struct cls_prefix *p, __u8 set,
		    __u8 clear)
{
	size_t i = home(t, key_hash(t, p->addr, p->len));
	bool changed = false;

	clear &= ~RTAB_F_USED;
	for (; used(t, i); i = next(t, i)) {
		struct tail *tl = tail(t, i);
		__u8 f = (tl->flags & ~clear) | set;

		if (!key_eq(t, i, p))
			continue;
		changed |= f != tl->flags;
		tl->flags = f;
	}
	return changed;
}

void rtab_clear_flags(struct rtab *t, __u8 clear)
{
	size_t i;

	clear &= ~RTAB_F_USED;
	for (i = 0; i < t->cap; i++)
		tail(t, i)->flags &= ~clear;
}

/* The order rtab_best() picks by: <0 when a is better. */
static int better(const struct tail *a, const struct tail *b)
{
	if (a->metric != b->metric)
		return a->metric < b->metric ? -1 : 1;
	if (a->rule != b->rule)
		return a->rule < b->rule ? -1 : 1;
	if (a->table != b->table)
		return a->table < b->table ? -1 : 1;
	if (a->tos != b->tos)
		return a->tos < b->tos ? -1 : 1;
	if (a->nhhash != b->nhhash)
		return a->nhhash < b->nhhash ? -1 : 1;
	return 0;
}

static long best_slot(const struct rtab *t, const struct cls_prefix *p,
		      size_t *count)
{
	size_t i = home(t, key_hash(t, p->addr, p->len));
	long best = -1;

	*count = 0;
	for (; used(t, i); i = next(t, i)) {
		if (!key_eq(t, i, p))
			continue;
		(*count)++;
		if (best < 0 || better(tail(t, i), tail(t, best)) < 0)
			best = i;
	}
	return best;
}

size_t rtab_best(const struct rtab *t, const struct cls_prefix *p,
		 struct rtab_ent *best)
{
	size_t count;
	long i = best_slot(t, p, &count);

	if (i >= 0)
		unpack(t, i, best);
	return count;
}

bool rtab_is_best(const struct rtab *t, const struct rtab_ent *a)
{
	size_t count;
	long i = best_slot(t, &a->dst, &count);

	return i >= 0 && slot_is(t, i, a);
}

bool rtab_next(const struct rtab *t, size_t *pos, struct rtab_ent *e)
{
	size_t i;

	for (i = *pos; i < t->cap; i++) {
		if (used(t, i)) {
			unpack(t, i, e);
			*pos = i + 1;
			return true;
		}
	}
	*pos = t->cap;
	return false;
}
