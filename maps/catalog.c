// SPDX-License-Identifier: GPL-2.0-only
/*
 * The class catalogue: index <-> classid <-> name, read from the classes
 * and class_meta arrays in two batched syscalls and kept per handle.  A
 * class change by anyone bumps state.class_gen, so a handle that does not
 * hold the lock rereads when the catalogue it holds is out of date.
 * The one resolver of class tokens and its one wording live here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "maps/internal.h"

/* Sized by the set's capacity (cls_maps.cap) when read. */
struct cls_catalog {
	__u32 class_gen;
	__u32 cap;
	size_t n;
	struct cls_class_entry *e;	  /* valid ones, index order */
	struct cls_class_entry **by_id;	  /* classid order */
	struct cls_class_entry **by_name; /* name order */
	int *pos;			  /* index -> position in e, -1: none */
};

static int read_one_by_one(int fd, void *vals, size_t size, __u32 cap)
{
	__u32 i;

	for (i = 0; i < cap; i++)
		if (bpf_map_lookup_elem(fd, &i, (char *)vals + i * size))
			return -errno;
	return 0;
}

/* The whole array in one or two syscalls where the kernel has batch ops. */
int cls_array_read(int fd, void *vals, size_t size, __u32 cap)
{
	__u32 *keys, out_batch, count = cap;
	int err = 0;

	keys = malloc(sizeof(*keys) * cap);
	if (!keys)
		return -ENOMEM;
	if (bpf_map_lookup_batch(fd, NULL, &out_batch, keys, vals, &count,
				 NULL) &&
	    !(errno == ENOENT && count == cap))
		err = read_one_by_one(fd, vals, size, cap);
	free(keys);
	return err;
}

static int cmp_id(const void *a, const void *b)
{
	__u32 x = (*(struct cls_class_entry *const *)a)->cls.classid;
	__u32 y = (*(struct cls_class_entry *const *)b)->cls.classid;

	return x < y ? -1 : x > y;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(struct cls_class_entry *const *)a)->meta.name,
		      (*(struct cls_class_entry *const *)b)->meta.name);
}

static void catalog_free(struct cls_catalog *c)
{
	if (!c)
		return;
	free(c->e);
	free(c->by_id);
	free(c->by_name);
	free(c->pos);
	free(c);
}

static int load(struct cls_maps *m, __u32 class_gen)
{
	struct cls_class_meta *meta;
	struct cls_class *cls;
	struct cls_catalog *c;
	size_t i, ids = 0;
	int err;

	c = calloc(1, sizeof(*c));
	cls = calloc(m->cap, sizeof(*cls));
	meta = calloc(m->cap, sizeof(*meta));
	if (c) {
		c->cap = m->cap;
		c->e = calloc(m->cap, sizeof(*c->e));
		c->by_id = calloc(m->cap + 1, sizeof(*c->by_id));
		c->by_name = calloc(m->cap, sizeof(*c->by_name));
		c->pos = calloc(m->cap, sizeof(*c->pos));
	}
	err = c && cls && meta && c->e && c->by_id && c->by_name && c->pos
		      ? 0
		      : -ENOMEM;
	if (!err)
		err = cls_array_read(m->fd[CLS_M_CLASSES], cls, sizeof(*cls),
				     m->cap);
	if (!err)
		err = cls_array_read(m->fd[CLS_M_CLASS_META], meta,
				     sizeof(*meta), m->cap);
	for (i = 0; !err && i < m->cap; i++) {
		struct cls_class_entry *e = &c->e[c->n];

		c->pos[i] = -1;
		if (!(cls[i].flags & CLS_F_VALID))
			continue;
		e->idx = i;
		e->cls = cls[i];
		e->meta = meta[i];
		e->meta.name[CLS_NAME_MAX - 1] = '\0';
		c->pos[i] = c->n;
		c->by_name[c->n] = e;
		/* The default class is not found by a classid it may carry. */
		if (i != CLS_DEFAULT_CLASS)
			c->by_id[ids++] = e;
		c->n++;
	}
	free(cls);
	free(meta);
	if (err) {
		catalog_free(c);
		return err;
	}
	qsort(c->by_id, ids, sizeof(c->by_id[0]), cmp_id);
	qsort(c->by_name, c->n, sizeof(c->by_name[0]), cmp_name);
	c->by_id[ids] = NULL;
	c->class_gen = class_gen;
	cls_catalog_free(m);
	m->catalog = c;
	return 0;
}

void cls_catalog_free(struct cls_maps *m)
{
	catalog_free(m->catalog);
	m->catalog = NULL;
}

/* The catalogue, reread if a class changed since it was read. */
static int catalog(struct cls_maps *m, struct cls_catalog **out)
{
	struct cls_state s;
	int err;

	if (!m->catalog || !m->locked) {
		err = cls_state_read(m, &s);
		if (err)
			return err;
		if (!m->catalog || m->catalog->class_gen != s.class_gen) {
			err = load(m, s.class_gen);
			if (err)
				return err;
		}
	}
	*out = m->catalog;
	return 0;
}

int cls_classes(struct cls_maps *m, const struct cls_class_entry **e, size_t *n)
{
	struct cls_catalog *c;
	int err = catalog(m, &c);

	if (err)
		return err;
	*e = c->e;
	*n = c->n;
	return 0;
}

const struct cls_class_entry *cls_class_at(struct cls_maps *m, __u32 idx)
{
	struct cls_catalog *c;

	if (catalog(m, &c) || idx >= c->cap || c->pos[idx] < 0)
		return NULL;
	return &c->e[c->pos[idx]];
}

int cls_class_get(struct cls_maps *m, __u32 idx, struct cls_class_entry *e)
{
	const struct cls_class_entry *found;

	if (idx >= m->cap)
		return -ENOENT;
	if (m->catalog) {
		found = cls_class_at(m, idx);
		if (!found)
			return -ENOENT;
		*e = *found;
		return 0;
	}
	/* One class: two lookups, not the whole catalogue. */
	memset(e, 0, sizeof(*e));
	e->idx = idx;
	if (bpf_map_lookup_elem(m->fd[CLS_M_CLASSES], &idx, &e->cls) ||
	    bpf_map_lookup_elem(m->fd[CLS_M_CLASS_META], &idx, &e->meta))
		return -errno;
	e->meta.name[CLS_NAME_MAX - 1] = '\0';
	return e->cls.flags & CLS_F_VALID ? 0 : -ENOENT;
}

static size_t nr_ids(const struct cls_catalog *c)
{
	size_t n = c->n;

	return n && c->pos[CLS_DEFAULT_CLASS] >= 0 ? n - 1 : n;
}

/*
 * A shaping class's major is its queue + 1, which classifier chooses: the
 * classid it was added as still names it by its minor (unique among
 * shaping classes).
 */
static int shaped_by_minor(const struct cls_catalog *c, __u32 classid,
			   __u32 *idx)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if ((c->e[i].cls.flags & CLS_F_SHAPE) &&
		    (c->e[i].cls.classid & 0xffff) == (classid & 0xffff)) {
			*idx = c->e[i].idx;
			return 0;
		}
	return -ENOENT;
}

int cls_class_resolve(struct cls_maps *m, const char *tok, __u32 *idx)
{
	struct cls_class_entry key = {}, *kp = &key, **hit;
	struct cls_catalog *c;
	int err;

	if (check_class_name(tok, NULL) &&
	    (parse_classid(tok, &key.cls.classid) || !key.cls.classid))
		return -EINVAL;
	err = catalog(m, &c);
	if (err)
		return err;
	if (key.cls.classid) {
		hit = bsearch(&kp, c->by_id, nr_ids(c), sizeof(kp), cmp_id);
		if (!hit)
			return shaped_by_minor(c, key.cls.classid, idx);
	} else {
		strcpy(key.meta.name, tok);
		hit = bsearch(&kp, c->by_name, c->n, sizeof(kp), cmp_name);
	}
	if (!hit)
		return -ENOENT;
	*idx = (*hit)->idx;
	return 0;
}

const char *cls_class_strerror(int err, const char *tok, char *buf, size_t n)
{
	if (err == -ENOENT)
		snprintf(buf, n,
			 "unknown class \"%s\" (see 'classifier class list')",
			 tok);
	else if (err == -EINVAL)
		snprintf(buf, n, "\"%s\" is neither a classid nor a class name",
			 tok);
	else
		snprintf(buf, n, "reading classes: %s", strerror(-err));
	return buf;
}

void cls_class_label(const struct cls_class_entry *e, char *buf, size_t n)
{
	if (e->idx == CLS_DEFAULT_CLASS)
		snprintf(buf, n, "default");
	else
		format_classid(e->cls.classid, buf, n);
}

/* Another class with e's name or classid: -EEXIST, *other names it. */
static int clash(const struct cls_catalog *c, const struct cls_class_entry *e,
		 const struct cls_class_entry **other)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct cls_class_entry *o = &c->e[i];

		if (o->idx == e->idx)
			continue;
		if ((e->meta.name[0] && !strcmp(o->meta.name, e->meta.name)) ||
		    (e->idx != CLS_DEFAULT_CLASS &&
		     o->idx != CLS_DEFAULT_CLASS &&
		     o->cls.classid == e->cls.classid) ||
		    (o->cls.flags & e->cls.flags & CLS_F_SHAPE &&
		     (o->cls.classid & 0xffff) == (e->cls.classid & 0xffff))) {
			*other = o;
			return -EEXIST;
		}
	}
	return 0;
}

static int free_index(const struct cls_catalog *c)
{
	__u32 i;

	for (i = CLS_DEFAULT_CLASS + 1; i < c->cap; i++)
		if (c->pos[i] < 0)
			return i;
	return -ENOSPC;
}

/*
 * A new rate starts with a full bucket and a clock at now: the clocks
 * are zeroed after the class holds the new rate, so packets meet the old
 * rate with its own clock or the new one with a full bucket (at most a
 * packet or two in between see the new rate with the old clock).
 */
static int reset_rate(struct cls_maps *m, __u32 idx)
{
	struct cls_rate_state zero = {};

	if (bpf_map_update_elem(m->fd[CLS_M_RATE_STATE], &idx, &zero, BPF_ANY))
		return -errno;
	cls_step("class: rate clocks reset");
	return 0;
}

/* The rate's clocks need to start again: a new class, or another rate. */
static bool rate_changed(const struct cls_catalog *c,
			 const struct cls_class_entry *e, bool is_new)
{
	const struct cls_class_entry *o;
	int pos = c->pos[e->idx];

	if (is_new || pos < 0)
		return true;
	o = &c->e[pos];
	return (o->cls.flags & CLS_F_RATED) != (e->cls.flags & CLS_F_RATED) ||
	       memcmp(&o->cls.rate, &e->cls.rate, sizeof(e->cls.rate));
}

/*
 * Its HTB class first, on every shaped device (packets that reach the
 * class find it), then names before actions (the data path sees a class
 * only when complete), then the HTB class it had before, which nothing
 * points at now.  Every step is redone whole after a crash.
 */
static int put_htb(struct cls_maps *m, const struct cls_state *s)
{
	const struct cls_class_entry e = {.idx = s->journal.cls.idx,
					  .cls = s->journal.cls.cls,
					  .meta = s->journal.cls.meta};
	int err;

	if (s->journal.cls.del || !(e.cls.flags & CLS_F_SHAPE))
		return 0;
	err = cls_tree_class_put(m, s, &e);
	if (!err)
		cls_step("class: HTB class put");
	return err;
}

static int write_class(struct cls_maps *m, struct cls_state *s, bool put)
{
	__u32 idx = s->journal.cls.idx;
	int err = put ? put_htb(m, s) : 0;

	if (err)
		return err;
	if (bpf_map_update_elem(m->fd[CLS_M_CLASS_META], &idx,
				&s->journal.cls.meta, BPF_ANY))
		err = -errno;
	cls_step("class: name written");
	if (!err && bpf_map_update_elem(m->fd[CLS_M_CLASSES], &idx,
					&s->journal.cls.cls, BPF_ANY))
		err = -errno;
	cls_step("class: action written");
	if (!err && s->journal.cls.htb_old) {
		err = cls_tree_class_del(m, s, s->journal.cls.htb_old);
		cls_step("class: HTB class before deleted");
	}
	if (!err && s->journal.cls.rate_reset)
		err = reset_rate(m, idx);
	if (err)
		return err;
	s->class_gen++;
	cls_catalog_free(m);
	return cls_journal_end(m, s);
}

/* The HTB class of idx's records before the change that s records. */
static __u32 htb_before(const struct cls_catalog *c, const struct cls_state *s)
{
	const struct cls_class_entry *o;
	int pos = c->pos[s->journal.cls.idx];

	if (pos < 0)
		return 0;
	o = &c->e[pos];
	if (!(o->cls.flags & CLS_F_SHAPE))
		return 0;
	if (!s->journal.cls.del && (s->journal.cls.cls.flags & CLS_F_SHAPE) &&
	    s->journal.cls.cls.classid == o->cls.classid)
		return 0; /* the same HTB class, changed in place */
	return o->cls.classid;
}

/*
 * A change whose HTB class the kernel refused (a leaf it lacks, a rate
 * HTB takes not), before any record was written, is dropped: the class
 * and its HTB class stay as they were (one this change made new is taken
 * off again).  A later failure is finished by redoing the change.
 */
static int record_class(struct cls_maps *m, struct cls_state *s,
			const struct cls_class_entry *before)
{
	int err;

	s->journal.cls.htb_old = htb_before(m->catalog, s);
	err = cls_journal_begin(m, s, CLS_OP_CLASS);
	if (err)
		return err;
	err = put_htb(m, s);
	if (err) {
		if (before && (before->cls.flags & CLS_F_SHAPE) &&
		    before->cls.classid == s->journal.cls.cls.classid)
			cls_tree_class_put(m, s, before);
		else
			cls_tree_class_del(m, s, s->journal.cls.cls.classid);
		cls_journal_end(m, s);
		return err;
	}
	err = write_class(m, s, false);
	if (err)
		cls_class_recover(m, s); /* or the next lock-taker does */
	return err;
}

int cls_class_store(struct cls_maps *m, struct cls_class_entry *e)
{
	const struct cls_class_entry *other;
	struct cls_catalog *c;
	bool is_new = e->idx == CLS_CLASS_NEW;
	struct cls_state s;
	int err, idx;

	if (!m->locked)
		return -ENOLCK;
	err = catalog(m, &c);
	if (err)
		return err;
	if (is_new) {
		idx = free_index(c);
		if (idx < 0)
			return idx;
		e->idx = idx;
	}
	if (clash(c, e, &other)) {
		e->idx = other->idx; /* tells the caller which class */
		return -EEXIST;
	}
	err = cls_state_for_change(m, &s);
	if (err)
		return err;
	memset(&s.journal.cls, 0, sizeof(s.journal.cls));
	s.journal.cls.idx = e->idx;
	s.journal.cls.cls = e->cls;
	s.journal.cls.cls.flags |= CLS_F_VALID;
	s.journal.cls.meta = e->meta;
	s.journal.cls.rate_reset = rate_changed(c, e, is_new);
	return record_class(
		m, &s,
		is_new || c->pos[e->idx] < 0 ? NULL : &c->e[c->pos[e->idx]]);
}

int cls_class_del(struct cls_maps *m, __u32 idx, __u32 *routes)
{
	struct cls_catalog *c;
	struct cls_state s;
	int used, err;

	*routes = 0;
	if (!m->locked)
		return -ENOLCK;
	if (idx == CLS_DEFAULT_CLASS)
		return -EPERM;
	used = cls_route_count_class(m, idx);
	if (used < 0)
		return used;
	if (used) {
		*routes = used;
		return -EBUSY;
	}
	err = cls_state_for_change(m, &s);
	if (err)
		return err;
	memset(&s.journal.cls, 0, sizeof(s.journal.cls));
	s.journal.cls.idx = idx;
	s.journal.cls.del = 1;
	s.journal.cls.rate_reset = 1;
	err = catalog(m, &c);
	return err ? err : record_class(m, &s, NULL);
}

int cls_class_recover(struct cls_maps *m, struct cls_state *s)
{
	const struct cls_journal j = s->journal; /* ending it clears it */
	struct cls_class_entry e = {.idx = j.cls.idx, .cls = j.cls.cls};
	char label[CLASSID_STRLEN];
	int err;

	if (j.cls.idx >= m->cap)
		return cls_journal_end(m, s);
	cls_class_label(&e, label, sizeof(label));
	err = write_class(m, s, true);
	if (!err && j.cls.del)
		cls_notify(m,
			   "finished an interrupted deletion of class index %u "
			   "(pid %u)",
			   e.idx, j.pid);
	else if (!err)
		cls_notify(
			m,
			"finished an interrupted change of class %s (pid %u)",
			label, j.pid);
	return err;
}
