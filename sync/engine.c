// SPDX-License-Identifier: GPL-2.0-only
#include <endian.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/netlink.h>

#include "lib/log.h"
#include "sync/engine.h"
#include "sync/hash.h"
#include "sync/rtab.h"
#include "sync/schedule.h"

#define SWAP_MIN   1024
#define SWAP_CHUNK 4096
/* A failed dump or apply is tried again after this long, not at once. */
#define RETRY_MS 1000

struct sync_op {
	struct cls_prefix p;
	__u32 class_idx;
	bool del;
};

/*
 * A resync onto an empty synced set streamed into a whole-set swap while
 * the kernel's dump is still being read, so the library fills the new
 * tries meanwhile.  The kernel dumps an IPv4 table in address order, the
 * longer of two prefixes of one address first; the library fills fastest
 * in address order, shorter first: the prefixes of one address wait in
 * group[] and go out shortest first, each as its best route so far (a
 * prefix sent again later wins in the transaction).
 */
#define GROUP_MAX 129

struct stream {
	void *txn;
	struct sync_route buf[SWAP_CHUNK];
	size_t n;
	struct cls_prefix group[GROUP_MAX];
	size_t group_n;
};

/* A table a resync's dump may have given in part; table 0: all of them. */
struct table_ref {
	int family;
	__u32 table;
};

#define PARTIAL_MAX 64

struct link {
	__u32 ifindex;
	bool up;
	char name[IF_NAMESIZE];
};

struct sync_engine {
	const struct sync_applier *a;
	unsigned int lock_wait_ms;
	struct sync_rules rules;
	struct rtab tab[2]; /* [0] IPv4, [1] IPv6 */
	bool valid;	    /* tab holds a whole dump (and events since) */
	__u64 prefixes[2];  /* distinct prefixes with a selected route */
	__u64 shadowed[2];

	struct sync_op *ops;
	size_t nops, cap_ops;
	bool swap;	   /* this batch is big enough for a swap */
	__u64 batch_start; /* first event of the batch; 0: none */

	struct schedule sched;

	/* a resync under way, from begin to end or abort */
	bool resyncing;
	bool dirty;		     /* the tables changed during its dumps */
	unsigned long resync_events; /* route events applied meanwhile */
	struct rtab old[2]; /* the tables before it, with those events */
	bool old_valid;
	struct table_ref partial[PARTIAL_MAX];
	size_t npartial;
	/* synced prefixes the engine does not know, kept by the last resync
	 * for want of a whole dump (unknown_in_partial()) */
	size_t kept[2];

	struct link *links;
	size_t nlinks;

	struct stream *stream; /* a streamed resync; NULL: none */

	/* what the applier said of other processes' changes */
	__u32 class_gen;   /* when the rules were resolved */
	__u64 synced[2];   /* synced routes after our last batch */
	__u64 hand[2];	   /* hand routes at the end of the last resync */
	bool outside_known;

	struct sync_status st;
};

static void stream_stop(struct sync_engine *e);
static int stream_route(struct sync_engine *e, const struct cls_prefix *p);
static int reset(struct sync_engine *e);
static void drop_old(struct sync_engine *e);
static bool family_partial(const struct sync_engine *e, int family);

static int fam_idx(int family)
{
	return family == AF_INET6;
}

static __u64 realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int sync_engine_new(const struct sync_applier *a, unsigned int lock_wait_ms,
		    struct sync_engine **out)
{
	struct sync_engine *e = calloc(1, sizeof(*e));
	int err;

	if (!e)
		return -ENOMEM;
	e->a = a;
	e->lock_wait_ms = lock_wait_ms;
	sync_rules_init(&e->rules);
	err = rtab_init(&e->tab[0], AF_INET, 0);
	if (!err)
		err = rtab_init(&e->tab[1], AF_INET6, 0);
	if (err) {
		sync_engine_free(e);
		return err;
	}
	e->st.pid = getpid();
	e->st.running = 1;
	e->st.started = realtime_ns();
	*out = e;
	return 0;
}

void sync_engine_free(struct sync_engine *e)
{
	if (!e)
		return;
	stream_stop(e);
	drop_old(e);
	rtab_free(&e->tab[0]);
	rtab_free(&e->tab[1]);
	sync_rules_free(&e->rules);
	free(e->ops);
	free(e->links);
	free(e);
}

int sync_engine_set_rules(struct sync_engine *e, struct sync_rules *rs)
{
	struct sync_outside o;

	/* the rules were resolved just now, against this catalogue */
	if (e->a->outside && !e->a->outside(e->a->ctx, &o))
		e->class_gen = o.class_gen;
	sync_rules_free(&e->rules);
	e->rules = *rs;
	sync_rules_init(rs);
	e->st.rules = e->rules.n;
	/* entries hold indices into the old rules */
	stream_stop(e);
	return reset(e);
}

const struct sync_rules *sync_engine_rules(const struct sync_engine *e)
{
	return &e->rules;
}

struct sync_status *sync_engine_status(struct sync_engine *e)
{
	e->st.routes_v4 = e->prefixes[0] - e->shadowed[0];
	e->st.routes_v6 = e->prefixes[1] - e->shadowed[1];
	e->st.shadowed = e->shadowed[0] + e->shadowed[1];
	e->st.kernel_routes = e->tab[0].n + e->tab[1].n;
	return &e->st;
}

/* The library's upkeep at unlock (the lookup tables) may fail. */
static void unlock(struct sync_engine *e)
{
	int err = e->a->unlock(e->a->ctx);

	if (err)
		sync_engine_error(e, err, "finishing a change");
}

/* The status, with the lock held (the library writes it under the lock). */
static void push_locked(struct sync_engine *e)
{
	int err = e->a->status(e->a->ctx, sync_engine_status(e));

	if (err)
		sync_engine_error(e, err, "publishing the status");
}

int sync_engine_status_push(struct sync_engine *e)
{
	int err = e->a->lock(e->a->ctx, e->lock_wait_ms);

	if (err)
		return err;
	push_locked(e);
	unlock(e);
	return 0;
}

void sync_engine_error(struct sync_engine *e, int err, const char *what)
{
	e->st.errors++;
	e->st.last_error_time = realtime_ns();
	if (err)
		snprintf(e->st.last_error, sizeof(e->st.last_error), "%s: %s",
			 what, strerror(err < 0 ? -err : err));
	else
		snprintf(e->st.last_error, sizeof(e->st.last_error), "%s",
			 what);
	pr_warn("sync: error: %s\n", e->st.last_error);
}

void sync_engine_want_resync(struct sync_engine *e, const char *reason,
			     unsigned int delay_ms, __u64 now_ns)
{
	schedule_want(&e->sched, reason, delay_ms, now_ns);
}

__u64 sync_engine_resync_due(const struct sync_engine *e, const char **reason)
{
	return schedule_due(&e->sched, reason);
}

void sync_engine_overrun(struct sync_engine *e, __u64 now_ns)
{
	e->st.overruns++;
	schedule_activity(&e->sched, now_ns);
	if (e->resyncing)
		e->dirty = true;
	/* one line until the resync that repairs them all */
	if (!e->sched.settle_since)
		pr_info("sync: overrun: the kernel dropped route events (ENOBUFS)\n");
	schedule_settle(&e->sched, "overrun", now_ns);
}

/* What a prefix resolves to now: its best route's class, if any. */
struct prefix_state {
	bool has;
	bool shadowed;
	__u32 class_idx;
	struct rtab_ent best;
};

static void prefix_state(const struct sync_engine *e, const struct rtab *t,
			 const struct cls_prefix *p, struct prefix_state *s)
{
	memset(s, 0, sizeof(*s));
	s->has = rtab_best(t, p, &s->best) > 0;
	if (!s->has)
		return;
	s->class_idx = e->rules.rule[s->best.rule].class_idx;
	s->shadowed = s->best.flags & RTAB_F_SHADOWED;
}

static size_t swap_threshold(const struct sync_engine *e)
{
	__u64 n = (e->prefixes[0] + e->prefixes[1]) / 4;

	return n < SWAP_MIN ? SWAP_MIN : n;
}

static int queue_op(struct sync_engine *e, const struct cls_prefix *p, bool del,
		    __u32 class_idx)
{
	if (e->swap)
		return 0;
	if (e->nops >= swap_threshold(e)) {
		/* cheaper to send the whole set than this many changes; the
		 * list (up to a quarter of the routes) is not needed now */
		e->swap = true;
		e->nops = e->cap_ops = 0;
		free(e->ops);
		e->ops = NULL;
		return 0;
	}
	if (e->nops == e->cap_ops) {
		size_t cap = e->cap_ops ? e->cap_ops * 2 : 256;
		struct sync_op *n = realloc(e->ops, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		e->ops = n;
		e->cap_ops = cap;
	}
	e->ops[e->nops].p = *p;
	e->ops[e->nops].del = del;
	e->ops[e->nops].class_idx = class_idx;
	e->nops++;
	return 0;
}

/* Compare a prefix's state before and after a change; queue what differs. */
static int settle_prefix(struct sync_engine *e, struct rtab *t,
			 const struct cls_prefix *p,
			 const struct prefix_state *before)
{
	struct prefix_state after;
	int fi = fam_idx(p->family);

	prefix_state(e, t, p, &after);
	if (before->has && !after.has) {
		e->prefixes[fi]--;
		if (before->shadowed)
			e->shadowed[fi]--;
	} else if (!before->has && after.has) {
		e->prefixes[fi]++;
	}
	if (!e->valid)
		return 0;
	if (before->has && !after.has)
		return queue_op(e, p, true, 0);
	if (after.has && (!before->has || before->class_idx != after.class_idx))
		return queue_op(e, p, false, after.class_idx);
	return 0;
}

/* A link's cache entry, made (up, no name yet) when missing; NULL: no memory.
 */
static struct link *link_get(struct sync_engine *e, __u32 ifindex, bool *made)
{
	struct link *n;
	size_t i;

	*made = false;
	for (i = 0; i < e->nlinks; i++)
		if (e->links[i].ifindex == ifindex)
			return &e->links[i];
	n = realloc(e->links, (e->nlinks + 1) * sizeof(*n));
	if (!n)
		return NULL;
	e->links = n;
	n = &e->links[e->nlinks++];
	memset(n, 0, sizeof(*n));
	n->ifindex = ifindex;
	n->up = true;
	*made = true;
	return n;
}

/* For `dev` rules: names learnt from the kernel once, then from RTM_NEWLINK. */
static const char *link_name(void *ctx, __u32 ifindex)
{
	struct sync_engine *e = ctx;
	bool made;
	struct link *l = link_get(e, ifindex, &made);

	if (!l)
		return NULL;
	if (made && !if_indextoname(ifindex, l->name))
		l->name[0] = '\0';
	return l->name[0] ? l->name : NULL;
}

static void to_ent(const struct kroute *k, int rule, struct rtab_ent *x)
{
	memset(x, 0, sizeof(*x));
	x->dst = k->dst;
	x->table = k->table;
	x->metric = k->priority;
	x->tos = k->tos;
	x->nhhash = kroute_nh_hash(k);
	/* a dump cannot carry it: see keep_undumped() */
	x->flags = k->msg_len > KROUTE_DUMP_MAX ? RTAB_F_BIG : 0;
	x->nh = kroute_nh_count(k) > UINT16_MAX ? UINT16_MAX
						: kroute_nh_count(k);
	x->rule = rule < 0 ? 0 : rule;
}

/* The rule that selects k for a class, or -1 (none, or `ignore`). */
static int select_rule(struct sync_engine *e, const struct kroute *k)
{
	int i;

	if (!kroute_syncable(k))
		return -1;
	i = sync_rules_match(&e->rules, k, link_name, e);
	return i >= 0 && !e->rules.rule[i].ignore ? i : -1;
}

/* Put x in place of old (or drop old when the route is not selected). */
static int replace_ent(struct rtab *t, const struct rtab_ent *old,
		       struct rtab_ent *x, bool selected)
{
	if (!selected)
		return rtab_remove(t, old);
	return rtab_update(t, old, x);
}

/*
 * The kernel's message does not say which route it means: resync, once
 * the storm it may be part of is over.  live: t is the engine's table,
 * not the copy a resync keeps (sync_engine_resync_begin()).
 */
static void ambiguous(struct sync_engine *e, bool live, const char *why)
{
	if (live)
		schedule_settle(&e->sched, why, e->batch_start);
}

/*
 * IPv4: routes of one prefix, table, metric and TOS can coexist
 * ("append" aliases), told apart by their nexthops.  A replace names no
 * alias: with several, the engine cannot tell which went and resyncs.
 */
static int event_v4(struct sync_engine *e, struct rtab *t, bool del,
		    __u16 nlflags, struct rtab_ent *x, bool selected,
		    const struct prefix_state *before, bool live)
{
	struct rtab_ent same;
	size_t n;

	if (del) {
		if (!rtab_remove(t, x))
			return 0;
		if (rtab_find_alike(t, x, NULL, 0))
			ambiguous(e, live, "ambiguous delete");
		return 0;
	}
	if (before->has)
		x->flags |= before->best.flags & RTAB_F_SHADOWED;
	if (!(nlflags & NLM_F_REPLACE)) {
		/* a new route or alias, or one a resync's dump already had */
		if (!selected) {
			rtab_remove(t, x);
			return 0;
		}
		return rtab_update(t, x, x) ? rtab_insert(t, x) : 0;
	}
	n = rtab_find_alike(t, x, &same, 1);
	if (n == 1)
		return replace_ent(t, &same, x, selected);
	if (n > 1) {
		rtab_remove_alike(t, x, 0);
		ambiguous(e, live, "ambiguous replace");
	}
	return selected ? rtab_insert(t, x) : 0;
}

/*
 * IPv6: one route per prefix, table and metric; its nexthops come and
 * go (append, or a delete naming some of them: the route stays with the
 * rest).  The hash is a sum over nexthops, so a partial delete subtracts.
 */
static int event_v6(struct sync_engine *e, struct rtab *t, bool del,
		    const struct kroute *k, struct rtab_ent *x, bool selected,
		    const struct prefix_state *before, bool live)
{
	struct rtab_ent same, y;
	size_t n = rtab_find_alike(t, x, &same, 1);

	if (n > 1) {
		/* not a state the kernel makes; start again from a dump */
		ambiguous(e, live, "inconsistent ipv6 route");
		return 0;
	}
	if (del) {
		if (!n || same.nhhash == x->nhhash)
			return n ? rtab_remove(t, &same) : 0;
		if (kroute_nh_count(k) < same.nh) {
			y = same;
			y.nh -= kroute_nh_count(k);
			y.nhhash -= x->nhhash - kroute_nh_hash_base(k);
			if (e->rules.uses_nexthop)
				ambiguous(e, live, "partial multipath delete");
			return rtab_update(t, &same, &y);
		}
		ambiguous(e, live, "inconsistent ipv6 delete");
		return 0;
	}
	if (before->has)
		x->flags |= before->best.flags & RTAB_F_SHADOWED;
	if (n)
		return replace_ent(t, &same, x, selected);
	return selected ? rtab_insert(t, x) : 0;
}

/* One route event into t; live: the engine's table (see ambiguous()). */
static int route_into(struct sync_engine *e, struct rtab *t, bool del,
		      __u16 nlflags, const struct kroute *k, int rule,
		      bool live)
{
	struct prefix_state before;
	struct rtab_ent x;
	int err;

	to_ent(k, rule, &x);
	prefix_state(e, t, &k->dst, &before);
	if (k->dst.family == AF_INET)
		err = event_v4(e, t, del, nlflags, &x, rule >= 0, &before,
			       live);
	else
		err = event_v6(e, t, del, k, &x, rule >= 0, &before, live);
	if (!err && live)
		err = settle_prefix(e, t, &k->dst, &before);
	/* it may be one a partial dump kept unknown: its delete goes through */
	if (!err && live && del && !before.has &&
	    e->kept[fam_idx(k->dst.family)] && e->valid)
		err = queue_op(e, &k->dst, true, 0);
	return err;
}

void sync_engine_route(struct sync_engine *e, bool del, __u16 nlflags,
		       const struct kroute *k, __u64 now_ns)
{
	int fi = fam_idx(k->dst.family), rule, err;

	if (!sync_rules_want(&e->rules, k->dst.family, k->table))
		return;
	e->st.events++;
	schedule_activity(&e->sched, now_ns);
	if (!e->batch_start)
		e->batch_start = now_ns;
	/* a deleted route's rule does not matter: its identity does */
	rule = del ? -1 : select_rule(e, k);
	if (e->resyncing) {
		/*
		 * The dump under way may show this route as it was or as it
		 * is now: this resync is no view of a quiet kernel.  The copy
		 * of what the engine knew follows the change too, for the
		 * routes a dump cut short keeps (keep_undumped()).
		 */
		e->dirty = true;
		e->resync_events++;
		stream_stop(e);
		route_into(e, &e->old[fi], del, nlflags, k, rule, false);
	}
	err = route_into(e, &e->tab[fi], del, nlflags, k, rule, true);
	if (err) {
		sync_engine_error(e, err, "route event");
		sync_engine_want_resync(e, "error", RETRY_MS, now_ns);
	}
}

static int lock(struct sync_engine *e)
{
	int err = e->a->lock(e->a->ctx, e->lock_wait_ms);

	if (err)
		sync_engine_error(e, err, "taking the pin-directory lock");
	return err;
}

struct apply_count {
	size_t set, del, fail;
};

static int apply_ops(struct sync_engine *e, struct apply_count *c)
{
	char buf[PREFIX_STRLEN];
	size_t i;
	int err;

	for (i = 0; i < e->nops; i++) {
		const struct sync_op *op = &e->ops[i];
		int fi = fam_idx(op->p.family);
		struct rtab *t = &e->tab[fi];

		if (log_get_level() >= LOG_DEBUG &&
		    format_prefix(&op->p, buf, sizeof(buf)) > 0)
			pr_debug("sync: %s %s class %u\n",
				 op->del ? "del" : "set", buf, op->class_idx);
		e->st.changes++;
		if (op->del) {
			err = e->a->del(e->a->ctx, &op->p);
			/* nothing synced there: none, or a hand route's */
			if (!err || err == -ENOENT || err == -EPERM) {
				c->del++;
				continue;
			}
		} else {
			err = e->a->set(e->a->ctx, &op->p, op->class_idx);
			if (err == -EEXIST) {
				if (rtab_set_flags(t, &op->p, RTAB_F_SHADOWED,
						   0))
					e->shadowed[fi]++;
				continue;
			}
			if (!err) {
				if (rtab_set_flags(t, &op->p, 0,
						   RTAB_F_SHADOWED))
					e->shadowed[fi]--;
				c->set++;
				continue;
			}
		}
		c->fail++;
		sync_engine_error(e, err,
				  op->del ? "removing a synced route"
					  : "setting a synced route");
	}
	return c->fail ? -EIO : 0;
}

/*
 * Where each prefix of the applier's synced set is: open addressing over
 * positions in s.  A hash, not a binary search: the engine walks its
 * routes in hash order, and 20 cache misses a route were most of a
 * resync's time at 1M routes.
 */
struct synced_index {
	const struct sync_route *s;
	__u32 *pos; /* position + 1; 0: empty */
	size_t mask;
};

static size_t prefix_slot(const struct synced_index *x,
			  const struct cls_prefix *p)
{
	size_t n = p->family == AF_INET6 ? 16 : 4;

	return sync_hash_prefix(p->addr, n, p->len) & x->mask;
}

static int index_build(struct synced_index *x, const struct sync_route *s,
		       size_t n)
{
	size_t cap = 16, i, k;

	while (cap < 2 * n)
		cap *= 2;
	x->s = s;
	x->mask = cap - 1;
	x->pos = calloc(cap, sizeof(*x->pos));
	if (!x->pos)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		for (k = prefix_slot(x, &s[i].prefix); x->pos[k];
		     k = (k + 1) & x->mask)
			;
		x->pos[k] = i + 1;
	}
	return 0;
}

/* Position of p in s, or -1. */
static long index_find(const struct synced_index *x, const struct cls_prefix *p)
{
	size_t k;

	for (k = prefix_slot(x, p); x->pos[k]; k = (k + 1) & x->mask)
		if (!sync_prefix_cmp(&x->s[x->pos[k] - 1].prefix, p))
			return x->pos[k] - 1;
	return -1;
}

/* Two big-endian words, not memcmp(): a diff of 1M routes calls it 20M times. */
int sync_prefix_cmp(const struct cls_prefix *a, const struct cls_prefix *b)
{
	__u64 x, y;
	int i;

	for (i = 0; i < 16; i += 8) {
		memcpy(&x, a->addr + i, 8);
		memcpy(&y, b->addr + i, 8);
		if (x != y)
			return be64toh(x) < be64toh(y) ? -1 : 1;
	}
	return (int)a->len - (int)b->len;
}

/* The applier's synced routes of one family. */
static int dump_synced(struct sync_engine *e, int family, struct sync_route **s,
		       size_t *n)
{
	int err = e->a->dump(e->a->ctx, family, s, n);

	if (err)
		sync_engine_error(e, err, "reading the synced routes");
	return err;
}

/*
 * A synced prefix the dump did not list, in a family one of whose tables
 * the dump may have given in part, and that the engine did not know
 * before (a start, new rules): it may lie past where the kernel cut the
 * dump, so it is not withdrawn.  Those it knew in a partial table were
 * kept (keep_undumped()); those it knew elsewhere went.
 */
static bool unknown_in_partial(const struct sync_engine *e, int fi,
			       const struct cls_prefix *p)
{
	struct rtab_ent best;

	return family_partial(e, fi ? AF_INET6 : AF_INET) &&
	       !rtab_best(&e->old[fi], p, &best);
}

/*
 * One family's desired prefixes against the applier's synced set s.
 * Resync (mark false): queue what differs.  After a swap that skipped
 * routes (mark true): flag the desired prefixes that are not synced,
 * which are the ones a hand route holds.
 */
static int diff_family(struct sync_engine *e, int fi,
		       const struct sync_route *s, size_t n, bool mark)
{
	struct rtab *t = &e->tab[fi];
	unsigned char *seen = calloc(n / 8 + 1, 1);
	struct synced_index idx = {0};
	struct rtab_ent x;
	size_t pos = 0, i;
	int err = seen ? index_build(&idx, s, n) : -ENOMEM;

	while (!err && rtab_next(t, &pos, &x)) {
		__u32 cls = e->rules.rule[x.rule].class_idx;
		long k;

		if (!rtab_is_best(t, &x))
			continue;
		k = index_find(&idx, &x.dst);
		if (k >= 0)
			seen[k / 8] |= 1 << (k % 8);
		if (mark && k < 0) {
			if (rtab_set_flags(t, &x.dst, RTAB_F_SHADOWED, 0))
				e->shadowed[fi]++;
		} else if (!mark && (k < 0 || s[k].class_idx != cls)) {
			err = queue_op(e, &x.dst, false, cls);
		}
	}
	for (i = 0; !mark && !err && i < n; i++) {
		if (seen[i / 8] & (1 << (i % 8)))
			continue;
		if (unknown_in_partial(e, fi, &s[i].prefix))
			e->kept[fi]++;
		else
			err = queue_op(e, &s[i].prefix, true, 0);
	}
	free(idx.pos);
	free(seen);
	return err;
}

static int mark_shadowed(struct sync_engine *e)
{
	static const int fams[2] = {AF_INET, AF_INET6};
	struct sync_route *s;
	size_t n;
	int fi, err;

	for (fi = 0; fi < 2; fi++) {
		err = dump_synced(e, fams[fi], &s, &n);
		if (err)
			return err;
		err = diff_family(e, fi, s, n, true);
		free(s);
		if (err)
			return err;
	}
	return 0;
}

/* Stream every prefix's best route into a swap. */
static int swap_fill(struct sync_engine *e, void *txn, size_t *count)
{
	struct sync_route *buf = malloc(SWAP_CHUNK * sizeof(*buf));
	struct rtab_ent x;
	size_t n = 0, pos;
	int fi, err = 0;

	if (!buf)
		return -ENOMEM;
	for (fi = 0; fi < 2 && !err; fi++) {
		for (pos = 0; !err && rtab_next(&e->tab[fi], &pos, &x);) {
			if (!rtab_is_best(&e->tab[fi], &x))
				continue;
			buf[n].prefix = x.dst;
			buf[n].class_idx = e->rules.rule[x.rule].class_idx;
			buf[n].flags = 0;
			(*count)++;
			if (++n == SWAP_CHUNK) {
				err = e->a->swap_add(e->a->ctx, txn, buf, n);
				n = 0;
			}
		}
	}
	if (!err && n)
		err = e->a->swap_add(e->a->ctx, txn, buf, n);
	free(buf);
	return err;
}

/* Publish a filled swap of c->set routes; count what hand routes hold. */
static int swap_publish(struct sync_engine *e, void *txn, struct apply_count *c)
{
	int skipped = e->a->swap_commit(e->a->ctx, txn);

	if (skipped < 0) {
		sync_engine_error(e, skipped, "publishing the synced set");
		return skipped;
	}
	e->st.changes += c->set;
	rtab_clear_flags(&e->tab[0], RTAB_F_SHADOWED);
	rtab_clear_flags(&e->tab[1], RTAB_F_SHADOWED);
	e->shadowed[0] = e->shadowed[1] = 0;
	c->set -= skipped;
	return skipped ? mark_shadowed(e) : 0;
}

static int swap_all(struct sync_engine *e, struct apply_count *c)
{
	void *txn = NULL;
	int err;

	err = e->a->swap_begin(e->a->ctx, &txn);
	if (!err)
		err = swap_fill(e, txn, &c->set);
	if (err) {
		if (txn)
			e->a->swap_abort(e->a->ctx, txn);
		sync_engine_error(e, err, "building the synced set");
		return err;
	}
	return swap_publish(e, txn, c);
}

/*
 * Under the lock, after our changes: the synced routes as we left them
 * and, after a resync, the hand routes its shadowed count is right for.
 */
static void note_outside(struct sync_engine *e, bool resync)
{
	struct sync_outside o;

	if (!e->a->outside || e->a->outside(e->a->ctx, &o))
		return;
	memcpy(e->synced, o.synced, sizeof(e->synced));
	if (resync) {
		memcpy(e->hand, o.hand, sizeof(e->hand));
		e->outside_known = true;
	}
}

static void batch_done(struct sync_engine *e)
{
	e->nops = 0;
	e->swap = false;
	e->batch_start = 0;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int sync_engine_commit(struct sync_engine *e)
{
	struct apply_count c = {0};
	bool swapped = e->swap;
	__u64 lag;
	int err;

	if (!e->valid || (!e->nops && !e->swap)) {
		batch_done(e);
		return 0;
	}
	err = lock(e);
	if (err) {
		batch_done(e);
		sync_engine_want_resync(e, "lock failed", RETRY_MS, mono_ns());
		return err;
	}
	err = swapped ? swap_all(e, &c) : apply_ops(e, &c);
	lag = (mono_ns() - e->batch_start) / 1000;
	e->st.lag_us = lag > UINT32_MAX ? UINT32_MAX : lag;
	if (e->st.lag_us > e->st.lag_max_us)
		e->st.lag_max_us = e->st.lag_us;
	if (err)
		sync_engine_want_resync(e, "apply failed", RETRY_MS, mono_ns());
	note_outside(e, false);
	push_locked(e);
	unlock(e);
	if (swapped)
		pr_info("sync: swap: %zu routes now synced (a batch of many changes)\n",
			c.set);
	batch_done(e);
	return err;
}

static void stream_stop(struct sync_engine *e)
{
	if (!e->stream)
		return;
	e->a->swap_abort(e->a->ctx, e->stream->txn);
	unlock(e);
	free(e->stream);
	e->stream = NULL;
}

/*
 * Stream this resync if nothing is synced (a first start, or everything
 * withdrawn): the difference would be every route, one swap anyway.
 * Holds the lock until the resync ends.  Not streamed if anything fails.
 */
static void stream_start(struct sync_engine *e)
{
	struct sync_outside o;
	struct stream *st;

	if (!e->a->outside || e->a->outside(e->a->ctx, &o) ||
	    o.synced[0] + o.synced[1])
		return;
	st = calloc(1, sizeof(*st));
	if (!st)
		return;
	if (e->a->lock(e->a->ctx, e->lock_wait_ms)) {
		free(st);
		return;
	}
	/* the count read before the lock still holds: only we sync */
	if (e->a->swap_begin(e->a->ctx, &st->txn)) {
		unlock(e);
		free(st);
		return;
	}
	e->stream = st;
}

static int stream_flush(struct sync_engine *e)
{
	struct stream *st = e->stream;
	int err = st->n ? e->a->swap_add(e->a->ctx, st->txn, st->buf, st->n)
			: 0;

	st->n = 0;
	return err;
}

/* The waiting prefixes of one address, shortest first. */
static int stream_group(struct sync_engine *e)
{
	struct stream *st = e->stream;
	struct rtab_ent best;
	size_t i, j;
	int err = 0;

	for (i = 1; i < st->group_n; i++)
		for (j = i; j && st->group[j - 1].len > st->group[j].len; j--) {
			struct cls_prefix t = st->group[j];

			st->group[j] = st->group[j - 1];
			st->group[j - 1] = t;
		}
	for (i = 0; i < st->group_n && !err; i++) {
		const struct cls_prefix *p = &st->group[i];

		if (!rtab_best(&e->tab[fam_idx(p->family)], p, &best))
			continue;
		st->buf[st->n].prefix = *p;
		st->buf[st->n].class_idx = e->rules.rule[best.rule].class_idx;
		st->buf[st->n].flags = 0;
		if (++st->n == SWAP_CHUNK)
			err = stream_flush(e);
	}
	st->group_n = 0;
	return err;
}

static int stream_route(struct sync_engine *e, const struct cls_prefix *p)
{
	struct stream *st = e->stream;
	size_t i;
	int err = 0;

	if (st->group_n && (st->group[0].family != p->family ||
			    memcmp(st->group[0].addr, p->addr, sizeof(p->addr))))
		err = stream_group(e);
	for (i = 0; i < st->group_n; i++)
		if (st->group[i].len == p->len)
			return err;
	if (!err && st->group_n == GROUP_MAX)
		err = stream_group(e);
	if (!err)
		st->group[st->group_n++] = *p;
	return err;
}

/* Publish the streamed swap; the lock is released by the caller. */
static int stream_end(struct sync_engine *e, struct apply_count *c)
{
	struct stream *st = e->stream;
	int err = stream_group(e);

	if (!err)
		err = stream_flush(e);
	e->stream = NULL;
	if (err) {
		e->a->swap_abort(e->a->ctx, st->txn);
		sync_engine_error(e, err, "building the synced set");
	} else {
		/* prefixes, not routes sent: a prefix may have gone twice */
		c->set = e->prefixes[0] + e->prefixes[1];
		err = swap_publish(e, st->txn, c);
	}
	free(st);
	return err;
}

static void drop_old(struct sync_engine *e)
{
	rtab_free(&e->old[0]);
	rtab_free(&e->old[1]);
}

/* Forget everything: what the engine knew and what events queued. */
static int reset(struct sync_engine *e)
{
	size_t n4 = e->tab[0].n, n6 = e->tab[1].n;
	int err;

	drop_old(e);
	e->resyncing = false;
	rtab_free(&e->tab[0]);
	rtab_free(&e->tab[1]);
	err = rtab_init(&e->tab[0], AF_INET, n4);
	if (!err)
		err = rtab_init(&e->tab[1], AF_INET6, n6);
	if (err)
		return err;
	memset(e->prefixes, 0, sizeof(e->prefixes));
	memset(e->shadowed, 0, sizeof(e->shadowed));
	e->valid = false;
	schedule_begin(&e->sched, 0);
	batch_done(e);
	return 0;
}

int sync_engine_resync_begin(struct sync_engine *e)
{
	int fi, err = 0;

	stream_stop(e);
	drop_old(e);
	/* what the engine knew stays beside the dump until the end */
	for (fi = 0; fi < 2 && !err; fi++) {
		e->old[fi] = e->tab[fi];
		err = rtab_init(&e->tab[fi], e->old[fi].family, e->old[fi].n);
		if (err) {
			e->tab[fi] = e->old[fi];
			memset(&e->old[fi], 0, sizeof(e->old[fi]));
		}
	}
	if (err) {
		if (fi == 2) {
			rtab_free(&e->tab[0]);
			e->tab[0] = e->old[0];
			memset(&e->old[0], 0, sizeof(e->old[0]));
		}
		return err;
	}
	e->old_valid = e->valid;
	memset(e->prefixes, 0, sizeof(e->prefixes));
	memset(e->shadowed, 0, sizeof(e->shadowed));
	e->valid = false;
	e->resyncing = true;
	e->dirty = false;
	e->resync_events = 0;
	e->npartial = 0;
	memset(e->kept, 0, sizeof(e->kept));
	batch_done(e);
	schedule_begin(&e->sched, mono_ns());
	stream_start(e);
	return 0;
}

bool sync_engine_resync_clean(const struct sync_engine *e)
{
	return e->resyncing && !e->dirty;
}

void sync_engine_resync_dirty(struct sync_engine *e)
{
	if (e->resyncing)
		e->dirty = true;
}

static bool is_partial(const struct sync_engine *e, int family, __u32 table)
{
	size_t i;

	for (i = 0; i < e->npartial; i++)
		if (e->partial[i].family == family &&
		    (!e->partial[i].table || e->partial[i].table == table))
			return true;
	return false;
}

static bool family_partial(const struct sync_engine *e, int family)
{
	size_t i;

	for (i = 0; i < e->npartial; i++)
		if (e->partial[i].family == family)
			return true;
	return false;
}

static void add_partial(struct sync_engine *e, int family, __u32 table)
{
	if (is_partial(e, family, table))
		return;
	/* past PARTIAL_MAX tables, the whole family */
	if (e->npartial == PARTIAL_MAX)
		table = 0;
	if (e->npartial == PARTIAL_MAX)
		e->npartial--;
	e->partial[e->npartial].family = family;
	e->partial[e->npartial].table = table;
	e->npartial++;
}

void sync_engine_resync_partial(struct sync_engine *e, int family, __u32 table)
{
	if (e->resyncing)
		add_partial(e, family, table);
}

int sync_engine_resync_add(struct sync_engine *e, const struct kroute *k)
{
	int fi = fam_idx(k->dst.family), rule, err;
	struct rtab *t = &e->tab[fi];
	struct rtab_ent x, best;
	bool had = false, new_prefix;

	if (!sync_rules_want(&e->rules, k->dst.family, k->table))
		return 0;
	rule = select_rule(e, k);
	if (rule < 0)
		return 0;
	to_ent(k, rule, &x);
	x.flags |= RTAB_F_DUMPED;
	/*
	 * Routes alike this one that events put in before it came are older
	 * than the dump's view of them: the kernel queued the dumped route
	 * after their notifications.  Those the dump gave stay (aliases).
	 */
	if (e->resync_events) {
		had = rtab_best(t, &x.dst, &best) > 0;
		rtab_remove_alike(t, &x, RTAB_F_DUMPED);
	}
	/* an update: a dump restarted by the kernel may list a route twice */
	err = rtab_upsert(t, &x, &new_prefix);
	if (!err && (e->resync_events ? !had : new_prefix))
		e->prefixes[fi]++;
	if (!err && e->stream)
		err = stream_route(e, &k->dst);
	return err;
}

/* Count the prefixes and the shadowed ones of the tables anew. */
static void recount(struct sync_engine *e)
{
	struct rtab_ent x;
	size_t pos;
	int fi;

	for (fi = 0; fi < 2; fi++) {
		e->prefixes[fi] = e->shadowed[fi] = 0;
		for (pos = 0; rtab_next(&e->tab[fi], &pos, &x);) {
			if (!rtab_is_best(&e->tab[fi], &x))
				continue;
			e->prefixes[fi]++;
			if (x.flags & RTAB_F_SHADOWED)
				e->shadowed[fi]++;
		}
	}
}

void sync_engine_resync_abort(struct sync_engine *e, int err, __u64 now_ns)
{
	int fi;

	stream_stop(e);
	/* what the engine knew, with the events since, still holds */
	for (fi = 0; fi < 2; fi++) {
		rtab_free(&e->tab[fi]);
		e->tab[fi] = e->old[fi];
		memset(&e->old[fi], 0, sizeof(e->old[fi]));
	}
	recount(e);
	e->valid = e->old_valid;
	e->resyncing = false;
	batch_done(e);
	sync_engine_error(e, err, "dumping the kernel routes");
	schedule_end(&e->sched, now_ns);
	sync_engine_want_resync(e, "retry", RETRY_MS, now_ns);
	sync_engine_status_push(e);
}

static void log_partial(int family, __u32 table, const char *why)
{
	if (table)
		pr_warn("sync: table %u (%s): %s; the routes it did not list stay as they were\n",
			table, family == AF_INET ? "IPv4" : "IPv6", why);
	else
		pr_warn("sync: %s tables: %s; the routes it did not list stay as they were\n",
			family == AF_INET ? "IPv4" : "IPv6", why);
}

/*
 * A route the engine knows from its notification to be too long for any
 * dump (RTAB_F_BIG) that the dump did not list: the kernel ended the dump
 * there, and its table is partial.  The routes of partial tables that the
 * dump did not list are kept as the engine knew them: a dump that may be
 * partial withdraws nothing.
 */
static int keep_undumped(struct sync_engine *e)
{
	static const int fams[2] = {AF_INET, AF_INET6};
	struct rtab_ent x, best;
	size_t pos;
	int fi, err = 0;

	for (fi = 0; fi < 2; fi++)
		for (pos = 0; rtab_next(&e->old[fi], &pos, &x);) {
			if (!(x.flags & RTAB_F_BIG) ||
			    rtab_contains(&e->tab[fi], &x) ||
			    is_partial(e, fams[fi], x.table))
				continue;
			log_partial(fams[fi], x.table,
				    "the dump ended at a route longer than the kernel puts in a dump");
			add_partial(e, fams[fi], x.table);
		}
	for (fi = 0; fi < 2 && !err; fi++) {
		if (!family_partial(e, fams[fi]))
			continue;
		for (pos = 0; !err && rtab_next(&e->old[fi], &pos, &x);) {
			if (!is_partial(e, fams[fi], x.table) ||
			    rtab_find_alike(&e->tab[fi], &x, NULL, 0))
				continue;
			x.flags &= ~(RTAB_F_SHADOWED | RTAB_F_DUMPED);
			if (!rtab_best(&e->tab[fi], &x.dst, &best))
				e->prefixes[fi]++;
			err = rtab_insert(&e->tab[fi], &x);
			if (!err && e->stream)
				err = stream_route(e, &x.dst);
		}
	}
	return err;
}

int sync_engine_resync_end(struct sync_engine *e, const char *reason,
			   __u64 started_ns)
{
	static const int fams[2] = {AF_INET, AF_INET6};
	struct apply_count c = {0};
	bool swapped, dirty = e->dirty;
	struct sync_route *s;
	size_t n;
	__u64 end;
	int fi, err;

	e->resyncing = false;
	err = keep_undumped(e);
	if (err) {
		sync_engine_error(e, err, "keeping what a partial dump missed");
		stream_stop(e);
	}
	if (err || (!e->stream && (err = lock(e)))) {
		batch_done(e);
		drop_old(e);
		end = mono_ns();
		schedule_end(&e->sched, end);
		sync_engine_want_resync(e, "retry", RETRY_MS, end);
		return err;
	}
	if (e->stream) {
		/* locked since the resync began */
		swapped = true;
		err = stream_end(e, &c);
		goto applied;
	}
	for (fi = 0; fi < 2 && !err; fi++) {
		err = dump_synced(e, fams[fi], &s, &n);
		if (err)
			break;
		err = diff_family(e, fi, s, n, false);
		free(s);
	}
	swapped = e->swap;
	if (!err)
		err = swapped ? swap_all(e, &c) : apply_ops(e, &c);
applied:
	drop_old(e);
	end = mono_ns();
	schedule_end(&e->sched, end);
	if (err) {
		sync_engine_want_resync(e, "retry", RETRY_MS, end);
	} else {
		e->valid = true;
		e->st.resyncs++;
		e->st.last_resync = realtime_ns();
		e->st.last_resync_ms = (end - started_ns) / 1000000;
		snprintf(e->st.last_resync_reason,
			 sizeof(e->st.last_resync_reason), "%s", reason);
		/* a dump taken in a storm is followed by one in its calm */
		if (dirty)
			schedule_settle(&e->sched, "changed during the dump",
					end);
	}
	if (!err)
		note_outside(e, true);
	push_locked(e);
	unlock(e);
	batch_done(e);
	if (err)
		return err;
	pr_info("sync: resync (%s): %llu routes synced (IPv4 %llu, IPv6 %llu), %llu shadowed by hand routes; %s %zu, removed %zu; %u ms%s\n",
		reason, (unsigned long long)(e->st.routes_v4 + e->st.routes_v6),
		(unsigned long long)e->st.routes_v4,
		(unsigned long long)e->st.routes_v6,
		(unsigned long long)e->st.shadowed,
		swapped ? "swapped in" : "set", c.set, c.del,
		e->st.last_resync_ms,
		dirty ? "; the tables changed meanwhile" : "");
	if (e->kept[0] + e->kept[1])
		pr_warn("sync: kept %zu synced routes that a dump cut short did not list, until the kernel announces them or a whole dump shows them gone\n",
			e->kept[0] + e->kept[1]);
	/* a resync's diff and swap buffers are freed by now; give the
	 * memory back rather than keep it for the next one */
	malloc_trim(0);
	return 0;
}

void sync_engine_link(struct sync_engine *e, __u32 ifindex, const char *name,
		      bool up, bool deleted)
{
	const char *why = NULL;
	struct link *l;
	bool made;
	size_t i;

	if (deleted) {
		why = "link deleted";
		for (i = 0; i < e->nlinks; i++)
			if (e->links[i].ifindex == ifindex)
				e->links[i] = e->links[--e->nlinks];
	} else if ((l = link_get(e, ifindex, &made))) {
		/* a link first seen down may just have gone down */
		if (l->up && !up)
			why = "link down";
		if (name && !made && l->name[0] && strcmp(l->name, name) &&
		    e->rules.uses_dev)
			why = "link renamed";
		l->up = up;
		if (name)
			snprintf(l->name, sizeof(l->name), "%s", name);
	}
	/* IPv4 routes go silently; IPv6 ones are announced */
	if (why && (e->prefixes[0] || e->rules.uses_dev))
		sync_engine_want_resync(e, why, 100, mono_ns());
}

void sync_engine_addr_gone(struct sync_engine *e)
{
	if (e->prefixes[0])
		sync_engine_want_resync(e, "address removed", 100, mono_ns());
}

/*
 * The rules' class words again, after a class change by anyone: a class
 * deleted and made again gets another index.  A word that resolves no
 * more (its class was deleted) keeps the old index; that is an error.
 */
static void resolve_again(struct sync_engine *e, const char *where,
			  __u64 now_ns)
{
	struct sync_rules *rs = &e->rules;
	char err[SYNC_ERR_LEN], what[SYNC_ERR_LEN + 64];
	__u32 *old = malloc(rs->n * sizeof(*old) + 1);
	bool moved = false;
	size_t i;

	if (!old) {
		sync_engine_error(e, -ENOMEM, "resolving the classes again");
		return;
	}
	for (i = 0; i < rs->n; i++)
		old[i] = rs->rule[i].class_idx;
	if (sync_rules_resolve(rs, e->a->resolve, e->a->ctx, where, err,
			       sizeof(err))) {
		for (i = 0; i < rs->n; i++)
			rs->rule[i].class_idx = old[i];
		snprintf(what, sizeof(what),
			 "classes changed: %s; its rules keep the old class",
			 err);
		sync_engine_error(e, 0, what);
	} else {
		for (i = 0; i < rs->n; i++)
			moved |= old[i] != rs->rule[i].class_idx;
	}
	free(old);
	if (moved)
		sync_engine_want_resync(e, "classes changed", 0, now_ns);
}

void sync_engine_check_outside(struct sync_engine *e, const char *where,
			       __u64 now_ns)
{
	const struct sync_status *st;
	struct sync_outside o;
	bool hand_moved;
	int err;

	if (!e->a->outside || !e->valid || !e->outside_known)
		return;
	err = e->a->outside(e->a->ctx, &o);
	if (err) {
		sync_engine_error(e, err, "reading the route counts");
		return;
	}
	if (o.class_gen != e->class_gen) {
		e->class_gen = o.class_gen;
		resolve_again(e, where, now_ns);
	}
	st = sync_engine_status(e);
	hand_moved = o.hand[0] != e->hand[0] || o.hand[1] != e->hand[1];
	/* synced routes taken over or deleted, or a shadowing one gone */
	if (o.synced[0] != e->synced[0] || o.synced[1] != e->synced[1] ||
	    (hand_moved && st->shadowed))
		sync_engine_want_resync(e, "routes changed by hand", 0, now_ns);
}
