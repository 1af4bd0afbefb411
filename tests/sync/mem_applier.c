// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/sync/mem_applier.h"

#define ST_FREE 0
#define ST_USED 1
#define ST_DEAD 2

struct txn {
	struct sync_route *r;
	size_t n, cap;
};

static size_t hash(const struct cls_prefix *p)
{
	__u64 h = 0xcbf29ce484222325ULL ^ p->len ^ (p->family << 8);
	size_t i;

	for (i = 0; i < sizeof(p->addr); i++)
		h = (h ^ p->addr[i]) * 0x100000001b3ULL;
	return h ^ h >> 29;
}

static bool same(const struct mem_ent *e, const struct cls_prefix *p)
{
	return e->state == ST_USED && e->len == p->len &&
	       e->v6 == (p->family == AF_INET6) &&
	       !memcmp(e->addr, p->addr, 16);
}

static struct mem_ent *find(const struct mem_applier *m,
			    const struct cls_prefix *p)
{
	size_t i, mask = m->cap - 1;

	if (!m->cap)
		return NULL;
	for (i = hash(p) & mask; m->slots[i].state != ST_FREE;
	     i = (i + 1) & mask)
		if (same(&m->slots[i], p))
			return &m->slots[i];
	return NULL;
}

static int put(struct mem_applier *m, const struct cls_prefix *p,
	       __u32 class_idx, bool hand);

/* Grow (or just sweep deleted slots) so that one more route fits. */
static int make_room(struct mem_applier *m)
{
	struct mem_ent *old = m->slots;
	size_t cap = m->cap, i;

	if ((m->used + m->dead + 1) * 10 < m->cap * 7)
		return 0;
	m->cap = cap && m->used * 10 < cap * 3 ? cap : (cap ? cap * 2 : 1024);
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		m->cap = cap;
		return -ENOMEM;
	}
	m->used = m->dead = m->synced = m->hand = 0;
	for (i = 0; i < cap; i++) {
		struct cls_prefix p = {.len = old[i].len};

		if (old[i].state != ST_USED)
			continue;
		p.family = old[i].v6 ? AF_INET6 : AF_INET;
		memcpy(p.addr, old[i].addr, 16);
		put(m, &p, old[i].class_idx, old[i].hand);
	}
	free(old);
	return 0;
}

static int put(struct mem_applier *m, const struct cls_prefix *p,
	       __u32 class_idx, bool hand)
{
	struct mem_ent *e = find(m, p);
	size_t i, mask;
	int err;

	if (e) {
		m->hand += hand - e->hand;
		m->synced += e->hand - hand;
		e->class_idx = class_idx;
		e->hand = hand;
		return 0;
	}
	err = make_room(m);
	if (err)
		return err;
	mask = m->cap - 1;
	for (i = hash(p) & mask; m->slots[i].state == ST_USED;
	     i = (i + 1) & mask)
		;
	e = &m->slots[i];
	if (e->state == ST_DEAD)
		m->dead--;
	memcpy(e->addr, p->addr, 16);
	e->len = p->len;
	e->v6 = p->family == AF_INET6;
	e->state = ST_USED;
	e->hand = hand;
	e->class_idx = class_idx;
	m->used++;
	if (hand)
		m->hand++;
	else
		m->synced++;
	return 0;
}

static void drop(struct mem_applier *m, struct mem_ent *e)
{
	if (e->hand)
		m->hand--;
	else
		m->synced--;
	e->state = ST_DEAD;
	m->used--;
	m->dead++;
}

void mem_applier_init(struct mem_applier *m)
{
	memset(m, 0, sizeof(*m));
	m->fail_after = -1;
}

void mem_applier_free(struct mem_applier *m)
{
	free(m->slots);
	mem_applier_init(m);
}

/* Every mutating call: locked, and the injected failure if it is due. */
static int mutate_check(struct mem_applier *m)
{
	if (!m->locked)
		return -EPERM;
	if (m->fail_after > 0) {
		m->fail_after--;
	} else if (m->fail_after == 0) {
		m->fail_after = -1;
		return m->fail_err;
	}
	return 0;
}

static int op_lock(void *ctx, unsigned int wait_ms)
{
	struct mem_applier *m = ctx;

	(void)wait_ms;
	if (m->locked)
		return -EDEADLK;
	m->locked = true;
	m->n_lock++;
	return 0;
}

static int op_unlock(void *ctx)
{
	struct mem_applier *m = ctx;

	if (!m->locked)
		return -ENOLCK;
	m->locked = false;
	return 0;
}

static int op_set(void *ctx, const struct cls_prefix *p, __u32 class_idx)
{
	struct mem_applier *m = ctx;
	struct mem_ent *e;
	int err = mutate_check(m);

	if (err)
		return err;
	m->n_set++;
	e = find(m, p);
	if (e && e->hand)
		return -EEXIST;
	return put(m, p, class_idx, false);
}

static int op_del(void *ctx, const struct cls_prefix *p)
{
	struct mem_applier *m = ctx;
	struct mem_ent *e;
	int err = mutate_check(m);

	if (err)
		return err;
	m->n_del++;
	e = find(m, p);
	if (!e)
		return -ENOENT;
	if (e->hand)
		return -EPERM;
	drop(m, e);
	return 0;
}

static int op_swap_begin(void *ctx, void **txn)
{
	struct mem_applier *m = ctx;
	int err = mutate_check(m);

	if (err)
		return err;
	*txn = calloc(1, sizeof(struct txn));
	return *txn ? 0 : -ENOMEM;
}

static int op_swap_add(void *ctx, void *txn, const struct sync_route *r,
		       size_t n)
{
	struct mem_applier *m = ctx;
	struct txn *t = txn;

	if (!m->locked)
		return -EPERM;
	if (t->n + n > t->cap) {
		size_t cap = (t->n + n) * 2;
		struct sync_route *nr = realloc(t->r, cap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		t->r = nr;
		t->cap = cap;
	}
	memcpy(t->r + t->n, r, n * sizeof(*r));
	t->n += n;
	return 0;
}

static void op_swap_abort(void *ctx, void *txn)
{
	struct txn *t = txn;

	(void)ctx;
	free(t->r);
	free(t);
}

static int op_swap_commit(void *ctx, void *txn)
{
	struct mem_applier *m = ctx;
	struct txn *t = txn;
	size_t i, skipped = 0;
	int err = mutate_check(m);

	if (err) {
		op_swap_abort(ctx, txn);
		return err;
	}
	m->n_swap++;
	m->swap_in_order = true;
	for (i = 1; i < t->n; i++)
		if (t->r[i].prefix.family == t->r[i - 1].prefix.family &&
		    sync_prefix_cmp(&t->r[i - 1].prefix, &t->r[i].prefix) >= 0)
			m->swap_in_order = false;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].state == ST_USED && !m->slots[i].hand)
			drop(m, &m->slots[i]);
	for (i = 0; i < t->n; i++) {
		struct mem_ent *e = find(m, &t->r[i].prefix);

		if (e && e->hand) {
			skipped++;
			continue;
		}
		err = put(m, &t->r[i].prefix, t->r[i].class_idx, false);
		if (err)
			break;
	}
	op_swap_abort(ctx, txn);
	return err ? err : (int)skipped;
}

static int route_cmp(const void *a, const void *b)
{
	return sync_prefix_cmp(&((const struct sync_route *)a)->prefix,
			       &((const struct sync_route *)b)->prefix);
}

/* The synced routes of a family, sorted. */
static int op_dump(void *ctx, int family, struct sync_route **out, size_t *n)
{
	struct mem_applier *m = ctx;
	size_t i, k = 0;
	struct sync_route *r = malloc((m->used + 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++) {
		const struct mem_ent *e = &m->slots[i];

		if (e->state != ST_USED || e->v6 != (family == AF_INET6) ||
		    e->hand)
			continue;
		memset(&r[k], 0, sizeof(r[k]));
		r[k].prefix.family = family;
		r[k].prefix.len = e->len;
		memcpy(r[k].prefix.addr, e->addr, 16);
		r[k].class_idx = e->class_idx;
		k++;
	}
	qsort(r, k, sizeof(*r), route_cmp);
	*out = r;
	*n = k;
	m->n_dump++;
	return 0;
}

static int op_resolve(void *ctx, const char *tok, __u32 *class_idx)
{
	struct mem_applier *m = ctx;
	size_t i;

	for (i = 0; i < m->nclasses; i++) {
		if (!strcmp(m->classes[i].name, tok)) {
			*class_idx = m->classes[i].classid;
			return 0;
		}
	}
	if (!check_class_name(tok, NULL))
		return -ENOENT;
	return parse_classid(tok, class_idx) ? -ENOENT : 0;
}

static int op_status(void *ctx, const struct sync_status *s)
{
	struct mem_applier *m = ctx;

	/* as the library's: the status is written under the lock */
	if (!m->locked)
		return -ENOLCK;
	m->status = *s;
	m->n_status++;
	return 0;
}

static int op_outside(void *ctx, struct sync_outside *o)
{
	struct mem_applier *m = ctx;
	size_t i;

	memset(o, 0, sizeof(*o));
	o->class_gen = m->class_gen;
	for (i = 0; i < m->cap; i++) {
		const struct mem_ent *e = &m->slots[i];

		if (e->state != ST_USED)
			continue;
		if (e->hand)
			o->hand[e->v6]++;
		else
			o->synced[e->v6]++;
	}
	return 0;
}

void mem_applier_ops(struct mem_applier *m, struct sync_applier *a)
{
	a->ctx = m;
	a->lock = op_lock;
	a->unlock = op_unlock;
	a->set = op_set;
	a->del = op_del;
	a->swap_begin = op_swap_begin;
	a->swap_add = op_swap_add;
	a->swap_commit = op_swap_commit;
	a->swap_abort = op_swap_abort;
	a->dump = op_dump;
	a->resolve = op_resolve;
	a->status = op_status;
	a->outside = op_outside;
}

int mem_applier_class(struct mem_applier *m, const char *name, __u32 classid)
{
	struct mem_class *c;

	if (m->nclasses == sizeof(m->classes) / sizeof(m->classes[0]) ||
	    strlen(name) > CLASS_NAME_MAX)
		return -ENOSPC;
	c = &m->classes[m->nclasses++];
	strcpy(c->name, name);
	c->classid = classid;
	m->class_gen++;
	return 0;
}

int mem_applier_hand(struct mem_applier *m, const struct cls_prefix *p,
		     __u32 class_idx)
{
	return put(m, p, class_idx, true);
}

int mem_applier_hand_del(struct mem_applier *m, const struct cls_prefix *p)
{
	struct mem_ent *e = find(m, p);

	if (!e || !e->hand)
		return -ENOENT;
	drop(m, e);
	return 0;
}

int mem_applier_get(const struct mem_applier *m, const struct cls_prefix *p,
		    __u32 *class_idx, bool *hand)
{
	const struct mem_ent *e = find(m, p);

	if (!e)
		return -ENOENT;
	*class_idx = e->class_idx;
	*hand = e->hand;
	return 0;
}
