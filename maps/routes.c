// SPDX-License-Identifier: GPL-2.0-only
/*
 * Routes: prefix -> class in the live generation's LPM tries.  This file
 * owns "the IPv4 table equals the trie" for single changes: a change is
 * recorded in the journal, made in the trie, then painted in the table
 * (a delete hands its range to the cover route, found here), and the
 * counts move with the record's end.  A crash in between leaves the
 * record; cls_route_repaint() makes the range equal to the trie again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/internal.h"

/* Big enough for either key; the trie reads only key_size bytes. */
union cls_key {
	struct cls_v4_key v4;
	struct cls_v6_key v6;
	struct {
		__u32 prefixlen;
		__u8 addr[16];
	} any;
};

static size_t addr_len(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

static size_t key_size(int family)
{
	return sizeof(__u32) + addr_len(family);
}

static enum cls_slotted trie_of(int family)
{
	return family == AF_INET6 ? CLS_S_TRIE_V6 : CLS_S_TRIE_V4;
}

static void key_from_prefix(union cls_key *k, const struct cls_prefix *p)
{
	memset(k, 0, sizeof(*k));
	k->any.prefixlen = p->len;
	memcpy(k->any.addr, p->addr, addr_len(p->family));
}

static void mask_prefix(struct cls_prefix *p, unsigned int len)
{
	unsigned int i, bits = addr_len(p->family) * 8;

	for (i = len; i < bits; i++)
		p->addr[i / 8] &= ~(0x80 >> (i % 8));
	p->len = len;
}

int cls_trie_create(int family)
{
	return cls_map_create(cls_slot_spec(trie_of(family)), 0);
}

static int fill_one_by_one(int fd, const struct cls_route *r, size_t n)
{
	union cls_key k;
	size_t i;
	__u32 v;

	for (i = 0; i < n; i++) {
		key_from_prefix(&k, &r[i].prefix);
		v = cls_route_value(r[i].class_idx, r[i].prefix.len,
				    r[i].flags);
		if (bpf_map_update_elem(fd, &k, &v, BPF_ANY))
			return -errno;
	}
	return 0;
}

#define FILL_CHUNK 8192

int cls_trie_fill(int fd, int family, const struct cls_route *r, size_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = BPF_ANY);
	size_t ks = key_size(family), done = 0, i, chunk;
	__u32 *vals = NULL, count;
	__u8 *keys = NULL;
	union cls_key k;
	int err = 0;

	if (!n)
		return 0;
	keys = malloc(FILL_CHUNK * ks);
	vals = malloc(FILL_CHUNK * sizeof(*vals));
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	while (done < n) {
		chunk = n - done < FILL_CHUNK ? n - done : FILL_CHUNK;
		for (i = 0; i < chunk; i++) {
			const struct cls_route *ri = &r[done + i];

			key_from_prefix(&k, &ri->prefix);
			memcpy(keys + i * ks, &k, ks);
			vals[i] = cls_route_value(ri->class_idx, ri->prefix.len,
						  ri->flags);
		}
		count = chunk;
		if (bpf_map_update_batch(fd, keys, vals, &count, &opts)) {
			err = -errno;
			/* Kernels without batch ops on LPM tries. */
			if (done == 0 && count == 0 &&
			    (err == -EINVAL || err == -ENOTSUPP ||
			     err == -EOPNOTSUPP))
				err = fill_one_by_one(fd, r, n);
			goto out;
		}
		done += chunk;
	}
out:
	free(keys);
	free(vals);
	return err;
}

/*
 * The trie's answer for p: the longest route containing it.  The value
 * carries the matched prefix's length, so one lookup tells the prefix.
 */
static int trie_match(int fd, const struct cls_prefix *p,
		      struct cls_route *match, bool *found)
{
	union cls_key k;
	__u32 v;

	*found = false;
	key_from_prefix(&k, p);
	if (bpf_map_lookup_elem(fd, &k, &v))
		return errno == ENOENT ? 0 : -errno;
	match->prefix = *p;
	mask_prefix(&match->prefix,
		    v >> CLS_ROUTE_PLEN_SHIFT & CLS_ROUTE_PLEN_MASK);
	cls_route_from_value(match, v);
	*found = true;
	return 0;
}

/* The route exactly at p, as a trie value (0: none). */
static int trie_exact(int fd, const struct cls_prefix *p, __u32 *value)
{
	struct cls_route r;
	bool found;
	int err;

	*value = 0;
	err = trie_match(fd, p, &r, &found);
	if (!err && found && r.prefix.len == p->len)
		*value = cls_route_value(r.class_idx, r.prefix.len, r.flags);
	return err;
}

/* The longest route strictly containing p (its cover), if any. */
static int trie_cover(int fd, const struct cls_prefix *p,
		      struct cls_route *cover, bool *found)
{
	struct cls_prefix above = *p;

	*found = false;
	if (!p->len)
		return 0;
	mask_prefix(&above, p->len - 1);
	return trie_match(fd, &above, cover, found);
}

/* Make the IPv6 table's range of p say what the trie says now. */
static int repaint6(struct cls_maps *m, int trie, const struct cls_prefix *p)
{
	struct cls_route cover, r;
	bool has_cover;
	__u32 v;
	int err;

	err = cls_live_table6(m);
	if (err || m->table6.fd < 0)
		return err;
	err = trie_exact(trie, p, &v);
	if (err)
		return err;
	if (v) {
		cls_route_from_value(&r, v);
		return cls_table6_paint(&m->table6, p, r.class_idx);
	}
	err = trie_cover(trie, p, &cover, &has_cover);
	return err ? err :
		     cls_table6_unpaint(&m->table6, p,
					has_cover ? &cover : NULL);
}

/* Make the table's range of p say what the trie says now. */
static int repaint(struct cls_maps *m, int trie, const struct cls_prefix *p)
{
	struct cls_route cover, r;
	bool has_cover;
	__u32 v;
	int err = cls_fail("route: repaint");

	if (err)
		return err;
	if (p->family == AF_INET6)
		return repaint6(m, trie, p);
	err = cls_live_table(m);
	if (err || m->table.fd < 0)
		return err;
	err = cls_table_map_for(&m->table, p);
	if (!err)
		err = trie_exact(trie, p, &v);
	if (err)
		return err;
	if (v) {
		cls_route_from_value(&r, v);
		cls_table_paint(&m->table, p, r.class_idx);
		return 0;
	}
	err = trie_cover(trie, p, &cover, &has_cover);
	if (!err)
		cls_table_unpaint(&m->table, p, has_cover ? &cover : NULL);
	return err;
}

int cls_route_repaint(struct cls_maps *m, const struct cls_prefix *p)
{
	int trie = cls_live_fd(m, trie_of(p->family));

	return trie < 0 ? trie : repaint(m, trie, p);
}

int cls_route_recover(struct cls_maps *m, struct cls_state *s)
{
	struct cls_prefix p = {.family = s->journal.route.family,
			       .len = s->journal.route.len};
	struct cls_route now;
	char text[PREFIX_STRLEN];
	bool found;
	__u32 v = 0;
	int err;

	memcpy(p.addr, s->journal.route.addr, sizeof(p.addr));
	err = cls_route_repaint(m, &p);
	if (!err)
		err = cls_route_lookup(m, &p, &now, &found);
	if (err)
		return err;
	if (found && now.prefix.len == p.len)
		v = cls_route_value(now.class_idx, p.len, now.flags);
	if (s->journal.route.before)
		s->routes[cls_family_slot(p.family)]
			 [!!(s->journal.route.before & CLS_ROUTE_SYNCED)]--;
	if (v)
		s->routes[cls_family_slot(p.family)]
			 [!!(v & CLS_ROUTE_SYNCED)]++;
	format_prefix(&p, text, sizeof(text));
	cls_notify(m,
		   "finished an interrupted change of route %s (pid %u): the "
		   "%s table agrees with the trie again",
		   text, s->journal.pid,
		   p.family == AF_INET6 ? "IPv6" : "IPv4");
	return cls_journal_end(m, s);
}

static void count(__u32 routes[2][2], const struct cls_prefix *p, __u32 v,
		  int delta)
{
	if (v)
		routes[cls_family_slot(p->family)][!!(v & CLS_ROUTE_SYNCED)] +=
			delta;
}

/*
 * One route: value 0 deletes it.  allow(before) says whether the route
 * now at p (0: none) may be changed, or the errno to refuse with.
 */
static int route_change(struct cls_maps *m, const struct cls_prefix *p,
			__u32 value, int (*allow)(__u32 before))
{
	struct cls_state s;
	union cls_key k;
	__u32 before;
	int trie, err;

	if (!m->locked)
		return -ENOLCK;
	trie = cls_live_fd(m, trie_of(p->family));
	if (trie < 0)
		return trie;
	err = trie_exact(trie, p, &before);
	if (!err)
		err = allow(before);
	if (!err)
		err = cls_state_for_change(m, &s);
	if (err)
		return err;
	s.journal.route.family = p->family;
	s.journal.route.len = p->len;
	memcpy(s.journal.route.addr, p->addr, sizeof(p->addr));
	s.journal.route.before = before;
	err = cls_journal_begin(m, &s, CLS_OP_ROUTE);
	if (err)
		return err;
	cls_step("route: recorded");
	key_from_prefix(&k, p);
	if (value)
		err = bpf_map_update_elem(trie, &k, &value, BPF_ANY);
	else
		err = bpf_map_delete_elem(trie, &k);
	if (err) {
		err = -errno;
		cls_journal_end(m, &s); /* nothing changed */
		return err;
	}
	cls_step("route: trie changed");
	err = repaint(m, trie, p);
	cls_step("route: table painted");
	if (err) {
		cls_route_recover(m, &s); /* or the next lock-taker does */
		return err;
	}
	count(s.routes, p, before, -1);
	count(s.routes, p, value, +1);
	return cls_journal_end(m, &s);
}

static int allow_add(__u32 before)
{
	/* Adding over a synced route takes it over, as replace would. */
	return before && !(before & CLS_ROUTE_SYNCED) ? -EEXIST : 0;
}

static int allow_any(__u32 before)
{
	(void)before;
	return 0;
}

static int allow_present(__u32 before)
{
	return before ? 0 : -ENOENT;
}

static int allow_sync_set(__u32 before)
{
	return before && !(before & CLS_ROUTE_SYNCED) ? -EEXIST : 0;
}

static int allow_sync_del(__u32 before)
{
	return !before ? -ENOENT : !(before & CLS_ROUTE_SYNCED) ? -EPERM : 0;
}

int cls_route_set(struct cls_maps *m, const struct cls_prefix *p,
		  __u32 class_idx, int how)
{
	return route_change(m, p, cls_route_value(class_idx, p->len, 0),
			    how == CLS_ROUTE_ADD ? allow_add : allow_any);
}

int cls_route_del(struct cls_maps *m, const struct cls_prefix *p)
{
	return route_change(m, p, 0, allow_present);
}

int cls_route_sync_set(struct cls_maps *m, const struct cls_prefix *p,
		       __u32 class_idx)
{
	return route_change(
		m, p, cls_route_value(class_idx, p->len, CLS_ROUTE_SYNCED),
		allow_sync_set);
}

int cls_route_sync_del(struct cls_maps *m, const struct cls_prefix *p)
{
	return route_change(m, p, 0, allow_sync_del);
}

static int grow(struct cls_route **out, size_t *cap, size_t need)
{
	struct cls_route *r;

	if (need <= *cap)
		return 0;
	while (*cap < need)
		*cap = *cap ? *cap * 2 : 1024;
	r = realloc(*out, *cap * sizeof(**out));
	if (!r)
		return -ENOMEM;
	*out = r;
	return 0;
}

static bool wanted(__u32 v, enum cls_source_filter src)
{
	return src == CLS_SRC_ALL || !!(v & CLS_ROUTE_SYNCED) == (src == 1);
}

static int append(struct cls_route **out, size_t *n, size_t *cap,
		  const union cls_key *k, int family, __u32 v)
{
	struct cls_route *r;
	int err = grow(out, cap, *n + 1);

	if (err)
		return err;
	r = &(*out)[(*n)++];
	memset(&r->prefix, 0, sizeof(r->prefix));
	r->prefix.family = family;
	r->prefix.len = k->any.prefixlen;
	memcpy(r->prefix.addr, k->any.addr, addr_len(family));
	cls_route_from_value(r, v);
	return 0;
}

static int dump_one_by_one(int fd, int family, enum cls_source_filter src,
			   struct cls_route **out, size_t *n, size_t *cap)
{
	union cls_key k, next;
	void *prev = NULL;
	__u32 v;
	int err;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		/* A racing delete is not an error: the route is gone. */
		if (bpf_map_lookup_elem(fd, &k, &v) || !wanted(v, src))
			continue;
		err = append(out, n, cap, &k, family, v);
		if (err)
			return err;
	}
	return errno == ENOENT ? 0 : -errno;
}

#define DUMP_CHUNK 8192

/* Kernels with batch ops on LPM tries: thousands of routes per syscall. */
static int dump_batched(int fd, int family, enum cls_source_filter src,
			struct cls_route **out, size_t *n, size_t *cap)
{
	size_t ks = key_size(family), i;
	union cls_key batch, k;
	__u32 vals[DUMP_CHUNK], count;
	void *in = NULL;
	__u8 *keys;
	int err = 0, done = 0;

	keys = malloc(DUMP_CHUNK * ks);
	if (!keys)
		return -ENOMEM;
	while (!err && !done) {
		count = DUMP_CHUNK;
		if (bpf_map_lookup_batch(fd, in, &batch, keys, vals, &count,
					 NULL)) {
			if (errno != ENOENT) {
				err = -errno;
				break;
			}
			done = 1;
		}
		in = &batch;
		for (i = 0; !err && i < count; i++) {
			if (!wanted(vals[i], src))
				continue;
			memset(&k, 0, sizeof(k));
			memcpy(&k, keys + i * ks, ks);
			err = append(out, n, cap, &k, family, vals[i]);
		}
	}
	free(keys);
	return err;
}

int cls_trie_dump(int fd, int family, enum cls_source_filter src,
		  struct cls_route **out, size_t *n, size_t *cap)
{
	size_t start = *n;
	int err;

	err = dump_batched(fd, family, src, out, n, cap);
	if (err == -EINVAL || err == -ENOTSUPP || err == -EOPNOTSUPP) {
		*n = start;
		err = dump_one_by_one(fd, family, src, out, n, cap);
	}
	return err;
}

int cls_route_dump(struct cls_maps *m, int family, enum cls_source_filter src,
		   struct cls_route **out, size_t *n)
{
	size_t cap = 0, n4 = 0;
	int f, fd, err = 0;

	*out = NULL;
	*n = 0;
	for (f = 0; f < 2 && !err; f++) {
		int fam = f ? AF_INET6 : AF_INET;

		if (family && family != fam)
			continue;
		fd = cls_live_fd(m, trie_of(fam));
		err = fd < 0 ? fd : cls_trie_dump(fd, fam, src, out, n, &cap);
		if (!f)
			n4 = *n;
	}
	if (!err)
		err = cls_route_sort(*out, n4);
	if (!err && *n > n4)
		err = cls_route_sort(*out + n4, *n - n4);
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}

int cls_route_lookup(struct cls_maps *m, const struct cls_prefix *addr,
		     struct cls_route *match, bool *found)
{
	int fd = cls_live_fd(m, trie_of(addr->family));

	return fd < 0 ? fd : trie_match(fd, addr, match, found);
}

int cls_route_counts(struct cls_maps *m, __u32 counts[2][2])
{
	struct cls_state s;
	int err = cls_state_read(m, &s);

	if (!err)
		memcpy(counts, s.routes, sizeof(s.routes));
	return err;
}

int cls_route_count_class(struct cls_maps *m, __u32 class_idx)
{
	struct cls_route *r;
	size_t n, i;
	int err, count = 0;

	err = cls_route_dump(m, 0, CLS_SRC_ALL, &r, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		count += r[i].class_idx == class_idx;
	free(r);
	return count;
}
